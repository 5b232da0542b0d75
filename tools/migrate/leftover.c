/* SPDX-License-Identifier: MIT */
/* tools/migrate/leftover.c: what the rewrites would leave behind.

   Owns the last pass over the final edits of each file (issue 18,
   class 8).  A rule deletes what it understands -- a declaration, an
   assignment, a `(void) flag;' -- and may thereby empty the conditional
   around it, or leave a comment about it.  This pass

     * deletes a conditional group (with the comment block directly
       above it and every comment inside it) when the edits delete
       everything it held, and an `#else' whose arm they emptied; a
       CANNOT_DUMP group reported for review becomes a certain site,
       since what it held was only the legacy flag;
     * reports, as `leftover' review sites, what it cannot decide: a
       group whose first arm was emptied but whose `#else' was not, and
       a comment naming `might_dump' or CANNOT_DUMP once the rewritten
       file has no such code left.

   It only adds deletions of text no edit touches, attached to the site
   that emptied the group, so the edits still never overlap.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>

struct span
{
  size_t start, end;
  int site;
};

struct deletions
{
  struct span *spans;
  size_t n, cap;
};

/* The site whose deletion covers POS, or -2 when nothing deletes it.  */
static int
deleted_by (const struct deletions *d, size_t pos)
{
  for (size_t k = 0; k < d->n; k++)
    if (d->spans[k].start <= pos && pos < d->spans[k].end)
      return d->spans[k].site;
  return -2;
}

static void
add_span (struct deletions *d, size_t start, size_t end, int site)
{
  migrate_grow (&d->spans, &d->cap, d->n + 1, sizeof *d->spans);
  d->spans[d->n].start = start;
  d->spans[d->n].end = end;
  d->spans[d->n++].site = site;
}

/* Delete every byte of [A, B) that no deletion covers yet.  */
static void
delete_rest (struct migrate_project *proj, struct deletions *d, int file,
             size_t a, size_t b, int site)
{
  size_t pos = a;
  while (pos < b)
    {
      if (deleted_by (d, pos) != -2)
        {
          pos++;
          continue;
        }
      size_t end = pos;
      while (end < b && deleted_by (d, end) == -2)
        end++;
      migrate_edit_add (proj, file, pos, end, "", site);
      add_span (d, pos, end, site);
      pos = end;
    }
}

/* Tokens [FIRST, END) (code and directives): whether all are deleted,
   and whether any is (*ANY, with the site in *SITE).  */
static bool
all_deleted (const struct migrate_file *f, const struct deletions *d,
             int first, int end, bool *any, int *site)
{
  bool all = true;
  for (int i = first; i < end; i++)
    {
      int s = deleted_by (d, f->toks[i].start);
      if (s == -2)
        all = false;
      else
        {
          *any = true;
          if (*site < 0)
            *site = s;
        }
    }
  return all;
}

static int
depth_of (const struct migrate_file *f, int g)
{
  int depth = 0;
  for (int b = f->groups[g].parent; b >= 0; b = f->branches[b].parent)
    depth++;
  return depth;
}

/* The review site a CANNOT_DUMP rule reported on LINE, or -1; -2 when a
   review marker holds it (then the group stays).  */
static int
guard_site (const struct migrate_project *proj, int file, unsigned line)
{
  for (size_t s = 0; s < proj->nsites; s++)
    {
      const struct migrate_site *site = &proj->sites[s];
      if (site->file == file && site->line == line && site->conf == MIGRATE_REVIEW
          && (site->pattern == MIGRATE_P_GUARD || site->pattern == MIGRATE_P_ONLY))
        return site->held ? -2 : (int) s;
    }
  return -1;
}

static void
empty_groups (struct migrate_project *proj, int file, struct deletions *d)
{
  const struct migrate_file *f = proj->files[file];
  int maxdepth = 0;
  for (int g = 0; g < f->ngroups; g++)
    if (depth_of (f, g) > maxdepth)
      maxdepth = depth_of (f, g);
  /* Innermost first, so that an emptied inner group empties its parent.  */
  for (int depth = maxdepth; depth >= 0; depth--)
    for (int g = 0; g < f->ngroups; g++)
      {
        const struct migrate_group *grp = &f->groups[g];
        if (depth_of (f, g) != depth || grp->endif < 0)
          continue;
        const struct migrate_branch *b0 = &f->branches[grp->first_branch];
        int open = f->dirs[b0->directive].hash;
        if (migrate_tok_dead (f, open) || deleted_by (d, f->toks[open].start) != -2)
          continue;
        bool any = false;
        int site = -1;
        bool all = true;
        /* A group's arms are not consecutive in the branch array when
           an arm holds a nested group.  */
        int last_b = grp->first_branch;
        for (int b = grp->first_branch; b < f->nbranches; b++)
          {
            const struct migrate_branch *br = &f->branches[b];
            if (br->group != g)
              continue;
            last_b = b;
            int first = f->dirs[br->directive].end;
            while (first < f->ntoks && f->toks[first].directive == br->directive)
              first++;
            all &= all_deleted (f, d, first, br->end, &any, &site);
          }
        if (!any || site < 0)
          continue;
        size_t ga = f->dirs[b0->directive].line_start;
        size_t gb = f->dirs[grp->endif].line_end;
        if (all)
          {
            int held = guard_site (proj, file, f->toks[open].line);
            if (held == -2)
              continue;
            if (held >= 0)
              {
                struct migrate_site *s = &proj->sites[held];
                s->conf = MIGRATE_CERTAIN;
                free (s->suggestion);
                s->suggestion = tool_xstrdup ("delete it: it held only the"
                                              " legacy flag, which the rewrite"
                                              " removes");
                site = held;
              }
            delete_rest (proj, d, file, migrate_attached_comment (f, ga), gb, site);
            continue;
          }
        /* A last `#else' whose arm was emptied goes; an emptied first
           arm with a live #else would need the test inverted: report.  */
        const struct migrate_branch *last = &f->branches[last_b];
        bool last_any = false, first_any = false;
        int s1 = -1, s0 = -1;
        int lfirst = f->dirs[last->directive].end;
        while (lfirst < f->ntoks && f->toks[lfirst].directive == last->directive)
          lfirst++;
        int ffirst = f->dirs[b0->directive].end;
        while (ffirst < f->ntoks && f->toks[ffirst].directive == b0->directive)
          ffirst++;
        if (grp->nbranches > 1 && f->dirs[last->directive].kind == MIGRATE_D_ELSE
            && all_deleted (f, d, lfirst, last->end, &last_any, &s1) && last_any)
          delete_rest (proj, d, file, f->dirs[last->directive].line_start,
                       f->dirs[grp->endif].line_start, s1);
        else if (grp->nbranches > 1
                 && all_deleted (f, d, ffirst, b0->end, &first_any, &s0) && first_any)
          migrate_site_add (proj, file, open, MIGRATE_P_LEFTOVER, MIGRATE_REVIEW,
                            tool_xstrdup ("the rewrite empties the first arm of"
                                          " this conditional but not its #else"),
                            tool_xstrdup ("invert the test and drop the empty"
                                          " arm by hand"));
      }
}

/* A comment naming NAME survives although no code naming it does.  */
static void
stale_comments (struct migrate_project *proj, int file, const struct deletions *d,
                const struct deletions *edited, const char *name)
{
  const struct migrate_file *f = proj->files[file];
  bool had = false;
  for (int i = 0; i < f->ntoks; i++)
    if (f->toks[i].kind == MIGRATE_T_IDENT && !migrate_tok_dead (f, i)
        && migrate_tok_is (f, i, name))
      {
        had = true;
        if (deleted_by (edited, f->toks[i].start) == -2)
          return;
      }
  if (!had)
    return;
  size_t n = strlen (name);
  for (int c = 0; c < f->ncomments; c++)
    {
      size_t a = f->comments[c].start, b = f->comments[c].end;
      if (deleted_by (d, a) != -2)
        continue;
      for (size_t k = a; k + n <= b; k++)
        if (memcmp (f->text + k, name, n) == 0)
          {
            int tok = 0;
            while (tok < f->ntoks - 1 && f->toks[tok].end <= a)
              tok++;
            int site = migrate_site_add
              (proj, file, tok, MIGRATE_P_LEFTOVER, MIGRATE_REVIEW,
               migrate_xasprintf ("a comment names `%s', which the rewrite"
                                  " removes from this file", name),
               tool_xstrdup ("reword or delete the comment"));
            /* Report the comment's own line.  */
            unsigned line = 1;
            while (line < f->nlines && f->line_start[line] <= a)
              line++;
            proj->sites[site].line = line;
            proj->sites[site].col = (unsigned) (a - f->line_start[line - 1]) + 1;
            break;
          }
    }
}

void
migrate_leftovers (struct migrate_project *proj)
{
  /* Edits are sorted by file (migrate_edits_normalize).  */
  size_t e = 0;
  size_t nedits = proj->nedits;
  while (e < nedits)
    {
      int file = proj->edits[e].file;
      struct deletions d = { 0 }, edited = { 0 };
      for (; e < nedits && proj->edits[e].file == file; e++)
        {
          const struct migrate_edit *ed = &proj->edits[e];
          if (ed->end > ed->start)
            add_span (&edited, ed->start, ed->end, ed->site);
          if (ed->text[0] == 0 && ed->end > ed->start)
            add_span (&d, ed->start, ed->end, ed->site);
        }
      if (proj->files[file]->in_paths && d.n > 0)
        empty_groups (proj, file, &d);
      if (proj->files[file]->in_paths && edited.n > 0)
        {
          for (size_t k = edited.n; k < d.n; k++)     /* what empty_groups added */
            add_span (&edited, d.spans[k].start, d.spans[k].end, d.spans[k].site);
          stale_comments (proj, file, &d, &edited, "might_dump");
          stale_comments (proj, file, &d, &edited, "CANNOT_DUMP");
        }
      free (d.spans);
      free (edited.spans);
    }
}
