/* SPDX-License-Identifier: MIT */
/* tools/migrate/report.c: the text report.

   Owns the one-line-per-site format the man page documents:

     FILE:LINE:COL: PATTERN: WHAT; SUGGESTION (certain|review)

   Sites arrive sorted by file, line, column and pattern (rules.c), so
   the report is the same on every run and every file system.  */

#include <config.h>

#include "migrate.h"

static const char *
confidence_name (enum migrate_conf conf)
{
  return conf == MIGRATE_CERTAIN ? "certain" : "review";
}

void
migrate_report_text (FILE *out, const struct migrate_project *proj)
{
  for (size_t s = 0; s < proj->nsites; s++)
    {
      const struct migrate_site *site = &proj->sites[s];
      fprintf (out, "%s:%u:%u: %s: %s; %s (%s)\n",
               proj->files[site->file]->path, site->line, site->col,
               site->pattern, site->what ? site->what : "",
               site->suggestion ? site->suggestion : "",
               confidence_name (site->conf));
    }
  for (int k = 0; k < proj->nskipped; k++)
    fprintf (out, "%s: skipped: %s\n", proj->skipped[k].path,
             proj->skipped[k].why);
}
