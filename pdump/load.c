/* SPDX-License-Identifier: MIT */
/* pdump/load.c: pdump_load, from an image file to a live heap.

   The loader is a security boundary: the image is untrusted input.  It
   checks the header and section table (check.c) before mapping, the
   checksums of everything it reads, every relocation's position and
   value while relocating, every code pointer against the executable's
   declaration table, and every registry record against that table and
   the executable's layout before writing a single byte outside the
   image.  Only then does it restore the remembered statics.  Any
   failure unmaps the image and leaves the process as it was.  What it
   cannot see without the host's trace functions (a code pointer field
   left out of RELOC_CODE, a pointer into the middle of an object) is
   checked by the structural pass (verify.c) when verify=structure;
   doc/format.md, "Threat model", says exactly what each mode
   guarantees.  The
   small tables it interprets (header, section table, registry, scalar
   data, code relocations) are private copies, never read twice from
   the file mapping.

   One function per step (load_image runs them in order on a struct
   load, load.h; the first failure discards what the earlier ones
   took): placement is place.c's, verification loadcheck.c's, the
   tables and statics restore.c's.  Where the time goes (pdump_stats):
     open_file, read_header
               open      open, read the first page, find an embedded
                         image, check the header, fingerprint
     place_image (place.c)
               map       map the file MAP_PRIVATE, or read it into
                         anonymous memory (mapping fails or
                         DUMPER_PDUMP_LOAD=read), or decompress it
     copy_tables         private copies of the tables interpreted
     pdump_load_verify (loadcheck.c)
               verify    checksums of COLD and the discardable tables
               relocate  HOT, hashed chunk by chunk and relocated in
                         place; then executable and code relocations
     map_marks, restore_statics
               restore   roots, remembered words and pointers, scalars,
                         each written at the address of the declaration
                         the record names (the image names declarations
                         by index; it holds no address the loader writes
                         to or calls)
     commit              the discardable part (relocations, registry,
                         inspection tables) unmapped, the range and the
                         statistics published.

   Only HOT pages are written, so COLD pages stay shared with the page
   cache (in the mapped case).  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined __SANITIZE_ADDRESS__
# include <sanitizer/lsan_interface.h>
# define HAVE_LSAN_ROOTS 1
#endif

#include "common/os.h"
#include "check.h"
#include "embed.h"
#include "format.h"
#include "internal.h"
#include "load.h"

extern size_t pdump_mark_bytes_;

/* What pdump_unload gives back: file offsets [0, discard_start), or the
   whole image from a file mapping (commit).  */
static unsigned char *loaded_base;
static size_t loaded_size;

static long
minor_faults (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

/* Describe a failure about the image file in the request's detail
   (replacing what is there): "PATH: WHAT[: strerror (ERR)]".  */
enum dumper_status
pdump_fail_file (const struct pdump_load_request *req,
                 enum dumper_status status, const char *what, int err)
{
  snprintf (req->detail, req->detail_size, "%s: %s%s%s", req->path, what,
            err ? ": " : "", err ? strerror (err) : "");
  return status;
}

/* The file truncated under the mapping.  A page of a file mapping with
   no file behind it any more (the image truncated in place while it is
   loaded) raises SIGBUS when touched.  While load_image runs in this
   thread, that fault ends the load with a status instead of the
   process: the handler saves what load_image holds (its frame is live
   while the handler runs) and jumps back to pdump_load, which releases
   it.  Only checks have run by then (restore reads private copies), so
   nothing outside the image was written.  A SIGBUS that is not this
   thread's load goes to the handler that was there before.  */
struct bus_guard
{
  sigjmp_buf jump;
  const struct load *load;            /* set once it holds memory */
  struct placement saved_place;
  struct private_tables saved_tables;
};

/* common_catch_sigbus's callback: a fault while this load holds memory
   is its own.  */
static void
on_sigbus (void *ctx)
{
  struct bus_guard *g = ctx;
  if (g->load == NULL)
    return;
  g->saved_place = g->load->place;
  g->saved_tables = g->load->tables;
  siglongjmp (g->jump, 1);
}

static enum dumper_status load_image (struct load *l, struct bus_guard *guard);

enum dumper_status
pdump_load (const struct pdump_load_request *req, struct pdump_entry **entries_out,
            size_t *entry_count)
{
  /* Static: read after the jump back.  One load at a time (pdump_range_
     is process-wide); common_catch_sigbus keeps other threads' faults
     out.  */
  static struct bus_guard guard;
  memset (&guard, 0, sizeof guard);
  bool installed = common_catch_sigbus (on_sigbus, &guard);
  *entries_out = NULL;
  *entry_count = 0;
  struct load load;
  memset (&load, 0, offsetof (struct load, boot));
  pdump_boot_init (&load.boot, pdump_options_of (req)->runtime_dir,
                   pdump_options_of (req)->tmp_dir);
  load.req = req;
  load.place.fd = -1;
  enum dumper_status status;
  if (sigsetjmp (guard.jump, 1) == 0)
    {
      status = load_image (&load, &guard);
      if (status == DUMPER_OK && !req->check_only)
        {
          *entries_out = load.entries;
          *entry_count = (size_t) load.view.sections[PDUMP_SECTION_REGISTRY].count;
        }
    }
  else
    {
      pdump_free_tables (&guard.saved_tables);
      munmap (guard.saved_place.region, guard.saved_place.region_size);
      if (guard.saved_place.fd >= 0)
        close (guard.saved_place.fd);
      status = pdump_fail_file (req, DUMPER_E_IMAGE_CORRUPT, pdump_shorter_in_load, 0);
    }
  common_release_sigbus (installed);
  return status;
}

/* Step: open the file (the image, or an executable holding one).  */
static enum dumper_status
open_file (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  /* A check touches no global state: the writer checks what it wrote
     from a process that runs from an image.  */
  if (pdump_range_.end != 0 && !req->check_only)
    return pdump_fail_file (req, DUMPER_E_STATE, "an image is already loaded", 0);
  l->t0 = pdump_now ();
  l->faults0 = minor_faults ();
  /* O_NONBLOCK: a FIFO named as the image would block a plain open
     until a writer came; it opens at once and is refused below.  It
     changes nothing for a regular file's reads and mappings.  */
  l->place.fd = open (req->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (l->place.fd < 0)
    return pdump_fail_file (req, DUMPER_E_IMAGE_MISSING, "cannot open the image",
                      errno);
  struct stat *st = &l->image_stat;
  if (fstat (l->place.fd, st) != 0)
    return pdump_fail_file (req, DUMPER_E_IO, "cannot read the image", errno);
  if (!S_ISREG (st->st_mode))
    return pdump_fail_file (req, DUMPER_E_IMAGE_MISSING, "not a regular file", 0);
  l->length = (uint64_t) st->st_size;
  return DUMPER_OK;
}

/* The image is a section of the file (an executable written by
   dumper-embed: at start-up, or named by --dump-file): its offset and
   size into l->place.origin and l->length.  */
static enum dumper_status
find_embedded (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  struct pdump_embedded em;
  /* Found by this start's discovery, which parsed the section headers
     (pdump_find_image): taken when it still lies in the file opened now
     (a file replaced in between is another image, and refused by the
     header's checks like any other).  */
  if (req->embedded && req->embedded->size <= l->length
      && req->embedded->offset <= l->length - req->embedded->size)
    em = *req->embedded;
  else
    {
      enum dumper_status es = pdump_find_embedded (l->place.fd, req->path, &em,
                                                   req->detail,
                                                   req->detail_size);
      if (es != DUMPER_OK)
        return es;
    }
  if (!em.found)
    return pdump_fail_file (req, DUMPER_E_IMAGE_MISSING, "no embedded image (no "
                      PDUMP_EMBED_SECTION " section)", 0);
  l->place.origin = em.offset;
  l->length = em.size;
  return DUMPER_OK;
}

/* The bytes of the header and section table: all pdump_check_header
   reads.  Read no more: every page of the stack a load touches is a
   page fault.  */
#define HEADER_BYTES \
  (sizeof (struct pdump_header) \
   + PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section))

/* The image's first bytes (at l->place.origin, up to HEADER_BYTES) into
   FIRST, their count into *AVAILABLE; false when the read fails.  */
static bool
read_first (struct load *l, unsigned char *first, size_t *available)
{
  *available = l->length < HEADER_BYTES ? (size_t) l->length : HEADER_BYTES;
  return *available == 0
         || pdump_read_exact (l->place.fd, first, *available, l->place.origin);
}

/* Step: the header and section table, which sit in the first page.  The
   image is the file, or a section of it (an executable, known by its
   ELF magic in the same read: a start makes one read for magic and
   header, not two).  */
static enum dumper_status
read_header (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  unsigned char first[HEADER_BYTES];
  size_t available = 0;
  bool read_ok = req->embedded != NULL || read_first (l, first, &available);
  if (req->embedded != NULL
      || (read_ok && available >= 4 && memcmp (first, "\177ELF", 4) == 0))
    {
      enum dumper_status es = find_embedded (l);
      if (es != DUMPER_OK)
        return es;
      read_ok = read_first (l, first, &available);
    }
  if (!read_ok)
    return pdump_fail_file (req, DUMPER_E_IO, "cannot read the image", errno);
  enum dumper_status status
    = pdump_check_header (first, available, l->length, req->fingerprint,
                          req->path, &l->view, req->detail, req->detail_size);
  l->t_open = pdump_now ();
  return status;
}

/* Where base mode fixed (the preferred base) or boot (this boot's
   base) wants the image, or NULL with the reason.  */
static unsigned char *
preferred_address (const struct load *l)
{
  uint64_t base = l->view.header.preferred_base;
  if (l->req->base_mode == DUMPER_BASE_BOOT && !l->req->check_only)
    base = l->boot.base;
  if (l->req->base_mode == DUMPER_BASE_BOOT && base == 0)
    snprintf (pdump_base_reason, sizeof pdump_base_reason, "%s", l->req->check_only
              ? "a check: anywhere" : l->boot.reason);
  else if (l->req->base_mode != DUMPER_BASE_FIXED
           && l->req->base_mode != DUMPER_BASE_BOOT)
    snprintf (pdump_base_reason, sizeof pdump_base_reason, "base mode random");
  else if (base == 0)
    snprintf (pdump_base_reason, sizeof pdump_base_reason, "the image records no "
              "preferred base");
  else if (base % (uint64_t) sysconf (_SC_PAGESIZE) != 0)
    snprintf (pdump_base_reason, sizeof pdump_base_reason, "the preferred base 0x%"
              PRIx64 " is not aligned to this machine's pages", base);
  else if (pdump_test_occupy (l->req, base))
    return (unsigned char *) (uintptr_t) base;
  return NULL;
}

/* Step, base mode boot: this boot's base, and the boot cache when it
   is usable (it then replaces the image: l->place.fd and l->view are
   the cache's).  Never fails: without a base the image is loaded as in
   random, with a base but no usable cache it is loaded at the base and
   the cache written (l->boot.reason says which and why).  */
static enum dumper_status
boot_prepare (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  if (req->base_mode != DUMPER_BASE_BOOT || req->check_only)
    return DUMPER_OK;
  if (l->view.compressed)
    {
      snprintf (l->boot.reason, sizeof l->boot.reason, "boot mode maps a "
                "plain image; this one is compressed");
      return DUMPER_OK;
    }
  if (!pdump_boot_setup (&l->boot, req->path, l->view.header.header_checksum,
                         &l->image_stat))
    return DUMPER_OK;
  struct stat st;
  int fd = pdump_boot_open (&l->boot, &st);
  if (fd >= 0)
    {
      unsigned char first[HEADER_BYTES];
      struct pdump_view cache;
      char detail[512];
      snprintf (detail, sizeof detail, "cannot read its header");
      bool header_ok = st.st_size >= (off_t) sizeof first
        && pdump_read_exact (fd, first, sizeof first, 0)
        && pdump_check_header (first, sizeof first, (uint64_t) st.st_size,
                               req->fingerprint, l->boot.cache, &cache,
                               detail, sizeof detail) == DUMPER_OK;
      if (!header_ok)
        snprintf (l->boot.reason, sizeof l->boot.reason, "the boot cache is "
                  "damaged: %s", detail);
      else if (pdump_boot_matches (&l->boot, &cache, &l->view))
        {
          close (l->place.fd);
          l->place.fd = fd;
          l->place.origin = 0;
          l->length = (uint64_t) st.st_size;
          l->view = cache;
          l->boot_hit = true;
          snprintf (l->boot.reason, sizeof l->boot.reason, "mapped from the "
                    "boot cache %s", l->boot.cache);
          return DUMPER_OK;
        }
      close (fd);
    }
  if (req->verify_heap == NULL && req->heap == NULL)
    {
      /* Later starts trust the cache without checking its heap: one
         that no structural pass checked is never written.  A relocated
         load anywhere instead (preferred_address gives the reason).  */
      l->boot.base = 0;
      snprintf (l->boot.reason, sizeof l->boot.reason, "no boot cache is "
                "written without a heap description to verify it with "
                "(dumper_describe_heap before dumper_startup)");
      return DUMPER_OK;
    }
  l->boot_write = true;
  return DUMPER_OK;
}

/* Step: bring the image into memory (map, read or decompress), at its
   preferred base in base mode fixed when that range is free, else
   wherever mmap puts it (ASLR).  */
static enum dumper_status
place_image (struct load *l, struct bus_guard *guard)
{
  enum dumper_status status = DUMPER_OK;
  unsigned char *at = preferred_address (l);
  bool placed = l->view.compressed
    ? pdump_place_unpack (&l->place, &l->view, &l->hot_unpack, l->req, &status, at)
    : pdump_bring_in (&l->place, l->req, l->view.header.image_size, &l->view,
                &status, at, l->boot_write);
  if (at && !placed && status == DUMPER_OK)
    {
      /* The fallback: anywhere, relocated.  A boot cache is an image
         like any other: it is then checked in full.  */
      l->fell_back = true;
      l->boot_hit = l->boot_write = false;
      at = NULL;
      placed = l->view.compressed
        ? pdump_place_unpack (&l->place, &l->view, &l->hot_unpack, l->req, &status,
                        NULL)
        : pdump_bring_in (&l->place, l->req, l->view.header.image_size, &l->view,
                    &status, NULL, false);
    }
  if (!placed)
    return status;
  /* Base mode boot places the image at this boot's base, which is not
     its preferred base: its image words still move (issue 32).  */
  l->at_preferred = at != NULL
                    && (uintptr_t) at == l->view.header.preferred_base;
  l->placed = true;
  guard->load = l;
  pdump_test_truncate (l->req, "map");
  l->t_map = pdump_now ();
  return DUMPER_OK;
}

/* Step: the small tables the loader interprets are copied out first and
   only the copies are checked and used (pdump_verify checks their sums
   on the copies).  */
static enum dumper_status
copy_tables (struct load *l)
{
  const unsigned char *base = l->place.base;
  /* A file mapping holds the file's bytes: read them from the file.  */
  int fd = l->place.method == PDUMP_LOAD_MAP ? l->place.fd : -1;
  uint64_t origin = l->place.origin;
  enum dumper_status status
    = pdump_copy_section (&l->view, PDUMP_SECTION_REGISTRY, base, fd, origin,
                    &l->tables.registry, l->req);
  if (status == DUMPER_OK)
    status = pdump_copy_section (&l->view, PDUMP_SECTION_SCALAR_DATA, base, fd,
                           origin, &l->tables.scalars, l->req);
  if (status == DUMPER_OK)
    status = pdump_copy_section (&l->view, PDUMP_SECTION_RELOC_CODE, base, fd,
                           origin, &l->tables.code_relocs, l->req);
  return status;
}


/* Step: the collector's mark bits for image objects.  */
static enum dumper_status
map_marks (struct load *l)
{
  uint64_t span = l->view.objects_end - l->view.objects_start;
  /* Granules rounded up: the last object may start in a partial one.  */
  l->mark_bytes = (size_t) (((span + PDUMP_GRANULE - 1) / PDUMP_GRANULE + 63)
                            / 64 * 8);
  void *marks = mmap (NULL, l->mark_bytes ? l->mark_bytes : 8,
                      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (marks == MAP_FAILED)
    return pdump_fail_file (l->req, DUMPER_E_NOMEM,
                      "cannot allocate the mark bitmap", errno);
  l->marks = marks;
  return DUMPER_OK;
}

/* Step: the remembered statics, from the checked private copies.  */
static enum dumper_status
restore_statics (struct load *l)
{
  l->entries = pdump_restore_records (&l->view, l->place.base, &l->tables, &l->exe, l->req,
                        &l->stats);
  if (l->entries == NULL)
    return pdump_fail_file (l->req, DUMPER_E_NOMEM,
                      "out of memory for the registry", 0);
  pdump_free_tables (&l->tables);
  memset (&l->tables, 0, sizeof l->tables);
  l->t_restore = pdump_now ();
  return DUMPER_OK;
}

/* Release what a failed (or check-only) load holds.  */
static void
discard (struct load *l)
{
  pdump_boot_abort (&l->boot);
  if (l->place.hot_unpack)
    pdump_unpack_end (l->place.hot_unpack);
  if (l->place.fd >= 0)
    close (l->place.fd);
  pdump_free_tables (&l->tables);
  if (l->placed)
    munmap (l->place.region, l->place.region_size);
  if (l->marks)
    munmap (l->marks, l->mark_bytes ? l->mark_bytes : 8);
  free (l->entries);
  l->entries = NULL;
}

/* Base mode boot's directory and its kind, or why there is none
   (pdump_stats): a static copy, as the reasons.  */
static const char *
boot_dir_note (const struct load *l)
{
  static char note[sizeof l->boot.dir + sizeof l->boot.reason + 32];
  static const char *const modes[] = { "random", "fixed", "boot" };
  unsigned mode = l->req->base_mode;
  if (mode != DUMPER_BASE_BOOT && l->boot.dir[0] != '\0')
    /* No cache, but the records of checks made this boot (COLD
       verification boot, verify auto's structural pass) are there.  */
    snprintf (note, sizeof note, "%s: %s (records only: base mode %s)",
              l->boot.dir_is_xdg ? "XDG_RUNTIME_DIR" : "fallback",
              l->boot.dir, mode < 3 ? modes[mode] : "?");
  else if (mode != DUMPER_BASE_BOOT)
    snprintf (note, sizeof note, "none: base mode %s",
              mode < 3 ? modes[mode] : "?");
  else if (l->boot.dir[0] != '\0')
    snprintf (note, sizeof note, "%s: %s", l->boot.dir_is_xdg
              ? "XDG_RUNTIME_DIR" : "fallback", l->boot.dir);
  else
    snprintf (note, sizeof note, "none: %s", l->boot.reason);
  return note;
}

static void publish_stats (struct load *l);

/* Step: keep HOT and COLD, give back the rest and the alignment slack,
   and make the image the process's.  */
static void
commit (struct load *l)
{
  const struct pdump_view *view = &l->view;
  const struct placement *place = &l->place;
  unsigned char *base = place->base;
  uint64_t size = view->header.image_size;
  /* The discardable part goes, but from a file mapping (methods map and
     hybrid: base modes fixed and boot, and random's default): there its
     pages are the page cache's, read and never written, so they hold no
     memory of this process's own, while unmapping the ones the load
     read costs a TLB flush, 80-130 us on a virtual machine, a tenth of
     a boot-cache load (issue 15).  The process's exit, or pdump_unload,
     unmaps them with the rest.  */
  bool keep_tables = place->method == PDUMP_LOAD_MAP
                     || place->method == PDUMP_LOAD_HYBRID;
  size_t page = (size_t) sysconf (_SC_PAGESIZE);
  unsigned char *kept_end = keep_tables
    ? base + (size + page - 1) / page * page : base + view->discard_start;
  if (!keep_tables)
    munmap (base + view->discard_start, size - view->discard_start);
  if (place->method == PDUMP_LOAD_HYBRID || place->method == PDUMP_LOAD_UNPACK)
    {
      unsigned char *region_end = place->region + place->region_size;
      if (base > place->region)
        munmap (place->region, (size_t) (base - place->region));
      if (region_end > kept_end)
        munmap (kept_end, (size_t) (region_end - kept_end));
    }

  uint64_t span = view->objects_end - view->objects_start;
#ifdef HAVE_LSAN_ROOTS
  /* Objects in the image may point at malloc'd memory; LeakSanitizer
     does not scan mappings it did not make, so tell it.  */
  __lsan_register_root_region (base + view->objects_start, span);
#endif
  loaded_base = base;
  loaded_size = (size_t) (keep_tables ? size : view->discard_start);
  pdump_range_.start = (uintptr_t) base + view->objects_start;
  pdump_range_.end = pdump_range_.start + span;
  pdump_range_.mark_bits = l->marks;
  pdump_mark_bytes_ = l->mark_bytes;
  publish_stats (l);
}

/* The last of commit: the load's statistics, published for
   pdump_stats () with copies of the reasons a later load reuses.  */
static void
publish_stats (struct load *l)
{
  const struct pdump_view *view = &l->view;
  const struct placement *place = &l->place;
  uint64_t size = view->header.image_size;
  struct pdump_stats *stats = &l->stats;
  stats->loaded = true;
  stats->mapped = place->method == PDUMP_LOAD_HYBRID
                  || place->method == PDUMP_LOAD_MAP;
  stats->embedded = place->origin != 0 || l->req->embedded != NULL;
  stats->image_size = size;
  stats->method = place->method;
  stats->path = strdup (l->req->path);
  stats->file_size = l->length;
  stats->hot_size = view->sections[PDUMP_SECTION_HOT].size;
  stats->cold_size = view->sections[PDUMP_SECTION_COLD].size;
  stats->discardable_size = size - view->discard_start;
  stats->object_count = view->header.object_count;
  stats->image_relocs = l->vr.image_relocs;
  stats->exe_relocs = l->vr.exe_relocs;
  stats->code_relocs = l->vr.code_reloc_count;
  stats->open_seconds = l->t_open - l->t0;
  stats->map_seconds = l->t_map - l->t_open;
  stats->verify_seconds = l->vr.sums_seconds;
  stats->relocate_seconds = l->vr.relocate_seconds;
  stats->structure_seconds = l->vr.structure_seconds;
  stats->structure_index_seconds = l->vr.structure_index_seconds;
  stats->restore_seconds = l->t_restore - l->t_reloc;
  stats->total_seconds = pdump_now () - l->t0;
  stats->minor_faults = minor_faults () - l->faults0;
  stats->base_mode = l->req->base_mode;
  stats->placement = l->boot_hit ? PDUMP_PLACED_BOOT_CACHE
                     : l->boot_write ? PDUMP_PLACED_BOOT
                     : l->at_preferred ? PDUMP_PLACED_PREFERRED
                     : l->fell_back || l->req->base_mode != DUMPER_BASE_RANDOM
                     ? PDUMP_PLACED_FALLBACK : PDUMP_PLACED_RANDOM;
  stats->preferred_base = view->header.preferred_base;
  stats->base = (uintptr_t) place->base;
  /* A copy: a later check-only load (the writer's self-check) reuses
     pdump_base_reason.  */
  static char published_reason[sizeof pdump_base_reason];
  snprintf (published_reason, sizeof published_reason, "%s",
            l->boot_hit || l->boot_write ? l->boot.reason
            : l->at_preferred ? "at the preferred base" : pdump_base_reason);
  stats->placement_reason = published_reason;
  stats->exe_pages = l->exe_pages;
  stats->cold_check = l->cold_how;
  stats->structure_check = l->structure_how;
  stats->boot_dir = boot_dir_note (l);
  static char published_huge[sizeof pdump_huge_note];
  snprintf (published_huge, sizeof published_huge, "%s",
            place->method == PDUMP_LOAD_HYBRID || place->method == PDUMP_LOAD_UNPACK
            ? pdump_huge_note : "no anonymous image memory");
  stats->huge_pages = published_huge;
  pdump_load_stats_ = *stats;
}

/* The steps in order; the first failure discards what was taken.  A
   check-only load stops after verification, with its verdict.  */
static enum dumper_status
load_image (struct load *l, struct bus_guard *guard)
{
  enum dumper_status status = open_file (l);
  if (status == DUMPER_OK)
    status = read_header (l);
  if (status == DUMPER_OK)
    status = boot_prepare (l);
  if (status == DUMPER_OK)
    status = place_image (l, guard);
  if (status == DUMPER_OK)
    status = copy_tables (l);
  if (status == DUMPER_OK)
    status = pdump_load_verify (l);
  if (status == DUMPER_OK && !l->req->check_only)
    status = map_marks (l);
  if (status == DUMPER_OK && !l->req->check_only)
    status = restore_statics (l);
  if (status != DUMPER_OK || l->req->check_only)
    {
      /* The handler must not release what discard releases.  */
      guard->load = NULL;
      discard (l);
      return status;
    }
  pdump_boot_commit (&l->boot);
  if (l->cold_stamp)
    pdump_boot_stamp_checked (&l->boot, PDUMP_BOOT_COLD, l->req->path,
                              l->view.header.header_checksum, &l->image_stat);
  if (l->structure_stamp)
    pdump_boot_stamp_checked (&l->boot, PDUMP_BOOT_STRUCTURE, l->req->path,
                              l->view.header.header_checksum, &l->image_stat);
  commit (l);
  return DUMPER_OK;
}

void
pdump_unload (void)
{
  if (pdump_range_.end == 0)
    return;
#ifdef HAVE_LSAN_ROOTS
  __lsan_unregister_root_region ((void *) pdump_range_.start,
                                 pdump_range_.end - pdump_range_.start);
#endif
  munmap (loaded_base, loaded_size);
  munmap (pdump_range_.mark_bits, pdump_mark_bytes_ ? pdump_mark_bytes_ : 8);
  free ((char *) pdump_load_stats_.path);
  memset (&pdump_range_, 0, sizeof pdump_range_);
  memset (&pdump_load_stats_, 0, sizeof pdump_load_stats_);
  pdump_mark_bytes_ = 0;
  loaded_base = NULL;
  loaded_size = 0;
}

