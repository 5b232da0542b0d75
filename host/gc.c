/* SPDX-License-Identifier: MIT */
/* host/gc.c: dlisp's precise mark-and-sweep collector.

   Owns: the root set, the mark phase and the sweep.  The roots are the
   library's registered roots (dumper_roots), the symbol table
   (dl_obarray), the well-known symbols, and the evaluator's stacks
   (dl_eval_visit_roots).  The mark phase is a struct dumper_tracer whose
   callbacks mark, driven by the same trace functions the dumper uses
   (host/types.c), with an explicit mark stack so long lists and deep
   structures cannot overflow the C stack.  The only field the collector
   marks that the trace functions do not report is an `eq' hash table's
   index: a dump drops it (types.c), but it is live in this process.

   Objects of a loaded pdump image: they may point at fresh heap objects
   (they are mutable like any other), so marking goes through them, but
   their mark bits live in the library's side bitmap (pdump_set_marked),
   never in their headers, and they are never swept: they are not in the
   sweep list.  The bitmap is cleared after every collection.

   Must not: run except at the evaluator's safe points (see lisp.h).  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <dumper/gflags.h>
#include <dumper/pdump.h>

#include "lisp.h"

/* The fewest bytes allocated between collections: in an ordinary run,
   and in a run that will dump with unexec (overridable at build time
   for experiments).  */
#define DL_GC_MIN_THRESHOLD (8u << 20)
#ifndef DL_GC_UNEXEC_DUMP_THRESHOLD
# define DL_GC_UNEXEC_DUMP_THRESHOLD (1u << 20)
#endif

/* Heap bytes that survived the last collection.  */
static size_t live_after_gc;
bool dl_gc_stress;

/* The mark stack: objects marked but not yet traced.  Transient: freed
   at the end of every collection, so no C static points at it when a
   dump is written.  */
struct mark_stack
{
  struct dumper_tracer tracer;        /* first: the callbacks get it */
  void **items;
  size_t count, capacity;
};

static void
mark_push (struct mark_stack *ms, void *obj)
{
  if (ms->count == ms->capacity)
    {
      size_t capacity = ms->capacity ? ms->capacity * 2 : 1024;
      void **grown = realloc (ms->items, capacity * sizeof *grown);
      if (grown == NULL)
        {
          fprintf (stderr, "dlisp: fatal: out of memory for the GC mark stack\n");
          exit (71);
        }
      ms->items = grown;
      ms->capacity = capacity;
    }
  ms->items[ms->count++] = obj;
}

/* Set OBJ's mark; true when it was not marked before.  */
static bool
set_mark (void *obj)
{
  if (pdump_object_p (obj))
    {
      if (pdump_marked_p (obj))
        return false;
      pdump_set_marked (obj);
      return true;
    }
  struct dl_header *h = obj;
  if (h->flags & DL_F_MARK)
    return false;
  h->flags |= DL_F_MARK;
  return true;
}

static void
mark_word (struct dumper_tracer *t, const uintptr_t *field)
{
  dl_obj x = *field;
  /* Builtins are static data of the executable: nothing to mark.  */
  if (!dl_pointer_p (x) || dl_tag (x) == DL_TAG_BUILTIN)
    return;
  void *obj = dl_ptr (x);
  if (set_mark (obj))
    mark_push ((struct mark_stack *) t, obj);
}

static void
mark_ptr (struct dumper_tracer *t, void *const *field, int type)
{
  (void) type;
  void *obj = *field;
  if (obj != NULL && set_mark (obj))
    mark_push ((struct mark_stack *) t, obj);
}

static void
mark_bytes (struct dumper_tracer *t, void *const *field, size_t length)
{
  /* Byte blocks are owned by the object that points at them and freed
     with it (dl_release_owned); nothing to mark.  */
  (void) t;
  (void) field;
  (void) length;
}

static void
mark_code (struct dumper_tracer *t, const void *field)
{
  /* Code is not in the heap.  */
  (void) t;
  (void) field;
}

/* dlisp has no owner-sized types (every object's header says its size)
   and no pointers into objects: its trace functions never report
   these.  Reaching one is a bug in a trace function: stop.  */
static void
mark_sized (struct dumper_tracer *t, void *const *field, int type,
            size_t nbytes)
{
  (void) t;
  (void) field;
  fprintf (stderr, "dlisp: fatal: a trace function reported an owner-sized "
           "block (type %d, %zu bytes); dlisp has none\n", type, nbytes);
  abort ();
}

static void
mark_interior (struct dumper_tracer *t, void *const *field)
{
  /* An interior pointer keeps nothing alive: its object is reached by
     its start elsewhere (heap.h).  */
  (void) t;
  (void) field;
}

static void
mark_root (dl_obj *word, void *data)
{
  mark_word (data, word);
}

void
dl_visit_roots (dl_root_visitor visit, void *data)
{
  size_t root_count;
  uintptr_t *const *roots = dumper_roots (&root_count);
  for (size_t i = 0; i < root_count; i++)
    visit (roots[i], data);
  dl_obj obarray = dl_obarray ();
  visit (&obarray, data);
  for (size_t i = 0; i < DL_SYM_COUNT; i++)
    visit (&dl_syms[i], data);
  dl_eval_visit_roots (visit, data);
}

static void
mark_all (void)
{
  struct mark_stack ms = { { mark_word, mark_ptr, mark_bytes, mark_code, mark_sized,
                                mark_interior }, NULL, 0, 0 };
  dl_visit_roots (mark_root, &ms);
  while (ms.count > 0)
    {
      void *obj = ms.items[--ms.count];
      unsigned type = ((struct dl_header *) obj)->type;
      const struct dumper_type *desc = &dl_heap_description.types[type];
      if (desc->trace)
        desc->trace (obj, &ms.tracer);
      /* The one field the trace functions leave out on purpose: an `eq'
         table's index, which a dump drops (its slots depend on
         addresses) but which is live in this process.  */
      if (type == DL_T_HASH)
        {
          struct dl_hash *h = obj;
          if (h->test == DL_HASH_EQ)
            mark_ptr (&ms.tracer, (void *const *) &h->index, DL_T_HASH_INDEX);
        }
    }
  free (ms.items);
}

static void
sweep (void)
{
  size_t count;
  void **objects = dl_heap_objects (&count);
  size_t kept = 0;
  for (size_t i = 0; i < count; i++)
    {
      struct dl_header *h = objects[i];
      if (h->flags & DL_F_MARK)
        {
          h->flags &= ~(uint32_t) DL_F_MARK;
          objects[kept++] = h;
          continue;
        }
      size_t size = dl_object_size (h);
      dl_release_owned (h);
      dl_heap_stats.bytes -= size;
      dl_heap_stats.objects--;
      dumper_free (h);
    }
  dl_heap_objects_set_count (kept);
}

double
dl_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

void
dl_gc (void)
{
  double t0 = dl_now ();
  mark_all ();
  sweep ();
  pdump_clear_marks ();
  dl_heap_stats.gc_count++;
  dl_heap_stats.bytes_since_gc = 0;
  live_after_gc = dl_heap_stats.bytes;
  dl_heap_stats.gc_seconds += dl_now () - t0;
}

bool
dl_gc_needed (void)
{
  /* Collect again after allocating about as much as survived.  A run
     that will dump with unexec collects more often: the arena does not
     move objects, so its high-water mark (live data plus the garbage
     allowed between collections) is what the new executable carries
     (doc/unexec.md, "Size").  There, an eighth of what survived, so the
     garbage stays small and the cost of collecting stays linear in what
     is allocated.  */
  size_t min = DL_GC_MIN_THRESHOLD, grown = live_after_gc;
  if (will_dump_with_unexec)
    {
      min = DL_GC_UNEXEC_DUMP_THRESHOLD;
      grown = live_after_gc / 8;
    }
  size_t threshold = grown > min ? grown : min;
  return dl_gc_stress || dl_heap_stats.bytes_since_gc >= threshold;
}
