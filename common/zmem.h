/* SPDX-License-Identifier: MIT */
/* common/zmem.h: zero-filled memory for large tables and buffers that
   grow (zmem.c).

   The pdump writer's HOT and COLD buffers, its relocation bitmaps and
   the address maps must start zeroed (padding in an image is zero; an
   empty map slot is key 0).  Large blocks come straight from the kernel,
   which hands out zero pages and only makes a page resident when it is
   first touched, so neither zeroing nor the unused tail of a doubled
   capacity costs time or resident memory; growing one moves its page
   tables (mremap), not its bytes.  Small blocks come from calloc.  */

#ifndef DUMPER_COMMON_ZMEM_H
#define DUMPER_COMMON_ZMEM_H

#include <stdbool.h>
#include <stddef.h>

/* SIZE zero bytes, or NULL (errno set).  HUGE asks for transparent huge
   pages where the block is large enough: for tables read at random,
   and for big buffers filled in order (the pdump writer's object index
   and relocation bitmaps), where a fault per huge page (2 MiB on
   x86-64) instead of one per 4 KiB page matters (in a VM a fault costs
   several microseconds).  */
void *common_zalloc (size_t size, bool huge);

/* Grow or shrink BLOCK (OLD_SIZE bytes, from common_zalloc or
   common_zrealloc, or NULL with OLD_SIZE 0) to NEW_SIZE bytes; bytes past
   OLD_SIZE are zero.  On failure returns NULL and BLOCK is unchanged.  */
void *common_zrealloc (void *block, size_t old_size, size_t new_size,
                       bool huge);

/* A new anonymous mapping of LENGTH bytes (at least one page: zero,
   never calloc), or NULL: for memory that must not come from malloc.
   One of whole huge pages starts on a huge page boundary, so that the
   caller can advise huge pages for it (no advice is given here).
   Release it with munmap.  */
void *common_zmap (size_t length);

/* Release BLOCK of SIZE bytes (the size it was allocated or last grown
   with).  */
void common_zfree (void *block, size_t size);

#endif
