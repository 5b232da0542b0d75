/* SPDX-License-Identifier: MIT */
/* pdump/check.c: validation of image bytes, and relocation.

   Shared by the loader and dumper-inspect --check, so both accept and
   refuse exactly the same images with the same error classes.  The
   rules follow format.h; each check names what it found and where.

   Classes, in the order the checks run:
     DUMPER_E_IMAGE_TRUNCATED   shorter than a header (and section
                                table)
     DUMPER_E_IMAGE_MAGIC       not a dumper image
     DUMPER_E_IMAGE_CORRUPT     bad header checksum (a damaged magic
                                number whose checksum holds with the
                                right one included)
     DUMPER_E_IMAGE_VERSION     another format version
     DUMPER_E_IMAGE_ARCH        another word size, byte order or machine
     DUMPER_E_IMAGE_TRUNCATED   shorter than the header's file_size
     DUMPER_E_IMAGE_CORRUPT     section table, section checksum, record
                                or relocation
     DUMPER_E_IMAGE_FINGERPRINT another build of the executable
   The header checksum is verified before any header field is believed,
   so a flipped bit anywhere in the header or section table is reported
   as corruption, never as another version, architecture or build, nor
   as truncation; those are reported only by an intact header.  */

#include <config.h>

#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/pdump.h>

#include "check.h"
#include "common/bits.h"
#include "common/codetargets.h"
#include "hash.h"

/* Relocation proceeds in chunks of this many HOT words (256 KiB, within
   a typical L2 cache): each chunk is read (when the caller reads HOT
   from the file), hashed and relocated while it is in cache.  */
#define CHUNK_WORDS 32768

enum dumper_status
pdump_check_fail (enum dumper_status status, char *detail, size_t detail_size,
                  const char *path, const char *fmt, ...)
{
  int n = snprintf (detail, detail_size, "%s: ", path);
  if (n < 0 || (size_t) n >= detail_size)
    return status;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (detail + n, detail_size - (size_t) n, fmt, ap);
  va_end (ap);
  return status;
}

const char *
pdump_machine_name (unsigned machine)
{
  switch (machine)
    {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390";
    default: return "an unknown machine";
    }
}

unsigned
pdump_native_machine (void)
{
#if defined __x86_64__
  return EM_X86_64;
#elif defined __aarch64__
  return EM_AARCH64;
#elif defined __i386__
  return EM_386;
#else
  return EM_NONE;
#endif
}

const char *
pdump_section_name (unsigned kind)
{
  static const char *const names[] = {
    "?", "HOT", "COLD", "RELOC_IMAGE", "RELOC_EXE", "REGISTRY",
    "SCALAR_DATA", "TYPES", "OBJECTS", "RELOC_CODE"
  };
  return kind <= PDUMP_SECTION_KIND_MAX ? names[kind] : "?";
}

static bool
is_power_of_two (uint64_t n)
{
  return n && !(n & (n - 1));
}

/* Where the sections' bytes are stored.  Uncompressed: exactly where
   they lie in the image, which is the file.  Compressed: in section
   order after the header page, each inside the file, a compressed one
   large enough for its frame table (the frame sizes are checked when it
   is read, codec.c).  */
static enum dumper_status
check_stored (struct pdump_view *v, const char *path, char *detail,
              size_t detail_size)
{
  const struct pdump_header *h = &v->header;
  const struct pdump_section *s = v->sections;
  if (!v->compressed)
    {
      bool same = h->image_size == h->file_size && h->frame_size == 0;
      for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX && same; k++)
        same = s[k].stored_offset == s[k].offset && s[k].stored_size == s[k].size;
      if (!same)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "an uncompressed image's stored layout differs from "
                     "its image layout");
      return DUMPER_OK;
    }
  if (!is_power_of_two (h->frame_size) || h->frame_size < PDUMP_FRAME_SIZE_MIN
      || h->frame_size > PDUMP_FRAME_SIZE_MAX)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "frame size %" PRIu64 " is invalid", h->frame_size);
  uint64_t end = h->page_size;
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      uint64_t frames = (s[k].size + h->frame_size - 1) / h->frame_size;
      bool ok = s[k].stored_offset >= end
                && s[k].stored_size <= h->file_size
                && s[k].stored_offset <= h->file_size - s[k].stored_size;
      if (s[k].codec == PDUMP_CODEC_NONE)
        ok = ok && s[k].stored_size == s[k].size;
      else
        {
          uint64_t table = (frames * 4 + 7) & ~UINT64_C (7);
          ok = ok && s[k].size > 0 && s[k].stored_size >= table
               && s[k].stored_size - table >= frames;
        }
      if (!ok)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "section %s is stored at offset %" PRIu64 ", %" PRIu64
                     " bytes: outside the %" PRIu64 "-byte file, overlapping, "
                     "or too short for its frames", pdump_section_name (k),
                     s[k].stored_offset, s[k].stored_size, h->file_size);
      end = s[k].stored_offset + s[k].stored_size;
    }
  return DUMPER_OK;
}

/* The arguments every check step takes: the image's path for
   messages, and where the message goes.  */
#define CHECK_ARGS const char *path, char *detail, size_t detail_size

/* Step 1 of check_sections: every kind present once, inside the image,
   8-aligned, with a known codec.  */
static enum dumper_status
check_section_entries (struct pdump_view *v, CHECK_ARGS)
{
  const struct pdump_header *h = &v->header;
  const struct pdump_section *s = v->sections;
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      if (s[k].kind != k)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "section %s is missing", pdump_section_name (k));
      if (s[k].size > h->image_size || s[k].offset > h->image_size - s[k].size)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "section %s (offset %" PRIu64 ", %" PRIu64 " bytes) lies "
                     "outside the %" PRIu64 "-byte image", pdump_section_name (k),
                     s[k].offset, s[k].size, h->image_size);
      if (s[k].offset % 8 != 0 || s[k].codec > PDUMP_CODEC_MAX
          || s[k].reserved != 0)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "section %s has a bad offset or codec", pdump_section_name (k));
      if (s[k].codec != PDUMP_CODEC_NONE)
        v->compressed = true;
    }
  return DUMPER_OK;
}

/* Step 2: the sections in kind order, the mapped ones page-aligned.  */
static enum dumper_status
check_section_order (const struct pdump_view *v, CHECK_ARGS)
{
  const struct pdump_header *h = &v->header;
  const struct pdump_section *s = v->sections;
  /* Order: HOT, COLD, RELOC_IMAGE, RELOC_EXE, REGISTRY, SCALAR_DATA,
     TYPES, OBJECTS, RELOC_CODE, each after the previous one ends.  */
  uint64_t page = h->page_size;
  uint64_t end = page;
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      if (s[k].offset < end)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "section %s overlaps what precedes it", pdump_section_name (k));
      end = s[k].offset + s[k].size;
    }
  if (s[PDUMP_SECTION_HOT].offset % page || s[PDUMP_SECTION_COLD].offset % page
      || s[PDUMP_SECTION_RELOC_IMAGE].offset % page)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "a mapped section is not page-aligned");
  return DUMPER_OK;
}

/* Step 3: the tables' sizes agree with their counts and with HOT, and
   the object counts with each other.  */
static enum dumper_status
check_section_sizes (const struct pdump_view *v, CHECK_ARGS)
{
  const struct pdump_header *h = &v->header;
  const struct pdump_section *s = v->sections;
  const struct pdump_section *hot = &s[PDUMP_SECTION_HOT];
  uint64_t hot_words = hot->size / PDUMP_WORD_SIZE;
  uint64_t bitmap_bytes = (hot_words + 63) / 64 * 8;
  if (hot->size % PDUMP_WORD_SIZE != 0)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "HOT size %" PRIu64 " is not a whole number of words", hot->size);
  if (s[PDUMP_SECTION_RELOC_IMAGE].size != bitmap_bytes)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "RELOC_IMAGE is %" PRIu64 " bytes; HOT needs %" PRIu64,
                 s[PDUMP_SECTION_RELOC_IMAGE].size, bitmap_bytes);
  if (s[PDUMP_SECTION_RELOC_IMAGE].count > hot_words)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "RELOC_IMAGE claims more relocations than HOT has words");
  if (s[PDUMP_SECTION_RELOC_EXE].count > hot_words
      || s[PDUMP_SECTION_RELOC_EXE].size != s[PDUMP_SECTION_RELOC_EXE].count * 4)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "RELOC_EXE size and count disagree");
  if (s[PDUMP_SECTION_RELOC_CODE].count > hot_words
      || s[PDUMP_SECTION_RELOC_CODE].size != s[PDUMP_SECTION_RELOC_CODE].count * 4)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "RELOC_CODE size and count disagree");
  /* Every interior pointer is an image or executable relocation.  */
  if (h->interior_count > s[PDUMP_SECTION_RELOC_IMAGE].count
                          + s[PDUMP_SECTION_RELOC_EXE].count)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "the header counts %" PRIu64 " interior pointers, more "
                 "than HOT's %" PRIu64 " relocations", h->interior_count,
                 s[PDUMP_SECTION_RELOC_IMAGE].count
                 + s[PDUMP_SECTION_RELOC_EXE].count);
  if (s[PDUMP_SECTION_REGISTRY].count > s[PDUMP_SECTION_REGISTRY].size
      || s[PDUMP_SECTION_REGISTRY].size
         != s[PDUMP_SECTION_REGISTRY].count * sizeof (struct pdump_record))
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "REGISTRY size and count disagree");
  if (s[PDUMP_SECTION_TYPES].count != h->type_count
      || s[PDUMP_SECTION_TYPES].size / sizeof (struct pdump_type_entry) < h->type_count)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "TYPES does not hold the header's %u types", h->type_count);
  /* The object counts, which the loader and the host size tables by
     (the mark bitmap, a digest's map: 0xfffffff8 objects once made
     dlisp fail with an unnamed "out of memory", issue 32): HOT's and
     COLD's make the header's, OBJECTS indexes HOT's, and every object
     takes at least a granule of the object sections.  */
  uint64_t cold_count = s[PDUMP_SECTION_COLD].count;
  uint64_t object_span = s[PDUMP_SECTION_COLD].offset
                         + s[PDUMP_SECTION_COLD].size - hot->offset;
  if (hot->count > h->object_count
      || cold_count != h->object_count - hot->count
      || s[PDUMP_SECTION_OBJECTS].count != hot->count
      || h->object_count > object_span / PDUMP_GRANULE)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "object counts disagree: %" PRIu64 " objects, %" PRIu64
                 " in HOT, %" PRIu64 " in COLD, %" PRIu64 " indexed in HOT, "
                 "room for %" PRIu64, h->object_count, hot->count, cold_count,
                 s[PDUMP_SECTION_OBJECTS].count, object_span / PDUMP_GRANULE);
  return DUMPER_OK;
}

/* Step 4: no gap between the sections, and the image ends where the
   last one does.  */
static enum dumper_status
check_section_gaps (const struct pdump_view *v, CHECK_ARGS)
{
  const struct pdump_header *h = &v->header;
  const struct pdump_section *s = v->sections;
  /* And nowhere else: the writer puts each section at the first offset
     past the previous one with the section's alignment (a page for the
     mapped ones, HOT, COLD and RELOC_IMAGE; 8 bytes for the rest), and
     the image ends where the last one does.  A gap would be bytes no
     check covers, and an image_size past the sections memory reserved
     for nothing (a small compressed file naming gigabytes).  */
  uint64_t page = h->page_size;
  uint64_t end = page;
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      bool mapped = k == PDUMP_SECTION_HOT || k == PDUMP_SECTION_COLD
                    || k == PDUMP_SECTION_RELOC_IMAGE;
      uint64_t align = mapped ? page : 8;
      if (s[k].offset - end >= align)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "section %s starts %" PRIu64 " bytes after what precedes "
                     "it (at most %" PRIu64 " of padding)", pdump_section_name (k),
                     s[k].offset - end, align - 1);
      end = s[k].offset + s[k].size;
    }
  if (h->image_size != end)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "the image size %" PRIu64 " is not where its last section "
                 "ends (%" PRIu64 ")", h->image_size, end);
  return DUMPER_OK;
}

/* The section table's sections must lie inside the image, in the order
   and with the alignment format.h gives, without overlapping.  */
static enum dumper_status
check_sections (struct pdump_view *v, const char *path, char *detail,
                size_t detail_size)
{
  enum dumper_status st;
  if ((st = check_section_entries (v, path, detail, detail_size)) != DUMPER_OK
      || (st = check_section_order (v, path, detail, detail_size)) != DUMPER_OK
      || (st = check_section_sizes (v, path, detail, detail_size)) != DUMPER_OK
      || (st = check_section_gaps (v, path, detail, detail_size)) != DUMPER_OK)
    return st;
  const struct pdump_section *s = v->sections;
  const struct pdump_section *hot = &s[PDUMP_SECTION_HOT];
  v->objects_start = hot->offset;
  v->objects_end = s[PDUMP_SECTION_COLD].offset + s[PDUMP_SECTION_COLD].size;
  v->discard_start = s[PDUMP_SECTION_RELOC_IMAGE].offset;
  return check_stored (v, path, detail, detail_size);
}

uint64_t
pdump_header_sum (const struct pdump_header *h, const void *table)
{
  struct pdump_header canonical = *h;
  memcpy (canonical.magic, PDUMP_MAGIC, PDUMP_MAGIC_SIZE);
  /* One-shot XXH3 of the two pieces, without a streaming state (which
     would have to be allocated).  */
  unsigned char bytes[offsetof (struct pdump_header, header_checksum)
                      + PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section)];
  memcpy (bytes, &canonical, offsetof (struct pdump_header, header_checksum));
  memcpy (bytes + offsetof (struct pdump_header, header_checksum), table,
          PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section));
  return XXH3_64bits (bytes, sizeof bytes);
}

/* The steps of pdump_check_header, in order; each returns DUMPER_OK or
   the status of the message it wrote to DETAIL.  */

/* Step 1: the magic number and the header checksum, which say whether
   any other field can be believed.  */
static enum dumper_status
check_header_sum (const void *bytes, size_t available, uint64_t file_size,
                  const struct pdump_header *h, CHECK_ARGS)
{
  /* The header checksum first: until it holds, no field can be
     believed, so a damaged header is corrupt, not "another version" or
     "another architecture".  A damaged magic number is recognised by
     the checksum holding with the right one in its place.  */
  bool magic_ok = memcmp (h->magic, PDUMP_MAGIC, PDUMP_MAGIC_SIZE) == 0;
  size_t table_end = sizeof *h
                     + PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section);
  bool sum_ok = false;
  if (available >= table_end)
    {
      sum_ok = pdump_header_sum (h, (const unsigned char *) bytes + sizeof *h)
               == h->header_checksum;
    }
  if (!magic_ok)
    {
      if (sum_ok)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size,
                                 path, "the magic number is damaged (the "
                                 "header checksum holds with the right one)");
      return pdump_check_fail (DUMPER_E_IMAGE_MAGIC, detail, detail_size, path,
                               "not a dumper image (bad magic number)");
    }
  if (sum_ok)
    return DUMPER_OK;
  if (available < table_end)
    return pdump_check_fail (DUMPER_E_IMAGE_TRUNCATED, detail, detail_size,
                             path, "the file is %" PRIu64 " bytes, shorter "
                             "than an image header and section table",
                             file_size);
  if (h->format_version != PDUMP_FORMAT_VERSION)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size,
                             path, "header checksum mismatch: the header "
                             "is damaged, or was written in a format "
                             "other than version %u (it says %u)",
                             PDUMP_FORMAT_VERSION, h->format_version);
  return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size,
                           path, "header checksum mismatch (the header or "
                           "section table is damaged)");
}

/* Step 2: the image was written for this kind of process: its format
   version, word size, byte order and machine.  */
static enum dumper_status
check_header_target (const struct pdump_header *h, CHECK_ARGS)
{
  if (h->format_version != PDUMP_FORMAT_VERSION)
    return pdump_check_fail (DUMPER_E_IMAGE_VERSION, detail, detail_size, path,
                 "image format version %u; this library reads version %u",
                 h->format_version, PDUMP_FORMAT_VERSION);
  if (h->word_size != PDUMP_WORD_SIZE)
    return pdump_check_fail (DUMPER_E_IMAGE_ARCH, detail, detail_size, path,
                 "image has %u-byte words; this process has %u-byte words",
                 h->word_size, (unsigned) PDUMP_WORD_SIZE);
  unsigned native_order = PDUMP_NATIVE_BYTE_ORDER;
  if (h->byte_order != native_order)
    return pdump_check_fail (DUMPER_E_IMAGE_ARCH, detail, detail_size, path,
                 "image is %s-endian; this process is %s-endian",
                 h->byte_order == PDUMP_BYTE_ORDER_BIG ? "big" : "little",
                 native_order == PDUMP_BYTE_ORDER_BIG ? "big" : "little");
  if (h->machine != pdump_native_machine ())
    return pdump_check_fail (DUMPER_E_IMAGE_ARCH, detail, detail_size, path,
                 "image was written on %s (ELF machine %u); this is %s",
                 pdump_machine_name (h->machine), h->machine,
                 pdump_machine_name (pdump_native_machine ()));
  return DUMPER_OK;
}

/* Step 3: the header's own fields: the file's size, the layout, the
   reserved words, the preferred base, the heap description.  */
static enum dumper_status
check_header_fields (const struct pdump_header *h, uint64_t file_size,
                     CHECK_ARGS)
{
  if (file_size < h->file_size)
    return pdump_check_fail (DUMPER_E_IMAGE_TRUNCATED, detail, detail_size, path,
                 "the file is %" PRIu64 " bytes but its header says %" PRIu64,
                 file_size, h->file_size);
  if (file_size > h->file_size)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "the file is %" PRIu64 " bytes but its header says %" PRIu64,
                 file_size, h->file_size);
  size_t table_end = sizeof *h
                     + PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section);
  if (h->header_size != sizeof *h || h->section_table_offset != sizeof *h
      || h->image_size < h->page_size || h->image_size > (UINT64_C (1) << 46)
      || h->section_count != PDUMP_SECTION_KIND_MAX
      || !is_power_of_two (h->page_size) || h->page_size < 4096
      || h->page_size > (1u << 20)
      || table_end > h->page_size)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "the header's layout fields are invalid");
  for (unsigned i = 0; i < sizeof h->reserved / sizeof h->reserved[0]; i++)
    if (h->reserved[i] != 0)
      return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                   "reserved header fields are not zero");
  /* Where HOT's stored pointers put the image: page-aligned, and the
     whole image fits below the end of the address space there.  */
  if (h->preferred_base % h->page_size != 0
      || h->preferred_base > (uint64_t) UINTPTR_MAX - h->image_size)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "the preferred base 0x%" PRIx64 " is not page-aligned or "
                 "leaves no room for the image", h->preferred_base);
  if (h->tag_bits < 1 || h->tag_bits > 4 || h->type_count == 0
      || h->type_count > 0xFFFF)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "the header's heap description fields are invalid");
  return DUMPER_OK;
}

/* Step 4: the section table, one entry per kind, into V->sections.  */
static enum dumper_status
read_section_table (const unsigned char *table, struct pdump_view *v,
                    CHECK_ARGS)
{
  for (unsigned i = 0; i < v->header.section_count; i++)
    {
      struct pdump_section s;
      memcpy (&s, table + i * sizeof s, sizeof s);
      if (s.kind == 0 || s.kind > PDUMP_SECTION_KIND_MAX
          || v->sections[s.kind].kind != 0)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "section table entry %u has kind %u", i, s.kind);
      v->sections[s.kind] = s;
    }
  return DUMPER_OK;
}

/* Step 6: the image was written by this build of the executable.  */
static enum dumper_status
check_fingerprint (const struct pdump_header *h,
                   const unsigned char *fingerprint, CHECK_ARGS)
{
  if (fingerprint == NULL
      || memcmp (h->fingerprint, fingerprint, sizeof h->fingerprint) == 0)
    return DUMPER_OK;
  char image_fp[33], exe_fp[33];
  for (int i = 0; i < 16; i++)
    {
      snprintf (image_fp + 2 * i, 3, "%02x", h->fingerprint[i]);
      snprintf (exe_fp + 2 * i, 3, "%02x", fingerprint[i]);
    }
  return pdump_check_fail (DUMPER_E_IMAGE_FINGERPRINT, detail, detail_size, path,
               "image fingerprint %s, this executable %s; dump the "
               "image again with this build", image_fp, exe_fp);
}

enum dumper_status
pdump_check_header (const void *bytes, size_t available, uint64_t file_size,
                    const unsigned char *fingerprint, const char *path,
                    struct pdump_view *v, char *detail, size_t detail_size)
{
  memset (v, 0, sizeof *v);
  if (file_size == 0)
    return pdump_check_fail (DUMPER_E_IMAGE_TRUNCATED, detail, detail_size, path,
                 "the file is empty");
  size_t magic_bytes = available < PDUMP_MAGIC_SIZE ? available : PDUMP_MAGIC_SIZE;
  if (available < sizeof (struct pdump_header))
    {
      if (memcmp (bytes, PDUMP_MAGIC, magic_bytes) != 0)
        return pdump_check_fail (DUMPER_E_IMAGE_MAGIC, detail, detail_size,
                                 path, "not a dumper image (bad magic number)");
      return pdump_check_fail (DUMPER_E_IMAGE_TRUNCATED, detail, detail_size,
                               path, "the file is %" PRIu64 " bytes, shorter "
                               "than an image header", file_size);
    }
  struct pdump_header *h = &v->header;
  memcpy (h, bytes, sizeof *h);
  enum dumper_status st;
  if ((st = check_header_sum (bytes, available, file_size, h, path, detail,
                              detail_size)) != DUMPER_OK
      /* The header is as written: its fields say what they mean.  */
      || (st = check_header_target (h, path, detail, detail_size)) != DUMPER_OK
      || (st = check_header_fields (h, file_size, path, detail, detail_size))
         != DUMPER_OK
      || (st = read_section_table ((const unsigned char *) bytes + sizeof *h,
                                   v, path, detail, detail_size)) != DUMPER_OK
      || (st = check_sections (v, path, detail, detail_size)) != DUMPER_OK)
    return st;
  return check_fingerprint (h, fingerprint, path, detail, detail_size);
}

enum dumper_status
pdump_check_section_sum (const struct pdump_view *v,
                         enum pdump_section_kind kind, const void *bytes,
                         const char *path, char *detail, size_t detail_size)
{
  const struct pdump_section *s = &v->sections[kind];
  if (XXH3_64bits (bytes, s->size) != s->checksum)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "checksum mismatch in section %s (offset %" PRIu64 ", %"
                 PRIu64 " bytes)", pdump_section_name (kind), s->offset, s->size);
  return DUMPER_OK;
}

/* An encoded value of kind KIND, checked against the object sections or
   the executable's span.  */
static bool
value_ok (const struct pdump_view *v, unsigned kind, uint64_t value,
          uint64_t exe_limit)
{
  if ((pdump_word) value != value)
    return false;   /* wider than this build's words */
  switch (kind)
    {
    case PDUMP_VALUE_IMMEDIATE:
      return true;
    case PDUMP_VALUE_IMAGE:
      return value >= v->objects_start
             && value - v->objects_start
                < v->objects_end - v->objects_start + PDUMP_MAX_TAG + 1;
    case PDUMP_VALUE_EXE:
      return value < exe_limit + PDUMP_MAX_TAG + 1;
    default:
      return false;
    }
}

/* Whether record R may name declaration D of an executable with load
   bias BIAS: same kind, and the static (or hook) it records is the
   declaration's (a word inside it for ROOT, WORD, PTR).  */
static bool
record_matches_decl (const struct pdump_record *r, const struct dumper_decl *d,
                     uintptr_t bias)
{
  if (r->kind != d->kind)
    return false;
  if (r->kind == DUMPER_DECL_HOOK)
    return r->exe_offset == (uint64_t) ((uintptr_t) d->fn - bias);
  uint64_t start = (uint64_t) ((uintptr_t) d->addr - bias);
  if (r->kind == DUMPER_DECL_SCALAR)
    return r->exe_offset == start && r->size == d->size;
  return r->exe_offset >= start && r->exe_offset - start < d->size
         && (r->exe_offset - start) % sizeof (uintptr_t) == 0;
}

static int
compare_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

/* No two records name the same static or hook: the bridge never writes
   one twice, and a copy would run a hook twice or restore a static from
   two values.  */
static enum dumper_status
check_unique_records (const struct pdump_view *v, const void *registry,
                      const char *path, char *detail, size_t detail_size)
{
  uint64_t count = v->sections[PDUMP_SECTION_REGISTRY].count;
  if (count < 2)
    return DUMPER_OK;
  uint64_t *offsets = count <= SIZE_MAX / sizeof *offsets
                      ? malloc ((size_t) count * sizeof *offsets) : NULL;
  if (offsets == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                             "out of memory checking %" PRIu64 " registry "
                             "records", count);
  for (uint64_t i = 0; i < count; i++)
    {
      struct pdump_record r;
      memcpy (&r, (const unsigned char *) registry + i * sizeof r, sizeof r);
      offsets[i] = r.exe_offset;
    }
  qsort (offsets, (size_t) count, sizeof *offsets, compare_u64);
  uint64_t twice = 0;
  bool found = false;
  for (uint64_t i = 1; i < count && !found; i++)
    if (offsets[i] == offsets[i - 1])
      {
        twice = offsets[i];
        found = true;
      }
  free (offsets);
  if (found)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                             "two registry records name the same executable "
                             "offset 0x%" PRIx64, twice);
  return DUMPER_OK;
}

enum dumper_status
pdump_check_registry (const struct pdump_view *v, const void *registry,
                      const struct pdump_exe *exe,
                      const struct dumper_decl *decls, size_t decl_count,
                      const char *path, char *detail, size_t detail_size)
{
  const struct pdump_section *reg = &v->sections[PDUMP_SECTION_REGISTRY];
  uint64_t scalar_size = v->sections[PDUMP_SECTION_SCALAR_DATA].size;
  uint64_t exe_limit = exe ? exe->hi : UINT64_MAX - PDUMP_MAX_TAG - 1;
  for (uint64_t i = 0; i < reg->count; i++)
    {
      struct pdump_record r;
      memcpy (&r, (const unsigned char *) registry + i * sizeof r, sizeof r);
      bool ok = r.reserved == 0;
      switch (r.kind)
        {
        case DUMPER_DECL_ROOT:
        case DUMPER_DECL_WORD:
        case DUMPER_DECL_PTR:
          ok = ok && r.size == sizeof (uintptr_t)
               && r.value_kind >= PDUMP_VALUE_IMMEDIATE
               && value_ok (v, r.value_kind, r.value, exe_limit)
               && (exe == NULL || pdump_exe_writable (exe, r.exe_offset, r.size));
          break;
        case DUMPER_DECL_SCALAR:
          ok = ok && r.value_kind == PDUMP_VALUE_NONE && r.size > 0
               && r.value <= scalar_size && r.size <= scalar_size - r.value
               && (exe == NULL || pdump_exe_writable (exe, r.exe_offset, r.size));
          break;
        case DUMPER_DECL_HOOK:
          ok = ok && r.value_kind == PDUMP_VALUE_NONE
               && (exe == NULL || pdump_exe_code (exe, r.exe_offset));
          break;
        default:
          ok = false;
        }
      if (!ok)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "registry record %" PRIu64 " (kind %u, executable offset "
                     "0x%" PRIx64 ") is invalid for this executable", i,
                     r.kind, r.exe_offset);
      if (decls == NULL)
        continue;
      if (r.decl >= decl_count)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "registry record %" PRIu64 " names declaration %" PRIu32
                     ", but the executable declares %zu", i, r.decl, decl_count);
      const struct dumper_decl *d = &decls[r.decl];
      if (!record_matches_decl (&r, d, exe ? exe->bias : 0))
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "registry record %" PRIu64 " (kind %u, executable offset "
                     "0x%" PRIx64 ") does not match declaration %" PRIu32
                     " (%s %s)", i, r.kind, r.exe_offset, r.decl,
                     d->kind == DUMPER_DECL_HOOK ? "hook"
                     : d->kind == DUMPER_DECL_CODE ? "code" : "static",
                     d->name ? d->name : "?");
      if (r.kind == DUMPER_DECL_PTR
          && (d->type < 0 || (uint32_t) d->type >= v->header.type_count))
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "registry record %" PRIu64 " names pointer %s of type %d; "
                     "the image has %u types", i, d->name ? d->name : "?",
                     (int) d->type, v->header.type_count);
    }
  return check_unique_records (v, registry, path, detail, detail_size);
}

/* The function the code word CODE (format.h, PDUMP_CODE_WORD) of HOT
   word W names in DECLS, into *TARGET: a DUMPER_DECL_CODE entry's
   function (element 0), or the member of an element of a
   DUMPER_DECL_CODE_TABLE entry's array, read from this process's
   array: the image never holds an address to call.  */
static enum dumper_status
code_target (pdump_word code, const struct dumper_decl *decls,
             size_t decl_count, uintptr_t *target, uint32_t w,
             const char *path, char *detail, size_t detail_size)
{
  uint64_t index = PDUMP_CODE_DECL (code);
  uint64_t element = PDUMP_CODE_ELEMENT (code);
  if (index >= decl_count || (decls[index].kind != DUMPER_DECL_CODE
                              && decls[index].kind != DUMPER_DECL_CODE_TABLE))
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "HOT word %u names declaration %" PRIu64 ", which is "
                 "not a declared code target (the executable "
                 "declares %zu entries)", w, index, decl_count);
  const struct dumper_decl *d = &decls[index];
  const char *name = d->name ? d->name : "?";
  if (d->kind == DUMPER_DECL_CODE)
    {
      if (element != 0)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size,
                     path, "HOT word %u names element %" PRIu64 " of "
                     "declaration %" PRIu64 " (code %s), a single function, "
                     "not a code table", w, element, index, name);
      *target = (uintptr_t) d->fn;
      return DUMPER_OK;
    }
  uint64_t element_count = d->stride ? d->size / d->stride : 0;
  if (element >= element_count)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "HOT word %u names element %" PRIu64 " of code table %s "
                 "(declaration %" PRIu64 "), which has %" PRIu64 " elements",
                 w, element, name, index, element_count);
  *target = common_code_table_member (d, (size_t) element);
  if (*target == 0)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                 "HOT word %u names element %" PRIu64 " of code table %s "
                 "(declaration %" PRIu64 "), whose function is NULL in this "
                 "executable", w, element, name, index);
  return DUMPER_OK;
}

enum dumper_status
pdump_relocate_code (const struct pdump_view *v, unsigned char *hot,
                     const void *reloc_image, const void *reloc_exe,
                     const void *reloc_code, const struct dumper_decl *decls,
                     size_t decl_count, uint64_t *code_count, const char *path,
                     char *detail, size_t detail_size)
{
  const struct pdump_section *cs = &v->sections[PDUMP_SECTION_RELOC_CODE];
  const struct pdump_section *es = &v->sections[PDUMP_SECTION_RELOC_EXE];
  uint64_t word_count = v->sections[PDUMP_SECTION_HOT].size / PDUMP_WORD_SIZE;
  const uint64_t *bits = reloc_image;
  uint64_t next_exe = 0;
  int64_t previous = -1;
  for (uint64_t i = 0; i < cs->count; i++)
    {
      uint32_t w;
      memcpy (&w, (const unsigned char *) reloc_code + i * 4, sizeof w);
      if ((int64_t) w <= previous || w >= word_count)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "RELOC_CODE entry %" PRIu64 " (word %u) is out of order "
                     "or outside HOT", i, w);
      previous = w;
      /* Not also an image or executable relocation (both lists are
         sorted, so one pass over RELOC_EXE serves).  */
      uint32_t e = 0;
      while (next_exe < es->count
             && (memcpy (&e, (const unsigned char *) reloc_exe + next_exe * 4,
                         sizeof e), e < w))
        next_exe++;
      if (((bits[w / 64] >> (w % 64)) & 1)
          || (next_exe < es->count && e == w))
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                     "HOT word %u is in RELOC_CODE and another relocation "
                     "table", w);
      pdump_word code;
      memcpy (&code, hot + (size_t) w * PDUMP_WORD_SIZE, sizeof code);
      uintptr_t target;
      enum dumper_status st = code_target (code, decls, decl_count, &target,
                                           w, path, detail, detail_size);
      if (st != DUMPER_OK)
        return st;
      memcpy (hot + (size_t) w * PDUMP_WORD_SIZE, &target, sizeof target);
    }
  *code_count = cs->count;
  return DUMPER_OK;
}

/* The first HOT word in [CHUNK, LIMIT) whose image value (already
   moved by DELTA) lies outside the object sections: the message for
   the rare failure the relocation loop only detects.  */
static enum dumper_status
locate_bad_image_value (const struct pdump_relocation *r,
                        const pdump_word *words, uint64_t chunk, uint64_t limit,
                        uintptr_t delta, uint64_t image_span)
{
  const uint64_t *bits = r->reloc_image;
  uint64_t preferred = r->view->header.preferred_base;
  for (uint64_t w = chunk; w < limit; w++)
    if (((bits[w / 64] >> (w % 64)) & 1)
        && (uint64_t) (pdump_word) (words[w] - delta) - preferred
           - r->view->objects_start >= image_span)
      return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, r->detail, r->detail_size,
                               r->path, "HOT word %" PRIu64 " holds 0x%" PRIx64
                               ", outside the object sections [0x%" PRIx64
                               ", 0x%" PRIx64 ") at the preferred base", w,
                               (uint64_t) (pdump_word) (words[w] - delta),
                               preferred + r->view->objects_start,
                               preferred + r->view->objects_end);
  return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, r->detail, r->detail_size,
                           r->path, "an image relocation is outside the "
                           "object sections");
}

/* RELOC_IMAGE's bitmap: GROUP_COUNT words of 64 bits, the bits of the
   last past HOT's end masked off by LAST_MASK.  */
struct chunk_bits
{
  const uint64_t *bits;
  uint64_t group_count, last_mask;
};

/* The image relocations of HOT words [CHUNK, LIMIT) (CHUNK a multiple
   of 64): each value moved by DELTA, or at the preferred base (DELTA 0)
   only checked, never written, so the pages stay shared with the page
   cache; *IMAGES counts them.  The loop only accumulates whether a value
   lay outside the object sections (nonzero then); the (rare) failure is
   located by the caller.  Inlined: the loader's hottest loop.  */
static inline __attribute__ ((always_inline)) uint64_t
relocate_chunk (pdump_word *words, const struct chunk_bits *cb,
                uint64_t chunk, uint64_t limit, pdump_word delta,
                uint64_t stored_start, uint64_t image_span, uint64_t *images)
{
  uint64_t first_group = chunk / 64, end_group = (limit + 63) / 64;
  uint64_t bad = 0;
  for (uint64_t b = first_group; b < end_group; b++)
    {
      uint64_t set = b == cb->group_count - 1 ? cb->bits[b] & cb->last_mask
                                              : cb->bits[b];
      pdump_word *group = words + b * 64;
      *images += (uint64_t) common_popcount64 (set);
      if (delta == 0)
        for (; set; set &= set - 1)
          bad |= (uint64_t) group[__builtin_ctzll (set)] - stored_start
                 >= image_span;
      else
        for (; set; set &= set - 1)
          {
            pdump_word *word = group + __builtin_ctzll (set);
            pdump_word value = *word;
            bad |= (uint64_t) value - stored_start >= image_span;
            *word = value + delta;
          }
    }
  return bad;
}

enum dumper_status
pdump_relocate (const struct pdump_relocation *r, pdump_fill_fn fill,
                void *fill_ctx, uintptr_t image_base, uint64_t *image_count)
{
  const struct pdump_view *v = r->view;
  const struct pdump_section *hs = &v->sections[PDUMP_SECTION_HOT];
  unsigned char *hot = r->hot;
  pdump_word *words = (pdump_word *) hot;
  const uint64_t *bits = r->reloc_image;
  uint64_t word_count = hs->size / PDUMP_WORD_SIZE;
  /* Stored values are addresses at the preferred base; DELTA moves
     them to IMAGE_BASE (in word arithmetic: the check of the header
     keeps the preferred range inside the address space), and is 0
     (nothing written) at that base.  */
  uint64_t stored_start = v->header.preferred_base + v->objects_start;
  uint64_t image_span = v->objects_end - v->objects_start + PDUMP_MAX_TAG + 1;
  pdump_word delta = (pdump_word) (image_base
                                   - (uintptr_t) v->header.preferred_base);
  uint64_t images = 0;
  /* Bitmap groups of 64 HOT words; bits past HOT's last word must be 0.  */
  uint64_t group_count = (word_count + 63) / 64;
  uint64_t last_mask = word_count % 64 ? (UINT64_C (1) << (word_count % 64)) - 1
                                       : ~UINT64_C (0);
  if (group_count && (bits[group_count - 1] & ~last_mask))
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, r->detail, r->detail_size,
                             r->path, "RELOC_IMAGE has bits beyond the end of "
                             "HOT");

  /* On the stack: HOT may be a file mapping, and a SIGBUS while it is
     read leaves this function by the loader's siglongjmp (hash.h).  */
  XXH3_state_t state_storage, *state = &state_storage;
  XXH3_INITSTATE (state);
  XXH3_64bits_reset (state);

  for (uint64_t chunk = 0; chunk < word_count; chunk += CHUNK_WORDS)
    {
      uint64_t limit = chunk + CHUNK_WORDS < word_count ? chunk + CHUNK_WORDS
                                                        : word_count;
      if (fill && !fill (fill_ctx, hot + chunk * PDUMP_WORD_SIZE,
                         chunk * PDUMP_WORD_SIZE,
                         (limit - chunk) * PDUMP_WORD_SIZE))
        return pdump_check_fail (DUMPER_E_IO, r->detail, r->detail_size,
                                 r->path, "cannot read section HOT");
      XXH3_64bits_update (state, words + chunk,
                          (size_t) (limit - chunk) * PDUMP_WORD_SIZE);

      struct chunk_bits cb = { bits, group_count, last_mask };
      if (relocate_chunk (words, &cb, chunk, limit, delta, stored_start,
                          image_span, &images))
        return locate_bad_image_value (r, words, chunk, limit, delta,
                                       image_span);
    }
  uint64_t sum = XXH3_64bits_digest (state);
  if (images != v->sections[PDUMP_SECTION_RELOC_IMAGE].count)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, r->detail, r->detail_size,
                             r->path, "RELOC_IMAGE has %" PRIu64 " bits set; "
                             "the table says %" PRIu64, images,
                             v->sections[PDUMP_SECTION_RELOC_IMAGE].count);
  if (sum != hs->checksum)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, r->detail, r->detail_size,
                             r->path, "checksum mismatch in section HOT "
                             "(offset %" PRIu64 ", %" PRIu64 " bytes)",
                             hs->offset, hs->size);
  /* Words relocated: none at the preferred base, where they were only
     checked.  */
  *image_count = delta == 0 ? 0 : images;
  return DUMPER_OK;
}

enum dumper_status
pdump_relocate_exe (const struct pdump_relocation *r, uintptr_t exe_bias,
                    uint64_t exe_limit, uint64_t *exe_count)
{
  const struct pdump_view *v = r->view;
  uint64_t count = v->sections[PDUMP_SECTION_RELOC_EXE].count;
  uint64_t word_count = v->sections[PDUMP_SECTION_HOT].size / PDUMP_WORD_SIZE;
  uint64_t exe_span = exe_limit + PDUMP_MAX_TAG + 1;
  const uint64_t *bits = r->reloc_image;
  unsigned char *hot = r->hot;
  int64_t previous = -1;
  for (uint64_t i = 0; i < count; i++)
    {
      uint32_t w;
      memcpy (&w, (const unsigned char *) r->reloc_exe + i * 4, sizeof w);
      if ((int64_t) w <= previous || w >= word_count)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, r->detail,
                                 r->detail_size, r->path, "RELOC_EXE entry %"
                                 PRIu64 " (word %u) is out of order or "
                                 "outside HOT", i, w);
      previous = w;
      if ((bits[w / 64] >> (w % 64)) & 1)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, r->detail,
                                 r->detail_size, r->path, "HOT word %u is in "
                                 "both relocation tables", w);
      pdump_word value;
      memcpy (&value, hot + (size_t) w * PDUMP_WORD_SIZE, sizeof value);
      if (value >= exe_span)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, r->detail,
                                 r->detail_size, r->path, "HOT word %u holds "
                                 "executable offset 0x%" PRIx64 ", outside the "
                                 "executable", w, (uint64_t) value);
      value += exe_bias;
      memcpy (hot + (size_t) w * PDUMP_WORD_SIZE, &value, sizeof value);
    }
  *exe_count = count;
  return DUMPER_OK;
}
