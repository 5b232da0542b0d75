/* SPDX-License-Identifier: MIT */
/* pdump/trace.c: the tracer the writer's walk (walk.c) hands the host's
   trace functions: each reported field queued, then checked against
   its object, its value encoded (encode.c) and stored in the object's
   copy with its relocation.  The walk's hottest path: every pointer
   field of the heap passes here.  */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walkint.h"

/* ------------------------------------------------------------------ */
/* The tracer callbacks.  */

/* FIELD's offset in the current object, and its bit set in the
   reported words; SIZE_MAX after failing.  The field rules are the
   pre-dump check's (pdump_walk_unchecked): here they only keep the walk
   inside the copy, and keep it from reading a field it has already
   encoded (whose copy holds no pointer of this process).  */
static size_t
field_offset_of (struct pdump_walk *w, const void *field)
{
  const struct pdump_work *cur = w->current;
  uintptr_t f = (uintptr_t) field, src = (uintptr_t) cur->src;
  if (!pdump_walk_field_inside (src, cur->size, f)
      || (f - src) % sizeof (uintptr_t) != 0)
    {
      /* The field's place, which may lie before the object.  */
      char rule[128];
      snprintf (rule, sizeof rule, "trace reported a field at %+" PRIdPTR
                " bytes, outside its %" PRIu64 "-byte object or not "
                "word-aligned", (intptr_t) (f - src), (uint64_t) cur->size);
      pdump_walk_unchecked (w, f >= src ? (size_t) (f - src) : 0, rule);
      return SIZE_MAX;
    }
  size_t offset = (size_t) (f - src);
  uint64_t word;
  struct pdump_hot_area *a = area_of (w, cur->offset + offset, &word);
  word /= PDUMP_WORD_SIZE;
  uint64_t bit = UINT64_C (1) << (word % 64);
  uint64_t *reported = &a->reported_bits[word / 64];
  if (*reported & bit)
    {
      pdump_walk_unchecked (w, offset, "trace reported the same field "
                            "twice");
      return SIZE_MAX;
    }
  *reported |= bit;
  return offset;
}

/* Store ENCODED in the current object's copy at FIELD_OFFSET and record
   its relocation.  */
void
pdump_walk_store (struct pdump_walk *w, size_t field_offset, uint64_t encoded,
                  enum value_kind kind)
{
  uint64_t word;
  struct pdump_hot_area *a = area_of (w, w->current->offset + field_offset,
                                      &word);
  word /= PDUMP_WORD_SIZE;
  uint64_t bit = UINT64_C (1) << (word % 64);
  uint64_t *image = &a->image_bits[word / 64];
  /* Every encoded value fits a word: executable offsets and code
     indexes are computed in uintptr_t, and image offsets stay below
     PDUMP_COLD_BIAS twice (checked where objects are placed).  */
  pdump_word stored = (pdump_word) encoded;
  if (stored != encoded)
    {
      pdump_walk_fail_field (w, DUMPER_E_STATE, field_offset,
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
      struct pdump_u32vec *list = kind == VALUE_EXE ? &a->exe_relocs
                                                    : &a->code_relocs;
      if (word > UINT32_MAX || !pdump_u32_push (list, (uint32_t) word))
        pdump_walk_fail (w, DUMPER_E_NOMEM, "too many executable relocations");
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
      ok = pdump_walk_encode_word (w, value, off, &encoded, &kind);
      break;
    case FORM_PTR:
      ok = pdump_walk_encode_ptr (w, value, (int) f->arg, off, &encoded,
                                  &kind);
      break;
    case FORM_BYTES:
      ok = pdump_walk_encode_bytes (w, value, f->arg, off, &encoded, &kind);
      break;
    case FORM_SIZED:
      ok = pdump_walk_encode_sized (w, value, f->type, f->arg, off, &encoded,
                                    &kind);
      break;
    case FORM_CODE:
    case FORM_INTERIOR:
      abort ();   /* handled by their own functions */
    }
  if (ok)
    pdump_walk_store (w, off, encoded, kind);
}

/* The start of a field whose value needs no visit (a code or interior
   pointer): its checked offset in *OFF and its value in *VALUE; false
   after failing, or after storing a NULL value as it is.  */
bool
pdump_walk_field_value (struct pdump_walk *w, const void *field, size_t *off,
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
  pdump_walk_store (w, *off, 0, VALUE_PLAIN);
  return false;
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

void
pdump_walk_handle_fields (struct pdump_walk *w)
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
          pdump_walk_trace_code (&w->tracer, f->field);
          break;
        case FORM_INTERIOR:
          pdump_walk_trace_interior (&w->tracer, f->field);
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
    pdump_walk_handle_fields (w);
  w->fields[w->field_count++] = (struct pdump_field) { field, arg, type,
                                                       (unsigned char) form };
  /* The hint, for a field inside the object (others fail when handled);
     an interior pointer's target is no object's start.  */
  const struct pdump_work *cur = w->current;
  uintptr_t f = (uintptr_t) field, src = (uintptr_t) cur->src;
  if (form == FORM_CODE || form == FORM_INTERIOR || f < src
      || cur->size < sizeof (uintptr_t)
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

/* Make T, the tracer the host's trace functions get, queue each field
   (pdump_walk_handle_fields handles them).  */
void
pdump_walk_init_tracer (struct dumper_tracer *t)
{
  t->word = queue_word;
  t->ptr = queue_ptr;
  t->bytes = queue_bytes;
  t->code = queue_code;
  t->sized = queue_sized;
  t->interior = queue_interior;
}
