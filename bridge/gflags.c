/* SPDX-License-Identifier: MIT */
/* bridge/gflags.c: the storage of the global dump flags (gflags.h),
   and of the rest of the process's start state: what dumper_start_info
   reports and whether dumper_startup has run.

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

static struct dumper_start_info start_info;
static bool started;

struct dumper_start_info *
bridge_start_info_mut (void)
{
  return &start_info;
}

const struct dumper_start_info *
dumper_start_info (void)
{
  return &start_info;
}

/* An unexec dump saves the data segment as it is, `started' included;
   dump_unexec clears it for the write so the dumped program may call
   dumper_startup.  Returns the previous value.  */
bool
bridge_startup_swap_started (bool value)
{
  bool old = started;
  started = value;
  return old;
}
