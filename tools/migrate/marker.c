/* SPDX-License-Identifier: MIT */
/* tools/migrate/marker.c: the comments that record a person's decision.

   Owns the two markers a source file may carry, each in a comment, on
   the line of a site or on the line above it:

     dumper-migrate: keep                 a person decided: not a dump
                                          test, leave it; the site is
                                          dropped
     dumper-migrate: review PATTERN...    (starting the comment) written
                                          by --fix above every
                                          review item it leaves behind;
                                          the item stays a review item
                                          until a person resolves it

   A review marker makes review items persist: after --fix a rule may no
   longer fire (an `initialized' test is reported only while the file
   does not see <dumper/gflags.h>), but the marker still does, so
   --check keeps failing until a person either deletes the marker
   (having changed the code) or turns it into `keep'.  And a site on a
   marked line is never certain: whatever a later run would rewrite
   there was review when the marker was written, so a second --fix
   cannot turn a review item into a rewrite (issue 18, class 1).  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>

static const char keep_word[] = "dumper-migrate: keep";
static const char review_word[] = "dumper-migrate: review";

/* The 1-based line holding byte POS of F.  */
static unsigned
line_of (const struct migrate_file *f, size_t pos)
{
  unsigned lo = 0, hi = f->nlines;     /* line_start[lo] <= pos */
  while (hi - lo > 1)
    {
      unsigned mid = lo + (hi - lo) / 2;
      if (f->line_start[mid] <= pos)
        lo = mid;
      else
        hi = mid;
    }
  return lo + 1;
}

/* Offset of WORD inside comment C of F, or (size_t) -1.  */
static size_t
find_in_comment (const struct migrate_file *f, int c, const char *word)
{
  size_t a = f->comments[c].start, b = f->comments[c].end, n = strlen (word);
  for (size_t k = a; k + n <= b; k++)
    if (memcmp (f->text + k, word, n) == 0)
      return k;
  return (size_t) -1;
}

bool *
migrate_keep_lines (const struct migrate_file *f)
{
  bool *keep = NULL;
  for (int c = 0; c < f->ncomments; c++)
    {
      if (find_in_comment (f, c, keep_word) == (size_t) -1)
        continue;
      if (!keep)
        keep = tool_xcalloc ((size_t) f->nlines + 2, sizeof *keep);
      unsigned line = line_of (f, f->comments[c].end - 1);
      keep[line] = true;
      if (line + 1 <= f->nlines + 1)
        keep[line + 1] = true;
    }
  return keep;
}

/* A review marker: where it is and the first pattern it names.  */
struct review_marker
{
  int comment;
  unsigned line;              /* the line it ends on */
  char *pattern;              /* malloc'd; "" when none is named */
  bool matched;
};

static size_t
collect (const struct migrate_file *f, struct review_marker **out)
{
  struct review_marker *list = NULL;
  size_t n = 0, cap = 0;
  for (int c = 0; c < f->ncomments; c++)
    {
      /* A marker starts its comment: one that only mentions the words
         (documentation, this file) is not one.  */
      size_t at = f->comments[c].start + 2;
      while (at < f->comments[c].end && (f->text[at] == ' ' || f->text[at] == '\t'))
        at++;
      if (f->comments[c].end - at < sizeof review_word - 1
          || memcmp (f->text + at, review_word, sizeof review_word - 1) != 0)
        continue;
      size_t p = at + sizeof review_word - 1, end = f->comments[c].end;
      while (p < end && (f->text[p] == ' ' || f->text[p] == '\t'))
        p++;
      /* One entry per pattern id named; none: not a marker.  */
      bool first = true;
      for (;;)
        {
          size_t q = p;
          while (q < end && (f->text[q] == '-' || f->text[q] == '_'
                             || (f->text[q] >= 'a' && f->text[q] <= 'z')))
            q++;
          if (q == p && !first)
            break;
          char *id = tool_xstrndup (f->text + p, q - p);
          if (!migrate_pattern_find (id))
            {
              free (id);
              break;
            }
          migrate_grow (&list, &cap, n + 1, sizeof *list);
          list[n].comment = c;
          list[n].line = line_of (f, f->comments[c].end - 1);
          list[n].pattern = id;
          list[n++].matched = false;
          first = false;
          p = q;
          while (p < end && f->text[p] == ' ')
            p++;
        }
    }
  *out = list;
  return n;
}

/* Drop the edits of site S and make it a review item held by a marker.  */
static void
hold (struct migrate_project *proj, size_t s)
{
  proj->sites[s].held = true;
  migrate_site_demote (proj, s, "a `dumper-migrate: review' marker holds this"
                       " line for a person");
}

void
migrate_markers_apply (struct migrate_project *proj)
{
  size_t nsites = proj->nsites;
  /* The sites of each file, as linked lists.  */
  int *head = tool_xmalloc ((size_t) (proj->nfiles ? proj->nfiles : 1) * sizeof *head);
  int *next = tool_xmalloc ((nsites ? nsites : 1) * sizeof *next);
  for (int fi = 0; fi < proj->nfiles; fi++)
    head[fi] = -1;
  for (size_t s = nsites; s-- > 0;)
    {
      next[s] = head[proj->sites[s].file];
      head[proj->sites[s].file] = (int) s;
    }
  for (int fi = 0; fi < proj->nfiles; fi++)
    {
      struct migrate_file *f = proj->files[fi];
      if (!f->in_paths)
        continue;
      struct review_marker *marks;
      size_t n = collect (f, &marks);
      for (size_t m = 0; m < n; m++)
        for (int s = head[fi]; s >= 0; s = next[s])
          {
            const struct migrate_site *site = &proj->sites[s];
            if (site->line == marks[m].line || site->line == marks[m].line + 1)
              {
                hold (proj, (size_t) s);
                /* Each pattern the marker names needs its own site.  */
                if (strcmp (site->pattern, marks[m].pattern) == 0
                    || !migrate_pattern_find (marks[m].pattern))
                  marks[m].matched = true;
              }
          }
      for (size_t m = 0; m < n; m++)
        {
          if (!marks[m].matched)
            {
              const struct migrate_pattern *known = migrate_pattern_find (marks[m].pattern);
              /* The site's token: the first token after the comment.  */
              int tok = 0;
              while (tok < f->ntoks
                     && f->toks[tok].start < f->comments[marks[m].comment].end)
                tok++;
              if (tok >= f->ntoks)
                tok = f->ntoks - 1;
              if (tok < 0)
                continue;
              int site = migrate_site_add
                (proj, fi, tok, known->id,
                 MIGRATE_REVIEW,
                 migrate_xasprintf ("review item `%s' recorded by a `%s'"
                                    " marker", marks[m].pattern, review_word),
                 migrate_xasprintf ("unresolved: decide, then delete the marker"
                                    " (the code now says what it means) or"
                                    " turn it into `%s' (it stays as it is)",
                                    keep_word));
              proj->sites[site].held = true;
              /* Report it where the marker is.  */
              size_t at = f->comments[marks[m].comment].start;
              proj->sites[site].line = line_of (f, at);
              proj->sites[site].col
                = (unsigned) (at - f->line_start[proj->sites[site].line - 1]) + 1;
            }
          free (marks[m].pattern);
        }
      free (marks);
    }
  free (head);
  free (next);
}

/* Whether a marker line can go before the line starting at POS: not
   inside a comment, a literal or a continued directive.  */
/* The last of the N ranges (START and END members of ELEM-byte
   elements at BASE, sorted by start) that starts before POS covers it.  */
#define COVERS(base, n, startf, endf, pos)                              \
  ({ int lo_ = 0, hi_ = (n);                                            \
     while (lo_ < hi_)                                                  \
       { int mid_ = lo_ + (hi_ - lo_) / 2;                              \
         if ((base)[mid_].startf < (pos)) lo_ = mid_ + 1; else hi_ = mid_; } \
     lo_ > 0 && (pos) < (base)[lo_ - 1].endf; })

static bool
insertable (const struct migrate_file *f, size_t pos)
{
  if (pos > 0 && f->text[pos - 1] != '\n')
    return false;
  return !COVERS (f->comments, f->ncomments, start, end, pos)
    && !COVERS (f->dirs, f->ndirs, line_start, line_end, pos)
    && !COVERS (f->toks, f->ntoks, start, end, pos);
}

void
migrate_markers_plan (struct migrate_project *proj)
{
  /* Sites are sorted by file and line: one marker per line, naming the
     review patterns of that line.  */
  for (size_t s = 0; s < proj->nsites;)
    {
      const struct migrate_site *first = &proj->sites[s];
      size_t t = s;
      struct migrate_buf names = { 0 };
      bool held = false;
      for (; t < proj->nsites && proj->sites[t].file == first->file
             && proj->sites[t].line == first->line; t++)
        {
          const struct migrate_site *site = &proj->sites[t];
          held |= site->held;
          if (site->conf == MIGRATE_REVIEW && !strstr (names.data ? names.data : "",
                                                       site->pattern))
            migrate_buf_printf (&names, "%s%s", names.len ? " " : "", site->pattern);
        }
      const struct migrate_file *f = proj->files[first->file];
      if (names.len && !held && f->in_paths && first->line <= f->nlines)
        {
          size_t pos = f->line_start[first->line - 1];
          if (insertable (f, pos))
            {
              size_t ws = pos;
              while (ws < f->len && (f->text[ws] == ' ' || f->text[ws] == '\t'))
                ws++;
              char *line = migrate_xasprintf ("%.*s/* %s %s */\n", (int) (ws - pos),
                                              f->text + pos, review_word, names.data);
              migrate_edit_add (proj, first->file, pos, pos, line, (int) s);
              free (line);
            }
        }
      migrate_buf_free (&names);
      s = t;
    }
}
