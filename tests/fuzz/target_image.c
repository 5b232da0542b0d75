/* SPDX-License-Identifier: MIT */
/* tests/fuzz/target_image.c: libFuzzer's entry for the image checks and
   inspector views (fuzz_image.c).  */

#include <config.h>

#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct fuzz_result result;
  fuzz_image_run (data, size, &result);
  return 0;
}
