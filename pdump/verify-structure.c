/* SPDX-License-Identifier: MIT */
/* pdump/verify-structure.c: the structural pass over a relocated heap,
   the last step of pdump_verify (verify.c).

   Owns pdump_verify_structure, which proves that a heap the loader
   hands to the host is well formed: every object where the object index
   says, of the size its type says, every pointer field pointing at the
   start of an object of the type the field or its tag says.  An
   owner-sized object (a type with no size function) has the size the
   index says, which every sized pointer to it must report; an interior
   pointer must point into an object of the image, or one past its end.
   The range checks of check.c stop an image from making the loader read or write outside the image; this pass
   stops it from making the *host* do so later, in its collector or its
   printer, which trust the heap completely.

   The pass is a mark phase without marking: the host's own trace
   functions report the fields, so it checks exactly the fields the host
   will follow.  It must not allocate (it runs inside start-up, possibly
   under a failing malloc): one scratch mapping, sized from the header
   before the pass starts, holds all it needs.

   Must not: call into the bridge, trust any byte of the image before
   it is checked, or read an object through the host's functions before
   its position (and, for the trace, its size) is verified.  */

#include <config.h>

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "common/bits.h"
#include "format.h"
#include "internal.h"
#include "verify.h"

/* What a size function may read of an object before its size is known
   (heap.h).  Objects closer than this to the end of their section are
   measured on a zero-padded copy, so a lying index cannot make the size
   function read past the mapping.  */
#define SIZE_READ_LIMIT 64

/* ------------------------------------------------------------------ */
/* The verifier's state.  */

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
  /* Object sizes by number, from the index (map_objects): the walk
     over the objects and the checks of sized and interior pointers
     read them here instead of decoding the index again.  Four bytes
     each (SIZES32) when the object sections span less than 4 GiB, so
     that no object can be larger, else eight (SIZES64).  */
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

static const char *
type_name (const struct verifier *v, unsigned type)
{
  if (type == PDUMP_TYPE_BYTES)
    return "byte block";
  if ((int) type < v->heap->type_count && v->heap->types[type].name)
    return v->heap->types[type].name;
  return "?";
}

/* Fail about the current object's field at FIELD_OFFSET holding VALUE
   (or about the current registry record): "<where>: <problem>".  The
   first failure wins.  */
static void fail_at (struct verifier *v, size_t field_offset, uintptr_t value,
                     const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5), cold, noinline));

static void
fail_at (struct verifier *v, size_t field_offset, uintptr_t value,
         const char *fmt, ...)
{
  if (v->status != DUMPER_OK)
    return;
  char problem[256];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (problem, sizeof problem, fmt, ap);
  va_end (ap);
  /* Image pointers are shown as image offsets: addresses say nothing
     to someone reading the file.  */
  uintptr_t span = v->cold_end;
  bool image = value - v->base < span;
  if (v->in_record)
    v->status = pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, v->detail,
                                  v->detail_size, v->path,
                                  "registry record %" PRIu64 ": value 0x%"
                                  PRIxPTR "%s: %s", v->cur_index,
                                  image ? value - v->base : value,
                                  image ? " (image offset)" : "", problem);
  else
    v->status = pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, v->detail,
                                  v->detail_size, v->path,
                                  "object %" PRIu64 " (`%s' at offset 0x%"
                                  PRIx64 "), field +%zu = 0x%" PRIxPTR
                                  "%s: %s", v->cur_index,
                                  type_name (v, v->cur_type), v->cur_offset,
                                  field_offset,
                                  image ? value - v->base : value,
                                  image ? " (image offset)" : "", problem);
  if (v->tracing)
    longjmp (v->escape, 1);
}

/* Fail about the object index or an object as a whole.  */
static enum dumper_status fail_index (struct verifier *v, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3), cold, noinline));

static enum dumper_status
fail_index (struct verifier *v, const char *fmt, ...)
{
  if (v->status != DUMPER_OK)
    return v->status;
  char problem[320];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (problem, sizeof problem, fmt, ap);
  va_end (ap);
  v->status = pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, v->detail,
                                v->detail_size, v->path, "%s", problem);
  return v->status;
}

static bool
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

static void
set_type (struct verifier *v, uint64_t number, unsigned type)
{
  if (v->types16)
    v->types16[number] = (uint16_t) type;
  else
    v->types8[number] = (uint8_t) (type == PDUMP_TYPE_BYTES ? NARROW_BYTES
                                   : type);
}

/* ------------------------------------------------------------------ */
/* The object index.  */

struct index_cursor
{
  const unsigned char *p, *end;
  uint64_t number;               /* objects read */
  uint64_t at;                   /* end of the previous object */
};

static inline bool
read_uleb (struct index_cursor *c, uint64_t *out)
{
  /* Nearly every type and size fits in one byte.  */
  if (c->p < c->end && *c->p < 0x80)
    {
      *out = *c->p++;
      return true;
    }
  uint64_t value = 0;
  for (unsigned shift = 0; shift < 64 && c->p < c->end; shift += 7)
    {
      unsigned char byte = *c->p++;
      if (shift == 63 && byte > 1)
        return false;
      value |= (uint64_t) (byte & 0x7f) << shift;
      if (!(byte & 0x80))
        {
          *out = value;
          return true;
        }
    }
  return false;
}

static uint64_t
align_up (uint64_t n, uint64_t align)
{
  return (n + align - 1) & ~(align - 1);
}

/* The next object of the index: its type, size and file offset,
   checked against the section it falls in.  */
static bool
index_next (struct verifier *v, struct index_cursor *c, unsigned *type,
            uint64_t *size, uint64_t *start)
{
  if (c->number == v->hot_count)
    c->at = v->cold_offset;
  bool hot = c->number < v->hot_count;
  uint64_t end = hot ? v->hot_end : v->cold_end;
  uint64_t t, s;
  if (!read_uleb (c, &t) || !read_uleb (c, &s))
    {
      fail_index (v, "object index: entry %" PRIu64 " is cut short",
                  c->number);
      return false;
    }
  bool bytes = t == PDUMP_TYPE_BYTES;
  if (!bytes && t >= (uint64_t) v->heap->type_count)
    {
      fail_index (v, "object index: object %" PRIu64 " has type %" PRIu64
                  "; this executable has %d types", c->number, t,
                  v->heap->type_count);
      return false;
    }
  bool traced = !bytes && (v->heap->types[t].size == NULL
                           ? v->heap->types[t].trace_sized != NULL
                           : v->heap->types[t].trace != NULL);
  if (traced != hot)
    {
      fail_index (v, "object index: object %" PRIu64 " (`%s') is in %s, "
                  "but its type %s pointers", c->number,
                  type_name (v, (unsigned) t), hot ? "HOT" : "COLD",
                  traced ? "has" : "has no");
      return false;
    }
  uint64_t at = align_up (c->at, bytes ? PDUMP_ALIGN : v->object_align);
  if (s == 0 || at > end || s > end - at)
    {
      fail_index (v, "object index: object %" PRIu64 " (`%s', %" PRIu64
                  " bytes at offset 0x%" PRIx64 ") does not fit in %s",
                  c->number, type_name (v, (unsigned) t), s, at,
                  hot ? "HOT" : "COLD");
      return false;
    }
  *type = (unsigned) t;
  *size = s;
  *start = at;
  c->at = at + s;
  c->number++;
  return true;
}

/* Pass 1: the index tiles HOT and COLD exactly; record every start and
   type.  */
static enum dumper_status
map_objects (struct verifier *v, const unsigned char *index, uint64_t index_size)
{
  struct index_cursor c = { index, index + index_size, 0, v->hot_offset };
  while (c.number < v->object_count)
    {
      unsigned type;
      uint64_t size, start;
      uint64_t number = c.number;
      if (!index_next (v, &c, &type, &size, &start))
        return v->status;
      uint64_t granule = (start - v->hot_offset) / PDUMP_GRANULE;
      v->starts[granule / 64] |= UINT64_C (1) << (granule % 64);
      set_type (v, number, type);
      if (v->granule_types)
        v->granule_types[granule] = (uint8_t) (type == PDUMP_TYPE_BYTES
                                               ? NARROW_BYTES : type + 1);
      if (v->sizes32)
        v->sizes32[number] = (uint32_t) size;
      else
        v->sizes64[number] = size;
      if (number + 1 == v->hot_count && c.at != v->hot_end)
        return fail_index (v, "object index: HOT objects end at offset 0x%"
                           PRIx64 ", HOT at 0x%" PRIx64, c.at, v->hot_end);
    }
  if (c.p != c.end)
    return fail_index (v, "object index: %zu bytes after the last object",
                       (size_t) (c.end - c.p));
  if ((v->hot_count == v->object_count ? v->cold_offset : c.at) != v->cold_end)
    return fail_index (v, "object index: COLD objects end at offset 0x%"
                       PRIx64 ", COLD at 0x%" PRIx64, c.at, v->cold_end);
  if (v->hot_count == 0 && v->hot_end != v->hot_offset)
    return fail_index (v, "object index: HOT holds no objects but is not "
                       "empty");
  uint32_t count = 0;
  for (size_t w = 0; w < v->start_words; w++)
    {
      v->rank[w] = count;
      count += (uint32_t) common_popcount64 (v->starts[w]);
    }
  return DUMPER_OK;
}

/* The object starting at file OFFSET: true with *NUMBER set, or false
   when OFFSET is not an object start.  */
static inline __attribute__ ((always_inline)) bool
object_at (const struct verifier *v, uint64_t offset, uint64_t *number)
{
  if (offset < v->hot_offset || offset >= v->cold_end
      || (offset - v->hot_offset) % PDUMP_GRANULE != 0)
    return false;
  uint64_t granule = (offset - v->hot_offset) / PDUMP_GRANULE;
  uint64_t word = v->starts[granule / 64];
  uint64_t bit = UINT64_C (1) << (granule % 64);
  if (!(word & bit))
    return false;
  *number = v->rank[granule / 64]
            + (uint64_t) common_popcount64 (word & (bit - 1));
  return true;
}

/* Whether an object starts at file OFFSET: true with its *TYPE set.
   The pointer checks' common path (object_at gives the number).  */
static inline __attribute__ ((always_inline)) bool
start_type (const struct verifier *v, uint64_t offset, unsigned *type)
{
  if (!v->granule_types)
    {
      uint64_t number;
      if (!object_at (v, offset, &number))
        return false;
      *type = type_of (v, number);
      return true;
    }
  if (offset < v->hot_offset || offset >= v->cold_end
      || (offset - v->hot_offset) % PDUMP_GRANULE != 0)
    return false;
  unsigned code = v->granule_types[(offset - v->hot_offset) / PDUMP_GRANULE];
  if (code == 0)
    return false;
  *type = code == NARROW_BYTES ? PDUMP_TYPE_BYTES : code - 1;
  return true;
}

/* The number of the object starting at file OFFSET, which start_type
   found, for a message.  */
static uint64_t
number_at (const struct verifier *v, uint64_t offset)
{
  uint64_t number = 0;
  (void) object_at (v, offset, &number);
  return number;
}

/* Bytes from the start of the object at OFFSET to the next object's
   start or its section's end: the most a byte block there may hold.  */
static uint64_t
room_at (const struct verifier *v, uint64_t offset)
{
  uint64_t end = offset < v->cold_offset ? v->hot_end : v->cold_end;
  for (uint64_t next = offset + PDUMP_GRANULE; next < end; next += PDUMP_GRANULE)
    {
      uint64_t granule = (next - v->hot_offset) / PDUMP_GRANULE;
      if (bit_of (v->starts, granule))
        return next - offset;
    }
  return end - offset;
}

/* The size of object NUMBER, as the index says (map_objects checked
   and recorded it).  */
static inline uint64_t
size_of (const struct verifier *v, uint64_t number)
{
  return v->sizes32 ? v->sizes32[number] : v->sizes64[number];
}

/* The object holding file OFFSET, or ending at it: the last start at or
   before it (so an address that ends one object and starts the next is
   the next one's start).  True with *NUMBER and *START set.  */
static bool
object_containing (struct verifier *v, uint64_t offset, uint64_t *number,
                   uint64_t *start)
{
  if (offset < v->hot_offset || offset > v->cold_end)
    return false;
  uint64_t granule = (offset - v->hot_offset) / PDUMP_GRANULE;
  if (granule >= (uint64_t) v->start_words * 64)
    granule = (uint64_t) v->start_words * 64 - 1;
  size_t w = (size_t) (granule / 64);
  uint64_t word = v->starts[w];
  if (granule % 64 != 63)
    word &= (UINT64_C (2) << (granule % 64)) - 1;
  while (word == 0)
    {
      if (w == 0)
        return false;
      word = v->starts[--w];
    }
  unsigned bit = 63 - (unsigned) __builtin_clzll (word);
  *start = v->hot_offset + ((uint64_t) w * 64 + bit) * PDUMP_GRANULE;
  *number = v->rank[w] + (uint64_t) common_popcount64 (word & ((UINT64_C (1)
                                                                << bit) - 1));
  return offset - *start <= size_of (v, *number);
}

/* ------------------------------------------------------------------ */
/* Field checks.  */

/* An image value at file OFFSET must start an object of type WANT (a
   type index, or DUMPER_TAG_BY_HEADER).  */
static inline __attribute__ ((always_inline)) void
check_image_target (struct verifier *v, size_t field_offset, uintptr_t value,
                    uint64_t offset, int want)
{
  unsigned type;
  if (!start_type (v, offset, &type))
    {
      fail_at (v, field_offset, value, "points inside an object or between "
               "objects, not at the start of one");
      return;
    }
  if (type == PDUMP_TYPE_BYTES)
    {
      fail_at (v, field_offset, value, "points to byte block %" PRIu64
               " where an object is expected", number_at (v, offset));
      return;
    }
  if (want == DUMPER_TAG_BY_HEADER)
    {
      int header = v->heap->header_type ((const void *) (v->base + (uintptr_t) offset));
      if (header < 0 || (unsigned) header != type)
        fail_at (v, field_offset, value, "object %" PRIu64 " is a `%s' in "
                 "the index but its header says type %d",
                 number_at (v, offset), type_name (v, type), header);
      /* A type with a tag of its own is always reached by that tag
         (heap.h); behind a header tag it would break the host's type
         predicates.  */
      if (v->own_tag[type])
        fail_at (v, field_offset, value, "object %" PRIu64 " is a `%s', "
                 "which has tag %" PRIuPTR " of its own, behind a header "
                 "tag", number_at (v, offset), type_name (v, type),
                 (uintptr_t) v->own_tag[type] - 1);
    }
  else if ((unsigned) want != type)
    fail_at (v, field_offset, value, "points to object %" PRIu64 ", a `%s', "
             "where the field says `%s'", number_at (v, offset),
             type_name (v, type), want >= 0 && want < v->heap->type_count
             ? type_name (v, (unsigned) want) : "?");
}

/* The TYPE of a byte block (no type).  */
#define NO_TYPE (-1000)

/* An executable value: ADDRESS .. ADDRESS + LENGTH must lie in the
   executable's segments; a tagged word or typed pointer (TYPE, or
   DUMPER_TAG_BY_HEADER) must also be the start of an element of an
   array the executable declared with DUMPER_DECLARE_OBJECTS for that
   type.  Otherwise an image could make the host read any executable
   memory (the GOT, a remembered scalar it filled itself) as an object,
   function pointers included.  */
static void
check_exe_target (struct verifier *v, size_t field_offset, uintptr_t value,
                  uintptr_t address, size_t length, int type)
{
  if (v->exe == NULL)
    return;
  if (!pdump_exe_contains (v->exe, address)
      || (length > 1 && (address + length - 1 < address
                         || !pdump_exe_contains (v->exe, address + length - 1))))
    {
      fail_at (v, field_offset, value, "points outside the executable's "
               "segments");
      return;
    }
  if (type == NO_TYPE || v->decls == NULL)
    return;
  const struct dumper_decl *d = NULL;
  for (size_t i = 0; i < v->decl_count && d == NULL; i++)
    if (v->decls[i].kind == DUMPER_DECL_OBJECTS
        && address >= (uintptr_t) v->decls[i].addr
        && address - (uintptr_t) v->decls[i].addr < v->decls[i].size)
      d = &v->decls[i];
  if (d == NULL)
    {
      fail_at (v, field_offset, value, "points into the executable outside "
               "every array of static objects it declares");
      return;
    }
  uintptr_t offset = address - (uintptr_t) d->addr;
  if (d->stride == 0 || offset % d->stride != 0)
    {
      fail_at (v, field_offset, value, "points %zu bytes into element %zu of "
               "the static objects %s", d->stride ? (size_t) (offset % d->stride)
               : (size_t) offset, d->stride ? (size_t) (offset / d->stride) : 0,
               d->name ? d->name : "?");
      return;
    }
  int t = type == DUMPER_TAG_BY_HEADER
          ? v->heap->header_type ((const void *) address) : type;
  if (t != d->type)
    fail_at (v, field_offset, value, "points to an element of %s, declared "
             "with type %d, as type %d", d->name ? d->name : "?",
             (int) d->type, t);
}

/* The HOT word of FIELD in the current object, after checking that the
   field lies inside it, is aligned and was not reported before.  */
static inline __attribute__ ((always_inline)) bool
field_word (struct verifier *v, const void *field, size_t *field_offset,
            uint64_t *word)
{
  uintptr_t f = (uintptr_t) field;
  uintptr_t obj = v->base + v->cur_offset;
  if (f < obj || f - obj > v->cur_size
      || v->cur_size - (f - obj) < PDUMP_WORD_SIZE
      || (f - obj) % PDUMP_WORD_SIZE != 0)
    {
      fail_at (v, 0, 0, "the trace function reported a field at +%" PRIdPTR
               ", outside the %" PRIu64 "-byte object or not aligned",
               (intptr_t) (f - obj), v->cur_size);
      return false;
    }
  *field_offset = f - obj;
  *word = (v->cur_offset + *field_offset - v->hot_offset) / PDUMP_WORD_SIZE;
  uint64_t bit = UINT64_C (1) << (*word % 64);
  if (v->reported[*word / 64] & bit)
    {
      fail_at (v, *field_offset, 0, "the trace function reported this field "
               "twice");
      return false;
    }
  v->reported[*word / 64] |= bit;
  return true;
}

/* A tagged word VALUE, relocated as IN_IMAGE / IN_EXE says.  */
static inline __attribute__ ((always_inline)) void
check_word (struct verifier *v, size_t field_offset, uintptr_t value,
            bool in_image, bool in_exe)
{
  uintptr_t tag = value & v->tag_mask;
  int type = v->heap->tag_types[tag];
  if (type == DUMPER_TAG_IMMEDIATE)
    {
      if (in_image || in_exe)
        fail_at (v, field_offset, value, "an immediate (tag %" PRIuPTR ") "
                 "is listed for relocation", tag);
    }
  else if (in_exe)
    check_exe_target (v, field_offset, value, value - tag, 1, type);
  else if (!in_image && (value != tag || type != DUMPER_TAG_BY_HEADER))
    fail_at (v, field_offset, value, "pointer tag %" PRIuPTR " but the "
             "word is not relocated", tag);
  else if (!in_image)
    ;   /* NULL behind a header tag: allowed, never relocated */
  else
    check_image_target (v, field_offset, value, value - tag - v->base, type);
}

static inline __attribute__ ((always_inline)) void
check_ptr (struct verifier *v, size_t field_offset, uintptr_t value, int type,
           bool in_image, bool in_exe)
{
  if ((type < 0 && type != DUMPER_TAG_BY_HEADER)
      || type >= v->heap->type_count)
    fail_at (v, field_offset, value, "the trace function reported type %d",
             type);
  else if (in_exe)
    check_exe_target (v, field_offset, value, value, 1, type);
  else if (in_image)
    check_image_target (v, field_offset, value, value - v->base, type);
  else if (value != 0)
    fail_at (v, field_offset, value, "a raw pointer that is not relocated");
}

/* A data field (word, pointer, byte block) must not be listed in
   RELOC_CODE: the loader stored a function's address in it.  */
static inline __attribute__ ((always_inline)) bool
not_code (struct verifier *v, size_t field_offset, uintptr_t value,
          uint64_t word)
{
  if (!bit_of (v->code_bits, word))
    return true;
  fail_at (v, field_offset, value, "a data field is listed in RELOC_CODE");
  return false;
}

/* How many HOT words ahead of the field being checked prefetch_ahead
   looks: about ten pointer fields of work, the time a load from memory
   takes.  */
#define PREFETCH_WORDS 48

/* Start loading the type map's byte for the target of the image
   pointer PREFETCH_WORDS words after HOT word W, which a later field
   will most likely check: the targets lie all over the image, and
   waiting for each one's byte took most of the pass.  A hint only:
   the word may be no field at all, its value anything.  */
static inline __attribute__ ((always_inline)) void
prefetch_ahead (const struct verifier *v, uint64_t w)
{
  uint64_t ahead = w + PREFETCH_WORDS;
  if (v->granule_types == NULL || ahead >= v->hot_words
      || !bit_of (v->image_bits, ahead))
    return;
  pdump_word value;
  memcpy (&value, v->bytes + v->hot_offset + ahead * PDUMP_WORD_SIZE,
          sizeof value);
  uint64_t granule = ((uint64_t) value - v->base - v->hot_offset)
                     / PDUMP_GRANULE;
  if (granule < (uint64_t) v->start_words * 64)
    __builtin_prefetch (v->granule_types + granule);
}

static void
on_word (struct dumper_tracer *t, const uintptr_t *field)
{
  struct verifier *v = (struct verifier *) t;
  size_t off;
  uint64_t w;
  if (v->status == DUMPER_OK && field_word (v, field, &off, &w)
      && not_code (v, off, *field, w))
    {
      prefetch_ahead (v, w);
      check_word (v, off, *field, bit_of (v->image_bits, w),
                  bit_of (v->exe_bits, w));
    }
}

static void
on_ptr (struct dumper_tracer *t, void *const *field, int type)
{
  struct verifier *v = (struct verifier *) t;
  size_t off;
  uint64_t w;
  if (v->status == DUMPER_OK && field_word (v, field, &off, &w)
      && not_code (v, off, (uintptr_t) *field, w))
    check_ptr (v, off, (uintptr_t) *field, type, bit_of (v->image_bits, w),
               bit_of (v->exe_bits, w));
}

/* A code pointer field is NULL, or listed in RELOC_CODE (and then
   pdump_relocate_code stored a declared code target in it); never an
   image or executable relocation.  A code field left out of RELOC_CODE
   would keep whatever number the image holds, and the host calls it.  */
static void
on_code (struct dumper_tracer *t, const void *field)
{
  struct verifier *v = (struct verifier *) t;
  size_t off;
  uint64_t w;
  if (v->status != DUMPER_OK || !field_word (v, field, &off, &w))
    return;
  uintptr_t value;
  memcpy (&value, field, sizeof value);
  if (bit_of (v->image_bits, w) || bit_of (v->exe_bits, w))
    fail_at (v, off, value, "a code pointer field is listed as an image or "
             "executable relocation, not in RELOC_CODE");
  else if (!bit_of (v->code_bits, w) && value != 0)
    fail_at (v, off, value, "a code pointer field that is not NULL and not "
             "in RELOC_CODE (it would be called as it is)");
}

static void
on_bytes (struct dumper_tracer *t, void *const *field, size_t length)
{
  struct verifier *v = (struct verifier *) t;
  size_t off;
  uint64_t w;
  if (v->status != DUMPER_OK || !field_word (v, field, &off, &w)
      || !not_code (v, off, (uintptr_t) *field, w))
    return;
  uintptr_t value = (uintptr_t) *field;
  unsigned type;
  if (bit_of (v->exe_bits, w))
    check_exe_target (v, off, value, value, length, NO_TYPE);
  else if (!bit_of (v->image_bits, w))
    {
      if (value != 0)
        fail_at (v, off, value, "a byte block pointer that is not relocated");
    }
  else if (!start_type (v, value - v->base, &type)
           || type != PDUMP_TYPE_BYTES)
    fail_at (v, off, value, "not the start of a byte block");
  else if (length > room_at (v, value - v->base))
    fail_at (v, off, value, "a block of %zu bytes does not fit in byte "
             "block %" PRIu64 " (%" PRIu64 " bytes to the next object)",
             length, number_at (v, value - v->base),
             room_at (v, value - v->base));
}

/* A pointer to an owner-sized block of TYPE reported with NBYTES: NULL,
   or relocated to the start of an object the index gives that type and
   exactly NBYTES (the index's size is the block's only length).  */
static void
on_sized (struct dumper_tracer *t, void *const *field, int type,
          size_t nbytes)
{
  struct verifier *v = (struct verifier *) t;
  size_t off;
  uint64_t w, number;
  if (v->status != DUMPER_OK || !field_word (v, field, &off, &w)
      || !not_code (v, off, (uintptr_t) *field, w))
    return;
  uintptr_t value = (uintptr_t) *field;
  if (type < 0 || type >= v->heap->type_count
      || v->heap->types[type].size != NULL)
    fail_at (v, off, value, "the trace function reported a sized pointer "
             "of type %d, not an owner-sized type", type);
  else if (bit_of (v->exe_bits, w))
    fail_at (v, off, value, "a sized block pointer into the executable");
  else if (!bit_of (v->image_bits, w))
    {
      if (value != 0)
        fail_at (v, off, value, "a sized block pointer that is not "
                 "relocated");
    }
  else if (!object_at (v, value - v->base, &number))
    fail_at (v, off, value, "a sized block pointer not at the start of an "
             "object");
  else if (type_of (v, number) != (unsigned) type)
    fail_at (v, off, value, "points to object %" PRIu64 ", a `%s', where the "
             "field says `%s'", number, type_name (v, type_of (v, number)),
             type_name (v, (unsigned) type));
  else if (size_of (v, number) != nbytes)
    fail_at (v, off, value, "the referrer says the `%s' block has %zu bytes; "
             "the index says %" PRIu64, type_name (v, (unsigned) type),
             nbytes, size_of (v, number));
}

/* An interior pointer: NULL, an executable address, or relocated into
   an object of the image, or one past its end.  */
static void
on_interior (struct dumper_tracer *t, void *const *field)
{
  struct verifier *v = (struct verifier *) t;
  size_t off;
  uint64_t w, number, start;
  if (v->status != DUMPER_OK || !field_word (v, field, &off, &w)
      || !not_code (v, off, (uintptr_t) *field, w))
    return;
  uintptr_t value = (uintptr_t) *field;
  if (bit_of (v->exe_bits, w))
    check_exe_target (v, off, value, value, 1, NO_TYPE);
  else if (!bit_of (v->image_bits, w))
    {
      if (value != 0)
        fail_at (v, off, value, "an interior pointer that is not "
                 "relocated");
    }
  else if (!object_containing (v, value - v->base, &number, &start))
    fail_at (v, off, value, "an interior pointer that lies in no object "
             "of the image (nor one past the end of one)");
}

/* Every relocated word is a reported field.  */
static enum dumper_status __attribute__ ((noinline))
check_unreported (struct verifier *v)
{
  for (size_t g = 0; g < v->hot_bitmap_words; g++)
    {
      uint64_t stray = (v->image_bits[g] | v->exe_bits[g] | v->code_bits[g])
                       & ~v->reported[g];
      if (stray)
        {
          uint64_t word = g * 64 + (uint64_t) __builtin_ctzll (stray);
          uint64_t offset = v->hot_offset + word * PDUMP_WORD_SIZE;
          pdump_word value;
          memcpy (&value, v->bytes + offset, sizeof value);
          return fail_index (v, "HOT word at offset 0x%" PRIx64 " (value 0x%"
                             PRIx64 ") is relocated but no trace function "
                             "reports it as a pointer field", offset,
                             (uint64_t) (value - v->base < v->cold_end
                                         ? value - v->base : value));
        }
    }
  return DUMPER_OK;
}

/* ------------------------------------------------------------------ */
/* Pass 2: sizes and fields, object by object.  */

/* Object NUMBER of TYPE, SIZE bytes at file offset START: its size as
   the host measures it, then its fields.  False when it is refused
   (the first bad field escapes instead, fail_at).  */
static bool
check_object (struct verifier *v, uint64_t number, unsigned type,
              uint64_t size, uint64_t start)
{
  const struct dumper_type *t = &v->heap->types[type];
  const unsigned char *obj = v->bytes + start;
  uint64_t section_end = start < v->cold_offset ? v->hot_end : v->cold_end;
  unsigned char edge[SIZE_READ_LIMIT] __attribute__ ((aligned (16)));
  const unsigned char *measured = obj;
  if (section_end - start < SIZE_READ_LIMIT)
    {
      memset (edge, 0, sizeof edge);
      memcpy (edge, obj, (size_t) (section_end - start));
      measured = edge;
    }
  /* An owner-sized block's only length is the index's (its referrers
     are checked against it, on_sized).  */
  uint64_t host_size = t->size ? t->size (measured) : size;
  if (host_size != size)
    {
      fail_index (v, "object %" PRIu64 " (`%s' at offset 0x%" PRIx64
                  "): the index says %" PRIu64 " bytes, its contents "
                  "say %" PRIu64 "%s", number, t->name, start, size,
                  host_size, host_size == 0 ? " (the host's size "
                  "function finds it malformed)" : "");
      return false;
    }
  if (t->size ? t->trace == NULL : t->trace_sized == NULL)
    return true;
  v->cur_index = number;
  v->cur_offset = start;
  v->cur_size = size;
  v->cur_type = type;
  v->tracing = true;
  if (t->size)
    t->trace (obj, &v->tracer);
  else
    t->trace_sized (obj, (size_t) size, &v->tracer);
  v->tracing = false;
  return true;
}

/* How far ahead of the object being checked its walk loads HOT.  */
#define HOT_AHEAD 1024

/* Every object in index order, placed as index_next placed it, from
   the types and sizes map_objects recorded (the index itself is not
   read again).  Apart from check_objects, which calls setjmp once for
   the whole walk: no local of a function that calls setjmp may live
   across it.  */
static void __attribute__ ((noinline))
trace_objects (struct verifier *v)
{
  uint64_t at = v->hot_offset;
  for (uint64_t number = 0; number < v->object_count; number++)
    {
      if (number == v->hot_count)
        at = v->cold_offset;
      unsigned type = type_of (v, number);
      uint64_t size = size_of (v, number);
      uint64_t start = align_up (at, type == PDUMP_TYPE_BYTES ? PDUMP_ALIGN
                                                          : v->object_align);
      at = start + size;
      /* HOT is read in order but left the cache since it was
         relocated; prefetch_ahead reads a little ahead of the trace.  */
      if (start + HOT_AHEAD < v->hot_end)
        __builtin_prefetch (v->bytes + start + HOT_AHEAD);
      if (type != PDUMP_TYPE_BYTES
          && !check_object (v, number, type, size, start))
        return;
    }
}

/* The first bad field a trace reports ends the walk through ESCAPE
   (fail_at).  */
static enum dumper_status
check_objects (struct verifier *v)
{
  if (setjmp (v->escape) == 0)
    trace_objects (v);
  v->tracing = false;
  if (v->status != DUMPER_OK)
    return v->status;
  return check_unreported (v);
}

/* Registry values obey the field rules.  */
static enum dumper_status
check_registry (struct verifier *v)
{
  const struct pdump_section *reg = &v->view->sections[PDUMP_SECTION_REGISTRY];
  v->in_record = true;
  for (uint64_t i = 0; i < reg->count && v->status == DUMPER_OK; i++)
    {
      struct pdump_record r;
      memcpy (&r, v->bytes + reg->offset + i * sizeof r, sizeof r);
      v->cur_index = i;
      bool in_image = r.value_kind == PDUMP_VALUE_IMAGE;
      bool in_exe = r.value_kind == PDUMP_VALUE_EXE;
      uintptr_t value = (uintptr_t) r.value + (in_image ? v->base
                                               : in_exe && v->exe ? v->exe->bias
                                               : 0);
      if (r.kind == DUMPER_DECL_ROOT || r.kind == DUMPER_DECL_WORD)
        check_word (v, 0, value, in_image, in_exe);
      else if (r.kind == DUMPER_DECL_PTR && v->decls && r.decl < v->decl_count)
        check_ptr (v, 0, value, (int) v->decls[r.decl].type, in_image, in_exe);
    }
  v->in_record = false;
  return v->status;
}

/* ------------------------------------------------------------------ */

static bool
reserve (struct verifier *v)
{
  bool narrow = v->heap->type_count < NARROW_BYTES;
  size_t starts = v->start_words * 8;
  size_t rank = (v->start_words * 4 + 7) / 8 * 8;
  size_t types = (size_t) ((v->object_count * (narrow ? 1 : 2) + 7) / 8 * 8);
  size_t own_tag = ((size_t) v->heap->type_count + 7) / 8 * 8;
  size_t granule_types = narrow ? v->start_words * 64 : 0;
  size_t hot = v->hot_bitmap_words * 8;
  bool small = v->cold_end - v->hot_offset <= UINT32_MAX;
  size_t sizes = (size_t) v->object_count * (small ? 4 : 8);
  sizes = (sizes + 7) / 8 * 8;
  v->scratch_size = starts + rank + types + granule_types + own_tag + 3 * hot
                    + sizes;
  v->scratch = mmap (NULL, v->scratch_size ? v->scratch_size : 8,
                     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (v->scratch == MAP_FAILED)
    return false;
  unsigned char *p = v->scratch;
  v->starts = (uint64_t *) p;
  p += starts;
  v->rank = (uint32_t *) p;
  p += rank;
  if (narrow)
    v->types8 = p;
  else
    v->types16 = (uint16_t *) p;
  p += types;
  if (narrow)
    v->granule_types = p;
  p += granule_types;
  v->own_tag = p;
  p += own_tag;
  v->reported = (uint64_t *) p;
  v->exe_bits = (uint64_t *) (p + hot);
  v->code_bits = (uint64_t *) (p + 2 * hot);
  if (small)
    v->sizes32 = (uint32_t *) (p + 3 * hot);
  else
    v->sizes64 = (uint64_t *) (p + 3 * hot);
  /* Lowest tag first, as the message names it.  */
  for (uintptr_t tag = v->tag_mask + 1; tag-- > 0;)
    if (v->heap->tag_types[tag] >= 0
        && v->heap->tag_types[tag] < v->heap->type_count)
      v->own_tag[v->heap->tag_types[tag]] = (uint8_t) (tag + 1);
  return true;
}

enum dumper_status
pdump_verify_structure (const struct pdump_view *view, unsigned char *bytes,
                        const void *reloc_code, const struct pdump_exe *exe,
                        const struct dumper_heap *heap,
                        const struct dumper_decl *decls, size_t decl_count,
                        const char *path, char *detail, size_t detail_size)
{
  const struct pdump_header *h = &view->header;
  const struct pdump_section *s = view->sections;
  struct verifier v;
  memset (&v, 0, sizeof v);
  v.tracer.word = on_word;
  v.tracer.ptr = on_ptr;
  v.tracer.bytes = on_bytes;
  v.tracer.code = on_code;
  v.tracer.sized = on_sized;
  v.tracer.interior = on_interior;
  v.decls = decls;
  v.decl_count = decl_count;
  v.view = view;
  v.bytes = bytes;
  v.base = (uintptr_t) bytes;
  v.exe = exe;
  v.heap = heap;
  v.path = path;
  v.detail = detail;
  v.detail_size = detail_size;
  v.status = DUMPER_OK;

  if (h->type_count != (uint32_t) heap->type_count
      || h->tag_bits != heap->tag_bits)
    return fail_index (&v, "the image describes %u types and %u tag bits; "
                       "this executable has %d and %u", h->type_count,
                       h->tag_bits, heap->type_count, heap->tag_bits);
  enum dumper_status st
    = pdump_check_section_sum (view, PDUMP_SECTION_OBJECTS,
                               bytes + s[PDUMP_SECTION_OBJECTS].offset, path,
                               detail, detail_size);
  if (st != DUMPER_OK)
    return st;

  v.tag_mask = ((uintptr_t) 1 << heap->tag_bits) - 1;
  v.object_align = (uint64_t) 1 << heap->tag_bits;
  if (v.object_align < PDUMP_ALIGN)
    v.object_align = PDUMP_ALIGN;
  v.hot_offset = s[PDUMP_SECTION_HOT].offset;
  v.hot_end = v.hot_offset + s[PDUMP_SECTION_HOT].size;
  v.cold_offset = s[PDUMP_SECTION_COLD].offset;
  v.cold_end = v.cold_offset + s[PDUMP_SECTION_COLD].size;
  v.object_count = h->object_count;
  v.hot_count = s[PDUMP_SECTION_OBJECTS].count;
  uint64_t span = v.cold_end - v.hot_offset;
  /* The counts agree (HOT's and COLD's make the header's, OBJECTS
     indexes HOT's) and every object takes at least one granule of the
     object sections: pdump_check_header, which made the view, refused
     anything else (issue 32), so they bound the scratch by the file's
     size.  Objects are numbered in 32 bits here.  */
  if (v.object_count > UINT32_MAX)
    return fail_index (&v, "%" PRIu64 " objects, more than the verifier "
                       "numbers", v.object_count);
  /* Granules rounded up: COLD may end inside one (a short last byte
     block), and an object may start there.  */
  v.start_words = (size_t) (((span + PDUMP_GRANULE - 1) / PDUMP_GRANULE
                             + 63) / 64);
  v.hot_words = s[PDUMP_SECTION_HOT].size / PDUMP_WORD_SIZE;
  v.hot_bitmap_words = (size_t) ((v.hot_words + 63) / 64);
  v.image_bits = (const uint64_t *) (bytes + s[PDUMP_SECTION_RELOC_IMAGE].offset);
  if (!reserve (&v))
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                             "cannot allocate %zu bytes to verify the heap",
                             v.scratch_size);

  /* RELOC_EXE as a bitmap (pdump_relocate checked it is sorted and
     inside HOT).  */
  const unsigned char *exe_list = bytes + s[PDUMP_SECTION_RELOC_EXE].offset;
  for (uint64_t i = 0; i < s[PDUMP_SECTION_RELOC_EXE].count; i++)
    {
      uint32_t w;
      memcpy (&w, exe_list + i * 4, sizeof w);
      v.exe_bits[w / 64] |= UINT64_C (1) << (w % 64);
    }
  /* RELOC_CODE likewise (pdump_relocate_code checked it).  */
  for (uint64_t i = 0; i < s[PDUMP_SECTION_RELOC_CODE].count; i++)
    {
      uint32_t w;
      memcpy (&w, (const unsigned char *) reloc_code + i * 4, sizeof w);
      v.code_bits[w / 64] |= UINT64_C (1) << (w % 64);
    }

  const unsigned char *index = bytes + s[PDUMP_SECTION_OBJECTS].offset;
  uint64_t index_size = s[PDUMP_SECTION_OBJECTS].size;
  if (map_objects (&v, index, index_size) == DUMPER_OK
      && check_objects (&v) == DUMPER_OK)
    check_registry (&v);
  munmap (v.scratch, v.scratch_size ? v.scratch_size : 8);
  return v.status;
}

