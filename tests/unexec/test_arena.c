/* SPDX-License-Identifier: MIT */
/* tests/unexec/test_arena.c: unit tests of the unexec static arena.

   Built against arena.c compiled with a 4 MiB arena (see
   unexec/local.mk), so exhaustion is cheap to reach.  Every test starts
   from an empty arena and ends by checking the allocator's invariants
   with unexec_arena_check.  */

#include <config.h>

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../unexec/arena.h"
#include "../../unexec/backend.h"

#define CAPACITY ((size_t) 4 << 20)

static void
assert_invariants (void)
{
  char why[256] = "";
  if (!unexec_arena_check (why, sizeof why))
    fail_msg ("arena invariant broken: %s", why);
}

static size_t
arena_used (void)
{
  void *base;
  size_t used, capacity;
  unexec_arena_bounds (&base, &used, &capacity);
  return used;
}

static unsigned char *
arena_base (void)
{
  void *base;
  size_t used, capacity;
  unexec_arena_bounds (&base, &used, &capacity);
  return base;
}

static void *
alloc (size_t size)
{
  char why[256];
  void *p = unexec_arena_alloc (size, why, sizeof why);
  if (p == NULL)
    fail_msg ("allocating %zu bytes failed: %s", size, why);
  return p;
}

static bool
all_zero (const unsigned char *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (p[i])
      return false;
  return true;
}

/* Everything has been freed.  */
static void
assert_empty (void)
{
  assert_int_equal (arena_used (), 0);
  assert_int_equal (unexec_arena_live_bytes (), 0);
  assert_invariants ();
}

static int
reset (void **state)
{
  (void) state;
  unexec_arena_reset ();
  return 0;
}

/* ------------------------------------------------------------------ */

static void
test_capacity_and_empty (void **state)
{
  (void) state;
  void *base;
  size_t used, capacity;
  unexec_arena_bounds (&base, &used, &capacity);
  assert_int_equal (capacity, CAPACITY);
  assert_int_equal (used, 0);
  assert_int_equal ((uintptr_t) base % 4096, 0);
  assert_int_equal (unexec_arena_live_bytes (), 0);
  assert_invariants ();
}

static void
test_alignment_and_zeroing (void **state)
{
  (void) state;
  void *blocks[300];
  for (size_t i = 0; i < 300; i++)
    {
      size_t size = (i * 37) % 1500;
      unsigned char *p = blocks[i] = alloc (size);
      assert_int_equal ((uintptr_t) p % 16, 0);
      assert_true (all_zero (p, size));
      memset (p, 0xA5, size);
    }
  /* Free and reallocate: recycled memory is zeroed again.  */
  for (size_t i = 0; i < 300; i += 2)
    unexec_arena_free (blocks[i]);
  assert_invariants ();
  for (size_t i = 0; i < 300; i += 2)
    {
      size_t size = (i * 37) % 1500;
      unsigned char *p = alloc (size);
      assert_int_equal ((uintptr_t) p % 16, 0);
      assert_true (all_zero (p, size));
    }
  assert_invariants ();
}

static void
test_zero_size_is_unique (void **state)
{
  (void) state;
  void *a = alloc (0), *b = alloc (0);
  assert_non_null (a);
  assert_non_null (b);
  assert_ptr_not_equal (a, b);
  unexec_arena_free (a);
  unexec_arena_free (b);
  unexec_arena_free (NULL);
  assert_int_equal (arena_used (), 0);
  assert_invariants ();
}

static void
test_reuse_exact_size (void **state)
{
  (void) state;
  void *a = alloc (100);
  void *guard = alloc (100);
  unexec_arena_free (a);
  void *b = alloc (100);
  assert_ptr_equal (a, b);
  (void) guard;
  assert_invariants ();
}

static void
test_top_shrinks (void **state)
{
  (void) state;
  void *a = alloc (1000);
  size_t after_a = arena_used ();
  void *b = alloc (5000);
  assert_true (arena_used () > after_a);
  unexec_arena_free (b);
  assert_int_equal (arena_used (), after_a);
  unexec_arena_free (a);
  assert_empty ();
}

static void
test_coalescing (void **state)
{
  (void) state;
  unsigned char *a = alloc (256), *b = alloc (256), *c = alloc (256);
  void *guard = alloc (16);
  size_t used = arena_used ();
  unexec_arena_free (a);
  unexec_arena_free (c);
  assert_invariants ();
  unexec_arena_free (b);      /* merges with both neighbours */
  assert_invariants ();
  /* One block now spans a, b and c: a request that needs all of it is
     served there, not from top.  */
  unsigned char *big = alloc (3 * 256 + 2 * 16);
  assert_ptr_equal (big, a);
  assert_int_equal (arena_used (), used);
  (void) guard;
  assert_invariants ();
}

static void
test_fragmentation_pattern (void **state)
{
  (void) state;
  enum { N = 2000 };
  static void *small[N];
  for (int i = 0; i < N; i++)
    small[i] = alloc (48);
  size_t used = arena_used ();
  for (int i = 0; i < N; i += 2)
    unexec_arena_free (small[i]);
  assert_invariants ();
  /* Holes of 64-byte blocks cannot hold 200 bytes: these come from top.  */
  void *large[100];
  for (int i = 0; i < 100; i++)
    large[i] = alloc (200);
  assert_true (arena_used () > used);
  /* Small requests fill the holes and leave top alone.  */
  size_t used_now = arena_used ();
  for (int i = 0; i < N; i += 2)
    small[i] = alloc (40);
  assert_int_equal (arena_used (), used_now);
  assert_invariants ();
  for (int i = 0; i < N; i++)
    unexec_arena_free (small[i]);
  for (int i = 0; i < 100; i++)
    unexec_arena_free (large[i]);
  assert_empty ();
}

static void
test_resize (void **state)
{
  (void) state;
  char why[256];
  /* NULL and zero.  */
  unsigned char *p = unexec_arena_realloc (NULL, 40, why, sizeof why);
  assert_non_null (p);
  memset (p, 1, 40);
  /* At the top: grows in place.  */
  unsigned char *q = unexec_arena_realloc (p, 4000, why, sizeof why);
  assert_ptr_equal (q, p);
  assert_true (q[39] == 1 && q[0] == 1);
  /* Shrinks in place, keeps the bytes.  */
  q = unexec_arena_realloc (p, 20, why, sizeof why);
  assert_ptr_equal (q, p);
  assert_int_equal (q[19], 1);
  assert_invariants ();
  /* Into a free successor.  */
  unsigned char *next = alloc (500);
  void *guard = alloc (16);
  unexec_arena_free (next);
  q = unexec_arena_realloc (p, 300, why, sizeof why);
  assert_ptr_equal (q, p);
  assert_int_equal (q[19], 1);
  assert_invariants ();
  /* Blocked on both sides: moves and copies.  */
  void *blocker = alloc (16);
  unsigned char *moved = unexec_arena_realloc (q, 2000, why, sizeof why);
  assert_non_null (moved);
  assert_ptr_not_equal (moved, q);
  for (int i = 0; i < 20; i++)
    assert_int_equal (moved[i], 1);
  assert_invariants ();
  assert_null (unexec_arena_realloc (moved, 0, why, sizeof why));
  (void) guard;
  (void) blocker;
  assert_invariants ();
}

static void
test_exhaustion (void **state)
{
  (void) state;
  char why[256] = "";
  assert_null (unexec_arena_alloc (CAPACITY, why, sizeof why));
  assert_non_null (strstr (why, "--with-arena-size"));
  why[0] = '\0';
  assert_null (unexec_arena_alloc (SIZE_MAX - 8, why, sizeof why));
  assert_non_null (strstr (why, "--with-arena-size"));
  assert_invariants ();

  void *blocks[16];
  int count = 0;
  while (count < 16 && (blocks[count] = unexec_arena_alloc (1 << 20, why, sizeof why)))
    count++;
  assert_int_equal (count, 3);          /* 4 MiB minus headers */
  assert_non_null (strstr (why, "exhausted"));
  /* A failed realloc leaves the block as it was.  */
  memset (blocks[0], 7, 16);
  assert_null (unexec_arena_realloc (blocks[0], 3 << 20, why, sizeof why));
  assert_int_equal (((unsigned char *) blocks[0])[15], 7);
  assert_invariants ();
  for (int i = 0; i < count; i++)
    unexec_arena_free (blocks[i]);
  assert_int_equal (arena_used (), 0);
  /* Everything is usable again.  */
  assert_non_null (unexec_arena_alloc (3 << 20, why, sizeof why));
  assert_invariants ();
}

static void
test_scrub_zeroes_free_memory (void **state)
{
  (void) state;
  unsigned char *a = alloc (512);
  unsigned char *b = alloc (512);
  unsigned char *c = alloc (4096);
  memset (a, 0x5A, 512);
  memset (b, 0x5B, 512);
  memset (c, 0x5C, 4096);
  unexec_arena_free (a);      /* a hole below b */
  unexec_arena_free (c);      /* returned to top: stale bytes above it */
  unexec_arena_scrub ();
  assert_invariants ();
  /* a's payload past the list links (16 bytes) is zero; b is intact.  */
  assert_true (all_zero (a + 16, 512 - 16));
  for (int i = 0; i < 512; i++)
    assert_int_equal (b[i], 0x5B);
  /* Above top, nothing remains.  */
  assert_true (all_zero (arena_base () + arena_used (), 4096 + 64));
}

static void
test_recycled_top_is_zeroed (void **state)
{
  (void) state;
  unsigned char *a = alloc (8192);
  memset (a, 0xEE, 8192);
  unexec_arena_free (a);      /* back to top, bytes stay dirty */
  unsigned char *b = alloc (8192);
  assert_ptr_equal (a, b);
  assert_true (all_zero (b, 8192));
  /* Grown in place at top: the realloc'd tail was dirty memory too.  */
  assert_invariants ();
}

/* The check really detects a broken heap.  */
static void
test_check_detects_corruption (void **state)
{
  (void) state;
  unsigned char *a = alloc (64);
  void *b = alloc (64);
  /* The size field: the second size_t of the 16-byte block header.  */
  size_t *header = (size_t *) (a - 16 + sizeof (size_t));
  size_t saved = *header;
  *header = saved + 16;       /* a's size no longer tiles */
  char why[256] = "";
  assert_false (unexec_arena_check (why, sizeof why));
  assert_true (why[0] != '\0');
  *header = saved | 1;        /* claims to be free but is on no list */
  assert_false (unexec_arena_check (why, sizeof why));
  *header = saved;
  assert_invariants ();
  (void) b;
}

/* Freeing twice, or a pointer the arena never gave, stops the program.  */
static void
expect_abort (void (*fn) (void))
{
  pid_t pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      /* Keep the child's expected message out of the test report.  */
      if (freopen ("/dev/null", "w", stderr) == NULL)
        _exit (3);
      fn ();
      _exit (0);
    }
  int status;
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFSIGNALED (status));
  assert_int_equal (WTERMSIG (status), SIGABRT);
}

static void
double_free (void)
{
  void *a = alloc (32);
  void *guard = alloc (32);
  unexec_arena_free (a);
  unexec_arena_free (a);
  (void) guard;
}

static void
wild_free (void)
{
  static char not_arena[64];
  unexec_arena_free (not_arena + 16);
}

static void
test_bad_free_aborts (void **state)
{
  (void) state;
  expect_abort (double_free);
  expect_abort (wild_free);
  assert_invariants ();
}

/* Random operation sequences: contents survive, invariants hold.  */
struct slot
{
  unsigned char *p;
  size_t size;
  unsigned char tag;
};

static uint64_t rng_state;

static uint64_t
rng (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static size_t
random_size (void)
{
  switch (rng () % 8)
    {
    case 0: return rng () % 20000;          /* a large-class block */
    case 1: return 0;
    default: return rng () % 300;           /* mostly small */
    }
}

static void
verify_slot (const struct slot *s)
{
  for (size_t k = 0; k < s->size; k++)
    if (s->p[k] != s->tag)
      fail_msg ("block %p byte %zu is %u, want %u", (void *) s->p, k,
                s->p[k], s->tag);
}

static void
random_step (struct slot *slots, size_t slot_count, int step)
{
  char why[256];
  struct slot *s = &slots[rng () % slot_count];
  unsigned op = rng () % 3;
  if (s->p)
    verify_slot (s);
  if (s->p && op == 0)
    {
      unexec_arena_free (s->p);
      s->p = NULL;
    }
  else if (s->p && op == 1)
    {
      size_t size = random_size ();
      unsigned char *q = unexec_arena_realloc (s->p, size, why, sizeof why);
      if (size == 0)
        {
          assert_null (q);
          s->p = NULL;
          return;
        }
      if (q == NULL)
        return;                 /* full: the old block stays */
      assert_int_equal ((uintptr_t) q % 16, 0);
      size_t kept = size < s->size ? size : s->size;
      for (size_t k = 0; k < kept; k++)
        assert_int_equal (q[k], s->tag);
      s->p = q;
      s->size = size;
      memset (q, s->tag, size);
    }
  else if (s->p == NULL)
    {
      s->size = random_size ();
      s->p = unexec_arena_alloc (s->size, why, sizeof why);
      if (s->p == NULL)
        return;
      assert_true (all_zero (s->p, s->size));
      s->tag = (unsigned char) (step % 251 + 1);
      memset (s->p, s->tag, s->size);
    }
}

static void
test_random_sequences (void **state)
{
  (void) state;
  enum { SLOTS = 400, STEPS = 20000 };
  static struct slot slots[SLOTS];
  for (uint64_t seed = 1; seed <= 3; seed++)
    {
      unexec_arena_reset ();
      memset (slots, 0, sizeof slots);
      rng_state = seed * UINT64_C (0x9E3779B97F4A7C15);
      for (int step = 0; step < STEPS; step++)
        {
          random_step (slots, SLOTS, step);
          if (step % 50 == 0)
            assert_invariants ();
          if (step % 5000 == 0)
            {
              unexec_arena_scrub ();
              assert_invariants ();
            }
        }
      size_t live_requested = 0;
      for (int i = 0; i < SLOTS; i++)
        if (slots[i].p)
          {
            verify_slot (&slots[i]);
            live_requested += slots[i].size;
          }
      assert_true (unexec_arena_live_bytes () >= live_requested);
      assert_invariants ();
      for (int i = 0; i < SLOTS; i++)
        unexec_arena_free (slots[i].p);
      assert_empty ();
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup (test_capacity_and_empty, reset),
    cmocka_unit_test_setup (test_alignment_and_zeroing, reset),
    cmocka_unit_test_setup (test_zero_size_is_unique, reset),
    cmocka_unit_test_setup (test_reuse_exact_size, reset),
    cmocka_unit_test_setup (test_top_shrinks, reset),
    cmocka_unit_test_setup (test_coalescing, reset),
    cmocka_unit_test_setup (test_fragmentation_pattern, reset),
    cmocka_unit_test_setup (test_resize, reset),
    cmocka_unit_test_setup (test_exhaustion, reset),
    cmocka_unit_test_setup (test_scrub_zeroes_free_memory, reset),
    cmocka_unit_test_setup (test_recycled_top_is_zeroed, reset),
    cmocka_unit_test_setup (test_check_detects_corruption, reset),
    cmocka_unit_test_setup (test_bad_free_aborts, reset),
    cmocka_unit_test_setup (test_random_sequences, reset),
  };
  return cmocka_run_group_tests_name ("unexec arena", tests, NULL, NULL);
}
