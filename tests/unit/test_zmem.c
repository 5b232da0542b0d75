/* SPDX-License-Identifier: MIT */
/* tests/unit/test_zmem.c: zero-filled growable memory (common/zmem.c),
   under the pdump writer's buffers and bitmaps and the address maps.

   What zmem.h promises, at sizes on both sides of each of its
   thresholds (calloc below 256 KiB, a mapping from there, whole huge
   pages from 1 MiB): a new block is zero; growing keeps the bytes and
   adds zeros; shrinking and growing again finds zeros where the old
   bytes were, also within one mapping, where nothing is remapped; and
   a block asked for with HUGE and touched in full takes a fault per
   huge page, not one per page, where the kernel offers them.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/zmem.h"

#define KIB ((size_t) 1024)
#define MIB (KIB * 1024)

static const size_t sizes[] = {
  1, 100, 256 * KIB - 1, 256 * KIB, 256 * KIB + 1, MIB - 1, MIB, MIB + 1,
  2 * MIB, 2 * MIB + 4097, 5 * MIB + 3
};

/* The first byte of BLOCK[FROM, TO) that is not VALUE, or TO.  */
static size_t
first_not (const unsigned char *block, size_t from, size_t to, int value)
{
  for (size_t i = from; i < to; i++)
    if (block[i] != (unsigned char) value)
      return i;
  return to;
}

static void
test_new_blocks_are_zero (void **state)
{
  (void) state;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int huge = 0; huge < 2; huge++)
      {
        unsigned char *b = common_zalloc (sizes[i], huge);
        assert_non_null (b);
        assert_int_equal (first_not (b, 0, sizes[i], 0), sizes[i]);
        memset (b, 0x5a, sizes[i]);   /* all of it is writable */
        common_zfree (b, sizes[i]);
      }
}

/* Grow a block through every size in turn: the old bytes stay, the new
   ones are zero.  */
static void
test_grow_keeps_and_zeroes (void **state)
{
  (void) state;
  for (int huge = 0; huge < 2; huge++)
    {
      size_t size = sizes[0];
      unsigned char *b = common_zalloc (size, huge);
      assert_non_null (b);
      memset (b, 0xa5, size);
      for (size_t i = 1; i < sizeof sizes / sizeof sizes[0]; i++)
        {
          b = common_zrealloc (b, size, sizes[i], huge);
          assert_non_null (b);
          assert_int_equal (first_not (b, 0, size, 0xa5), size);
          assert_int_equal (first_not (b, size, sizes[i], 0), sizes[i]);
          memset (b + size, 0xa5, sizes[i] - size);
          size = sizes[i];
        }
      common_zfree (b, size);
    }
}

/* Shrink, then grow back: the bytes between are zero again.  The pairs
   cover a shrink within one mapping (1.9 MiB to 1.1 MiB and back, at
   offsets within pages), across mappings and from a mapping to calloc.  */
static void
test_shrink_then_grow_finds_zeros (void **state)
{
  (void) state;
  static const size_t pairs[][2] = {
    { 1900 * KIB + 5, 1100 * KIB + 123 },
    { 2 * MIB, MIB },
    { 5 * MIB + 3, 2 * MIB + 4097 },
    { 3 * MIB, 300 * KIB },
    { 600 * KIB, 100 * KIB },
    { 100 * KIB, 10 },
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    for (int huge = 0; huge < 2; huge++)
      {
        size_t big = pairs[i][0], small = pairs[i][1];
        unsigned char *b = common_zalloc (big, huge);
        assert_non_null (b);
        memset (b, 0xc3, big);
        b = common_zrealloc (b, big, small, huge);
        assert_non_null (b);
        assert_int_equal (first_not (b, 0, small, 0xc3), small);
        b = common_zrealloc (b, small, big, huge);
        assert_non_null (b);
        assert_int_equal (first_not (b, 0, small, 0xc3), small);
        assert_int_equal (first_not (b, small, big, 0), big);
        common_zfree (b, big);
      }
}

static long
minor_faults (void)
{
  struct rusage u;
  assert_int_equal (getrusage (RUSAGE_SELF, &u), 0);
  return u.ru_minflt;
}

/* Transparent huge pages where the kernel gives them on request.  */
static bool
huge_pages_offered (void)
{
  FILE *f = fopen ("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char line[128] = "";
  if (f == NULL)
    return false;
  bool read = fgets (line, sizeof line, f) != NULL;
  fclose (f);
  return read && strstr (line, "[never]") == NULL;
}

/* A HUGE block of 4 MiB touched in full: far fewer faults than its
   1024 pages (the writer's reason for asking).  */
static void
test_huge_block_faults_per_huge_page (void **state)
{
  (void) state;
  if (!huge_pages_offered () || sysconf (_SC_PAGESIZE) != 4096)
    skip ();
  size_t size = 4 * MIB;
  unsigned char *b = common_zalloc (size, true);
  assert_non_null (b);
  long before = minor_faults ();
  for (size_t i = 0; i < size; i += 4096)
    b[i] = 1;
  long faults = minor_faults () - before;
  common_zfree (b, size);
  /* 2 huge pages, or 1024 small ones; a fragmented machine may hand
     out some small ones, so the bound is an eighth of the small count.  */
  if (faults > 128)
    fail_msg ("touching a 4 MiB huge block took %ld faults", faults);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_new_blocks_are_zero),
    cmocka_unit_test (test_grow_keeps_and_zeroes),
    cmocka_unit_test (test_shrink_then_grow_finds_zeros),
    cmocka_unit_test (test_huge_block_faults_per_huge_page),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
