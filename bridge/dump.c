/* SPDX-License-Identifier: MIT */
/* bridge/dump.c: dumper_dump, which hands the current state to the
   configured back end.

   Owns the checks common to both back ends (a dump was asked for at
   start-up, the heap is initialised, an output was given) and the
   conversion of the bridge's registry and flags into the back end's
   arguments.  For unexec it sets the flags the dumped program must start
   with just for the duration of the write, since the data segment is
   copied as it is.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "common/blockset.h"
#include "common/options.h"
#if DUMPER_WITH_PDUMPER
# include "../pdump/backend.h"
#endif
#if DUMPER_WITH_UNEXEC
# include "../unexec/backend.h"
#endif

#if DUMPER_WITH_PDUMPER
/* REACHABLE: the check's numbered set of the live blocks it reached
   (empty when it had no heap description or ran out of memory).  */
static enum dumper_status
dump_pdump (const char *output, struct common_blockset *reachable)
{
  const struct dumper_heap *heap = bridge_heap ();
  if (heap == NULL)
    return bridge_fail (DUMPER_E_HEAP_DESC,
                        "no heap description: call dumper_describe_heap "
                        "before dumper_dump");
  unsigned char fingerprint[DUMPER_FINGERPRINT_SIZE];
  enum dumper_status st = dumper_fingerprint (fingerprint);
  if (st != DUMPER_OK)
    return st;

  const struct dumper_decl *decls;
  size_t decl_count;
  st = bridge_decls (&decls, &decl_count);
  if (st != DUMPER_OK)
    return st;

  size_t count;
  const struct bridge_entry *entries = bridge_registry_entries (&count);
  struct pdump_entry *records = malloc ((count ? count : 1) * sizeof *records);
  if (records == NULL)
    return bridge_fail (DUMPER_E_NOMEM, "cannot copy the registry");
  for (size_t i = 0; i < count; i++)
    {
      records[i].decl = entries[i].decl;
      records[i].kind = entries[i].kind;
      records[i].addr = entries[i].addr;
    }
  struct common_options options;
  st = bridge_options (&options);
  if (st != DUMPER_OK)
    {
      free (records);
      return st;
    }
  char detail[1024] = "";
  struct pdump_write_request req = {
    .output = output, .heap = heap, .decls = decls, .decl_count = decl_count,
    .entries = records, .entry_count = count, .fingerprint = fingerprint,
    .detail = detail, .detail_size = sizeof detail,
    .options = &options,
    .warn = bridge_warning_sink, .warn_data = NULL,
    .heap_block = bridge_alloc_block_p, .heap_block_data = NULL,
    .reachable = reachable
  };
  st = pdump_write (&req);
  free (records);
  if (st != DUMPER_OK)
    return bridge_fail_detail (st, detail);
  return DUMPER_OK;
}
#endif

#if DUMPER_WITH_UNEXEC
static enum dumper_status
dump_unexec (const char *output)
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
#endif

enum dumper_status
dumper_dump (const char *output)
{
  bridge_clear_detail ();
  if (!DUMPER_WITH_PDUMPER && !DUMPER_WITH_UNEXEC)
    return bridge_fail (DUMPER_E_NO_BACKEND,
                        "this build was configured with --with-dumper=none "
                        "and cannot dump; reconfigure with "
                        "--with-dumper=pdumper or --with-dumper=unexec");
  if (output == NULL || output[0] == '\0')
    return bridge_fail (DUMPER_E_USAGE, "no output file given for the dump");
  /* Before anything is written: a refused registration means a static
     the host meant to save would be missing from the dump.  */
  if (bridge_registration_error () != DUMPER_OK)
    return DUMPER_E_REGISTRATION;
  if (!dumper_gflags.will_dump_)
    return bridge_fail (DUMPER_E_STATE,
                        "dumper_dump called in a run that was not started to "
                        "dump; start the program with --temacs=%s",
                        DUMPER_WITH_PDUMPER ? "pdump" : "dump");
  if (!dumper_gflags.initialized_)
    return bridge_fail (DUMPER_E_STATE,
                        "dumper_dump called before the heap was initialised "
                        "(call dumper_mark_initialized after the cold init)");
#if DUMPER_WITH_PDUMPER
  struct common_blockset reachable = { 0 };
  enum dumper_status st = bridge_check_references (bridge_heap (), &reachable);
  if (st == DUMPER_OK)
    st = dump_pdump (output, &reachable);
  common_blockset_free (&reachable);
  return st;
#else
  enum dumper_status st = bridge_check_references (bridge_heap (), NULL);
  if (st != DUMPER_OK)
    return st;
# if DUMPER_WITH_UNEXEC
  return dump_unexec (output);
# else
  return DUMPER_E_NO_BACKEND;
# endif
#endif
}
