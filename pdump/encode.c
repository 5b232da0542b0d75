/* SPDX-License-Identifier: MIT */
/* pdump/encode.c: a pointer field's value as the image stores it
   (walk.c): an immediate, an image offset (the target visited), an
   executable offset, or a code word naming a declared code target.  */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walkint.h"

/* ------------------------------------------------------------------ */
/* Encoding values.  */

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
  enum where where = pdump_walk_locate (w, address, size, why, sizeof why);
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
      pdump_walk_fail_field (w, DUMPER_E_FOREIGN_POINTER, field_offset,
                             problem);
    }
  return where;
}

/* Encode the tagged word VALUE.  */
bool
pdump_walk_encode_word (struct pdump_walk *w, uintptr_t value,
                        size_t field_offset, uint64_t *encoded,
                        enum value_kind *kind)
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
      pdump_walk_fail_field (w, DUMPER_E_FOREIGN_POINTER, field_offset, why);
      return false;
    }
  enum where where = classify_target (w, FORM_WORD, value, tag, 0,
                                      field_offset, encoded, kind);
  if (where != IN_HEAP)
    return where == IN_EXE;
  if (type == DUMPER_TAG_BY_HEADER)
    type = w->heap->header_type ((const void *) address);
  uint64_t offset;
  if (!pdump_walk_visit (w, address, (uint32_t) type, field_offset, &offset))
    return false;
  *encoded = offset + tag;
  *kind = VALUE_IMAGE;
  return true;
}

/* Encode the raw pointer VALUE to an object of TYPE.  */
bool
pdump_walk_encode_ptr (struct pdump_walk *w, uintptr_t value, int type,
                       size_t field_offset, uint64_t *encoded,
                       enum value_kind *kind)
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
      pdump_walk_fail_field (w, DUMPER_E_HEAP_DESC, field_offset,
                             "raw pointer reported with a negative type");
      return false;
    }
  uint64_t offset;
  if (!pdump_walk_visit (w, value, (uint32_t) type, field_offset, &offset))
    return false;
  *encoded = offset;
  *kind = VALUE_IMAGE;
  return true;
}

/* Encode the pointer VALUE to a pointer-free block of LENGTH bytes.  */
bool
pdump_walk_encode_bytes (struct pdump_walk *w, uintptr_t value, size_t length,
                         size_t field_offset, uint64_t *encoded,
                         enum value_kind *kind)
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
  uint64_t *entry = pdump_walk_visited_entry (w, value, &added);
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
                    length, pdump_walk_type_name (w, seen_type));
          pdump_walk_fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
          return false;
        }
      const struct pdump_block *b = &w->blocks[seen >> VISITED_SHIFT];
      if (length > b->length)
        {
          char problem[256];
          snprintf (problem, sizeof problem, "byte block at 0x%" PRIxPTR
                    " of %zu bytes was reached before as a byte block of %"
                    PRIu64 " bytes", value, length, b->length);
          pdump_walk_fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
          return false;
        }
      *encoded = b->offset;
      *kind = VALUE_IMAGE;
      return true;
    }
  uint64_t at;
  if (pdump_walk_cold_copy (w, (const void *) value, length, PDUMP_ALIGN, &at)
          == NULL
      || !pdump_walk_record_object (w, entry, PDUMP_TYPE_BYTES, length, at))
    return false;
  *encoded = at;
  *kind = VALUE_IMAGE;
  return true;
}

/* The sized block at VALUE met again, whose visited-map value is SEEN:
   *ENCODED its offset.  Its length was checked by the pre-dump check
   (every referrer reports the same); the walk keeps the first one.  */
static bool
revisit_sized (struct pdump_walk *w, uintptr_t value, uint64_t seen,
               uint32_t type, size_t nbytes, size_t field_offset,
               uint64_t *encoded)
{
  if (!pdump_walk_revisit (w, seen, type, field_offset, encoded))
    return false;
  const uint64_t *length = common_addrmap_get (&w->sized_lengths, value);
  if (length != NULL && *length != nbytes)
    {
      pdump_walk_unchecked (w, field_offset, "referrers of a sized block "
                            "report different lengths");
      return false;
    }
  return true;
}

/* Encode the pointer VALUE to an owner-sized block of TYPE, NBYTES
   long by its referrer.  */
bool
pdump_walk_encode_sized (struct pdump_walk *w, uintptr_t value, int type,
                         size_t nbytes, size_t field_offset, uint64_t *encoded,
                         enum value_kind *kind)
{
  *encoded = 0;
  *kind = VALUE_PLAIN;
  if (value == 0)
    return true;
  char problem[320];
  if (type < 0 || type >= w->heap->type_count
      || w->heap->types[type].size != NULL || nbytes == 0)
    {
      pdump_walk_unchecked (w, field_offset, "a sized pointer to a type "
                            "that is not owner-sized, or of 0 bytes");
      return false;
    }
  const struct dumper_type *t = &w->heap->types[type];
  /* The walk's own bound (the check compares the length with the
     block's room, which it cannot always tell).  */
  if (too_big (nbytes))
    {
      snprintf (problem, sizeof problem, "sized block 0x%" PRIxPTR " of type "
                "`%s' is reported with %zu bytes; a sized block has 1 to "
                "2^40 bytes (report an empty one as NULL)", value, t->name,
                nbytes);
      pdump_walk_fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
      return false;
    }
  enum where where = classify_target (w, FORM_SIZED, value, 0, nbytes,
                                      field_offset, encoded, kind);
  if (where == IN_EXE)
    {
      pdump_walk_unchecked (w, field_offset, "a sized block lies in the "
                            "executable");
      return false;
    }
  if (where != IN_HEAP)
    return false;
  bool added;
  uint64_t *entry = pdump_walk_visited_entry (w, value, &added);
  if (entry == NULL)
    return false;
  if (!added)
    {
      if (!revisit_sized (w, value, *entry, (uint32_t) type, nbytes,
                          field_offset, encoded))
        return false;
      *kind = VALUE_IMAGE;
      return true;
    }
  if (!common_addrmap_put (&w->sized_lengths, value, nbytes))
    {
      pdump_walk_fail (w, DUMPER_E_NOMEM,
                       "out of memory for the lengths of sized "
                       "blocks");
      return false;
    }
  if (!pdump_walk_place_new (w, entry, value, t, (uint32_t) type, nbytes,
                             encoded))
    return false;
  *kind = VALUE_IMAGE;
  return true;
}

/* A C function pointer: stored as the code word (format.h,
   PDUMP_CODE_WORD) of the declaration common_code_targets_find picks.  */
void
pdump_walk_trace_code (struct dumper_tracer *t, const void *field)
{
  struct pdump_walk *w = (struct pdump_walk *) t;
  size_t off;
  uintptr_t value;
  if (!pdump_walk_field_value (w, field, &off, &value))
    return;
  const struct common_code_target *target
    = common_code_targets_find (&w->code_targets, value);
  if (target == NULL)
    {
      pdump_walk_unchecked (w, off, "a code pointer is not a declared code "
                            "target");
      return;
    }
  if (!PDUMP_CODE_INDEX_FITS (target->decl)
      || !PDUMP_CODE_INDEX_FITS (target->element))
    {
      char problem[256];
      snprintf (problem, sizeof problem, "code pointer 0x%" PRIxPTR " is "
                "declaration %" PRIu32 " (%s), element %" PRIu32 ": an image "
                "of %u-byte words names declarations and elements below %"
                PRIu64, value, target->decl, w->decls[target->decl].name
                ? w->decls[target->decl].name : "?", target->element,
                (unsigned) PDUMP_WORD_SIZE, PDUMP_CODE_INDEX_LIMIT);
      pdump_walk_fail_field (w, DUMPER_E_REGISTRATION, off, problem);
      return;
    }
  pdump_walk_store (w, off, PDUMP_CODE_WORD (target->decl, target->element),
                    VALUE_CODE);
}
