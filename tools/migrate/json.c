/* SPDX-License-Identifier: MIT */
/* tools/migrate/json.c: the JSON report (--json).

   Owns the machine-readable form of the report, for editors and CI
   annotations:

     {"version": 1, "files": N,
      "sites": [{"file": ..., "line": ..., "column": ..., "pattern": ...,
                 "confidence": "certain"|"review", "what": ...,
                 "suggestion": ...}, ...],
      "skipped": [{"path": ..., "reason": ...}, ...],
      "summary": {"certain": N, "review": N}}

   Strings are escaped per RFC 8259; bytes >= 0x80 pass through (the
   input is C source, normally UTF-8).  One site per line.  */

#include <config.h>

#include "migrate.h"

void
migrate_json_string (FILE *out, const char *s)
{
  fputc ('"', out);
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    {
      const char *escape = *p == '"' ? "\\\"" : *p == '\\' ? "\\\\"
        : *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : *p == '\r' ? "\\r" : NULL;
      if (escape)
        fputs (escape, out);
      else if (*p < 0x20)
        fprintf (out, "\\u%04x", *p);
      else
        fputc (*p, out);
    }
  fputc ('"', out);
}

void
migrate_report_json (FILE *out, const struct migrate_project *proj)
{
  int files = 0;
  for (int i = 0; i < proj->nfiles; i++)
    files += proj->files[i]->in_paths;
  fprintf (out, "{\"version\": 1, \"files\": %d,\n \"sites\": [", files);
  for (size_t s = 0; s < proj->nsites; s++)
    {
      const struct migrate_site *site = &proj->sites[s];
      fputs (s ? ",\n  {\"file\": " : "\n  {\"file\": ", out);
      migrate_json_string (out, proj->files[site->file]->path);
      fprintf (out, ", \"line\": %u, \"column\": %u, \"pattern\": ", site->line,
               site->col);
      migrate_json_string (out, site->pattern);
      fprintf (out, ", \"confidence\": \"%s\", \"what\": ",
               site->conf == MIGRATE_CERTAIN ? "certain" : "review");
      migrate_json_string (out, site->what ? site->what : "");
      fputs (", \"suggestion\": ", out);
      migrate_json_string (out, site->suggestion ? site->suggestion : "");
      if (site->held)
        fputs (", \"marker\": true", out);
      fputc ('}', out);
    }
  fprintf (out, "%s],\n \"skipped\": [", proj->nsites ? "\n " : "");
  for (int k = 0; k < proj->nskipped; k++)
    {
      fputs (k ? ",\n  {\"path\": " : "\n  {\"path\": ", out);
      migrate_json_string (out, proj->skipped[k].path);
      fputs (", \"reason\": ", out);
      migrate_json_string (out, proj->skipped[k].why);
      fputc ('}', out);
    }
  fprintf (out, "%s],\n \"summary\": {\"certain\": %zu, \"review\": %zu}}\n",
           proj->nskipped ? "\n " : "",
           migrate_count_sites (proj, MIGRATE_CERTAIN),
           migrate_count_sites (proj, MIGRATE_REVIEW));
}
