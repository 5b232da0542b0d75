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

#include <xxhash.h>

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

/* The dumper note's fingerprint and the GNU build-id in one PT_NOTE.  */
static void
read_notes (Elf *elf, const GElf_Phdr *ph, struct insp_exe *exe,
            unsigned char *build_id, bool *has_build_id)
{
  Elf_Data *data = elf_getdata_rawchunk (elf, (int64_t) ph->p_offset,
                                         ph->p_filesz,
                                         ph->p_align == 8 ? ELF_T_NHDR8
                                                          : ELF_T_NHDR);
  if (data == NULL)
    return;
  static const unsigned char zero[DUMPER_FINGERPRINT_SIZE];
  GElf_Nhdr note;
  size_t name_at, desc_at;
  for (size_t at = 0;
       (at = gelf_getnote (data, at, &note, &name_at, &desc_at)) > 0;)
    {
      const char *name = (const char *) data->d_buf + name_at;
      const unsigned char *desc = (const unsigned char *) data->d_buf + desc_at;
      if (note.n_namesz == sizeof DUMPER_FINGERPRINT_NOTE_NAME
          && memcmp (name, DUMPER_FINGERPRINT_NOTE_NAME, note.n_namesz) == 0
          && note.n_type == DUMPER_FINGERPRINT_NOTE_TYPE
          && note.n_descsz == DUMPER_FINGERPRINT_SIZE)
        {
          if (memcmp (desc, zero, sizeof zero) != 0)
            {
              memcpy (exe->fingerprint, desc, DUMPER_FINGERPRINT_SIZE);
              exe->has_fingerprint = true;
              exe->fingerprint_source = "dumper note";
            }
        }
      else if (note.n_namesz == 4 && memcmp (name, "GNU", 4) == 0
               && note.n_type == NT_GNU_BUILD_ID && note.n_descsz > 0)
        {
          XXH128_canonical_t canonical;
          XXH128_canonicalFromHash (&canonical,
                                    XXH3_128bits (desc, note.n_descsz));
          memcpy (build_id, canonical.digest, DUMPER_FINGERPRINT_SIZE);
          *has_build_id = true;
        }
    }
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
  unsigned char build_id[DUMPER_FINGERPRINT_SIZE] = { 0 };
  bool has_build_id = false;
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
          read_notes (elf, &ph, exe, build_id, &has_build_id);
          break;
        }
    }
  if (layout->segment_count == 0 || layout->hi <= layout->lo)
    return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, exe->path,
                      "the executable has no loadable segments");
  if (!exe->has_fingerprint && has_build_id)
    {
      memcpy (exe->fingerprint, build_id, sizeof build_id);
      exe->has_fingerprint = true;
      exe->fingerprint_source = "GNU build-id";
    }
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
