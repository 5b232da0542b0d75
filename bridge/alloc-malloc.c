/* SPDX-License-Identifier: MIT */
/* bridge/alloc-malloc.c: dumper_alloc in pdumper and none builds, from
   calloc, with the set of live blocks a dumping run keeps for the
   pre-dump check (alloc.c says why a bitmap).  alloc.c has what every
   build shares.  */

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

void *
bridge_realloc_block (void *ptr, size_t size)
{
  /* The key, taken first: once realloc has freed PTR it is only a
     number (and gcc's -Wuse-after-free sees no use of it after).  */
  uintptr_t old = (uintptr_t) ptr;
  if (ptr && tracking && !tracking_lost
      && !common_blockset_has (&live_blocks, old))
    {
      bridge_fail (DUMPER_E_STATE, "dumper_realloc(%p): the pointer is not a "
                   "live block of dumper_alloc (freed already?)", ptr);
      return NULL;
    }
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
