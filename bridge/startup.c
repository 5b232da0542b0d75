/* SPDX-License-Identifier: MIT */
/* bridge/startup.c: dumper_startup, the one call at the top of a host's
   main.

   Owns the start-up sequence shared by every back end: parse the
   bridge's options, refuse a back end the build lacks, re-execute once
   with ASLR disabled for an unexec dump, set the flags, and let the back
   end (bridge_backend, backend.h) bring in the state: load a pdump
   image, or in a dumped unexec executable notice that it is already
   there, and run the after-load hooks in registration order.
   It must not print except through the warning handler, and never
   exits.  */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "bridge.h"
#include "common/options.h"
#include "common/os.h"

/* Refuse requests for a back end this build does not have.  */
static enum dumper_status
check_backend (const struct bridge_args *args)
{
  const char *have = bridge_backend.temacs;
  const char *asked = args->dump == BRIDGE_DUMP_PDUMP ? "pdump" : "dump";
  if (args->dump != BRIDGE_DUMP_NONE
      && (have == NULL || strcmp (asked, have) != 0))
    return bridge_fail (DUMPER_E_NO_BACKEND,
                        "--temacs=%s needs %s, but this build was configured "
                        "with %s%s%s%s", asked,
                        args->dump == BRIDGE_DUMP_PDUMP
                        ? "the portable dumper" : "unexec",
                        bridge_backend.configure, have ? " (use --temacs=" : "",
                        have ? have : "", have ? ")" : "");
  if (args->dump_file && !bridge_backend.loads_files)
    return bridge_fail (DUMPER_E_NO_BACKEND,
                        "--dump-file=%s needs the portable dumper, but this "
                        "build was configured with %s", args->dump_file,
                        bridge_backend.configure);
  return DUMPER_OK;
}

/* An unexec dump must see the same addresses on every run of the
   dumping program, so it runs with ASLR disabled: common_reexec_
   without_aslr sets the personality flag and re-executes us once.
   Failure is not fatal (the static arena and a non-PIE executable do
   not move anyway); it is a warning, and the environment variable
   guarantees we never loop.  */
static void
reexec_without_aslr (char **original_argv, bool retried)
{
  char why[256];
  if (!common_reexec_without_aslr (original_argv, BRIDGE_REEXEC_ENV, retried,
                                   why, sizeof why))
    bridge_warn ("%s; dumping with ASLR enabled", why);
}

/* Step: the bridge's options of ARGS that are settings (--compress,
   --image-base) applied through the API.  */
static enum dumper_status
apply_args (const struct bridge_args *args)
{
  enum dumper_status st = DUMPER_OK;
  if (args->compress)
    st = dumper_set_compression (args->compress);
  if (st == DUMPER_OK && args->image_base)
    {
      char *end;
      errno = 0;
      unsigned long long base = strtoull (args->image_base, &end, 0);
      st = errno || *end || end == args->image_base
           ? bridge_fail (DUMPER_E_USAGE, "--image-base=%s: not an address",
                          args->image_base)
           : dumper_set_image_base (base);
    }
  return st;
}

/* Step: the flags and start information of a start that will dump as
   ARGS says, before any image is loaded.  */
static void
begin_start (const struct bridge_args *args)
{
  bridge_alloc_track (args->dump != BRIDGE_DUMP_NONE);
  struct dumper_gflags flags = dumper_gflags;   /* unexec: as saved */
  flags.will_dump_ = args->dump != BRIDGE_DUMP_NONE;
  flags.will_dump_with_unexec_ = args->dump == BRIDGE_DUMP_UNEXEC;
  flags.will_dump_with_pdumper_ = args->dump == BRIDGE_DUMP_PDUMP;
  bridge_set_flags (&flags);

  struct dumper_start_info *info = bridge_start_info_mut ();
  info->origin = DUMPER_ORIGIN_COLD;
  info->image_path = NULL;
  info->load_seconds = 0;
  info->moved = false;   /* unexec too: the arena stays in place */
}


enum dumper_status
dumper_startup (int *argc, char ***argv)
{
  double t0 = bridge_now ();
  bridge_clear_detail ();
  if (bridge_startup_swap_started (true))
    return bridge_fail (DUMPER_E_STATE, "dumper_startup called twice");

  /* A malformed declaration table is a build defect: refuse to start
     rather than fail at the first registration or load.  */
  const struct dumper_decl *decls;
  size_t decl_count;
  enum dumper_status st = bridge_decls (&decls, &decl_count);
  if (st != DUMPER_OK)
    return st;

  /* Keep the original vector for the ASLR re-exec: parsing rewrites it.  */
  int original_count = *argc;
  char **original = malloc (((size_t) original_count + 1) * sizeof *original);
  if (original == NULL)
    return bridge_fail (DUMPER_E_NOMEM, "cannot copy the argument vector");
  memcpy (original, *argv, (size_t) original_count * sizeof *original);
  original[original_count] = NULL;

  struct bridge_args args;
  st = bridge_parse_args (argc, argv, &args);
  if (st == DUMPER_OK)
    st = check_backend (&args);
  if (st == DUMPER_OK)
    st = apply_args (&args);
  if (st != DUMPER_OK)
    {
      free (original);
      return st;
    }
  /* Every setting, once.  A bad loader setting in the environment
     fails only a start that loads: a cold start and an unexec one never
     read them.  */
  struct common_options options;
  enum dumper_status options_status = bridge_options (&options);
  if (args.dump == BRIDGE_DUMP_UNEXEC)
    reexec_without_aslr (original, options.aslr_reexecuted);
  free (original);

  begin_start (&args);
  struct bridge_start start = { &args, &options, options_status, (*argv)[0] };
  st = bridge_backend.start (&start);
  if (st != DUMPER_OK)
    return st;
  bridge_start_info_mut ()->startup_seconds = bridge_now () - t0;
  return DUMPER_OK;
}
