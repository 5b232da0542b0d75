/* SPDX-License-Identifier: MIT */
/* bridge/alloc-arena.c: dumper_alloc in --with-dumper=unexec builds,
   from the static arena inside the executable (unexec/arena.c): only
   the executable's own data is written into a dumped executable.  The
   arena knows its blocks, so nothing is tracked here.  alloc.c has what
   every build shares.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/pdump.h>

#include "bridge.h"
#include "common/blockset.h"
#include "../unexec/backend.h"

void
bridge_alloc_track (bool on)
{
  (void) on;   /* the arena knows its blocks */
}

/* The arena's blocks, listed for a check: exact, where
   unexec_arena_not_live only reads the header before a pointer.  Only
   the check asks bridge_alloc_block_p in an unexec build (the pdump
   writer's lint is not built), so outside it the set is empty.  */
static struct common_blockset arena_blocks;

static void
note_arena_block (void *payload, size_t size, void *ctx)
{
  (void) size;
  bool added;
  if (!common_blockset_add (&arena_blocks, (uintptr_t) payload, &added))
    *(bool *) ctx = false;
}

enum dumper_status
bridge_alloc_blocks (uintptr_t *managed_start, uintptr_t *managed_end)
{
  bridge_alloc_blocks_release ();
  bool ok = true;
  unexec_arena_each_block (note_arena_block, &ok);
  if (!ok)
    {
      bridge_alloc_blocks_release ();
      return bridge_fail (DUMPER_E_NOMEM, "out of memory listing the arena's "
                          "blocks");
    }
  void *base;
  size_t used, capacity;
  unexec_arena_bounds (&base, &used, &capacity);
  *managed_start = (uintptr_t) base;
  *managed_end = (uintptr_t) base + capacity;
  return DUMPER_OK;
}

void
bridge_alloc_blocks_release (void)
{
  common_blockset_free (&arena_blocks);
}

struct containing
{
  uintptr_t address, start;
  size_t size;
  bool found;
};

static void
note_containing (void *payload, size_t size, void *ctx)
{
  struct containing *c = ctx;
  uintptr_t start = (uintptr_t) payload;
  if (c->address >= start && c->address - start < size)
    {
      c->start = start;
      c->size = size;
      c->found = true;
    }
}

bool
bridge_alloc_block_containing (uintptr_t address, uintptr_t *start,
                               size_t *size)
{
  struct containing c = { .address = address };
  unexec_arena_each_block (note_containing, &c);
  *start = c.start;
  *size = c.size;
  return c.found;
}

bool
bridge_alloc_block_p (uintptr_t address, void *data)
{
  (void) data;
  return common_blockset_has (&arena_blocks, address);
}

bool
bridge_alloc_block_size (uintptr_t address, size_t *size)
{
  if (!common_blockset_has (&arena_blocks, address))
    return false;
  *size = unexec_arena_usable_size ((const void *) address);
  return true;
}

void *
dumper_alloc (size_t size)
{
  char detail[256];
  void *p = unexec_arena_alloc (size, detail, sizeof detail);
  if (!p)
    bridge_fail_detail (DUMPER_E_ARENA_FULL, detail);
  return p;
}

enum dumper_status
dumper_free (void *ptr)
{
  if (ptr == NULL || pdump_object_p (ptr))
    return DUMPER_OK;
  const char *problem = unexec_arena_not_live (ptr);
  if (problem)
    return bridge_fail (DUMPER_E_STATE, "dumper_free(%p): the pointer %s; "
                        "nothing was freed", ptr, problem);
  unexec_arena_free (ptr);
  return DUMPER_OK;
}

void *
bridge_realloc_block (void *ptr, size_t size)
{
  const char *problem = ptr ? unexec_arena_not_live (ptr) : NULL;
  if (problem)
    {
      bridge_fail (DUMPER_E_STATE, "dumper_realloc(%p): the pointer %s",
                   ptr, problem);
      return NULL;
    }
  char detail[256];
  void *p = unexec_arena_realloc (ptr, size, detail, sizeof detail);
  if (!p && size)
    bridge_fail_detail (DUMPER_E_ARENA_FULL, detail);
  return p;
}
