/* SPDX-License-Identifier: MIT */
/* bridge/backend-pdump.c: the portable dumper behind bridge_backend
   (backend.h), in --with-dumper=pdumper builds: a start finds, checks
   and loads an image and adopts its registry; a dump runs the
   pre-dump check and writes an image.  The image format, discovery,
   loading and writing are pdump/'s; here is only what turns the
   bridge's state into pdump's requests and back.  */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bridge.h"
#include "common/blockset.h"
#include "common/options.h"
#include "../pdump/backend.h"

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
  struct dumper_start_info *info = bridge_start_info_mut ();
  info->moved = true;
  /* The hooks may ask where the state came from (a hook that the host
     also calls itself at its cold init tells the two apart so).  */
  info->origin = DUMPER_ORIGIN_PDUMP;
  info->image_path = pdump_stats ()->path;
  return DUMPER_OK;
}

/* Load the image at PATH with the settings O (resolved with status
   OPTIONS_STATUS: an invalid loader setting in the environment fails
   the load); with O->check_only only verify it.  */
static enum dumper_status
load_image (const char *path, const struct pdump_embedded *embedded,
            const struct common_options *o,
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
    .decl_count = decl_count,
    .embedded = embedded && embedded->found ? embedded : NULL,
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
  st = bridge_registry_run_hooks ();
  double t2 = bridge_now ();
  if (st != DUMPER_OK)
    return st;
  pdump_note_hooks_time (t2 - t1);
  bridge_start_info_mut ()->load_seconds = t2 - t0;
  return DUMPER_OK;
}

/* Find the image of a start without --dump-file (pdump_find_image):
   DUMPER_OK with *PATH NULL when there is none (a cold start), or with
   *PATH malloc'd; EMBEDDED->found when *PATH is the executable, with
   where the image lies in it.  */
static enum dumper_status
find_image (char **path, struct pdump_embedded *embedded, const char *dir)
{
  *path = NULL;
  memset (embedded, 0, sizeof *embedded);
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
      st = load_image (path, NULL, o, o_status);
      free (path);
    }
  if (st != DUMPER_OK)
    exit (dumper_report (progname, st));
  exit (0);
}

/* bridge_backend.start: find the image the arguments and the settings
   ask for and load it, or check it and exit (check-only); no image,
   or --no-dump-file, is a cold start.  */
static enum dumper_status
start_pdump (const struct bridge_start *s)
{
  const struct bridge_args *args = s->args;
  struct common_options *o = s->options;
  if (args->no_dump_file && !o->check_only)
    return DUMPER_OK;
  char *path = NULL;
  struct pdump_embedded embedded = { 0 };
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
    check_image_and_exit (path, s->progname, o, s->options_status);
  if (path == NULL)
    return DUMPER_OK;
  enum dumper_status st = load_image (path, &embedded, o, s->options_status);
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

/* The image from the registry, the heap description and the settings.
   REACHABLE: the pre-dump check's numbered set of the live blocks it
   reached (empty when it had no heap description or ran out of
   memory).  */
static enum dumper_status
write_image (const char *output, struct common_blockset *reachable)
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

/* bridge_backend.dump.  */
static enum dumper_status
dump_pdump (const char *output)
{
  struct common_blockset reachable = { 0 };
  enum dumper_status st = bridge_check_references (bridge_heap (), &reachable);
  if (st == DUMPER_OK)
    st = write_image (output, &reachable);
  common_blockset_free (&reachable);
  return st;
}

/* bridge_backend.image_room.  */
static bool
image_room (uintptr_t address, size_t *room)
{
  if (!pdump_object_p ((const void *) address))
    return false;
  *room = pdump_range_.end - address;
  return true;
}

const struct bridge_backend bridge_backend = {
  .configure = "--with-dumper=pdumper", .temacs = "pdump",
  .loads_files = true, .start = start_pdump, .dump = dump_pdump,
  .parse_codec = pdump_codec_parse, .image_room = image_room
};
