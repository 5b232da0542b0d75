/* SPDX-License-Identifier: MIT */
/* common/zmem.c: zero-filled memory that is cheap to grow (see zmem.h).

   Invariant: a block of at least ZMEM_MAP_MIN bytes is an anonymous
   private mapping of exactly round_page (size) bytes; a smaller one is
   from calloc.  Which one a block is follows from its size alone, so the
   caller passes the size back instead of the library keeping a header.  */

#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "zmem.h"

/* Below this, calloc (which reuses freed memory) is cheaper than a
   system call.  */
#define ZMEM_MAP_MIN ((size_t) 256 * 1024)
/* Huge pages only pay when a table spans many of them.  */
#define ZMEM_HUGE_MIN ((size_t) 8 * 1024 * 1024)

static size_t
round_page (size_t size)
{
  static size_t page;
  if (page == 0)
    {
      long p = sysconf (_SC_PAGESIZE);
      page = p > 0 ? (size_t) p : 4096;
    }
  return (size + page - 1) & ~(page - 1);
}

static void
advise (void *block, size_t size, bool huge)
{
#ifdef MADV_HUGEPAGE
  if (huge && size >= ZMEM_HUGE_MIN)
    (void) madvise (block, size, MADV_HUGEPAGE);   /* a hint: may fail */
#else
  (void) block, (void) size, (void) huge;
#endif
}

void *
common_zalloc (size_t size, bool huge)
{
  if (size < ZMEM_MAP_MIN)
    return calloc (1, size ? size : 1);
  void *block = mmap (NULL, round_page (size), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED)
    return NULL;
  advise (block, round_page (size), huge);
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
      void *moved = mremap (block, round_page (old_size),
                            round_page (new_size), MREMAP_MAYMOVE);
      if (moved == MAP_FAILED)
        return NULL;
      advise (moved, round_page (new_size), huge);
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
      munmap (block, round_page (size));
      errno = saved;
    }
}
