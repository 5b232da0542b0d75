/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz.h: the image fuzz targets (fuzz_image.c: checks and
   inspector views; fuzz_load.c: the real loader), for libFuzzer and for
   the replay driver (replay.c) that `make check' runs.  */

#ifndef DUMPER_FUZZ_H
#define DUMPER_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>

#include "pdump/exe.h"

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

/* What the real loader said about one input as it is (fuzz_load.c):
   with verification off (PLAIN) and with the structural pass
   (VERIFIED).  */
struct fuzz_load_result
{
  enum dumper_status plain;
  enum dumper_status verified;
};

/* Load DATA with pdump_load (against a stand-in executable and
   toyhost's heap description), as it is and resealed, with and without
   the structural pass; walk every verified heap; abort when the loader
   and dumper-inspect --check disagree.  pdumper builds only.  */
void fuzz_load_run (const uint8_t *data, size_t size,
                    struct fuzz_load_result *result);

/* A plausible PIE layout (code, read-only data, RELRO with the PLT's GOT,
   data) of FUZZ_FAKE_EXE_SIZE bytes at load bias BIAS, for the registry
   checks and, in fuzz_load.c, as the executable restore writes into
   (reseal.c).  */
#define FUZZ_FAKE_EXE_SIZE 0x100000
struct pdump_exe fuzz_fake_layout (uintptr_t bias);

/* Recompute every section checksum the section table can name within
   SIZE bytes, then the header checksum (reseal.c).  */
void fuzz_reseal (unsigned char *bytes, size_t size);
/* Only the header checksum (over the header and the section table).  */
void fuzz_reseal_header (unsigned char *bytes, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#endif /* DUMPER_FUZZ_H */
