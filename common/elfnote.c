/* SPDX-License-Identifier: MIT */
/* common/elfnote.c: finding the build fingerprint in ELF notes (see
   elfnote.h).  */

#include <config.h>

#include "common/elfnote.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>

#include <xxhash.h>

static size_t
align_up (size_t n, size_t alignment)
{
  return (n + alignment - 1) & ~(alignment - 1);
}

void
common_notes_scan (const void *notes, size_t size, size_t alignment,
                   struct common_notes *out)
{
  const unsigned char *p = notes;
  static const unsigned char zero[DUMPER_FINGERPRINT_SIZE];
  if (alignment != 8)
    alignment = 4;
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
      if (desc_off > size || desc_off + descsz > size || next <= offset)
        return;
      const char *name = (const char *) p + name_off;
      const unsigned char *desc = p + desc_off;
      if (namesz == sizeof DUMPER_FINGERPRINT_NOTE_NAME
          && memcmp (name, DUMPER_FINGERPRINT_NOTE_NAME, namesz) == 0
          && type == DUMPER_FINGERPRINT_NOTE_TYPE
          && descsz == DUMPER_FINGERPRINT_SIZE)
        {
          out->has_dumper_note = true;
          out->dumper_desc_offset = desc_off;
          out->dumper_stamped = memcmp (desc, zero, sizeof zero) != 0;
          memcpy (out->dumper, desc, DUMPER_FINGERPRINT_SIZE);
        }
      else if (namesz == 4 && memcmp (name, "GNU", 4) == 0
               && type == NT_GNU_BUILD_ID && descsz > 0)
        {
          XXH128_canonical_t canonical;
          XXH128_canonicalFromHash (&canonical, XXH3_128bits (desc, descsz));
          memcpy (out->build_id, canonical.digest, DUMPER_FINGERPRINT_SIZE);
          out->has_build_id = true;
        }
      offset = next;
    }
}

bool
common_notes_fingerprint (const struct common_notes *notes,
                          unsigned char out[DUMPER_FINGERPRINT_SIZE],
                          const char **source)
{
  const char *from = NULL;
  if (notes->has_dumper_note && notes->dumper_stamped)
    {
      memcpy (out, notes->dumper, DUMPER_FINGERPRINT_SIZE);
      from = "dumper note";
    }
  else if (notes->has_build_id)
    {
      memcpy (out, notes->build_id, DUMPER_FINGERPRINT_SIZE);
      from = "GNU build-id";
    }
  if (source && from)
    *source = from;
  return from != NULL;
}
