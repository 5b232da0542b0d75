/* SPDX-License-Identifier: MIT */
/* bridge/backend-unexec.c: unexec behind bridge_backend (backend.h),
   in --with-dumper=unexec builds: a dumped executable starts with its
   state in place and runs its hooks; a dump runs the pre-dump check
   and writes a new executable.  */

#include <config.h>

#include <string.h>

#include "backend.h"
#include "bridge.h"
#include "../unexec/backend.h"

/* bridge_backend.start: in a dumped executable, data, arena and
   registry are already in place; only the hooks remain.  Otherwise a
   cold start.  */
static enum dumper_status
start_unexec (const struct bridge_start *s)
{
  (void) s;
  if (!dumper_gflags.dumped_with_unexec_)
    return DUMPER_OK;
  double t1 = bridge_now ();
  struct dumper_start_info *info = bridge_start_info_mut ();
  info->origin = DUMPER_ORIGIN_UNEXEC;
  enum dumper_status st = bridge_registry_run_hooks ();
  if (st != DUMPER_OK)
    return st;
  info->load_seconds = bridge_now () - t1;
  return DUMPER_OK;
}

/* The executable, with the flags the dumped program must start with
   set just for the write (the data segment is copied as it is).  */
static enum dumper_status
write_executable (const char *output)
{
  /* The dumped program starts initialised, from unexec, not dumping.  */
  struct dumper_gflags saved = dumper_gflags;
  struct dumper_gflags dumped = { 0 };
  dumped.initialized_ = true;
  dumped.dumped_with_unexec_ = true;
  bridge_set_flags (&dumped);

  char detail[1024] = "";
  struct unexec_request req = {
    output, bridge_warning_sink, NULL, detail, sizeof detail
  };
  /* The start information of this run (its timings above all) is set
     again by the dumped program's dumper_startup; saved as it is, it
     would make two dumps of one state differ.  */
  struct dumper_start_info *info = bridge_start_info_mut ();
  struct dumper_start_info saved_info = *info;
  memset (info, 0, sizeof *info);
  bool was_started = bridge_startup_swap_started (false);
  enum dumper_status st = unexec_write (&req);
  bridge_startup_swap_started (was_started);
  *info = saved_info;
  bridge_set_flags (&saved);
  if (st != DUMPER_OK)
    return bridge_fail_detail (st, detail);
  return DUMPER_OK;
}

/* bridge_backend.dump.  */
static enum dumper_status
dump_unexec (const char *output)
{
  enum dumper_status st = bridge_check_references (bridge_heap (), NULL);
  return st == DUMPER_OK ? write_executable (output) : st;
}

const struct bridge_backend bridge_backend = {
  .configure = "--with-dumper=unexec", .temacs = "dump",
  .loads_files = false, .start = start_unexec, .dump = dump_unexec
};
