/* SPDX-License-Identifier: MIT */
/* pdump/gc.c: collector support for objects inside the loaded image.

   The range test and the mark bit operations are inline in
   dumper/pdump.h (they are on every collector's hot path); this file
   owns their state.  The bitmap is anonymous memory mapped at load, one
   bit per PDUMP_GRANULE bytes of the object sections; clearing it
   returns its pages to the kernel instead of writing zeros, so a clear
   costs nothing for pages no collection touched.  */

#include <config.h>

#include <string.h>
#include <sys/mman.h>

#include "backend.h"

struct pdump_range_ pdump_range_;

/* Size in bytes of the mapped bitmap; set by the loader.  */
size_t pdump_mark_bytes_;

void
pdump_clear_marks (void)
{
  if (pdump_range_.mark_bits == NULL)
    return;
  /* Small bitmaps: a memset is cheaper than a system call.  */
  if (pdump_mark_bytes_ < 64 * 1024
      || madvise (pdump_range_.mark_bits, pdump_mark_bytes_, MADV_DONTNEED) != 0)
    memset (pdump_range_.mark_bits, 0, pdump_mark_bytes_);
}
