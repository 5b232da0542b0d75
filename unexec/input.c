/* SPDX-License-Identifier: MIT */
/* unexec/input.c: the executable being dumped, as libelf reads it.

   Owns opening the running executable's file and checking that the
   unexec writer can handle it: an ELF executable of this process's word
   size and byte order, not position-independent, with program and
   section headers whose file ranges lie inside the file.  It reads
   headers only; section contents are fetched later by emit.c through
   the same Elf handle, after unexec_input_compress_debug has replaced
   the debug sections' in that handle (never in the file) when asked.
   It never looks at process memory.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

enum dumper_status
unexec_fail (const struct unexec_detail *detail, enum dumper_status status,
             const char *fmt, ...)
{
  if (detail->text && detail->size)
    {
      va_list ap;
      va_start (ap, fmt);
      vsnprintf (detail->text, detail->size, fmt, ap);
      va_end (ap);
    }
  return status;
}

#if UINTPTR_MAX == UINT64_MAX
# define NATIVE_CLASS ELFCLASS64
#else
# define NATIVE_CLASS ELFCLASS32
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define NATIVE_DATA ELFDATA2LSB
#else
# define NATIVE_DATA ELFDATA2MSB
#endif

/* The identification and type checks: is this something we can dump?  */
static enum dumper_status
check_kind (struct unexec_input *in, const struct unexec_detail *detail)
{
  if (elf_kind (in->elf) != ELF_K_ELF)
    return unexec_fail (detail, DUMPER_E_EXE, "%s: not an ELF file", in->path);
  if (gelf_getehdr (in->elf, &in->ehdr) == NULL)
    return unexec_fail (detail, DUMPER_E_EXE, "%s: unreadable ELF header: %s",
                        in->path, elf_errmsg (-1));
  if (in->ehdr.e_ident[EI_CLASS] != NATIVE_CLASS
      || in->ehdr.e_ident[EI_DATA] != NATIVE_DATA)
    return unexec_fail (detail, DUMPER_E_EXE,
                        "%s: ELF class or byte order differs from the "
                        "running program's", in->path);
  if (in->ehdr.e_type == ET_DYN)
    return unexec_fail (detail, DUMPER_E_EXE,
                        "%s is a position-independent executable (PIE); "
                        "unexec needs fixed addresses: link the host with "
                        "-no-pie (an unexec build's configure puts it in "
                        "HOST_LDFLAGS and in `pkg-config --libs dumper')",
                        in->path);
  if (in->ehdr.e_type != ET_EXEC)
    return unexec_fail (detail, DUMPER_E_EXE,
                        "%s: not an executable (ELF type %u)", in->path,
                        (unsigned) in->ehdr.e_type);
  return DUMPER_OK;
}

/* Read every program and section header; check their file ranges.  */
static enum dumper_status
read_headers (struct unexec_input *in, const struct unexec_detail *detail)
{
  if (elf_getphdrnum (in->elf, &in->phdr_count) != 0
      || elf_getshdrnum (in->elf, &in->section_count) != 0
      || elf_getshdrstrndx (in->elf, &in->names_index) != 0)
    return unexec_fail (detail, DUMPER_E_EXE, "%s: unreadable ELF headers: %s",
                        in->path, elf_errmsg (-1));
  if (in->phdr_count == 0 || in->section_count == 0)
    return unexec_fail (detail, DUMPER_E_EXE,
                        "%s: no program or section headers", in->path);
  /* The output keeps every section number, so it needs the same kind of
     ELF header numbering; extended numbering is not supported.  */
  if (in->section_count >= SHN_LORESERVE || in->names_index >= SHN_LORESERVE)
    return unexec_fail (detail, DUMPER_E_EXE, "%s: too many sections (%zu)",
                        in->path, in->section_count);
  in->phdrs = calloc (in->phdr_count, sizeof *in->phdrs);
  in->shdrs = calloc (in->section_count, sizeof *in->shdrs);
  if (in->phdrs == NULL || in->shdrs == NULL)
    return unexec_fail (detail, DUMPER_E_NOMEM,
                        "%s: no memory for the ELF headers", in->path);
  for (size_t i = 0; i < in->phdr_count; i++)
    {
      GElf_Phdr *p = &in->phdrs[i];
      if (gelf_getphdr (in->elf, (int) i, p) == NULL
          || p->p_offset > in->file_size
          || p->p_filesz > in->file_size - p->p_offset
          || p->p_filesz > p->p_memsz)
        return unexec_fail (detail, DUMPER_E_EXE,
                            "%s: program header %zu is corrupt", in->path, i);
    }
  for (size_t i = 0; i < in->section_count; i++)
    {
      GElf_Shdr *s = &in->shdrs[i];
      Elf_Scn *scn = elf_getscn (in->elf, i);
      if (scn == NULL || gelf_getshdr (scn, s) == NULL
          || (s->sh_type != SHT_NOBITS
              && (s->sh_offset > in->file_size
                  || s->sh_size > in->file_size - s->sh_offset)))
        return unexec_fail (detail, DUMPER_E_EXE,
                            "%s: section header %zu is corrupt", in->path, i);
    }
  if (in->names_index == 0 || in->names_index >= in->section_count
      || in->shdrs[in->names_index].sh_type != SHT_STRTAB)
    return unexec_fail (detail, DUMPER_E_EXE, "%s: no section name table",
                        in->path);
  return DUMPER_OK;
}

enum dumper_status
unexec_input_open (struct unexec_input *in, const char *path,
                   const struct unexec_detail *detail)
{
  memset (in, 0, sizeof *in);
  in->path = path;
  in->fd = -1;
  if (elf_version (EV_CURRENT) == EV_NONE)
    return unexec_fail (detail, DUMPER_E_EXE, "libelf is out of date: %s",
                        elf_errmsg (-1));
  in->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (in->fd < 0)
    return unexec_fail (detail, DUMPER_E_IO, "cannot read %s: %s", path,
                        strerror (errno));
  struct stat st;
  enum dumper_status status = DUMPER_OK;
  if (fstat (in->fd, &st) != 0 || !S_ISREG (st.st_mode))
    status = unexec_fail (detail, DUMPER_E_EXE, "%s: not a regular file",
                          path);
  if (status == DUMPER_OK)
    {
      in->file_size = (uint64_t) st.st_size;
      in->elf = elf_begin (in->fd, ELF_C_READ_MMAP, NULL);
      if (in->elf == NULL)
        status = unexec_fail (detail, DUMPER_E_EXE, "%s: not an ELF file (%s)",
                              path, elf_errmsg (-1));
    }
  if (status == DUMPER_OK)
    status = check_kind (in, detail);
  if (status == DUMPER_OK)
    status = read_headers (in, detail);
  if (status != DUMPER_OK)
    unexec_input_close (in);
  return status;
}

void
unexec_input_close (struct unexec_input *in)
{
  if (in->elf)
    elf_end (in->elf);
  if (in->fd >= 0)
    close (in->fd);
  free (in->phdrs);
  free (in->shdrs);
  in->elf = NULL;
  in->fd = -1;
  in->phdrs = NULL;
  in->shdrs = NULL;
}

const char *
unexec_section_name (const struct unexec_input *in, size_t index)
{
  if (index >= in->section_count)
    return "";
  const char *name = elf_strptr (in->elf, in->names_index,
                                 in->shdrs[index].sh_name);
  return name ? name : "";
}

/* Compress every uncompressed .debug_* section of IN in memory
   (SHF_COMPRESSED, zlib, as `ld --compress-debug-sections=zlib' does);
   IN's headers then give the compressed sizes and elf_rawdata the
   compressed bytes.  gdb, readelf and objdump read such sections.  A
   section libelf cannot compress stays as it is: this only saves
   space.  Returns how many were compressed.  */
size_t
unexec_input_compress_debug (struct unexec_input *in)
{
  size_t compressed = 0;
  for (size_t i = 1; i < in->section_count; i++)
    {
      GElf_Shdr *s = &in->shdrs[i];
      if (s->sh_type != SHT_PROGBITS || (s->sh_flags & (SHF_ALLOC | SHF_COMPRESSED))
          || s->sh_size == 0
          || strncmp (unexec_section_name (in, i), ".debug_", 7) != 0)
        continue;
      Elf_Scn *scn = elf_getscn (in->elf, i);
      if (elf_compress (scn, ELFCOMPRESS_ZLIB, 0) == 1
          && gelf_getshdr (scn, s) != NULL)
        compressed++;
    }
  return compressed;
}
