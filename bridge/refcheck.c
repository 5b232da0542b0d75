/* SPDX-License-Identifier: MIT */
/* bridge/refcheck.c: the check that runs before every dump, whichever
   the back end.

   A host validated in one mode must work in the other, so what the
   back ends cannot both represent is refused here, once, with one
   status and one message.  Starting from the registry it walks every
   object reachable through the heap description (iteratively, with a
   visited set) and checks each traced word, pointer and byte block:

   - into the executable: a tagged word or typed pointer must point to
     the start of an element of a static array declared with
     DUMPER_DECLARE_OBJECTS for its type (else DUMPER_E_REGISTRATION, or
     DUMPER_E_INTERIOR_POINTER inside an element); a byte block may
     point anywhere in it; not followed;
   - into a loaded pdump image: fine (the loader placed objects there),
     followed;
   - the start of a live dumper_alloc block: fine, followed;
   - into the middle of a live block: DUMPER_E_INTERIOR_POINTER.  pdump
     would copy the inner address as an object of its own, so two
     aliases of one object would come back as two copies.  (With
     malloc, a block's extent is malloc_usable_size's; a C library
     without it gets DUMPER_E_FOREIGN_POINTER here instead: refused
     all the same, under the other status);
   - anywhere else (a plain malloc block, the stack, a library, a freed
     block): DUMPER_E_FOREIGN_POINTER.  unexec does not save such
     memory, and pdump must not pretend it can.

   Owner-sized blocks (dumper_trace_sized) are followed like objects
   whose size is the length their referrer reports: the block must be a
   live block (or an object of a loaded image) with room for it, and
   every referrer must report the same length.  Interior pointers
   (dumper_trace_interior) are collected during the walk; after it,
   each must lie inside, or one past the end of, an object the walk
   reached (or in the executable), else DUMPER_E_INTERIOR_POINTER: an
   image could only save it relative to an object it holds.  Finding
   the object needs every reached object's extent, which the walk does
   not keep (a host without interior pointers would pay for it), so
   when there are interior pointers the walk runs a second time,
   recording extents.

   It also refuses what breaks the trace contract of heap.h in every
   back end (DUMPER_E_HEAP_DESC): a field outside its object, not
   word-aligned, or reported twice; a sized pointer to a type with a
   size function, a typed pointer to an owner-sized one, referrers that
   disagree on a block's length.  For a type with a layout (heap.h,
   struct dumper_layout), that the layout says what size and trace say
   of every object the dump saves: its header value, its size, and
   exactly its tagged words, each reported with dumper_trace_word
   (structural verification trusts the layout in place of the two).

   Each of these rules, and the ones on code pointers and interior
   pointers above, is checked here and nowhere else, with the message
   the host sees: the pdump writer's walk runs after this check and
   repeats none of them.  It keeps only a guard, one message for all
   (pdump/walk.c, pdump_walk_unchecked), that stops it should a host
   break heap.h in a way this check cannot see: the walk reads pointer
   values from the copy a fixup adjusted and runs the trace functions
   again.  It checks for itself only what it alone can: an object
   reached as two types, a type index outside the description, the
   bounds of the image format, the encoding of each value.  Without a
   heap description (an unexec host that never installed one) there is
   nothing to walk.  */

#include <config.h>

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/pdump.h>

#include "backend.h"
#include "bridge.h"
#include "common/blockset.h"
#include "common/layout.h"
#include "common/codetargets.h"
#include "common/maps.h"
#include "common/os.h"

struct refcheck_item
{
  const void *obj;
  int type;
  size_t nbytes;            /* owner-sized types: the referrer's length */
};

/* An interior pointer met during the walk, checked after it.  */
struct refcheck_interior
{
  uintptr_t value;
  const void *field;
  const void *owner;        /* the object holding FIELD */
  int owner_type;
};

/* A reached object's bytes [start, end), for the interior check.  */
struct refcheck_extent
{
  uintptr_t start, end;
};

struct refcheck
{
  struct dumper_tracer tracer;        /* first: trace functions get it */
  const struct dumper_heap *heap;
  uintptr_t tag_mask;
  uintptr_t managed_start, managed_end;   /* unexec: the arena */
  struct bridge_exe_span exe;
  const struct dumper_decl *decls;        /* the declaration table */
  size_t decl_count;
  /* Made by the first code pointer (trace_code); most heaps have few
     or none, and a table of builtins can be long.  */
  struct common_code_targets code_targets;
  bool code_targets_built;
  /* Visited objects, live blocks and objects of a loaded image alike,
     in a bitmap set (a bit per 8 bytes, however many objects); an
     image object at an address the set cannot hold (not a multiple of
     its grain: only with 4-byte words) in a map.  */
  struct common_blockset visited;
  struct common_addrmap visited_odd;
  /* Byte blocks reached, when the caller asked for the reachable
     objects (they are not traced, so not in visited).  */
  struct common_blockset *byte_blocks;
  struct refcheck_item *stack;
  size_t stack_size, stack_capacity;
  const struct refcheck_item *current;    /* object being traced */
  size_t current_size;
  uint64_t *reported;                 /* a bit per word of current */
  size_t reported_words;
  /* The current object's type's layout, NULL without one.  */
  const struct dumper_layout *layout;
  size_t root_index;
  const void *root_addr;
  /* Owner-sized blocks met: address -> the length their first referrer
     reported.  */
  struct common_addrmap sized_lengths;
  struct refcheck_interior *interiors;
  size_t interior_count, interior_capacity;
  /* The second walk (only with interior pointers): record extents
     instead of collecting interior pointers again.  */
  bool record_extents;
  struct refcheck_extent *extents;
  size_t extent_count, extent_capacity;
  enum dumper_status status;
};

/* Fail about the field at FIELD (in the current object, or the
   registry entry being walked when there is none).  */
static void
refuse (struct refcheck *c, enum dumper_status status, const void *field,
        const char *problem)
{
  if (c->status != DUMPER_OK)
    return;
  c->status = status;
  if (c->current)
    bridge_fail (status, "object of type `%s' at %p, field at +%zu: %s",
                 c->heap->types[c->current->type].name, c->current->obj,
                 (size_t) ((uintptr_t) field - (uintptr_t) c->current->obj),
                 problem);
  else
    bridge_fail (status, "registry entry %zu (static at %p): %s",
                 c->root_index, c->root_addr, problem);
}

/* Make room for one more element in the array *ITEMS of *CAPACITY
   elements of SIZE bytes holding COUNT; false when memory ran out.  */
static bool
reserve (void *items, size_t *capacity, size_t count, size_t size)
{
  if (count < *capacity)
    return true;
  size_t grown_capacity = *capacity ? 2 * *capacity : 1024;
  void *grown = realloc (*(void **) items, grown_capacity * size);
  if (grown == NULL)
    return false;
  *(void **) items = grown;
  *capacity = grown_capacity;
  return true;
}

static bool
push (struct refcheck *c, const void *obj, int type, size_t nbytes)
{
  if (!reserve (&c->stack, &c->stack_capacity, c->stack_size,
                sizeof *c->stack))
    return false;
  c->stack[c->stack_size++] = (struct refcheck_item) { obj, type, nbytes };
  return true;
}

/* The second walk: note that [START, START + SIZE) was reached.  */
static void
note_extent (struct refcheck *c, uintptr_t start, size_t size,
             const void *field)
{
  if (!reserve (&c->extents, &c->extent_capacity, c->extent_count,
                sizeof *c->extents))
    {
      refuse (c, DUMPER_E_NOMEM, field,
              "out of memory for the check of interior pointers");
      return;
    }
  uintptr_t end = size > UINTPTR_MAX - start ? UINTPTR_MAX : start + size;
  c->extents[c->extent_count++] = (struct refcheck_extent) { start, end };
}

/* Queue the object at ADDRESS of TYPE (a live block or an object of a
   loaded image; NBYTES long when TYPE is owner-sized) unless it was
   seen.  */
static void
follow (struct refcheck *c, uintptr_t address, int type, size_t nbytes,
        const void *field)
{
  if (type < 0 || type >= c->heap->type_count)
    return;   /* a bad type is the pdump writer's to report */
  bool added;
  if (address % COMMON_BLOCKSET_GRAIN == 0)
    {
      /* Then only memory can fail.  */
      if (!common_blockset_add (&c->visited, address, &added))
        {
          refuse (c, DUMPER_E_NOMEM, field,
                  "out of memory for the check's set of visited objects");
          return;
        }
      if (!added)
        return;
    }
  else
    {
      if (!common_addrmap_insert (&c->visited_odd, address, &added))
        {
          refuse (c, DUMPER_E_NOMEM, field,
                  "out of memory for the check's walk");
          return;
        }
      if (!added)
        return;
    }
  if (!push (c, (const void *) address, type, nbytes))
    refuse (c, DUMPER_E_NOMEM, field, "out of memory for the check's walk");
}

/* Name the mapping that holds ADDRESS, from /proc/self/maps (only on
   the way to an error, so it is read then).  */
static void
describe_mapping (uintptr_t address, char *out, size_t size)
{
  snprintf (out, size, "unmapped memory");
  struct common_maps maps;
  if (!common_maps_read (&maps))
    return;
  const struct common_region *r = common_maps_find (&maps, address);
  if (r == NULL)
    ;
  else if (strcmp (r->name, "[heap]") == 0)
    snprintf (out, size, "the malloc heap");
  else if (common_region_anonymous (r))
    snprintf (out, size, "anonymous memory: a large malloc block or mmap");
  else
    snprintf (out, size, "%s", r->name);
  common_maps_free (&maps);
}

/* What a traced field holds, for messages: it is put in words only on
   the way to one (formatting it for every field was half the check's
   time: 0.33 s of a 1.0 s write step at dlisp's loadup scale 16).  */
enum target_form { TARGET_WORD, TARGET_PTR, TARGET_BYTES, TARGET_SIZED };

struct target
{
  enum target_form form;
  uintptr_t value, tag;
};

/* "the word 0x... (tag N)", "the pointer 0x...", "the byte block
   pointer 0x...".  */
static const char *
describe (const struct target *t, char *out, size_t size)
{
  if (t->form == TARGET_WORD)
    snprintf (out, size, "the word 0x%" PRIxPTR " (tag %" PRIuPTR ")",
              t->value, t->tag);
  else if (t->form == TARGET_PTR)
    snprintf (out, size, "the pointer 0x%" PRIxPTR, t->value);
  else if (t->form == TARGET_SIZED)
    snprintf (out, size, "the sized block pointer 0x%" PRIxPTR, t->value);
  else
    snprintf (out, size, "the byte block pointer %p", (void *) t->value);
  return out;
}

/* A tagged word or typed pointer WHAT into the executable, at ADDRESS,
   of TYPE (DUMPER_TAG_BY_HEADER: the header says): it must be the start
   of an element of a declared array of static objects of that type.  An
   image names such targets by executable offset, and a loader with
   verify=structure accepts only these, so nothing else may be saved.  */
static void
check_exe_object (struct refcheck *c, uintptr_t address, int type,
                  const struct target *target, const void *field)
{
  char problem[512], what[96];
  size_t i = bridge_decl_find_static (DUMPER_DECL_OBJECTS, (const void *) address);
  if (i == SIZE_MAX)
    {
      snprintf (problem, sizeof problem, "%s points into the executable "
                "at %p, but not into an array declared with "
                "DUMPER_DECLARE_OBJECTS; declare the static objects heap "
                "words may point to", describe (target, what, sizeof what),
                (void *) address);
      refuse (c, DUMPER_E_REGISTRATION, field, problem);
      return;
    }
  const struct dumper_decl *d = &c->decls[i];
  uintptr_t offset = address - (uintptr_t) d->addr;
  if (offset % d->stride != 0)
    {
      snprintf (problem, sizeof problem, "%s points %" PRIuPTR " bytes into "
                "element %" PRIuPTR " of %s (%zu bytes each), not to its "
                "start", describe (target, what, sizeof what),
                offset % d->stride, offset / d->stride,
                d->name ? d->name : "?", d->stride);
      refuse (c, DUMPER_E_INTERIOR_POINTER, field, problem);
      return;
    }
  if (type == DUMPER_TAG_BY_HEADER)
    type = c->heap->header_type ((const void *) address);
  if (type != d->type)
    {
      snprintf (problem, sizeof problem, "%s points to an element of %s, "
                "declared with type %d (`%s'), as type %d",
                describe (target, what, sizeof what),
                d->name ? d->name : "?", (int) d->type,
                d->type < c->heap->type_count
                ? c->heap->types[d->type].name : "?", type);
      refuse (c, DUMPER_E_REGISTRATION, field, problem);
    }
}

/* Check the target ADDRESS of the field at FIELD, which holds TARGET,
   of TYPE (NO_TYPE for a byte block): true when it
   may be followed as an object (a live block, or an object of a loaded
   image).  */
#define NO_TYPE (-1000)
static bool
target_ok (struct refcheck *c, uintptr_t address, int type,
           const struct target *target, const void *field)
{
  char problem[512], what[96];
  if (pdump_object_p ((const void *) address)
      || bridge_alloc_block_p (address, NULL))
    return true;
  bool managed = address >= c->managed_start && address < c->managed_end;
  if (!managed && bridge_exe_span_contains (&c->exe, address))
    {
      /* A static object: the back ends relocate it.  */
      if (type != NO_TYPE)
        check_exe_object (c, address, type, target, field);
      return false;
    }
  /* Only errors remain: the linear search below is paid once.  */
  uintptr_t start;
  size_t size;
  if (bridge_alloc_block_containing (address, &start, &size))
    {
      snprintf (problem, sizeof problem, "%s points %" PRIuPTR " bytes into "
                "the %zu-byte dumper_alloc block at %p, not to its start; "
                "a pointer must point to the start of an object (an image "
                "would turn the alias into a copy)",
                describe (target, what, sizeof what), address - start,
                size, (void *) start);
      refuse (c, DUMPER_E_INTERIOR_POINTER, field, problem);
      return false;
    }
  char where[300];
  if (managed)
    snprintf (where, sizeof where, "the static heap arena, but no block in "
              "use: freed?");
  else
    describe_mapping (address, where, sizeof where);
  snprintf (problem, sizeof problem, "%s is not memory from dumper_alloc "
            "(it points into %s); only objects allocated with dumper_alloc "
            "can be dumped", describe (target, what, sizeof what), where);
  refuse (c, DUMPER_E_FOREIGN_POINTER, field, problem);
  return false;
}

/* Layouts.  Their fields' widths, alignment and place (inside FIXED,
   which the object is checked to have) were checked by
   dumper_describe_heap (bridge/heap.c).  */

/* Refuse the current object as disagreeing with its layout, about the
   field at FIELD, or the object as a whole when FIELD is NULL.  */
static void
refuse_layout (struct refcheck *c, const void *field, const char *problem)
{
  char message[640];
  snprintf (message, sizeof message, "%s; the type's layout must say what "
            "its size and trace functions say", problem);
  if (field)
    refuse (c, DUMPER_E_HEAP_DESC, field, message);
  else if (c->status == DUMPER_OK)
    c->status = bridge_fail (DUMPER_E_HEAP_DESC,
                             "object of type `%s' at %p: %s",
                             c->heap->types[c->current->type].name,
                             c->current->obj, message);
}

/* Before the current object (of size current_size) is traced: its
   header holds the layout's value, and its size function agrees with
   the layout's size.  False after refusing.  */
static bool
layout_before (struct refcheck *c, const struct dumper_layout *l)
{
  const void *obj = c->current->obj;
  char problem[320];
  if (c->current_size < l->fixed)
    {
      /* Checked first: the header and count fields lie inside FIXED,
         and only then inside the object.  */
      snprintf (problem, sizeof problem, "its size function gives %zu "
                "bytes, less than its layout's fixed size (%" PRIu32 ")",
                c->current_size, l->fixed);
      refuse_layout (c, NULL, problem);
      return false;
    }
  uint64_t size, count;
  enum common_layout_verdict verdict = common_layout_size (l, obj, &size,
                                                           &count);
  if (verdict == COMMON_LAYOUT_BAD_HEADER)
    {
      snprintf (problem, sizeof problem, "its %u-byte header field holds "
                "%" PRIu64 ", its layout's header_value is %" PRIu64,
                (unsigned) l->header_bytes,
                common_layout_field (obj, l->header_at, l->header_bytes),
                l->header_value);
      refuse_layout (c, (const char *) obj + l->header_at, problem);
      return false;
    }
  /* A count whose size wraps is refused, not compared as the small
     number it wraps to.  */
  if (verdict == COMMON_LAYOUT_WRAPS)
    {
      snprintf (problem, sizeof problem, "its count field holds %"
                PRIu64 ", which with its layout's %" PRIu32 "-byte "
                "elements makes a size that wraps; its size function "
                "gives %zu bytes", count, l->element, c->current_size);
      refuse_layout (c, (const char *) obj + l->count_at, problem);
      return false;
    }
  if (size != c->current_size)
    {
      char tail_text[96] = "";
      if (l->count_bytes)
        snprintf (tail_text, sizeof tail_text, " + count %" PRIu64 " (the "
                  "field at +%u) * element %" PRIu32, count,
                  (unsigned) l->count_at, l->element);
      snprintf (problem, sizeof problem, "its size function gives %zu "
                "bytes, its layout %" PRIu64 " (fixed %" PRIu32 "%s)",
                c->current_size, size, l->fixed, tail_text);
      refuse_layout (c, NULL, problem);
      return false;
    }
  c->layout = l;
  return true;
}

/* The first of bits FROM to TO (exclusive) of BITS that is not WANT,
   or TO when there is none.  */
static size_t
first_bit_not (const uint64_t *bits, size_t from, size_t to, bool want)
{
  for (size_t i = from; i < to;)
    {
      size_t span = 64 - i % 64;
      if (span > to - i)
        span = to - i;
      uint64_t chunk = bits[i / 64] >> (i % 64);
      if (want)
        chunk = ~chunk;
      if (span < 64)
        chunk &= (UINT64_C (1) << span) - 1;
      if (chunk)
        return i + (size_t) __builtin_ctzll (chunk);
      i += span;
    }
  return to;
}

/* After the current object's trace: the words it reported (the bitmap
   field_ok keeps, each once) are exactly the layout's.  Checked from
   the bitmap, after the trace, so that tracing a layout type's words
   costs nothing more per word (the check runs on every dump).  A word
   the layout lacks is thus checked as any traced word first: when its
   value is bad, that is what the dump refuses.  */
static void
layout_after (struct refcheck *c)
{
  const struct dumper_layout *l = c->layout;
  c->layout = NULL;
  if (c->status != DUMPER_OK)
    return;
  const size_t fixed_words = l->fixed / sizeof (uintptr_t);
  /* A reported word lies wholly inside the object (field_ok).  */
  const size_t object_words = c->current_size / sizeof (uintptr_t);
  /* The first 64 words (all of a cons, a symbol, a short vector): one
     word of the bitmap, compared with the one the layout wants.  */
  const size_t low_words = object_words < 64 ? object_words : 64;
  uint64_t want = l->words;
  if (l->element_words && low_words > fixed_words)
    want |= (low_words < 64 ? (UINT64_C (1) << low_words) - 1 : UINT64_MAX)
            & ~((UINT64_C (1) << fixed_words) - 1);
  uint64_t wrong = c->reported[0] ^ want;
  size_t word;
  if (wrong)
    word = (size_t) __builtin_ctzll (wrong);
  else if (object_words <= 64)
    return;
  else
    {
      /* The rest: words of the fixed part are not tagged words (WORDS
         names none past word 63), tail words are when element_words
         says so.  */
      const size_t tail_from = fixed_words > 64 ? fixed_words : 64;
      word = first_bit_not (c->reported, 64, tail_from, false);
      if (word == tail_from)
        {
          word = first_bit_not (c->reported, tail_from, object_words,
                                l->element_words);
          if (word == object_words)
            return;
        }
    }
  if (c->reported[word / 64] >> (word % 64) & 1)
    refuse_layout (c, (const uintptr_t *) c->current->obj + word,
                   "its trace reported this tagged word, but its layout "
                   "does not name it");
  else
    refuse_layout (c, (const uintptr_t *) c->current->obj + word,
                   "its layout names this tagged word, but its trace did "
                   "not report it");
}

/* A field reported with another callback than dumper_trace_word
   (HOW names it) in an object whose type has a layout: refused, a
   layout describes tagged words only.  */
static void
layout_refuse_kind (struct refcheck *c, const void *field, const char *how)
{
  char problem[200];
  snprintf (problem, sizeof problem, "its trace reported this field with "
            "%s, but a type with a layout has only tagged words "
            "(dumper_trace_word)", how);
  refuse_layout (c, field, problem);
}

/* Check that FIELD lies in the current object, word-aligned, and was
   not reported before; false after refusing.  True for registry
   entries (no current object).  */
static bool
field_ok (struct refcheck *c, const void *field)
{
  if (c->current == NULL)
    return true;
  uintptr_t offset = (uintptr_t) field - (uintptr_t) c->current->obj;
  char problem[160];
  if ((uintptr_t) field < (uintptr_t) c->current->obj
      || offset > c->current_size
      || c->current_size - offset < sizeof (uintptr_t))
    {
      snprintf (problem, sizeof problem, "trace reported a field at %p, "
                "outside the %zu-byte object", field, c->current_size);
      refuse (c, DUMPER_E_HEAP_DESC, c->current->obj, problem);
      return false;
    }
  if (offset % sizeof (uintptr_t) != 0)
    {
      refuse (c, DUMPER_E_HEAP_DESC, field,
              "trace reported a field that is not word-aligned");
      return false;
    }
  size_t word = offset / sizeof (uintptr_t);
  uint64_t bit = UINT64_C (1) << (word % 64);
  if (c->reported[word / 64] & bit)
    {
      refuse (c, DUMPER_E_HEAP_DESC, field,
              "trace reported the same field twice");
      return false;
    }
  c->reported[word / 64] |= bit;
  return true;
}

/* A typed pointer or word resolved to TYPE: it must not be an
   owner-sized type, whose blocks have no length of their own (the
   writer could not size the object).  False after refusing.  */
static bool
not_owner_sized (struct refcheck *c, int type, const char *how,
                 const void *field)
{
  if (type < 0 || type >= c->heap->type_count
      || c->heap->types[type].size != NULL)
    return true;
  char problem[256];
  snprintf (problem, sizeof problem, "%s to type %d (`%s'), an owner-sized "
            "type (no size function); report such a block with "
            "dumper_trace_sized and its length", how, type,
            c->heap->types[type].name);
  refuse (c, DUMPER_E_HEAP_DESC, field, problem);
  return false;
}

static void
check_word (struct refcheck *c, uintptr_t value, const void *field)
{
  uintptr_t tag = value & c->tag_mask;
  int type = c->heap->tag_types[tag];
  uintptr_t address = value - tag;
  if (type == DUMPER_TAG_IMMEDIATE || address == 0)
    return;   /* a null with a pointer tag is the writer's to report */
  struct target what = { TARGET_WORD, value, tag };
  if (!target_ok (c, address, type, &what, field))
    return;
  if (type == DUMPER_TAG_BY_HEADER)
    type = c->heap->header_type ((const void *) address);
  if (not_owner_sized (c, type, "a tagged word points", field))
    follow (c, address, type, 0, field);
}

static void
check_ptr (struct refcheck *c, uintptr_t value, int type, const void *field)
{
  if (value == 0 || !not_owner_sized (c, type, "a typed pointer", field))
    return;
  struct target what = { TARGET_PTR, value, 0 };
  if (!target_ok (c, value, type, &what, field))
    return;
  if (type == DUMPER_TAG_BY_HEADER)
    type = c->heap->header_type ((const void *) value);
  if (not_owner_sized (c, type, "a pointer by header points", field))
    follow (c, value, type, 0, field);
}

static void
trace_word (struct dumper_tracer *t, const uintptr_t *field)
{
  struct refcheck *c = (struct refcheck *) t;
  if (c->status == DUMPER_OK && field_ok (c, field))
    check_word (c, *field, field);
}

static void
trace_ptr (struct dumper_tracer *t, void *const *field, int type)
{
  struct refcheck *c = (struct refcheck *) t;
  if (c->layout)
    layout_refuse_kind (c, field, "dumper_trace_ptr");
  if (c->status == DUMPER_OK && field_ok (c, field))
    check_ptr (c, (uintptr_t) *field, type, field);
}

static void
trace_bytes (struct dumper_tracer *t, void *const *field, size_t length)
{
  (void) length;
  struct refcheck *c = (struct refcheck *) t;
  if (c->layout)
    layout_refuse_kind (c, field, "dumper_trace_bytes");
  if (c->status != DUMPER_OK || !field_ok (c, field) || *field == NULL)
    return;
  struct target what = { TARGET_BYTES, (uintptr_t) *field, 0 };
  bool added;
  if (!target_ok (c, (uintptr_t) *field, NO_TYPE, &what, field))
    return;
  if (c->record_extents)
    note_extent (c, (uintptr_t) *field, length, field);
  else if (c->byte_blocks && (uintptr_t) *field % COMMON_BLOCKSET_GRAIN == 0
           && !common_blockset_add (c->byte_blocks, (uintptr_t) *field,
                                    &added))
    refuse (c, DUMPER_E_NOMEM, field,
            "out of memory for the check's set of visited objects");
}

/* The room a sized block at ADDRESS has: an image object may use the
   rest of the image (the loader knows no finer extent), a live block
   its usable size.  False when it cannot be told.  */
static bool
block_room (uintptr_t address, size_t *room)
{
  if (bridge_backend.image_room && bridge_backend.image_room (address, room))
    return true;
  return bridge_alloc_block_size (address, room);
}

/* A pointer to an owner-sized block of NBYTES bytes of TYPE.  */
static void
trace_sized (struct dumper_tracer *t, void *const *field, int type,
             size_t nbytes)
{
  struct refcheck *c = (struct refcheck *) t;
  if (c->layout)
    layout_refuse_kind (c, field, "dumper_trace_sized");
  if (c->status != DUMPER_OK || !field_ok (c, field) || *field == NULL)
    return;
  char problem[512], what[96];
  if (type < 0 || type >= c->heap->type_count
      || c->heap->types[type].size != NULL)
    {
      snprintf (problem, sizeof problem, "a sized pointer (dumper_trace_"
                "sized) to type %d (`%s'), which is not an owner-sized type "
                "(it has a size function, or is not in the type table); "
                "report it with dumper_trace_ptr", type,
                type >= 0 && type < c->heap->type_count
                ? c->heap->types[type].name : "?");
      refuse (c, DUMPER_E_HEAP_DESC, field, problem);
      return;
    }
  uintptr_t address = (uintptr_t) *field;
  struct target target = { TARGET_SIZED, address, 0 };
  if (nbytes == 0)
    {
      /* An image object has at least a byte (a size no object has is
         how the index says "malformed").  */
      snprintf (problem, sizeof problem, "%s of type `%s' is reported with "
                "0 bytes; report an empty block as NULL",
                describe (&target, what, sizeof what),
                c->heap->types[type].name);
      refuse (c, DUMPER_E_HEAP_DESC, field, problem);
      return;
    }
  if (!target_ok (c, address, type, &target, field))
    return;
  size_t room;
  if (block_room (address, &room) && nbytes > room)
    {
      snprintf (problem, sizeof problem, "%s of type `%s' is reported with "
                "%zu bytes, but its block has room for %zu",
                describe (&target, what, sizeof what),
                c->heap->types[type].name, nbytes, room);
      refuse (c, DUMPER_E_HEAP_DESC, field, problem);
      return;
    }
  bool added;
  uint64_t *length = common_addrmap_insert (&c->sized_lengths, address,
                                            &added);
  if (length == NULL)
    {
      refuse (c, DUMPER_E_NOMEM, field, "out of memory for the check's walk");
      return;
    }
  if (added)
    *length = nbytes;
  else if (*length != nbytes)
    {
      snprintf (problem, sizeof problem, "%s of type `%s' is reported with "
                "%zu bytes here and with %" PRIu64 " bytes by another "
                "referrer; every referrer of a sized block must report the "
                "same length", describe (&target, what, sizeof what),
                c->heap->types[type].name, nbytes, *length);
      refuse (c, DUMPER_E_HEAP_DESC, field, problem);
      return;
    }
  follow (c, address, type, nbytes, field);
}

/* A pointer into (or one past the end of) an object: checked after the
   walk, when every reached object is known.  */
static void
trace_interior (struct dumper_tracer *t, void *const *field)
{
  struct refcheck *c = (struct refcheck *) t;
  if (c->layout)
    layout_refuse_kind (c, field, "dumper_trace_interior");
  if (c->status != DUMPER_OK || !field_ok (c, field) || *field == NULL
      || c->record_extents)
    return;
  if (!reserve (&c->interiors, &c->interior_capacity, c->interior_count,
                sizeof *c->interiors))
    {
      refuse (c, DUMPER_E_NOMEM, field, "out of memory for the check's walk");
      return;
    }
  c->interiors[c->interior_count++] = (struct refcheck_interior) {
    (uintptr_t) *field, field, c->current->obj, c->current->type };
}

/* A C function pointer: its target must be declared with
   DUMPER_DECLARE_CODE or in a DUMPER_DECLARE_CODE_TABLE, in both back
   ends alike (pdump stores the declaration's index, and the element's
   for a table; unexec keeps the address, and refuses the same heap so
   a host validated in one mode works in the other).  The same list as
   the pdump writer's (common/codetargets.c), so the two agree.  */
static void
trace_code (struct dumper_tracer *t, const void *field)
{
  struct refcheck *c = (struct refcheck *) t;
  if (c->layout)
    layout_refuse_kind (c, field, "dumper_trace_code");
  if (c->status != DUMPER_OK || !field_ok (c, field))
    return;
  void (*fn) (void);
  memcpy (&fn, field, sizeof fn);
  if (fn == NULL)
    return;
  if (!c->code_targets_built)
    {
      if (!common_code_targets_build (&c->code_targets, c->decls,
                                      c->decl_count))
        {
          refuse (c, DUMPER_E_NOMEM, field, "out of memory for the list of "
                  "declared code targets");
          return;
        }
      c->code_targets_built = true;
    }
  if (common_code_targets_find (&c->code_targets, (uintptr_t) fn) != NULL)
    return;
  char problem[PATH_MAX + 512], where[PATH_MAX + 128];
  if (!common_in_main_program ((uintptr_t) fn))
    {
      /* A shared library's code (a C module loaded with dlopen, most
         likely): neither back end can name it in a later process.  */
      if (!common_describe_address ((uintptr_t) fn, where, sizeof where))
        snprintf (where, sizeof where, "no object the dynamic loader "
                  "knows");
      snprintf (problem, sizeof problem, "code pointer %p lies in %s, "
                "outside the executable: a shared library's code (a C "
                "module loaded with dlopen?) cannot be saved; only the "
                "executable's functions, declared with "
                "DUMPER_DECLARE_CODE or in a DUMPER_DECLARE_CODE_TABLE, "
                "can", *(void *const *) field, where);
    }
  else
    /* (dladdr would name the nearest exported symbol, which for a
       static function of the executable is another function.)  */
    snprintf (problem, sizeof problem, "code pointer %p is not a declared "
              "code target; declare the function with DUMPER_DECLARE_CODE "
              "or in a DUMPER_DECLARE_CODE_TABLE", *(void *const *) field);
  refuse (c, DUMPER_E_REGISTRATION, field, problem);
}

/* Objects come off the stack into a ring of this many and are traced
   when they leave it: each is fetched from memory (a prefetch) that
   many objects ahead of its trace.  The check's order does not matter,
   only that it sees every object (the pdump writer's walk, whose order
   is the image's, keeps its own).  The check is a walk of the whole
   heap, so memory waits were most of its time: at dlisp's loadup scale
   64, the size function's first read of each object was 39% of it.  */
#define CHECK_AHEAD 16

static void
drain (struct refcheck *c)
{
  struct refcheck_item ahead[CHECK_AHEAD];
  size_t first = 0, end = 0;   /* ahead[first % N .. end % N) */
  while (c->status == DUMPER_OK)
    {
      while (end - first < CHECK_AHEAD && c->stack_size > 0)
        {
          const struct refcheck_item *next = &c->stack[--c->stack_size];
          __builtin_prefetch (next->obj);
          ahead[end++ % CHECK_AHEAD] = *next;
        }
      if (first == end)
        break;
      struct refcheck_item item = ahead[first++ % CHECK_AHEAD];
      const struct dumper_type *t = &c->heap->types[item.type];
      bool owner_sized = t->size == NULL;
      if (c->record_extents)
        note_extent (c, (uintptr_t) item.obj,
                     owner_sized ? item.nbytes : t->size (item.obj),
                     item.obj);
      if (owner_sized ? t->trace_sized == NULL : t->trace == NULL)
        continue;
      c->current_size = owner_sized ? item.nbytes : t->size (item.obj);
      size_t words = (c->current_size / sizeof (uintptr_t) + 63) / 64 + 1;
      if (words > c->reported_words)
        {
          free (c->reported);
          c->reported = malloc (words * sizeof *c->reported);
          c->reported_words = c->reported ? words : 0;
          if (c->reported == NULL)
            {
              refuse (c, DUMPER_E_NOMEM, item.obj, "out of memory for the "
                      "check's walk");
              return;
            }
        }
      memset (c->reported, 0, words * sizeof *c->reported);
      c->current = &item;
      /* (Owner-sized types have no layout: dumper_describe_heap.)  */
      if (t->layout && !layout_before (c, t->layout))
        {
          c->current = NULL;
          break;
        }
      if (owner_sized)
        t->trace_sized (item.obj, item.nbytes, &c->tracer);
      else
        t->trace (item.obj, &c->tracer);
      if (c->layout)
        layout_after (c);
      c->current = NULL;
    }
}

/* Walk everything the registry reaches.  */
static void
walk (struct refcheck *c)
{
  size_t count;
  const struct bridge_entry *entries = bridge_registry_entries (&count);
  for (size_t i = 0; i < count && c->status == DUMPER_OK; i++)
    {
      const struct bridge_entry *e = &entries[i];
      c->root_index = i;
      c->root_addr = e->addr;
      if (e->kind == DUMPER_DECL_ROOT || e->kind == DUMPER_DECL_WORD)
        check_word (c, *(const uintptr_t *) e->addr, e->addr);
      else if (e->kind == DUMPER_DECL_PTR)
        check_ptr (c, (uintptr_t) *(void *const *) e->addr,
                   (int) c->decls[e->decl].type, e->addr);
      drain (c);
    }
}

static int
compare_extents (const void *a, const void *b)
{
  uintptr_t x = ((const struct refcheck_extent *) a)->start;
  uintptr_t y = ((const struct refcheck_extent *) b)->start;
  return x < y ? -1 : x > y;
}

/* The reached object that holds ADDRESS (or ends at it): the last one
   starting at or before it, so an address that ends one object and
   starts the next is the next one's start (as the writer resolves it).
   EXTENTS is sorted by start.  */
static const struct refcheck_extent *
containing_extent (const struct refcheck_extent *extents, size_t count,
                   uintptr_t address)
{
  size_t low = 0, high = count;   /* the answer is before HIGH */
  while (low < high)
    {
      size_t mid = low + (high - low) / 2;
      if (extents[mid].start <= address)
        low = mid + 1;
      else
        high = mid;
    }
  if (low == 0 || address > extents[low - 1].end)
    return NULL;
  return &extents[low - 1];
}

/* After a walk that met interior pointers: walk again recording every
   reached object's extent, then check that each interior pointer lies
   in one of them (or in the executable).  */
static void
check_interiors (struct refcheck *c)
{
  common_blockset_free (&c->visited);
  common_addrmap_free (&c->visited_odd);
  common_addrmap_free (&c->sized_lengths);
  c->record_extents = true;
  walk (c);
  if (c->status != DUMPER_OK)
    return;
  qsort (c->extents, c->extent_count, sizeof *c->extents, compare_extents);
  for (size_t i = 0; i < c->interior_count; i++)
    {
      const struct refcheck_interior *p = &c->interiors[i];
      if (containing_extent (c->extents, c->extent_count, p->value)
          || (bridge_exe_span_contains (&c->exe, p->value)
              && !(p->value >= c->managed_start
                   && p->value < c->managed_end)))
        continue;
      c->status = DUMPER_E_INTERIOR_POINTER;
      bridge_fail (c->status, "object of type `%s' at %p, field at +%zu: "
                   "the interior pointer 0x%" PRIxPTR " (dumper_trace_"
                   "interior) lies in no object the dump reaches by its "
                   "start (nor one past the end of one); an image can save "
                   "it only relative to an object it holds",
                   c->heap->types[p->owner_type].name, p->owner,
                   (size_t) ((uintptr_t) p->field - (uintptr_t) p->owner),
                   p->value);
      return;
    }
}

enum dumper_status
bridge_check_references (const struct dumper_heap *heap,
                         struct common_blockset *reachable)
{
  if (heap == NULL)
    return DUMPER_OK;
  struct common_blockset byte_blocks = { 0 };
  struct refcheck c = { .heap = heap,
                        .byte_blocks = reachable ? &byte_blocks : NULL };
  c.tracer.word = trace_word;
  c.tracer.ptr = trace_ptr;
  c.tracer.bytes = trace_bytes;
  c.tracer.code = trace_code;
  c.tracer.sized = trace_sized;
  c.tracer.interior = trace_interior;
  c.tag_mask = ((uintptr_t) 1 << heap->tag_bits) - 1;
  const struct dumper_decl *decls;
  size_t decl_count;
  enum dumper_status st = bridge_decls (&decls, &decl_count);
  if (st != DUMPER_OK)
    return st;
  c.decls = decls;
  c.decl_count = decl_count;
  st = bridge_alloc_blocks (&c.managed_start, &c.managed_end);
  if (st != DUMPER_OK)
    return st;
  bridge_exe_span (&c.exe);

  walk (&c);
  /* The set of reached objects goes to the writer: take it before the
     interior check's second walk rebuilds it.  */
  struct common_blockset reached = { 0 };
  if (reachable && c.status == DUMPER_OK)
    {
      if (!common_blockset_merge (&c.visited, &byte_blocks)
          || !common_blockset_number (&c.visited))
        common_blockset_free (&c.visited);   /* only slower */
      reached = c.visited;
      c.visited = (struct common_blockset) { 0 };
    }
  if (c.status == DUMPER_OK && c.interior_count > 0)
    check_interiors (&c);
  if (c.status == DUMPER_OK && reachable)
    *reachable = reached;
  else
    common_blockset_free (&reached);
  common_blockset_free (&byte_blocks);
  common_blockset_free (&c.visited);
  common_addrmap_free (&c.visited_odd);
  common_addrmap_free (&c.sized_lengths);
  free (c.stack);
  free (c.reported);
  free (c.interiors);
  free (c.extents);
  common_code_targets_free (&c.code_targets);
  bridge_alloc_blocks_release ();
  return c.status;
}
