/* SPDX-License-Identifier: MIT */
/* pdump/check.h: validation of image bytes, shared by the loader and
   dumper-inspect (check.c).  An image is untrusted input: every
   function here reads only within the lengths it is given, and every
   offset, size and count it accepts is checked against them.  */

#ifndef DUMPER_PDUMP_CHECK_H
#define DUMPER_PDUMP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>

#include "exe.h"
#include "format.h"

/* Write "PATH: " and the formatted message to DETAIL; return STATUS.  */
enum dumper_status pdump_check_fail (enum dumper_status status, char *detail,
                                     size_t detail_size, const char *path,
                                     const char *fmt, ...)
  __attribute__ ((format (printf, 5, 6)));

/* "HOT", "COLD", ... for a section kind; "?" for others.  */
const char *pdump_section_name (unsigned kind);

/* "x86-64", "aarch64", ... for an ELF e_machine.  */
const char *pdump_machine_name (unsigned machine);

/* The ELF e_machine of this build, written to and required in the
   header.  configure refuses a target not listed here.  */
unsigned pdump_native_machine (void);

/* The header and section table, validated.  */
struct pdump_view
{
  struct pdump_header header;
  /* Indexed by enum pdump_section_kind; all present after a check.  */
  struct pdump_section sections[PDUMP_SECTION_KIND_MAX + 1];
  uint64_t objects_start;   /* HOT offset */
  uint64_t objects_end;     /* COLD offset + size */
  uint64_t discard_start;   /* RELOC_IMAGE offset (page-aligned) */
  bool compressed;          /* some section is stored compressed */
};

/* The header checksum of header H followed by the section TABLE (its
   PDUMP_SECTION_KIND_MAX entries as stored): XXH3-64 of bytes [0, 128)
   of the header, with the right magic number, and of the table.  */
uint64_t pdump_header_sum (const struct pdump_header *h, const void *table);

/* Check the first AVAILABLE bytes of an image whose file is FILE_SIZE
   bytes long: magic, version, architecture, size, header checksum,
   section table; then, when FINGERPRINT is not NULL, that it matches.
   The checks run in that order, so each class of damage is reported as
   itself (a truncated file as truncated, not as a bad checksum).  On
   failure the message goes to DETAIL, prefixed with PATH.  */
enum dumper_status pdump_check_header (const void *bytes, size_t available,
                                       uint64_t file_size,
                                       const unsigned char *fingerprint,
                                       const char *path,
                                       struct pdump_view *view,
                                       char *detail, size_t detail_size);

/* Check a section's bytes against its recorded checksum.  */
enum dumper_status pdump_check_section_sum (const struct pdump_view *view,
                                            enum pdump_section_kind kind,
                                            const void *bytes, const char *path,
                                            char *detail, size_t detail_size);

/* Check every REGISTRY record (REGISTRY and SCALAR_DATA bytes given).
   With EXE (may be NULL), also that each static lies in the
   executable's ordinary writable data, each hook in its code and each
   executable-relative value within its span.  With DECLS (the running
   executable's declaration table, or the inspector's copy of it read
   from the file; NULL when there is no executable to check against), also
   that each record names an entry of it of the record's kind, and that
   the static (or hook) it records is that entry's; no two records may
   name the same static or hook.  */
enum dumper_status pdump_check_registry (const struct pdump_view *view,
                                         const void *registry,
                                         const struct pdump_exe *exe,
                                         const struct dumper_decl *decls,
                                         size_t decl_count,
                                         const char *path,
                                         char *detail, size_t detail_size);

/* Restore the code pointers of HOT (after pdump_relocate checked HOT's
   checksum): each word RELOC_CODE lists (sorted, inside HOT, in neither
   other relocation table) holds an index into DECLS that must be a
   DUMPER_DECL_CODE entry; it is replaced by that entry's function.
   *CODE_COUNT gets the number restored.  On failure HOT is partly
   changed; the caller discards it.  */
enum dumper_status pdump_relocate_code (const struct pdump_view *view,
                                        unsigned char *hot,
                                        const void *reloc_image,
                                        const void *reloc_exe,
                                        const void *reloc_code,
                                        const struct dumper_decl *decls,
                                        size_t decl_count,
                                        uint64_t *code_count,
                                        const char *path,
                                        char *detail, size_t detail_size);

/* Fills HOT bytes [OFFSET, OFFSET + SIZE) (section-relative) from the
   file just before relocate hashes them; false on a read error.  */
typedef bool (*pdump_fill_fn) (void *ctx, unsigned char *dest,
                               uint64_t offset, uint64_t size);

/* What the relocation steps share: the image's tables and where a
   failure is reported ("PATH: message" in DETAIL).  */
struct pdump_relocation
{
  const struct pdump_view *view;
  unsigned char *hot;           /* HOT's bytes, relocated in place */
  const void *reloc_image;      /* RELOC_IMAGE's bytes */
  const void *reloc_exe;        /* RELOC_EXE's bytes */
  const char *path;
  char *detail;
  size_t detail_size;
};

/* Relocate HOT's image pointers in place for image offset 0 at
   IMAGE_BASE: every word whose RELOC_IMAGE bit is set holds an address
   at the header's preferred base; it is checked to point into the
   object sections there (plus a tag), and moved by IMAGE_BASE minus
   that base.  At the preferred base nothing is written.  HOT's checksum is
   computed on the way, chunk by chunk, before each chunk is changed, so
   the bytes are hashed while they are in cache.  With FILL (may be
   NULL) HOT is read chunk by chunk just before each chunk is hashed.
   With IMAGE_BASE 0 the words become image offsets (dumper-inspect
   --check, on a private copy).  On
   failure HOT is partly relocated; the caller discards it.  The number
   of image words relocated goes to *IMAGE_COUNT: 0 at the preferred
   base, where they are only checked.  */
enum dumper_status pdump_relocate (const struct pdump_relocation *r,
                                   pdump_fill_fn fill, void *fill_ctx,
                                   uintptr_t image_base,
                                   uint64_t *image_count);

/* After pdump_relocate checked HOT's checksum: add EXE_BIAS to every
   word RELOC_EXE lists (strictly increasing, inside HOT, not in
   RELOC_IMAGE), after checking its stored value lies in [0, EXE_LIMIT
   + tag).  *EXE_COUNT gets the number applied.  On failure HOT is
   partly relocated; the caller discards it.  */
enum dumper_status pdump_relocate_exe (const struct pdump_relocation *r,
                                       uintptr_t exe_bias, uint64_t exe_limit,
                                       uint64_t *exe_count);

#endif /* DUMPER_PDUMP_CHECK_H */
