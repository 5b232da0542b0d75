/* SPDX-License-Identifier: MIT */
/* pdump/embed.c: finding an image embedded in an executable.

   dumper-embed stores an image as the ELF section PDUMP_EMBED_SECTION
   (format.h).  At start-up the loader looks for it in /proc/self/exe
   before any separate image, so this runs on every start of every
   host: it reads the ELF header, the section headers and the section
   name table with pread, a few kilobytes, and needs no libelf.  The
   file is untrusted like an image: every offset and count is checked
   against the file's size before it is used.  Only ELF files of this
   process's class and byte order are searched (an image can only be
   loaded by such a process anyway).  */

#include <config.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic.h"

#include "check.h"
#include "backend.h"
#include "embed.h"

/* Not const: its last byte is the file's, which dumper-embed sets
   (embed.h), and must be read, never folded.  */
unsigned char pdump_embed_mark[PDUMP_EMBED_MARK_SIZE] = PDUMP_EMBED_MARK_MAGIC;

bool
pdump_embed_marked (void)
{
  return pdump_embed_mark[PDUMP_EMBED_MARK_SIZE - 1] != 0;
}

bool
pdump_read_exact (int fd, void *buf, size_t size, uint64_t offset)
{
  int err = common_pread_fully (fd, buf, size, offset);
  errno = err == COMMON_EOF ? 0 : err;
  return err == 0;
}

/* The section headers (*SHDRS, *COUNT) and section name table (*NAMES,
   *NAMES_SIZE bytes and a NUL) of the ELF file FD of FILE_SIZE bytes,
   whose header is EH; both malloc'd, the caller frees them (also on
   failure).  */
static enum dumper_status
read_sections (int fd, const char *path, uint64_t file_size,
               const ElfW (Ehdr) *eh, ElfW (Shdr) **shdrs, uint64_t *count,
               char **names, uint64_t *names_size, char *detail,
               size_t detail_size)
{
  /* Section count and name table index may live in section 0.  */
  uint64_t shoff = eh->e_shoff;
  ElfW (Shdr) first;
  if (shoff > file_size || file_size - shoff < sizeof first
      || !pdump_read_exact (fd, &first, sizeof first, shoff))
    return pdump_check_fail (DUMPER_E_IMAGE_TRUNCATED, detail, detail_size, path,
                             "the section header table lies outside the %"
                             PRIu64 "-byte file (truncated?)", file_size);
  *count = eh->e_shnum ? eh->e_shnum : first.sh_size;
  uint64_t names_index = eh->e_shstrndx == SHN_XINDEX ? first.sh_link
                                                      : eh->e_shstrndx;
  if (*count > (file_size - shoff) / sizeof first)
    return pdump_check_fail (DUMPER_E_IMAGE_TRUNCATED, detail, detail_size, path,
                             "the section header table runs past the end of "
                             "the %" PRIu64 "-byte file (truncated?)", file_size);
  if (*count > 65536 || names_index >= *count)
    return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, path,
                             "the section header table is damaged");
  *shdrs = malloc ((size_t) *count * sizeof **shdrs);
  if (*shdrs == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                             "out of memory for the section headers");
  if (!pdump_read_exact (fd, *shdrs, (size_t) *count * sizeof **shdrs, shoff))
    return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, path,
                             "cannot read the section headers");
  const ElfW (Shdr) *nt = &(*shdrs)[names_index];
  if (nt->sh_type != SHT_STRTAB || nt->sh_size > (1u << 24)
      || nt->sh_offset > file_size || nt->sh_size > file_size - nt->sh_offset)
    return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, path,
                             "the section name table is damaged");
  *names = malloc ((size_t) nt->sh_size + 1);
  if (*names == NULL
      || !pdump_read_exact (fd, *names, (size_t) nt->sh_size, nt->sh_offset))
    return pdump_check_fail (*names ? DUMPER_E_EXE : DUMPER_E_NOMEM, detail,
                             detail_size, path,
                             "cannot read the section name table");
  (*names)[nt->sh_size] = '\0';
  *names_size = nt->sh_size;
  return DUMPER_OK;
}

/* The section SH named PDUMP_EMBED_SECTION, checked to hold contents
   inside the file, into *OUT.  */
static enum dumper_status
take_section (const ElfW (Shdr) *sh, uint64_t file_size, const char *path,
              struct pdump_embedded *out, char *detail, size_t detail_size)
{
  if (sh->sh_type != SHT_PROGBITS)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size,
                             path, "section %s has no contents (type %u)",
                             PDUMP_EMBED_SECTION, (unsigned) sh->sh_type);
  if (sh->sh_offset > file_size || sh->sh_size > file_size - sh->sh_offset)
    return pdump_check_fail (DUMPER_E_IMAGE_TRUNCATED, detail,
                             detail_size, path,
                             "embedded image section %s (offset %" PRIu64
                             ", %" PRIu64 " bytes) extends past the end "
                             "of the %" PRIu64 "-byte file",
                             PDUMP_EMBED_SECTION,
                             (uint64_t) sh->sh_offset,
                             (uint64_t) sh->sh_size, file_size);
  out->found = true;
  out->offset = sh->sh_offset;
  out->size = sh->sh_size;
  return DUMPER_OK;
}

enum dumper_status
pdump_find_embedded (int fd, const char *path, struct pdump_embedded *out,
                     char *detail, size_t detail_size)
{
  memset (out, 0, sizeof *out);
  struct stat st;
  if (fstat (fd, &st) != 0)
    return pdump_check_fail (DUMPER_E_IO, detail, detail_size, path,
                             "cannot read: %s", strerror (errno));
  uint64_t file_size = (uint64_t) st.st_size;
  ElfW (Ehdr) eh;
  if (file_size < sizeof eh || !pdump_read_exact (fd, &eh, sizeof eh, 0)
      || memcmp (eh.e_ident, ELFMAG, SELFMAG) != 0
      || eh.e_ident[EI_CLASS] != (sizeof (void *) == 8 ? ELFCLASS64 : ELFCLASS32)
      || eh.e_shentsize != sizeof (ElfW (Shdr)))
    return DUMPER_OK;           /* not an ELF file we could hold an image in */
  if (eh.e_shoff == 0)
    return DUMPER_OK;
  ElfW (Shdr) *shdrs = NULL;
  char *names = NULL;
  uint64_t count = 0, names_size = 0;
  enum dumper_status status
    = read_sections (fd, path, file_size, &eh, &shdrs, &count, &names,
                     &names_size, detail, detail_size);
  for (uint64_t i = 1; status == DUMPER_OK && i < count; i++)
    if (shdrs[i].sh_name < names_size
        && strcmp (names + shdrs[i].sh_name, PDUMP_EMBED_SECTION) == 0)
      {
        status = take_section (&shdrs[i], file_size, path, out, detail,
                               detail_size);
        break;
      }
  free (names);
  free (shdrs);
  return status;
}

enum dumper_status
pdump_probe_embedded (const char *exe, struct pdump_embedded *found,
                      char *detail, size_t detail_size)
{
  memset (found, 0, sizeof *found);
  int fd = open (exe, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return DUMPER_OK;   /* no readable executable: nothing embedded to use */
  enum dumper_status st = pdump_find_embedded (fd, exe, found, detail,
                                               detail_size);
  close (fd);
  if (st != DUMPER_OK)
    memset (found, 0, sizeof *found);
  return st;
}
