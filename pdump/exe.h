/* SPDX-License-Identifier: MIT */
/* pdump/exe.h: the running executable's layout (exe.c).  All ranges are
   unbiased virtual addresses, i.e. offsets from the load bias, which is
   what the image stores.  */

#ifndef DUMPER_PDUMP_EXE_H
#define DUMPER_PDUMP_EXE_H

#include <stdbool.h>
#include <stdint.h>

#define PDUMP_EXE_MAX_SEGMENTS 16

struct pdump_exe_segment
{
  uint64_t start, end;      /* [start, end) */
  uint32_t flags;           /* PF_R | PF_W | PF_X */
};

struct pdump_exe
{
  uintptr_t bias;           /* load bias: 0 for non-PIE */
  uint64_t lo, hi;          /* span of all PT_LOAD segments */
  struct pdump_exe_segment segments[PDUMP_EXE_MAX_SEGMENTS];
  int segment_count;
  uint64_t relro_start, relro_end;
  uint64_t pltgot_start, pltgot_end;
};

/* Read the main program's layout.  False if it has no PT_LOAD.  */
bool pdump_exe_layout (struct pdump_exe *exe);

/* Building a layout from another source (dumper-inspect reads it from
   the executable file): add a PT_LOAD segment, and record the PLT's GOT
   from DT_PLTGOT, DT_PLTRELSZ, the size of one PLT relocation and of one
   GOT entry.  exe_layout uses the same two.  */
void pdump_exe_add_segment (struct pdump_exe *exe, uint64_t vaddr,
                            uint64_t memsz, uint32_t flags);
void pdump_exe_set_pltgot (struct pdump_exe *exe, uint64_t pltgot,
                           uint64_t pltrelsz, uint64_t rel_size,
                           uint64_t entry_size);

/* True if the absolute ADDRESS lies in one of the executable's
   segments.  */
bool pdump_exe_contains (const struct pdump_exe *exe, uintptr_t address);

/* True if [OFFSET, OFFSET + SIZE) lies in one writable segment and
   touches neither the RELRO range nor the PLT's GOT.  */
bool pdump_exe_writable (const struct pdump_exe *exe, uint64_t offset,
                         uint64_t size);

/* True if OFFSET lies in an executable segment.  */
bool pdump_exe_code (const struct pdump_exe *exe, uint64_t offset);

#endif /* DUMPER_PDUMP_EXE_H */
