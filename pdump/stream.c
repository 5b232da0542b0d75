/* SPDX-License-Identifier: MIT */
/* pdump/stream.c: HOT and COLD go to the output file as the
   writer's walk (walk.c) proceeds, so each takes a window of memory,
   not the whole section: the windows, the copies of objects traced
   below HOT's window, and their overlay when write.c reads HOT back.  */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic.h"
#include "common/zmem.h"
#include "hash.h"
#include "walkint.h"

/* COLD.  Its bytes are final when copied (nothing in them is
   relocated), so with a file behind it the walk keeps only the last
   COLD_WINDOW bytes and writes the rest out in order, hashing them.  */
#define COLD_WINDOW ((uint64_t) 512 << 10)

/* Write COLD's buffer out and empty it.  */
bool
pdump_walk_cold_flush (struct pdump_walk *w)
{
  size_t used = (size_t) (w->cold.size - w->cold_base);
  int err = common_pwrite_fully (w->cold_fd, w->cold.data, used, w->cold_base);
  if (err != 0)
    {
      pdump_walk_fail (w, err == ENOMEM ? DUMPER_E_NOMEM : DUMPER_E_IO,
                       "%s: cannot write the image: %s", w->output,
                       strerror (err));
      return false;
    }
  XXH3_64bits_update (w->cold_hash, w->cold.data, used);
  w->cold_base = w->cold.size;
  if (w->cold.capacity > 2 * COLD_WINDOW)
    {
      /* A big object grew the window: give its pages back (the walk's
         memory peaks at its end).  New pages are zero.  */
      unsigned char *data = common_zrealloc (w->cold.data, w->cold.capacity,
                                             COLD_WINDOW, false);
      if (data != NULL)
        {
          memset (data, 0, COLD_WINDOW);   /* padding of what comes next */
          w->cold.data = data;
          w->cold.capacity = COLD_WINDOW;
          return true;
        }
    }
  if (used > 0)                     /* an empty COLD has no buffer */
    memset (w->cold.data, 0, used);   /* padding of what comes next */
  return true;
}

/* Room for SIZE bytes at the end of COLD, aligned to ALIGN: their
   section offset in *AT and where to copy them; NULL after failing.  */
unsigned char *
pdump_walk_cold_place (struct pdump_walk *w, uint64_t size, uint64_t align,
                       uint64_t *at)
{
  if (w->cold_fd >= 0 && w->cold.size - w->cold_base > COLD_WINDOW
      && !pdump_walk_cold_flush (w))
    return NULL;
  *at = align_up (w->cold.size, align);
  if (!pdump_buf_reserve (&w->cold, *at + size - w->cold_base))
    {
      pdump_walk_fail (w, DUMPER_E_NOMEM,
                       "out of memory in the cold section at %zu "
                       "objects",
                       w->object_count);
      return NULL;
    }
  w->cold.size = *at + size;
  return w->cold.data + (*at - w->cold_base);
}

/* Write HOT's bytes [hot_base, END) to the file and drop them from the
   window.  */
bool
pdump_walk_hot_flush (struct pdump_walk *w, uint64_t end)
{
  size_t gone = (size_t) (end - w->hot.base);
  size_t used = (size_t) (w->hot.bytes.size - w->hot.base);
  int err = common_pwrite_fully (w->hot_fd, w->hot.bytes.data, gone,
                                 w->hot_file_offset + w->hot.base);
  if (err != 0)
    {
      pdump_walk_fail (w, err == ENOMEM ? DUMPER_E_NOMEM : DUMPER_E_IO,
                       "%s: cannot write the image: %s", w->output,
                       strerror (err));
      return false;
    }
  memmove (w->hot.bytes.data, w->hot.bytes.data + gone, used - gone);
  /* New objects find zeros (padding); the kernel's zero pages are only
     had by allocating again, so clear the tail once.  */
  memset (w->hot.bytes.data + used - gone, 0, gone);
  w->hot.base = end;
  return true;
}

/* Late copies kept in the log in all, at most (scale 64 of dlisp has
   100 thousand late objects in 3 MiB, most of it one large vector,
   which goes to the file on its own).  */
#define LATE_LOG_MAX ((uint64_t) 16 << 20)

/* Make room for the copy of ITEM when the window has passed it: in the
   log when it is small and the log has room (the last late_log_count
   entry is then this copy's), else in w->late.  */
bool
pdump_walk_hot_late (struct pdump_walk *w, const struct pdump_work *item)
{
  uint64_t position = align_up (w->late_log.size, 8);
  if (item->size < LATE_KEEP && position + item->size <= LATE_LOG_MAX)
    {
      if (w->late_log_count == w->late_log_capacity)
        {
          size_t capacity = w->late_log_capacity
                            ? w->late_log_capacity * 2 : 1024;
          struct pdump_late *lates
            = common_zrealloc (w->lates,
                               w->late_log_capacity * sizeof *lates,
                               capacity * sizeof *lates, true);
          if (lates == NULL)
            goto nomem;
          w->lates = lates;
          w->late_log_capacity = capacity;
        }
      if (!pdump_buf_reserve (&w->late_log, position + item->size))
        goto nomem;
      w->late_log.size = position + item->size;
      w->lates[w->late_log_count++]
        = (struct pdump_late) { item->offset, item->size, position };
      w->late_copy = w->late_log.data + position;
      return true;
    }
  if (item->size > w->late_capacity)
    {
      unsigned char *late = common_zrealloc (w->late, w->late_capacity,
                                             item->size, false);
      if (late == NULL)
        {
          pdump_walk_fail (w, DUMPER_E_NOMEM, "out of memory for a %" PRIu64
                           "-byte object", item->size);
          return false;
        }
      w->late = late;
      w->late_capacity = item->size;
    }
  w->late_copy = w->late;
  return true;
 nomem:
   pdump_walk_fail (w, DUMPER_E_NOMEM,
                    "out of memory for the copy of a %" PRIu64 "-byte object",
                    item->size);
   return false;
}

int
pdump_walk_late_order (const void *a, const void *b)
{
  uint64_t x = ((const struct pdump_late *) a)->offset;
  uint64_t y = ((const struct pdump_late *) b)->offset;
  return (x > y) - (x < y);
}

bool
pdump_walk_overlay_late (const struct pdump_walk *w, unsigned char *chunk,
                         uint64_t at, size_t size)
{
  /* The first copy ending past AT: copies do not overlap, so their
     ends are in the same order as their starts.  */
  size_t lo = 0, hi = w->late_log_count;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (w->lates[mid].offset + w->lates[mid].length <= at)
        lo = mid + 1;
      else
        hi = mid;
    }
  bool laid = false;
  for (size_t i = lo; i < w->late_log_count && w->lates[i].offset < at + size;
       i++)
    {
      const struct pdump_late *l = &w->lates[i];
      uint64_t from = l->offset > at ? l->offset : at;
      uint64_t end = l->offset + l->length < at + size
                     ? l->offset + l->length : at + size;
      memcpy (chunk + (from - at),
              w->late_log.data + l->position + (from - l->offset),
              (size_t) (end - from));
      laid = true;
    }
  /* After the late copies: a late object's copy holds its interior
     words' placeholders.  */
  lo = 0, hi = w->patch_count;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (w->patches[mid].offset < at)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (size_t i = lo; i < w->patch_count && w->patches[i].offset < at + size;
       i++)
    {
      pdump_word value = (pdump_word) w->patches[i].value;
      memcpy (chunk + (w->patches[i].offset - at), &value, sizeof value);
      laid = true;
    }
  return laid;
}
