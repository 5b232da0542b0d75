/* SPDX-License-Identifier: MIT */
/* tests/fuzz/reseal.c: what the fuzz targets and the resealing mutator
   (mutate.c) share: recomputing an image's checksums, as a hostile or
   buggy producer would after changing it, and a stand-in executable
   layout.  The checksums of a compressed section cover its decompressed
   bytes, so such a section is decompressed first, by the loader's own
   code (pdump/codec.c); one that does not decompress keeps its sum.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "fuzz.h"
#include "pdump/codec.h"
#include "pdump/format.h"

/* Decompressed sections larger than this are left as they are (an
   input's sizes are arbitrary; the fuzzers run with little memory).  */
#define RESEAL_MAX_SECTION (UINT64_C (64) << 20)

/* The checksum of the compressed section KIND (entry S) of the input,
   or false when it does not decompress.  */
static bool
sum_compressed (const unsigned char *bytes, size_t size,
                const struct pdump_section *s, uint64_t *sum)
{
  struct pdump_view view;
  memset (&view, 0, sizeof view);
  memcpy (&view.header, bytes, sizeof view.header);
  uint64_t fs = view.header.frame_size;
  if (s->kind < 1 || s->kind > PDUMP_SECTION_KIND_MAX
      || s->size == 0 || s->size > RESEAL_MAX_SECTION
      || fs < PDUMP_FRAME_SIZE_MIN || fs > PDUMP_FRAME_SIZE_MAX || (fs & (fs - 1))
      || s->stored_offset > size || s->stored_size > size - s->stored_offset)
    return false;
  view.sections[s->kind] = *s;
  unsigned char *plain = malloc ((size_t) s->size);
  if (plain == NULL)
    return false;
  struct pdump_memory in = { bytes, size };
  char detail[256];
  bool ok = pdump_unpack_section (&view, s->kind, plain, pdump_read_memory, &in,
                                  "reseal", detail, sizeof detail) == DUMPER_OK;
  if (ok)
    *sum = XXH3_64bits (plain, (size_t) s->size);
  free (plain);
  return ok;
}

/* Recompute every section checksum the table can name within the input
   (over the decompressed bytes of a compressed section), then the header
   checksum.  */
/* Whether SIZE bytes hold a header and a section table.  */
static bool
has_table (size_t size)
{
  return size >= sizeof (struct pdump_header)
                 + PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section);
}

void
fuzz_reseal (unsigned char *bytes, size_t size)
{
  const size_t table = sizeof (struct pdump_header);
  if (!has_table (size))
    return;
  for (size_t i = 0; i < PDUMP_SECTION_KIND_MAX; i++)
    {
      struct pdump_section s;
      memcpy (&s, bytes + table + i * sizeof s, sizeof s);
      uint64_t sum;
      if (s.codec != PDUMP_CODEC_NONE)
        {
          if (sum_compressed (bytes, size, &s, &sum))
            s.checksum = sum;
        }
      else if (s.offset <= size && s.size <= size - s.offset)
        s.checksum = XXH3_64bits (bytes + s.offset, (size_t) s.size);
      memcpy (bytes + table + i * sizeof s, &s, sizeof s);
    }
  fuzz_reseal_header (bytes, size);
}

/* Recompute the header checksum alone.  */
void
fuzz_reseal_header (unsigned char *bytes, size_t size)
{
  if (!has_table (size))
    return;
  XXH3_state_t *state = XXH3_createState ();
  if (state == NULL)
    return;
  XXH3_64bits_reset (state);
  XXH3_64bits_update (state, bytes, offsetof (struct pdump_header, header_checksum));
  XXH3_64bits_update (state, bytes + sizeof (struct pdump_header),
                      PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section));
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
      { 0x2000, 0x10000, 5 },
      { 0x10000, 0x11000, 4 },
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
