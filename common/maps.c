/* SPDX-License-Identifier: MIT */
/* common/maps.c: the process's memory map (see maps.h).  */

#include <config.h>

#include "common/maps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Field 47 of /proc/PID/stat (proc(5)) is start_brk.  The command
   name, field 2, may hold spaces and parentheses: the fields are
   counted from after its last ')'.  The current break is sbrk (0).  */
bool
common_brk_range (uintptr_t *start, uintptr_t *end)
{
  FILE *f = fopen ("/proc/self/stat", "re");
  if (f == NULL)
    return false;
  char text[2048];
  size_t n = fread (text, 1, sizeof text - 1, f);
  fclose (f);
  text[n] = '\0';
  const char *p = strrchr (text, ')');
  for (int field = 3; p && field <= 47; field++)
    {
      p = strchr (p, ' ');
      if (p)
        p++;
    }
  unsigned long start_brk;
  void *brk_now = sbrk (0);
  if (p == NULL || sscanf (p, "%lu", &start_brk) != 1
      || brk_now == (void *) -1)
    {
      errno = ENOENT;
      return false;
    }
  *start = start_brk;
  *end = (uintptr_t) brk_now;
  return true;
}
