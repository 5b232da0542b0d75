/* SPDX-License-Identifier: MIT */
/* tools/migrate/util.c: memory and growable buffers for dumper-migrate.

   The only place the program gives up on running out of memory: a
   migration tool has nothing sensible to do without it, so it says so
   and exits with MIGRATE_EXIT_INTERNAL before touching any file.  */

#include <config.h>

#include "migrate.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void
tool_out_of_memory (void)
{
  fputs ("dumper-migrate: out of memory\n", stderr);
  exit (MIGRATE_EXIT_INTERNAL);
}

static char *vasprintf_or_die (const char *fmt, va_list ap)
  __attribute__ ((format (printf, 1, 0)));

static char *
vasprintf_or_die (const char *fmt, va_list ap)
{
  va_list copy;
  va_copy (copy, ap);
  int n = vsnprintf (NULL, 0, fmt, copy);
  va_end (copy);
  if (n < 0)
    tool_out_of_memory ();
  char *p = tool_xmalloc ((size_t) n + 1);
  vsnprintf (p, (size_t) n + 1, fmt, ap);
  return p;
}

char *
migrate_xasprintf (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *p = vasprintf_or_die (fmt, ap);
  va_end (ap);
  return p;
}

void
migrate_grow (void *ptr, size_t *cap, size_t need, size_t elem)
{
  void **array = ptr;
  if (need <= *cap)
    return;
  size_t n = *cap ? *cap : 8;
  while (n < need)
    {
      if (n > ((size_t) -1) / 2 / elem)
        tool_out_of_memory ();
      n *= 2;
    }
  *array = tool_xrealloc (*array, n * elem);
  *cap = n;
}

void
migrate_buf_add (struct migrate_buf *buf, const char *bytes, size_t n)
{
  migrate_grow (&buf->data, &buf->cap, buf->len + n + 1, 1);
  memcpy (buf->data + buf->len, bytes, n);
  buf->len += n;
  buf->data[buf->len] = '\0';
}

void
migrate_buf_puts (struct migrate_buf *buf, const char *s)
{
  migrate_buf_add (buf, s, strlen (s));
}

void
migrate_buf_printf (struct migrate_buf *buf, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *p = vasprintf_or_die (fmt, ap);
  va_end (ap);
  migrate_buf_puts (buf, p);
  free (p);
}

char *
migrate_buf_take (struct migrate_buf *buf)
{
  char *p = buf->data ? buf->data : tool_xstrdup ("");
  buf->data = NULL;
  buf->len = buf->cap = 0;
  return p;
}

void
migrate_buf_free (struct migrate_buf *buf)
{
  free (buf->data);
  buf->data = NULL;
  buf->len = buf->cap = 0;
}

size_t
migrate_hash (const char *s, size_t n)
{
  /* FNV-1a.  */
  size_t h = (size_t) 14695981039346656037ULL;
  for (size_t k = 0; k < n; k++)
    h = (h ^ (unsigned char) s[k]) * (size_t) 1099511628211ULL;
  return h;
}
