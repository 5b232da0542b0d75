/* SPDX-License-Identifier: MIT */
/* pdump/maps.c: the process's memory map from /proc/self/maps.

   The writer must never copy from, nor silently keep a pointer to,
   memory that will not exist in the next process: a shared library's
   data, the stack, the vDSO.  It asks here which region an address is
   in.  Anonymous regions and the brk heap may hold heap objects (malloc
   puts them there); everything file-backed is foreign, except the
   executable and a loaded image, which the writer recognises before it
   asks.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"

static void
classify (struct pdump_region *r, const char *path)
{
  size_t n = strlen (path);
  while (n > 0 && (path[n - 1] == '\n' || path[n - 1] == ' '))
    n--;
  if (n >= sizeof r->name)
    n = sizeof r->name - 1;
  memcpy (r->name, path, n);
  r->name[n] = '\0';
  if (n == 0 || strcmp (r->name, "[heap]") == 0)
    r->cls = PDUMP_REGION_HEAP;
  else
    r->cls = PDUMP_REGION_FOREIGN;
}

bool
pdump_maps_read (struct pdump_maps *maps)
{
  memset (maps, 0, sizeof *maps);
  FILE *f = fopen ("/proc/self/maps", "r");
  if (f == NULL)
    return false;
  size_t capacity = 0;
  char *line = NULL;
  size_t line_size = 0;
  bool ok = true;
  while (getline (&line, &line_size, f) > 0)
    {
      unsigned long start, end;
      int path_at = 0;
      char perms[8];
      if (sscanf (line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end, perms,
                  &path_at) < 3)
        continue;
      if (maps->count == capacity)
        {
          capacity = capacity ? capacity * 2 : 64;
          struct pdump_region *r = realloc (maps->regions,
                                            capacity * sizeof *r);
          if (r == NULL)
            {
              ok = false;
              break;
            }
          maps->regions = r;
        }
      struct pdump_region *r = &maps->regions[maps->count++];
      r->start = start;
      r->end = end;
      classify (r, path_at > 0 ? line + path_at : "");
    }
  free (line);
  fclose (f);
  if (!ok)
    pdump_maps_free (maps);
  return ok;
}

void
pdump_maps_free (struct pdump_maps *maps)
{
  free (maps->regions);
  memset (maps, 0, sizeof *maps);
}

const struct pdump_region *
pdump_maps_find (struct pdump_maps *maps, uintptr_t address)
{
  if (maps->count == 0)
    return NULL;
  const struct pdump_region *last = &maps->regions[maps->last];
  if (address >= last->start && address < last->end)
    return last;
  size_t lo = 0, hi = maps->count;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      const struct pdump_region *r = &maps->regions[mid];
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
