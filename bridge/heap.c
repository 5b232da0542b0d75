/* SPDX-License-Identifier: MIT */
/* bridge/heap.c: the host's heap description (heap.h).

   Owns validating and keeping the description; the pdump writer gets it
   as an argument.  A malformed description is reported here, when the
   host installs it, rather than as a confusing failure deep in a dump.  */

#include <config.h>

#include "bridge.h"

static const struct dumper_heap *heap_desc;

const struct dumper_heap *
bridge_heap (void)
{
  return heap_desc;
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
