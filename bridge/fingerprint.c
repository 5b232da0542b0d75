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

#include <xxhash.h>

#include "bridge.h"

struct search
{
  bool found_dumper;
  bool found_build_id;
  unsigned char dumper[DUMPER_FINGERPRINT_SIZE];
  unsigned char build_id[DUMPER_FINGERPRINT_SIZE];
};

static size_t
align_up (size_t n, size_t alignment)
{
  return (n + alignment - 1) & ~(alignment - 1);
}

static void
scan_notes (const unsigned char *p, size_t size, size_t alignment,
            struct search *s)
{
  size_t offset = 0;
  while (offset + 12 <= size)
    {
      uint32_t namesz, descsz, type;
      memcpy (&namesz, p + offset, 4);
      memcpy (&descsz, p + offset + 4, 4);
      memcpy (&type, p + offset + 8, 4);
      size_t name_off = offset + 12;
      size_t desc_off = name_off + align_up (namesz, alignment);
      size_t next = desc_off + align_up (descsz, alignment);
      if (desc_off > size || next > size || next <= offset)
        return;
      const char *name = (const char *) p + name_off;
      const unsigned char *desc = p + desc_off;
      if (namesz == sizeof DUMPER_FINGERPRINT_NOTE_NAME
          && memcmp (name, DUMPER_FINGERPRINT_NOTE_NAME, namesz) == 0
          && type == DUMPER_FINGERPRINT_NOTE_TYPE
          && descsz == DUMPER_FINGERPRINT_SIZE)
        {
          static const unsigned char zero[DUMPER_FINGERPRINT_SIZE];
          if (memcmp (desc, zero, DUMPER_FINGERPRINT_SIZE) != 0)
            {
              memcpy (s->dumper, desc, DUMPER_FINGERPRINT_SIZE);
              s->found_dumper = true;
            }
        }
      else if (namesz == 4 && memcmp (name, "GNU", 4) == 0
               && type == NT_GNU_BUILD_ID && descsz > 0)
        {
          XXH128_hash_t h = XXH3_128bits (desc, descsz);
          XXH128_canonical_t c;
          XXH128_canonicalFromHash (&c, h);
          memcpy (s->build_id, c.digest, DUMPER_FINGERPRINT_SIZE);
          s->found_build_id = true;
        }
      offset = next;
    }
}

static int
visit_main_program (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  struct search *s = data;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_NOTE)
        continue;
      size_t alignment = ph->p_align == 8 ? 8 : 4;
      scan_notes ((const unsigned char *) (info->dlpi_addr + ph->p_vaddr),
                  ph->p_memsz, alignment, s);
    }
  return 1;   /* the first object is the main program: stop */
}

enum dumper_status
dumper_fingerprint (unsigned char out[DUMPER_FINGERPRINT_SIZE])
{
  struct search s;
  memset (&s, 0, sizeof s);
  dl_iterate_phdr (visit_main_program, &s);
  if (s.found_dumper)
    memcpy (out, s.dumper, DUMPER_FINGERPRINT_SIZE);
  else if (s.found_build_id)
    memcpy (out, s.build_id, DUMPER_FINGERPRINT_SIZE);
  else
    return bridge_fail (DUMPER_E_NO_FINGERPRINT,
                        "the executable has neither a dumper fingerprint note "
                        "(DUMPER_DEFINE_FINGERPRINT, then dumper-fingerprint "
                        "after linking) nor a GNU build-id");
  return DUMPER_OK;
}
