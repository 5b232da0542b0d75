/* SPDX-License-Identifier: MIT */
/* common/maps.h: the process's memory map, read from /proc/self/maps.

   Both back ends ask which mapping an address lies in: the pdump writer
   to refuse pointers into memory the next process will not have, the
   unexec writer to warn about saved words that point outside the
   executable.  This file only reads and looks up; what a region means
   (heap, foreign, the executable) is for the caller to decide.  */

#ifndef DUMPER_COMMON_MAPS_H
#define DUMPER_COMMON_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct common_region
{
  uintptr_t start, end;   /* [start, end) */
  char name[160];         /* the path or [tag] ("[heap]", "[stack]",
                             "[vdso]"); "" if anonymous; truncated */
  bool anonymous;         /* common_region_anonymous, decided once: the
                             pdump walk asks for every pointer */
};

struct common_maps
{
  struct common_region *regions;  /* sorted by start, not overlapping */
  size_t count;
  size_t last;                    /* index of the last hit */
};

/* Read /proc/self/maps into MAPS.  False on failure (errno set; MAPS is
   then empty and needs no freeing).  */
bool common_maps_read (struct common_maps *maps);
void common_maps_free (struct common_maps *maps);

/* The region containing ADDRESS, or NULL if it is unmapped.  */
const struct common_region *common_maps_find (struct common_maps *maps,
                                              uintptr_t address);

/* True for memory with no file behind it: anonymous or the brk heap.  */
bool common_region_anonymous (const struct common_region *region);

/* The brk heap: *START is where it began (start_brk, from
   /proc/self/stat), *END the current program break (sbrk (0), which
   moves nothing).  False on failure (errno set).  */
bool common_brk_range (uintptr_t *start, uintptr_t *end);

#endif
