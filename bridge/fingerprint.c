/* SPDX-License-Identifier: MIT */
/* bridge/fingerprint.c: the running executable's build fingerprint.

   The fingerprint is an ELF note in the main program (see
   DUMPER_DEFINE_FINGERPRINT in dumper.h), patched after linking by
   tools/dumper-fingerprint with a hash of the linked file.  It is read
   here from memory through the program headers (common_main_program), which
   costs microseconds and no file I/O.  An executable whose note is
   absent or still zero falls back to its GNU build-id (itself a hash of
   the linked file), hashed to the same size.

   Only the main program is searched: a fingerprint in a shared library
   would identify the library, while an image depends on the
   executable's static data layout.  */

#include <config.h>

#include <elf.h>
#include <string.h>

#include "bridge.h"
#include "common/elfnote.h"
#include "common/os.h"

/* Collect the main program's notes.  */
static void
scan_main_program (struct common_notes *notes)
{
  struct common_program program;
  if (!common_main_program (&program))
    return;
  for (int i = 0; i < program.phnum; i++)
    {
      const ElfW (Phdr) *ph = &program.phdr[i];
      if (ph->p_type == PT_NOTE)
        common_notes_scan ((const void *) (program.bias + ph->p_vaddr),
                           ph->p_memsz, ph->p_align, notes);
    }
}

enum dumper_status
dumper_fingerprint (unsigned char out[DUMPER_FINGERPRINT_SIZE])
{
  struct common_notes notes;
  memset (&notes, 0, sizeof notes);
  scan_main_program (&notes);
  if (!common_notes_fingerprint (&notes, out, NULL))
    return bridge_fail (DUMPER_E_NO_FINGERPRINT,
                        "the executable has neither a dumper fingerprint note "
                        "(DUMPER_DEFINE_FINGERPRINT, then dumper-fingerprint "
                        "after linking) nor a GNU build-id");
  return DUMPER_OK;
}
