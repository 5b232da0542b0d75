/* SPDX-License-Identifier: MIT */
/* c7-objc.m -- issue 18, class 7 (minimal): an Objective-C file (plain
   C in it, so that a C compiler checks it too) with its own
   `initialized', which would not compile next to <dumper/gflags.h>.  */

#include <stdbool.h>

static bool initialized;

void
c7_ns_init (void)
{
  if (!initialized)
    initialized = true;
}
