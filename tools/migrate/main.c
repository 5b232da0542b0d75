/* SPDX-License-Identifier: MIT */
/* tools/migrate/main.c: the dumper-migrate command line.

   Owns option parsing, the order of the work (read every path first;
   any unreadable one stops the run before anything is written), the
   choice of output (report, --json, --diff) and --fix / --check, and
   the exit statuses documented in dumper-migrate(1).  */

#include <config.h>

#include "migrate.h"
#include "tools/common/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum mode { MODE_REPORT, MODE_CHECK, MODE_DIFF, MODE_FIX };

static void
usage (FILE *out)
{
  fputs ("Usage: dumper-migrate [--check|--fix|--diff] [OPTION]... PATH...\n"
         "Find the legacy dump checks of an unexec-era runtime (CANNOT_DUMP\n"
         "conditionals, `initialized' as a dump test, might_dump, a `dumping'\n"
         "local, NILP (Vpurify_flag), flag parameters) in C files and rewrite\n"
         "the unambiguous ones into the gflags vocabulary of <dumper/gflags.h>.\n"
         "Directories are walked for every C-family file (C, Objective-C, C++).\n"
         "\n"
         "Modes (default: print the report):\n"
         "      --check          print the report; exit 6 while any site or review\n"
         "                       item remains\n"
         "      --diff           print a unified diff of the certain rewrites\n"
         "      --fix            apply the certain rewrites in place (atomically,\n"
         "                       keeping FILE.orig) and print the report\n"
         "Options:\n"
         "  -I, --include-dir=DIR  look for #include \"...\" and <...> headers here\n"
         "      --json           print the report as JSON\n"
         "      --no-backup      with --fix, do not keep FILE.orig\n"
         "      --rules=ID,...   only these patterns (see --list-rules)\n"
         "      --list-rules     list the pattern ids and exit\n"
         "  -q, --quiet          no summary line on standard error\n"
         "  -h, --help           show this help and exit\n"
         "  -V, --version        show the version and exit\n"
         "\n"
         "Each site is printed as FILE:LINE:COL: PATTERN: WHAT; SUGGESTION\n"
         "(certain|review).  A comment containing `dumper-migrate: keep' on\n"
         "the line of a site, or on the line above, suppresses it.\n"
         "Exit status: 0 done, 6 sites remain (--check), 64 usage error,\n"
         "66 unreadable input, 71 out of memory, 73 a file could not be written.\n",
         out);
}

static struct tool_cli cli = { "dumper-migrate", usage, 0 };

/* Split LIST at commas into a NULL-terminated array of known ids; NULL
   (reported) when one is unknown.  */
static char **
parse_rules (const char *list)
{
  size_t count = 1;
  for (const char *p = list; *p; p++)
    count += *p == ',';
  char **ids = tool_xcalloc (count + 1, sizeof *ids);
  size_t n = 0;
  const char *p = list;
  for (;;)
    {
      const char *comma = strchr (p, ',');
      size_t len = comma ? (size_t) (comma - p) : strlen (p);
      char *id = tool_xstrndup (p, len);
      if (!migrate_pattern_find (id))
        {
          tool_usage_error (&cli, "unknown pattern `%s' in --rules (see"
                            " --list-rules)", id);
          for (size_t k = 0; k < n; k++)
            free (ids[k]);
          free (ids);
          free (id);
          return NULL;
        }
      ids[n++] = id;
      if (!comma)
        break;
      p = comma + 1;
    }
  return ids;
}

static const struct migrate_project *sorting;

static int
compare_paths (const void *a, const void *b)
{
  return strcmp (sorting->files[*(const int *) a]->path,
                 sorting->files[*(const int *) b]->path);
}

/* Files in PATHS with edits, sorted by path; returns the count.  */
static int
edited_files (const struct migrate_project *proj, int **out)
{
  int *list = tool_xmalloc ((size_t) (proj->nfiles ? proj->nfiles : 1)
                               * sizeof *list);
  int n = 0;
  /* Edits are sorted by file.  */
  for (size_t e = 0; e < proj->nedits; e++)
    if (n == 0 || list[n - 1] != proj->edits[e].file)
      list[n++] = proj->edits[e].file;
  sorting = proj;
  qsort (list, (size_t) n, sizeof *list, compare_paths);
  *out = list;
  return n;
}

static int
run_diff (const struct migrate_project *proj)
{
  int *list;
  int n = edited_files (proj, &list);
  for (int k = 0; k < n; k++)
    {
      const struct migrate_file *f = proj->files[list[k]];
      size_t len = 0;
      char *text = migrate_apply_edits (proj, list[k], &len);
      migrate_diff_write (stdout, f->path, f->text, f->len, text, len);
      free (text);
    }
  free (list);
  return MIGRATE_EXIT_OK;
}

static int
run_fix (const struct migrate_project *proj, bool backup, bool quiet)
{
  int *list;
  int n = edited_files (proj, &list);
  int status = MIGRATE_EXIT_OK;
  for (int k = 0; k < n; k++)
    {
      const struct migrate_file *f = proj->files[list[k]];
      size_t len = 0;
      char *text = migrate_apply_edits (proj, list[k], &len);
      if (!migrate_fix_write (f->real ? f->real : f->path, text, len, backup))
        status = MIGRATE_EXIT_WRITE;
      else if (!quiet)
        fprintf (stderr, "dumper-migrate: rewrote %s%s\n", f->path,
                 backup ? " (backup in .orig)" : "");
      free (text);
    }
  free (list);
  return status;
}

int
main (int argc, char **argv)
{
  enum { OPT_CHECK = 256, OPT_FIX, OPT_DIFF, OPT_JSON, OPT_NO_BACKUP,
         OPT_RULES, OPT_LIST };
  static const struct option options[] = {
    { "check", no_argument, NULL, OPT_CHECK },
    { "fix", no_argument, NULL, OPT_FIX },
    { "diff", no_argument, NULL, OPT_DIFF },
    { "json", no_argument, NULL, OPT_JSON },
    { "no-backup", no_argument, NULL, OPT_NO_BACKUP },
    { "rules", required_argument, NULL, OPT_RULES },
    { "list-rules", no_argument, NULL, OPT_LIST },
    { "include-dir", required_argument, NULL, 'I' },
    { "quiet", no_argument, NULL, 'q' },
    { NULL, 0, NULL, 0 }
  };
  enum mode mode = MODE_REPORT;
  int modes = 0;
  bool json = false, backup = true, quiet = false;
  char **rules = NULL;
  struct migrate_project proj;
  migrate_project_init (&proj);
  size_t dirs_cap = 0;
  int c;
  int status = MIGRATE_EXIT_OK;
  bool stop = false;
  while (!stop && (c = tool_cli_getopt (&cli, argc, argv, "I:q", options)) != -1)
    switch (c)
      {
      case OPT_CHECK: mode = MODE_CHECK; modes++; break;
      case OPT_FIX: mode = MODE_FIX; modes++; break;
      case OPT_DIFF: mode = MODE_DIFF; modes++; break;
      case OPT_JSON: json = true; break;
      case OPT_NO_BACKUP: backup = false; break;
      case OPT_RULES:
        if (rules)
          status = tool_usage_error (&cli, "--rules given twice");
        else if (!(rules = parse_rules (optarg)))
          status = MIGRATE_EXIT_USAGE;
        stop = status != MIGRATE_EXIT_OK;
        break;
      case OPT_LIST:
        for (int k = 0; k < migrate_npatterns; k++)
          printf ("%-18s %s\n", migrate_patterns[k].id, migrate_patterns[k].summary);
        stop = true;
        break;
      case 'I':
        migrate_grow (&proj.include_dirs, &dirs_cap,
                      (size_t) proj.ninclude_dirs + 1, sizeof *proj.include_dirs);
        proj.include_dirs[proj.ninclude_dirs++] = tool_xstrdup (optarg);
        break;
      case 'q': quiet = true; break;
      default:                  /* TOOL_CLI_EXIT: --help, --version, a mistake */
        status = cli.status;
        stop = true;
        break;
      }
  if (!stop)
    {
      if (modes > 1)
        status = tool_usage_error (&cli, "--check, --diff and --fix exclude each other");
      else if (json && mode == MODE_DIFF)
        status = tool_usage_error (&cli, "--json does not apply to --diff");
      else if (!backup && mode != MODE_FIX)
        status = tool_usage_error (&cli, "--no-backup only applies to --fix");
      else if (optind >= argc)
        status = tool_usage_error (&cli, "no file or directory given");
      stop = status != MIGRATE_EXIT_OK;
    }
  if (stop)
    {
      for (int k = 0; rules && rules[k]; k++)
        free (rules[k]);
      free (rules);
      migrate_project_free (&proj);
      return status;
    }

  bool ok = true;
  for (int k = 0; k < proj.ninclude_dirs; k++)
    {
      struct stat st;
      if (stat (proj.include_dirs[k], &st) != 0 || !S_ISDIR (st.st_mode))
        {
          fprintf (stderr, "dumper-migrate: %s: not a directory (-I)\n",
                   proj.include_dirs[k]);
          ok = false;
        }
    }
  for (int k = optind; k < argc; k++)
    ok = migrate_project_add_path (&proj, argv[k]) && ok;
  if (!ok)
    status = MIGRATE_EXIT_INPUT;
  else
    {
      migrate_project_resolve (&proj);
      migrate_analyse (&proj, (const char *const *) rules);
      if (mode == MODE_DIFF)
        status = run_diff (&proj);
      else
        {
          if (json)
            migrate_report_json (stdout, &proj);
          else
            migrate_report_text (stdout, &proj);
          if (mode == MODE_FIX)
            status = run_fix (&proj, backup, quiet);
          else if (mode == MODE_CHECK && proj.nsites > 0)
            status = MIGRATE_EXIT_SITES;
        }
      if (!quiet)
        {
          fflush (stdout);
          int files = 0;
          for (int fi = 0; fi < proj.nfiles; fi++)
            files += proj.files[fi]->in_paths;
          fprintf (stderr, "dumper-migrate: %zu site%s (%zu certain, %zu review)"
                   " in %d file%s\n", proj.nsites, proj.nsites == 1 ? "" : "s",
                   migrate_count_sites (&proj, MIGRATE_CERTAIN),
                   migrate_count_sites (&proj, MIGRATE_REVIEW), files,
                   files == 1 ? "" : "s");
        }
    }
  if (fflush (stdout) != 0 && status == MIGRATE_EXIT_OK)
    status = MIGRATE_EXIT_WRITE;
  for (int k = 0; rules && rules[k]; k++)
    free (rules[k]);
  free (rules);
  migrate_project_free (&proj);
  return status;
}
