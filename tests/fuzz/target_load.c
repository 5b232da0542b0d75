/* SPDX-License-Identifier: MIT */
/* tests/fuzz/target_load.c: libFuzzer's entry for the real loader
   (fuzz_load.c), in pdumper builds.  */

#include <config.h>

#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct fuzz_load_result result;
  fuzz_load_run (data, size, &result);
  return 0;
}
