/* SPDX-License-Identifier: MIT */
/* bridge/registry.c: the ordered registry of roots, remembered data and
   after-load hooks, and the registration calls, which check each
   registration against the declaration table (decls.c) before it is
   made: a bad registration is refused here, with a status, never found
   by the loader of the next start.

   Entries are kept in registration order, because that is the order in
   which a loader restores data and runs hooks.  A hash set keyed by
   (kind, address) makes re-registration a no-op, so a host may register
   on every start.  All storage comes from bridge_alloc: in unexec
   builds that is the static arena, so a dumped executable still has its
   registry.  The GC roots are also kept in a separate array, because a
   collector scans them on every collection.

   A refused registration is also remembered (the first one of the run,
   until dumper_clear_registration_error): the host may ignore the
   status, but the static it meant would be missing from the dump, so
   dumper_dump refuses to write one (bridge_registration_error).  */

#include <config.h>

#include <inttypes.h>

#include <stdio.h>
#include <string.h>

#include "bridge.h"
#include "common/addrmap.h"

static struct bridge_entry *entries;
static size_t entry_count, entry_capacity;

static uintptr_t **roots;
static size_t root_count, root_capacity;

/* The first refused registration since the last clear: its status
   (DUMPER_OK when none) and its detail.  */
static enum dumper_status refused_status;
static char refused_detail[512];

/* The end of every public registration call: a failure becomes the
   run's refused registration unless one is already recorded.  */
static enum dumper_status
end_call (enum dumper_status st, const char *call)
{
  if (st != DUMPER_OK && refused_status == DUMPER_OK)
    {
      /* The function forms' details start with the call already.  */
      const char *detail = dumper_error_detail ();
      bool named = strncmp (detail, call, strlen (call)) == 0;
      refused_status = st;
      snprintf (refused_detail, sizeof refused_detail, "%s%s%s",
                named ? "" : call, named ? "" : ": ", detail);
    }
  return st;
}

enum dumper_status
bridge_registration_error (void)
{
  if (refused_status == DUMPER_OK)
    return DUMPER_OK;
  return bridge_fail (DUMPER_E_REGISTRATION, "a registration of this run "
                      "was refused, so the dump would lack what it "
                      "registers (the first refused: %s); fix it, or call "
                      "dumper_clear_registration_error after handling it",
                      refused_detail);
}

void
dumper_clear_registration_error (void)
{
  refused_status = DUMPER_OK;
  refused_detail[0] = '\0';
}

/* The index: entry key -> entry number (common/addrmap.c), its table
   in bridge_alloc memory like the rest of the registry.  */
static struct common_addrmap index_map;

static void *
index_alloc (size_t size)
{
  void *block = bridge_alloc (size);
  if (block)
    memset (block, 0, size);   /* the arena may hand back used memory */
  return block;
}

static void
index_free (void *block, size_t size)
{
  (void) size;
  bridge_free (block);
}

static const struct common_addrmap_allocator index_allocator = {
  index_alloc, index_free
};

/* Statics are keyed by address: declared statics never overlap, so an
   address has one kind.  Hooks are keyed by declaration (odd keys, which
   no word-aligned static has).  */
static uintptr_t
entry_key (const struct bridge_entry *e)
{
  return e->kind == DUMPER_DECL_HOOK ? (uintptr_t) e->decl * 2 + 1
                                     : (uintptr_t) e->addr;
}

static bool
index_contains (const struct bridge_entry *e)
{
  return common_addrmap_get (&index_map, entry_key (e)) != NULL;
}

static bool
grow (void **array, size_t *capacity, size_t element_size)
{
  size_t new_capacity = *capacity ? *capacity * 2 : 32;
  void *p = bridge_realloc (*array, new_capacity * element_size);
  if (!p)
    return false;
  *array = p;
  *capacity = new_capacity;
  return true;
}

enum dumper_status
bridge_registry_add (const struct bridge_entry *e)
{
  if (index_contains (e))
    return DUMPER_OK;
  if (entry_count == entry_capacity
      && !grow ((void **) &entries, &entry_capacity, sizeof *entries))
    return bridge_fail (DUMPER_E_NOMEM, "cannot grow the dump registry");
  if (e->kind == DUMPER_DECL_ROOT && root_count == root_capacity
      && !grow ((void **) &roots, &root_capacity, sizeof *roots))
    return bridge_fail (DUMPER_E_NOMEM, "cannot grow the root table");
  if (index_map.slots == NULL
      && !common_addrmap_init (&index_map, 64, &index_allocator))
    return bridge_fail (DUMPER_E_NOMEM, "cannot make the dump registry index");
  bool added;
  uint64_t *number = common_addrmap_insert (&index_map, entry_key (e), &added);
  if (number == NULL)
    return bridge_fail (DUMPER_E_NOMEM, "cannot grow the dump registry index");
  *number = entry_count;
  entries[entry_count++] = *e;
  if (e->kind == DUMPER_DECL_ROOT)
    roots[root_count++] = e->addr;
  return DUMPER_OK;
}

const struct bridge_entry *
bridge_registry_entries (size_t *count)
{
  *count = entry_count;
  return entries;
}

void
bridge_registry_reset (void)
{
  bridge_free (entries);
  bridge_free (roots);
  common_addrmap_free (&index_map);
  entries = NULL;
  roots = NULL;
  entry_count = entry_capacity = 0;
  root_count = root_capacity = 0;
}

enum dumper_status
bridge_registry_check_types (const struct dumper_heap *heap)
{
  const struct dumper_decl *decls;
  size_t decl_count;
  if (bridge_decls (&decls, &decl_count) != DUMPER_OK)
    return DUMPER_OK;
  /* A static object or a remembered pointer has no referrer to tell
     the length of an owner-sized block, so neither may have such a
     type.  */
  for (size_t i = 0; i < decl_count; i++)
    if ((decls[i].kind == DUMPER_DECL_OBJECTS
         || decls[i].kind == DUMPER_DECL_PTR)
        && decls[i].type >= 0 && decls[i].type < heap->type_count
        && heap->types[decls[i].type].size == NULL)
      return bridge_fail (DUMPER_E_HEAP_DESC, "%s is declared with type %d "
                          "(%s), an owner-sized type (no size function); "
                          "such blocks are reached only with "
                          "dumper_trace_sized, never declared",
                          decls[i].name ? decls[i].name : "a declaration",
                          (int) decls[i].type, heap->types[decls[i].type].name);
  if (entry_count == 0)
    return DUMPER_OK;
  for (size_t i = 0; i < entry_count; i++)
    if (entries[i].kind == DUMPER_DECL_PTR
        && decls[entries[i].decl].type >= heap->type_count)
      return bridge_fail (DUMPER_E_REGISTRATION, "the remembered pointer %s "
                          "has type %d, but the heap description has %d types",
                          decls[entries[i].decl].name,
                          (int) decls[entries[i].decl].type, heap->type_count);
  return DUMPER_OK;
}

/* ------------------------------------------------------------------ */
/* The public registration calls.  */

/* The start of every registration call: clear the detail, get the
   checked table.  */
static enum dumper_status
begin_call (const struct dumper_decl **decls)
{
  bridge_clear_detail ();
  size_t decl_count;
  return bridge_decls (decls, &decl_count);
}

/* Register the words (or the bytes) of declaration INDEX from FIRST to
   LAST (inclusive, both inside it), or its hook.  */
static enum dumper_status
register_decl (const struct dumper_decl *decls, size_t index,
               unsigned char *first, unsigned char *last)
{
  const struct dumper_decl *d = &decls[index];
  if (d->kind == DUMPER_DECL_PTR)
    {
      const struct dumper_heap *heap = bridge_heap ();
      if (heap && d->type >= heap->type_count)
        return bridge_fail (DUMPER_E_REGISTRATION, "the remembered pointer "
                            "%s has type %d, but the heap description has "
                            "%d types", d->name, (int) d->type,
                            heap->type_count);
    }
  struct bridge_entry e = { d->kind, (uint32_t) index, NULL };
  if (d->kind == DUMPER_DECL_HOOK)
    {
      /* Already registered: it was restored from a dump and has run
         after the load, so it must not run a second time.  */
      if (index_contains (&e))
        return DUMPER_OK;
      enum dumper_status st = bridge_registry_add (&e);
      if (st == DUMPER_OK)
        d->fn ();
      return st;
    }
  if (d->kind == DUMPER_DECL_SCALAR)
    {
      e.addr = first;
      return bridge_registry_add (&e);
    }
  for (unsigned char *word = first; word <= last; word += sizeof (uintptr_t))
    {
      e.addr = word;
      enum dumper_status st = bridge_registry_add (&e);
      if (st != DUMPER_OK)
        return st;
    }
  return DUMPER_OK;
}

static enum dumper_status
register_declared (const struct dumper_decl *decl)
{
  const struct dumper_decl *decls;
  enum dumper_status st = begin_call (&decls);
  if (st != DUMPER_OK)
    return st;
  size_t index = bridge_decl_index (decl);
  if (index == SIZE_MAX)
    return bridge_fail (DUMPER_E_REGISTRATION, "the declaration at %p is "
                        "not in the executable's declaration table (section "
                        DUMPER_DECL_SECTION "); declare with the DUMPER_* "
                        "macros in the executable", (const void *) decl);
  if (decl->kind == DUMPER_DECL_CODE || decl->kind == DUMPER_DECL_OBJECTS
      || decl->kind == DUMPER_DECL_CODE_TABLE)
    return DUMPER_OK;   /* declared is all a code target, code table or
                           static object needs */
  /* A hook has no static (addr NULL, size 0), a scalar is one block:
     only the word kinds have a last word.  */
  unsigned char *first = decl->addr;
  unsigned char *last = first;
  if (decl->kind == DUMPER_DECL_ROOT || decl->kind == DUMPER_DECL_WORD
      || decl->kind == DUMPER_DECL_PTR)
    last = first + decl->size - sizeof (uintptr_t);
  return register_decl (decls, index, first, last);
}

enum dumper_status
dumper_register (const struct dumper_decl *decl)
{
  char call[160];
  snprintf (call, sizeof call, "the registration of %s",
            decl && decl->name ? decl->name : "(unnamed)");
  return end_call (register_declared (decl), call);
}

/* " (it is inside the declared word `w')" when ADDR lies in a declared
   static of another kind than KIND, else "".  */
static const char *
declared_as (uint32_t kind, const void *addr, char *out, size_t size)
{
  const struct dumper_decl *decls;
  size_t count;
  out[0] = '\0';
  if (bridge_decls (&decls, &count) != DUMPER_OK)
    return out;
  for (uint32_t k = DUMPER_DECL_ROOT; k <= DUMPER_DECL_KIND_MAX; k++)
    {
      size_t i = k == kind ? SIZE_MAX : bridge_decl_find_static (k, addr);
      if (i != SIZE_MAX)
        {
          snprintf (out, size, " (it is inside the declared %s `%s')",
                    bridge_decl_kind_name (k),
                    decls[i].name ? decls[i].name : "?");
          break;
        }
    }
  return out;
}

/* The function forms: find the declaration, then register as above.  */
static enum dumper_status
find_and_register (uint32_t kind, void *addr, size_t size, int type,
                   const char *call)
{
  const struct dumper_decl *decls;
  enum dumper_status st = begin_call (&decls);
  if (st != DUMPER_OK)
    return st;
  if (addr == NULL)
    return bridge_fail (DUMPER_E_REGISTRATION, "%s: NULL address", call);
  if (kind == DUMPER_DECL_SCALAR && size == 0)
    return bridge_fail (DUMPER_E_REGISTRATION, "%s (%p, 0): zero size", call,
                        addr);
  if (kind == DUMPER_DECL_PTR && type < 0)
    return bridge_fail (DUMPER_E_REGISTRATION, "%s (%p, %d): negative type",
                        call, addr, type);
  size_t index = bridge_decl_find_static (kind, addr);
  char other[160];
  if (index == SIZE_MAX)
    return bridge_fail (DUMPER_E_REGISTRATION, "%s (%p): the address is not "
                        "declared as a %s%s (use DUMPER_DECLARE_%s beside the "
                        "variable, or the DUMPER_* registration macro)", call,
                        addr, bridge_decl_kind_name (kind),
                        declared_as (kind, addr, other, sizeof other),
                        kind == DUMPER_DECL_ROOT ? "ROOT"
                        : kind == DUMPER_DECL_WORD ? "WORD"
                        : kind == DUMPER_DECL_PTR ? "PTR" : "SCALAR");
  const struct dumper_decl *d = &decls[index];
  uintptr_t offset = (uintptr_t) addr - (uintptr_t) d->addr;
  if (kind == DUMPER_DECL_SCALAR && (offset != 0 || size != d->size))
    return bridge_fail (DUMPER_E_REGISTRATION, "%s (%p, %zu): the declared "
                        "scalar %s is %zu bytes at %p; register it whole",
                        call, addr, size, d->name, d->size, d->addr);
  if (kind != DUMPER_DECL_SCALAR && offset % sizeof (uintptr_t) != 0)
    return bridge_fail (DUMPER_E_REGISTRATION, "%s (%p): not a word of the "
                        "declared %s", call, addr, d->name);
  if (kind == DUMPER_DECL_PTR && type != d->type)
    return bridge_fail (DUMPER_E_REGISTRATION, "%s (%p, %d): %s is declared "
                        "with type %d", call, addr, type, d->name,
                        (int) d->type);
  return register_decl (decls, index, addr, addr);
}

static enum dumper_status
register_static (uint32_t kind, void *addr, size_t size, int type,
                 const char *call)
{
  return end_call (find_and_register (kind, addr, size, type, call), call);
}

static enum dumper_status
register_hook (void (*fn) (void))
{
  const struct dumper_decl *decls;
  enum dumper_status st = begin_call (&decls);
  if (st != DUMPER_OK)
    return st;
  if (fn == NULL)
    return bridge_fail (DUMPER_E_REGISTRATION,
                        "dumper_do_now_and_after_load: NULL function");
  size_t index = bridge_decl_find_fn (DUMPER_DECL_HOOK, fn);
  if (index == SIZE_MAX)
    return bridge_fail (DUMPER_E_REGISTRATION, "dumper_do_now_and_after_load "
                        "(%p): the function is not declared as a hook (use "
                        "DUMPER_DECLARE_HOOK or DUMPER_DO_NOW_AND_AFTER_LOAD)",
                        (void *) (uintptr_t) fn);
  return register_decl (decls, index, NULL, NULL);
}

enum dumper_status
dumper_do_now_and_after_load (void (*fn) (void))
{
  return end_call (register_hook (fn), "dumper_do_now_and_after_load");
}

enum dumper_status
dumper_remember_scalar (void *addr, size_t size)
{
  return register_static (DUMPER_DECL_SCALAR, addr, size, 0,
                          "dumper_remember_scalar");
}

enum dumper_status
dumper_remember_ptr (void **addr, int type)
{
  return register_static (DUMPER_DECL_PTR, addr, sizeof *addr, type,
                          "dumper_remember_ptr");
}

enum dumper_status
dumper_remember_word (uintptr_t *addr)
{
  return register_static (DUMPER_DECL_WORD, addr, sizeof *addr, 0,
                          "dumper_remember_word");
}

enum dumper_status
dumper_staticpro (uintptr_t *addr)
{
  return register_static (DUMPER_DECL_ROOT, addr, sizeof *addr, 0,
                          "dumper_staticpro");
}

uintptr_t *const *
dumper_roots (size_t *count)
{
  *count = root_count;
  return roots;
}

/* Hooks are called through the declaration table, never through an
   address from an image (or the saved data).  */
enum dumper_status
bridge_registry_run_hooks (void)
{
  const struct dumper_decl *decls;
  size_t decl_count;
  enum dumper_status st = bridge_decls (&decls, &decl_count);
  if (st != DUMPER_OK)
    return st;
  for (size_t i = 0; i < entry_count; i++)
    if (entries[i].kind == DUMPER_DECL_HOOK)
      {
        if (entries[i].decl >= decl_count
            || decls[entries[i].decl].kind != DUMPER_DECL_HOOK)
          return bridge_fail (DUMPER_E_STATE, "registry entry %zu names "
                              "declaration %" PRIu32 ", not a hook", i,
                              entries[i].decl);
      }
  /* The hooks registered now: one that a hook registers runs next
     start.  */
  size_t count = entry_count;
  for (size_t i = 0; i < count; i++)
    if (entries[i].kind == DUMPER_DECL_HOOK)
      decls[entries[i].decl].fn ();
  return DUMPER_OK;
}
