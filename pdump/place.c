/* SPDX-License-Identifier: MIT */
/* pdump/place.c: bringing an image file into memory for pdump_load
   (load.c): mapped from the file, read into anonymous memory, or
   decompressed; anywhere, or exactly at a base; with HOT in anonymous
   memory aligned and advised for huge pages where that is cheaper than
   copy-on-write faults.  Nothing here reads the image's contents but
   the bytes it copies: checking them is loadcheck.c's.  */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/os.h"
#include "check.h"
#include "embed.h"
#include "load.h"

/* HOT gets huge pages when it is aligned to them.  */
#define HUGE_PAGE common_huge_page_size ()


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
char pdump_base_reason[PATH_MAX + 256];

/* SIZE bytes mapped exactly at AT (never replacing a mapping), or NULL
   with the reason in pdump_base_reason.  */
static void *
map_exactly (unsigned char *at, size_t size, int flags, int fd, off_t offset)
{
  void *m = mmap (at, size, PROT_READ | PROT_WRITE,
                  flags | MAP_FIXED_NOREPLACE, fd, offset);
  if (m == MAP_FAILED)
    {
      snprintf (pdump_base_reason, sizeof pdump_base_reason, "%s [%p, %p): %s",
                errno == EEXIST ? "the preferred range is taken"
                                : "the preferred range cannot be mapped",
                (void *) at, (void *) (at + size), strerror (errno));
      return NULL;
    }
  if (m != at)
    {
      /* A kernel without MAP_FIXED_NOREPLACE took it as a hint.  */
      munmap (m, size);
      snprintf (pdump_base_reason, sizeof pdump_base_reason, "the preferred range [%p, "
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
      *st = pdump_fail_file (req, DUMPER_E_NOMEM,
                       "cannot allocate memory for the image", errno);
      return false;
    }
  if (!pdump_read_exact (p->fd, m, size, p->origin))
    {
      int err = errno;
      munmap (m, size);
      *st = err ? pdump_fail_file (req, DUMPER_E_IO, "cannot read the image", err)
                : pdump_fail_file (req, DUMPER_E_IMAGE_TRUNCATED,
                             "the file became shorter while it was read", 0);
      return false;
    }
  p->base = p->region = m;
  p->region_size = size;
  p->method = PDUMP_LOAD_READ;
  return true;
}


/* What was advised for huge pages for the image's anonymous memory, for
   pdump_stats (common_huge_advice says why).  */
char pdump_huge_note[200];

/* Advise anonymous image memory by common_huge_advice.  */
static void
advise_huge (void *at, size_t size)
{
  int advice = common_huge_advice (size, pdump_huge_note,
                                   sizeof pdump_huge_note);
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
   pages come without direct compaction: common_huge_advice).  */
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

bool
pdump_fill_hot (void *ctx, unsigned char *dest, uint64_t offset, uint64_t size)
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
   hashes and relocates it (pdump_fill_hot).  TYPES is never read and OBJECTS
   only by the structural pass: they are left undecompressed (zero)
   otherwise.  All of the image is private memory written once, so all
   of it is advised for huge pages: a fault per 2 MiB instead of per
   4 KiB page (COLD cannot stay shared with the page cache anyway).
   COLD's checksum is checked frame by frame as it is decompressed,
   while the bytes are in cache, unless the COLD check is `size' (which
   skips it); verify then does not read COLD again (cold_summed).  */
bool
pdump_place_unpack (struct placement *p, const struct pdump_view *view,
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
      *st = pdump_fail_file (req, DUMPER_E_NOMEM,
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
  /* OBJECTS when the structural pass may run (structure_heap: a
     compressed image is never a boot cache).  */
  bool objects = req->verify_heap != NULL
                 || (req->verify_uncached && req->heap != NULL);
  for (unsigned k = PDUMP_SECTION_COLD; k <= PDUMP_SECTION_KIND_MAX && *st == DUMPER_OK; k++)
    if (k != PDUMP_SECTION_TYPES && (k != PDUMP_SECTION_OBJECTS || objects))
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
   when the range cannot be had (the reason in pdump_base_reason).  */
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
bool
pdump_bring_in (struct placement *p, const struct pdump_load_request *req,
          uint64_t size, const struct pdump_view *view, enum dumper_status *st,
          unsigned char *at, bool copy)
{
  enum pdump_load_method method = choose_method (view, p->origin, pdump_options_of (req));
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
uint64_t
pdump_exe_pages (const struct pdump_view *view, const unsigned char *base,
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
