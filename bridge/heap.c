/* SPDX-License-Identifier: MIT */
/* bridge/heap.c: the host's heap description (heap.h).

   Owns validating and keeping the description; the pdump writer gets it
   as an argument.  A malformed description is reported here, when the
   host installs it, rather than as a confusing failure deep in a dump.  */

#include <config.h>

#include <inttypes.h>

#include "bridge.h"

static const struct dumper_heap *heap_desc;

const struct dumper_heap *
bridge_heap (void)
{
  return heap_desc;
}

/* The rules of heap.h's comment above struct dumper_layout that a
   layout must keep whatever the objects hold.  Checked once here, so
   that the pre-dump check (refcheck.c) and structural verification may
   read the header and count fields of any object of the type without
   checking the layout again: both lie in the object's first 64 bytes,
   inside FIXED, aligned, and of a width they can load.  Each message
   names the type and the rule it breaks.  */

/* A field of BYTES bytes at AT (BYTES not 0): a width the readers
   load, aligned to it, in the first 64 bytes and inside FIXED.  */
static enum dumper_status
check_layout_field (int t, const char *name, const char *field,
                    unsigned at, unsigned bytes, uint32_t fixed)
{
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "type %d (%s): its layout's %s field is %u bytes "
                        "wide; it must be 0, 1, 2, 4 or 8", t, name, field,
                        bytes);
  if (at % bytes != 0)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "type %d (%s): its layout's %s field at byte %u is "
                        "not aligned to its size (%u bytes)", t, name, field,
                        at, bytes);
  if (at + bytes > 64)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "type %d (%s): its layout's %s field at byte %u "
                        "(%u bytes) is not inside the first 64 bytes", t,
                        name, field, at, bytes);
  if (at + bytes > fixed)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "type %d (%s): its layout's %s field at byte %u "
                        "(%u bytes) is not inside the fixed part (%" PRIu32
                        " bytes)", t, name, field, at, bytes, fixed);
  return DUMPER_OK;
}

/* Whether word WORD overlaps the BYTES-byte field at AT.  */
static bool
word_overlaps (unsigned word, unsigned at, unsigned bytes)
{
  unsigned start = word * (unsigned) sizeof (uintptr_t);
  return bytes != 0 && start < at + bytes
         && at < start + (unsigned) sizeof (uintptr_t);
}

static enum dumper_status
check_layout (int t, const struct dumper_type *type)
{
  const struct dumper_layout *l = type->layout;
  const char *name = type->name;
  const unsigned word_size = sizeof (uintptr_t);
  /* The layout stands for what size and trace say; an owner-sized
     type has no size and a pointer-free one no trace to compare.  */
  if (type->size == NULL || type->trace == NULL)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "type %d (%s) has a layout but no %s function; a "
                        "layout is only for a type with a size and a trace "
                        "function", t, name,
                        type->size == NULL ? "size" : "trace");
  if (l->fixed == 0 || l->fixed % word_size != 0)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "type %d (%s): its layout's fixed size is %" PRIu32
                        " bytes; it must be a nonzero multiple of the word "
                        "size (%u)", t, name, l->fixed, word_size);
  enum dumper_status st = DUMPER_OK;
  if (l->header_bytes != 0)
    st = check_layout_field (t, name, "header", l->header_at,
                             l->header_bytes, l->fixed);
  if (st == DUMPER_OK && l->count_bytes != 0)
    st = check_layout_field (t, name, "count", l->count_at,
                             l->count_bytes, l->fixed);
  if (st != DUMPER_OK)
    return st;
  if (l->header_bytes < 8
      && l->header_value >> (8 * l->header_bytes) != 0)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "type %d (%s): its layout's header_value %" PRIu64
                        " does not fit in its %u-byte header field", t, name,
                        l->header_value, (unsigned) l->header_bytes);
  if (l->count_bytes == 0 && (l->element != 0 || l->element_words))
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "type %d (%s): its layout has no count field "
                        "(count_bytes 0) but an element size or "
                        "element_words", t, name);
  if (l->element_words && (l->element == 0 || l->element % word_size != 0))
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "type %d (%s): its layout has element_words but an "
                        "element of %" PRIu32 " bytes; it must be a nonzero "
                        "multiple of the word size (%u)", t, name,
                        l->element, word_size);
  for (unsigned word = 0; word < 64; word++)
    {
      if (!(l->words >> word & 1))
        continue;
      if (word >= l->fixed / word_size)
        return bridge_fail (DUMPER_E_HEAP_DESC,
                            "type %d (%s): its layout's words name word %u "
                            "(byte %u), at or past the fixed size (%" PRIu32
                            " bytes)", t, name, word, word * word_size,
                            l->fixed);
      if (word_overlaps (word, l->header_at, l->header_bytes)
          || word_overlaps (word, l->count_at, l->count_bytes))
        return bridge_fail (DUMPER_E_HEAP_DESC,
                            "type %d (%s): its layout's words name word %u "
                            "(byte %u), which overlaps its %s field", t, name,
                            word, word * word_size,
                            word_overlaps (word, l->header_at,
                                           l->header_bytes)
                            ? "header" : "count");
    }
  return DUMPER_OK;
}

enum dumper_status
bridge_check_heap (const struct dumper_heap *heap)
{
  if (heap == NULL)
    return bridge_fail (DUMPER_E_HEAP_DESC, "no heap description");
  if (heap->types == NULL || heap->type_count <= 0)
    return bridge_fail (DUMPER_E_HEAP_DESC, "heap description has no types");
  if (heap->type_count > 0xFFFF)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "heap description has %d types; at most 65535 are supported",
                        heap->type_count);
  if (heap->tag_bits < 1 || heap->tag_bits > 4)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "tag_bits is %u; it must be 1 to 4", heap->tag_bits);
  if (heap->tag_types == NULL)
    return bridge_fail (DUMPER_E_HEAP_DESC, "heap description has no tag table");
  for (int t = 0; t < heap->type_count; t++)
    {
      const struct dumper_type *type = &heap->types[t];
      if (type->name == NULL || type->name[0] == '\0')
        return bridge_fail (DUMPER_E_HEAP_DESC, "type %d has no name", t);
      /* An owner-sized type (size NULL) is traced by trace_sized, which
         gets the length its referrer reported; a normal one by trace.
         A description that mixes them would leave one of its kinds of
         objects untraced, so it is refused here.  */
      if (type->size == NULL && type->trace != NULL)
        return bridge_fail (DUMPER_E_HEAP_DESC,
                            "type %d (%s) has no size function (an "
                            "owner-sized type) but a trace function; an "
                            "owner-sized type is traced by trace_sized",
                            t, type->name);
      if (type->size != NULL && type->trace_sized != NULL)
        return bridge_fail (DUMPER_E_HEAP_DESC,
                            "type %d (%s) has a size function and a "
                            "trace_sized function; trace_sized is only for "
                            "owner-sized types (size NULL)", t, type->name);
      if (type->layout != NULL)
        {
          enum dumper_status st = check_layout (t, type);
          if (st != DUMPER_OK)
            return st;
        }
    }
  bool by_header = false;
  for (unsigned tag = 0; tag < (1u << heap->tag_bits); tag++)
    {
      int type = heap->tag_types[tag];
      if (type == DUMPER_TAG_BY_HEADER)
        by_header = true;
      else if (type != DUMPER_TAG_IMMEDIATE
               && (type < 0 || type >= heap->type_count))
        return bridge_fail (DUMPER_E_HEAP_DESC,
                            "tag %u maps to type %d, which is not in the type table",
                            tag, type);
      else if (type >= 0 && heap->types[type].size == NULL)
        /* A tagged word carries no length, and a block of an
           owner-sized type has no size of its own.  */
        return bridge_fail (DUMPER_E_HEAP_DESC,
                            "tag %u maps to type %d (%s), an owner-sized "
                            "type (no size function); such blocks are "
                            "reached only with dumper_trace_sized",
                            tag, type, heap->types[type].name);
    }
  if (by_header && heap->header_type == NULL)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "a tag uses DUMPER_TAG_BY_HEADER but header_type is NULL");
  return DUMPER_OK;
}

enum dumper_status
dumper_describe_heap (const struct dumper_heap *heap)
{
  bridge_clear_detail ();
  enum dumper_status st = bridge_check_heap (heap);
  if (st == DUMPER_OK)
    st = bridge_registry_check_types (heap);
  if (st == DUMPER_OK)
    heap_desc = heap;
  return st;
}
