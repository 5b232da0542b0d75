/* SPDX-License-Identifier: MIT */
/* bridge/alloc.c: heap allocation for the host and for the bridge.

   Every object that must survive a dump is allocated here.  In unexec
   builds the memory comes from the static arena inside the executable
   (unexec/arena.c), because only the executable's own data is written
   into a dumped executable; otherwise from malloc.  Objects inside a
   loaded pdump image belong to no allocator: freeing one is ignored.

   The pre-dump check (refcheck.c) needs to know which memory came from
   here, to refuse a pointer into a plain malloc block or into the
   middle of a block the same way in both back ends.  The arena knows
   its blocks; calloc does not, so pdumper and none builds keep a set
   of the live blocks' addresses, only in a run that will dump, since no
   other run needs it: the set is kept from the start of the process
   until dumper_startup says whether this run dumps.  It is a bitmap
   (common/blockset.c, a bit per 8 bytes of heap), not a hash map: a
   map of every block to its size cost a dumping run 16 to 40 bytes per
   block, a third again on top of the heap, for sizes that are only
   needed in the message about a pointer into the middle of a block,
   which malloc_usable_size gives.

   Host bugs the library can see are statuses, not aborts:
   dumper_realloc of an image object, and dumper_free or dumper_realloc
   of a pointer that is not a live block (a double free) wherever the
   allocator can tell (see dumper.h).  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_MALLOC_USABLE_SIZE
# include <malloc.h>
#endif

#include <dumper/pdump.h>

#include "bridge.h"
#include "common/blockset.h"
#if DUMPER_WITH_UNEXEC
# include "../unexec/arena.h"
# include "../unexec/backend.h"
#endif

#if DUMPER_WITH_UNEXEC

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

static void *
realloc_block (void *ptr, size_t size)
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

#else /* !DUMPER_WITH_UNEXEC */

/* The live blocks of a dumping run (see above).  */
static bool tracking = true;
static struct common_blockset live_blocks;
/* An allocation failed to enter the set (memory ran out, or calloc
   gave an address that is not a multiple of 8): the check cannot trust
   it.  */
static bool tracking_lost;

static void
track (void *p)
{
  bool added;
  if (tracking && !common_blockset_add (&live_blocks, (uintptr_t) p, &added))
    tracking_lost = true;
}

void
bridge_alloc_track (bool on)
{
  tracking = on;
  if (!on)
    common_blockset_free (&live_blocks);
}

enum dumper_status
bridge_alloc_blocks (uintptr_t *managed_start, uintptr_t *managed_end)
{
  if (!tracking || tracking_lost)
    return bridge_fail (DUMPER_E_NOMEM, "the table of dumper_alloc blocks "
                        "is incomplete (out of memory while allocating)");
  *managed_start = *managed_end = 0;
  return DUMPER_OK;
}

void
bridge_alloc_blocks_release (void)
{
}

bool
bridge_alloc_block_p (uintptr_t address, void *data)
{
  (void) data;
  return tracking && common_blockset_has (&live_blocks, address);
}

bool
bridge_alloc_block_size (uintptr_t address, size_t *size)
{
#ifdef HAVE_MALLOC_USABLE_SIZE
  if (tracking && common_blockset_has (&live_blocks, address))
    {
      *size = malloc_usable_size ((void *) address);
      return true;
    }
#else
  (void) address, (void) size;
#endif
  return false;
}

bool
bridge_alloc_block_containing (uintptr_t address, uintptr_t *start,
                               size_t *size)
{
#ifdef HAVE_MALLOC_USABLE_SIZE
  if (tracking && common_blockset_floor (&live_blocks, address, start))
    {
      *size = malloc_usable_size ((void *) *start);
      return address - *start < *size;
    }
#else
  (void) address, (void) start, (void) size;
#endif
  return false;
}

/* Blocks are at least 8 bytes, so calloc's result is 8-aligned (C17:
   aligned for any type of that size) and fits the set's grain.  */
#define MIN_BLOCK 8

void *
dumper_alloc (size_t size)
{
  void *p = calloc (1, size < MIN_BLOCK ? MIN_BLOCK : size);
  if (!p)
    bridge_fail (DUMPER_E_NOMEM, "cannot allocate %zu bytes", size);
  else
    track (p);
  return p;
}

enum dumper_status
dumper_free (void *ptr)
{
  if (ptr == NULL || pdump_object_p (ptr))
    return DUMPER_OK;
  if (tracking && !tracking_lost
      && !common_blockset_remove (&live_blocks, (uintptr_t) ptr))
    return bridge_fail (DUMPER_E_STATE, "dumper_free(%p): the pointer is not "
                        "a live block of dumper_alloc (freed twice?); nothing "
                        "was freed", ptr);
  free (ptr);
  return DUMPER_OK;
}

static void *
realloc_block (void *ptr, size_t size)
{
  if (ptr && tracking && !tracking_lost
      && !common_blockset_has (&live_blocks, (uintptr_t) ptr))
    {
      bridge_fail (DUMPER_E_STATE, "dumper_realloc(%p): the pointer is not a "
                   "live block of dumper_alloc (freed already?)", ptr);
      return NULL;
    }
  uintptr_t old = (uintptr_t) ptr;   /* the key, once ptr is freed */
  void *p = realloc (ptr, size < MIN_BLOCK ? MIN_BLOCK : size);
  if (!p)
    {
      bridge_fail (DUMPER_E_NOMEM, "cannot allocate %zu bytes", size);
      return NULL;
    }
  if (tracking && old)
    common_blockset_remove (&live_blocks, old);
  track (p);
  return p;
}

#endif /* !DUMPER_WITH_UNEXEC */

void *
dumper_realloc (void *ptr, size_t size)
{
  if (ptr != NULL && pdump_object_p (ptr))
    {
      /* The loader keeps no object sizes, so there is nothing to copy
         from safely; the host must copy the object itself.  */
      bridge_fail (DUMPER_E_STATE, "dumper_realloc(%p): the object is inside "
                   "the loaded image, which no allocator owns; copy it "
                   "instead", ptr);
      return NULL;
    }
  return realloc_block (ptr, size);
}

void *
bridge_alloc (size_t size)
{
  return dumper_alloc (size);
}

void *
bridge_realloc (void *ptr, size_t size)
{
  return dumper_realloc (ptr, size);
}

void
bridge_free (void *ptr)
{
  dumper_free (ptr);
}
