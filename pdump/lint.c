/* SPDX-License-Identifier: MIT */
/* pdump/lint.c: the writer's lint of unreported words (walk.c).  */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "walkint.h"

/* ------------------------------------------------------------------ */
/* The lint of unreported words.  A word the trace did not report is
   copied as it is; if it holds an address of this process it dangles
   after a load (ASLR moves the executable and the heap).  Report each
   such word (type, field offset, value), as unexec's pointer scan does
   for the saved data, or fail with 91 in strict mode.  Byte blocks are
   not linted: their bytes are data, not fields.  */

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
void
pdump_walk_lint_object (struct pdump_walk *w, uint32_t index, uint32_t type,
                        const unsigned char *copy, uint64_t size,
                        uint64_t hot_offset)
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
      pdump_walk_describe_path (w, index, path, sizeof path);
      snprintf (message, sizeof message, "object of type `%s' (reached via "
                "%s), field at +%" PRIu64 ": the unreported word 0x%" PRIxPTR
                " is an address in %s; it would dangle after a load "
                "(report the field from the type's trace function, with "
                "the trace kind that fits, or clear it in its fixup)",
                pdump_walk_type_name (w, type), path, at, value, target);
      if (w->lint_strict)
        pdump_walk_fail (w, DUMPER_E_HEAP_DESC, "%s [strict lint]", message);
      else if (w->warn)
        w->warn (message, w->warn_data);
    }
}
