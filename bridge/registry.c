/* SPDX-License-Identifier: MIT */
/* bridge/registry.c: the ordered registry of roots, remembered data and
   after-load hooks.

   Entries are kept in registration order, because that is the order in
   which a loader restores data and runs hooks.  A hash set keyed by
   (kind, address) makes re-registration a no-op, so a host may register
   on every start.  All storage comes from bridge_alloc: in unexec
   builds that is the static arena, so a dumped executable still has its
   registry.  The GC roots are also kept in a separate array, because a
   collector scans them on every collection.  */

#include <config.h>

#include <string.h>

#include "bridge.h"

static struct bridge_entry *entries;
static size_t entry_count, entry_capacity;

static uintptr_t **roots;
static size_t root_count, root_capacity;

/* Open-addressing set of entry indexes + 1 (0 = empty slot).  */
static uint32_t *index_slots;
static size_t index_capacity;   /* power of two, or 0 */

static uintptr_t
entry_key (const struct bridge_entry *e)
{
  uintptr_t addr = e->kind == BRIDGE_ENTRY_HOOK ? (uintptr_t) e->hook
                                                : (uintptr_t) e->addr;
  return addr * 8 + (uintptr_t) e->kind;
}

static size_t
key_hash (uintptr_t key, size_t mask)
{
  /* Fibonacci hashing: addresses differ mostly in their middle bits.  */
  uint64_t h = (uint64_t) key * UINT64_C (0x9E3779B97F4A7C15);
  return (size_t) (h >> 32) & mask;
}

static bool
index_insert (size_t entry_index)
{
  size_t mask = index_capacity - 1;
  size_t slot = key_hash (entry_key (&entries[entry_index]), mask);
  while (index_slots[slot] != 0)
    slot = (slot + 1) & mask;
  index_slots[slot] = (uint32_t) entry_index + 1;
  return true;
}

static bool
index_grow (void)
{
  size_t capacity = index_capacity ? index_capacity * 2 : 64;
  uint32_t *slots = bridge_alloc (capacity * sizeof *slots);
  if (!slots)
    return false;
  bridge_free (index_slots);
  index_slots = slots;
  index_capacity = capacity;
  for (size_t i = 0; i < entry_count; i++)
    index_insert (i);
  return true;
}

static bool
index_contains (const struct bridge_entry *e)
{
  if (index_capacity == 0)
    return false;
  size_t mask = index_capacity - 1;
  uintptr_t key = entry_key (e);
  for (size_t slot = key_hash (key, mask); index_slots[slot] != 0;
       slot = (slot + 1) & mask)
    if (entry_key (&entries[index_slots[slot] - 1]) == key)
      return true;
  return false;
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
  if (e->kind == BRIDGE_ENTRY_ROOT && root_count == root_capacity
      && !grow ((void **) &roots, &root_capacity, sizeof *roots))
    return bridge_fail (DUMPER_E_NOMEM, "cannot grow the root table");
  /* Keep the hash set at most half full.  */
  if ((entry_count + 1) * 2 > index_capacity && !index_grow ())
    return bridge_fail (DUMPER_E_NOMEM, "cannot grow the dump registry index");
  entries[entry_count] = *e;
  index_insert (entry_count);
  entry_count++;
  if (e->kind == BRIDGE_ENTRY_ROOT)
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
  bridge_free (index_slots);
  entries = NULL;
  roots = NULL;
  index_slots = NULL;
  entry_count = entry_capacity = 0;
  root_count = root_capacity = 0;
  index_capacity = 0;
}

/* ------------------------------------------------------------------ */
/* The public registration calls.  */

enum dumper_status
dumper_do_now_and_after_load (void (*fn) (void))
{
  bridge_clear_detail ();
  struct bridge_entry e = { BRIDGE_ENTRY_HOOK, NULL, 0, fn };
  /* Already registered: it was restored from a dump and has run after
     the load, so it must not run a second time.  */
  if (index_contains (&e))
    return DUMPER_OK;
  enum dumper_status st = bridge_registry_add (&e);
  if (st == DUMPER_OK)
    fn ();
  return st;
}

enum dumper_status
dumper_remember_scalar (void *addr, size_t size)
{
  bridge_clear_detail ();
  struct bridge_entry e = { BRIDGE_ENTRY_SCALAR, addr, size, NULL };
  return bridge_registry_add (&e);
}

enum dumper_status
dumper_remember_ptr (void **addr, int type)
{
  bridge_clear_detail ();
  struct bridge_entry e = { BRIDGE_ENTRY_PTR, addr, (size_t) type, NULL };
  return bridge_registry_add (&e);
}

enum dumper_status
dumper_remember_word (uintptr_t *addr)
{
  bridge_clear_detail ();
  struct bridge_entry e = { BRIDGE_ENTRY_WORD, addr, 0, NULL };
  return bridge_registry_add (&e);
}

enum dumper_status
dumper_staticpro (uintptr_t *addr)
{
  bridge_clear_detail ();
  struct bridge_entry e = { BRIDGE_ENTRY_ROOT, addr, 0, NULL };
  return bridge_registry_add (&e);
}

uintptr_t *const *
dumper_roots (size_t *count)
{
  *count = root_count;
  return roots;
}
