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
   type index outside the description.

   This file holds the walk itself (the registry entries, the stack and
   the end of the walk) and its errors; the rest is one concern a file,
   sharing walkint.h:
     trace.c     the tracer the host's trace functions get: the field
                 queue, each field checked, encoded and stored;
     visit.c     meeting an object: where it is, the visited map, its
                 place in HOT or COLD, the object index;
     encode.c    a pointer field's value as the image stores it, code
                 pointers included;
     interior.c  interior pointers, resolved when the walk ends;
     stream.c    HOT and COLD written to the file as the walk goes;
     lint.c      the lint of unreported words;
     buf.c       growable buffers and word bitmaps.  */

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
#include "walkint.h"

/* ------------------------------------------------------------------ */
/* Errors.  */

/* Record the walk's first failure: a later one (a caller reporting an
   error its callee already described) changes nothing.  */
enum dumper_status
pdump_walk_fail (struct pdump_walk *w, enum dumper_status status,
                 const char *fmt, ...)
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

const char *
pdump_walk_type_name (const struct pdump_walk *w, uint32_t type)
{
  if (type == PDUMP_TYPE_BYTES)
    return "byte block";
  if ((int) type < w->heap->type_count)
    return w->heap->types[type].name;
  return "?";
}

/* Append to BUF a description of how object INDEX was reached:
   "root 2 (static at exe+0x4a10) -> vector -> cons".  */
void
pdump_walk_describe_path (const struct pdump_walk *w, uint32_t index,
                          char *buf, size_t size)
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
                            pdump_walk_type_name (w, w->types[chain[d]]));
}

/* Fail with a message about field FIELD_OFFSET of the current object.  */
enum dumper_status
pdump_walk_fail_field (struct pdump_walk *w, enum dumper_status status,
                       size_t field_offset, const char *problem)
{
  char path[512];
  if (w->current)
    {
      pdump_walk_describe_path (w, w->current->index, path, sizeof path);
      return pdump_walk_fail (w, status,
                              "object of type `%s' (reached via %s), field "
                              "at +%zu: %s",
                              pdump_walk_type_name (w, w->current->type), path,
                              field_offset, problem);
    }
  const struct pdump_entry *root = &w->entries[w->current_root];
  return pdump_walk_fail (w, status,
                          "registry entry %zu (static at exe+0x%" PRIxPTR
                          "): %s",
                          w->current_root,
                          (uintptr_t) root->addr - w->exe.bias, problem);
}

/* The rules of heap.h that the pre-dump check (bridge/refcheck.c) owns
   are checked there, with their messages, in every back end, before the
   walk starts: a field outside its object, unaligned or reported twice,
   a word or typed pointer to an owner-sized type, a sized pointer to
   another type or of 0 bytes, referrers that disagree on a sized
   block's length, an undeclared code target, an interior pointer into
   no object.  The walk cannot meet them unless the host breaks heap.h
   in a way the check cannot see: it reads pointer values from the copy
   after the type's fixup, and runs the trace functions again, so a
   fixup that changes a pointer field or a trace function that answers
   differently on another call gets here.  The walk does not write
   such an image: it fails here, with RULE, the rule found broken.  */
enum dumper_status
pdump_walk_unchecked (struct pdump_walk *w, size_t field_offset,
                      const char *rule)
{
  char problem[512];
  snprintf (problem, sizeof problem, "%s" PDUMP_WALK_UNCHECKED, rule);
  return pdump_walk_fail_field (w, DUMPER_E_HEAP_DESC, field_offset, problem);
}

/* ------------------------------------------------------------------ */
/* The walk.  */

/* Copy and trace everything on the stack.  */
static void
drain (struct pdump_walk *w)
{
  while (w->stack_size > 0 && w->status == DUMPER_OK)
    {
      if (w->hot_fd >= 0 && w->hot.bytes.size - w->hot.base > HOT_WINDOW_MAX
          && !pdump_walk_hot_flush (w, (w->hot.bytes.size - HOT_WINDOW_KEEP)
                                       & ~UINT64_C (4095)))
        return;
      struct pdump_work item = w->stack[--w->stack_size];
      const struct dumper_type *t = &w->heap->types[item.type];
      w->current = &item;
      w->current_late = item.offset < w->hot.base;
      if (w->current_late && !pdump_walk_hot_late (w, &item))
        return;
      memcpy (current_copy (w), item.src, item.size);
      if (t->fixup)
        t->fixup (item.src, current_copy (w));
      pdump_walk_trace_object (t, item.src, item.size, &w->tracer);
      pdump_walk_handle_fields (w);
      if (w->status == DUMPER_OK)
        pdump_walk_lint_object (w, item.index, item.type, current_copy (w),
                                item.size, item.offset);
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
                pdump_walk_fail (w,
                                 err == ENOMEM ? DUMPER_E_NOMEM : DUMPER_E_IO,
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
      pdump_walk_fail (w, DUMPER_E_NOMEM,
                       "HOT passes %" PRIu64 " bytes, the most "
                       "%u-byte words can address",
                       PDUMP_WALK_SECTION_MAX, (unsigned) PDUMP_WORD_SIZE);
      return;
    }
  if (!pdump_buf_reserve (&w->hot.bytes, end - w->hot.base)
      || !pdump_bits_reserve (&w->hot, end)
      || !pdump_buf_append (&w->hot.index, g->index.data, g->index.size))
    {
      pdump_walk_fail (w, DUMPER_E_NOMEM, "out of memory placing HOT's group");
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
        if (word > UINT32_MAX || !pdump_u32_push (to[k], (uint32_t) word))
          {
            pdump_walk_fail (w, DUMPER_E_NOMEM,
                             "too many executable relocations");
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

/* The record of after-load hook I, declared by D: the hook's
   executable offset, which must be the executable's code.  */
static void
hook_record (struct pdump_walk *w, size_t i, const struct dumper_decl *d,
             struct pdump_record *r)
{
  r->exe_offset = (uintptr_t) d->fn - w->exe.bias;
  r->size = 0;
  r->value_kind = PDUMP_VALUE_NONE;
  if (!pdump_exe_code (&w->exe, r->exe_offset))
    pdump_walk_fail (w, DUMPER_E_FOREIGN_POINTER, "after-load hook %zu (%s) "
                     "at %p is not in the executable's code (hooks in "
                     "shared libraries cannot be restored)",
                     i, d->name, (void *) (uintptr_t) d->fn);
}

/* The record of remembered scalar E, declared by D: its bytes go to
   SCALAR_DATA, 8-aligned.  */
static void
scalar_record (struct pdump_walk *w, const struct pdump_entry *e,
               const struct dumper_decl *d, struct pdump_record *r)
{
  r->size = d->size;
  r->value = w->scalar_data.size;
  r->value_kind = PDUMP_VALUE_NONE;
  if (!pdump_buf_append (&w->scalar_data, e->addr, d->size)
      || !pdump_buf_reserve (&w->scalar_data,
                             align_up (w->scalar_data.size, 8)))
    pdump_walk_fail (w, DUMPER_E_NOMEM, "out of memory for remembered "
                     "scalars");
  w->scalar_data.size = align_up (w->scalar_data.size, 8);
}

/* Encode the word or pointer that registry entry I (E, declared by D)
   holds into R, visiting what it points to.  False after failing.  */
static bool
encode_entry (struct pdump_walk *w, size_t i, const struct pdump_entry *e,
              const struct dumper_decl *d, struct pdump_record *r)
{
  uint64_t encoded = 0;
  enum value_kind kind = VALUE_PLAIN;
  uintptr_t value;
  memcpy (&value, e->addr, sizeof value);
  if (d->kind == DUMPER_DECL_PTR)
    {
      if (d->type >= w->heap->type_count)
        {
          pdump_walk_fail (w, DUMPER_E_REGISTRATION, "registry entry %zu: "
                           "remembered pointer %s of type %d, not a type "
                           "of the heap description", i, d->name,
                           (int) d->type);
          return false;
        }
      if (!pdump_walk_encode_ptr (w, value, (int) d->type, 0, &encoded,
                                  &kind))
        return false;
    }
  else if (!pdump_walk_encode_word (w, value, 0, &encoded, &kind))
    return false;
  r->value = encoded;
  r->value_kind = record_value_kind (kind);
  return true;
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
      pdump_walk_fail (w, DUMPER_E_STATE, "registry entry %zu names "
                       "declaration %" PRIu32 " of %zu", i, e->decl,
                       w->decl_count);
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
      hook_record (w, i, d, r);
      return;
    }
  uint64_t size = d->kind == DUMPER_DECL_SCALAR ? d->size : sizeof (uintptr_t);
  if (!pdump_exe_writable (&w->exe, exe_offset, size))
    {
      pdump_walk_fail (w, DUMPER_E_FOREIGN_POINTER, "registry entry %zu: the "
                       "static %s at %p (%" PRIu64 " bytes) is not in the "
                       "executable's writable data; only statics of the "
                       "executable itself can be remembered",
                       i, d->name, e->addr, size);
      return;
    }
  switch (d->kind)
    {
    case DUMPER_DECL_ROOT:
    case DUMPER_DECL_WORD:
    case DUMPER_DECL_PTR:
      if (encode_entry (w, i, e, d, r))
        drain (w);
      return;
    case DUMPER_DECL_SCALAR:
      scalar_record (w, e, d, r);
      return;
    default:
      pdump_walk_fail (w, DUMPER_E_STATE,
                       "registry entry %zu has kind %" PRIu32, i, d->kind);
      return;
    }
}

/* Set up walk W for REQ (see pdump_walk_run): its inputs, its output
   files, and the checks of the heap description and the process that
   come before any object.  */
static enum dumper_status
walk_begin (struct pdump_walk *w, const struct pdump_write_request *req,
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
        return pdump_walk_fail (w, DUMPER_E_NOMEM,
                                "out of memory starting the dump");
      XXH3_64bits_reset (w->cold_hash);
    }
  w->output = req->output;
  pdump_walk_init_tracer (&w->tracer);
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
    return pdump_walk_fail (w, DUMPER_E_HEAP_DESC, "the heap description "
                            "has %d types; an image holds at most %u",
                            req->heap->type_count, PDUMP_TYPE_BYTES - 1);
  if (!pdump_exe_layout (&w->exe))
    return pdump_walk_fail (w, DUMPER_E_EXE,
                            "cannot read the executable's program headers");
  if (!common_maps_read (&w->maps))
    return pdump_walk_fail (w, DUMPER_E_IO, "cannot read /proc/self/maps");
  return DUMPER_OK;
}

/* The walk's tables, sized for the objects REQ expects.  */
static enum dumper_status
walk_reserve (struct pdump_walk *w, const struct pdump_write_request *req)
{
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
        return pdump_walk_fail (w, DUMPER_E_NOMEM,
                                "out of memory starting the dump");
      if (expected < w->reached_count)
        expected = w->reached_count;
      expected_others = expected > w->reached_count
                        ? expected - w->reached_count : 0;
    }
  w->records = calloc (w->entry_count ? w->entry_count : 1,
                       sizeof *w->records);
  if (w->records == NULL
      || !common_code_targets_build (&w->code_targets, w->decls, w->decl_count)
      || !common_addrmap_init (&w->visited, expected_others
                               ? expected_others : 1 << 10, NULL)
      || !pdump_walk_reserve_objects (w, expected)
      || !pdump_bits_reserve (&w->hot, 8))
    return pdump_walk_fail (w, DUMPER_E_NOMEM,
                            "out of memory starting the dump");
  w->record_count = w->entry_count;
  return DUMPER_OK;
}

/* After the last registry entry: the lint's count, HOT's group area
   appended, interior pointers resolved, and what is left of HOT and
   COLD written out.  */
static void
walk_end (struct pdump_walk *w)
{
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
    pdump_walk_resolve_interiors (w);
  if (w->status == DUMPER_OK && w->hot_fd >= 0
      && w->hot.bytes.size > w->hot.base)
    pdump_walk_hot_flush (w, w->hot.bytes.size);
  if (w->status == DUMPER_OK && w->late_log_count > 1)
    qsort (w->lates, w->late_log_count, sizeof *w->lates,
           pdump_walk_late_order);
  if (w->status == DUMPER_OK && w->cold_fd >= 0 && pdump_walk_cold_flush (w))
    w->cold_checksum = XXH3_64bits_digest (w->cold_hash);
}

enum dumper_status
pdump_walk_run (struct pdump_walk *w, const struct pdump_write_request *req,
                int hot_fd, uint64_t hot_file_offset, int cold_fd)
{
  if (walk_begin (w, req, hot_fd, hot_file_offset, cold_fd) != DUMPER_OK
      || walk_reserve (w, req) != DUMPER_OK)
    return w->status;
  for (size_t i = 0; i < w->entry_count && w->status == DUMPER_OK; i++)
    walk_entry (w, i);
  walk_end (w);
  /* The layout needs no lookups by address: the map goes before it
     allocates.  */
  common_addrmap_free (&w->visited);
  common_addrmap_free (&w->sized_lengths);
  pdump_walk_visited_free (w);
  return w->status;
}

static void
area_free (struct pdump_hot_area *a)
{
  pdump_buf_free (&a->bytes);
  size_t bits_bytes = a->bits_words * sizeof (uint64_t);
  common_zfree (a->image_bits, bits_bytes);
  common_zfree (a->reported_bits, bits_bytes);
  free (a->exe_relocs.data);
  free (a->code_relocs.data);
  pdump_buf_free (&a->index);
}

void
pdump_walk_free (struct pdump_walk *w)
{
  area_free (&w->hot);
  area_free (&w->group);
  common_zfree (w->late, w->late_capacity);
  pdump_buf_free (&w->late_log);
  common_zfree (w->lates, w->late_log_capacity * sizeof *w->lates);
  pdump_buf_free (&w->cold);
  XXH3_freeState (w->cold_hash);
  common_code_targets_free (&w->code_targets);
  free (w->records);
  free (w->scalar_data.data);
  common_zfree (w->parents, w->object_capacity * sizeof *w->parents);
  common_zfree (w->types, w->object_capacity * sizeof *w->types);
  common_zfree (w->blocks, w->block_capacity * sizeof *w->blocks);
  pdump_buf_free (&w->index_cold);
  free (w->stack);
  free (w->interiors);
  free (w->patches);
  common_addrmap_free (&w->visited);
  common_addrmap_free (&w->sized_lengths);
  pdump_walk_visited_free (w);
  common_maps_free (&w->maps);
  memset (w, 0, sizeof *w);
}
