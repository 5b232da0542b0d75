/* SPDX-License-Identifier: MIT */
/* pdump/maps.h: the process's memory map, for the writer's pointer
   checks (maps.c).  */

#ifndef DUMPER_PDUMP_MAPS_H
#define DUMPER_PDUMP_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pdump_region_class
{
  PDUMP_REGION_HEAP,      /* anonymous memory or [heap]: may hold objects */
  PDUMP_REGION_FOREIGN    /* a file mapping, the stack, vdso...: may not */
};

struct pdump_region
{
  uintptr_t start, end;
  enum pdump_region_class cls;
  char name[96];          /* the path or [tag], "" if anonymous */
};

struct pdump_maps
{
  struct pdump_region *regions;   /* sorted by start */
  size_t count;
  size_t last;                    /* index of the last hit */
};

/* Read /proc/self/maps.  False on failure (errno set).  */
bool pdump_maps_read (struct pdump_maps *maps);
void pdump_maps_free (struct pdump_maps *maps);

/* The region containing ADDRESS, or NULL if it is unmapped.  */
const struct pdump_region *pdump_maps_find (struct pdump_maps *maps,
                                            uintptr_t address);

#endif /* DUMPER_PDUMP_MAPS_H */
