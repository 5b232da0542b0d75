/* SPDX-License-Identifier: MIT */
/* tools/migrate/edit.c: applying edits to a file's text.

   Owns the invariant every writer relies on: after
   migrate_edits_normalize the edits are sorted by file and offset and
   never overlap, so applying them is one left-to-right copy.  A site
   whose edits would overlap another's loses all of its edits and
   becomes a review item: a rewrite is applied whole or not at all.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>

static const struct migrate_edit *sorting_edits;

static int
compare_edits (const void *a, const void *b)
{
  int ia = *(const int *) a, ib = *(const int *) b;
  const struct migrate_edit *ea = &sorting_edits[ia], *eb = &sorting_edits[ib];
  if (ea->file != eb->file)
    return ea->file < eb->file ? -1 : 1;
  if (ea->start != eb->start)
    return ea->start < eb->start ? -1 : 1;
  if (ea->end != eb->end)
    return ea->end < eb->end ? -1 : 1;
  return ia < ib ? -1 : ia > ib;
}

static void
sort_edits (struct migrate_project *proj)
{
  size_t n = proj->nedits;
  int *order = tool_xmalloc ((n ? n : 1) * sizeof *order);
  for (size_t k = 0; k < n; k++)
    order[k] = (int) k;
  sorting_edits = proj->edits;
  qsort (order, n, sizeof *order, compare_edits);
  struct migrate_edit *sorted = tool_xmalloc ((n ? n : 1) * sizeof *sorted);
  for (size_t k = 0; k < n; k++)
    sorted[k] = proj->edits[order[k]];
  free (proj->edits);
  proj->edits = sorted;
  proj->edits_cap = n ? n : 1;
  free (order);
}

static bool
same_edit (const struct migrate_edit *a, const struct migrate_edit *b)
{
  return a->file == b->file && a->start == b->start && a->end == b->end
    && strcmp (a->text, b->text) == 0;
}

void
migrate_edits_normalize (struct migrate_project *proj)
{
  sort_edits (proj);
  bool *bad = tool_xcalloc (proj->nsites + 1, sizeof *bad);
  bool *gone = tool_xcalloc (proj->nedits + 1, sizeof *gone);
  for (size_t k = 1; k < proj->nedits; k++)
    {
      const struct migrate_edit *prev = &proj->edits[k - 1], *e = &proj->edits[k];
      if (e->file != prev->file)
        continue;
      if (same_edit (prev, e))
        gone[k] = true;
      else if (e->start < prev->end)
        {
          if (e->site >= 0)
            bad[e->site] = true;
          else if (prev->site >= 0)
            bad[prev->site] = true;
          else
            gone[k] = true;
        }
    }
  size_t kept = 0;
  for (size_t k = 0; k < proj->nedits; k++)
    {
      struct migrate_edit *e = &proj->edits[k];
      if (gone[k] || (e->site >= 0 && bad[e->site]))
        {
          free (e->text);
          continue;
        }
      proj->edits[kept++] = *e;
    }
  proj->nedits = kept;
  for (size_t s = 0; s < proj->nsites; s++)
    if (bad[s])
      {
        struct migrate_site *site = &proj->sites[s];
        char *old = site->suggestion;
        site->conf = MIGRATE_REVIEW;
        site->suggestion = migrate_xasprintf ("%s; review: it overlaps another"
                                              " rewrite", old ? old : "");
        free (old);
      }
  free (bad);
  free (gone);
}

char *
migrate_apply_edits (const struct migrate_project *proj, int file, size_t *len)
{
  const struct migrate_file *f = proj->files[file];
  struct migrate_buf out = { 0 };
  size_t pos = 0;
  bool any = false;
  /* The first edit of FILE: edits are sorted by file.  */
  size_t lo = 0, hi = proj->nedits;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (proj->edits[mid].file < file)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (size_t k = lo; k < proj->nedits && proj->edits[k].file == file; k++)
    {
      const struct migrate_edit *e = &proj->edits[k];
      any = true;
      migrate_buf_add (&out, f->text + pos, e->start - pos);
      migrate_buf_puts (&out, e->text);
      pos = e->end;
    }
  if (!any)
    return NULL;
  migrate_buf_add (&out, f->text + pos, f->len - pos);
  *len = out.len;
  return migrate_buf_take (&out);
}
