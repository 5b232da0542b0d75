/* SPDX-License-Identifier: MIT */
/* tests/migrate/mtest.h: helpers shared by the dumper-migrate unit
   tests: analyse C text held in memory, find tokens and sites.  */

#ifndef MTEST_H
#define MTEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "migrate.h"

/* A file made from SRC (copied), lexed and analysed.  */
static inline struct migrate_file *
mt_file (const char *src)
{
  return migrate_file_new ("t.c", tool_xstrdup (src), strlen (src), true);
}

/* The first token of F spelled S at or after FROM, or -1.  */
static inline int
mt_tok (const struct migrate_file *f, const char *s, int from)
{
  for (int i = from; i < f->ntoks; i++)
    if (migrate_tok_is (f, i, s))
      return i;
  return -1;
}

/* A project of one in-memory file SRC, analysed with the rules in
   SELECTION (NULL: all).  */
static inline void
mt_analyse_only (struct migrate_project *proj, const char *src,
                 const char *const *selection)
{
  migrate_project_init (proj);
  migrate_project_add_file (proj, mt_file (src));
  migrate_project_resolve (proj);
  migrate_analyse (proj, selection);
}

static inline void
mt_analyse (struct migrate_project *proj, const char *src)
{
  mt_analyse_only (proj, src, NULL);
}

/* The index of the site of PATTERN on LINE, or -1.  */
static inline int
mt_site (const struct migrate_project *proj, const char *pattern, unsigned line)
{
  for (size_t s = 0; s < proj->nsites; s++)
    if (strcmp (proj->sites[s].pattern, pattern) == 0
        && proj->sites[s].line == line)
      return (int) s;
  return -1;
}

/* The number of edits that are not review markers.  */
static inline size_t
mt_nedits (const struct migrate_project *proj)
{
  size_t n = 0;
  for (size_t e = 0; e < proj->nedits; e++)
    n += strstr (proj->edits[e].text, "/* dumper-migrate: review ") == NULL;
  return n;
}

/* The fixed text of the project's only file with the review-marker
   lines --fix adds left out (malloc'd; "" unchanged).  */
static inline char *
mt_fixed_raw (const struct migrate_project *proj)
{
  size_t len;
  char *text = migrate_apply_edits (proj, 0, &len);
  return text ? text : tool_xstrdup ("");
}

static inline char *
mt_fixed (const struct migrate_project *proj)
{
  char *text = mt_fixed_raw (proj);
  char *out = tool_xstrdup (text), *w = out;
  for (const char *line = text; *line;)
    {
      const char *nl = strchr (line, '\n');
      size_t n = nl ? (size_t) (nl - line) + 1 : strlen (line);
      char *copy = tool_xstrndup (line, n);
      bool marker = strstr (copy, "/* dumper-migrate: review ") != NULL;
      free (copy);
      if (!marker)
        {
          memcpy (w, line, n);
          w += n;
        }
      line += n;
    }
  *w = 0;
  free (text);
  if (strcmp (out, proj->files[0]->text) == 0)
    *out = 0;
  return out;
}

#endif /* MTEST_H */
