/* SPDX-License-Identifier: MIT */
/* tests/pdump/test_hash.c: pdump/hash.h's choice between libxxhash's
   baseline and dispatching XXH3 (issue 33, the fixed cost of a start).

   Whichever code hashes, the values must be XXH3's: one-shot and
   streaming, below, at and above PDUMP_HASH_DISPATCH_MIN, and a stream
   that crosses it part-way.  And the dispatcher, whose first call costs
   a virtual machine 24 us of CPUID traps, must not be called for small
   hashes: this file's flag (each file including hash.h keeps one) is
   still clear after them, and set after the first large one.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pdump/hash.h"

#if defined __x86_64__

static unsigned char *
pattern (size_t size)
{
  unsigned char *bytes = malloc (size);
  assert_non_null (bytes);
  uint64_t x = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < size; i++)
    {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      bytes[i] = (unsigned char) x;
    }
  return bytes;
}

/* XXH3-64 of SIZE bytes of P by libxxhash's dispatching entry, the
   reference every wrapper result must equal.  */
static XXH64_hash_t
reference (const unsigned char *p, size_t size)
{
  return XXH3_64bits_dispatch (p, size);
}

/* Streaming through the wrappers in CHUNK-byte pieces.  */
static XXH64_hash_t
streamed (const unsigned char *p, size_t size, size_t chunk)
{
  XXH3_state_t state;
  XXH3_INITSTATE (&state);
  XXH3_64bits_reset (&state);
  for (size_t at = 0; at < size; at += chunk)
    assert_int_equal (XXH3_64bits_update (&state, p + at,
                                          size - at < chunk ? size - at : chunk),
                      XXH_OK);
  return XXH3_64bits_digest (&state);
}

static void
small_hashes_stay_baseline (void **unused)
{
  (void) unused;
  size_t size = PDUMP_HASH_DISPATCH_MIN - 1;
  unsigned char *p = pattern (size);
  XXH64_hash_t one = XXH3_64bits (p, 712);
  XXH64_hash_t all = XXH3_64bits (p, size);
  XXH64_hash_t stream = streamed (p, size, 65536);
  assert_false (pdump_hash_dispatched_);
  /* The reference dispatches, but through libxxhash directly: the
     flag is the wrappers' own.  */
  assert_true (one == reference (p, 712));
  assert_true (all == reference (p, size));
  assert_true (stream == all);
  assert_false (pdump_hash_dispatched_);
  free (p);
}

static void
large_hashes_dispatch_with_the_same_values (void **unused)
{
  (void) unused;
  size_t size = 3 * PDUMP_HASH_DISPATCH_MIN + 12345;
  unsigned char *p = pattern (size);
  XXH64_hash_t want = reference (p, size);
  /* A stream that crosses the threshold part-way: baseline updates,
     then dispatched ones, on one state.  */
  assert_true (streamed (p, size, 100000) == want);
  assert_true (pdump_hash_dispatched_);
  assert_true (XXH3_64bits (p, size) == want);
  assert_true (XXH3_64bits (p, PDUMP_HASH_DISPATCH_MIN)
               == reference (p, PDUMP_HASH_DISPATCH_MIN));
  /* Once dispatched, small hashes may dispatch too: same values.  */
  assert_true (XXH3_64bits (p, 712) == reference (p, 712));
  free (p);
}

int
main (void)
{
  /* In this order: the first test needs a file that has not
     dispatched.  */
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (small_hashes_stay_baseline),
    cmocka_unit_test (large_hashes_dispatch_with_the_same_values),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}

#else

static void
no_dispatcher (void **unused)
{
  (void) unused;
  skip ();   /* libxxhash dispatches on x86-64 only */
}

int
main (void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test (no_dispatcher) };
  return cmocka_run_group_tests (tests, NULL, NULL);
}

#endif
