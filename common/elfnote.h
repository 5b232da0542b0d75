/* SPDX-License-Identifier: MIT */
/* common/elfnote.h: finding the build fingerprint in ELF notes.

   One reader for the three places that need it: the bridge (the running
   program's notes, in memory through dl_iterate_phdr), dumper-inspect
   (an executable file's PT_NOTE segments) and dumper-fingerprint (the
   file offset of the note it stamps).  The fingerprint is the dumper
   note (DUMPER_DEFINE_FINGERPRINT) when it is stamped, else the XXH3-128
   hash of the GNU build-id.  Notes are read in the host's byte order,
   with every size checked against the buffer.  */

#ifndef DUMPER_COMMON_ELFNOTE_H
#define DUMPER_COMMON_ELFNOTE_H

#include <stdbool.h>
#include <stddef.h>

#include <dumper/dumper.h>

struct common_notes
{
  bool has_dumper_note;      /* a dumper note, stamped or still zero */
  size_t dumper_desc_offset; /* its bytes' offset in the scanned buffer */
  bool dumper_stamped;       /* ... and they are not all zero */
  unsigned char dumper[DUMPER_FINGERPRINT_SIZE];
  bool has_build_id;         /* a GNU build-id */
  unsigned char build_id[DUMPER_FINGERPRINT_SIZE];   /* hashed */
};

/* Scan SIZE bytes of notes at NOTES (a PT_NOTE segment or an SHT_NOTE
   section, ALIGNMENT 4 or 8) and add what they hold to OUT (zero it
   before the first call; later notes of a kind replace earlier ones).  */
void common_notes_scan (const void *notes, size_t size, size_t alignment,
                        struct common_notes *out);

/* The fingerprint NOTES give: the stamped dumper note, else the hashed
   build-id.  False when there is neither; else *SOURCE (if not NULL)
   says which it was ("dumper note" or "GNU build-id").  */
bool common_notes_fingerprint (const struct common_notes *notes,
                               unsigned char out[DUMPER_FINGERPRINT_SIZE],
                               const char **source);

#endif
