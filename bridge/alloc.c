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
   its blocks; calloc does not, so pdumper and none builds keep a table
   of the live blocks (common/addrmap.c), only in a run that will dump, since
   no other run needs it: the table is kept from the start of the
   process until dumper_startup says whether this run dumps.

   Host bugs the library can see are statuses, not aborts:
   dumper_realloc of an image object, and dumper_free or dumper_realloc
   of a pointer that is not a live block (a double free) wherever the
   allocator can tell (see dumper.h).  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/pdump.h>

#include "bridge.h"
#if DUMPER_WITH_UNEXEC
# include "../unexec/arena.h"
# include "../unexec/backend.h"
#endif

#if DUMPER_WITH_UNEXEC

static struct common_addrmap arena_blocks;

static void
note_arena_block (void *payload, size_t size, void *ctx)
{
  if (!common_addrmap_put (&arena_blocks, (uintptr_t) payload, size))
    *(bool *) ctx = false;
}

void
bridge_alloc_track (bool on)
{
  (void) on;   /* the arena knows its blocks */
}

enum dumper_status
bridge_alloc_blocks (struct common_addrmap **blocks,
                     uintptr_t *managed_start, uintptr_t *managed_end)
{
  common_addrmap_free (&arena_blocks);
  bool ok = true;
  unexec_arena_each_block (note_arena_block, &ok);
  if (!ok)
    return bridge_fail (DUMPER_E_NOMEM, "out of memory listing the arena's "
                        "blocks");
  void *base;
  size_t used, capacity;
  unexec_arena_bounds (&base, &used, &capacity);
  *blocks = &arena_blocks;
  *managed_start = (uintptr_t) base;
  *managed_end = (uintptr_t) base + capacity;
  return DUMPER_OK;
}

void
bridge_alloc_blocks_release (void)
{
  common_addrmap_free (&arena_blocks);
}

bool
bridge_alloc_block_p (uintptr_t address, void *data)
{
  (void) data;
  return unexec_arena_not_live ((const void *) address) == NULL;
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
static struct common_addrmap live_blocks;
/* An allocation failed to enter the table: the check cannot trust it.  */
static bool tracking_lost;

static void
track (void *p, size_t size)
{
  if (tracking && !common_addrmap_put (&live_blocks, (uintptr_t) p,
                                        size ? size : 1))
    tracking_lost = true;
}

void
bridge_alloc_track (bool on)
{
  tracking = on;
  if (!on)
    common_addrmap_free (&live_blocks);
}

enum dumper_status
bridge_alloc_blocks (struct common_addrmap **blocks,
                     uintptr_t *managed_start, uintptr_t *managed_end)
{
  if (!tracking || tracking_lost)
    return bridge_fail (DUMPER_E_NOMEM, "the table of dumper_alloc blocks "
                        "is incomplete (out of memory while allocating)");
  *blocks = &live_blocks;
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
  return tracking && common_addrmap_get (&live_blocks, address) != NULL;
}

void *
dumper_alloc (size_t size)
{
  void *p = calloc (1, size ? size : 1);
  if (!p)
    bridge_fail (DUMPER_E_NOMEM, "cannot allocate %zu bytes", size);
  else
    track (p, size);
  return p;
}

enum dumper_status
dumper_free (void *ptr)
{
  if (ptr == NULL || pdump_object_p (ptr))
    return DUMPER_OK;
  if (tracking && !tracking_lost
      && !common_addrmap_remove (&live_blocks, (uintptr_t) ptr))
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
      && !common_addrmap_get (&live_blocks, (uintptr_t) ptr))
    {
      bridge_fail (DUMPER_E_STATE, "dumper_realloc(%p): the pointer is not a "
                   "live block of dumper_alloc (freed already?)", ptr);
      return NULL;
    }
  uintptr_t old = (uintptr_t) ptr;   /* the key, once ptr is freed */
  void *p = realloc (ptr, size ? size : 1);
  if (!p)
    {
      bridge_fail (DUMPER_E_NOMEM, "cannot allocate %zu bytes", size);
      return NULL;
    }
  if (tracking && old)
    common_addrmap_remove (&live_blocks, old);
  track (p, size);
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
