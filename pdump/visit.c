/* SPDX-License-Identifier: MIT */
/* pdump/visit.c: meeting an object in the writer's walk (walk.c):
   where an address is, whether the object was met before (the visited
   map), its type and size checked, its place in HOT or COLD, and its
   entry in the object index.  */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/zmem.h"
#include "walkint.h"

/* ------------------------------------------------------------------ */
/* Where an address is.  */

/* Classify [ADDRESS, ADDRESS + SIZE); on FOREIGN describe it in WHY.  */
enum where
pdump_walk_locate (struct pdump_walk *w, uintptr_t address, uint64_t size,
                   char *why, size_t why_size)
{
  if (address >= w->image_start && address < w->image_end)
    {
      if (size <= w->image_end - address)
        return IN_HEAP;
      snprintf (why, why_size, "runs past the end of the loaded image");
      return FOREIGN;
    }
  if (pdump_exe_contains (&w->exe, address))
    return IN_EXE;
  uintptr_t last = address + (size ? size - 1 : 0);
  if (last < address)
    {
      snprintf (why, why_size, "size %" PRIu64 " wraps the address space",
                size);
      return FOREIGN;
    }
  for (uintptr_t a = address;;)
    {
      const struct common_region *r = common_maps_find (&w->maps, a);
      if (r == NULL)
        {
          snprintf (why, why_size, "points to unmapped memory 0x%" PRIxPTR, a);
          return FOREIGN;
        }
      if (!common_region_anonymous (r)) /* only malloc memory holds objects */
        {
          snprintf (why, why_size, "points into %s", r->name);
          return FOREIGN;
        }
      if (last < r->end)
        return IN_HEAP;
      a = r->end;
    }
}

/* ------------------------------------------------------------------ */
/* Objects.  */

/* Room for COUNT objects in the index (the host's estimate; grown by
   doubling past it).  */
bool
pdump_walk_reserve_objects (struct pdump_walk *w, size_t count)
{
  if (count <= w->object_capacity)
    return true;
  size_t old = w->object_capacity;
  uint32_t *parents = common_zrealloc (w->parents, old * sizeof *parents,
                                       count * sizeof *parents, true);
  if (parents == NULL)
    return false;
  w->parents = parents;
  uint16_t *types = common_zrealloc (w->types, old * sizeof *types,
                                     count * sizeof *types, true);
  if (types == NULL)
    {
      /* Keep the two the same size: shrink the first back.  */
      parents = common_zrealloc (w->parents, count * sizeof *parents,
                                 old * sizeof *parents, true);
      if (parents)
        w->parents = parents;
      return false;
    }
  w->types = types;
  w->object_capacity = count;
  return true;
}

/* Unsigned LEB128, the OBJECTS section's numbers.  */
static size_t
put_uleb (unsigned char *out, uint64_t value)
{
  size_t n = 0;
  do
    {
      unsigned char byte = value & 0x7f;
      value >>= 7;
      out[n++] = byte | (value ? 0x80 : 0);
    }
  while (value);
  return n;
}

/* Append object number w->object_count: its parent and type, its
   OBJECTS entry (SIZE: its bytes; a byte block's length, stored as at
   least 1) and, for a byte block, its offset AT and length.  The caller
   has checked the count against UINT32_MAX.  */
static bool
objects_push (struct pdump_walk *w, uint32_t type, uint32_t parent,
              uint64_t size, uint64_t at)
{
  if (w->object_count == w->object_capacity
      && !pdump_walk_reserve_objects (w, w->object_capacity
                                         ? w->object_capacity * 2 : 4096))
    return false;
  bool bytes = type == PDUMP_TYPE_BYTES;
  struct pdump_buf *index = at >= PDUMP_COLD_BIAS ? &w->index_cold
                            : at >= PDUMP_GROUP_BIAS ? &w->group.index
                            : &w->hot.index;
  if (!pdump_buf_reserve (index, index->size + 20))
    return false;
  index->size += put_uleb (index->data + index->size, type);
  index->size += put_uleb (index->data + index->size,
                           bytes && size == 0 ? 1 : size);
  if (bytes)
    {
      if (w->block_count == w->block_capacity)
        {
          size_t capacity = w->block_capacity ? w->block_capacity * 2 : 1024;
          struct pdump_block *blocks
            = common_zrealloc (w->blocks, w->block_capacity * sizeof *blocks,
                               capacity * sizeof *blocks, false);
          if (blocks == NULL)
            return false;
          w->blocks = blocks;
          w->block_capacity = capacity;
        }
      w->blocks[w->block_count++] = (struct pdump_block) { at, size };
    }
  w->parents[w->object_count] = parent;
  w->types[w->object_count] = (uint16_t) type;
  w->object_count++;
  return true;
}

const unsigned char *
pdump_walk_object_index (struct pdump_walk *w, size_t *size)
{
  if (w->index_cold.size > 0)
    {
      if (!pdump_buf_append (&w->hot.index, w->index_cold.data,
                             w->index_cold.size))
        return NULL;
      pdump_buf_free (&w->index_cold);
      memset (&w->index_cold, 0, sizeof w->index_cold);
    }
  *size = w->hot.index.size;
  return w->hot.index.data ? w->hot.index.data : (const unsigned char *) "";
}

static bool
stack_push (struct pdump_walk *w, const struct pdump_work *item)
{
  if (w->stack_size == w->stack_capacity)
    {
      size_t capacity = w->stack_capacity ? w->stack_capacity * 2 : 4096;
      struct pdump_work *s = realloc (w->stack, capacity * sizeof *s);
      if (s == NULL)
        return false;
      w->stack = s;
      w->stack_capacity = capacity;
    }
  w->stack[w->stack_size++] = *item;
  return true;
}

void
pdump_walk_visited_free (struct pdump_walk *w)
{
  if (w->reached)
    common_zfree (w->reached, w->reached_count * sizeof *w->reached);
  w->reached = NULL;
  w->reached_count = 0;
}

/* The visited map's entry for ADDRESS, added when absent (*ADDED), in
   one probe sequence.  NULL after failing for memory.  A new entry's
   number is set by the caller once the object is placed; when placing
   fails the walk stops, so an entry without an object is never read.  */
uint64_t *
pdump_walk_visited_entry (struct pdump_walk *w, uintptr_t address, bool *added)
{
  if (w->reached)
    {
      size_t n = common_blockset_number_of (w->reachable, address);
      if (n < w->reached_count)
        {
          *added = w->reached[n] == 0;
          w->numbered_count += *added;
          return &w->reached[n];
        }
    }
  uint64_t *entry = common_addrmap_insert (&w->visited, address, added);
  if (entry == NULL)
    pdump_walk_fail (w, DUMPER_E_NOMEM,
                     "out of memory for the visited map at %zu "
                     "objects",
                     w->object_count);
  return entry;
}

/* Record the object just placed at walk offset AT as number
   w->object_count, in ENTRY of the visited map.  */
bool
pdump_walk_record_object (struct pdump_walk *w, uint64_t *entry, uint32_t type,
                          uint64_t size, uint64_t at)
{
  if (w->object_count >= UINT32_MAX - 1)
    {
      pdump_walk_fail (w, DUMPER_E_NOMEM, "more than 4 billion objects");
      return false;
    }
  bool cold = at >= PDUMP_COLD_BIAS;
  uint64_t section_offset = cold ? at - PDUMP_COLD_BIAS
                            : at >= PDUMP_GROUP_BIAS ? at - PDUMP_GROUP_BIAS
                            : at;
  uint64_t most = cold ? PDUMP_WALK_SECTION_MAX : PDUMP_WALK_MAIN_MAX;
  if (size > most || section_offset >= most - size)
    {
      pdump_walk_fail (w, DUMPER_E_NOMEM,
                       "a section of the image passes %" PRIu64
                       " bytes, the most %u-byte words can address",
                       most, (unsigned) PDUMP_WORD_SIZE);
      return false;
    }
  if (section_offset >= VISITED_MAX_OFFSET)
    {
      pdump_walk_fail (w, DUMPER_E_NOMEM,
                       "a section of the image passes %" PRIu64 " bytes",
                       VISITED_MAX_OFFSET);
      return false;
    }
  *entry = type == PDUMP_TYPE_BYTES
           ? (uint64_t) w->block_count << VISITED_SHIFT | VISITED_MET
             | PDUMP_TYPE_BYTES
           : visited_pack (type, at);
  if (!objects_push (w, type, current_index (w), size, at))
    {
      pdump_walk_fail (w, DUMPER_E_NOMEM,
                       "out of memory for the object index");
      return false;
    }
  return true;
}

/* Copy LENGTH bytes from SRC to the end of COLD, aligned to ALIGN; an
   empty block still gets a byte, so it has an address of its own.  Sets
   *AT to the copy's walk-time offset (cold-biased) and returns the copy,
   or NULL after failing.  */
unsigned char *
pdump_walk_cold_copy (struct pdump_walk *w, const void *src, uint64_t length,
                      uint64_t align, uint64_t *at)
{
  uint64_t cold_at;
  unsigned char *copy
      = pdump_walk_cold_place (w, length ? length : 1, align, &cold_at);
  if (copy == NULL)
    return NULL;
  if (length)
    memcpy (copy, src, length);
  *at = cold_at + PDUMP_COLD_BIAS;
  return copy;
}

/* An object met again, whose visited-map value is SEEN: it must be met
   as the same TYPE.  Sets *OFFSET to its walk-time offset.  */
bool
pdump_walk_revisit (struct pdump_walk *w, uint64_t seen, uint32_t type,
                    size_t field_offset, uint64_t *offset)
{
  uint32_t seen_type = (uint32_t) (seen & VISITED_TYPE_MASK);
  if (seen_type != type)
    {
      char problem[256];
      snprintf (problem, sizeof problem,
                "points to an object reached "
                "earlier as type `%s', here as type `%s'",
                pdump_walk_type_name (w, seen_type),
                pdump_walk_type_name (w, type));
      pdump_walk_fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
      return false;
    }
  *offset = seen_type == PDUMP_TYPE_BYTES
            ? w->blocks[seen >> VISITED_SHIFT].offset
            : visited_offset (seen);
  return true;
}

/* A new object of TYPE at ADDRESS: its type must be the description's,
   its size sane and all of it in the heap.  Returns the type's
   description and sets *SIZE, or NULL after failing.  */
static const struct dumper_type *
admit (struct pdump_walk *w, uintptr_t address, uint32_t type,
       size_t field_offset, uint64_t *size)
{
  if ((int) type >= w->heap->type_count)
    {
      char problem[128];
      snprintf (problem, sizeof problem, "header_type returned %u, not a "
                "type of the heap description", type);
      pdump_walk_fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
      return NULL;
    }
  const struct dumper_type *t = &w->heap->types[type];
  *size = t->size ((const void *) address);
  if (*size == 0 || *size > MAX_OBJECT_SIZE)
    {
      char problem[192];
      snprintf (problem, sizeof problem, "points to a `%s' whose size "
                "function returned %" PRIu64, t->name, *size);
      pdump_walk_fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
      return NULL;
    }
  char why[192];
  if (pdump_walk_locate (w, address, *size, why, sizeof why) != IN_HEAP)
    {
      char problem[320];
      snprintf (problem, sizeof problem, "a `%s' of %" PRIu64 " bytes at "
                "0x%" PRIxPTR " %s", t->name, *size, address, why);
      pdump_walk_fail_field (w, DUMPER_E_FOREIGN_POINTER, field_offset,
                             problem);
      return NULL;
    }
  return t;
}

/* Whether a trace of an object, probing, reported a field holding an
   executable address or a code pointer.  */
struct probe
{
  struct dumper_tracer tracer;
  const struct pdump_walk *w;
  uintptr_t start;              /* the object probed, SIZE bytes */
  uint64_t size;
  bool exe;
};

/* Whether FIELD is a whole word inside the object probed.  The pre-dump
   check held every field to that, but a trace that answers differently
   on another call (heap.h forbids it) can report another field now:
   the probe does not read it (it could lie past the end of memory);
   the walk's own trace, next, meets its guard (pdump_walk_unchecked) if
   the trace reports it again.  */
static inline bool
probe_inside (const struct probe *p, const void *field)
{
  return pdump_walk_field_inside (p->start, p->size, (uintptr_t) field);
}

static void
probe_address (struct probe *p, uintptr_t address)
{
  if (address != 0 && pdump_exe_contains (&p->w->exe, address))
    p->exe = true;
}

static void
probe_word (struct dumper_tracer *t, const uintptr_t *field)
{
  struct probe *p = (struct probe *) t;
  if (!probe_inside (p, field))
    return;
  uintptr_t value = *field;
  uintptr_t tag = value & p->w->tag_mask;
  if (p->w->heap->tag_types[tag] != DUMPER_TAG_IMMEDIATE)
    probe_address (p, value - tag);
}

static void
probe_ptr (struct dumper_tracer *t, void *const *field, int type)
{
  (void) type;
  if (probe_inside ((struct probe *) t, field))
    probe_address ((struct probe *) t, (uintptr_t) *field);
}

static void
probe_bytes (struct dumper_tracer *t, void *const *field, size_t length)
{
  (void) length;
  if (probe_inside ((struct probe *) t, field))
    probe_address ((struct probe *) t, (uintptr_t) *field);
}

static void
probe_code (struct dumper_tracer *t, const void *field)
{
  if (!probe_inside ((struct probe *) t, field))
    return;
  uintptr_t value;
  memcpy (&value, field, sizeof value);
  if (value != 0)
    ((struct probe *) t)->exe = true;
}

static void
probe_sized (struct dumper_tracer *t, void *const *field, int type,
             size_t nbytes)
{
  (void) type, (void) nbytes;
  if (probe_inside ((struct probe *) t, field))
    probe_address ((struct probe *) t, (uintptr_t) *field);
}

/* An interior pointer into the executable is stored as an executable
   word; one into the heap is an image word.  */
static void
probe_interior (struct dumper_tracer *t, void *const *field)
{
  if (probe_inside ((struct probe *) t, field))
    probe_address ((struct probe *) t, (uintptr_t) *field);
}

/* Trace the object of type T, SIZE bytes at ADDRESS, with TRACER: by
   trace, or by trace_sized for an owner-sized type.  */
void
pdump_walk_trace_object (const struct dumper_type *t, const void *address,
                         uint64_t size, struct dumper_tracer *tracer)
{
  if (t->size == NULL)
    t->trace_sized (address, (size_t) size, tracer);
  else
    t->trace (address, tracer);
}

/* Whether the object of type T (SIZE bytes) at ADDRESS holds an
   executable address or a code pointer, by its trace on the live
   object: such objects go to HOT's group area.  A fixup may change a
   field afterwards; that only moves an object to the other area, which
   stays correct.  */
static bool
holds_exe_reference (const struct pdump_walk *w, const struct dumper_type *t,
                     uintptr_t address, uint64_t size)
{
  struct probe p = { .tracer = { .word = probe_word, .ptr = probe_ptr,
                                 .bytes = probe_bytes, .code = probe_code,
                                 .sized = probe_sized,
                                 .interior = probe_interior },
                     .w = w, .start = address, .size = size,
                     .exe = false };
  pdump_walk_trace_object (t, (const void *) address, size, &p.tracer);
  return p.exe;
}

/* Give the object of type T (number TYPE, SIZE bytes at ADDRESS, which
   has pointers) its place at the end of its area of HOT and queue it:
   its bytes are copied and its fields encoded when the stack reaches
   it.  */
static bool
place_hot (struct pdump_walk *w, uintptr_t address,
           const struct dumper_type *t, uint32_t type, uint64_t size,
           uint64_t *at)
{
  bool group = holds_exe_reference (w, t, address, size);
  struct pdump_hot_area *a = group ? &w->group : &w->hot;
  uint64_t rel = align_up (a->bytes.size, w->object_align);
  if (!pdump_buf_reserve (&a->bytes, rel + size - a->base)
      || !pdump_bits_reserve (a, rel + size))
    {
      pdump_walk_fail (w, DUMPER_E_NOMEM, "out of memory at %zu objects",
                       w->object_count);
      return false;
    }
  a->bytes.size = rel + size;
  *at = group ? rel + PDUMP_GROUP_BIAS : rel;
  w->hot_object_count++;
  struct pdump_work item = { (const void *) address, *at, type,
                             (uint32_t) w->object_count, size };
  if (!stack_push (w, &item))
    {
      pdump_walk_fail (w, DUMPER_E_NOMEM, "out of memory for the walk stack");
      return false;
    }
  return true;
}

/* Copy the pointer-free object of type T (number TYPE, SIZE bytes at
   ADDRESS) to COLD now, let its fixup adjust the copy, and lint it.  */
static bool
place_cold (struct pdump_walk *w, uintptr_t address,
            const struct dumper_type *t, uint32_t type, uint64_t size,
            uint64_t *at)
{
  unsigned char *copy = pdump_walk_cold_copy (w, (const void *) address, size,
                                              w->object_align, at);
  if (copy == NULL)
    return false;
  if (t->fixup)
    t->fixup ((const void *) address, copy);
  w->cold_object_count++;
  /* With 4-byte words a pointer-free object is not linted: its words are
     data by the trace's contract (heap.h), and in a 32-bit address space
     data collide with addresses (doc/integration.md, "the lint").  */
  if (PDUMP_WORD_SIZE == 8)
    pdump_walk_lint_object (w, (uint32_t) w->object_count, type, copy, size,
                            UINT64_MAX);
  return w->status == DUMPER_OK;
}

/* Place the new object of type T (number TYPE, SIZE bytes at ADDRESS),
   whose visited-map entry is ENTRY: in HOT when it has pointers, else
   in COLD.  Sets *OFFSET to its walk-time offset.  */
bool
pdump_walk_place_new (struct pdump_walk *w, uint64_t *entry, uintptr_t address,
                      const struct dumper_type *t, uint32_t type,
                      uint64_t size, uint64_t *offset)
{
  bool pointers = t->size == NULL ? t->trace_sized != NULL : t->trace != NULL;
  uint64_t at;
  if (!(pointers ? place_hot (w, address, t, type, size, &at)
        : place_cold (w, address, t, type, size, &at)))
    return false;
  if (!pdump_walk_record_object (w, entry, type, size, at))
    return false;
  *offset = at;
  return true;
}

/* The walk-time offset of the object of type TYPE at ADDRESS (already
   located IN_HEAP), giving it a place in the image if it has none.
   Returns false on error (w->status set).  */
bool
pdump_walk_visit (struct pdump_walk *w, uintptr_t address, uint32_t type,
                  size_t field_offset, uint64_t *offset)
{
  /* Before the visited map: a block met as sized first would be
     accepted with its type, and admit has no size function to call.  */
  if ((int) type < w->heap->type_count && w->heap->types[type].size == NULL)
    {
      pdump_walk_unchecked (w, field_offset, "a word or typed pointer "
                            "points to an owner-sized type");
      return false;
    }
  bool added;
  uint64_t *entry = pdump_walk_visited_entry (w, address, &added);
  if (entry == NULL)
    return false;
  if (!added)
    return pdump_walk_revisit (w, *entry, type, field_offset, offset);
  uint64_t size;
  const struct dumper_type *t = admit (w, address, type, field_offset, &size);
  if (t == NULL)
    return false;
  return pdump_walk_place_new (w, entry, address, t, type, size, offset);
}
