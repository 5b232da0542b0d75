/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz.h: the image fuzz target (fuzz_image.c), for libFuzzer
   and for the replay driver (replay.c) that `make check' runs.  */

#ifndef DUMPER_FUZZ_H
#define DUMPER_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>

/* What the checks said about one input, as-is (the checksums it
   carries), without an executable: the loader's sequence (CHECK) and the
   inspection tables' decoding (TABLES; the header check's status when
   that failed).  */
struct fuzz_result
{
  enum dumper_status check;
  enum dumper_status tables;
};

/* Run every image check, the relocation on a copy, the table decoders,
   the reference graph and every view (to a null sink) on DATA; then
   again with all checksums recomputed, so the structural checks behind
   them are reached too.  Must never crash, leak or read out of bounds,
   whatever DATA holds.  */
void fuzz_image_run (const uint8_t *data, size_t size,
                     struct fuzz_result *result);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#endif /* DUMPER_FUZZ_H */
