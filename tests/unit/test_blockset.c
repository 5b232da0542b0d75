/* SPDX-License-Identifier: MIT */
/* tests/unit/test_blockset.c: the set of block addresses
   (common/blockset.c) that the bridge keeps of live dumper_alloc blocks
   and the pre-dump check of the blocks it visited.

   Checked against a plain array as the model: adds, repeated adds,
   removals, membership of neighbours, addresses that cannot be members,
   the floor search within a chunk, across chunks and below every
   member, reuse after freeing, and the memory it takes per byte of
   heap, which is why it replaced a hash map of every block.  And the
   numbering the pdump writer indexes its visited objects by: distinct
   numbers below the count, in address order within a chunk, undone by
   a change; the merge of two sets; the bit count it rests on
   (common/bits.h).  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/bits.h"
#include "common/blockset.h"

/* Where a heap might lie in this process's word size.  */
static uintptr_t
heap_base (void)
{
  return sizeof (uintptr_t) == 8 ? (uintptr_t) UINT64_C (0x7f1234500000)
                                 : (uintptr_t) 0x5a000000u;
}

/* A deterministic stream of block addresses like malloc's: 16-byte
   multiples at varying steps, spread over several chunks.  */
static uintptr_t
block_of (size_t i)
{
  return heap_base () + (uintptr_t) i * 48 + (i / 5) * 16 + (i / 1000) * 65536;
}

static void
test_add_has_remove (void **state)
{
  (void) state;
  struct common_blockset set = { 0 };
  enum { N = 50000 };
  for (size_t i = 0; i < N; i++)
    {
      bool added;
      assert_true (common_blockset_add (&set, block_of (i), &added));
      assert_true (added);
    }
  assert_int_equal (set.count, N);
  for (size_t i = 0; i < N; i++)
    {
      bool added = true;
      assert_true (common_blockset_add (&set, block_of (i), &added));
      assert_false (added);   /* already a member */
      assert_true (common_blockset_has (&set, block_of (i)));
      /* Neighbours one grain away are not members.  */
      assert_false (common_blockset_has (&set, block_of (i) + 8));
      assert_false (common_blockset_has (&set, block_of (i) - 8));
    }
  assert_int_equal (set.count, N);
  /* Remove every third; the rest stay.  */
  for (size_t i = 0; i < N; i += 3)
    assert_true (common_blockset_remove (&set, block_of (i)));
  for (size_t i = 0; i < N; i += 3)
    assert_false (common_blockset_remove (&set, block_of (i)));   /* twice */
  for (size_t i = 0; i < N; i++)
    assert_int_equal (common_blockset_has (&set, block_of (i)), i % 3 != 0);
  assert_int_equal (set.count, N - (N + 2) / 3);
  common_blockset_free (&set);
  assert_int_equal (set.count, 0);
  assert_false (common_blockset_has (&set, block_of (1)));
}

static void
test_not_members (void **state)
{
  (void) state;
  struct common_blockset set = { 0 };
  bool added = true;
  /* Not a multiple of the grain, or 0: refused, set unchanged.  */
  assert_false (common_blockset_add (&set, heap_base () + 4, &added));
  assert_false (added);
  assert_false (common_blockset_add (&set, heap_base () + 1, &added));
  assert_false (common_blockset_add (&set, 0, &added));
  assert_int_equal (set.count, 0);
  assert_false (common_blockset_has (&set, heap_base () + 4));
  assert_false (common_blockset_remove (&set, heap_base ()));
  /* An empty set answers without memory.  */
  assert_false (common_blockset_has (&set, heap_base ()));
  uintptr_t m;
  assert_false (common_blockset_floor (&set, heap_base (), &m));
  /* The highest and lowest addresses of the space work.  */
  uintptr_t top = UINTPTR_MAX & ~(uintptr_t) 7;
  assert_true (common_blockset_add (&set, top, &added));
  assert_true (added);
  assert_true (common_blockset_add (&set, 8, &added));
  assert_true (common_blockset_has (&set, top));
  assert_true (common_blockset_has (&set, 8));
  assert_true (common_blockset_floor (&set, UINTPTR_MAX, &m));
  assert_true (m == top);
  assert_true (common_blockset_floor (&set, 15, &m));
  assert_true (m == 8);
  assert_false (common_blockset_floor (&set, 7, &m));
  common_blockset_free (&set);
}

static void
test_floor (void **state)
{
  (void) state;
  struct common_blockset set = { 0 };
  bool added;
  uintptr_t base = heap_base ();
  uintptr_t chunk = (uintptr_t) 1 << COMMON_BLOCKSET_CHUNK_SHIFT;
  uintptr_t a = base + 64, b = base + 4096, c = base + 3 * chunk + 256;
  assert_true (common_blockset_add (&set, c, &added));
  assert_true (common_blockset_add (&set, a, &added));
  assert_true (common_blockset_add (&set, b, &added));
  uintptr_t m = 0;
  /* Below every member.  */
  assert_false (common_blockset_floor (&set, a - 8, &m));
  /* On a member, and inside the block that starts there.  */
  assert_true (common_blockset_floor (&set, a, &m));
  assert_true (m == a);
  assert_true (common_blockset_floor (&set, a + 13, &m));
  assert_true (m == a);
  assert_true (common_blockset_floor (&set, b - 1, &m));
  assert_true (m == a);
  assert_true (common_blockset_floor (&set, b + 100, &m));
  assert_true (m == b);
  /* Chunks later, with empty chunks between (a large block).  */
  assert_true (common_blockset_floor (&set, base + 2 * chunk + 8, &m));
  assert_true (m == b);
  assert_true (common_blockset_floor (&set, c - 8, &m));
  assert_true (m == b);
  assert_true (common_blockset_floor (&set, c + chunk * 5, &m));
  assert_true (m == c);
  /* A member in the lowest bit of a chunk, and in its highest.  */
  uintptr_t first = base + 5 * chunk, last = base + 6 * chunk - 8;
  assert_true (common_blockset_add (&set, first, &added));
  assert_true (common_blockset_add (&set, last, &added));
  assert_true (common_blockset_floor (&set, first + 8, &m));
  assert_true (m == first);
  assert_true (common_blockset_floor (&set, first - 8, &m));
  assert_true (m == c);
  assert_true (common_blockset_floor (&set, last + 7, &m));
  assert_true (m == last);
  assert_true (common_blockset_remove (&set, b));
  assert_true (common_blockset_floor (&set, b + 100, &m));
  assert_true (m == a);
  common_blockset_free (&set);
}

/* The model: random adds and removes of a few thousand addresses, with
   membership and floor compared with a plain array after each step.  */
static void
test_against_model (void **state)
{
  (void) state;
  enum { SLOTS = 4096 };
  static bool model[SLOTS];
  memset (model, 0, sizeof model);
  struct common_blockset set = { 0 };
  uint64_t r = 0x9E3779B97F4A7C15u;
  uintptr_t base = heap_base ();
  /* Slots 16 bytes apart, spread over three chunks by a stride.  */
#define SLOT_ADDR(k) (base + (uintptr_t) (k) * 16 + ((uintptr_t) (k) / 1500) * 300000)
  size_t count = 0;
  for (int step = 0; step < 20000; step++)
    {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      size_t k = (size_t) (r % SLOTS);
      bool added;
      if (r >> 40 & 1)
        {
          assert_true (common_blockset_add (&set, SLOT_ADDR (k), &added));
          assert_int_equal (added, !model[k]);
          count += !model[k];
          model[k] = true;
        }
      else
        {
          assert_int_equal (common_blockset_remove (&set, SLOT_ADDR (k)),
                            model[k]);
          count -= model[k];
          model[k] = false;
        }
      assert_int_equal (set.count, count);
      size_t q = (size_t) ((r >> 20) % SLOTS);
      assert_int_equal (common_blockset_has (&set, SLOT_ADDR (q)), model[q]);
      if (step % 16 == 0)
        {
          uintptr_t m;
          size_t j = q + 1;
          while (j > 0 && !model[j - 1])
            j--;
          bool found = common_blockset_floor (&set, SLOT_ADDR (q) + 8, &m);
          assert_int_equal (found, j > 0);
          if (found)
            assert_true (m == SLOT_ADDR (j - 1));
        }
    }
#undef SLOT_ADDR
  common_blockset_free (&set);
}

/* The reason for the set: 100 000 blocks of 48 bytes take a bit per 8
   bytes of their heap (4.8 MB of heap, about 80 KB of bitmaps), where a
   map of address to size took 16 bytes a block at most 4/5 full (2 MB
   and more).  */
static void
test_memory_per_heap_byte (void **state)
{
  (void) state;
  struct common_blockset set = { 0 };
  enum { N = 100000 };
  uintptr_t base = heap_base ();
  for (size_t i = 0; i < N; i++)
    {
      bool added;
      assert_true (common_blockset_add (&set, base + (uintptr_t) i * 48,
                                        &added));
    }
  size_t heap = (size_t) N * 48;
  size_t bytes = common_blockset_bytes (&set);
  /* A bit per grain, plus a chunk of slack at each end and the index.  */
  assert_true (bytes <= heap / 64 + 2 * 4096 + 4096);
  assert_true (bytes < (size_t) N * 16 / 10);   /* a tenth of a map's */
  common_blockset_free (&set);
}

/* The bit count against a loop over the bits, on words with every
   popcount from 0 to 64.  */
static void
test_popcount (void **state)
{
  (void) state;
  uint64_t r = 0x2545F4914F6CDD1Du;
  for (int i = 0; i < 20000; i++)
    {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      uint64_t x = r;
      if (i % 3 == 1)
        x &= r >> 17 & r >> 31;                 /* sparse */
      else if (i % 3 == 2)
        x |= (r << 11) | (r >> 23);             /* dense */
      if (i < 65)
        x = i == 64 ? ~UINT64_C (0) : (UINT64_C (1) << i) - 1;
      size_t naive = 0;
      for (int b = 0; b < 64; b++)
        naive += (size_t) (x >> b & 1);
      assert_int_equal (common_popcount64 (x), naive);
    }
}

/* Numbering: a set of blocks over several chunks, some far apart.  */
static void
test_numbering (void **state)
{
  (void) state;
  enum { N = 30000 };
  struct common_blockset set = { 0 };
  bool added;
  /* Not numbered yet: no numbers.  */
  assert_true (common_blockset_add (&set, block_of (0), &added));
  assert_true (common_blockset_number_of (&set, block_of (0)) == SIZE_MAX);
  for (size_t i = 1; i < N; i++)
    assert_true (common_blockset_add (&set, block_of (i * 7 % N), &added));
  assert_int_equal (set.count, N);
  assert_true (common_blockset_number (&set));
  static unsigned char seen[N];
  memset (seen, 0, sizeof seen);
  size_t previous = SIZE_MAX;
  for (size_t i = 0; i < N; i++)
    {
      size_t n = common_blockset_number_of (&set, block_of (i));
      assert_true (n < N);
      assert_int_equal (seen[n], 0);
      seen[n] = 1;
      /* Address order within a chunk: consecutive numbers.  */
      if (i > 0 && (block_of (i) >> COMMON_BLOCKSET_CHUNK_SHIFT)
                   == (block_of (i - 1) >> COMMON_BLOCKSET_CHUNK_SHIFT))
        assert_int_equal (n, previous + 1);
      previous = n;
      /* Non-members have none: the grain after a block, an address
         that is not a multiple of the grain, a chunk never used.  */
      assert_true (common_blockset_number_of (&set, block_of (i) + 8)
                   == SIZE_MAX);
      assert_true (common_blockset_number_of (&set, block_of (i) + 3)
                   == SIZE_MAX);
    }
  assert_true (common_blockset_number_of (&set, heap_base () - 4096)
               == SIZE_MAX);
  /* A change undoes the numbering (the old numbers would be wrong).  */
  assert_true (common_blockset_remove (&set, block_of (5)));
  assert_true (common_blockset_number_of (&set, block_of (6)) == SIZE_MAX);
  assert_true (common_blockset_number (&set));
  assert_true (common_blockset_number_of (&set, block_of (N - 1)) < N - 1);
  assert_true (common_blockset_add (&set, block_of (5), &added));
  assert_true (common_blockset_number_of (&set, block_of (6)) == SIZE_MAX);
  common_blockset_free (&set);
  /* Freed: usable again, and not numbered.  */
  assert_true (common_blockset_add (&set, block_of (1), &added));
  assert_true (common_blockset_number_of (&set, block_of (1)) == SIZE_MAX);
  common_blockset_free (&set);
}

/* Merge: the union, counted once, and the source left as it was.  */
static void
test_merge (void **state)
{
  (void) state;
  struct common_blockset a = { 0 }, b = { 0 };
  bool added;
  for (size_t i = 0; i < 5000; i++)
    {
      if (i % 2 == 0)
        assert_true (common_blockset_add (&a, block_of (i), &added));
      if (i % 3 == 0)
        assert_true (common_blockset_add (&b, block_of (i), &added));
    }
  size_t in_b = b.count;
  assert_true (common_blockset_merge (&a, &b));
  assert_int_equal (b.count, in_b);
  size_t expect = 0;
  for (size_t i = 0; i < 5000; i++)
    {
      bool member = i % 2 == 0 || i % 3 == 0;
      expect += member;
      assert_int_equal (common_blockset_has (&a, block_of (i)), member);
    }
  assert_int_equal (a.count, expect);
  common_blockset_free (&a);
  common_blockset_free (&b);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_add_has_remove),
    cmocka_unit_test (test_not_members),
    cmocka_unit_test (test_floor),
    cmocka_unit_test (test_against_model),
    cmocka_unit_test (test_memory_per_heap_byte),
    cmocka_unit_test (test_popcount),
    cmocka_unit_test (test_numbering),
    cmocka_unit_test (test_merge),
  };
  return cmocka_run_group_tests_name ("common block set", tests, NULL, NULL);
}
