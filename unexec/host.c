/* SPDX-License-Identifier: MIT */
/* unexec/host.c: unexec_write, the dump of a libdumper host.

   A host's heap is the static arena (arena.c): scrub it (freed memory
   is saved as zeros), tell the writer where it is and how much is used,
   and let write.c do the rest.  Kept apart from write.c so that a
   program that only calls unexec () (bridge/compat.c) does not link the
   arena and its reserved address space.  */

#include <config.h>

#include <string.h>

#include "arena.h"
#include "internal.h"

enum dumper_status
unexec_write_from (const char *input, const struct unexec_request *req)
{
  struct unexec_memory mem;
  memset (&mem, 0, sizeof mem);
  unexec_arena_scrub ();
  void *base;
  unexec_arena_bounds (&base, &mem.arena.used, &mem.arena.capacity);
  mem.arena.base = (uintptr_t) base;
  return unexec_write_memory (input, req, &mem);
}

enum dumper_status
unexec_write (const struct unexec_request *req)
{
  return unexec_write_from ("/proc/self/exe", req);
}
