/* SPDX-License-Identifier: MIT */
/* pdump/walkint.h: what the files of the writer's walk share (walk.c,
   trace.c, visit.c, encode.c, interior.c, stream.c, lint.c, buf.c), and
   nothing else includes: the walk's constants, small inline helpers, and the
   functions one file of it calls in another.  walk.h is the walk's
   interface to write.c.  */

#ifndef DUMPER_PDUMP_WALKINT_H
#define DUMPER_PDUMP_WALKINT_H

#include <stdbool.h>
#include <stdint.h>

#include "walk.h"

#define NO_PARENT UINT32_MAX
#define MAX_OBJECT_SIZE (UINT64_C (1) << 40)

/* Whether an object of SIZE bytes is past MAX_OBJECT_SIZE (a function:
   with 4-byte words a size_t never is, and the comparison written in
   place is a -Wtype-limits warning).  */
static inline bool
too_big (uint64_t size)
{
  return size > MAX_OBJECT_SIZE;
}

/* Whether FIELD is a whole word inside the SIZE bytes at START: the
   one bounds test of every tracer of the walk (trace.c, and visit.c's
   probe), which must not read a field a trace reported outside its
   object.  */
static inline bool
pdump_walk_field_inside (uintptr_t start, uint64_t size, uintptr_t field)
{
  return field >= start && field - start <= size
         && size - (field - start) >= sizeof (uintptr_t);
}

static inline uint64_t
align_up (uint64_t n, uint64_t alignment)
{
  return (n + alignment - 1) & ~(alignment - 1);
}

/* The area of HOT that walk offset AT lies in, and *REL, AT in it.  */
static inline struct pdump_hot_area *
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

static inline bool
reported_p (struct pdump_walk *w, uint64_t hot_offset)
{
  uint64_t word;
  const struct pdump_hot_area *a = area_of (w, hot_offset, &word);
  word /= PDUMP_WORD_SIZE;
  return (a->reported_bits[word / 64] >> (word % 64)) & 1;
}

enum where { IN_HEAP, IN_EXE, FOREIGN };

static inline uint32_t
current_index (const struct pdump_walk *w)
{
  return w->current ? w->current->index : NO_PARENT;
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

static inline uint64_t
visited_pack (uint32_t type, uint64_t walk_offset)
{
  uint64_t area = walk_offset >= PDUMP_COLD_BIAS ? VISITED_COLD
                  : walk_offset >= PDUMP_GROUP_BIAS ? VISITED_GROUP : 0;
  uint64_t offset = area == VISITED_COLD ? walk_offset - PDUMP_COLD_BIAS
                    : area ? walk_offset - PDUMP_GROUP_BIAS : walk_offset;
  return (offset / 8) << VISITED_SHIFT | VISITED_MET | area | type;
}

static inline uint64_t
visited_offset (uint64_t value)
{
  uint64_t offset = (value >> VISITED_SHIFT) * 8;
  return value & VISITED_COLD ? offset + PDUMP_COLD_BIAS
         : value & VISITED_GROUP ? offset + PDUMP_GROUP_BIAS : offset;
}

enum value_kind { VALUE_PLAIN, VALUE_IMAGE, VALUE_EXE, VALUE_CODE };

/* The forms a pointer field takes, for messages and the field queue.  */
enum field_form { FORM_WORD, FORM_PTR, FORM_BYTES, FORM_CODE, FORM_SIZED,
                  FORM_INTERIOR };

/* How many findings are described one by one; the rest are counted.  */
#define LINT_LISTED_MAX 16

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

/* The copy of an object traced below the window is kept for the next
   one up to this size, and freed when larger (scale 1 of dlisp has a
   1.2 MiB vector among them).  */
#define LATE_KEEP ((size_t) 64 << 10)

/* The copy of the object being traced.  Computed each time: the window
   moves when it grows (visiting a field places new objects).  */
static inline unsigned char *
current_copy (const struct pdump_walk *w)
{
  if (w->current_late)
    return w->late_copy;
  if (w->current->offset >= PDUMP_GROUP_BIAS)
    return w->group.bytes.data + (w->current->offset - PDUMP_GROUP_BIAS);
  return w->hot.bytes.data + (w->current->offset - w->hot.base);
}

/* ------------------------------------------------------------------ */
/* Shared between the walk's files.  */

/* walk.c: errors.  */
/* What pdump_walk_unchecked adds to the rule it found broken.  */
#define PDUMP_WALK_UNCHECKED ", though the pre-dump check passed this " \
  "heap: a fixup that changes a pointer field, or a trace function " \
  "that reports differently on another call (heap.h forbids both)"
enum dumper_status pdump_walk_unchecked (struct pdump_walk *w,
                                         size_t field_offset,
                                         const char *rule);
enum dumper_status pdump_walk_fail (struct pdump_walk *w,
                                    enum dumper_status status,
                                    const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));
const char *pdump_walk_type_name (const struct pdump_walk *w, uint32_t type);
void pdump_walk_describe_path (const struct pdump_walk *w, uint32_t index,
                               char *buf, size_t size);
enum dumper_status pdump_walk_fail_field (struct pdump_walk *w,
                                          enum dumper_status status,
                                          size_t field_offset,
                                          const char *problem);

/* trace.c: the tracer, its field queue.  */
void pdump_walk_init_tracer (struct dumper_tracer *t);
void pdump_walk_handle_fields (struct pdump_walk *w);
void pdump_walk_store (struct pdump_walk *w, size_t field_offset,
                       uint64_t encoded, enum value_kind kind);
bool pdump_walk_field_value (struct pdump_walk *w, const void *field,
                             size_t *off, uintptr_t *value);

/* buf.c: growable buffers and bitmaps.  */
bool pdump_buf_reserve (struct pdump_buf *b, size_t size);
void pdump_buf_free (struct pdump_buf *b);
bool pdump_buf_append (struct pdump_buf *b, const void *bytes, size_t size);
bool pdump_bits_reserve (struct pdump_hot_area *a, uint64_t area_bytes);
bool pdump_u32_push (struct pdump_u32vec *v, uint32_t x);

/* visit.c: meeting an object, placing it, the object index.  */
enum where pdump_walk_locate (struct pdump_walk *w, uintptr_t address,
                              uint64_t size, char *why, size_t why_size);
bool pdump_walk_reserve_objects (struct pdump_walk *w, size_t count);
void pdump_walk_visited_free (struct pdump_walk *w);
uint64_t *pdump_walk_visited_entry (struct pdump_walk *w, uintptr_t address,
                                    bool *added);
bool pdump_walk_record_object (struct pdump_walk *w, uint64_t *entry,
                               uint32_t type, uint64_t size, uint64_t at);
unsigned char *pdump_walk_cold_copy (struct pdump_walk *w, const void *src,
                                     uint64_t length, uint64_t align,
                                     uint64_t *at);
bool pdump_walk_revisit (struct pdump_walk *w, uint64_t seen, uint32_t type,
                         size_t field_offset, uint64_t *offset);
void pdump_walk_trace_object (const struct dumper_type *t,
                              const void *address, uint64_t size,
                              struct dumper_tracer *tracer);
bool pdump_walk_place_new (struct pdump_walk *w, uint64_t *entry,
                           uintptr_t address, const struct dumper_type *t,
                           uint32_t type, uint64_t size, uint64_t *offset);
bool pdump_walk_visit (struct pdump_walk *w, uintptr_t address, uint32_t type,
                       size_t field_offset, uint64_t *offset);

/* stream.c: HOT and COLD written to the file as the walk goes.  */
bool pdump_walk_cold_flush (struct pdump_walk *w);
unsigned char *pdump_walk_cold_place (struct pdump_walk *w, uint64_t size,
                                      uint64_t align, uint64_t *at);
bool pdump_walk_hot_flush (struct pdump_walk *w, uint64_t end);
bool pdump_walk_hot_late (struct pdump_walk *w,
                          const struct pdump_work *item);
int pdump_walk_late_order (const void *a, const void *b);

/* encode.c: pointer fields' values in the image.  */
bool pdump_walk_encode_word (struct pdump_walk *w, uintptr_t value,
                             size_t field_offset, uint64_t *encoded,
                             enum value_kind *kind);
bool pdump_walk_encode_ptr (struct pdump_walk *w, uintptr_t value, int type,
                            size_t field_offset, uint64_t *encoded,
                            enum value_kind *kind);
bool pdump_walk_encode_bytes (struct pdump_walk *w, uintptr_t value,
                              size_t length, size_t field_offset,
                              uint64_t *encoded, enum value_kind *kind);
bool pdump_walk_encode_sized (struct pdump_walk *w, uintptr_t value,
                              int type, size_t nbytes, size_t field_offset,
                              uint64_t *encoded, enum value_kind *kind);
void pdump_walk_trace_code (struct dumper_tracer *t, const void *field);

/* interior.c: interior pointers.  */
void pdump_walk_trace_interior (struct dumper_tracer *t, void *const *field);
void pdump_walk_resolve_interiors (struct pdump_walk *w);

/* lint.c: the lint of unreported words.  */
void pdump_walk_lint_object (struct pdump_walk *w, uint32_t index,
                             uint32_t type, const unsigned char *copy,
                             uint64_t size, uint64_t hot_offset);

#endif /* DUMPER_PDUMP_WALKINT_H */
