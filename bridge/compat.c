/* SPDX-License-Identifier: MIT */
/* bridge/compat.c: unexec (), Emacs's entry point to the unexec writer
   (include/dumper/unexec-compat.h).

   The second entry point of the one unexec writer (unexec/write.c), for
   programs that are not libdumper hosts: no arena, no gflags, no
   registry.  What it saves besides .data and .bss is the brk heap, as
   Emacs's unexelf.c does, because the C library's malloc keeps there
   what such a program may have saved pointers to.  Emacs's contract has
   no error channel, so a failure is a message and an exit, with the
   statuses every libdumper program uses.  Built only into unexec
   builds; it pulls in neither the arena nor the rest of the bridge.  */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/unexec-compat.h>

#include "bridge.h"
#include "common/maps.h"
#include "unexec/backend.h"

static _Noreturn void
fail (enum dumper_status status, const char *detail)
{
  fprintf (stderr, "unexec: %s: %s\n", dumper_strerror (status), detail);
  exit (dumper_exit_status (status));
}

void
unexec (const char *new_name, const char *old_name)
{
  char detail[1024];
  struct unexec_memory mem;
  memset (&mem, 0, sizeof mem);
  mem.compress_debug = true;
  if (!common_brk_range (&mem.brk_heap.start, &mem.brk_heap.end))
    {
      snprintf (detail, sizeof detail, "cannot find the brk heap in "
                "/proc/self/stat: %s", strerror (errno));
      fail (DUMPER_E_EXE, detail);
    }
  struct unexec_request req = {
    .output = new_name,
    .detail = detail,
    .detail_size = sizeof detail,
  };
  enum dumper_status status
    = unexec_write_memory (old_name ? old_name : "/proc/self/exe", &req, &mem);
  if (status != DUMPER_OK)
    fail (status, detail);
}
