/* SPDX-License-Identifier: MIT */
/* tools/inspect/exefile.c: what the loader would learn from the running
   executable, read from the --exe file instead (libelf).

   At start-up the loader reads its executable's layout from memory
   (pdump/exe.c: the program headers through dl_iterate_phdr) and the
   bridge reads its fingerprint there too (bridge/fingerprint.c: the
   dumper note in a PT_NOTE segment, else a hash of the GNU build-id).
   The program headers and notes in the file are the ones the dynamic
   loader maps, so reading them here gives the same struct pdump_exe
   (with bias 0: the file's addresses are unbiased) and the same
   fingerprint, and --check reaches the loader's verdict without running
   the program.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/elfnote.h"
#include "inspect.h"

/* DT_PLTGOT and the PLT relocations' size, as pdump/exe.c reads them.  */
static void
read_pltgot (Elf *elf, const GElf_Phdr *ph, struct pdump_exe *layout)
{
  Elf_Data *data = elf_getdata_rawchunk (elf, (int64_t) ph->p_offset,
                                         ph->p_filesz, ELF_T_DYN);
  if (data == NULL)
    return;
  uint64_t pltgot = 0, pltrelsz = 0, pltrel = DT_RELA;
  GElf_Dyn dyn;
  for (int i = 0; gelf_getdyn (data, i, &dyn) != NULL && dyn.d_tag != DT_NULL; i++)
    switch (dyn.d_tag)
      {
      case DT_PLTGOT: pltgot = dyn.d_un.d_ptr; break;
      case DT_PLTRELSZ: pltrelsz = dyn.d_un.d_val; break;
      case DT_PLTREL: pltrel = dyn.d_un.d_val; break;
      }
  if (pltgot == 0)
    return;
  size_t rel_size = gelf_fsize (elf, pltrel == DT_RELA ? ELF_T_RELA : ELF_T_REL,
                                1, EV_CURRENT);
  size_t entry_size = gelf_fsize (elf, ELF_T_ADDR, 1, EV_CURRENT);
  pdump_exe_set_pltgot (layout, pltgot, pltrelsz, rel_size, entry_size);
}

/* The notes of one PT_NOTE segment (common/elfnote.c reads them).  */
static void
read_notes (Elf *elf, const GElf_Phdr *ph, struct common_notes *notes)
{
  Elf_Data *data = elf_getdata_rawchunk (elf, (int64_t) ph->p_offset,
                                         ph->p_filesz, ELF_T_BYTE);
  if (data != NULL)
    common_notes_scan (data->d_buf, data->d_size, ph->p_align, notes);
}

/* ------------------------------------------------------------------ */
/* The declaration table (dumper.h, "Registry"): the entries the macros
   put in section dumper_decls, which the loader reads in memory through
   __start_dumper_decls (bridge/decls.c) and checks registry records and
   code pointers against (pdump_check_registry, pdump_relocate_code).
   The pointers in an entry (addr, fn, name) are link-time addresses in
   the file, i.e. offsets from the load bias, which is what the loader
   compares with bias 0 here.  In a PIE they are relative relocations:
   ld.bfd also writes the value into the section (so do REL and RELR),
   lld by default writes 0 and keeps the value in the RELA addend, so
   the addends win.  Only a table of this build's layout is read (the
   image check refuses another word size or machine first).  */

/* The relative relocation type of MACHINE, or 0 when unknown.  */
static uint32_t
relative_type (unsigned machine)
{
  switch (machine)
    {
#ifdef R_X86_64_RELATIVE
    case EM_X86_64: return R_X86_64_RELATIVE;
#endif
#ifdef R_AARCH64_RELATIVE
    case EM_AARCH64: return R_AARCH64_RELATIVE;
#endif
#ifdef R_RISCV_RELATIVE
    case EM_RISCV: return R_RISCV_RELATIVE;
#endif
#ifdef R_PPC64_RELATIVE
    case EM_PPC64: return R_PPC64_RELATIVE;
#endif
    default: return 0;
    }
}

/* Put the addend of every relative RELA relocation that falls on a
   pointer of TABLE (SIZE bytes at link-time address ADDR) into it.  */
static void
apply_relative (Elf *elf, unsigned machine, uint64_t addr, unsigned char *table,
                uint64_t size)
{
  uint32_t relative = relative_type (machine);
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn && relative;
       scn = elf_nextscn (elf, scn))
    {
      GElf_Shdr shdr;
      Elf_Data *data;
      if (gelf_getshdr (scn, &shdr) == NULL || shdr.sh_type != SHT_RELA
          || (data = elf_getdata (scn, NULL)) == NULL)
        continue;
      GElf_Rela rela;
      for (int i = 0; gelf_getrela (data, i, &rela) != NULL; i++)
        if (GELF_R_TYPE (rela.r_info) == relative && rela.r_offset >= addr
            && rela.r_offset - addr <= size - sizeof (uintptr_t)
            && (rela.r_offset - addr) % sizeof (uintptr_t) == 0)
          {
            uintptr_t value = (uintptr_t) rela.r_addend;
            memcpy (table + (rela.r_offset - addr), &value, sizeof value);
          }
    }
}

/* A copy of the NUL-terminated string at link-time address ADDR, if an
   allocated section of the file holds it; else NULL.  */
static char *
string_at (Elf *elf, uint64_t addr)
{
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn; scn = elf_nextscn (elf, scn))
    {
      GElf_Shdr shdr;
      Elf_Data *data;
      if (gelf_getshdr (scn, &shdr) == NULL || shdr.sh_type != SHT_PROGBITS
          || !(shdr.sh_flags & SHF_ALLOC) || addr < shdr.sh_addr
          || addr - shdr.sh_addr >= shdr.sh_size
          || (data = elf_getdata (scn, NULL)) == NULL
          || addr - shdr.sh_addr >= data->d_size)
        continue;
      const char *start = (const char *) data->d_buf + (addr - shdr.sh_addr);
      size_t room = data->d_size - (size_t) (addr - shdr.sh_addr);
      return memchr (start, '\0', room) ? strdup (start) : NULL;
    }
  return NULL;
}

/* Section NAME of ELF, or NULL.  */
static Elf_Scn *
section_named (Elf *elf, const char *name, GElf_Shdr *shdr)
{
  size_t names;
  if (elf_getshdrstrndx (elf, &names) != 0)
    return NULL;
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn; scn = elf_nextscn (elf, scn))
    {
      const char *n;
      if (gelf_getshdr (scn, shdr) != NULL
          && (n = elf_strptr (elf, names, shdr->sh_name)) != NULL
          && strcmp (n, name) == 0)
        return scn;
    }
  return NULL;
}

/* A copy of the SIZE bytes at link-time address ADDR, with the
   relative relocations that fall on its pointers applied, if one
   allocated section of the file holds them all; else NULL.  */
static unsigned char *
bytes_at (Elf *elf, unsigned machine, uint64_t addr, uint64_t size)
{
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn; scn = elf_nextscn (elf, scn))
    {
      GElf_Shdr shdr;
      Elf_Data *data;
      if (gelf_getshdr (scn, &shdr) == NULL || shdr.sh_type != SHT_PROGBITS
          || !(shdr.sh_flags & SHF_ALLOC) || addr < shdr.sh_addr
          || addr - shdr.sh_addr > shdr.sh_size
          || size > shdr.sh_size - (addr - shdr.sh_addr)
          || (data = elf_getdata (scn, NULL)) == NULL
          || data->d_size != shdr.sh_size)
        continue;
      unsigned char *copy = malloc (size ? (size_t) size : 1);
      if (copy == NULL)
        return NULL;
      memcpy (copy, (const unsigned char *) data->d_buf + (addr - shdr.sh_addr),
              (size_t) size);
      apply_relative (elf, machine, addr, copy, size);
      return copy;
    }
  return NULL;
}

/* A code table's entry gets a private copy of its array (link-time
   function addresses, like a CODE entry's fn), so that the loader's
   pdump_relocate_code can read its members here as it reads them in
   the running executable.  An entry whose layout is not one the
   library accepts (bridge/decls.c) or whose array the file does not
   hold is left with no elements (size 0): every code word naming it is
   then out of range.  */
static void
copy_code_table (Elf *elf, unsigned machine, struct dumper_decl *d)
{
  size_t fn_size = sizeof (void (*) (void));
  uint64_t addr = (uintptr_t) d->addr;
  d->addr = NULL;
  if (d->stride < fn_size || d->size % d->stride != 0 || d->type < 0
      || (size_t) d->type > d->stride - fn_size
      || (d->addr = bytes_at (elf, machine, addr, d->size)) == NULL)
    d->size = 0;
}

static enum dumper_status
read_decls (struct insp_exe *exe, Elf *elf, char *detail, size_t detail_size)
{
  GElf_Ehdr ehdr;
  if (gelf_getehdr (elf, &ehdr) == NULL
      || ehdr.e_ident[EI_CLASS] != (sizeof (void *) == 8 ? ELFCLASS64 : ELFCLASS32)
      || ehdr.e_machine != pdump_native_machine ())
    return DUMPER_OK;   /* not this build's layout: exe->decls stays NULL */
  GElf_Shdr shdr;
  Elf_Scn *scn = section_named (elf, DUMPER_DECL_SECTION, &shdr);
  Elf_Data *data = scn ? elf_getdata (scn, NULL) : NULL;
  uint64_t size = data ? data->d_size : 0;
  if ((scn && (data == NULL || size != shdr.sh_size))
      || size % sizeof (struct dumper_decl) != 0)
    return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, exe->path,
                             "section " DUMPER_DECL_SECTION " is not a "
                             "declaration table of this build");
  /* Never NULL, even without the section: the loader reads a NULL
     table as "no executable to check against".  */
  exe->decl_count = (size_t) (size / sizeof (struct dumper_decl));
  exe->decls = calloc (exe->decl_count ? exe->decl_count : 1,
                       sizeof *exe->decls);
  if (exe->decls == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, exe->path,
                             "out of memory reading its declarations");
  if (size == 0)
    return DUMPER_OK;
  memcpy (exe->decls, data->d_buf, (size_t) size);
  apply_relative (elf, ehdr.e_machine, shdr.sh_addr,
                  (unsigned char *) exe->decls, size);
  for (size_t i = 0; i < exe->decl_count; i++)
    {
      exe->decls[i].name = string_at (elf, (uintptr_t) exe->decls[i].name);
      if (exe->decls[i].kind == DUMPER_DECL_CODE_TABLE)
        copy_code_table (elf, ehdr.e_machine, &exe->decls[i]);
    }
  return DUMPER_OK;
}

static enum dumper_status
read_elf (struct insp_exe *exe, Elf *elf, char *detail, size_t detail_size)
{
  size_t phnum;
  if (elf_kind (elf) != ELF_K_ELF || elf_getphdrnum (elf, &phnum) != 0)
    return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, exe->path,
                      "not an ELF executable");
  struct pdump_exe *layout = &exe->layout;
  layout->lo = UINT64_MAX;
  struct common_notes notes;
  memset (&notes, 0, sizeof notes);
  for (size_t i = 0; i < phnum; i++)
    {
      GElf_Phdr ph;
      if (gelf_getphdr (elf, (int) i, &ph) == NULL)
        return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, exe->path,
                          "cannot read program header %zu: %s", i,
                          elf_errmsg (-1));
      switch (ph.p_type)
        {
        case PT_LOAD:
          pdump_exe_add_segment (layout, ph.p_vaddr, ph.p_memsz, ph.p_flags);
          break;
        case PT_GNU_RELRO:
          layout->relro_start = ph.p_vaddr;
          layout->relro_end = ph.p_vaddr + ph.p_memsz;
          break;
        case PT_DYNAMIC:
          read_pltgot (elf, &ph, layout);
          break;
        case PT_NOTE:
          read_notes (elf, &ph, &notes);
          break;
        }
    }
  if (layout->segment_count == 0 || layout->hi <= layout->lo)
    return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, exe->path,
                      "the executable has no loadable segments");
  exe->has_fingerprint = common_notes_fingerprint (&notes, exe->fingerprint,
                                                   &exe->fingerprint_source);
  return read_decls (exe, elf, detail, detail_size);
}

enum dumper_status
insp_exe_open (struct insp_exe *exe, const char *path, char *detail,
               size_t detail_size)
{
  memset (exe, 0, sizeof *exe);
  exe->path = path;
  if (elf_version (EV_CURRENT) == EV_NONE)
    return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, path,
                      "libelf is out of date");
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, path,
                      "cannot open the executable: %s", strerror (errno));
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  enum dumper_status status
    = elf ? read_elf (exe, elf, detail, detail_size)
          : pdump_check_fail (DUMPER_E_EXE, detail, detail_size, path,
                       "cannot read the executable: %s", elf_errmsg (-1));
  if (elf)
    elf_end (elf);
  close (fd);
  return status;
}

void
insp_exe_close (struct insp_exe *exe)
{
  insp_symbols_close (exe->symbols);
  for (size_t i = 0; exe->decls && i < exe->decl_count; i++)
    {
      free ((char *) exe->decls[i].name);
      if (exe->decls[i].kind == DUMPER_DECL_CODE_TABLE)
        free (exe->decls[i].addr);   /* copy_code_table's copy */
    }
  free (exe->decls);
  memset (exe, 0, sizeof *exe);
}
