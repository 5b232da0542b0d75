/* SPDX-License-Identifier: MIT */
/* pdump/verify-pass.h: the state of the structural pass, shared by its
   two files: verify-index.c (the object index and the tables built
   from it) and verify-structure.c (sizes, fields, the registry).  Not
   for anything else: pdump_verify_structure (verify.h) is the pass's
   one entry.  */

#ifndef DUMPER_PDUMP_VERIFY_PASS_H
#define DUMPER_PDUMP_VERIFY_PASS_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"
#include "verify.h"

struct verifier
{
  struct dumper_tracer tracer;   /* first: trace callbacks get it */

  const struct pdump_view *view;
  const unsigned char *bytes;
  uintptr_t base;                /* (uintptr_t) bytes */
  const struct dumper_decl *decls;   /* may be NULL */
  size_t decl_count;
  const struct pdump_exe *exe;
  const struct dumper_heap *heap;
  uintptr_t tag_mask;
  uint64_t object_align;
  uint64_t hot_offset, hot_end, cold_offset, cold_end;

  /* The relocation tables (checked by pdump_relocate).  */
  const uint64_t *image_bits;    /* one bit per HOT word */

  /* Scratch, one mapping.  */
  void *scratch;
  size_t scratch_size;
  uint64_t *starts;              /* one bit per 8 bytes of objects */
  uint32_t *rank;                /* object starts before each starts word */
  /* Types by object number: one byte each when the host has fewer
     than 255 types (TYPES8, with NARROW_BYTES for a byte block), else
     two (TYPES16): the pass looks one up for every pointer it checks,
     at random, so the smaller table stays in the cache.  */
  uint8_t *types8;
  uint16_t *types16;
  /* With TYPES8: by granule, 0 where no object starts, else the type
     of the object that starts there (1 + the type, NARROW_BYTES for a
     byte block).  A pointer's target is checked with one load here,
     where the start bitmap, its rank and TYPES8 take three, two of
     them dependent; object numbers (rank) are then counted only for
     messages and sized pointers.  */
  uint8_t *granule_types;
  /* By type: 1 + the lowest tag that names it, 0 when none does.  */
  uint8_t *own_tag;
  uint64_t *reported;            /* HOT words a trace reported */
  uint64_t *exe_bits;            /* HOT words listed in RELOC_EXE */
  uint64_t *code_bits;           /* HOT words listed in RELOC_CODE */
  /* Object sizes by number, from the index (pdump_verify_map_objects):
     the walk over the objects and the checks of sized and interior
     pointers read them here instead of decoding the index again.  Four
     bytes each (SIZES32) when the object sections span less than 4 GiB,
     so that no object can be larger, else eight (SIZES64).  */
  uint32_t *sizes32;
  uint64_t *sizes64;
  size_t start_words, hot_bitmap_words;
  uint64_t hot_words;
  uint64_t object_count, hot_count;

  /* The object being traced, or the record being checked.  */
  bool in_record;
  /* While a trace function runs: the first bad field ends it through
     ESCAPE.  A trace function's loops are bounded by the object's own
     fields (a vector's length), which a crafted image controls: a length
     whose byte size wraps around passes the size check, and the trace
     would report fields for ever.  Trace functions are pure readers
     (heap.h), so abandoning one is safe.  */
  bool tracing;
  jmp_buf escape;
  uint64_t cur_index;
  uint64_t cur_offset;           /* file offset */
  uint64_t cur_size;
  unsigned cur_type;

  enum dumper_status status;
  const char *path;
  char *detail;
  size_t detail_size;
};

static inline const char *
type_name (const struct verifier *v, unsigned type)
{
  if (type == PDUMP_TYPE_BYTES)
    return "byte block";
  if ((int) type < v->heap->type_count && v->heap->types[type].name)
    return v->heap->types[type].name;
  return "?";
}


/* Fail about the object index or an object as a whole (the first
   failure wins): V->status, and the message in V->detail.  */
enum dumper_status pdump_verify_fail (struct verifier *v, const char *fmt,
                                      ...)
  __attribute__ ((format (printf, 2, 3), cold, noinline));

static inline bool
bit_of (const uint64_t *bits, uint64_t n)
{
  return (bits[n / 64] >> (n % 64)) & 1;
}

/* A byte block's type in TYPES8.  */
#define NARROW_BYTES 0xFF

static inline unsigned
type_of (const struct verifier *v, uint64_t number)
{
  if (v->types16)
    return v->types16[number];
  unsigned type = v->types8[number];
  return type == NARROW_BYTES ? PDUMP_TYPE_BYTES : type;
}

static inline void
set_type (struct verifier *v, uint64_t number, unsigned type)
{
  if (v->types16)
    v->types16[number] = (uint16_t) type;
  else
    v->types8[number] = (uint8_t) (type == PDUMP_TYPE_BYTES ? NARROW_BYTES
                                   : type);
}

/* The size of object NUMBER, as the index says (pdump_verify_map_objects
   checked and recorded it).  */
static inline uint64_t
size_of (const struct verifier *v, uint64_t number)
{
  return v->sizes32 ? v->sizes32[number] : v->sizes64[number];
}

static inline uint64_t
align_up (uint64_t n, uint64_t align)
{
  return (n + align - 1) & ~(align - 1);
}

/* verify-index.c.  The scratch mapping for V's tables (false when it
   cannot be had); the index read into them and checked to tile HOT
   and COLD (pass 1).  */
bool pdump_verify_reserve (struct verifier *v);
enum dumper_status pdump_verify_map_objects (struct verifier *v,
                                             const unsigned char *index,
                                             uint64_t index_size);

/* The object starting at file OFFSET: true with *NUMBER set, or false
   when OFFSET is not an object start.  */
bool pdump_verify_object_at (const struct verifier *v, uint64_t offset,
                             uint64_t *number);
/* The number of the object starting at OFFSET (one does), for a
   message.  */
uint64_t pdump_verify_number_at (const struct verifier *v, uint64_t offset);
/* Bytes from the start of the object at OFFSET to the next object's
   start or its section's end: the most a byte block there may hold.  */
uint64_t pdump_verify_room_at (const struct verifier *v, uint64_t offset);
/* The object holding file OFFSET, or ending at it: the last start at
   or before it (so an address that ends one object and starts the next
   is the next one's start).  True with *NUMBER and *START set.  */
bool pdump_verify_object_containing (const struct verifier *v,
                                     uint64_t offset, uint64_t *number,
                                     uint64_t *start);

#endif /* DUMPER_PDUMP_VERIFY_PASS_H */
