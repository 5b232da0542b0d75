/* SPDX-License-Identifier: MIT */
/* tools/common/xalloc.c: allocation for the command-line tools
   (xalloc.h).  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "tools/common/xalloc.h"

void *
tool_xmalloc (size_t size)
{
  void *p = malloc (size ? size : 1);
  if (p == NULL)
    tool_out_of_memory ();
  return p;
}

void *
tool_xcalloc (size_t count, size_t size)
{
  void *p = calloc (count ? count : 1, size ? size : 1);
  if (p == NULL)
    tool_out_of_memory ();
  return p;
}

void *
tool_xrealloc (void *ptr, size_t size)
{
  void *p = realloc (ptr, size ? size : 1);
  if (p == NULL)
    tool_out_of_memory ();
  return p;
}

char *
tool_xstrndup (const char *s, size_t n)
{
  char *p = tool_xmalloc (n + 1);
  memcpy (p, s, n);
  p[n] = '\0';
  return p;
}

char *
tool_xstrdup (const char *s)
{
  return tool_xstrndup (s, strlen (s));
}
