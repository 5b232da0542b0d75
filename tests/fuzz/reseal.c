/* SPDX-License-Identifier: MIT */
/* tests/fuzz/reseal.c: what the fuzz targets and the resealing mutator
   (mutate.c) share: recomputing an image's checksums, as a hostile or
   buggy producer would after changing it, and a stand-in executable
   layout.  */

#include <config.h>

#include <string.h>

#include <xxhash.h>

#include "fuzz.h"
#include "pdump/format.h"

/* Recompute every section checksum the table can name within the input,
   then the header checksum.  */
void
fuzz_reseal (unsigned char *bytes, size_t size)
{
  const size_t table = sizeof (struct pdump_header);
  const size_t entries = PDUMP_SECTION_KIND_MAX;
  if (size < table + entries * sizeof (struct pdump_section))
    return;
  for (size_t i = 0; i < entries; i++)
    {
      struct pdump_section s;
      memcpy (&s, bytes + table + i * sizeof s, sizeof s);
      if (s.offset <= size && s.size <= size - s.offset)
        {
          s.checksum = XXH3_64bits (bytes + s.offset, (size_t) s.size);
          memcpy (bytes + table + i * sizeof s, &s, sizeof s);
        }
    }
  XXH3_state_t *state = XXH3_createState ();
  if (state == NULL)
    return;
  XXH3_64bits_reset (state);
  XXH3_64bits_update (state, bytes, offsetof (struct pdump_header, header_checksum));
  XXH3_64bits_update (state, bytes + table, entries * sizeof (struct pdump_section));
  uint64_t sum = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  memcpy (bytes + offsetof (struct pdump_header, header_checksum), &sum, sizeof sum);
}

struct pdump_exe
fuzz_fake_layout (uintptr_t bias)
{
  struct pdump_exe exe = {
    .bias = bias,
    .lo = 0,
    .hi = FUZZ_FAKE_EXE_SIZE,
    .segments = {
      { 0x0, 0x2000, 4 },
      { 0x2000, 0xc000, 5 },
      { 0xc000, 0x11000, 4 },
      { 0x11b10, FUZZ_FAKE_EXE_SIZE, 6 },
    },
    .segment_count = 4,
    .relro_start = 0x11b10,
    .relro_end = 0x12000,
    .pltgot_start = 0x11fe8,
    .pltgot_end = 0x12048,
  };
  return exe;
}
