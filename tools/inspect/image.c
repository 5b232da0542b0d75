/* SPDX-License-Identifier: MIT */
/* tools/inspect/image.c: reading an image and checking it the way the
   loader (pdump/load.c) does, with the same functions (pdump/check.c),
   so `dumper-inspect --check' and a host's start-up accept and refuse
   exactly the same images with the same error classes.

   The loader's sequence, mirrored here:
     open        missing or not a regular file: DUMPER_E_IMAGE_MISSING
     first page  the first 4096 bytes (or fewer) -> pdump_check_header,
                 with the executable's fingerprint when one is given
     read        the whole file (the loader maps it)
     verify      checksums of RELOC_IMAGE, RELOC_EXE, REGISTRY,
                 SCALAR_DATA, COLD, in that order
     relocate    pdump_relocate on a private copy of HOT with both bases
                 0: every relocation checked, nothing moved
     registry    pdump_check_registry against the executable's layout
   It never writes to the image bytes.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/zmem.h"
#include "inspect.h"
#include "pdump/verify.h"
#include "pdump/codec.h"
#include "pdump/embed.h"

/* What the loader reads before the header check (load.c: `first').  */
#define FIRST_READ 4096

/* The executable span used without an executable: as large as the
   relocation check allows (see pdump_check_registry).  */

const unsigned char *
insp_section_bytes (const struct insp_image *image,
                    enum pdump_section_kind kind)
{
  /* pdump_check_header proved offset + size <= file_size == size.  */
  return image->bytes + image->view.sections[kind].offset;
}

static enum dumper_status
check_first_page (struct insp_image *image, const unsigned char *first,
                  uint64_t file_size, const unsigned char *fingerprint,
                  char *detail, size_t detail_size)
{
  size_t available = file_size < FIRST_READ ? (size_t) file_size : FIRST_READ;
  return pdump_check_header (first, available, file_size, fingerprint,
                             image->path, &image->view, detail, detail_size);
}

/* A compressed image, checked: lay it out in memory as the loader does,
   every section decompressed to its image offset (pdump/codec.c, the
   loader's own code, so a corrupt frame is the same error here).  The
   loader never decompresses TYPES and OBJECTS (but for the structural
   pass), so a frame of theirs that does not decompress is not an error
   of the image as a whole: the section is left zero and its checksum
   refuses it when the tables are decoded, as for a damaged OBJECTS of
   a plain image.  */
static enum dumper_status
unpack (struct insp_image *image, char *detail, size_t detail_size)
{
  image->file_size = image->size;
  if (!image->view.compressed)
    return DUMPER_OK;
  const struct pdump_view *v = &image->view;
  uint64_t image_size = v->header.image_size;
  if (image_size > SIZE_MAX - 8)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, image->path,
                             "the image is too large for this process");
  /* Reserved the way the loader reserves it (zero pages from the
     kernel, resident only when written): the header check bounds the
     size by the sections, but not by the file.  */
  unsigned char *logical = common_zalloc ((size_t) image_size, false);
  if (logical == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, image->path,
                             "cannot allocate %" PRIu64 " bytes for the image",
                             image_size);
  image->stored = image->bytes;
  image->stored_owned = image->owned;
  image->bytes = logical;
  image->owned = true;
  image->bytes_zmem = true;
  image->size = image_size;
  struct pdump_memory src = { image->stored, image->file_size };
  memcpy (logical, image->stored, (size_t) v->header.page_size);
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      bool inspection_only = k == PDUMP_SECTION_TYPES || k == PDUMP_SECTION_OBJECTS;
      enum dumper_status st
        = pdump_unpack_section (v, k, logical + v->sections[k].offset,
                                pdump_read_memory, &src, image->path, detail,
                                detail_size);
      if (st != DUMPER_OK && inspection_only && st != DUMPER_E_NOMEM)
        {
          memset (logical + v->sections[k].offset, 0, (size_t) v->sections[k].size);
          detail[0] = '\0';
          continue;
        }
      if (st != DUMPER_OK)
        return st;
    }
  return DUMPER_OK;
}

enum dumper_status
insp_image_attach (struct insp_image *image, const char *path,
                   unsigned char *bytes, uint64_t size,
                   const unsigned char *fingerprint, char *detail,
                   size_t detail_size)
{
  memset (image, 0, sizeof *image);
  image->path = path;
  image->bytes = bytes;
  image->size = size;
  enum dumper_status st = check_first_page (image, bytes, size, fingerprint,
                                            detail, detail_size);
  return st == DUMPER_OK ? unpack (image, detail, detail_size) : st;
}

enum dumper_status
insp_image_read (struct insp_image *image, const char *path,
                 const unsigned char *fingerprint, char *detail,
                 size_t detail_size)
{
  memset (image, 0, sizeof *image);
  image->path = path;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return pdump_check_fail (DUMPER_E_IMAGE_MISSING, detail, detail_size, path,
                      "cannot open the image: %s", strerror (errno));
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      int err = errno;
      close (fd);
      return pdump_check_fail (DUMPER_E_IO, detail, detail_size, path,
                        "cannot read the image: %s", strerror (err));
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      return pdump_check_fail (DUMPER_E_IMAGE_MISSING, detail, detail_size, path,
                        "not a regular file");
    }
  uint64_t file_size = (uint64_t) st.st_size;
  /* An executable holding an embedded image: inspect that.  */
  struct pdump_embedded em;
  enum dumper_status es = pdump_find_embedded (fd, path, &em, detail, detail_size);
  if (es != DUMPER_OK)
    {
      close (fd);
      return es;
    }
  uint64_t origin = 0;
  if (em.found)
    {
      image->embedded = true;
      image->embed_offset = origin = em.offset;
      file_size = em.size;
    }
  else
    {
      /* An ELF file is an executable that may hold an image; without
         one there is nothing to inspect, as the loader says (80).  */
      unsigned char magic[4];
      if (file_size >= sizeof magic && common_pread_fully (fd, magic, sizeof magic, 0) == 0
          && memcmp (magic, "\177ELF", sizeof magic) == 0)
        {
          close (fd);
          return pdump_check_fail (DUMPER_E_IMAGE_MISSING, detail, detail_size,
                                   path, "no embedded image (no "
                                   PDUMP_EMBED_SECTION " section)");
        }
    }

  unsigned char first[FIRST_READ];
  uint64_t available = file_size < FIRST_READ ? file_size : FIRST_READ;
  int err = available ? common_pread_fully (fd, first, (size_t) available, origin) : 0;
  if (err != 0)
    {
      close (fd);
      return pdump_check_fail (DUMPER_E_IO, detail, detail_size, path,
                        "cannot read the image: %s",
                        err == COMMON_EOF ? "unexpected end of file"
                                          : strerror (err));
    }
  enum dumper_status status = check_first_page (image, first, file_size,
                                                fingerprint, detail,
                                                detail_size);
  if (status != DUMPER_OK)
    {
      close (fd);
      return status;
    }

  /* The header check proved file_size == header.file_size, and a
     section table inside it: the whole file is wanted.  */
  if (file_size > SIZE_MAX - 8)
    {
      close (fd);
      return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                        "the image is too large for this process");
    }
  image->bytes = malloc ((size_t) file_size);
  if (image->bytes == NULL)
    {
      close (fd);
      return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                        "cannot allocate %" PRIu64 " bytes for the image",
                        file_size);
    }
  image->owned = true;
  image->size = file_size;
  err = common_pread_fully (fd, image->bytes, (size_t) file_size, origin);
  close (fd);
  if (err == COMMON_EOF)
    return pdump_check_fail (DUMPER_E_IMAGE_TRUNCATED, detail, detail_size, path,
                      "the file became shorter while it was read");
  if (err != 0)
    return pdump_check_fail (DUMPER_E_IO, detail, detail_size, path,
                      "cannot read the image: %s", strerror (err));
  return unpack (image, detail, detail_size);
}

enum dumper_status
insp_image_verify (struct insp_image *image, const struct pdump_exe *exe,
                   const struct dumper_decl *decls, size_t decl_count,
                   char *detail, size_t detail_size)
{
  /* The loader's own sequence (pdump/verify.c), on a private copy of
     HOT: relocation changes what it checks, and the views want the
     bytes as they are in the file.  */
  const struct pdump_view *view = &image->view;
  uint64_t hot_size = view->sections[PDUMP_SECTION_HOT].size;
  unsigned char *hot = malloc (hot_size ? (size_t) hot_size : 1);
  if (hot == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, image->path,
                      "cannot allocate %" PRIu64 " bytes to check HOT",
                      hot_size);
  memcpy (hot, insp_section_bytes (image, PDUMP_SECTION_HOT), (size_t) hot_size);
  struct pdump_verify_request r = {
    .view = view, .bytes = image->bytes, .hot = hot, .exe = exe,
    .decls = decls, .decl_count = decl_count,
    .path = image->path, .detail = detail, .detail_size = detail_size
  };
  enum dumper_status status = pdump_verify (&r);
  free (hot);
  image->image_relocs = r.image_relocs;
  image->exe_relocs = r.exe_relocs;
  return status;
}

void
insp_image_free (struct insp_image *image)
{
  if (image->owned && image->bytes_zmem)
    common_zfree (image->bytes, (size_t) image->size);
  else if (image->owned)
    free (image->bytes);
  if (image->stored_owned)
    free (image->stored);
  memset (image, 0, sizeof *image);
}
