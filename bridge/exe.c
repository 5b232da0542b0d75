/* SPDX-License-Identifier: MIT */
/* bridge/exe.c: where the running executable is, where its image is
   looked for, and its loaded segments.

   The image is found beside the *real* executable (/proc/self/exe), so
   invoking the program through a symlink or a renamed copy behaves: the
   image belongs to the file, not to the name it was started by.  */

#include <config.h>

#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bridge.h"
#include "common/os.h"

static char exe_path[PATH_MAX];

const char *
bridge_exe_path (void)
{
  return common_exe_path (exe_path, sizeof exe_path) ? exe_path : NULL;
}

void
bridge_exe_span (struct bridge_exe_span *span)
{
  span->count = 0;
  struct common_program program;
  if (!common_main_program (&program))
    return;
  int max = (int) (sizeof span->start / sizeof span->start[0]);
  for (int i = 0; i < program.phnum && span->count < max; i++)
    if (program.phdr[i].p_type == PT_LOAD)
      {
        span->start[span->count] = program.bias + program.phdr[i].p_vaddr;
        span->end[span->count] = span->start[span->count]
                                 + program.phdr[i].p_memsz;
        span->count++;
      }
}

bool
bridge_exe_span_contains (const struct bridge_exe_span *span, uintptr_t address)
{
  for (int i = 0; i < span->count; i++)
    if (address >= span->start[i] && address < span->end[i])
      return true;
  return false;
}
