/* SPDX-License-Identifier: MIT */
/* tools/compare/util.c: memory and whole-file helpers.

   Owns: allocation that cannot fail quietly (out of memory is reported
   and ends the tool with COMPARE_EXIT_OSERR: every figure would be
   wrong past that point), and reading a whole file into memory.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "compare.h"

_Noreturn void
tool_out_of_memory (void)
{
  compare_error ("out of memory");
  exit (COMPARE_EXIT_OSERR);
}

char *
compare_read_file (const char *path, size_t *size_out)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return NULL;
  size_t size = 0, capacity = 1 << 16;
  char *text = tool_xmalloc (capacity);
  size_t n;
  while ((n = fread (text + size, 1, capacity - size - 1, f)) > 0)
    {
      size += n;
      if (size + 1 == capacity)
        {
          capacity *= 2;
          text = tool_xrealloc (text, capacity);
        }
    }
  text[size] = '\0';
  bool failed = ferror (f) != 0;
  fclose (f);
  if (failed)
    {
      free (text);
      return NULL;
    }
  if (size_out)
    *size_out = size;
  return text;
}
