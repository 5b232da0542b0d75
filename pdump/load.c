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
   load; the first failure discards what the earlier ones took), and
   where the time goes (pdump_stats):
     open_file, find_image, read_header
               open      open, find an embedded image, read the first
                         page, check the header, fingerprint
     place_image
               map       map the file MAP_PRIVATE, or read it into
                         anonymous memory (mapping fails or
                         DUMPER_PDUMP_LOAD=read), or decompress it
     copy_tables         private copies of the tables interpreted
     verify_image
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

#include "common/os.h"
#include "backend.h"
#include "bootcache.h"
#include "check.h"
#include "codec.h"
#include "embed.h"
#include "exe.h"
#include "format.h"
#include "hash.h"
#include "internal.h"
#include "verify.h"

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
static enum dumper_status
fail_file (const struct pdump_load_request *req, enum dumper_status status,
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
  bool cold_summed;           /* COLD's checksum checked while it was
                                 decompressed */
  char hot_detail[512];       /* its failure, which relocate would mask */
};

/* HOT gets huge pages when it is aligned to them.  */
#define HUGE_PAGE common_huge_page_size ()

/* The settings of REQ: its caller's, or those of a process that set
   nothing.  */
static const struct common_options *
options_of (const struct pdump_load_request *req)
{
  return req->options ? req->options : &common_default_options;
}

static enum pdump_load_method
choose_method (const struct pdump_view *view, uint64_t origin,
               const struct common_options *options)
{
  long page = sysconf (_SC_PAGESIZE);
  if (options->load_choice == COMMON_LOAD_READ
      || view->header.page_size % (uint64_t) page != 0
      || origin % (uint64_t) page != 0)
    return PDUMP_LOAD_READ;
  if (options->load_choice == COMMON_LOAD_MAP)
    return PDUMP_LOAD_MAP;
  return PDUMP_LOAD_HYBRID;
}

#ifndef MAP_FIXED_NOREPLACE
# define MAP_FIXED_NOREPLACE 0x100000   /* Linux 4.17; older kernels
                                           treat it as a hint */
#endif

/* Why the last fixed placement was not made (pdump_stats).  */
static char base_reason[PATH_MAX + 256];

/* SIZE bytes mapped exactly at AT (never replacing a mapping), or NULL
   with the reason in base_reason.  */
static void *
map_exactly (unsigned char *at, size_t size, int flags, int fd, off_t offset)
{
  void *m = mmap (at, size, PROT_READ | PROT_WRITE,
                  flags | MAP_FIXED_NOREPLACE, fd, offset);
  if (m == MAP_FAILED)
    {
      snprintf (base_reason, sizeof base_reason, "%s [%p, %p): %s",
                errno == EEXIST ? "the preferred range is taken"
                                : "the preferred range cannot be mapped",
                (void *) at, (void *) (at + size), strerror (errno));
      return NULL;
    }
  if (m != at)
    {
      /* A kernel without MAP_FIXED_NOREPLACE took it as a hint.  */
      munmap (m, size);
      snprintf (base_reason, sizeof base_reason, "the preferred range [%p, "
                "%p) is taken (the kernel placed the image elsewhere)",
                (void *) at, (void *) (at + size));
      return NULL;
    }
  return m;
}

/* The whole file in anonymous memory: anywhere, or exactly at AT (then
   false with *ST still DUMPER_OK when that range cannot be had).  */
static bool
place_read (struct placement *p, uint64_t size, const struct pdump_load_request *req,
            enum dumper_status *st, unsigned char *at)
{
  void *m = at ? map_exactly (at, size, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
               : mmap (NULL, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (at && m == NULL)
    return false;
  if (m == MAP_FAILED)
    {
      *st = fail_file (req, DUMPER_E_NOMEM,
                       "cannot allocate memory for the image", errno);
      return false;
    }
  if (!pdump_read_exact (p->fd, m, size, p->origin))
    {
      int err = errno;
      munmap (m, size);
      *st = err ? fail_file (req, DUMPER_E_IO, "cannot read the image", err)
                : fail_file (req, DUMPER_E_IMAGE_TRUNCATED,
                             "the file became shorter while it was read", 0);
      return false;
    }
  p->base = p->region = m;
  p->region_size = size;
  p->method = PDUMP_LOAD_READ;
  return true;
}

/* The kernel's transparent huge page setting NAME ("enabled",
   "defrag"): the bracketed word of /sys/kernel/mm/transparent_hugepage/
   NAME into WORD, or "" when it cannot be read.  */
static void
thp_setting (const char *name, char *word, size_t size)
{
  char path[96], text[128];
  snprintf (path, sizeof path, "/sys/kernel/mm/transparent_hugepage/%s", name);
  word[0] = '\0';
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  ssize_t n = read (fd, text, sizeof text - 1);
  close (fd);
  text[n > 0 ? n : 0] = '\0';
  char *open_bracket = strchr (text, '['), *close_bracket;
  if (open_bracket && (close_bracket = strchr (open_bracket, ']'))
      && (size_t) (close_bracket - open_bracket) <= size)
    {
      memcpy (word, open_bracket + 1, (size_t) (close_bracket - open_bracket - 1));
      word[close_bracket - open_bracket - 1] = '\0';
    }
}

/* Free huge-page-sized blocks the page allocator holds right now
   (/proc/buddyinfo: per zone, free blocks of each order; a huge page is
   order 9 with 4 KiB pages and 2 MiB huge pages, order 11 with 16 KiB
   and 32 MiB, 13 with 64 KiB and 512 MiB, often past the orders listed:
   then none), or -1 when it cannot be read.  */
static long
free_huge_blocks (void)
{
  long page = sysconf (_SC_PAGESIZE);
  int huge_order = 0;
  while (page > 0 && ((size_t) page << huge_order) < HUGE_PAGE
         && huge_order < 30)
    huge_order++;
  char text[2048];
  int fd = open ("/proc/buddyinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read (fd, text, sizeof text - 1);
  close (fd);
  if (n <= 0)
    return -1;
  text[n] = '\0';
  long blocks = 0;
  /* Lines "Node 0, zone   Normal   6099   2162 ...": counts of orders
     0, 1, ... after the zone's name.  */
  for (char *line = strtok (text, "\n"); line; line = strtok (NULL, "\n"))
    {
      char *counts = strstr (line, "zone");
      if (counts == NULL)
        continue;
      counts += 4;
      while (*counts == ' ')
        counts++;
      while (*counts && *counts != ' ')   /* the zone's name */
        counts++;
      for (int order = 0; order <= 20; order++)
        {
          char *end;
          long count = strtol (counts, &end, 10);
          if (end == counts)
            break;
          if (order >= huge_order)
            blocks += count << (order - huge_order);
          counts = end;
        }
    }
  return blocks;
}

/* What to advise for SIZE bytes of anonymous image memory (HOT in a
   hybrid load, all of a compressed one): huge pages where they help (a
   fault per 2 MiB instead of per 4 KiB page, which on a virtual machine
   is the larger part of a start), but never with direct compaction on
   the start-up path (five back-to-back scale-64 loads took 31-444 ms in
   the relocate phase with MADV_HUGEPAGE under Debian's defrag=madvise).
   With defrag `defer' or `never' no fault compacts: MADV_HUGEPAGE.
   Otherwise an advised (`madvise', `defer+madvise') or any (`always')
   huge page fault compacts when no 2 MiB block is free, so huge pages
   are advised only when /proc/buddyinfo shows at least twice the blocks
   SIZE needs free now; else none (`always': MADV_NOHUGEPAGE), and the
   memory comes in small pages.  The choice goes to pdump_stats.  */
static char huge_note[200];

static int
huge_page_advice (uint64_t size)
{
  char enabled[32], defrag[32];
  thp_setting ("enabled", enabled, sizeof enabled);
  thp_setting ("defrag", defrag, sizeof defrag);
  long need = (long) ((size + HUGE_PAGE - 1) / HUGE_PAGE);
  long free_blocks = -2;
  int advice;
  if (strcmp (enabled, "always") != 0 && strcmp (enabled, "madvise") != 0)
    advice = 0;
  else if (strcmp (defrag, "defer") == 0 || strcmp (defrag, "never") == 0)
    advice = MADV_HUGEPAGE;
  else if ((free_blocks = free_huge_blocks ()) >= 2 * need)
    advice = MADV_HUGEPAGE;
  else
    advice = strcmp (defrag, "always") == 0 && strcmp (enabled, "always") == 0
             ? MADV_NOHUGEPAGE : 0;
  snprintf (huge_note, sizeof huge_note, "%s (enabled=%s, defrag=%s, %ld "
            "huge pages of %zu KiB needed, %ld free)",
            advice == MADV_HUGEPAGE ? "advised"
            : advice == MADV_NOHUGEPAGE ? "refused" : "small pages",
            enabled[0] ? enabled : "?", defrag[0] ? defrag : "?", need,
            HUGE_PAGE >> 10, free_blocks);
  return advice;
}

/* Advise anonymous image memory by huge_page_advice.  */
static void
advise_huge (void *at, size_t size)
{
  int advice = huge_page_advice (size);
  if (advice != 0 && size > 0)
    (void) madvise (at, size, advice);   /* a hint: may fail */
}

/* HOT's alignment in an image placed anywhere (base mode random, or a
   fallback): a huge page, so that HOT can be backed by huge pages.  But
   with 4-byte words the kernel randomises mmap by only 8 bits of pages
   (vm.mmap_rnd_compat_bits: 1 MiB with 4 KiB pages), which a 2 MiB
   alignment rounds away: every start landed at one base (found when
   the i386 suite first ran natively, tests/pdump/base.sh).  There,
   pages: the kernel's randomisation is kept whole.  */
static size_t
anywhere_align (void)
{
#if UINTPTR_MAX <= 0xffffffffu
  return (size_t) sysconf (_SC_PAGESIZE);
#else
  return HUGE_PAGE;
#endif
}

/* HOT in anonymous memory aligned for huge pages, to be read while it is
   relocated; everything else mapped from the file.  Private file pages
   written by relocation would each cost a copy-on-write fault; one
   huge-page fault per 2 MiB plus a read is far cheaper (where huge
   pages come without direct compaction: huge_page_advice).  */
static bool
place_hybrid (struct placement *p, const struct pdump_view *view, uint64_t size)
{
  const struct pdump_section *hot = &view->sections[PDUMP_SECTION_HOT];
  size_t align = anywhere_align ();
  size_t region_size = size + align;
  unsigned char *region = mmap (NULL, region_size, PROT_NONE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED)
    return false;
  uintptr_t hot_at = ((uintptr_t) region + hot->offset + align - 1)
                     & ~(uintptr_t) (align - 1);
  unsigned char *base = (unsigned char *) (hot_at - (uintptr_t) hot->offset);
  int prot = PROT_READ | PROT_WRITE;
  bool ok = mmap (base, hot->offset, prot, MAP_PRIVATE | MAP_FIXED, p->fd,
                  (off_t) p->origin) != MAP_FAILED;
  if (ok && hot->size)
    {
      ok = mmap (base + hot->offset, hot->size, prot,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED;
      if (ok)
        advise_huge (base + hot->offset, hot->size);
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
   4 KiB page (COLD cannot stay shared with the page cache anyway).
   COLD's checksum is checked frame by frame as it is decompressed,
   while the bytes are in cache, unless the COLD check is `size' (which
   skips it); verify then does not read COLD again (cold_summed).  */
static bool
place_unpack (struct placement *p, const struct pdump_view *view,
              struct pdump_unpack *hot_unpack,
              const struct pdump_load_request *req, enum dumper_status *st,
              unsigned char *at)
{
  /* Cleared first: a failure before pdump_unpack_begin releases it.  */
  memset (hot_unpack, 0, sizeof *hot_unpack);
  const struct pdump_section *hot = &view->sections[PDUMP_SECTION_HOT];
  uint64_t size = view->header.image_size;
  size_t align = anywhere_align ();
  size_t region_size = at ? size : size + align;
  unsigned char *region
    = at ? map_exactly (at, region_size,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
         : mmap (NULL, region_size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  *st = DUMPER_OK;
  if (at && region == NULL)
    return false;
  if (region == MAP_FAILED)
    {
      *st = fail_file (req, DUMPER_E_NOMEM,
                       "cannot allocate memory for the image", errno);
      return false;
    }
  uintptr_t hot_at = ((uintptr_t) region + hot->offset + align - 1)
                     & ~(uintptr_t) (align - 1);
  unsigned char *base = at ? at : (unsigned char *) (hot_at
                                                     - (uintptr_t) hot->offset);
  advise_huge (base + hot->offset, size - hot->offset);
  p->base = base;
  p->region = region;
  p->region_size = region_size;
  p->method = PDUMP_LOAD_UNPACK;
  p->cold_summed = req->cold_check != DUMPER_COLD_SIZE;
  for (unsigned k = PDUMP_SECTION_COLD; k <= PDUMP_SECTION_KIND_MAX && *st == DUMPER_OK; k++)
    if (k != PDUMP_SECTION_TYPES
        && (k != PDUMP_SECTION_OBJECTS || req->verify_heap != NULL))
      *st = (k == PDUMP_SECTION_COLD && p->cold_summed
             ? pdump_unpack_section_checked : pdump_unpack_section)
        (view, k, base + view->sections[k].offset, read_stored, p, req->path,
         req->detail, req->detail_size);
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

/* Base mode fixed, a plain image: the whole file at its preferred base
   AT, mapped privately (HOT stays a file mapping, shared through the
   page cache until a page is written), or read into anonymous memory
   there when the file cannot be mapped.  False with *ST still DUMPER_OK
   when the range cannot be had (the reason in base_reason).  */
static bool
place_fixed (struct placement *p, const struct pdump_load_request *req,
             const struct pdump_view *view, enum pdump_load_method method,
             unsigned char *at, enum dumper_status *st)
{
  uint64_t size = view->header.image_size;
  if (method == PDUMP_LOAD_READ)
    return place_read (p, size, req, st, at);
  void *m = map_exactly (at, size, MAP_PRIVATE, p->fd, (off_t) p->origin);
  if (m == NULL)
    return false;
  p->base = p->region = m;
  p->region_size = size;
  p->method = PDUMP_LOAD_MAP;
  return true;
}

/* Bring the whole file into memory by the chosen method, falling back
   to reading it when mapping fails; with AT, exactly there or not at
   all (false with *ST still DUMPER_OK: the caller falls back), and read
   into anonymous memory when COPY (the image will be relocated there).  */
static bool
bring_in (struct placement *p, const struct pdump_load_request *req,
          uint64_t size, const struct pdump_view *view, enum dumper_status *st,
          unsigned char *at, bool copy)
{
  enum pdump_load_method method = choose_method (view, p->origin, options_of (req));
  if (at && copy)
    /* Every HOT page will be written: read, not copied on write.  */
    return place_read (p, size, req, st, at);
  if (at)
    return place_fixed (p, req, view, method, at, st);
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
  return place_read (p, size, req, st, NULL);
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

/* A load's verdict on a file cut while it was loaded (pdump_load's
   SIGBUS guard, copy_section).  */
static const char shorter_in_load[]
  = "the file became shorter while it was loaded (changed in place; "
    "replace images by rename)";

/* Copy section KIND out of the image at BASE (pdump_verify checks the
   copy's checksum); with FD >= 0 (a plain image, file offset ORIGIN),
   read it from the file instead: a table read through a file mapping
   maps (fault-around) pages of the discardable part, and each such
   fault is tens of microseconds on a virtual machine (issue 15).  */
static enum dumper_status
copy_section (const struct pdump_view *view, enum pdump_section_kind kind,
              const unsigned char *base, int fd, uint64_t origin,
              unsigned char **copy, const struct pdump_load_request *req)
{
  const struct pdump_section *s = &view->sections[kind];
  *copy = malloc (s->size ? (size_t) s->size : 1);
  if (*copy == NULL)
    return fail_file (req, DUMPER_E_NOMEM,
                      "out of memory for the image's tables", 0);
  if (fd < 0)
    memcpy (*copy, base + s->offset, (size_t) s->size);
  else if (s->size && !pdump_read_exact (fd, *copy, (size_t) s->size,
                                         origin + s->offset))
    /* The header was checked against the file's size: it was cut while
       it was loaded, as the SIGBUS guard would have found.  */
    return errno ? fail_file (req, DUMPER_E_IO, "cannot read the image", errno)
                 : fail_file (req, DUMPER_E_IMAGE_CORRUPT, shorter_in_load, 0);
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
      unsigned char *at = (unsigned char *) (exe->bias + (uintptr_t) r.exe_offset);
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

/* One load in progress: what each step of load_image leaves for the
   next, and what discard releases when a step fails.  */
struct load
{
  const struct pdump_load_request *req;
  long faults0;
  double t0, t_open, t_map, t_reloc, t_restore;
  uint64_t length;              /* bytes of the image in the file */
  struct pdump_view view;
  struct placement place;       /* fd, origin, and the memory */
  bool placed;                  /* place.region is ours to unmap */
  bool at_preferred;            /* at the image's preferred base */
  bool fell_back;               /* base mode fixed, placed elsewhere */
  bool boot_hit;                /* loading the boot cache at its base */
  bool boot_write;              /* loading the image at the boot base,
                                   writing the cache */
  struct stat image_stat;       /* the file when it was opened */
  const char *cold_how;         /* how COLD was verified (pdump_stats) */
  bool skip_cold;               /* COLD's checksum not computed */
  bool hot_known;               /* at the preferred base, the file checked
                                   earlier this boot: HOT's pass skipped */
  bool cold_stamp;              /* record that COLD was checked */
  uint64_t exe_pages;           /* HOT pages executable or code
                                   relocations write */
  struct pdump_unpack hot_unpack;
  struct private_tables tables;
  struct pdump_exe exe;
  struct pdump_verify_request vr;
  uint64_t *marks;
  size_t mark_bytes;
  struct pdump_entry *entries;
  struct pdump_stats stats;
  /* Last: most of it is path buffers a load writes only the start of
     (pdump_boot_init; pdump_load zeroes what comes before).  */
  struct pdump_boot boot;       /* base mode boot */
};

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

static _Thread_local struct bus_guard *bus_guard;
static struct sigaction previous_bus_action;

static void
on_sigbus (int sig, siginfo_t *info, void *uc)
{
  struct bus_guard *g = bus_guard;
  if (g == NULL || g->load == NULL)
    {
      /* Not ours: the previous handler takes the fault when the
         instruction runs again.  */
      sigaction (SIGBUS, &previous_bus_action, NULL);
      (void) sig, (void) info, (void) uc;
      return;
    }
  g->saved_place = g->load->place;
  g->saved_tables = g->load->tables;
  siglongjmp (g->jump, 1);
}

#if DUMPER_TEST_HOOKS
/* Test-only, with --enable-test-hooks: DUMPER_TEST_TRUNCATE_IMAGE=SIZE truncates the image file
   to SIZE bytes at step WHEN, to test the guard above
   (tests/pdump/trust.sh): once it is mapped ("map"), or, with
   DUMPER_TEST_TRUNCATE_WHEN=relocate, when HOT's relocation pass
   begins, after the tables' checksums (in load method map the pass then
   reads HOT through the cut mapping, its hash state live).  */
static void
truncate_for_test (const struct pdump_load_request *req, const char *when)
{
  const char *size = options_of (req)->test_truncate_image;
  const char *at = options_of (req)->test_truncate_when;
  if (size != NULL && *size && strcmp (at ? at : "map", when) == 0)
    (void) !truncate (req->path, (off_t) strtoull (size, NULL, 0));
}

/* The relocation pass's fill for a HOT already in memory, under the
   test above: the cut as the pass begins.  */
static bool
truncate_at_relocate (void *req, unsigned char *dest, uint64_t offset,
                      uint64_t size)
{
  (void) dest, (void) size;
  if (offset == 0)
    truncate_for_test (req, "relocate");
  return true;
}

/* Base mode fixed or boot, DUMPER_TEST_OCCUPY_BASE set: take a page at
   BASE first, so the fallback runs (tests/pdump/base.sh); false with
   the reason when that fails.  */
static bool
occupy_for_test (const struct pdump_load_request *req, uint64_t base)
{
  if (!options_of (req)->test_occupy_base
      || mmap ((void *) (uintptr_t) base, 4096, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0)
         != MAP_FAILED)
    return true;
  snprintf (base_reason, sizeof base_reason, "cannot occupy the preferred "
            "base for the test: %s", strerror (errno));
  return false;
}

/* The relocation pass's fill for the truncation test, when asked.  */
static void
fill_for_test (struct pdump_verify_request *vr,
               const struct pdump_load_request *req)
{
  if (vr->fill == NULL && options_of (req)->test_truncate_when != NULL)
    vr->fill = truncate_at_relocate, vr->fill_ctx = (void *) req;
}
#else
# define truncate_for_test(req, when) ((void) 0)
# define occupy_for_test(req, base) true
# define fill_for_test(vr, req) ((void) 0)
#endif

static enum dumper_status load_image (struct load *l, struct bus_guard *guard);

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
  *entries_out = NULL;
  *entry_count = 0;
  struct load load;
  memset (&load, 0, offsetof (struct load, boot));
  pdump_boot_init (&load.boot, options_of (req)->runtime_dir,
                   options_of (req)->tmp_dir);
  load.req = req;
  load.place.fd = -1;
  enum dumper_status status;
  if (sigsetjmp (guard.jump, 1) == 0)
    {
      bus_guard = &guard;
      status = load_image (&load, &guard);
      if (status == DUMPER_OK && !req->check_only)
        {
          *entries_out = load.entries;
          *entry_count = (size_t) load.view.sections[PDUMP_SECTION_REGISTRY].count;
        }
    }
  else
    {
      free_tables (&guard.saved_tables);
      munmap (guard.saved_place.region, guard.saved_place.region_size);
      if (guard.saved_place.fd >= 0)
        close (guard.saved_place.fd);
      status = fail_file (req, DUMPER_E_IMAGE_CORRUPT, shorter_in_load, 0);
    }
  bus_guard = NULL;
  if (installed)
    sigaction (SIGBUS, &previous_bus_action, NULL);
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
    return fail_file (req, DUMPER_E_STATE, "an image is already loaded", 0);
  l->t0 = pdump_now ();
  l->faults0 = minor_faults ();
  /* O_NONBLOCK: a FIFO named as the image would block a plain open
     until a writer came; it opens at once and is refused below.  It
     changes nothing for a regular file's reads and mappings.  */
  l->place.fd = open (req->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (l->place.fd < 0)
    return fail_file (req, DUMPER_E_IMAGE_MISSING, "cannot open the image",
                      errno);
  struct stat *st = &l->image_stat;
  if (fstat (l->place.fd, st) != 0)
    return fail_file (req, DUMPER_E_IO, "cannot read the image", errno);
  if (!S_ISREG (st->st_mode))
    return fail_file (req, DUMPER_E_IMAGE_MISSING, "not a regular file", 0);
  l->length = (uint64_t) st->st_size;
  return DUMPER_OK;
}

/* Step: the image is the file, or a section of it (an executable
   written by dumper-embed: at start-up, or named by --dump-file).  */
static enum dumper_status
find_image (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  unsigned char elf_magic[4];
  if (!req->embedded
      && !(l->length >= sizeof elf_magic
           && pdump_read_exact (l->place.fd, elf_magic, sizeof elf_magic, 0)
           && memcmp (elf_magic, "\177ELF", 4) == 0))
    return DUMPER_OK;
  struct pdump_embedded em;
  enum dumper_status es = pdump_find_embedded (l->place.fd, req->path, &em,
                                               req->detail, req->detail_size);
  if (es != DUMPER_OK)
    return es;
  if (!em.found)
    return fail_file (req, DUMPER_E_IMAGE_MISSING, "no embedded image (no "
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

/* Step: the header and section table, which sit in the first page.  */
static enum dumper_status
read_header (struct load *l)
{
  const struct pdump_load_request *req = l->req;
  unsigned char first[HEADER_BYTES];
  size_t available = l->length < sizeof first ? (size_t) l->length : sizeof first;
  if (available && !pdump_read_exact (l->place.fd, first, available,
                                      l->place.origin))
    return fail_file (req, DUMPER_E_IO, "cannot read the image", errno);
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
    snprintf (base_reason, sizeof base_reason, "%s", l->req->check_only
              ? "a check: anywhere" : l->boot.reason);
  else if (l->req->base_mode != DUMPER_BASE_FIXED
           && l->req->base_mode != DUMPER_BASE_BOOT)
    snprintf (base_reason, sizeof base_reason, "base mode random");
  else if (base == 0)
    snprintf (base_reason, sizeof base_reason, "the image records no "
              "preferred base");
  else if (base % (uint64_t) sysconf (_SC_PAGESIZE) != 0)
    snprintf (base_reason, sizeof base_reason, "the preferred base 0x%"
              PRIx64 " is not aligned to this machine's pages", base);
  else if (occupy_for_test (l->req, base))
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
  if (!pdump_boot_setup (&l->boot, req->path, l->view.header.header_checksum))
    return DUMPER_OK;
  int fd = pdump_boot_open (&l->boot);
  if (fd >= 0)
    {
      unsigned char first[HEADER_BYTES];
      struct stat st;
      struct pdump_view cache;
      char detail[512];
      snprintf (detail, sizeof detail, "cannot read its header");
      bool header_ok = fstat (fd, &st) == 0 && st.st_size >= (off_t) sizeof first
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
    ? place_unpack (&l->place, &l->view, &l->hot_unpack, l->req, &status, at)
    : bring_in (&l->place, l->req, l->view.header.image_size, &l->view,
                &status, at, l->boot_write);
  if (at && !placed && status == DUMPER_OK)
    {
      /* The fallback: anywhere, relocated.  A boot cache is an image
         like any other: it is then checked in full.  */
      l->fell_back = true;
      l->boot_hit = l->boot_write = false;
      at = NULL;
      placed = l->view.compressed
        ? place_unpack (&l->place, &l->view, &l->hot_unpack, l->req, &status,
                        NULL)
        : bring_in (&l->place, l->req, l->view.header.image_size, &l->view,
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
  truncate_for_test (l->req, "map");
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
    = copy_section (&l->view, PDUMP_SECTION_REGISTRY, base, fd, origin,
                    &l->tables.registry, l->req);
  if (status == DUMPER_OK)
    status = copy_section (&l->view, PDUMP_SECTION_SCALAR_DATA, base, fd,
                           origin, &l->tables.scalars, l->req);
  if (status == DUMPER_OK)
    status = copy_section (&l->view, PDUMP_SECTION_RELOC_CODE, base, fd,
                           origin, &l->tables.code_relocs, l->req);
  return status;
}

#ifndef MADV_POPULATE_WRITE
# define MADV_POPULATE_WRITE 23         /* Linux 5.14 */
#endif

/* The HOT pages holding a word of RELOC_EXE or RELOC_CODE (both sorted;
   checked by pdump_verify, but not yet when POPULATE is set): the only
   HOT pages the loader writes when the image lies at its preferred
   base.  With POPULATE (HOT's first byte), also break copy-on-write of
   each run of those pages in one call before the relocations write
   them: a write fault costs about 14 us a page on a virtual machine
   (the exception and the shadow page table), the kernel's own copy a
   fraction of that (issue 15).  Pages past HOT are never touched (the
   tables are not checked yet); a kernel without MADV_POPULATE_WRITE
   refuses it, and the writes fault as before.  */
static uint64_t
exe_pages (const struct pdump_view *view, const unsigned char *base,
           const unsigned char *code_relocs, unsigned char *populate)
{
  const unsigned char *exe = base + view->sections[PDUMP_SECTION_RELOC_EXE].offset;
  uint64_t exe_count = view->sections[PDUMP_SECTION_RELOC_EXE].count;
  uint64_t code_count = view->sections[PDUMP_SECTION_RELOC_CODE].count;
  uint64_t page_size = (uint64_t) sysconf (_SC_PAGESIZE);
  uint64_t words_per_page = page_size / PDUMP_WORD_SIZE;
  uint64_t hot_pages = (view->sections[PDUMP_SECTION_HOT].size + page_size - 1)
                       / page_size;
  uint64_t i = 0, j = 0, pages = 0, last = UINT64_MAX, run_start = 0;
  while (i < exe_count || j < code_count)
    {
      uint32_t e = UINT32_MAX, c = UINT32_MAX;
      if (i < exe_count)
        memcpy (&e, exe + i * 4, 4);
      if (j < code_count)
        memcpy (&c, code_relocs + j * 4, 4);
      /* Each turn advances an index still in range: entries are not
         checked yet, so 0xffffffff is both a real entry and the
         exhausted list's stand-in (taking j then looped forever).  */
      bool from_exe = j >= code_count || (i < exe_count && e < c);
      uint32_t w = from_exe ? e : c;
      if (from_exe)
        i++;
      else
        j++;
      uint64_t page = w / words_per_page;
      if (page == last)
        continue;
      if (populate && pages > 0 && page != last + 1 && last < hot_pages)
        (void) madvise (populate + run_start * page_size,
                        (size_t) ((last + 1 - run_start) * page_size),
                        MADV_POPULATE_WRITE);
      if (pages == 0 || page != last + 1)
        run_start = page;
      last = page;
      pages++;
    }
  if (populate && pages > 0 && last < hot_pages)
    (void) madvise (populate + run_start * page_size,
                    (size_t) ((last + 1 - run_start) * page_size),
                    MADV_POPULATE_WRITE);
  return pages;
}

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
    switch (pdump_boot_cold_known (&l->boot, req->path, sum, &l->image_stat))
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

/* Step: checksums, relocation (code pointers included), registry and,
   when asked, the structural pass: the one sequence dumper-inspect
   --check runs too (verify.c).  The file is closed afterwards.  */
static enum dumper_status
verify_image (struct load *l)
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
    status = fail_file (req, DUMPER_E_EXE,
                        "cannot read the executable's program headers", 0);
  struct pdump_verify_request vr = {
    .view = &l->view, .bytes = place->base,
    .fill = place->hot_pending ? fill_hot : NULL, .fill_ctx = place,
    .image_base = (uintptr_t) place->base, .exe = &l->exe,
    .heap = req->verify_heap, .decls = req->decls, .decl_count = req->decl_count,
    .registry = l->tables.registry, .scalars = l->tables.scalars,
    .code_relocs = l->tables.code_relocs,
    .trusted = l->boot_hit || l->hot_known,
    .skip_cold = l->skip_cold,
    .relocated = l->boot_write ? write_boot_cache : NULL, .relocated_ctx = l,
    .path = req->path, .detail = req->detail, .detail_size = req->detail_size
  };
  fill_for_test (&vr, req);
  if (status == DUMPER_OK && place->method == PDUMP_LOAD_MAP)
    {
      /* HOT is the file's, copied on write: break that for the pages the
         relocations will write, in as few calls as possible.  */
      (void) exe_pages (&l->view, place->base, l->tables.code_relocs,
                        place->base + l->view.sections[PDUMP_SECTION_HOT].offset);
    }
  if (status == DUMPER_OK)
    status = pdump_verify (&vr);
  l->vr = vr;
  l->vr.sums_seconds += t_cold;   /* pdump_stats: verify */
  if (status == DUMPER_OK)
    l->exe_pages = exe_pages (&l->view, place->base, l->tables.code_relocs,
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
    return fail_file (l->req, DUMPER_E_NOMEM,
                      "cannot allocate the mark bitmap", errno);
  l->marks = marks;
  return DUMPER_OK;
}

/* Step: the remembered statics, from the checked private copies.  */
static enum dumper_status
restore_statics (struct load *l)
{
  l->entries = restore (&l->view, l->place.base, &l->tables, &l->exe, l->req,
                        &l->stats);
  if (l->entries == NULL)
    return fail_file (l->req, DUMPER_E_NOMEM,
                      "out of memory for the registry", 0);
  free_tables (&l->tables);
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
  free_tables (&l->tables);
  if (l->placed)
    munmap (l->place.region, l->place.region_size);
  if (l->marks)
    munmap (l->marks, l->mark_bytes ? l->mark_bytes : 8);
  free (l->entries);
  l->entries = NULL;
}

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

  struct pdump_stats *stats = &l->stats;
  stats->loaded = true;
  stats->mapped = place->method == PDUMP_LOAD_HYBRID
                  || place->method == PDUMP_LOAD_MAP;
  stats->embedded = place->origin != 0 || l->req->embedded;
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
  stats->base = (uintptr_t) base;
  /* A copy: a later check-only load (the writer's self-check) reuses
     base_reason.  */
  static char published_reason[sizeof base_reason];
  snprintf (published_reason, sizeof published_reason, "%s",
            l->boot_hit || l->boot_write ? l->boot.reason
            : l->at_preferred ? "at the preferred base" : base_reason);
  stats->placement_reason = published_reason;
  stats->exe_pages = l->exe_pages;
  stats->cold_check = l->cold_how;
  static char published_huge[sizeof huge_note];
  snprintf (published_huge, sizeof published_huge, "%s",
            place->method == PDUMP_LOAD_HYBRID || place->method == PDUMP_LOAD_UNPACK
            ? huge_note : "no anonymous image memory");
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
    status = find_image (l);
  if (status == DUMPER_OK)
    status = read_header (l);
  if (status == DUMPER_OK)
    status = boot_prepare (l);
  if (status == DUMPER_OK)
    status = place_image (l, guard);
  if (status == DUMPER_OK)
    status = copy_tables (l);
  if (status == DUMPER_OK)
    status = verify_image (l);
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
    pdump_boot_cold_stamp (&l->boot, l->req->path,
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
