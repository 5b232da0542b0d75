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
  return DUMPER_OK;
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
  memset (exe, 0, sizeof *exe);
}
