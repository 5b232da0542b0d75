/* SPDX-License-Identifier: MIT */
/* pdump/interior.c: interior pointers (dumper_trace_interior) in the
   writer's walk (walk.c): recorded when traced, resolved when the walk
   ends, once every object has its place.  */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walkint.h"

/* An interior pointer: into the executable, an executable word; NULL
   as it is; else a word of 0 with its image relocation bit, resolved
   when the walk ends (resolve_interiors).  */
void
pdump_walk_trace_interior (struct dumper_tracer *t, void *const *field)
{
  struct pdump_walk *w = (struct pdump_walk *) t;
  size_t off;
  uintptr_t value;
  if (!pdump_walk_field_value (w, field, &off, &value))
    return;
  w->interior_word_count++;
  if (pdump_exe_contains (&w->exe, value))
    {
      pdump_walk_store (w, off, value - w->exe.bias, VALUE_EXE);
      return;
    }
  if (w->interior_count == w->interior_capacity)
    {
      size_t capacity = w->interior_capacity ? 2 * w->interior_capacity : 256;
      struct pdump_interior *grown = realloc (w->interiors,
                                              capacity * sizeof *grown);
      if (grown == NULL)
        {
          pdump_walk_fail (w, DUMPER_E_NOMEM,
                           "out of memory for interior pointers");
          return;
        }
      w->interiors = grown;
      w->interior_capacity = capacity;
    }
  w->interiors[w->interior_count++] = (struct pdump_interior) {
    w->current->offset + off, value, w->current->index, (uint32_t) off };
  pdump_walk_store (w, off, 0, VALUE_IMAGE);
}

/* ------------------------------------------------------------------ */
/* Interior pointers, resolved when the walk ends.  The containing
   object of each is found among all placed objects, listed (live
   address, size, walk offset) from the visited map and array and
   sorted by address: only when there are interior pointers, so a host
   without them pays nothing.  */

struct placed
{
  uintptr_t start;
  uint64_t size;
  uint64_t offset;          /* walk-time */
};

struct placed_list
{
  struct pdump_walk *w;
  struct placed *items;
  size_t count, capacity;
  bool nomem;
};

/* Add the object at ADDRESS whose visited value is SEEN.  */
static void
list_placed (struct placed_list *l, uintptr_t address, uint64_t seen)
{
  const struct pdump_walk *w = l->w;
  if (seen == 0 || l->nomem)
    return;
  if (l->count == l->capacity)
    {
      size_t capacity = l->capacity ? 2 * l->capacity : 4096;
      struct placed *grown = realloc (l->items, capacity * sizeof *grown);
      if (grown == NULL)
        {
          l->nomem = true;
          return;
        }
      l->items = grown;
      l->capacity = capacity;
    }
  uint32_t type = (uint32_t) (seen & VISITED_TYPE_MASK);
  struct placed *p = &l->items[l->count++];
  p->start = address;
  if (type == PDUMP_TYPE_BYTES)
    {
      const struct pdump_block *b = &w->blocks[seen >> VISITED_SHIFT];
      p->offset = b->offset;
      p->size = b->length;
      return;
    }
  p->offset = visited_offset (seen);
  const struct dumper_type *t = &w->heap->types[type];
  if (t->size != NULL)
    p->size = t->size ((const void *) address);
  else
    {
      const uint64_t *length = common_addrmap_get (&w->sized_lengths,
                                                   address);
      p->size = length ? *length : 0;
    }
}

static void
list_reached (uintptr_t address, void *ctx)
{
  struct placed_list *l = ctx;
  size_t n = common_blockset_number_of (l->w->reachable, address);
  if (n < l->w->reached_count)
    list_placed (l, address, l->w->reached[n]);
}

static int
placed_order (const void *a, const void *b)
{
  uintptr_t x = ((const struct placed *) a)->start;
  uintptr_t y = ((const struct placed *) b)->start;
  return (x > y) - (x < y);
}

static int
patch_order (const void *a, const void *b)
{
  uint64_t x = ((const struct pdump_patch *) a)->offset;
  uint64_t y = ((const struct pdump_patch *) b)->offset;
  return (x > y) - (x < y);
}

/* The placed object holding ADDRESS, or ending at it: the last one
   starting at or before it.  An address that ends one object and
   starts the next (objects of a loaded image are packed) is the next
   one's start (heap.h).  NULL when there is none.  */
static const struct placed *
placed_containing (const struct placed_list *l, uintptr_t address)
{
  size_t lo = 0, hi = l->count;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (l->items[mid].start <= address)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0 || address - l->items[lo - 1].start > l->items[lo - 1].size)
    return NULL;
  return &l->items[lo - 1];
}

/* Refuse interior pointer P, whose target is in no placed object: the
   pre-dump check's rule (pdump_walk_unchecked), seen broken here.  */
static void
refuse_interior (struct pdump_walk *w, const struct pdump_interior *p)
{
  char path[512];
  pdump_walk_describe_path (w, p->owner, path, sizeof path);
  pdump_walk_fail (w, DUMPER_E_HEAP_DESC, "object of type `%s' (reached via "
                   "%s), field at +%" PRIu32 ": the interior pointer 0x%"
                   PRIxPTR " lies in no object the dump holds"
                   PDUMP_WALK_UNCHECKED,
                   pdump_walk_type_name (w, w->types[p->owner]), path,
                   p->field_offset, p->address);
}

/* Store the encoded interior word VALUE at walk offset AT of HOT, after
   append_group: in the window, or as a patch for what already went to
   the file.  */
static bool
put_interior (struct pdump_walk *w, uint64_t at, uint64_t value,
              size_t *patch_capacity)
{
  uint64_t offset = at >= PDUMP_GROUP_BIAS
                    ? w->group_start + (at - PDUMP_GROUP_BIAS) : at;
  if (w->hot_fd < 0 || offset >= w->hot.base)
    {
      pdump_word stored = (pdump_word) value;
      memcpy (w->hot.bytes.data + (offset - w->hot.base), &stored,
              sizeof stored);
      return true;
    }
  if (w->patch_count == *patch_capacity)
    {
      size_t capacity = *patch_capacity ? 2 * *patch_capacity : 256;
      struct pdump_patch *grown = realloc (w->patches,
                                           capacity * sizeof *grown);
      if (grown == NULL)
        return false;
      w->patches = grown;
      *patch_capacity = capacity;
    }
  w->patches[w->patch_count++] = (struct pdump_patch) { offset, value };
  return true;
}

void
pdump_walk_resolve_interiors (struct pdump_walk *w)
{
  struct placed_list l = { .w = w };
  size_t cursor = 0;
  uintptr_t key;
  uint64_t *value;
  while (common_addrmap_next (&w->visited, &cursor, &key, &value))
    list_placed (&l, key, *value);
  if (w->reached)
    common_blockset_each (w->reachable, list_reached, &l);
  size_t patch_capacity = 0;
  if (l.nomem)
    pdump_walk_fail (w, DUMPER_E_NOMEM,
                     "out of memory resolving interior pointers");
  else
    qsort (l.items, l.count, sizeof *l.items, placed_order);
  for (size_t i = 0; i < w->interior_count && w->status == DUMPER_OK; i++)
    {
      const struct pdump_interior *p = &w->interiors[i];
      const struct placed *o = placed_containing (&l, p->address);
      if (o == NULL)
        refuse_interior (w, p);
      else if (!put_interior (w, p->at, o->offset + (p->address - o->start),
                              &patch_capacity))
        pdump_walk_fail (w, DUMPER_E_NOMEM, "out of memory resolving interior "
                         "pointers");
    }
  free (l.items);
  if (w->status == DUMPER_OK && w->patch_count > 1)
    qsort (w->patches, w->patch_count, sizeof *w->patches, patch_order);
}
