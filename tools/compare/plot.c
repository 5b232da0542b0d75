/* SPDX-License-Identifier: MIT */
/* tools/compare/plot.c: the chart, drawn by gnuplot.

   Owns: a gnuplot script with the data inline and running it.  Two
   panels side by side: start-up time per mode (the pdump base-mode rows
   included) against the loadup scale,
   and what the dumps cost on disk (the image, the data unexec added,
   the whole dumped executable), both on log-log axes so the growth of
   each cost reads as a slope.  gnuplot is $GNUPLOT, else `gnuplot' on
   the PATH (Debian: gnuplot-nox).  */

#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* One data block: the scale, then the medians of FIGS (in units of
   DIVISOR); NaN where a figure was not measured.  */
static void
write_block (FILE *f, const char *name, const struct compare_results *r,
             const int *modes, const enum compare_figure *figs, int count, double divisor)
{
  fprintf (f, "$%s << EOD\n", name);
  for (size_t i = 0; i < r->scale_count; i++)
    {
      fprintf (f, "%ld", r->scales[i].scale);
      for (int k = 0; k < count; k++)
        {
          const struct compare_stat *s = &r->scales[i].fig[modes[k]][figs[k]];
          if (s->n && s->median > 0)
            fprintf (f, " %.6g", s->median / divisor);
          else
            fprintf (f, " NaN");
        }
      fputc ('\n', f);
    }
  fprintf (f, "EOD\n");
}

static void
write_script (FILE *f, const char *png, const struct compare_results *r)
{
  /* cold, unexec, pdump, then the base-mode rows that were measured.  */
  int time_modes[COMPARE_MODE_COUNT];
  enum compare_figure time_figs[COMPARE_MODE_COUNT];
  int time_count = 0;
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    if (m <= COMPARE_PDUMP || (compare_base_row_p (m) && r->modes[m]))
      {
        time_modes[time_count] = m;
        time_figs[time_count++] = COMPARE_FIG_START_MS;
      }
  static const int size_modes[] = { COMPARE_PDUMP, COMPARE_UNEXEC, COMPARE_UNEXEC };
  static const enum compare_figure size_figs[] = {
    COMPARE_FIG_ARTIFACT_BYTES, COMPARE_FIG_ARTIFACT_BYTES, COMPARE_FIG_EXE_BYTES,
  };
  fprintf (f, "set terminal pngcairo size 1200,500 font ',10'\nset output '");
  for (const char *p = png; *p; p++)
    fprintf (f, *p == '\'' ? "''" : "%c", *p);
  fprintf (f, "'\n");
  write_block (f, "times", r, time_modes, time_figs, time_count, 1);
  write_block (f, "sizes", r, size_modes, size_figs, 3, 1024 * 1024);
  fprintf (f,
"set multiplot layout 1,2 title 'dumper-compare: %s, median of %d runs'\n"
"set logscale xy\nset grid\nset key top left\nset xlabel 'loadup scale'\n"
"set xtics (", r->host, r->runs);
  for (size_t i = 0; i < r->scale_count; i++)
    fprintf (f, "%s%ld", i ? ", " : "", r->scales[i].scale);
  fprintf (f, ")\n"
"set ylabel 'start-up time (ms)'\nset title 'start-up time per mode'\nplot ");
  for (int k = 0; k < time_count; k++)
    fprintf (f, "%s$times using 1:%d with linespoints title '%s'", k ? ", \\\n     " : "",
             k + 2, compare_mode_names[time_modes[k]]);
  fprintf (f, "\n"
"set ylabel 'size (MiB)'\nset title 'what a dump costs on disk'\n"
"plot $sizes using 1:2 with linespoints title 'pdump image', \\\n"
"     $sizes using 1:3 with linespoints title 'unexec: data added', \\\n"
"     $sizes using 1:4 with linespoints title 'unexec: whole executable'\n"
"unset multiplot\n");
}

int
compare_plot (const char *path, const struct compare_results *r, const char *work_dir)
{
  const char *gnuplot = getenv ("GNUPLOT");
  if (gnuplot == NULL || *gnuplot == '\0')
    gnuplot = "gnuplot";
  char script[PATH_MAX], log[PATH_MAX];
  snprintf (script, sizeof script, "%s/plot.gp", work_dir);
  snprintf (log, sizeof log, "%s/plot.log", work_dir);
  FILE *f = fopen (script, "w");
  if (f == NULL)
    {
      compare_error ("cannot write %s: %s", script, strerror (errno));
      return COMPARE_EXIT_CANTCREAT;
    }
  write_script (f, path, r);
  if (fclose (f) != 0)
    {
      compare_error ("cannot write %s: %s", script, strerror (errno));
      return COMPARE_EXIT_CANTCREAT;
    }
  char *argv[] = { (char *) gnuplot, script, NULL };
  struct compare_proc p;
  if (compare_spawn (argv, NULL, NULL, log, &p) != 0)
    {
      compare_error ("--plot: cannot run %s: %s (install the Debian package gnuplot-nox, or "
                     "set GNUPLOT)", gnuplot, strerror (errno));
      return COMPARE_EXIT_UNAVAILABLE;
    }
  /* POSIX lets posix_spawn succeed and the child exit with status 127
     when the exec fails (qemu-user does so: its vfork is a fork), so
     127 with nothing logged is a gnuplot that could not be run.  */
  if (p.signal == 0 && p.exit_status == 127)
    {
      char *text = compare_read_file (log, NULL);
      bool silent = text == NULL || *text == '\0';
      free (text);
      if (silent)
        {
          compare_error ("--plot: cannot run %s (exit status 127: not found or not "
                         "executable; install the Debian package gnuplot-nox, or "
                         "set GNUPLOT)", gnuplot);
          return COMPARE_EXIT_UNAVAILABLE;
        }
    }
  if (!compare_proc_ok (&p))
    {
      char how[96];
      compare_proc_describe (&p, how, sizeof how);
      char *text = compare_read_file (log, NULL);
      compare_error ("--plot: %s failed (%s) drawing %s:\n%s", gnuplot, how, path,
                     text ? text : "");
      free (text);
      return COMPARE_EXIT_CANTCREAT;
    }
  return 0;
}
