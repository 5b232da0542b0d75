/* SPDX-License-Identifier: MIT */
/* pdump/loadcheck.c: the step of pdump_load (load.c) that decides how
   much of a placed image to check, and checks it: COLD's checksum (or
   why not), the structural pass (or why not), then pdump_verify's one
   sequence of checksums, relocation and registry checks (verify.c),
   and, in base mode boot, the boot cache written from what was just
   checked.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "embed.h"
#include "hash.h"
#include "internal.h"
#include "load.h"

/* Base mode boot, the first load of the image this boot: HOT is
   relocated to this boot's base and checked; save the image as it is
   now (before the executable's relocations) as the boot cache.  */
static void
write_boot_cache (void *ctx, const unsigned char *hot)
{
  struct load *l = ctx;
  const struct pdump_section *hs = &l->view.sections[PDUMP_SECTION_HOT];
  pdump_boot_write (&l->boot, l->place.base, l->view.header.image_size,
                    XXH3_64bits (hot, hs->size));
}

/* How COLD is verified in this load (dumper.h, enum dumper_cold_check):
   l->cold_how says, for pdump_stats; l->skip_cold when the checksum is
   not computed.  With DUMPER_COLD_BOOT the record means the
   whole image was checked (every start checks all of it or skips only
   COLD's sum on that record), so at the preferred base, where nothing
   in HOT but the executable's and code relocations is written, HOT's
   pass (its hash and the check of every image word) is skipped as
   well: base mode fixed then reads no HOT page it does not write.  */
static void
choose_cold_check (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  uint64_t sum = l->view.header.header_checksum;
  if (l->boot_hit)
    l->cold_how = "skipped: the boot cache, checked when it was written";
  else if (req->cold_check == DUMPER_COLD_SIZE)
    {
      l->cold_how = "skipped: size and fingerprint only (cold check size)";
      l->skip_cold = true;
    }
  else if (req->cold_check != DUMPER_COLD_BOOT)
    l->cold_how = "checksum";
  else
    switch (pdump_boot_checked (&l->boot, PDUMP_BOOT_COLD, req->path, sum,
                                &l->image_stat))
      {
      case 1:
        /* The whole image was checked: at the preferred base, where HOT
           is not written, its pass is skipped too.  */
        l->hot_known = l->at_preferred && !l->place.hot_pending;
        l->skip_cold = true;
        l->cold_how = l->hot_known
          ? "skipped, and HOT's pass: checked earlier this boot, the file "
            "unchanged"
          : "skipped: checked earlier this boot, the file unchanged";
        break;
      case 0:
        l->cold_how = "checksum (first this boot)";
        l->cold_stamp = true;
        break;
      default:
        {
          static char how[sizeof l->boot.reason + 64];
          snprintf (how, sizeof how, "checksum (no per-user directory: %s)",
                    l->boot.reason);
          l->cold_how = how;
        }
      }
  if (l->place.cold_summed && !l->skip_cold)
    {
      /* Checked already (place_unpack): the same checksum, done while
         decompressing.  */
      static char how[sizeof l->boot.reason + 96];
      snprintf (how, sizeof how, "%s, while decompressing", l->cold_how);
      l->cold_how = how;
      l->skip_cold = true;
    }
}

/* COLD's checksum from the file with pread, in 64 KiB pieces through one
   buffer, where COLD is a file mapping (methods map and hybrid): read
   through the mapping, COLD costs a page-table entry per 4 KiB and a
   fault per 64 KiB (20-50 us each on a virtual machine: 1.5-3 ms at
   scale 4), and more to unmap at exit; the copy costs a fraction.  True
   when the sum holds; false (the file cut short, an error, a mismatch)
   leaves the check to pdump_verify, through the mapping, with its own
   verdict and message.  The bytes summed are the file's, as the
   mapping's are (a file changed in place shows through either way:
   "Threat model").  */
static bool
sum_cold_from_file (const struct load *l)
{
  enum { PIECE = 64 * 1024 };
  const struct pdump_section *cold = &l->view.sections[PDUMP_SECTION_COLD];
  if (l->view.compressed || l->place.fd < 0 || cold->size == 0
      || (l->place.method != PDUMP_LOAD_MAP
          && l->place.method != PDUMP_LOAD_HYBRID))
    return false;
  /* PIECE is read with pread, which a cut file shortens but never
     faults, so no SIGBUS can strand it; the state stays on the stack
     anyway, as every streaming state of the loader (hash.h).  */
  unsigned char *piece = malloc (PIECE);
  XXH3_state_t state_storage, *state = &state_storage;
  XXH3_INITSTATE (state);
  bool ok = piece && XXH3_64bits_reset (state) == XXH_OK;
  for (uint64_t done = 0; ok && done < cold->size; done += PIECE)
    {
      size_t n = cold->size - done < PIECE ? (size_t) (cold->size - done) : PIECE;
      ok = pdump_read_exact (l->place.fd, piece, n,
                             l->place.origin + cold->offset + done)
           && XXH3_64bits_update (state, piece, n) == XXH_OK;
    }
  ok = ok && XXH3_64bits_digest (state) == cold->checksum;
  free (piece);
  return ok;
}

/* The description the structural pass of this load runs with, or NULL
   for none; l->structure_how says which and why (pdump_stats).  A boot
   cache is the one image no start verifies: the start that wrote it
   ran the pass first (its cache is published only when the whole load
   succeeded, pdump_boot_commit), whatever the verification mode, so
   DUMPER_VERIFY_AUTO skips it there and runs it wherever the heap
   comes from the image file.  */
static const struct dumper_heap *
structure_heap (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  const struct dumper_heap *heap = NULL;
  if (req->verify_heap)
    {
      heap = req->verify_heap;
      l->structure_how = l->boot_write ? "ran: verify structure, before "
        "the boot cache is written" : "ran: verify structure";
    }
  else if (l->boot_hit)
    l->structure_how = "skipped: the boot cache, verified when it was "
                       "written";
  else if (l->boot_write && req->verify_uncached)
    {
      /* boot_prepare writes no cache without a description.  */
      heap = req->heap;
      l->structure_how = "ran: before the boot cache is written";
    }
  else if (l->boot_write)
    /* Verify none: the pass runs for the cache alone, and a refusal
       only keeps the cache from being written (cache_structure).  */
    l->structure_how = "ran: before the boot cache is written (for the "
                       "cache alone: verify none)";
  else if (req->verify_uncached && req->heap && !req->check_only
           && pdump_boot_checked (&l->boot, PDUMP_BOOT_STRUCTURE, req->path,
                                  l->view.header.header_checksum,
                                  &l->image_stat) == 1)
    /* The verdict does not depend on where the image is placed: an image
       pointer must start an object of the image, an executable one an
       element the executable declares, each at an offset.  The file is
       the one that passed (device, inode, size, change time), and its
       checksums are checked again at this load.  */
    l->structure_how = "skipped: the structural pass passed on this file "
                       "earlier this boot, the file unchanged (verify auto)";
  else if (req->verify_uncached && req->heap)
    {
      heap = req->heap;
      l->structure_how = "ran: loaded from the image file, not a boot "
                         "cache (verify auto)";
    }
  else
    l->structure_how = req->verify_uncached
      ? "off: no heap description to verify with (dumper_describe_heap "
        "before dumper_startup)" : "off: verify none";
  /* A pass over the image file (not a boot cache being written, which
     records its own verdict) is remembered for later starts this boot,
     once the load succeeds (load_image).  */
  l->structure_stamp = heap != NULL && !l->boot_write && !req->check_only;
  return heap;
}

/* Verify none, base mode boot, a cache being written: the structural
   pass for the cache's sake.  An image it refuses is loaded all the
   same, as verify none asks, but never cached.  */
static void
cache_structure (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  if (!l->boot_write || req->verify_heap || req->verify_uncached)
    return;
  char detail[512];
  double t0 = pdump_now ();
  enum dumper_status status
    = pdump_verify_structure (&l->view, l->place.base, l->tables.code_relocs,
                              &l->exe, req->heap, req->decls, req->decl_count,
                              req->path, detail, sizeof detail,
                              &l->vr.structure_index_seconds);
  l->vr.structure_seconds = pdump_now () - t0;
  if (status == DUMPER_OK)
    return;
  pdump_boot_abort (&l->boot);
  snprintf (l->boot.reason, sizeof l->boot.reason, "relocated to this "
            "boot's base; no boot cache written: the structural pass "
            "refused the image (%s)", detail);
  l->structure_how = "ran: before the boot cache is written, and refused "
                     "the image: no cache written, the image loaded as "
                     "verify none asks";
}

/* Step: checksums, relocation (code pointers included), registry and,
   when asked, the structural pass: the one sequence dumper-inspect
   --check runs too (verify.c).  The file is closed afterwards.  */
enum dumper_status
pdump_load_verify (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  struct placement *place = &l->place;
  enum dumper_status status = DUMPER_OK;
  choose_cold_check (l);
  double t_cold = pdump_now ();
  /* A load from the boot cache does not check COLD (trusted: it was
     checked when the cache was written).  */
  if (!l->skip_cold && !l->boot_hit && sum_cold_from_file (l))
    l->skip_cold = true;          /* checked: pdump_verify need not */
  t_cold = pdump_now () - t_cold;
  if (req->exe)
    l->exe = *req->exe;
  else if (!pdump_exe_layout (&l->exe))
    status = pdump_fail_file (req, DUMPER_E_EXE,
                        "cannot read the executable's program headers", 0);
  struct pdump_verify_request vr = {
    .view = &l->view, .bytes = place->base,
    .fill = place->hot_pending ? pdump_fill_hot : NULL, .fill_ctx = place,
    .image_base = (uintptr_t) place->base, .exe = &l->exe,
    .heap = structure_heap (l), .decls = req->decls,
    .decl_count = req->decl_count,
    .registry = l->tables.registry, .scalars = l->tables.scalars,
    .code_relocs = l->tables.code_relocs,
    .trusted = l->boot_hit || l->hot_known,
    .skip_cold = l->skip_cold,
    .relocated = l->boot_write ? write_boot_cache : NULL, .relocated_ctx = l,
    .path = req->path, .detail = req->detail, .detail_size = req->detail_size
  };
  pdump_test_fill (&vr, req);
  if (status == DUMPER_OK && place->method == PDUMP_LOAD_MAP)
    {
      /* HOT is the file's, copied on write: break that for the pages the
         relocations will write, in as few calls as possible.  */
      (void) pdump_exe_pages (&l->view, place->base, l->tables.code_relocs,
                        place->base + l->view.sections[PDUMP_SECTION_HOT].offset);
    }
  if (status == DUMPER_OK)
    status = pdump_verify (&vr);
  l->vr = vr;
  l->vr.sums_seconds += t_cold;   /* pdump_stats: verify */
  if (status == DUMPER_OK && !req->check_only)
    cache_structure (l);
  if (status == DUMPER_OK)
    l->exe_pages = pdump_exe_pages (&l->view, place->base, l->tables.code_relocs,
                              NULL);
  if (place->hot_unpack)
    {
      /* relocate reports a failed fill as a read error; give the
         frame's own status and message.  */
      if (place->hot_unpack->status != DUMPER_OK)
        {
          status = place->hot_unpack->status;
          snprintf (req->detail, req->detail_size, "%s", place->hot_detail);
        }
      pdump_unpack_end (place->hot_unpack);
      place->hot_unpack = NULL;
    }
  close (place->fd);
  place->fd = -1;
  l->t_reloc = pdump_now ();
  return status;
}
