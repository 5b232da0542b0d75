/* SPDX-License-Identifier: MIT */
/* pdump/walk.c: the writer's walk of the live heap.

   Starting from the registry (roots, remembered words and pointers, in
   registration order) it visits every reachable object once, iteratively
   with an explicit stack, so the depth of the heap (a million-long list)
   costs memory, not C stack.  Each object gets its image position when
   it is first discovered; positions are handed out in discovery order,
   which depends only on the heap's shape and the registry order, never
   on addresses, so the same state always gives the same bytes.

   For each object it copies the bytes into HOT (objects with pointers)
   or COLD (pointer-free objects and byte blocks), lets the type's fixup
   adjust the copy, and then encodes every pointer field the type's
   trace function reports: an image offset with its bit in the
   RELOC_IMAGE bitmap, an executable offset with its index in RELOC_EXE,
   or the value as is for immediates and NULL.  Pointer values are read
   from the copy (after fixup), field positions from the live object.

   Owner-sized blocks (dumper_trace_sized) are objects like others whose
   size is the length their first referrer reported (a later referrer
   must report the same); they are traced with their type's
   trace_sized.  Interior pointers (dumper_trace_interior) cannot be
   encoded when met, since the object holding their target may not be
   placed yet: their words are resolved when the walk ends, to the
   containing object's offset plus the distance into it, an image word
   like any other (so the loader's relocation needs nothing new).

   What it refuses, each with a message naming the object's type, the
   field's offset and the path from the root: a pointer that is neither
   into the heap (anonymous memory, the brk heap, a loaded image) nor
   into the executable; a field outside its object or not word-aligned;
   a field reported twice; an object reached as two different types; a
   type index outside the description.  */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic.h"
#include "common/zmem.h"
#include "hash.h"
#include "walk.h"

#define NO_PARENT UINT32_MAX
#define MAX_OBJECT_SIZE (UINT64_C (1) << 40)

/* Whether an object of SIZE bytes is past MAX_OBJECT_SIZE (a function:
   with 4-byte words a size_t never is, and the comparison written in
   place is a -Wtype-limits warning).  */
static bool
too_big (uint64_t size)
{
  return size > MAX_OBJECT_SIZE;
}

/* ------------------------------------------------------------------ */
/* Errors.  */

/* Record the walk's first failure: a later one (a caller reporting an
   error its callee already described) changes nothing.  */
static enum dumper_status
fail (struct pdump_walk *w, enum dumper_status status, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

static enum dumper_status
fail (struct pdump_walk *w, enum dumper_status status, const char *fmt, ...)
{
  if (w->status != DUMPER_OK)
    return w->status;
  w->status = status;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (w->detail, w->detail_size, fmt, ap);
  va_end (ap);
  return status;
}

static const char *
type_name (const struct pdump_walk *w, uint32_t type)
{
  if (type == PDUMP_TYPE_BYTES)
    return "byte block";
  if ((int) type < w->heap->type_count)
    return w->heap->types[type].name;
  return "?";
}

/* Append to BUF a description of how object INDEX was reached:
   "root 2 (static at exe+0x4a10) -> vector -> cons".  */
static void
describe_path (const struct pdump_walk *w, uint32_t index, char *buf,
               size_t size)
{
  uint32_t chain[12];
  int depth = 0;
  bool truncated = false;
  for (uint32_t i = index; i != NO_PARENT; i = w->parents[i])
    {
      if (depth == (int) (sizeof chain / sizeof chain[0]))
        {
          truncated = true;
          break;
        }
      chain[depth++] = i;
    }
  const struct pdump_entry *root = &w->entries[w->current_root];
  size_t n = (size_t) snprintf (buf, size, "registry entry %zu (static at "
                                "exe+0x%" PRIxPTR ")", w->current_root,
                                (uintptr_t) root->addr - w->exe.bias);
  if (truncated && n < size)
    n += (size_t) snprintf (buf + n, size - n, " -> ...");
  for (int d = depth - 1; d >= 0 && n < size; d--)
    n += (size_t) snprintf (buf + n, size - n, " -> %s",
                            type_name (w, w->types[chain[d]]));
}

/* Fail with a message about field FIELD_OFFSET of the current object.  */
static enum dumper_status
fail_field (struct pdump_walk *w, enum dumper_status status,
            size_t field_offset, const char *problem)
{
  char path[512];
  if (w->current)
    {
      describe_path (w, w->current->index, path, sizeof path);
      return fail (w, status, "object of type `%s' (reached via %s), field "
                   "at +%zu: %s", type_name (w, w->current->type), path,
                   field_offset, problem);
    }
  const struct pdump_entry *root = &w->entries[w->current_root];
  return fail (w, status, "registry entry %zu (static at exe+0x%" PRIxPTR
               "): %s", w->current_root, (uintptr_t) root->addr - w->exe.bias,
               problem);
}

/* ------------------------------------------------------------------ */
/* Growable buffers.  New bytes are zero: padding in the image is zero.
   They come from common/zmem.c, so the zeroes are the kernel's untouched
   pages (no memset, nothing resident before it is written) and growth
   moves page tables, not bytes.  */

static bool
buf_reserve (struct pdump_buf *b, size_t size)
{
  if (size <= b->capacity)
    return true;
  size_t capacity = b->capacity ? b->capacity : 65536;
  while (capacity < size)
    capacity *= 2;
  unsigned char *data = common_zrealloc (b->data, b->capacity, capacity, true);
  if (data == NULL)
    return false;
  b->data = data;
  b->capacity = capacity;
  return true;
}

static void
buf_free (struct pdump_buf *b)
{
  common_zfree (b->data, b->capacity);
}

static bool
buf_append (struct pdump_buf *b, const void *bytes, size_t size)
{
  if (!buf_reserve (b, b->size + size))
    return false;
  memcpy (b->data + b->size, bytes, size);
  b->size += size;
  return true;
}

static uint64_t
align_up (uint64_t n, uint64_t alignment)
{
  return (n + alignment - 1) & ~(alignment - 1);
}

/* Make room in area A's word bitmaps for its first BYTES bytes: image
   relocations, executable (and code) relocations, and every word a
   trace reported (to catch a field reported twice before its encoded
   value is read back, and for the lint of unreported words).  All three
   are the same size.  */
static bool
bits_reserve (struct pdump_hot_area *a, uint64_t area_bytes)
{
  size_t words = (size_t) ((area_bytes / PDUMP_WORD_SIZE + 63) / 64);
  if (words <= a->bits_words)
    return true;
  size_t capacity = a->bits_words ? a->bits_words : 1024;
  while (capacity < words)
    capacity *= 2;
  size_t old_bytes = a->bits_words * sizeof (uint64_t);
  size_t bytes = capacity * sizeof (uint64_t);
  uint64_t **maps[3] = { &a->image_bits, &a->exe_bits, &a->reported_bits };
  for (int k = 0; k < 3; k++)
    {
      uint64_t *grown = common_zrealloc (*maps[k], old_bytes, bytes, true);
      if (grown == NULL)
        {
          /* Keep them the same size: shrink the grown ones back.  */
          for (int j = 0; j < k; j++)
            {
              uint64_t *back = common_zrealloc (*maps[j], bytes, old_bytes,
                                                true);
              if (back)
                *maps[j] = back;
            }
          return false;
        }
      *maps[k] = grown;
    }
  a->bits_words = capacity;
  return true;
}

/* The area of HOT that walk offset AT lies in, and *REL, AT in it.  */
static struct pdump_hot_area *
area_of (struct pdump_walk *w, uint64_t at, uint64_t *rel)
{
  if (at >= PDUMP_GROUP_BIAS)
    {
      *rel = at - PDUMP_GROUP_BIAS;
      return &w->group;
    }
  *rel = at;
  return &w->hot;
}

static bool
reported_p (struct pdump_walk *w, uint64_t hot_offset)
{
  uint64_t word;
  const struct pdump_hot_area *a = area_of (w, hot_offset, &word);
  word /= PDUMP_WORD_SIZE;
  return (a->reported_bits[word / 64] >> (word % 64)) & 1;
}

static bool
u32_push (struct pdump_u32vec *v, uint32_t x)
{
  if (v->size == v->capacity)
    {
      size_t capacity = v->capacity ? v->capacity * 2 : 4096;
      uint32_t *data = realloc (v->data, capacity * sizeof *data);
      if (data == NULL)
        return false;
      v->data = data;
      v->capacity = capacity;
    }
  v->data[v->size++] = x;
  return true;
}

/* ------------------------------------------------------------------ */
/* Where an address is.  */

enum where { IN_HEAP, IN_EXE, FOREIGN };

/* Classify [ADDRESS, ADDRESS + SIZE); on FOREIGN describe it in WHY.  */
static enum where
locate (struct pdump_walk *w, uintptr_t address, uint64_t size, char *why,
        size_t why_size)
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
      snprintf (why, why_size, "size %" PRIu64 " wraps the address space", size);
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
      if (!common_region_anonymous (r))   /* only malloc memory holds objects */
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

static void lint_object (struct pdump_walk *w, uint32_t index, uint32_t type,
                         const unsigned char *copy, uint64_t size,
                         uint64_t hot_offset);

/* Room for COUNT objects in the index (the host's estimate; grown by
   doubling past it).  */
static bool
reserve_objects (struct pdump_walk *w, size_t count)
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
      && !reserve_objects (w, w->object_capacity
                              ? w->object_capacity * 2 : 4096))
    return false;
  bool bytes = type == PDUMP_TYPE_BYTES;
  struct pdump_buf *index = at >= PDUMP_COLD_BIAS ? &w->index_cold
                            : at >= PDUMP_GROUP_BIAS ? &w->group.index
                            : &w->hot.index;
  if (!buf_reserve (index, index->size + 20))
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
      if (!buf_append (&w->hot.index, w->index_cold.data, w->index_cold.size))
        return NULL;
      buf_free (&w->index_cold);
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

static uint32_t
current_index (const struct pdump_walk *w)
{
  return w->current ? w->current->index : NO_PARENT;
}

/* COLD.  Its bytes are final when copied (nothing in them is
   relocated), so with a file behind it the walk keeps only the last
   COLD_WINDOW bytes and writes the rest out in order, hashing them.  */
#define COLD_WINDOW ((uint64_t) 512 << 10)

/* Write COLD's buffer out and empty it.  */
static bool
cold_flush (struct pdump_walk *w)
{
  size_t used = (size_t) (w->cold.size - w->cold_base);
  int err = common_pwrite_fully (w->cold_fd, w->cold.data, used, w->cold_base);
  if (err != 0)
    {
      fail (w, err == ENOMEM ? DUMPER_E_NOMEM : DUMPER_E_IO,
            "%s: cannot write the image: %s", w->output, strerror (err));
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
static unsigned char *
cold_place (struct pdump_walk *w, uint64_t size, uint64_t align, uint64_t *at)
{
  if (w->cold_fd >= 0 && w->cold.size - w->cold_base > COLD_WINDOW
      && !cold_flush (w))
    return NULL;
  *at = align_up (w->cold.size, align);
  if (!buf_reserve (&w->cold, *at + size - w->cold_base))
    {
      fail (w, DUMPER_E_NOMEM, "out of memory in the cold section at %zu "
            "objects", w->object_count);
      return NULL;
    }
  w->cold.size = *at + size;
  return w->cold.data + (*at - w->cold_base);
}

/* What the visited map holds for an object, packed so that a later
   reference to it is answered from the map's slot alone (one cache miss
   instead of two): bits 0-15 its type (PDUMP_TYPE_BYTES for a byte
   block; the heap has fewer types, checked at the start), bit 16 set
   when it is in COLD, bit 17 when in HOT's group area, bit 18 always
   (so no value is 0, which w->reached reads as "not met"), bits 19-63
   its offset in that section or area / 8 (objects are 8-aligned).  A byte
   block keeps its object number there instead: a repeated block needs
   its length, from the object index.  */
#define VISITED_TYPE_MASK UINT64_C (0xFFFF)
#define VISITED_COLD (UINT64_C (1) << 16)
#define VISITED_GROUP (UINT64_C (1) << 17)
#define VISITED_MET (UINT64_C (1) << 18)   /* never 0: see w->reached */
#define VISITED_SHIFT 19
#define VISITED_MAX_OFFSET (UINT64_C (1) << (64 - VISITED_SHIFT + 3))

static uint64_t
visited_pack (uint32_t type, uint64_t walk_offset)
{
  uint64_t area = walk_offset >= PDUMP_COLD_BIAS ? VISITED_COLD
                  : walk_offset >= PDUMP_GROUP_BIAS ? VISITED_GROUP : 0;
  uint64_t offset = area == VISITED_COLD ? walk_offset - PDUMP_COLD_BIAS
                    : area ? walk_offset - PDUMP_GROUP_BIAS : walk_offset;
  return (offset / 8) << VISITED_SHIFT | VISITED_MET | area | type;
}

static uint64_t
visited_offset (uint64_t value)
{
  uint64_t offset = (value >> VISITED_SHIFT) * 8;
  return value & VISITED_COLD ? offset + PDUMP_COLD_BIAS
         : value & VISITED_GROUP ? offset + PDUMP_GROUP_BIAS : offset;
}

static void
visited_free (struct pdump_walk *w)
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
static uint64_t *
visited_entry (struct pdump_walk *w, uintptr_t address, bool *added)
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
    fail (w, DUMPER_E_NOMEM, "out of memory for the visited map at %zu "
          "objects", w->object_count);
  return entry;
}

/* Record the object just placed at walk offset AT as number
   w->object_count, in ENTRY of the visited map.  */
static bool
record_object (struct pdump_walk *w, uint64_t *entry, uint32_t type,
               uint64_t size, uint64_t at)
{
  if (w->object_count >= UINT32_MAX - 1)
    {
      fail (w, DUMPER_E_NOMEM, "more than 4 billion objects");
      return false;
    }
  bool cold = at >= PDUMP_COLD_BIAS;
  uint64_t section_offset = cold ? at - PDUMP_COLD_BIAS
                            : at >= PDUMP_GROUP_BIAS ? at - PDUMP_GROUP_BIAS
                            : at;
  uint64_t most = cold ? PDUMP_WALK_SECTION_MAX : PDUMP_WALK_MAIN_MAX;
  if (size > most || section_offset >= most - size)
    {
      fail (w, DUMPER_E_NOMEM, "a section of the image passes %" PRIu64
            " bytes, the most %u-byte words can address", most,
            (unsigned) PDUMP_WORD_SIZE);
      return false;
    }
  if (section_offset >= VISITED_MAX_OFFSET)
    {
      fail (w, DUMPER_E_NOMEM, "a section of the image passes %" PRIu64
            " bytes", VISITED_MAX_OFFSET);
      return false;
    }
  *entry = type == PDUMP_TYPE_BYTES
           ? (uint64_t) w->block_count << VISITED_SHIFT | VISITED_MET
             | PDUMP_TYPE_BYTES
           : visited_pack (type, at);
  if (!objects_push (w, type, current_index (w), size, at))
    {
      fail (w, DUMPER_E_NOMEM, "out of memory for the object index");
      return false;
    }
  return true;
}

/* Copy LENGTH bytes from SRC to the end of COLD, aligned to ALIGN; an
   empty block still gets a byte, so it has an address of its own.  Sets
   *AT to the copy's walk-time offset (cold-biased) and returns the copy,
   or NULL after failing.  */
static unsigned char *
cold_copy (struct pdump_walk *w, const void *src, uint64_t length,
           uint64_t align, uint64_t *at)
{
  uint64_t cold_at;
  unsigned char *copy = cold_place (w, length ? length : 1, align, &cold_at);
  if (copy == NULL)
    return NULL;
  if (length)
    memcpy (copy, src, length);
  *at = cold_at + PDUMP_COLD_BIAS;
  return copy;
}

/* An object met again, whose visited-map value is SEEN: it must be met
   as the same TYPE.  Sets *OFFSET to its walk-time offset.  */
static bool
revisit (struct pdump_walk *w, uint64_t seen, uint32_t type,
         size_t field_offset, uint64_t *offset)
{
  uint32_t seen_type = (uint32_t) (seen & VISITED_TYPE_MASK);
  if (seen_type != type)
    {
      char problem[256];
      snprintf (problem, sizeof problem, "points to an object reached "
                "earlier as type `%s', here as type `%s'",
                type_name (w, seen_type), type_name (w, type));
      fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
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
      fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
      return NULL;
    }
  const struct dumper_type *t = &w->heap->types[type];
  *size = t->size ((const void *) address);
  if (*size == 0 || *size > MAX_OBJECT_SIZE)
    {
      char problem[192];
      snprintf (problem, sizeof problem, "points to a `%s' whose size "
                "function returned %" PRIu64, t->name, *size);
      fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
      return NULL;
    }
  char why[192];
  if (locate (w, address, *size, why, sizeof why) != IN_HEAP)
    {
      char problem[320];
      snprintf (problem, sizeof problem, "a `%s' of %" PRIu64 " bytes at "
                "0x%" PRIxPTR " %s", t->name, *size, address, why);
      fail_field (w, DUMPER_E_FOREIGN_POINTER, field_offset, problem);
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
  bool exe;
};

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
  uintptr_t value = *field;
  uintptr_t tag = value & p->w->tag_mask;
  if (p->w->heap->tag_types[tag] != DUMPER_TAG_IMMEDIATE)
    probe_address (p, value - tag);
}

static void
probe_ptr (struct dumper_tracer *t, void *const *field, int type)
{
  (void) type;
  probe_address ((struct probe *) t, (uintptr_t) *field);
}

static void
probe_bytes (struct dumper_tracer *t, void *const *field, size_t length)
{
  (void) length;
  probe_address ((struct probe *) t, (uintptr_t) *field);
}

static void
probe_code (struct dumper_tracer *t, const void *field)
{
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
  probe_address ((struct probe *) t, (uintptr_t) *field);
}

/* An interior pointer into the executable is stored as an executable
   word; one into the heap is an image word.  */
static void
probe_interior (struct dumper_tracer *t, void *const *field)
{
  probe_address ((struct probe *) t, (uintptr_t) *field);
}

/* Trace the object of type T, SIZE bytes at ADDRESS, with TRACER: by
   trace, or by trace_sized for an owner-sized type.  */
static void
trace_object (const struct dumper_type *t, const void *address,
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
                     .w = w, .exe = false };
  trace_object (t, (const void *) address, size, &p.tracer);
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
  if (!buf_reserve (&a->bytes, rel + size - a->base)
      || !bits_reserve (a, rel + size))
    {
      fail (w, DUMPER_E_NOMEM, "out of memory at %zu objects",
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
      fail (w, DUMPER_E_NOMEM, "out of memory for the walk stack");
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
  unsigned char *copy = cold_copy (w, (const void *) address, size,
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
    lint_object (w, (uint32_t) w->object_count, type, copy, size, UINT64_MAX);
  return w->status == DUMPER_OK;
}

/* Place the new object of type T (number TYPE, SIZE bytes at ADDRESS),
   whose visited-map entry is ENTRY: in HOT when it has pointers, else
   in COLD.  Sets *OFFSET to its walk-time offset.  */
static bool
place_new (struct pdump_walk *w, uint64_t *entry, uintptr_t address,
           const struct dumper_type *t, uint32_t type, uint64_t size,
           uint64_t *offset)
{
  bool pointers = t->size == NULL ? t->trace_sized != NULL : t->trace != NULL;
  uint64_t at;
  if (!(pointers ? place_hot (w, address, t, type, size, &at)
        : place_cold (w, address, t, type, size, &at)))
    return false;
  if (!record_object (w, entry, type, size, at))
    return false;
  *offset = at;
  return true;
}

/* The walk-time offset of the object of type TYPE at ADDRESS (already
   located IN_HEAP), giving it a place in the image if it has none.
   Returns false on error (w->status set).  */
static bool
visit (struct pdump_walk *w, uintptr_t address, uint32_t type,
       size_t field_offset, uint64_t *offset)
{
  if ((int) type < w->heap->type_count && w->heap->types[type].size == NULL)
    {
      /* Checked before the visited map: a block met as sized first
         would otherwise be accepted here with its type.  */
      char problem[192];
      snprintf (problem, sizeof problem, "points to a `%s', an owner-sized "
                "type (no size function), as a word or typed pointer; "
                "report such a block with dumper_trace_sized",
                w->heap->types[type].name);
      fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
      return false;
    }
  bool added;
  uint64_t *entry = visited_entry (w, address, &added);
  if (entry == NULL)
    return false;
  if (!added)
    return revisit (w, *entry, type, field_offset, offset);
  uint64_t size;
  const struct dumper_type *t = admit (w, address, type, field_offset, &size);
  if (t == NULL)
    return false;
  return place_new (w, entry, address, t, type, size, offset);
}

/* ------------------------------------------------------------------ */
/* Encoding values.  */

enum value_kind { VALUE_PLAIN, VALUE_IMAGE, VALUE_EXE, VALUE_CODE };

/* The forms a pointer field takes, for messages and the field queue.  */
enum field_form { FORM_WORD, FORM_PTR, FORM_BYTES, FORM_CODE, FORM_SIZED,
                  FORM_INTERIOR };

/* Classify the target of a pointer field: ADDRESS (SIZE bytes; VALUE and
   TAG as stored, LENGTH for byte blocks).  In the executable: set
   *ENCODED and *KIND and return IN_EXE.  Foreign: fail naming the field
   and return FOREIGN.  In the heap: return IN_HEAP for the caller to
   visit.  */
static enum where
classify_target (struct pdump_walk *w, enum field_form form,
                 uintptr_t value, uintptr_t tag, size_t length,
                 size_t field_offset, uint64_t *encoded,
                 enum value_kind *kind)
{
  uintptr_t address = value - tag;
  char why[192];
  uint64_t size = (form == FORM_BYTES || form == FORM_SIZED) && length
                  ? length : 1;
  enum where where = locate (w, address, size, why, sizeof why);
  if (where == IN_EXE)
    {
      *encoded = address - w->exe.bias + tag;
      *kind = VALUE_EXE;
    }
  else if (where == FOREIGN)
    {
      char problem[320];
      if (form == FORM_WORD)
        snprintf (problem, sizeof problem, "word 0x%" PRIxPTR " (tag %"
                  PRIuPTR ") %s", value, tag, why);
      else if (form == FORM_PTR)
        snprintf (problem, sizeof problem, "pointer 0x%" PRIxPTR " %s",
                  value, why);
      else if (form == FORM_SIZED)
        snprintf (problem, sizeof problem, "sized block 0x%" PRIxPTR " of %zu "
                  "bytes %s", value, length, why);
      else
        snprintf (problem, sizeof problem, "byte block 0x%" PRIxPTR " of %zu "
                  "bytes %s", value, length, why);
      fail_field (w, DUMPER_E_FOREIGN_POINTER, field_offset, problem);
    }
  return where;
}

/* Encode the tagged word VALUE.  */
static bool
encode_word (struct pdump_walk *w, uintptr_t value, size_t field_offset,
             uint64_t *encoded, enum value_kind *kind)
{
  uintptr_t tag = value & w->tag_mask;
  int type = w->heap->tag_types[tag];
  if (type == DUMPER_TAG_IMMEDIATE)
    {
      *encoded = value;
      *kind = VALUE_PLAIN;
      return true;
    }
  uintptr_t address = value - tag;
  if (address == 0 && type == DUMPER_TAG_BY_HEADER)
    {
      /* NULL behind a header tag: there is no header to read, and
         nothing to relocate (heap.h).  */
      *encoded = value;
      *kind = VALUE_PLAIN;
      return true;
    }
  if (address == 0)
    {
      char why[192];
      snprintf (why, sizeof why, "word 0x%" PRIxPTR " has pointer tag %"
                PRIuPTR " but a null address", value, tag);
      fail_field (w, DUMPER_E_FOREIGN_POINTER, field_offset, why);
      return false;
    }
  enum where where = classify_target (w, FORM_WORD, value, tag, 0,
                                      field_offset, encoded, kind);
  if (where != IN_HEAP)
    return where == IN_EXE;
  if (type == DUMPER_TAG_BY_HEADER)
    type = w->heap->header_type ((const void *) address);
  uint64_t offset;
  if (!visit (w, address, (uint32_t) type, field_offset, &offset))
    return false;
  *encoded = offset + tag;
  *kind = VALUE_IMAGE;
  return true;
}

/* Encode the raw pointer VALUE to an object of TYPE.  */
static bool
encode_ptr (struct pdump_walk *w, uintptr_t value, int type,
            size_t field_offset, uint64_t *encoded, enum value_kind *kind)
{
  if (value == 0)
    {
      *encoded = 0;
      *kind = VALUE_PLAIN;
      return true;
    }
  enum where where = classify_target (w, FORM_PTR, value, 0, 0,
                                      field_offset, encoded, kind);
  if (where != IN_HEAP)
    return where == IN_EXE;
  if (type == DUMPER_TAG_BY_HEADER)
    type = w->heap->header_type ((const void *) value);
  if (type < 0)
    {
      fail_field (w, DUMPER_E_HEAP_DESC, field_offset,
                  "raw pointer reported with a negative type");
      return false;
    }
  uint64_t offset;
  if (!visit (w, value, (uint32_t) type, field_offset, &offset))
    return false;
  *encoded = offset;
  *kind = VALUE_IMAGE;
  return true;
}

/* Encode the pointer VALUE to a pointer-free block of LENGTH bytes.  */
static bool
encode_bytes (struct pdump_walk *w, uintptr_t value, size_t length,
              size_t field_offset, uint64_t *encoded, enum value_kind *kind)
{
  if (value == 0)
    {
      *encoded = 0;
      *kind = VALUE_PLAIN;
      return true;
    }
  enum where where = classify_target (w, FORM_BYTES, value, 0, length,
                                      field_offset, encoded, kind);
  if (where != IN_HEAP)
    return where == IN_EXE;
  bool added;
  uint64_t *entry = visited_entry (w, value, &added);
  if (entry == NULL)
    return false;
  if (!added)
    {
      uint64_t seen = *entry;
      uint32_t seen_type = (uint32_t) (seen & VISITED_TYPE_MASK);
      if (seen_type != PDUMP_TYPE_BYTES)
        {
          char problem[256];
          snprintf (problem, sizeof problem, "byte block at 0x%" PRIxPTR
                    " of %zu bytes was reached before as a `%s'", value,
                    length, type_name (w, seen_type));
          fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
          return false;
        }
      const struct pdump_block *b = &w->blocks[seen >> VISITED_SHIFT];
      if (length > b->length)
        {
          char problem[256];
          snprintf (problem, sizeof problem, "byte block at 0x%" PRIxPTR
                    " of %zu bytes was reached before as a byte block of %"
                    PRIu64 " bytes", value, length, b->length);
          fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
          return false;
        }
      *encoded = b->offset;
      *kind = VALUE_IMAGE;
      return true;
    }
  uint64_t at;
  if (cold_copy (w, (const void *) value, length, PDUMP_ALIGN, &at) == NULL
      || !record_object (w, entry, PDUMP_TYPE_BYTES, length, at))
    return false;
  *encoded = at;
  *kind = VALUE_IMAGE;
  return true;
}

/* Encode the pointer VALUE to an owner-sized block of TYPE, NBYTES
   long by its referrer.  */
static bool
encode_sized (struct pdump_walk *w, uintptr_t value, int type, size_t nbytes,
              size_t field_offset, uint64_t *encoded, enum value_kind *kind)
{
  *encoded = 0;
  *kind = VALUE_PLAIN;
  if (value == 0)
    return true;
  char problem[320];
  if (type < 0 || type >= w->heap->type_count
      || w->heap->types[type].size != NULL)
    {
      snprintf (problem, sizeof problem, "sized pointer (dumper_trace_sized) "
                "to type %d, which is not an owner-sized type (it has a size "
                "function, or is not in the type table)", type);
      fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
      return false;
    }
  const struct dumper_type *t = &w->heap->types[type];
  if (nbytes == 0 || too_big (nbytes))
    {
      snprintf (problem, sizeof problem, "sized block 0x%" PRIxPTR " of type "
                "`%s' is reported with %zu bytes; a sized block has 1 to "
                "2^40 bytes (report an empty one as NULL)", value, t->name,
                nbytes);
      fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
      return false;
    }
  enum where where = classify_target (w, FORM_SIZED, value, 0, nbytes,
                                      field_offset, encoded, kind);
  if (where == IN_EXE)
    {
      snprintf (problem, sizeof problem, "sized block 0x%" PRIxPTR " of type "
                "`%s' is in the executable; owner-sized blocks must come "
                "from dumper_alloc", value, t->name);
      fail_field (w, DUMPER_E_REGISTRATION, field_offset, problem);
      return false;
    }
  if (where != IN_HEAP)
    return false;
  bool added;
  uint64_t *entry = visited_entry (w, value, &added);
  if (entry == NULL)
    return false;
  if (!added)
    {
      if (!revisit (w, *entry, (uint32_t) type, field_offset, encoded))
        return false;
      const uint64_t *length = common_addrmap_get (&w->sized_lengths, value);
      if (length != NULL && *length != nbytes)
        {
          snprintf (problem, sizeof problem, "sized block 0x%" PRIxPTR " of "
                    "type `%s' is reported with %zu bytes here and with %"
                    PRIu64 " bytes by an earlier referrer; every referrer "
                    "must report the same length", value, t->name, nbytes,
                    *length);
          fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
          return false;
        }
      *kind = VALUE_IMAGE;
      return true;
    }
  if (!common_addrmap_put (&w->sized_lengths, value, nbytes))
    {
      fail (w, DUMPER_E_NOMEM, "out of memory for the lengths of sized "
            "blocks");
      return false;
    }
  if (!place_new (w, entry, value, t, (uint32_t) type, nbytes, encoded))
    return false;
  *kind = VALUE_IMAGE;
  return true;
}

/* ------------------------------------------------------------------ */
/* The tracer callbacks.  */

/* Check FIELD against the current object; return its offset in it, or
   SIZE_MAX after failing.  */
static size_t
field_offset_of (struct pdump_walk *w, const void *field)
{
  const struct pdump_work *cur = w->current;
  uintptr_t f = (uintptr_t) field, src = (uintptr_t) cur->src;
  if (f < src || f - src > cur->size || cur->size - (f - src) < sizeof (uintptr_t))
    {
      char problem[160];
      snprintf (problem, sizeof problem, "trace reported a field at 0x%"
                PRIxPTR ", outside the %" PRIu64 "-byte object at 0x%" PRIxPTR,
                f, cur->size, src);
      fail_field (w, DUMPER_E_HEAP_DESC, 0, problem);
      return SIZE_MAX;
    }
  size_t offset = (size_t) (f - src);
  if (offset % sizeof (uintptr_t) != 0)
    {
      fail_field (w, DUMPER_E_HEAP_DESC, offset,
                  "trace reported a field that is not word-aligned");
      return SIZE_MAX;
    }
  /* Checked here, before the value is read: the copy of a field
     reported before already holds its encoded form, which is no
     pointer of this process.  */
  uint64_t word;
  struct pdump_hot_area *a = area_of (w, cur->offset + offset, &word);
  word /= PDUMP_WORD_SIZE;
  uint64_t bit = UINT64_C (1) << (word % 64);
  uint64_t *reported = &a->reported_bits[word / 64];
  if (*reported & bit)
    {
      fail_field (w, DUMPER_E_HEAP_DESC, offset,
                  "trace reported the same field twice");
      return SIZE_MAX;
    }
  *reported |= bit;
  return offset;
}

/* The copy of the object being traced.  Computed each time: the window
   moves when it grows (visiting a field places new objects).  */
static unsigned char *
current_copy (const struct pdump_walk *w)
{
  if (w->current_late)
    return w->late_copy;
  if (w->current->offset >= PDUMP_GROUP_BIAS)
    return w->group.bytes.data + (w->current->offset - PDUMP_GROUP_BIAS);
  return w->hot.bytes.data + (w->current->offset - w->hot.base);
}

/* Store ENCODED in the current object's copy at FIELD_OFFSET and record
   its relocation.  */
static void
store (struct pdump_walk *w, size_t field_offset, uint64_t encoded,
       enum value_kind kind)
{
  uint64_t word;
  struct pdump_hot_area *a = area_of (w, w->current->offset + field_offset,
                                      &word);
  word /= PDUMP_WORD_SIZE;
  uint64_t bit = UINT64_C (1) << (word % 64);
  uint64_t *image = &a->image_bits[word / 64];
  uint64_t *exe = &a->exe_bits[word / 64];
  if ((*image | *exe) & bit)
    {
      fail_field (w, DUMPER_E_HEAP_DESC, field_offset,
                  "trace reported the same field twice");
      return;
    }
  /* Every encoded value fits a word: executable offsets and code
     indexes are computed in uintptr_t, and image offsets stay below
     PDUMP_COLD_BIAS twice (checked where objects are placed).  */
  pdump_word stored = (pdump_word) encoded;
  if (stored != encoded)
    {
      fail_field (w, DUMPER_E_STATE, field_offset,
                  "an encoded value does not fit the image word");
      return;
    }
  memcpy (current_copy (w) + field_offset, &stored, sizeof stored);
  if (kind == VALUE_IMAGE)
    {
      *image |= bit;
      w->image_reloc_count++;
    }
  else if (kind == VALUE_EXE || kind == VALUE_CODE)
    {
      /* The second bitmap marks every word with a relocation that is
         not an image one, for the double-report check.  */
      *exe |= bit;
      struct pdump_u32vec *list = kind == VALUE_EXE ? &a->exe_relocs
                                                    : &a->code_relocs;
      if (word > UINT32_MAX || !u32_push (list, (uint32_t) word))
        fail (w, DUMPER_E_NOMEM, "too many executable relocations");
    }
}

static uintptr_t
copied_value (const struct pdump_walk *w, size_t field_offset)
{
  uintptr_t value;
  memcpy (&value, current_copy (w) + field_offset, sizeof value);
  return value;
}

/* Encode and store the word, pointer, byte block or sized block
   pointer F of the current object.  */
static void
trace_value (struct pdump_walk *w, const struct pdump_field *f)
{
  if (w->status != DUMPER_OK)
    return;
  size_t off = field_offset_of (w, f->field);
  if (off == SIZE_MAX)
    return;
  uintptr_t value = copied_value (w, off);
  uint64_t encoded;
  enum value_kind kind;
  bool ok = false;
  switch ((enum field_form) f->form)
    {
    case FORM_WORD:
      ok = encode_word (w, value, off, &encoded, &kind);
      break;
    case FORM_PTR:
      ok = encode_ptr (w, value, (int) f->arg, off, &encoded, &kind);
      break;
    case FORM_BYTES:
      ok = encode_bytes (w, value, f->arg, off, &encoded, &kind);
      break;
    case FORM_SIZED:
      ok = encode_sized (w, value, f->type, f->arg, off, &encoded, &kind);
      break;
    case FORM_CODE:
    case FORM_INTERIOR:
      abort ();   /* handled by their own functions */
    }
  if (ok)
    store (w, off, encoded, kind);
}

/* The start of a field whose value needs no visit (a code or interior
   pointer): its checked offset in *OFF and its value in *VALUE; false
   after failing, or after storing a NULL value as it is.  */
static bool
field_value (struct pdump_walk *w, const void *field, size_t *off,
             uintptr_t *value)
{
  if (w->status != DUMPER_OK)
    return false;
  *off = field_offset_of (w, field);
  if (*off == SIZE_MAX)
    return false;
  *value = copied_value (w, *off);
  if (*value != 0)
    return true;
  store (w, *off, 0, VALUE_PLAIN);
  return false;
}

/* A C function pointer: stored as the code word (format.h,
   PDUMP_CODE_WORD) of the declaration common_code_targets_find picks.  */
static void
trace_code (struct dumper_tracer *t, const void *field)
{
  struct pdump_walk *w = (struct pdump_walk *) t;
  size_t off;
  uintptr_t value;
  if (!field_value (w, field, &off, &value))
    return;
  const struct common_code_target *target
    = common_code_targets_find (&w->code_targets, value);
  char problem[256];
  if (target == NULL)
    snprintf (problem, sizeof problem, "code pointer 0x%" PRIxPTR " (exe+0x%"
              PRIxPTR ") is not a declared code target; declare the "
              "function with DUMPER_DECLARE_CODE or in a "
              "DUMPER_DECLARE_CODE_TABLE", value, value - w->exe.bias);
  else if (!PDUMP_CODE_INDEX_FITS (target->decl)
           || !PDUMP_CODE_INDEX_FITS (target->element))
    snprintf (problem, sizeof problem, "code pointer 0x%" PRIxPTR " is "
              "declaration %" PRIu32 " (%s), element %" PRIu32 ": an image "
              "of %u-byte words names declarations and elements below %"
              PRIu64, value, target->decl,
              w->decls[target->decl].name ? w->decls[target->decl].name : "?",
              target->element, (unsigned) PDUMP_WORD_SIZE,
              PDUMP_CODE_INDEX_LIMIT);
  else
    {
      store (w, off, PDUMP_CODE_WORD (target->decl, target->element),
             VALUE_CODE);
      return;
    }
  fail_field (w, DUMPER_E_REGISTRATION, off, problem);
}

/* An interior pointer: into the executable, an executable word; NULL
   as it is; else a word of 0 with its image relocation bit, resolved
   when the walk ends (resolve_interiors).  */
static void
trace_interior (struct dumper_tracer *t, void *const *field)
{
  struct pdump_walk *w = (struct pdump_walk *) t;
  size_t off;
  uintptr_t value;
  if (!field_value (w, field, &off, &value))
    return;
  w->interior_word_count++;
  if (pdump_exe_contains (&w->exe, value))
    {
      store (w, off, value - w->exe.bias, VALUE_EXE);
      return;
    }
  if (w->interior_count == w->interior_capacity)
    {
      size_t capacity = w->interior_capacity ? 2 * w->interior_capacity : 256;
      struct pdump_interior *grown = realloc (w->interiors,
                                              capacity * sizeof *grown);
      if (grown == NULL)
        {
          fail (w, DUMPER_E_NOMEM, "out of memory for interior pointers");
          return;
        }
      w->interiors = grown;
      w->interior_capacity = capacity;
    }
  w->interiors[w->interior_count++] = (struct pdump_interior) {
    w->current->offset + off, value, w->current->index, (uint32_t) off };
  store (w, off, 0, VALUE_IMAGE);
}

/* ------------------------------------------------------------------ */
/* The field queue.

   The cost of a walk is one visited-map lookup per pointer field, a
   cache miss once the map outgrows the caches.  So the tracer the host
   sees only queues each field and starts loading the map slot (and the
   target's first bytes) it will need; the queue is handled, in the
   order the fields were reported, when it is full and after the trace
   function returns.  Nothing but the timing changes: every check and
   every placement happens as if the field were handled when reported. */

static void
handle_fields (struct pdump_walk *w)
{
  for (size_t i = 0; i < w->field_count; i++)
    {
      const struct pdump_field *f = &w->fields[i];
      switch ((enum field_form) f->form)
        {
        case FORM_WORD:
        case FORM_PTR:
        case FORM_BYTES:
        case FORM_SIZED:
          trace_value (w, f);
          break;
        case FORM_CODE:
          trace_code (&w->tracer, f->field);
          break;
        case FORM_INTERIOR:
          trace_interior (&w->tracer, f->field);
          break;
        }
    }
  w->field_count = 0;
}

static void
queue_field (struct pdump_walk *w, const void *field, size_t arg, int type,
             enum field_form form)
{
  if (w->field_count == PDUMP_FIELD_BATCH)
    handle_fields (w);
  w->fields[w->field_count++] = (struct pdump_field) { field, arg, type,
                                                       (unsigned char) form };
  /* The hint, for a field inside the object (others fail when handled);
     an interior pointer's target is no object's start.  */
  const struct pdump_work *cur = w->current;
  uintptr_t f = (uintptr_t) field, src = (uintptr_t) cur->src;
  if (form == FORM_CODE || form == FORM_INTERIOR || f < src || cur->size < sizeof (uintptr_t)
      || f - src > cur->size - sizeof (uintptr_t))
    return;
  uintptr_t value = copied_value (w, f - src);
  if (form == FORM_WORD)
    {
      uintptr_t tag = value & w->tag_mask;
      if (w->heap->tag_types[tag] == DUMPER_TAG_IMMEDIATE)
        return;
      value -= tag;
    }
  if (value != 0)
    {
      if (w->reached == NULL)
        common_addrmap_prefetch (&w->visited, value);
      else
        {
          size_t n = common_blockset_number_of (w->reachable, value);
          if (n < w->reached_count)
            __builtin_prefetch (&w->reached[n]);
        }
      __builtin_prefetch ((const void *) value);
    }
}

static void
queue_word (struct dumper_tracer *t, const uintptr_t *field)
{
  queue_field ((struct pdump_walk *) t, field, 0, 0, FORM_WORD);
}

static void
queue_ptr (struct dumper_tracer *t, void *const *field, int type)
{
  queue_field ((struct pdump_walk *) t, field, (size_t) type, 0, FORM_PTR);
}

static void
queue_bytes (struct dumper_tracer *t, void *const *field, size_t length)
{
  queue_field ((struct pdump_walk *) t, field, length, 0, FORM_BYTES);
}

static void
queue_code (struct dumper_tracer *t, const void *field)
{
  queue_field ((struct pdump_walk *) t, field, 0, 0, FORM_CODE);
}

static void
queue_sized (struct dumper_tracer *t, void *const *field, int type,
             size_t nbytes)
{
  queue_field ((struct pdump_walk *) t, field, nbytes, type, FORM_SIZED);
}

static void
queue_interior (struct dumper_tracer *t, void *const *field)
{
  queue_field ((struct pdump_walk *) t, field, 0, 0, FORM_INTERIOR);
}

/* ------------------------------------------------------------------ */
/* The lint of unreported words.  A word the trace did not report is
   copied as it is; if it holds an address of this process it dangles
   after a load (ASLR moves the executable and the heap).  Report each
   such word (type, field offset, value), as unexec's pointer scan does
   for the saved data, or fail with 91 in strict mode.  Byte blocks are
   not linted: their bytes are data, not fields.  */

/* How many findings are described one by one; the rest are counted.  */
#define LINT_LISTED_MAX 16

/* Where VALUE points, for the lint: a description, or NULL when it is
   no address of the executable or the heap.  */
static const char *
lint_target (struct pdump_walk *w, uintptr_t value)
{
  if (value < 4096)
    return NULL;
  if (pdump_exe_contains (&w->exe, value))
    return pdump_exe_code (&w->exe, value - w->exe.bias)
           ? "the executable's code (a function pointer?)"
           : "the executable's data";
  if (value >= w->image_start && value < w->image_end)
    return "the loaded image";
  /* The heap is what the allocator handed out: not any anonymous
     mapping (a sanitizer's shadow memory is one, and small numbers fall
     in it).  A tagged pointer counts with its tag removed.  */
  if (w->heap_block && (w->heap_block (value, w->heap_block_data)
                        || w->heap_block (value & ~w->tag_mask,
                                          w->heap_block_data)))
    return "the heap (a dumper_alloc block)";
  return NULL;
}

/* Lint object INDEX of TYPE, whose image copy (after fixup) is COPY of
   SIZE bytes; HOT_OFFSET is its place in HOT, or UINT64_MAX for a
   pointer-free object (nothing of it was reported).  */
static void
lint_object (struct pdump_walk *w, uint32_t index, uint32_t type,
             const unsigned char *copy, uint64_t size, uint64_t hot_offset)
{
  for (uint64_t at = 0; at + sizeof (uintptr_t) <= size
       && w->status == DUMPER_OK; at += sizeof (uintptr_t))
    {
      if (hot_offset != UINT64_MAX && reported_p (w, hot_offset + at))
        continue;
      uintptr_t value;
      memcpy (&value, copy + at, sizeof value);
      const char *target = lint_target (w, value);
      if (target == NULL)
        continue;
      w->lint_count++;
      if (!w->lint_strict && w->lint_count > LINT_LISTED_MAX)
        continue;
      char path[512], message[900];
      describe_path (w, index, path, sizeof path);
      snprintf (message, sizeof message, "object of type `%s' (reached via "
                "%s), field at +%" PRIu64 ": the unreported word 0x%" PRIxPTR
                " is an address in %s; it would dangle after a load "
                "(report the field from the type's trace function, with "
                "the trace kind that fits, or clear it in its fixup)",
                type_name (w, type), path, at, value, target);
      if (w->lint_strict)
        fail (w, DUMPER_E_HEAP_DESC, "%s [strict lint]", message);
      else if (w->warn)
        w->warn (message, w->warn_data);
    }
}

/* ------------------------------------------------------------------ */
/* The walk.  */

/* The HOT window.  HOT is written to the file as the walk goes, so
   its memory is a window, not the whole section.  Objects get their
   offsets when met and their bytes when traced, later, in stack order;
   almost all are traced soon after, within a few MiB of the end of HOT
   (at loadup scale 16, 22 thousand of 1.1 million objects lie more
   than 4 MiB back when traced).  So the window keeps the last
   HOT_WINDOW_KEEP bytes and writes out what lies before once it holds
   HOT_WINDOW_MAX; an object traced below the window is copied to a
   scratch buffer and written to its place on its own.  Bytes not yet
   traced go out as zeros and are overwritten then.  */
#define HOT_WINDOW_MAX ((uint64_t) 3 << 19)
#define HOT_WINDOW_KEEP ((uint64_t) 512 << 10)

/* Write HOT's bytes [hot_base, END) to the file and drop them from the
   window.  */
static bool
hot_flush (struct pdump_walk *w, uint64_t end)
{
  size_t gone = (size_t) (end - w->hot.base);
  size_t used = (size_t) (w->hot.bytes.size - w->hot.base);
  int err = common_pwrite_fully (w->hot_fd, w->hot.bytes.data, gone,
                                 w->hot_file_offset + w->hot.base);
  if (err != 0)
    {
      fail (w, err == ENOMEM ? DUMPER_E_NOMEM : DUMPER_E_IO,
            "%s: cannot write the image: %s", w->output, strerror (err));
      return false;
    }
  memmove (w->hot.bytes.data, w->hot.bytes.data + gone, used - gone);
  /* New objects find zeros (padding); the kernel's zero pages are only
     had by allocating again, so clear the tail once.  */
  memset (w->hot.bytes.data + used - gone, 0, gone);
  w->hot.base = end;
  return true;
}

/* The copy of an object traced below the window is kept for the next
   one up to this size, and freed when larger (scale 1 of dlisp has a
   1.2 MiB vector among them).  */
#define LATE_KEEP ((size_t) 64 << 10)

/* Late copies kept in the log in all, at most (scale 64 of dlisp has
   100 thousand late objects in 3 MiB, most of it one large vector,
   which goes to the file on its own).  */
#define LATE_LOG_MAX ((uint64_t) 16 << 20)

/* Make room for the copy of ITEM when the window has passed it: in the
   log when it is small and the log has room (the last late_log_count
   entry is then this copy's), else in w->late.  */
static bool
hot_late (struct pdump_walk *w, const struct pdump_work *item)
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
      if (!buf_reserve (&w->late_log, position + item->size))
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
          fail (w, DUMPER_E_NOMEM, "out of memory for a %" PRIu64
                "-byte object", item->size);
          return false;
        }
      w->late = late;
      w->late_capacity = item->size;
    }
  w->late_copy = w->late;
  return true;
 nomem:
  fail (w, DUMPER_E_NOMEM, "out of memory for the copy of a %" PRIu64
        "-byte object", item->size);
  return false;
}

static int
late_order (const void *a, const void *b)
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

/* Refuse interior pointer P, whose target is in no placed object.  */
static void
refuse_interior (struct pdump_walk *w, const struct pdump_interior *p)
{
  char path[512];
  describe_path (w, p->owner, path, sizeof path);
  fail (w, DUMPER_E_INTERIOR_POINTER, "object of type `%s' (reached via %s), "
        "field at +%" PRIu32 ": the interior pointer 0x%" PRIxPTR
        " (dumper_trace_interior) lies in no object the dump reaches by its "
        "start (nor one past the end of one)", type_name (w, w->types[p->owner]),
        path, p->field_offset, p->address);
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

static void
resolve_interiors (struct pdump_walk *w)
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
    fail (w, DUMPER_E_NOMEM, "out of memory resolving interior pointers");
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
        fail (w, DUMPER_E_NOMEM, "out of memory resolving interior "
              "pointers");
    }
  free (l.items);
  if (w->status == DUMPER_OK && w->patch_count > 1)
    qsort (w->patches, w->patch_count, sizeof *w->patches, patch_order);
}

/* Copy and trace everything on the stack.  */
static void
drain (struct pdump_walk *w)
{
  while (w->stack_size > 0 && w->status == DUMPER_OK)
    {
      if (w->hot_fd >= 0 && w->hot.bytes.size - w->hot.base > HOT_WINDOW_MAX
          && !hot_flush (w, (w->hot.bytes.size - HOT_WINDOW_KEEP)
                            & ~UINT64_C (4095)))
        return;
      struct pdump_work item = w->stack[--w->stack_size];
      const struct dumper_type *t = &w->heap->types[item.type];
      w->current = &item;
      w->current_late = item.offset < w->hot.base;
      if (w->current_late && !hot_late (w, &item))
        return;
      memcpy (current_copy (w), item.src, item.size);
      if (t->fixup)
        t->fixup (item.src, current_copy (w));
      trace_object (t, item.src, item.size, &w->tracer);
      handle_fields (w);
      if (w->status == DUMPER_OK)
        lint_object (w, item.index, item.type, current_copy (w), item.size,
                     item.offset);
      w->current = NULL;
      if (w->current_late && w->status == DUMPER_OK)
        {
          /* Its bytes below the window go to the file; any above belong
             to the window, which will write them (zeros there would
             overwrite the file otherwise).  */
          uint64_t below = item.size;
          if (item.offset + item.size > w->hot.base)
            {
              below = w->hot.base - item.offset;
              memcpy (w->hot.bytes.data, w->late_copy + below,
                      item.size - below);
            }
          if (w->late_copy != w->late)   /* in the log: laid over later */
            w->lates[w->late_log_count - 1].length = below;
          else
            {
              int err = common_pwrite_fully (w->hot_fd, w->late, below,
                                             w->hot_file_offset
                                             + item.offset);
              if (err != 0)
                fail (w, err == ENOMEM ? DUMPER_E_NOMEM : DUMPER_E_IO,
                      "%s: cannot write the image: %s", w->output,
                      strerror (err));
            }
          w->late_count++;
          if (w->late_capacity > LATE_KEEP)
            {
              /* A big object's copy goes now, not at the end of the
                 walk, where the dumping run's memory peaks.  */
              common_zfree (w->late, w->late_capacity);
              w->late = NULL;
              w->late_capacity = 0;
            }
        }
      w->current_late = false;
    }
}

/* Append HOT's group area to the main one, at group_start: its bytes,
   its image relocation bits, its executable and code relocations, its
   part of the object index.  The words that point into it keep their
   group-biased offsets; write.c moves them with the others.  */
static void
append_group (struct pdump_walk *w)
{
  struct pdump_hot_area *g = &w->group;
  w->group_start = align_up (w->hot.bytes.size, w->object_align);
  if (g->bytes.size == 0)
    return;
  uint64_t end = w->group_start + g->bytes.size;
  if (end > PDUMP_WALK_SECTION_MAX)
    {
      fail (w, DUMPER_E_NOMEM, "HOT passes %" PRIu64 " bytes, the most "
            "%u-byte words can address", PDUMP_WALK_SECTION_MAX,
            (unsigned) PDUMP_WORD_SIZE);
      return;
    }
  if (!buf_reserve (&w->hot.bytes, end - w->hot.base)
      || !bits_reserve (&w->hot, end)
      || !buf_append (&w->hot.index, g->index.data, g->index.size))
    {
      fail (w, DUMPER_E_NOMEM, "out of memory placing HOT's group");
      return;
    }
  memcpy (w->hot.bytes.data + (w->group_start - w->hot.base), g->bytes.data,
          g->bytes.size);
  w->hot.bytes.size = end;
  /* Objects are word-aligned, so the group starts at a whole word.  */
  uint64_t shift = w->group_start / PDUMP_WORD_SIZE;
  size_t words = (size_t) ((g->bytes.size / PDUMP_WORD_SIZE + 63) / 64);
  for (size_t i = 0; i < words; i++)
    for (uint64_t bits = g->image_bits[i]; bits; bits &= bits - 1)
      {
        uint64_t word = shift + i * 64 + (uint64_t) __builtin_ctzll (bits);
        w->hot.image_bits[word / 64] |= UINT64_C (1) << (word % 64);
      }
  const struct pdump_u32vec *from[2] = { &g->exe_relocs, &g->code_relocs };
  struct pdump_u32vec *to[2] = { &w->hot.exe_relocs, &w->hot.code_relocs };
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < from[k]->size; i++)
      {
        uint64_t word = shift + from[k]->data[i];
        if (word > UINT32_MAX || !u32_push (to[k], (uint32_t) word))
          {
            fail (w, DUMPER_E_NOMEM, "too many executable relocations");
            return;
          }
      }
}

static uint8_t
record_value_kind (enum value_kind kind)
{
  switch (kind)
    {
    case VALUE_PLAIN: return PDUMP_VALUE_IMMEDIATE;
    case VALUE_IMAGE: return PDUMP_VALUE_IMAGE;
    case VALUE_EXE: return PDUMP_VALUE_EXE;
    case VALUE_CODE: break;
    }
  return PDUMP_VALUE_NONE;
}

/* Turn registry entry I into a record, walking what it reaches.  The
   record names the entry's declaration by index; the loader takes the
   address it writes (or the hook it hands back) from the declaration,
   never from the image.  */
static void
walk_entry (struct pdump_walk *w, size_t i)
{
  const struct pdump_entry *e = &w->entries[i];
  struct pdump_record *r = &w->records[i];
  memset (r, 0, sizeof *r);
  w->current_root = i;
  if (e->decl >= w->decl_count)
    {
      fail (w, DUMPER_E_STATE, "registry entry %zu names declaration %" PRIu32
            " of %zu", i, e->decl, w->decl_count);
      return;
    }
  const struct dumper_decl *d = &w->decls[e->decl];
  uint64_t exe_offset = (uintptr_t) e->addr - w->exe.bias;
  r->kind = (uint8_t) d->kind;
  r->decl = e->decl;
  r->exe_offset = exe_offset;
  r->size = sizeof (uintptr_t);

  if (d->kind == DUMPER_DECL_HOOK)
    {
      r->exe_offset = (uintptr_t) d->fn - w->exe.bias;
      r->size = 0;
      r->value_kind = PDUMP_VALUE_NONE;
      if (!pdump_exe_code (&w->exe, r->exe_offset))
        fail (w, DUMPER_E_FOREIGN_POINTER, "after-load hook %zu (%s) at %p is "
              "not in the executable's code (hooks in shared libraries cannot "
              "be restored)", i, d->name, (void *) (uintptr_t) d->fn);
      return;
    }

  uint64_t size = d->kind == DUMPER_DECL_SCALAR ? d->size : sizeof (uintptr_t);
  if (!pdump_exe_writable (&w->exe, exe_offset, size))
    {
      fail (w, DUMPER_E_FOREIGN_POINTER, "registry entry %zu: the static %s at "
            "%p (%" PRIu64 " bytes) is not in the executable's writable data; "
            "only statics of the executable itself can be remembered",
            i, d->name, e->addr, size);
      return;
    }

  uint64_t encoded = 0;
  enum value_kind kind = VALUE_PLAIN;
  uintptr_t value;
  switch (d->kind)
    {
    case DUMPER_DECL_ROOT:
    case DUMPER_DECL_WORD:
      memcpy (&value, e->addr, sizeof value);
      if (!encode_word (w, value, 0, &encoded, &kind))
        return;
      break;
    case DUMPER_DECL_PTR:
      memcpy (&value, e->addr, sizeof value);
      if (d->type >= w->heap->type_count)
        {
          fail (w, DUMPER_E_REGISTRATION, "registry entry %zu: remembered "
                "pointer %s of type %d, not a type of the heap description",
                i, d->name, (int) d->type);
          return;
        }
      if (!encode_ptr (w, value, (int) d->type, 0, &encoded, &kind))
        return;
      break;
    case DUMPER_DECL_SCALAR:
      r->size = d->size;
      r->value = w->scalar_data.size;
      r->value_kind = PDUMP_VALUE_NONE;
      if (!buf_append (&w->scalar_data, e->addr, d->size)
          || !buf_reserve (&w->scalar_data, align_up (w->scalar_data.size, 8)))
        fail (w, DUMPER_E_NOMEM, "out of memory for remembered scalars");
      w->scalar_data.size = align_up (w->scalar_data.size, 8);
      return;
    default:
      fail (w, DUMPER_E_STATE, "registry entry %zu has kind %" PRIu32, i,
            d->kind);
      return;
    }
  r->value = encoded;
  r->value_kind = record_value_kind (kind);
  drain (w);
}

enum dumper_status
pdump_walk_run (struct pdump_walk *w, const struct pdump_write_request *req,
                int hot_fd, uint64_t hot_file_offset, int cold_fd)
{
  memset (w, 0, sizeof *w);
  w->hot_fd = hot_fd;
  w->hot_file_offset = hot_file_offset;
  w->cold_fd = cold_fd;
  if (cold_fd >= 0)
    {
      w->cold_hash = XXH3_createState ();
      if (w->cold_hash == NULL)
        return fail (w, DUMPER_E_NOMEM, "out of memory starting the dump");
      XXH3_64bits_reset (w->cold_hash);
    }
  w->output = req->output;
  w->tracer.word = queue_word;
  w->tracer.ptr = queue_ptr;
  w->tracer.bytes = queue_bytes;
  w->tracer.code = queue_code;
  w->tracer.sized = queue_sized;
  w->tracer.interior = queue_interior;
  w->heap = req->heap;
  w->decls = req->decls;
  w->decl_count = req->decl_count;
  w->entries = req->entries;
  w->entry_count = req->entry_count;
  w->detail = req->detail;
  w->detail_size = req->detail_size;
  w->warn = req->warn;
  w->warn_data = req->warn_data;
  w->heap_block = req->heap_block;
  w->heap_block_data = req->heap_block_data;
  w->lint_strict = req->options->strict_lint;
  w->tag_mask = ((uintptr_t) 1 << req->heap->tag_bits) - 1;
  w->object_align = (uint64_t) 1 << req->heap->tag_bits;
  if (w->object_align < PDUMP_ALIGN)
    w->object_align = PDUMP_ALIGN;
  w->image_start = pdump_range_.start;
  w->image_end = pdump_range_.end;

  if (req->heap->type_count < 0
      || req->heap->type_count >= (int) PDUMP_TYPE_BYTES)
    return fail (w, DUMPER_E_HEAP_DESC, "the heap description has %d types; "
                 "an image holds at most %u", req->heap->type_count,
                 PDUMP_TYPE_BYTES - 1);
  if (!pdump_exe_layout (&w->exe))
    return fail (w, DUMPER_E_EXE, "cannot read the executable's program headers");
  if (!common_maps_read (&w->maps))
    return fail (w, DUMPER_E_IO, "cannot read /proc/self/maps");
  /* The pre-dump check's set of the objects it reached, numbered: their
     entries go to an array (zero pages, touched as they are met), any
     other to the map.  */
  size_t expected = req->options->expected_objects, expected_others = expected;
  /* DUMPER_PDUMP_VISITED_MAP: every object in the map, as before
     2026-12-05 (the tests check both ways write the same bytes).  */
  if (req->reachable && req->reachable->numbered && req->reachable->count
      && !req->options->visited_map)
    {
      w->reachable = req->reachable;
      w->reached_count = req->reachable->count;
      w->reached = common_zalloc (w->reached_count * sizeof *w->reached,
                                  true);
      if (w->reached == NULL)
        return fail (w, DUMPER_E_NOMEM, "out of memory starting the dump");
      if (expected < w->reached_count)
        expected = w->reached_count;
      expected_others = expected > w->reached_count
                        ? expected - w->reached_count : 0;
    }
  w->records = calloc (w->entry_count ? w->entry_count : 1, sizeof *w->records);
  if (w->records == NULL
      || !common_code_targets_build (&w->code_targets, w->decls, w->decl_count)
      || !common_addrmap_init (&w->visited, expected_others
                               ? expected_others : 1 << 10, NULL)
      || !reserve_objects (w, expected)
      || !bits_reserve (&w->hot, 8))
    return fail (w, DUMPER_E_NOMEM, "out of memory starting the dump");
  w->record_count = w->entry_count;

  for (size_t i = 0; i < w->entry_count && w->status == DUMPER_OK; i++)
    walk_entry (w, i);
  if (w->status == DUMPER_OK && w->lint_count > LINT_LISTED_MAX && w->warn)
    {
      char message[200];
      snprintf (message, sizeof message, "%zu unreported words in all hold "
                "addresses of the executable or the heap; only the first %d "
                "are listed", w->lint_count, LINT_LISTED_MAX);
      w->warn (message, w->warn_data);
    }
  if (w->status == DUMPER_OK)
    append_group (w);
  if (w->status == DUMPER_OK && w->interior_count > 0)
    resolve_interiors (w);
  if (w->status == DUMPER_OK && w->hot_fd >= 0
      && w->hot.bytes.size > w->hot.base)
    hot_flush (w, w->hot.bytes.size);
  if (w->status == DUMPER_OK && w->late_log_count > 1)
    qsort (w->lates, w->late_log_count, sizeof *w->lates, late_order);
  if (w->status == DUMPER_OK && w->cold_fd >= 0 && cold_flush (w))
    w->cold_checksum = XXH3_64bits_digest (w->cold_hash);
  /* The layout needs no lookups by address: the map goes before it
     allocates.  */
  common_addrmap_free (&w->visited);
  common_addrmap_free (&w->sized_lengths);
  visited_free (w);
  return w->status;
}

static void
area_free (struct pdump_hot_area *a)
{
  buf_free (&a->bytes);
  size_t bits_bytes = a->bits_words * sizeof (uint64_t);
  common_zfree (a->image_bits, bits_bytes);
  common_zfree (a->exe_bits, bits_bytes);
  common_zfree (a->reported_bits, bits_bytes);
  free (a->exe_relocs.data);
  free (a->code_relocs.data);
  buf_free (&a->index);
}

void
pdump_walk_free (struct pdump_walk *w)
{
  area_free (&w->hot);
  area_free (&w->group);
  common_zfree (w->late, w->late_capacity);
  buf_free (&w->late_log);
  common_zfree (w->lates, w->late_log_capacity * sizeof *w->lates);
  buf_free (&w->cold);
  XXH3_freeState (w->cold_hash);
  common_code_targets_free (&w->code_targets);
  free (w->records);
  free (w->scalar_data.data);
  common_zfree (w->parents, w->object_capacity * sizeof *w->parents);
  common_zfree (w->types, w->object_capacity * sizeof *w->types);
  common_zfree (w->blocks, w->block_capacity * sizeof *w->blocks);
  buf_free (&w->index_cold);
  free (w->stack);
  free (w->interiors);
  free (w->patches);
  common_addrmap_free (&w->visited);
  common_addrmap_free (&w->sized_lengths);
  visited_free (w);
  common_maps_free (&w->maps);
  memset (w, 0, sizeof *w);
}
