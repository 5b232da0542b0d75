/* SPDX-License-Identifier: MIT */
/* bridge/alloc.c: heap allocation for the host and for the bridge.

   Every object that must survive a dump is allocated here.  In unexec
   builds the memory comes from the static arena inside the executable
   (unexec/arena.c), because only the executable's own data is written
   into a dumped executable; otherwise from malloc.  Objects inside a
   loaded pdump image belong to no allocator: freeing one is ignored.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/pdump.h>

#include "bridge.h"
#if DUMPER_WITH_UNEXEC
# include "../unexec/backend.h"
#endif

void *
dumper_alloc (size_t size)
{
#if DUMPER_WITH_UNEXEC
  char detail[256];
  void *p = unexec_arena_alloc (size, detail, sizeof detail);
  if (!p)
    bridge_fail_detail (DUMPER_E_ARENA_FULL, detail);
  return p;
#else
  void *p = calloc (1, size ? size : 1);
  if (!p)
    bridge_fail (DUMPER_E_NOMEM, "cannot allocate %zu bytes", size);
  return p;
#endif
}

void
dumper_free (void *ptr)
{
  if (ptr == NULL || pdump_object_p (ptr))
    return;
#if DUMPER_WITH_UNEXEC
  unexec_arena_free (ptr);
#else
  free (ptr);
#endif
}

void *
dumper_realloc (void *ptr, size_t size)
{
  if (ptr != NULL && pdump_object_p (ptr))
    {
      /* A broken invariant of the host, not bad input: the loader cannot
         know the object's size, so there is nothing safe to do.  */
      fprintf (stderr, "dumper: dumper_realloc called on an object inside "
               "the loaded image (%p); copy image objects instead\n", ptr);
      abort ();
    }
#if DUMPER_WITH_UNEXEC
  char detail[256];
  void *p = unexec_arena_realloc (ptr, size, detail, sizeof detail);
  if (!p && size)
    bridge_fail_detail (DUMPER_E_ARENA_FULL, detail);
  return p;
#else
  void *p = realloc (ptr, size ? size : 1);
  if (!p)
    bridge_fail (DUMPER_E_NOMEM, "cannot allocate %zu bytes", size);
  return p;
#endif
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
