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
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/os.h"
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

/* Minor faults taken to write a byte of every page of the LENGTH
   bytes at P.  */
static long
faults_to_touch (unsigned char *p, size_t length)
{
  long before = minor_faults ();
  for (size_t i = 0; i < length; i += 4096)
    p[i] = 1;
  return minor_faults () - before;
}

/* The same for a new zmem block of SIZE bytes.  */
static long
faults_to_fill (size_t size, bool huge)
{
  unsigned char *b = common_zalloc (size, huge);
  assert_non_null (b);
  long faults = faults_to_touch (b, size);
  common_zfree (b, size);
  return faults;
}

/* The same for LENGTH bytes (whole huge pages) mapped by hand on a
   huge page boundary and advised: what this kernel and environment
   give a block that asks for huge pages.  */
static long
faults_when_asked (size_t length)
{
  size_t huge_page = common_huge_page_size ();
  unsigned char *p = mmap (NULL, length + huge_page, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true (p != MAP_FAILED);
  unsigned char *aligned = p + (huge_page - (uintptr_t) p % huge_page)
                               % huge_page;
  (void) madvise (aligned, length, MADV_HUGEPAGE);
  long faults = faults_to_touch (aligned, length);
  munmap (p, length + huge_page);
  return faults;
}

/* A HUGE block of 4 MiB touched in full takes the faults of a mapping
   made for huge pages by hand, far fewer than the same block without
   (one per 4 KiB page): the writer's reason for asking.  Where even
   the hand-made mapping gets no huge pages (transparent huge pages
   off, qemu-user, valgrind, a fragmented machine) there is nothing to
   compare, and the test is skipped.  Under Linux before 6.7 or in a
   32-bit process the kernel does not align a mapping to a huge page
   itself; zmem does.  */
static void
test_huge_block_faults_per_huge_page (void **state)
{
  (void) state;
  if (!huge_pages_offered () || sysconf (_SC_PAGESIZE) != 4096)
    skip ();
  long small = faults_to_fill (4 * MIB, false);
  long asked = faults_when_asked (4 * MIB);
  if (small < 1024 || asked > small / 4)
    skip ();
  long huge = faults_to_fill (4 * MIB, true);
  if (huge > small / 4)
    fail_msg ("touching a 4 MiB block took %ld faults, %ld with huge "
              "pages (%ld when mapped for them by hand)", small, huge, asked);
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
