/* SPDX-License-Identifier: MIT */
/* tools/compare/main.c: dumper-compare, the regression comparison of all
   modes.

   Owns: the order of the work and the exit status.  Parse the command
   line; read the baseline first (a malformed one should not cost a whole
   measurement); take the results from --load or measure them in a work
   directory; print the tables; write the JSON and the chart; compare
   with the baseline.  A temporary work directory is removed at exit,
   also after an interruption.

   Exit statuses (doc/man/dumper-compare.1): 0 all modes agree and
   nothing regressed; 2 the heap digests differ; 3 a figure regressed
   against the baseline; 4 a mode's command failed (also: the host
   refused a base mode, after the tables); 64 usage; 65 a
   malformed input file; 66 a missing build, program or file; 69 no
   gnuplot; 71 a system error; 73 an output file cannot be written.  */

#include <config.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"

static char temp_dir[PATH_MAX];

static int
remove_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void) st;
  (void) flag;
  (void) ftw;
  remove (path);
  return 0;
}

static void
remove_temp_dir (void)
{
  if (temp_dir[0])
    nftw (temp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  temp_dir[0] = '\0';
}

static void
on_signal (int sig)
{
  compare_interrupted = sig;
}

/* The directory for artifacts and logs: --work-dir, or a new temporary
   one (removed at exit).  */
static int
make_work_dir (const struct compare_options *o, char **out)
{
  if (o->work_dir && strlen (o->work_dir) > PATH_MAX - 2 * COMPARE_NAME_MAX)
    {
      compare_error ("--work-dir: the name is too long");
      return COMPARE_EXIT_USAGE;
    }
  if (o->work_dir)
    {
      if (mkdir (o->work_dir, 0755) != 0 && errno != EEXIST)
        {
          compare_error ("--work-dir %s: %s", o->work_dir, strerror (errno));
          return COMPARE_EXIT_CANTCREAT;
        }
      *out = (char *) o->work_dir;
      return 0;
    }
  const char *tmp = getenv ("TMPDIR");
  if (tmp == NULL || *tmp == '\0' || strlen (tmp) > PATH_MAX - 2 * COMPARE_NAME_MAX)
    tmp = "/tmp";
  snprintf (temp_dir, sizeof temp_dir, "%s/dumper-compare.XXXXXX", tmp);
  if (mkdtemp (temp_dir) == NULL)
    {
      compare_error ("cannot create a temporary directory %s: %s", temp_dir, strerror (errno));
      temp_dir[0] = '\0';
      return COMPARE_EXIT_OSERR;
    }
  *out = temp_dir;
  return 0;
}

static int
measure (const struct compare_options *o, struct compare_results *r, char **work_dir)
{
  struct compare_host host;
  int st = compare_host_load (&host, o);
  if (st == 0)
    st = make_work_dir (o, work_dir);
  if (st == 0)
    {
      struct compare_run run = { o, &host, *work_dir };
      st = compare_measure (&run, r);
      if (compare_interrupted)
        {
          compare_error ("interrupted by signal %d", (int) compare_interrupted);
          st = 128 + compare_interrupted;
        }
    }
  compare_host_free (&host);
  return st;
}

static int
run (const struct compare_options *o)
{
  static struct compare_results results, baseline;
  int st;
  if (o->baseline_path && (st = compare_json_load (o->baseline_path, &baseline)) != 0)
    return st;
  char *work_dir = NULL;
  if (o->load_path)
    st = compare_json_load (o->load_path, &results);
  else
    st = measure (o, &results, &work_dir);
  if (st)
    return st;
  compare_print_tables (stdout, &results);
  if (o->json_path && (st = compare_json_write (o->json_path, &results)) != 0)
    return st;
  if (o->plot_path)
    {
      if (work_dir == NULL && (st = make_work_dir (o, &work_dir)) != 0)
        return st;
      if ((st = compare_plot (o->plot_path, &results, work_dir)) != 0)
        return st;
      printf ("\nchart: %s\n", o->plot_path);
    }
  bool regressed = o->baseline_path
                   && compare_baseline (stdout, &results, &baseline, o->threshold_pct,
                                        o->noise_ms) > 0;
  fflush (stdout);
  /* A base mode the host refused is a mode that could not run: its row
     is in the tables, marked, and the status says so.  */
  bool refused = false;
  for (size_t i = 0; i < results.scale_count && !o->load_path; i++)
    for (int m = 0; m < COMPARE_MODE_COUNT; m++)
      {
        const struct compare_base_info *b = &results.scales[i].base[m];
        if (!results.modes[m] || !b->asked[0] || compare_base_honoured (b) != 0)
          continue;
        refused = refused || b->refused[0];
        compare_error ("scale %ld: %s %s base mode %s (see the note under the main table)",
                       results.scales[i].scale, compare_mode_names[m],
                       b->refused[0] ? "was not measured: the host refused"
                                     : "was measured, but not in", b->asked);
      }
  if (refused)
    return COMPARE_EXIT_MODE_FAILED;
  if (regressed)
    {
      compare_error ("figures regressed against %s", o->baseline_path);
      return COMPARE_EXIT_REGRESSION;
    }
  return COMPARE_EXIT_OK;
}

int
main (int argc, char **argv)
{
  struct compare_options o;
  int st = compare_parse_options (argc, argv, &o);
  if (st >= 0)
    return st;
  if (o.print_host)
    {
      fputs (compare_builtin_host, stdout);
      return COMPARE_EXIT_OK;
    }
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  st = run (&o);
  remove_temp_dir ();
  fflush (stdout);
  return st;
}
