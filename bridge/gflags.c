/* SPDX-License-Identifier: MIT */
/* bridge/gflags.c: the storage of the global dump flags (gflags.h).

   The object is deliberately an initialised-to-zero global of the
   library: statically linked into an unexec host it lives in the
   executable's .bss, so a dumped executable starts with the values the
   unexec writer saved.  Only the bridge writes it.  */

#include <config.h>

#include "bridge.h"

struct dumper_gflags dumper_gflags;

void
bridge_set_flags (const struct dumper_gflags *flags)
{
  dumper_gflags = *flags;
}

void
dumper_mark_initialized (void)
{
  dumper_gflags.initialized_ = true;
}
