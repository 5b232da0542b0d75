/* SPDX-License-Identifier: MIT */
/* common/maps.c: the process's memory map (see maps.h).  */

#include <config.h>

#include "common/maps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
common_maps_read (struct common_maps *maps)
{
  memset (maps, 0, sizeof *maps);
  FILE *f = fopen ("/proc/self/maps", "re");
  if (f == NULL)
    return false;
  size_t capacity = 0;
  char *line = NULL;
  size_t line_size = 0;
  bool ok = true;
  while (getline (&line, &line_size, f) > 0)
    {
      unsigned long start, end;
      int name_at = 0;
      if (sscanf (line, "%lx-%lx %*s %*s %*s %*s %n", &start, &end,
                  &name_at) < 2)
        continue;
      if (maps->count == capacity)
        {
          capacity = capacity ? capacity * 2 : 64;
          struct common_region *grown = realloc (maps->regions,
                                                 capacity * sizeof *grown);
          if (grown == NULL)
            {
              ok = false;
              break;
            }
          maps->regions = grown;
        }
      struct common_region *r = &maps->regions[maps->count++];
      r->start = start;
      r->end = end;
      const char *name = name_at > 0 ? line + name_at : "";
      size_t n = strcspn (name, "\n");
      while (n > 0 && name[n - 1] == ' ')
        n--;
      if (n >= sizeof r->name)
        n = sizeof r->name - 1;
      memcpy (r->name, name, n);
      r->name[n] = '\0';
      r->anonymous = n == 0 || strcmp (r->name, "[heap]") == 0;
    }
  int err = errno;
  free (line);
  fclose (f);
  if (!ok)
    {
      common_maps_free (maps);
      errno = err;
    }
  return ok;
}

void
common_maps_free (struct common_maps *maps)
{
  free (maps->regions);
  memset (maps, 0, sizeof *maps);
}

const struct common_region *
common_maps_find (struct common_maps *maps, uintptr_t address)
{
  if (maps->count == 0)
    return NULL;
  const struct common_region *last = &maps->regions[maps->last];
  if (address >= last->start && address < last->end)
    return last;
  size_t lo = 0, hi = maps->count;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      const struct common_region *r = &maps->regions[mid];
      if (address < r->start)
        hi = mid;
      else if (address >= r->end)
        lo = mid + 1;
      else
        {
          maps->last = mid;
          return r;
        }
    }
  return NULL;
}

bool
common_region_anonymous (const struct common_region *region)
{
  return region->anonymous;
}
