/* SPDX-License-Identifier: MIT */
/* bridge/fingerprint.c: the running executable's build fingerprint.

   The fingerprint is an ELF note in the main program (see
   DUMPER_DEFINE_FINGERPRINT in dumper.h), patched after linking by
   tools/dumper-fingerprint with a hash of the linked file.  It is read
   here from memory through the program headers (dl_iterate_phdr), which
   costs microseconds and no file I/O.  An executable whose note is
   absent or still zero falls back to its GNU build-id (itself a hash of
   the linked file), hashed to the same size.

   Only the main program is searched: a fingerprint in a shared library
   would identify the library, while an image depends on the
   executable's static data layout.  */

#include <config.h>

#include <elf.h>
#include <link.h>
#include <string.h>

#include "bridge.h"
#include "common/elfnote.h"

static int
visit_main_program (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  struct common_notes *notes = data;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type == PT_NOTE)
        common_notes_scan ((const void *) (info->dlpi_addr + ph->p_vaddr),
                           ph->p_memsz, ph->p_align, notes);
    }
  return 1;   /* the first object is the main program: stop */
}

enum dumper_status
dumper_fingerprint (unsigned char out[DUMPER_FINGERPRINT_SIZE])
{
  struct common_notes notes;
  memset (&notes, 0, sizeof notes);
  dl_iterate_phdr (visit_main_program, &notes);
  if (!common_notes_fingerprint (&notes, out, NULL))
    return bridge_fail (DUMPER_E_NO_FINGERPRINT,
                        "the executable has neither a dumper fingerprint note "
                        "(DUMPER_DEFINE_FINGERPRINT, then dumper-fingerprint "
                        "after linking) nor a GNU build-id");
  return DUMPER_OK;
}
