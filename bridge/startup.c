/* SPDX-License-Identifier: MIT */
/* bridge/startup.c: dumper_startup, the one call at the top of a host's
   main.

   Owns the start-up sequence shared by every back end: parse the
   bridge's options, refuse a back end the build lacks, re-execute once
   with ASLR disabled for an unexec dump, set the flags, find and load a
   pdump image (or, in a dumped unexec executable, notice that the state
   is already there) and run the after-load hooks in registration order.
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

#include "bridge.h"
#include "common/options.h"
#include "common/os.h"
#if DUMPER_WITH_PDUMPER
# include "../pdump/backend.h"
#endif

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

static const char *
backend_option (void)
{
  return DUMPER_WITH_PDUMPER ? "--with-dumper=pdumper"
         : DUMPER_WITH_UNEXEC ? "--with-dumper=unexec"
         : "--with-dumper=none";
}

/* Refuse requests for a back end this build does not have.  */
static enum dumper_status
check_backend (const struct bridge_args *args)
{
  if (args->dump == BRIDGE_DUMP_PDUMP && !DUMPER_WITH_PDUMPER)
    return bridge_fail (DUMPER_E_NO_BACKEND,
                        "--temacs=pdump needs the portable dumper, but this "
                        "build was configured with %s%s", backend_option (),
                        DUMPER_WITH_UNEXEC ? " (use --temacs=dump)" : "");
  if (args->dump == BRIDGE_DUMP_UNEXEC && !DUMPER_WITH_UNEXEC)
    return bridge_fail (DUMPER_E_NO_BACKEND,
                        "--temacs=dump needs unexec, but this build was "
                        "configured with %s%s", backend_option (),
                        DUMPER_WITH_PDUMPER ? " (use --temacs=pdump)" : "");
  if (args->dump_file && !DUMPER_WITH_PDUMPER)
    return bridge_fail (DUMPER_E_NO_BACKEND,
                        "--dump-file=%s needs the portable dumper, but this "
                        "build was configured with %s", args->dump_file,
                        backend_option ());
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

/* Hooks are called through the declaration table, never through an
   address from an image (or the saved data).  */
static enum dumper_status
run_hooks (void)
{
  const struct dumper_decl *decls;
  size_t decl_count;
  enum dumper_status st = bridge_decls (&decls, &decl_count);
  if (st != DUMPER_OK)
    return st;
  size_t count;
  const struct bridge_entry *entries = bridge_registry_entries (&count);
  for (size_t i = 0; i < count; i++)
    if (entries[i].kind == DUMPER_DECL_HOOK)
      {
        if (entries[i].decl >= decl_count
            || decls[entries[i].decl].kind != DUMPER_DECL_HOOK)
          return bridge_fail (DUMPER_E_STATE, "registry entry %zu names "
                              "declaration %" PRIu32 ", not a hook", i,
                              entries[i].decl);
      }
  for (size_t i = 0; i < count; i++)
    if (entries[i].kind == DUMPER_DECL_HOOK)
      decls[entries[i].decl].fn ();
  return DUMPER_OK;
}

#if DUMPER_WITH_PDUMPER

/* Step of load_image: the loaded image's registry (ENTRIES, COUNT of
   them, which this frees) replaces whatever the host registered so far
   (it is the registry of the process that wrote the image), and the
   flags and start information say where the state came from, before
   the after-load hooks run.  */
static enum dumper_status
adopt_image (const struct dumper_decl *decls, struct pdump_entry *entries,
             size_t count)
{
  bridge_registry_reset ();
  for (size_t i = 0; i < count; i++)
    {
      struct bridge_entry e = { decls[entries[i].decl].kind,
                                entries[i].decl, entries[i].addr };
      enum dumper_status st = bridge_registry_add (&e);
      if (st != DUMPER_OK)
        {
          free (entries);
          return st;
        }
    }
  free (entries);

  struct dumper_gflags flags = dumper_gflags;
  flags.initialized_ = true;
  flags.dumped_with_pdumper_ = true;
  bridge_set_flags (&flags);
  /* Every object is at its image address, none at the address it had
     when dumped (dumper.h): the hooks may rehash on it.  */
  start_info.moved = true;
  /* The hooks may ask where the state came from (a hook that the host
     also calls itself at its cold init tells the two apart so).  */
  start_info.origin = DUMPER_ORIGIN_PDUMP;
  start_info.image_path = pdump_stats ()->path;
  return DUMPER_OK;
}

/* Load the image at PATH with the settings O (resolved with status
   OPTIONS_STATUS: an invalid loader setting in the environment fails
   the load); with O->check_only only verify it.  */
static enum dumper_status
load_image (const char *path, bool embedded, const struct common_options *o,
            enum dumper_status options_status)
{
  unsigned char fingerprint[DUMPER_FINGERPRINT_SIZE];
  enum dumper_status st = dumper_fingerprint (fingerprint);
  if (st != DUMPER_OK)
    return bridge_fail (st, "%s: cannot check the image against this "
                        "executable: %s", path, dumper_error_detail ());
  if (options_status != DUMPER_OK)
    return options_status;
  bool check_only = o->check_only;
  enum dumper_verify mode = (enum dumper_verify) o->verify;
  const struct dumper_heap *heap = bridge_heap ();
  if (mode == DUMPER_VERIFY_STRUCTURE && heap == NULL)
    return bridge_fail (DUMPER_E_HEAP_DESC, "%s: structural verification "
                        "needs dumper_describe_heap before dumper_startup",
                        path);
  const struct dumper_decl *decls;
  size_t decl_count;
  st = bridge_decls (&decls, &decl_count);
  if (st != DUMPER_OK)
    return st;

  char detail[1024] = "";
  struct pdump_load_request req = {
    .path = path, .fingerprint = fingerprint, .decls = decls,
    .decl_count = decl_count, .embedded = embedded,
    .detail = detail, .detail_size = sizeof detail,
    .verify_heap = mode == DUMPER_VERIFY_STRUCTURE ? heap : NULL,
    .heap = heap, .verify_uncached = mode == DUMPER_VERIFY_AUTO,
    .check_only = check_only, .base_mode = o->base_mode,
    .cold_check = check_only ? DUMPER_COLD_FULL : o->cold_check,
    .options = o
  };
  struct pdump_entry *entries = NULL;
  size_t entry_count = 0;
  double t0 = bridge_now ();
  st = pdump_load (&req, &entries, &entry_count);
  if (st == DUMPER_E_IMAGE_FINGERPRINT)
    return bridge_fail (st, "%s; or start without it: --no-dump-file",
                        detail);
  if (st != DUMPER_OK)
    return bridge_fail_detail (st, detail);
  if (check_only)
    return DUMPER_OK;

  st = adopt_image (decls, entries, entry_count);
  if (st != DUMPER_OK)
    return st;

  double t1 = bridge_now ();
  st = run_hooks ();
  double t2 = bridge_now ();
  if (st != DUMPER_OK)
    return st;
  pdump_note_hooks_time (t2 - t1);
  start_info.load_seconds = t2 - t0;
  return DUMPER_OK;
}

/* Find the image of a start without --dump-file (pdump_find_image):
   DUMPER_OK with *PATH NULL when there is none (a cold start), or with
   *PATH malloc'd; *EMBEDDED when *PATH is the executable.  */
static enum dumper_status
find_image (char **path, bool *embedded, const char *dir)
{
  *path = NULL;
  *embedded = false;
  const char *exe = bridge_exe_path ();
  if (exe == NULL)
    return DUMPER_OK;
  char detail[1024] = "", warning[1024];
  enum dumper_status st = pdump_find_image (exe, dir, path, embedded,
                                            warning, sizeof warning,
                                            detail, sizeof detail);
  if (warning[0] != '\0')
    bridge_warn ("%s", warning);
  return st == DUMPER_OK ? DUMPER_OK : bridge_fail_detail (st, detail);
}

/* DUMPER_PDUMP_CHECK_ONLY (dumper-inspect --check --deep): verify the
   image as this executable's loader would, with the structural pass
   unless DUMPER_PDUMP_VERIFY says otherwise, report like a host's
   failed start-up would, and end the process.  The one place the
   library exits, and only on this explicit request: the host's main
   must not run on without a heap.  */
static void
check_image_and_exit (char *path, const char *progname,
                      struct common_options *o, enum dumper_status o_status)
{
  enum dumper_status st;
  if (path == NULL)
    st = bridge_fail (DUMPER_E_IMAGE_MISSING, "no image to check (give "
                      "--dump-file)");
  else
    {
      if (!o->verify_from_env)
        o->verify = DUMPER_VERIFY_STRUCTURE;
      /* An executable is recognised: EMBEDDED is only a hint.  */
      st = load_image (path, false, o, o_status);
      free (path);
    }
  if (st != DUMPER_OK)
    exit (dumper_report (progname, st));
  exit (0);
}

#endif /* DUMPER_WITH_PDUMPER */

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

  start_info.origin = DUMPER_ORIGIN_COLD;
  start_info.image_path = NULL;
  start_info.load_seconds = 0;
  start_info.moved = false;   /* unexec too: the arena stays in place */
}

/* Step, a dumped unexec executable: data, arena and registry are
   already in place; only the hooks remain.  */
static enum dumper_status
start_unexec (void)
{
  double t1 = bridge_now ();
  start_info.origin = DUMPER_ORIGIN_UNEXEC;
  enum dumper_status st = run_hooks ();
  if (st != DUMPER_OK)
    return st;
  start_info.load_seconds = bridge_now () - t1;
  return DUMPER_OK;
}

#if DUMPER_WITH_PDUMPER
/* Step, pdumper: find the image ARGS and the settings O (resolved with
   O_STATUS) ask for and load it, or check it and exit (check-only);
   no image is a cold start.  PROGNAME for the check's report.  */
static enum dumper_status
start_pdump (const struct bridge_args *args, struct common_options *o,
             enum dumper_status o_status, const char *progname)
{
  char *path = NULL;
  bool embedded = false;
  if (args->dump_file)
    {
      path = strdup (args->dump_file);
      if (path == NULL)
        return bridge_fail (DUMPER_E_NOMEM, "cannot copy the image path");
    }
  else
    {
      enum dumper_status st = find_image (&path, &embedded, o->image_dir);
      if (st != DUMPER_OK)
        return st;
    }
  if (o->check_only)
    check_image_and_exit (path, progname, o, o_status);
  if (path == NULL)
    return DUMPER_OK;
  enum dumper_status st = load_image (path, embedded, o, o_status);
  if (st == DUMPER_E_IMAGE_FINGERPRINT && !args->dump_file
      && args->dump != BRIDGE_DUMP_NONE)
    {
      /* A dumping run rebuilds the image its build needs; a stale one
         found by default must not stop it.  */
      bridge_warn ("%s: not loaded, it was written by another build of "
                   "this program; this dumping run starts cold", path);
      bridge_clear_detail ();
      st = DUMPER_OK;
    }
  free (path);
  return st;
}
#endif

enum dumper_status
dumper_startup (int *argc, char ***argv)
{
  double t0 = bridge_now ();
  bridge_clear_detail ();
  if (started)
    return bridge_fail (DUMPER_E_STATE, "dumper_startup called twice");
  started = true;

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
  if (dumper_gflags.dumped_with_unexec_)
    st = start_unexec ();
#if DUMPER_WITH_PDUMPER
  else if (!args.no_dump_file || options.check_only)
    st = start_pdump (&args, &options, options_status, (*argv)[0]);
#endif
  (void) options_status;   /* pdumper builds only */
  if (st != DUMPER_OK)
    return st;
  start_info.startup_seconds = bridge_now () - t0;
  return DUMPER_OK;
}
