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
   The range checks of check.c stop an image from making the loader read
   or write outside the image; this pass stops it from making the *host*
   do so later, in its collector or its printer, which trust the heap
   completely.  The object index and the tables built from it are
   verify-index.c's.

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

#include "common/layout.h"
#include "internal.h"
#include "verify-pass.h"

/* What a size function may read of an object before its size is known
   (heap.h).  Objects closer than this to the end of their section are
   measured on a zero-padded copy, so a lying index cannot make the size
   function read past the mapping.  */
#define SIZE_READ_LIMIT 64

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

enum dumper_status
pdump_verify_fail (struct verifier *v, const char *fmt, ...)
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

/* ------------------------------------------------------------------ */
/* Field checks.  */

/* Whether an object starts at file OFFSET: true with its *TYPE set.
   The pointer checks' common path (pdump_verify_object_at gives the
   number).  */
static inline __attribute__ ((always_inline)) bool
start_type (const struct verifier *v, uint64_t offset, unsigned *type)
{
  if (!v->granule_types)
    {
      uint64_t number;
      if (!pdump_verify_object_at (v, offset, &number))
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
               " where an object is expected",
               pdump_verify_number_at (v, offset));
      return;
    }
  if (want == DUMPER_TAG_BY_HEADER)
    {
      int header = v->heap->header_type ((const void *) (v->base + (uintptr_t) offset));
      if (header < 0 || (unsigned) header != type)
        fail_at (v, field_offset, value, "object %" PRIu64 " is a `%s' in "
                 "the index but its header says type %d",
                 pdump_verify_number_at (v, offset), type_name (v, type),
                 header);
      /* A type with a tag of its own is always reached by that tag
         (heap.h); behind a header tag it would break the host's type
         predicates.  */
      if (v->own_tag[type])
        fail_at (v, field_offset, value, "object %" PRIu64 " is a `%s', "
                 "which has tag %" PRIuPTR " of its own, behind a header "
                 "tag", pdump_verify_number_at (v, offset),
                 type_name (v, type),
                 (uintptr_t) v->own_tag[type] - 1);
    }
  else if ((unsigned) want != type)
    fail_at (v, field_offset, value, "points to object %" PRIu64 ", a `%s', "
             "where the field says `%s'", pdump_verify_number_at (v, offset),
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
  else if (length > pdump_verify_room_at (v, value - v->base))
    fail_at (v, off, value, "a block of %zu bytes does not fit in byte "
             "block %" PRIu64 " (%" PRIu64 " bytes to the next object)",
             length, pdump_verify_number_at (v, value - v->base),
             pdump_verify_room_at (v, value - v->base));
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
  else if (!pdump_verify_object_at (v, value - v->base, &number))
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
  else if (!pdump_verify_object_containing (v, value - v->base, &number,
                                            &start))
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
          return pdump_verify_fail (v, "HOT word at offset 0x%" PRIx64
                                    " (value 0x%" PRIx64 ") is relocated but "
                                    "no trace function reports it as a "
                                    "pointer field", offset,
                                    (uint64_t) (value - v->base < v->cold_end
                                                ? value - v->base : value));
        }
    }
  return DUMPER_OK;
}

/* ------------------------------------------------------------------ */
/* Pass 2: sizes and fields, object by object.  */

/* Objects of a type with a layout (heap.h, struct dumper_layout) are
   checked from it, without calling the host's size and trace functions:
   the same checks, in the same order, as for any other object (the
   size, then every field as on_word checks a tagged word), but a loop
   over the layout's words instead of a call per object and a callback
   per field.  The pre-dump check proved, for every object the dump
   saved, that the layout says what size and trace say (bridge/
   refcheck.c); heap.h makes the host promise it for malformed objects
   too.  */

/* The fields of object NUMBER of TYPE, SIZE bytes at file offset START,
   are checked from now on: messages name it, and the first bad field
   ends the walk (fail_at).  */
static inline void
begin_fields (struct verifier *v, uint64_t number, unsigned type,
              uint64_t size, uint64_t start)
{
  v->cur_index = number;
  v->cur_offset = start;
  v->cur_size = size;
  v->cur_type = type;
  v->tracing = true;
}

/* A tagged word of a layout object, HOT word W at FIELD_OFFSET in it:
   the common cases (an immediate, not relocated; a pointer relocated to
   the start of an object of its tag's type) inline, everything else
   through the checks on_word makes, which word the failure.  */
static inline __attribute__ ((always_inline)) void
layout_word (struct verifier *v, uint64_t w, size_t field_offset)
{
  pdump_word value;
  memcpy (&value, v->bytes + v->hot_offset + w * PDUMP_WORD_SIZE,
          sizeof value);
  uint64_t bit = UINT64_C (1) << (w % 64);
  v->reported[w / 64] |= bit;
  bool in_image = (v->image_bits[w / 64] & bit) != 0;
  bool special = ((v->exe_bits[w / 64] | v->code_bits[w / 64]) & bit) != 0;
  uintptr_t tag = value & v->tag_mask;
  int type = v->heap->tag_types[tag];
  prefetch_ahead (v, w);
  if (!special && v->granule_types != NULL)
    {
      if (type == DUMPER_TAG_IMMEDIATE && !in_image)
        return;
      uint64_t offset = (uint64_t) (value - tag - v->base) - v->hot_offset;
      if (type >= 0 && in_image
          && offset < v->cold_end - v->hot_offset
          && offset % PDUMP_GRANULE == 0
          && v->granule_types[offset / PDUMP_GRANULE] == (unsigned) type + 1)
        return;
    }
  if (not_code (v, field_offset, value, w))
    check_word (v, field_offset, value, in_image,
                (v->exe_bits[w / 64] & bit) != 0);
}

/* Object NUMBER of TYPE, SIZE bytes at file offset START, whose type
   has layout L and whose first bytes are MEASURED.  */
static bool
check_layout_object (struct verifier *v, const struct dumper_layout *l,
                     uint64_t number, unsigned type, uint64_t size,
                     uint64_t start, const unsigned char *measured)
{
  uint64_t layout, count;
  enum common_layout_verdict verdict = common_layout_size (l, measured,
                                                           &layout, &count);
  /* A malformed object's size is 0, which no index entry has.  */
  if (layout != size)
    {
      const char *why = verdict == COMMON_LAYOUT_SIZED ? ""
                        : verdict == COMMON_LAYOUT_BAD_HEADER
                        ? " (the type's layout finds it malformed: its "
                          "header is not its type's)"
                        : " (the type's layout finds it malformed: its "
                          "count's size would wrap)";
      pdump_verify_fail (v, "object %" PRIu64 " (`%s' at offset 0x%" PRIx64
                         "): the index says %" PRIu64 " bytes, its contents "
                         "say %" PRIu64 "%s", number,
                         v->heap->types[type].name, start, size, layout,
                         why);
      return false;
    }
  begin_fields (v, number, type, size, start);
  uint64_t first = (start - v->hot_offset) / PDUMP_WORD_SIZE;
  for (uint64_t words = l->words; words != 0; words &= words - 1)
    {
      unsigned i = (unsigned) __builtin_ctzll (words);
      layout_word (v, first + i, i * PDUMP_WORD_SIZE);
    }
  if (l->element_words)
    for (uint64_t at = l->fixed; at < size; at += PDUMP_WORD_SIZE)
      layout_word (v, first + at / PDUMP_WORD_SIZE, (size_t) at);
  v->tracing = false;
  return true;
}


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
  if (t->layout != NULL)
    return check_layout_object (v, t->layout, number, type, size, start,
                                measured);
  /* An owner-sized block's only length is the index's (its referrers
     are checked against it, on_sized).  */
  uint64_t host_size = t->size ? t->size (measured) : size;
  if (host_size != size)
    {
      pdump_verify_fail (v, "object %" PRIu64 " (`%s' at offset 0x%" PRIx64
                         "): the index says %" PRIu64 " bytes, its contents "
                         "say %" PRIu64 "%s", number, t->name, start, size,
                         host_size, host_size == 0 ? " (the host's size "
                         "function finds it malformed)" : "");
      return false;
    }
  if (t->size ? t->trace == NULL : t->trace_sized == NULL)
    return true;
  begin_fields (v, number, type, size, start);
  if (t->size)
    t->trace (obj, &v->tracer);
  else
    t->trace_sized (obj, (size_t) size, &v->tracer);
  v->tracing = false;
  return true;
}

/* How far ahead of the object being checked its walk loads HOT.  */
#define HOT_AHEAD 1024

/* Every object in index order, placed as verify-index.c placed it,
   from the types and sizes pdump_verify_map_objects recorded (the index
   itself is not read again).  Apart from check_objects, which calls setjmp once for
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

/* V ready for the pass over VIEW, with nothing checked yet.  */
static void
start_verifier (struct verifier *v, const struct pdump_view *view,
                unsigned char *bytes, const struct pdump_exe *exe,
                const struct dumper_heap *heap,
                const struct dumper_decl *decls, size_t decl_count,
                const char *path, char *detail, size_t detail_size)
{
  memset (v, 0, sizeof *v);
  v->tracer.word = on_word;
  v->tracer.ptr = on_ptr;
  v->tracer.bytes = on_bytes;
  v->tracer.code = on_code;
  v->tracer.sized = on_sized;
  v->tracer.interior = on_interior;
  v->decls = decls;
  v->decl_count = decl_count;
  v->view = view;
  v->bytes = bytes;
  v->base = (uintptr_t) bytes;
  v->exe = exe;
  v->heap = heap;
  v->path = path;
  v->detail = detail;
  v->detail_size = detail_size;
  v->status = DUMPER_OK;
}

/* The sections' bounds and the sizes of the scratch tables.  */
static enum dumper_status
measure_sections (struct verifier *v)
{
  const struct pdump_section *s = v->view->sections;
  v->tag_mask = ((uintptr_t) 1 << v->heap->tag_bits) - 1;
  v->object_align = (uint64_t) 1 << v->heap->tag_bits;
  if (v->object_align < PDUMP_ALIGN)
    v->object_align = PDUMP_ALIGN;
  v->hot_offset = s[PDUMP_SECTION_HOT].offset;
  v->hot_end = v->hot_offset + s[PDUMP_SECTION_HOT].size;
  v->cold_offset = s[PDUMP_SECTION_COLD].offset;
  v->cold_end = v->cold_offset + s[PDUMP_SECTION_COLD].size;
  v->object_count = v->view->header.object_count;
  v->hot_count = s[PDUMP_SECTION_OBJECTS].count;
  uint64_t span = v->cold_end - v->hot_offset;
  /* The counts agree (HOT's and COLD's make the header's, OBJECTS
     indexes HOT's) and every object takes at least one granule of the
     object sections: pdump_check_header, which made the view, refused
     anything else (issue 32), so they bound the scratch by the file's
     size.  Objects are numbered in 32 bits here.  */
  if (v->object_count > UINT32_MAX)
    return pdump_verify_fail (v, "%" PRIu64 " objects, more than the verifier "
                              "numbers", v->object_count);
  /* Granules rounded up: COLD may end inside one (a short last byte
     block), and an object may start there.  */
  v->start_words = (size_t) (((span + PDUMP_GRANULE - 1) / PDUMP_GRANULE
                              + 63) / 64);
  v->hot_words = s[PDUMP_SECTION_HOT].size / PDUMP_WORD_SIZE;
  v->hot_bitmap_words = (size_t) ((v->hot_words + 63) / 64);
  v->image_bits = (const uint64_t *) (v->bytes
                                      + s[PDUMP_SECTION_RELOC_IMAGE].offset);
  return DUMPER_OK;
}

/* Set the bits of BITS that LIST (COUNT uint32 HOT word indexes, which
   pdump_relocate or pdump_relocate_code checked) names.  */
static void
set_listed_bits (uint64_t *bits, const unsigned char *list, uint64_t count)
{
  for (uint64_t i = 0; i < count; i++)
    {
      uint32_t w;
      memcpy (&w, list + i * 4, sizeof w);
      bits[w / 64] |= UINT64_C (1) << (w % 64);
    }
}

enum dumper_status
pdump_verify_structure (const struct pdump_view *view, unsigned char *bytes,
                        const void *reloc_code, const struct pdump_exe *exe,
                        const struct dumper_heap *heap,
                        const struct dumper_decl *decls, size_t decl_count,
                        const char *path, char *detail, size_t detail_size,
                        double *index_seconds)
{
  const struct pdump_header *h = &view->header;
  const struct pdump_section *s = view->sections;
  struct verifier v;
  start_verifier (&v, view, bytes, exe, heap, decls, decl_count, path,
                  detail, detail_size);
  if (h->type_count != (uint32_t) heap->type_count
      || h->tag_bits != heap->tag_bits)
    return pdump_verify_fail (&v, "the image describes %u types and %u tag "
                              "bits; this executable has %d and %u",
                              h->type_count,
                              h->tag_bits, heap->type_count, heap->tag_bits);
  enum dumper_status st
    = pdump_check_section_sum (view, PDUMP_SECTION_OBJECTS,
                               bytes + s[PDUMP_SECTION_OBJECTS].offset, path,
                               detail, detail_size);
  if (st != DUMPER_OK)
    return st;
  if (measure_sections (&v) != DUMPER_OK)
    return v.status;
  if (!pdump_verify_reserve (&v))
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                             "cannot allocate %zu bytes to verify the heap",
                             v.scratch_size);
  set_listed_bits (v.exe_bits, bytes + s[PDUMP_SECTION_RELOC_EXE].offset,
                   s[PDUMP_SECTION_RELOC_EXE].count);
  set_listed_bits (v.code_bits, reloc_code, s[PDUMP_SECTION_RELOC_CODE].count);
  double t0 = pdump_now ();
  st = pdump_verify_map_objects (&v, bytes + s[PDUMP_SECTION_OBJECTS].offset,
                                 s[PDUMP_SECTION_OBJECTS].size);
  if (index_seconds != NULL)
    *index_seconds = pdump_now () - t0;
  if (st == DUMPER_OK && check_objects (&v) == DUMPER_OK)
    check_registry (&v);
  munmap (v.scratch, v.scratch_size ? v.scratch_size : 8);
  return v.status;
}
