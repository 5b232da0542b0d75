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

   Sequence and where the time goes (pdump_stats):
     open      open, read the first page, check the header, fingerprint
     map       map the whole file MAP_PRIVATE (or read it into anonymous
               memory when mapping fails or DUMPER_PDUMP_NO_MMAP is set)
     verify    checksums of COLD and the discardable tables
     relocate  HOT, hashed chunk by chunk and relocated in place
     restore   roots, remembered words and pointers, scalars, each written
             at the address of the declaration the record names (the
             image names declarations by index; it holds no address the
             loader writes to or calls)
   Afterwards the discardable part (relocations, registry, inspection
   tables) is unmapped, and a mark bitmap for the collector is mapped.

   Only HOT pages are written, so COLD pages stay shared with the page
   cache (in the mapped case).  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined __SANITIZE_ADDRESS__
# include <sanitizer/lsan_interface.h>
# define HAVE_LSAN_ROOTS 1
#endif

#include "backend.h"
#include "check.h"
#include "codec.h"
#include "embed.h"
#include "exe.h"
#include "format.h"
#include "internal.h"
#include "verify.h"

extern size_t pdump_mark_bytes_;

/* What pdump_unload gives back: file offsets [0, discard_start).  */
static unsigned char *loaded_base;
static size_t loaded_size;

static long
minor_faults (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

static enum dumper_status
fail (const struct pdump_load_request *req, enum dumper_status status,
      const char *what, int err)
{
  snprintf (req->detail, req->detail_size, "%s: %s%s%s", req->path, what,
            err ? ": " : "", err ? strerror (err) : "");
  return status;
}

/* Where the image is in memory and how it got there.  */
struct placement
{
  unsigned char *base;        /* file offset 0 */
  unsigned char *region;      /* what to unmap on failure */
  size_t region_size;
  enum pdump_load_method method;
  bool hot_pending;           /* HOT still to be read (by relocate) */
  int fd;
  uint64_t origin;            /* file offset of the image (embedded) */
  uint64_t hot_offset;
  struct pdump_unpack *hot_unpack;   /* compressed HOT, else NULL */
  char hot_detail[512];       /* its failure, which relocate would mask */
};

/* HOT gets huge pages when it is aligned to them.  */
#define HUGE_PAGE (2u << 20)

static enum pdump_load_method
choose_method (const struct pdump_view *view, uint64_t origin)
{
  long page = sysconf (_SC_PAGESIZE);
  if (getenv ("DUMPER_PDUMP_NO_MMAP") != NULL
      || view->header.page_size % (uint64_t) page != 0
      || origin % (uint64_t) page != 0)
    return PDUMP_LOAD_READ;
  const char *m = getenv ("DUMPER_PDUMP_LOAD");
  if (m && strcmp (m, "map") == 0)
    return PDUMP_LOAD_MAP;
  if (m && strcmp (m, "read") == 0)
    return PDUMP_LOAD_READ;
  return PDUMP_LOAD_HYBRID;
}

/* The whole file in anonymous memory.  */
static bool
place_read (struct placement *p, uint64_t size, const struct pdump_load_request *req,
            enum dumper_status *st)
{
  void *m = mmap (NULL, size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    {
      *st = fail (req, DUMPER_E_NOMEM, "cannot allocate memory for the image",
                  errno);
      return false;
    }
  if (!pdump_read_exact (p->fd, m, size, p->origin))
    {
      int err = errno;
      munmap (m, size);
      *st = err ? fail (req, DUMPER_E_IO, "cannot read the image", err)
                : fail (req, DUMPER_E_IMAGE_TRUNCATED,
                        "the file became shorter while it was read", 0);
      return false;
    }
  p->base = p->region = m;
  p->region_size = size;
  p->method = PDUMP_LOAD_READ;
  return true;
}

/* HOT in anonymous memory aligned for huge pages, to be read while it is
   relocated; everything else mapped from the file.  Private file pages
   written by relocation would each cost a copy-on-write fault; one
   huge-page fault per 2 MiB plus a read is far cheaper.  */
static bool
place_hybrid (struct placement *p, const struct pdump_view *view, uint64_t size)
{
  const struct pdump_section *hot = &view->sections[PDUMP_SECTION_HOT];
  size_t region_size = size + HUGE_PAGE;
  unsigned char *region = mmap (NULL, region_size, PROT_NONE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED)
    return false;
  uintptr_t hot_at = ((uintptr_t) region + hot->offset + HUGE_PAGE - 1)
                     & ~(uintptr_t) (HUGE_PAGE - 1);
  unsigned char *base = (unsigned char *) (hot_at - hot->offset);
  int prot = PROT_READ | PROT_WRITE;
  bool ok = mmap (base, hot->offset, prot, MAP_PRIVATE | MAP_FIXED, p->fd,
                  (off_t) p->origin) != MAP_FAILED;
  if (ok && hot->size)
    {
      ok = mmap (base + hot->offset, hot->size, prot,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED;
      if (ok)
        madvise (base + hot->offset, hot->size, MADV_HUGEPAGE);
    }
  uint64_t cold_offset = view->sections[PDUMP_SECTION_COLD].offset;
  if (ok && size > cold_offset)
    ok = mmap (base + cold_offset, size - cold_offset, prot,
               MAP_PRIVATE | MAP_FIXED, p->fd,
               (off_t) (p->origin + cold_offset)) != MAP_FAILED;
  if (!ok)
    {
      munmap (region, region_size);
      return false;
    }
  p->base = base;
  p->region = region;
  p->region_size = region_size;
  p->method = PDUMP_LOAD_HYBRID;
  p->hot_pending = hot->size > 0;
  p->hot_offset = hot->offset;
  return true;
}

static bool
fill_hot (void *ctx, unsigned char *dest, uint64_t offset, uint64_t size)
{
  const struct placement *p = ctx;
  if (p->hot_unpack)
    /* DEST is HOT's byte OFFSET; the frames are placed from HOT's start.  */
    return pdump_unpack_until (p->hot_unpack, dest - offset, offset + size)
           == DUMPER_OK;
  return pdump_read_exact (p->fd, dest, (size_t) size,
                           p->origin + p->hot_offset + offset);
}

/* Stored bytes for codec.c, relative to the image's first byte.  */
static bool
read_stored (void *ctx, void *buf, size_t size, uint64_t offset)
{
  const struct placement *p = ctx;
  return pdump_read_exact (p->fd, buf, size, (p->origin + offset));
}

/* A compressed image: anonymous memory laid out like the uncompressed
   file (HOT aligned for huge pages, as in place_hybrid), every section
   the loader reads but HOT decompressed straight into its place now;
   HOT is begun here and decompressed frame by frame while relocate
   hashes and relocates it (fill_hot).  TYPES is never read and OBJECTS
   only by the structural pass: they are left undecompressed (zero)
   otherwise.  All of the image is private memory written once, so all
   of it is advised for huge pages: a fault per 2 MiB instead of per
   4 KiB page (COLD cannot stay shared with the page cache anyway).  */
static bool
place_unpack (struct placement *p, const struct pdump_view *view,
              struct pdump_unpack *hot_unpack,
              const struct pdump_load_request *req, enum dumper_status *st)
{
  /* Cleared first: a failure before pdump_unpack_begin releases it.  */
  memset (hot_unpack, 0, sizeof *hot_unpack);
  const struct pdump_section *hot = &view->sections[PDUMP_SECTION_HOT];
  uint64_t size = view->header.image_size;
  size_t region_size = size + HUGE_PAGE;
  unsigned char *region = mmap (NULL, region_size, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED)
    {
      *st = fail (req, DUMPER_E_NOMEM, "cannot allocate memory for the image",
                  errno);
      return false;
    }
  uintptr_t hot_at = ((uintptr_t) region + hot->offset + HUGE_PAGE - 1)
                     & ~(uintptr_t) (HUGE_PAGE - 1);
  unsigned char *base = (unsigned char *) (hot_at - hot->offset);
  madvise (base + hot->offset, size - hot->offset, MADV_HUGEPAGE);
  p->base = base;
  p->region = region;
  p->region_size = region_size;
  p->method = PDUMP_LOAD_UNPACK;
  *st = DUMPER_OK;
  for (unsigned k = PDUMP_SECTION_COLD; k <= PDUMP_SECTION_KIND_MAX && *st == DUMPER_OK; k++)
    if (k != PDUMP_SECTION_TYPES
        && (k != PDUMP_SECTION_OBJECTS || req->verify_heap != NULL))
      *st = pdump_unpack_section (view, k, base + view->sections[k].offset,
                                  read_stored, p, req->path, req->detail,
                                  req->detail_size);
  if (*st == DUMPER_OK)
    *st = pdump_unpack_begin (hot_unpack, view, PDUMP_SECTION_HOT, read_stored,
                              p, req->path, p->hot_detail, sizeof p->hot_detail);
  if (*st != DUMPER_OK)
    {
      if (hot_unpack->section)
        snprintf (req->detail, req->detail_size, "%s", p->hot_detail);
      pdump_unpack_end (hot_unpack);
      munmap (region, region_size);
      return false;
    }
  p->hot_unpack = hot_unpack;
  p->hot_pending = hot->size > 0;
  p->hot_offset = hot->offset;
  return true;
}

/* Bring the whole file into memory by the chosen method, falling back
   to reading it when mapping fails.  */
static bool
bring_in (struct placement *p, const struct pdump_load_request *req,
          uint64_t size, const struct pdump_view *view, enum dumper_status *st)
{
  enum pdump_load_method method = choose_method (view, p->origin);
  if (method == PDUMP_LOAD_HYBRID && place_hybrid (p, view, size))
    return true;
  if (method == PDUMP_LOAD_MAP)
    {
      void *m = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, p->fd,
                      (off_t) p->origin);
      if (m != MAP_FAILED)
        {
          p->base = p->region = m;
          p->region_size = size;
          p->method = PDUMP_LOAD_MAP;
          return true;
        }
    }
  return place_read (p, size, req, st);
}

static uintptr_t
decode (unsigned kind, uint64_t value, uintptr_t base, uintptr_t bias)
{
  switch (kind)
    {
    case PDUMP_VALUE_IMAGE: return base + value;
    case PDUMP_VALUE_EXE: return bias + value;
    default: return (uintptr_t) value;
    }
}

/* Copies of the small tables the loader interprets, taken out of the
   file mapping before they are checked: another process writing the
   file cannot change them between the check and the use.  */
struct private_tables
{
  unsigned char *registry;
  unsigned char *scalars;
  unsigned char *code_relocs;
};

static void
free_tables (struct private_tables *t)
{
  free (t->registry);
  free (t->scalars);
  free (t->code_relocs);
}

/* Copy section KIND out of the image at BASE (pdump_verify checks the
   copy's checksum).  */
static enum dumper_status
copy_section (const struct pdump_view *view, enum pdump_section_kind kind,
              const unsigned char *base, unsigned char **copy,
              const struct pdump_load_request *req)
{
  const struct pdump_section *s = &view->sections[kind];
  *copy = malloc (s->size ? (size_t) s->size : 1);
  if (*copy == NULL)
    return fail (req, DUMPER_E_NOMEM, "out of memory for the image's tables", 0);
  memcpy (*copy, base + s->offset, (size_t) s->size);
  return DUMPER_OK;
}

/* Write the remembered statics and build the registry for the bridge.
   The records (REGISTRY, a private copy) were checked by
   pdump_check_registry against the declaration table: every address
   written here is a declared static's.  */
static struct pdump_entry *
restore (const struct pdump_view *view, const unsigned char *base,
         const struct private_tables *tables, const struct pdump_exe *exe,
         const struct pdump_load_request *req, struct pdump_stats *stats)
{
  const struct pdump_section *reg = &view->sections[PDUMP_SECTION_REGISTRY];
  struct pdump_entry *entries = malloc ((reg->count ? reg->count : 1) * sizeof *entries);
  if (entries == NULL)
    return NULL;
  for (uint64_t i = 0; i < reg->count; i++)
    {
      struct pdump_record r;
      memcpy (&r, tables->registry + i * sizeof r, sizeof r);
      /* Without a table (only the fuzz targets, whose stand-in
         executable is a buffer of their own) the checked offset is
         used; the bridge always passes the executable's table.  */
      const struct dumper_decl *d = req->decls ? &req->decls[r.decl] : NULL;
      unsigned char *at = (unsigned char *) (exe->bias + r.exe_offset);
      struct pdump_entry *e = &entries[i];
      e->decl = r.decl;
      e->kind = r.kind;
      e->addr = NULL;
      switch (r.kind)
        {
        case DUMPER_DECL_ROOT:
        case DUMPER_DECL_WORD:
        case DUMPER_DECL_PTR:
          {
            /* The word inside the declared static, by its offset there
               (checked to be a whole word inside it).  */
            e->addr = d ? (unsigned char *) d->addr
                          + (r.exe_offset - ((uintptr_t) d->addr - exe->bias))
                        : at;
            uintptr_t value = decode (r.value_kind, r.value, (uintptr_t) base,
                                      exe->bias);
            memcpy (e->addr, &value, sizeof value);
            stats->root_count++;
            break;
          }
        case DUMPER_DECL_SCALAR:
          e->addr = d ? d->addr : at;
          memcpy (e->addr, tables->scalars + r.value, r.size);
          stats->scalar_count++;
          break;
        case DUMPER_DECL_HOOK:
          stats->hook_count++;
          break;
        }
    }
  return entries;
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
  const struct placement *place;      /* set once load_image has one */
  const struct private_tables *tables;
  struct placement saved_place;
  struct private_tables saved_tables;
};

static _Thread_local struct bus_guard *bus_guard;
static struct sigaction previous_bus_action;

static void
on_sigbus (int sig, siginfo_t *info, void *uc)
{
  struct bus_guard *g = bus_guard;
  if (g == NULL || g->place == NULL)
    {
      /* Not ours: the previous handler takes the fault when the
         instruction runs again.  */
      sigaction (SIGBUS, &previous_bus_action, NULL);
      (void) sig, (void) info, (void) uc;
      return;
    }
  g->saved_place = *g->place;
  if (g->tables)
    g->saved_tables = *g->tables;
  siglongjmp (g->jump, 1);
}

/* Test-only: DUMPER_TEST_TRUNCATE_IMAGE=SIZE truncates the image file
   to SIZE bytes once it is mapped, to test the guard above
   (tests/pdump/trust.sh).  */
static void
truncate_for_test (const char *path)
{
  const char *size = getenv ("DUMPER_TEST_TRUNCATE_IMAGE");
  if (size != NULL && *size)
    (void) !truncate (path, (off_t) strtoull (size, NULL, 0));
}

static enum dumper_status load_image (const struct pdump_load_request *req,
                                      struct pdump_entry **entries_out,
                                      size_t *entry_count,
                                      struct bus_guard *guard);

enum dumper_status
pdump_load (const struct pdump_load_request *req, struct pdump_entry **entries_out,
            size_t *entry_count)
{
  /* Static: read after the jump back.  One load at a time (pdump_range_
     is process-wide); the thread-local pointer keeps other threads'
     faults out.  */
  static struct bus_guard guard;
  memset (&guard, 0, sizeof guard);
  struct sigaction action;
  memset (&action, 0, sizeof action);
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO;
  sigemptyset (&action.sa_mask);
  bool installed = sigaction (SIGBUS, &action, &previous_bus_action) == 0;
  enum dumper_status status;
  if (sigsetjmp (guard.jump, 1) == 0)
    {
      bus_guard = &guard;
      status = load_image (req, entries_out, entry_count, &guard);
    }
  else
    {
      free_tables (&guard.saved_tables);
      munmap (guard.saved_place.region, guard.saved_place.region_size);
      if (guard.saved_place.fd >= 0)
        close (guard.saved_place.fd);
      *entries_out = NULL;
      *entry_count = 0;
      status = fail (req, DUMPER_E_IMAGE_CORRUPT, "the file became shorter "
                     "while it was loaded (changed in place; replace images "
                     "by rename)", 0);
    }
  bus_guard = NULL;
  if (installed)
    sigaction (SIGBUS, &previous_bus_action, NULL);
  return status;
}

static enum dumper_status
load_image (const struct pdump_load_request *req, struct pdump_entry **entries_out,
            size_t *entry_count, struct bus_guard *guard)
{
  *entries_out = NULL;
  *entry_count = 0;
  /* A check touches no global state: the writer checks what it wrote
     from a process that runs from an image.  */
  if (pdump_range_.end != 0 && !req->check_only)
    return fail (req, DUMPER_E_STATE, "an image is already loaded", 0);

  double t0 = pdump_now ();
  long faults0 = minor_faults ();
  struct pdump_stats stats;
  memset (&stats, 0, sizeof stats);

  int fd = open (req->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail (req, DUMPER_E_IMAGE_MISSING, "cannot open the image", errno);
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      int err = errno;
      close (fd);
      return fail (req, DUMPER_E_IO, "cannot read the image", err);
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      return fail (req, DUMPER_E_IMAGE_MISSING, "not a regular file", 0);
    }
  /* The image is the file, or a section of it (an executable written by
     dumper-embed: at start-up, or named by --dump-file).  */
  uint64_t origin = 0, length = (uint64_t) st.st_size;
  unsigned char elf_magic[4];
  if (req->embedded
      || (length >= sizeof elf_magic
          && pdump_read_exact (fd, elf_magic, sizeof elf_magic, 0)
          && memcmp (elf_magic, "\177ELF", 4) == 0))
    {
      struct pdump_embedded em;
      enum dumper_status es = pdump_find_embedded (fd, req->path, &em,
                                                   req->detail, req->detail_size);
      if (es == DUMPER_OK && !em.found)
        es = fail (req, DUMPER_E_IMAGE_MISSING, "no embedded image (no "
                   PDUMP_EMBED_SECTION " section)", 0);
      if (es != DUMPER_OK)
        {
          close (fd);
          return es;
        }
      origin = em.offset;
      length = em.size;
    }

  /* The header and section table sit in the first page.  */
  unsigned char first[4096];
  size_t available = length < sizeof first ? (size_t) length : sizeof first;
  if (available && !pdump_read_exact (fd, first, available, origin))
    {
      int err = errno;
      close (fd);
      return fail (req, DUMPER_E_IO, "cannot read the image", err);
    }
  struct pdump_view view;
  enum dumper_status status
    = pdump_check_header (first, available, length,
                          req->fingerprint, req->path, &view, req->detail,
                          req->detail_size);
  if (status != DUMPER_OK)
    {
      close (fd);
      return status;
    }
  double t_open = pdump_now ();

  uint64_t size = view.header.image_size;
  struct placement place = { .fd = fd, .origin = origin };
  struct pdump_unpack hot_unpack;
  if (view.compressed
      ? !place_unpack (&place, &view, &hot_unpack, req, &status)
      : !bring_in (&place, req, size, &view, &status))
    {
      close (fd);
      return status;
    }
  guard->place = &place;
  truncate_for_test (req->path);
  unsigned char *base = place.base;
  double t_map = pdump_now ();

  /* The small tables the loader interprets are copied out first and
     only the copies are checked and used (pdump_verify checks their
     sums on the copies).  */
  struct private_tables tables = { NULL, NULL, NULL };
  guard->tables = &tables;
  if (status == DUMPER_OK)
    status = copy_section (&view, PDUMP_SECTION_REGISTRY, base,
                           &tables.registry, req);
  if (status == DUMPER_OK)
    status = copy_section (&view, PDUMP_SECTION_SCALAR_DATA, base,
                           &tables.scalars, req);
  if (status == DUMPER_OK)
    status = copy_section (&view, PDUMP_SECTION_RELOC_CODE, base,
                           &tables.code_relocs, req);
  /* Checksums, relocation (code pointers included), registry and, when
     asked, the structural pass: the one sequence dumper-inspect --check
     runs too (verify.c).  */
  struct pdump_exe exe;
  if (req->exe)
    exe = *req->exe;
  else if (!pdump_exe_layout (&exe))
    status = fail (req, DUMPER_E_EXE, "cannot read the executable's program "
                   "headers", 0);
  struct pdump_verify_request vr = {
    .view = &view, .bytes = base,
    .fill = place.hot_pending ? fill_hot : NULL, .fill_ctx = &place,
    .image_base = (uintptr_t) base, .exe = &exe, .heap = req->verify_heap,
    .decls = req->decls, .decl_count = req->decl_count,
    .registry = tables.registry, .scalars = tables.scalars,
    .code_relocs = tables.code_relocs,
    .path = req->path, .detail = req->detail, .detail_size = req->detail_size
  };
  if (status == DUMPER_OK)
    status = pdump_verify (&vr);
  if (place.hot_unpack)
    {
      /* relocate reports a failed fill as a read error; give the
         frame's own status and message.  */
      if (place.hot_unpack->status != DUMPER_OK)
        {
          status = place.hot_unpack->status;
          snprintf (req->detail, req->detail_size, "%s", place.hot_detail);
        }
      pdump_unpack_end (place.hot_unpack);
    }
  close (fd);
  place.fd = -1;
  uint64_t image_relocs = vr.image_relocs, exe_relocs = vr.exe_relocs;
  uint64_t code_relocs = vr.code_reloc_count;
  double t_reloc = pdump_now ();
  if (req->check_only)
    {
      /* dumper-inspect --check --deep: the verdict, nothing restored.  */
      munmap (place.region, place.region_size);
      free_tables (&tables);
      return status;
    }

  uint64_t span = view.objects_end - view.objects_start;
  size_t mark_bytes = (size_t) ((span / PDUMP_GRANULE + 63) / 64 * 8);
  uint64_t *marks = NULL;
  if (status == DUMPER_OK)
    {
      marks = mmap (NULL, mark_bytes ? mark_bytes : 8, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (marks == MAP_FAILED)
        status = fail (req, DUMPER_E_NOMEM, "cannot allocate the mark bitmap",
                       errno);
    }
  struct pdump_entry *entries = NULL;
  if (status == DUMPER_OK)
    {
      entries = restore (&view, base, &tables, &exe, req, &stats);
      if (entries == NULL)
        {
          munmap (marks, mark_bytes ? mark_bytes : 8);
          status = fail (req, DUMPER_E_NOMEM, "out of memory for the registry", 0);
        }
    }
  free_tables (&tables);
  if (status != DUMPER_OK)
    {
      munmap (place.region, place.region_size);
      return status;
    }
  double t_restore = pdump_now ();

  /* Keep HOT and COLD; give back the rest, and the alignment slack.  */
  munmap (base + view.discard_start, size - view.discard_start);
  if (place.method == PDUMP_LOAD_HYBRID || place.method == PDUMP_LOAD_UNPACK)
    {
      unsigned char *region_end = place.region + place.region_size;
      unsigned char *kept_end = base + view.discard_start;
      if (base > place.region)
        munmap (place.region, (size_t) (base - place.region));
      if (region_end > kept_end)
        munmap (kept_end, (size_t) (region_end - kept_end));
    }

#ifdef HAVE_LSAN_ROOTS
  /* Objects in the image may point at malloc'd memory; LeakSanitizer
     does not scan mappings it did not make, so tell it.  */
  __lsan_register_root_region (base + view.objects_start, span);
#endif
  loaded_base = base;
  loaded_size = (size_t) view.discard_start;
  pdump_range_.start = (uintptr_t) base + view.objects_start;
  pdump_range_.end = (uintptr_t) base + view.objects_end;
  pdump_range_.mark_bits = marks;
  pdump_mark_bytes_ = mark_bytes;

  stats.loaded = true;
  stats.mapped = place.method == PDUMP_LOAD_HYBRID
                 || place.method == PDUMP_LOAD_MAP;
  stats.embedded = origin != 0 || req->embedded;
  stats.image_size = size;
  stats.method = place.method;
  stats.path = strdup (req->path);
  stats.file_size = length;
  stats.hot_size = view.sections[PDUMP_SECTION_HOT].size;
  stats.cold_size = view.sections[PDUMP_SECTION_COLD].size;
  stats.discardable_size = size - view.discard_start;
  stats.object_count = view.header.object_count;
  stats.image_relocs = image_relocs;
  stats.exe_relocs = exe_relocs;
  stats.code_relocs = code_relocs;
  stats.open_seconds = t_open - t0;
  stats.map_seconds = t_map - t_open;
  stats.verify_seconds = vr.sums_seconds;
  stats.relocate_seconds = vr.relocate_seconds;
  stats.structure_seconds = vr.structure_seconds;
  stats.restore_seconds = t_restore - t_reloc;
  stats.total_seconds = pdump_now () - t0;
  stats.minor_faults = minor_faults () - faults0;
  pdump_load_stats_ = stats;

  *entries_out = entries;
  *entry_count = (size_t) view.sections[PDUMP_SECTION_REGISTRY].count;
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
