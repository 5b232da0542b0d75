/* SPDX-License-Identifier: MIT */
/* bridge/alloc.c: heap allocation for the host and for the bridge:
   what every build shares.  The allocator itself is alloc-arena.c in
   unexec builds, alloc-malloc.c in the others.

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

#include <stdlib.h>

#include <dumper/pdump.h>

#include <dumper/pdump.h>

#include "bridge.h"

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
  return bridge_realloc_block (ptr, size);
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
