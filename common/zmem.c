/* SPDX-License-Identifier: MIT */
/* common/zmem.c: zero-filled memory that is cheap to grow (see zmem.h).

   Invariant: a block of at least ZMEM_MAP_MIN bytes is an anonymous
   private mapping of exactly map_size (size) bytes; a smaller one is
   from calloc.  Which one a block is follows from its size alone, so the
   caller passes the size back instead of the library keeping a header.  */

#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "os.h"
#include "zmem.h"

/* Below this, calloc (which reuses freed memory) is cheaper than a
   system call.  */
#define ZMEM_MAP_MIN ((size_t) 256 * 1024)
/* From half a huge page on a block is mapped in whole huge pages,
   which costs address space only, and can have them (HUGE):
   a block touched in full, such as the pdump writer's HOT window or its
   object table, then takes one fault per huge page.  On a virtual
   machine a 4 KiB page's first touch costs 8-15 microseconds; 2 MiB of
   them cost 5 ms, and one huge page about 0.3 ms (measured on the CI's
   machine kind).  At most one partly used huge page per block is
   resident beyond its size.  The size is the kernel's (common/os.c):
   2 MiB with 4 KiB pages, and so 1 MiB the threshold, as when both
   were fixed here; 32 MiB with 16 KiB pages, 512 MiB with 64 KiB
   (aarch64), where a 2 MiB rounding would get no huge page at all.  */
static size_t
huge_min (void)
{
  return common_huge_page_size () / 2;
}

static size_t
round_page (size_t size)
{
  size_t page = common_page_size ();
  return (size + page - 1) & ~(page - 1);
}

/* The length of the mapping of a SIZE-byte block (SIZE at least
   ZMEM_MAP_MIN).  A multiple of the huge page size also gets a mapping
   aligned to one, where the kernel can place it so.  */
static size_t
map_size (size_t size)
{
  size_t huge = common_huge_page_size ();
  if (size >= huge_min () && size <= SIZE_MAX - huge)
    return (size + huge - 1) & ~(huge - 1);
  return round_page (size);
}

static void
advise (void *block, size_t size, bool huge)
{
#ifdef MADV_HUGEPAGE
  if (huge && size >= huge_min ())
    (void) madvise (block, size, MADV_HUGEPAGE);   /* a hint: may fail */
#else
  (void) block, (void) size, (void) huge;
#endif
}

/* Zero bytes [FROM, TO) of mapped BLOCK: whole pages go back to the
   kernel (reading as zeros again, no longer resident).  */
static void
clear (unsigned char *block, size_t from, size_t to)
{
  size_t first = round_page (from);
  size_t last = to & ~(round_page (1) - 1);
  if (first >= last)
    {
      memset (block + from, 0, to - from);
      return;
    }
  memset (block + from, 0, first - from);
  if (madvise (block + first, last - first, MADV_DONTNEED) != 0)
    memset (block + first, 0, last - first);
  memset (block + last, 0, to - last);
}

/* A new mapping of LENGTH bytes, or NULL.  One of whole huge pages
   starts on a huge page boundary, which transparent huge pages need
   and which the kernel does not choose for every process (not before
   Linux 6.7, nor for 32-bit processes): a huge page more is mapped and
   what lies outside the aligned part is given back.  */
static void *
map_new (size_t length)
{
  size_t huge = common_huge_page_size ();
  bool align = length % huge == 0;
  size_t over = align ? length + huge : length;
  unsigned char *p = mmap (NULL, over, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  if (!align)
    return p;
  size_t head = (huge - (uintptr_t) p % huge) % huge;
  if (head)
    munmap (p, head);
  if (huge - head)
    munmap (p + head + length, huge - head);
  return p + head;
}

void *
common_zmap (size_t length)
{
  return map_new (length);
}

/* Move or resize the mapping BLOCK of OLD_LENGTH bytes to NEW_LENGTH:
   in place when the addresses after it are free (a shrink always is),
   else to a new place, aligned as map_new's.  NULL on failure, BLOCK
   unchanged.  A shrink goes with MREMAP_MAYMOVE all the same (the
   kernel shrinks in place): qemu-user before 8.0, which runs the i386
   and arm64 tests, reserves the wrong range after a shrink without it
   and unmaps a neighbour.  */
static void *
remap (void *block, size_t old_length, size_t new_length)
{
  void *moved = mremap (block, old_length, new_length,
                        new_length < old_length ? MREMAP_MAYMOVE : 0);
  if (moved != MAP_FAILED)
    return moved;
  if (new_length % common_huge_page_size () != 0)
    {
      moved = mremap (block, old_length, new_length, MREMAP_MAYMOVE);
      return moved == MAP_FAILED ? NULL : moved;
    }
  void *to = map_new (new_length);
  if (to == NULL)
    return NULL;
  moved = mremap (block, old_length, new_length,
                  MREMAP_MAYMOVE | MREMAP_FIXED, to);
  if (moved == MAP_FAILED)
    {
      int saved = errno;
      munmap (to, new_length);
      errno = saved;
      return NULL;
    }
  return moved;
}

void *
common_zalloc (size_t size, bool huge)
{
  if (size < ZMEM_MAP_MIN)
    return calloc (1, size ? size : 1);
  void *block = map_new (map_size (size));
  if (block != NULL)
    advise (block, map_size (size), huge);
  return block;
}

void *
common_zrealloc (void *block, size_t old_size, size_t new_size, bool huge)
{
  if (block == NULL)
    return common_zalloc (new_size, huge);
  if (old_size >= ZMEM_MAP_MIN && new_size >= ZMEM_MAP_MIN)
    {
      /* Page tables move; new pages are the kernel's zero pages.  */
      size_t kept = map_size (new_size);
      void *moved = block;
      if (kept != map_size (old_size))
        {
          moved = remap (block, map_size (old_size), kept);
          if (moved == NULL)
            return NULL;
          advise (moved, kept, huge);
        }
      /* What stays mapped past a smaller size is cleared, so that
         growing again finds zeros.  */
      if (new_size < old_size)
        clear (moved, new_size, kept < old_size ? kept : old_size);
      return moved;
    }
  if (old_size < ZMEM_MAP_MIN && new_size < ZMEM_MAP_MIN)
    {
      unsigned char *grown = realloc (block, new_size ? new_size : 1);
      if (grown == NULL)
        return NULL;
      if (new_size > old_size)
        memset (grown + old_size, 0, new_size - old_size);
      return grown;
    }
  /* Across the threshold: a new block and a copy (at most ZMEM_MAP_MIN
     bytes, once).  */
  void *fresh = common_zalloc (new_size, huge);
  if (fresh == NULL)
    return NULL;
  memcpy (fresh, block, old_size < new_size ? old_size : new_size);
  common_zfree (block, old_size);
  return fresh;
}

void
common_zfree (void *block, size_t size)
{
  if (block == NULL)
    return;
  if (size < ZMEM_MAP_MIN)
    free (block);
  else
    {
      int saved = errno;
      munmap (block, map_size (size));
      errno = saved;
    }
}
