/* SPDX-License-Identifier: MIT */
/* pdump/exe.c: the running executable's layout, as pdump needs it.

   The writer turns pointers into the executable into offsets from its
   load bias, and checks that remembered statics and hooks are where
   they claim to be; the loader adds the bias back and refuses to write
   anywhere but the executable's ordinary writable data.  Both read the
   layout here, from the main program's program headers in memory
   (common_main_program): no file I/O.

   "Ordinary writable data" is a writable PT_LOAD minus what the dynamic
   loader owns: the PT_GNU_RELRO range (made read-only after relocation)
   and the PLT's GOT (DT_PLTGOT), whose entries are code pointers.  A
   crafted image therefore cannot redirect calls through the GOT.  */

#include <config.h>

#include <elf.h>
#include <link.h>
#include <string.h>

#include "common/os.h"
#include "exe.h"

struct collect
{
  struct pdump_exe *exe;
};

void
pdump_exe_add_segment (struct pdump_exe *exe, uint64_t vaddr, uint64_t memsz,
                       uint32_t flags)
{
  if (exe->segment_count == 0)
    {
      exe->lo = UINT64_MAX;
      exe->hi = 0;
    }
  if (exe->segment_count >= PDUMP_EXE_MAX_SEGMENTS)
    return;
  struct pdump_exe_segment *s = &exe->segments[exe->segment_count++];
  s->start = vaddr;
  s->end = vaddr + memsz;
  s->flags = flags;
  if (s->start < exe->lo)
    exe->lo = s->start;
  if (s->end > exe->hi)
    exe->hi = s->end;
}

void
pdump_exe_set_pltgot (struct pdump_exe *exe, uint64_t pltgot, uint64_t pltrelsz,
                      uint64_t rel_size, uint64_t entry_size)
{
  if (pltgot == 0 || rel_size == 0)
    return;
  /* Three reserved entries, then one per PLT relocation.  */
  uint64_t entries = 3 + pltrelsz / rel_size;
  exe->pltgot_start = pltgot;
  exe->pltgot_end = pltgot + entries * entry_size;
}

/* Find DT_PLTGOT and DT_PLTRELSZ in the dynamic section.  */
static void
find_pltgot (struct pdump_exe *exe, const ElfW (Dyn) *dyn)
{
  uintptr_t pltgot = 0;
  uint64_t pltrelsz = 0, pltrel = DT_RELA;
  for (; dyn->d_tag != DT_NULL; dyn++)
    switch (dyn->d_tag)
      {
      case DT_PLTGOT: pltgot = dyn->d_un.d_ptr; break;
      case DT_PLTRELSZ: pltrelsz = dyn->d_un.d_val; break;
      case DT_PLTREL: pltrel = dyn->d_un.d_val; break;
      }
  /* The dynamic loader has already relocated d_ptr to an absolute
     address in most configurations; accept either form.  */
  if (pltgot >= exe->bias && exe->bias != 0)
    pltgot -= exe->bias;
  pdump_exe_set_pltgot (exe, pltgot, pltrelsz,
                        pltrel == DT_RELA ? sizeof (ElfW (Rela)) : sizeof (ElfW (Rel)),
                        sizeof (void *));
}

bool
pdump_exe_layout (struct pdump_exe *exe)
{
  memset (exe, 0, sizeof *exe);
  struct common_program program;
  if (!common_main_program (&program))
    return false;
  exe->bias = program.bias;
  const ElfW (Dyn) *dynamic = NULL;
  for (int i = 0; i < program.phnum; i++)
    {
      const ElfW (Phdr) *ph = &program.phdr[i];
      if (ph->p_type == PT_LOAD)
        pdump_exe_add_segment (exe, ph->p_vaddr, ph->p_memsz, ph->p_flags);
      else if (ph->p_type == PT_GNU_RELRO)
        {
          exe->relro_start = ph->p_vaddr;
          exe->relro_end = ph->p_vaddr + ph->p_memsz;
        }
      else if (ph->p_type == PT_DYNAMIC)
        dynamic = (const ElfW (Dyn) *) (program.bias + ph->p_vaddr);
    }
  if (dynamic)
    find_pltgot (exe, dynamic);
  return exe->segment_count > 0 && exe->hi > exe->lo;
}

bool
pdump_exe_contains (const struct pdump_exe *exe, uintptr_t address)
{
  uintptr_t offset = address - exe->bias;
  for (int i = 0; i < exe->segment_count; i++)
    if (offset >= exe->segments[i].start && offset < exe->segments[i].end)
      return true;
  return false;
}

static bool
overlaps (uint64_t a_start, uint64_t a_end, uint64_t b_start, uint64_t b_end)
{
  return a_start < b_end && b_start < a_end;
}

bool
pdump_exe_writable (const struct pdump_exe *exe, uint64_t offset, uint64_t size)
{
  uint64_t end = offset + size;
  if (size == 0 || end < offset)
    return false;
  if (overlaps (offset, end, exe->relro_start, exe->relro_end)
      || overlaps (offset, end, exe->pltgot_start, exe->pltgot_end))
    return false;
  for (int i = 0; i < exe->segment_count; i++)
    {
      const struct pdump_exe_segment *s = &exe->segments[i];
      if ((s->flags & PF_W) && offset >= s->start && end <= s->end)
        return true;
    }
  return false;
}

bool
pdump_exe_code (const struct pdump_exe *exe, uint64_t offset)
{
  for (int i = 0; i < exe->segment_count; i++)
    {
      const struct pdump_exe_segment *s = &exe->segments[i];
      if ((s->flags & PF_X) && offset >= s->start && offset < s->end)
        return true;
    }
  return false;
}
