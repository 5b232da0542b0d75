/* SPDX-License-Identifier: MIT */
/* tools/compare/measure.c: the run plan.

   Owns: what is run, in which order, and which figure each run gives.
   At each scale, in a directory of its own:

   1. Each back end dumps once (warm-up; its artifact is the one every
      start of this scale uses); the embedded executable is made from
      the pdump image (its sizes are measured then: they do not vary).
   2. Each mode starts once with the digest words; the digests must all
      equal the cold start's.  When one differs, both sides write a heap
      dump and the first divergence is printed; nothing is timed.
   3. RUNS rounds of dumps, unexec then pdump, each to a scratch file
      that is deleted at once: dump time, dump step, peak RSS, size.
   4. RUNS rounds of starts, each round cold, unexec, pdump timed with
      the batch words only, then the same three with the stats words
      (private dirty memory, digest cost, the pdump loader's figures).
      Alternating the modes inside a round spreads machine noise over all
      of them alike; the dumps are done and synced before, so their
      write-back does not land on the starts.
   5. The physical floor of the pdump load (when the host has one).
   6. At the memory scales, the memory section (memory.c): --procs
      idle starts of each mode at once, one mode after the other.

   The base-mode rows (pdump-fixed, ...) are starts from the pdump image
   with the host's base-env variable set to their base mode (`pdump'
   itself: random); they run in the rounds like any mode.  A start whose
   base mode the host refuses (it fails with the variable and succeeds
   without it) leaves its row unmeasured and marked refused, and the
   other rows go on.

   Must not: print results (table.c) or decide exit statuses beyond
   `a command failed' and `digests differ'.  */

#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"

/* Indexed by the mode a row's commands come from (source_of).  */
static const enum compare_step start_step[COMPARE_MODE_COUNT] = {
  [COMPARE_COLD] = COMPARE_STEP_COLD, [COMPARE_UNEXEC] = COMPARE_STEP_UNEXEC_START,
  [COMPARE_PDUMP] = COMPARE_STEP_PDUMP_START, [COMPARE_EMBEDDED] = COMPARE_STEP_EMBEDDED_START,
};
/* The modes that dump (the embedded executable is made, not dumped;
   the base-mode rows use pdump's image).  */
static const enum compare_step dump_step[COMPARE_MODE_COUNT] = {
  [COMPARE_COLD] = COMPARE_STEP_COUNT, [COMPARE_UNEXEC] = COMPARE_STEP_UNEXEC_DUMP,
  [COMPARE_PDUMP] = COMPARE_STEP_PDUMP_DUMP, [COMPARE_EMBEDDED] = COMPARE_STEP_COUNT,
};
static const char *const artifact_name[COMPARE_MODE_COUNT] = {
  [COMPARE_UNEXEC] = "dumped", [COMPARE_PDUMP] = "image.pdmp", [COMPARE_EMBEDDED] = "embedded",
};
static const char *const scratch_name[COMPARE_MODE_COUNT] = {
  [COMPARE_UNEXEC] = "scratch-dumped", [COMPARE_PDUMP] = "scratch.pdmp",
};

/* The mode whose commands, build and artifact MODE's row uses.  */
static int
source_of (int mode)
{
  return compare_base_row_p (mode) ? COMPARE_PDUMP : mode;
}

/* Whether MODE's starts run the pdump loader (and report its figures).  */
static bool
loads_image (int mode)
{
  return source_of (mode) == COMPARE_PDUMP || mode == COMPARE_EMBEDDED;
}

struct scale_run
{
  struct compare_run *run;
  const struct compare_host *host;
  struct compare_scale *out;
  char dir[PATH_MAX];
  char artifact[COMPARE_MODE_COUNT][PATH_MAX];
  char *env[COMPARE_MODE_COUNT];       /* a start's `VAR=base mode' (and
                                          ` VAR=cold check'), or NULL */
  bool refused[COMPARE_MODE_COUNT];    /* its base mode refused: not measured */
  struct compare_samples samples[COMPARE_MODE_COUNT][COMPARE_FIG_COUNT];
};

static void
progress (const struct scale_run *s, const char *what)
{
  if (!s->run->opt->quiet)
    fprintf (stderr, "dumper-compare: scale %ld: %s\n", s->out->scale, what);
}

/* BUF (PATH_MAX bytes) = the scale's directory / NAME.  main.c keeps
   the work directory's name short enough for every name used here.  */
static void
path_in (const struct scale_run *s, char *buf, const char *name)
{
  int n = snprintf (buf, PATH_MAX, "%s/%s", s->dir, name);
  if (n < 0 || n >= PATH_MAX)
    abort ();
}

/* The last line of the file at PATH into BUF ("" when none).  */
static void
last_line (const char *path, char *buf, size_t size)
{
  char *text = compare_read_file (path, NULL);
  buf[0] = '\0';
  if (text == NULL)
    return;
  size_t len = strlen (text);
  while (len > 0 && text[len - 1] == '\n')
    text[--len] = '\0';
  const char *start = strrchr (text, '\n');
  snprintf (buf, size, "%s", start ? start + 1 : text);
  free (text);
}

/* Print that WHAT failed (HOW), the command (with ENV before it) and the
   end of its error output (ERR_PATH, unless NULL or "").  */
static void
report_failure_how (char **argv, const char *env, const char *how, const char *err_path,
                    const char *what, const struct scale_run *s)
{
  compare_error ("scale %ld: %s failed (%s):", s->out->scale, what, how);
  fputs ("   ", stderr);
  if (env)
    fprintf (stderr, " %s", env);
  for (char **a = argv; *a; a++)
    fprintf (stderr, " %s", *a);
  fputc ('\n', stderr);
  char *text = err_path && *err_path ? compare_read_file (err_path, NULL) : NULL;
  if (text && *text)
    {
      /* The last 12 lines say why.  */
      size_t len = strlen (text);
      const char *tail = text + len;
      for (int lines = 0; tail > text && lines < 13; )
        if (*--tail == '\n')
          lines++;
      if (*tail == '\n')
        tail++;
      fprintf (stderr, "  its error output ends:\n%s%s", tail,
               text[len - 1] == '\n' ? "" : "\n");
    }
  free (text);
}

static void
report_failure (char **argv, const char *env, const struct compare_proc *p,
                const char *err_path, const char *what, const struct scale_run *s)
{
  char how[96];
  compare_proc_describe (p, how, sizeof how);
  report_failure_how (argv, env, how, err_path, what, s);
}

/* What a run of a step needs besides the step: the words of EXTRAS,
   the placeholders' artifact and file, and the name of its output
   files (LABEL.out, LABEL.err in the scale's directory).  */
struct step_run
{
  const enum compare_step *extras;
  const char *artifact, *file, *label;
};

/* Run STEP of MODE once, with MODE's base-mode variable when STEP is a
   pdump start and ENV is true.  The path of its output in OUT_PATH
   (PATH_MAX bytes) unless it is NULL, of its error output in ERR_PATH
   (PATH_MAX bytes).  Returns 0 (P says how it ended), or
   COMPARE_EXIT_MODE_FAILED when it could not be started (reported).  */
static int
spawn_step (struct scale_run *s, int mode, enum compare_step step, const struct step_run *r,
            bool env, struct compare_proc *p, char *out_path, char *err_path)
{
  char own_out[PATH_MAX], name[128];
  if (out_path == NULL)
    out_path = own_out;
  snprintf (name, sizeof name, "%s.out", r->label);
  path_in (s, out_path, name);
  snprintf (name, sizeof name, "%s.err", r->label);
  path_in (s, err_path, name);
  struct compare_vars v = { s->out->scale, s->run->opt->runs, r->artifact, r->file };
  char **argv = compare_host_argv (s->host, step, r->extras, &v);
  const char *env_set = env && step == COMPARE_STEP_PDUMP_START ? s->env[mode] : NULL;
  int st = 0;
  if (compare_spawn (argv, env_set, out_path, err_path, p) != 0)
    {
      compare_error ("scale %ld: cannot run %s: %s", s->out->scale, argv[0], strerror (errno));
      st = COMPARE_EXIT_MODE_FAILED;
    }
  compare_argv_free (argv);
  return st;
}

/* Report that STEP of MODE, run as R, ended as P.  */
static void
report_step_failure (struct scale_run *s, int mode, enum compare_step step,
                     const struct step_run *r, const struct compare_proc *p,
                     const char *err_path)
{
  struct compare_vars v = { s->out->scale, s->run->opt->runs, r->artifact, r->file };
  char **argv = compare_host_argv (s->host, step, r->extras, &v);
  report_failure (argv, step == COMPARE_STEP_PDUMP_START ? s->env[mode] : NULL, p, err_path,
                  r->label, s);
  compare_argv_free (argv);
}

/* Run STEP of MODE (with the words of EXTRAS) once; its output goes to
   LABEL.out and LABEL.err in the scale's directory, and the former's
   path to OUT_PATH (PATH_MAX bytes) unless it is NULL.  Returns 0 or
   COMPARE_EXIT_MODE_FAILED (reported).  */
static int
run_step (struct scale_run *s, int mode, enum compare_step step,
          const enum compare_step *extras, const char *artifact, const char *file,
          const char *label, struct compare_proc *p, char *out_path)
{
  const struct step_run r = { extras, artifact, file, label };
  char err_path[PATH_MAX];
  int st = spawn_step (s, mode, step, &r, true, p, out_path, err_path);
  if (st == 0 && !compare_proc_ok (p))
    {
      report_step_failure (s, mode, step, &r, p, err_path);
      st = COMPARE_EXIT_MODE_FAILED;
    }
  return st;
}

static double
file_size (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 ? (double) st.st_size : -1;
}

static void
sample (struct scale_run *s, int mode, enum compare_figure f, double value)
{
  compare_samples_add (&s->samples[mode][f], value);
}

/* The sizes of an executable holding a dump (unexec's, or the embedded
   one): the file OUTPUT, the executable it was made from (the path of
   INPUT_STEP, when the host names one) and what the dump added.  */
static void
sample_exe_sizes (struct scale_run *s, int mode, const char *output,
                  enum compare_step input_step)
{
  double size = file_size (output);
  struct compare_vars vars = { s->out->scale, s->run->opt->runs, output, NULL };
  char *input = compare_host_path (s->host, input_step, &vars);
  double input_size = input ? file_size (input) : -1;
  free (input);
  sample (s, mode, COMPARE_FIG_EXE_BYTES, size);
  if (input_size >= 0)
    sample (s, mode, COMPARE_FIG_INPUT_BYTES, input_size);
  sample (s, mode, COMPARE_FIG_ARTIFACT_BYTES, input_size >= 0 ? size - input_size : size);
}

/* A dump of MODE to OUTPUT.  When SAMPLED, its figures are recorded.  */
static int
dump_once (struct scale_run *s, int mode, const char *output, bool sampled)
{
  static const enum compare_step extras[] = { COMPARE_STEP_STATS, COMPARE_STEP_COUNT };
  struct compare_proc p;
  char label[64], out_path[PATH_MAX];
  snprintf (label, sizeof label, "%s-dump", compare_mode_names[mode]);
  int st = run_step (s, mode, dump_step[mode], extras, output, NULL, label, &p, out_path);
  if (st || !sampled)
    return st;
  sample (s, mode, COMPARE_FIG_DUMP_MS, p.seconds * 1e3);
  sample (s, mode, COMPARE_FIG_DUMP_RSS_KB, (double) p.max_rss_kb);
  struct compare_kv kv;
  double v;
  if (compare_kv_read (&kv, out_path))
    {
      if (compare_kv_number (&kv, "dump-seconds", &v))
        sample (s, mode, COMPARE_FIG_DUMP_STEP_MS, v * 1e3);
      if (compare_kv_number (&kv, "write-seconds", &v))
        sample (s, mode, COMPARE_FIG_WRITE_MS, v * 1e3);
      compare_kv_free (&kv);
    }
  if (mode == COMPARE_UNEXEC)
    sample_exe_sizes (s, mode, output, COMPARE_STEP_UNEXEC_INPUT);
  else
    sample (s, mode, COMPARE_FIG_ARTIFACT_BYTES, file_size (output));
  return 0;
}

/* Make the embedded executable from the pdump image and record the
   sizes: the whole file, the executable it was made from, and what the
   image added.  */
static int
embed_once (struct scale_run *s)
{
  struct compare_proc p;
  int mode = COMPARE_EMBEDDED;
  int st = run_step (s, mode, COMPARE_STEP_EMBED, NULL, s->artifact[mode],
                     s->artifact[COMPARE_PDUMP], "embedded-embed", &p, NULL);
  if (st == 0)
    sample_exe_sizes (s, mode, s->artifact[mode], COMPARE_STEP_EMBEDDED_INPUT);
  return st;
}

/* The first word of the first line of PATH, into BUF.  */
static bool
first_word (const char *path, char *buf, size_t size)
{
  char *text = compare_read_file (path, NULL);
  if (text == NULL)
    return false;
  size_t n = strcspn (text, " \t\r\n");
  bool ok = n > 0 && n < size;
  if (ok)
    {
      memcpy (buf, text, n);
      buf[n] = '\0';
    }
  free (text);
  return ok;
}

/* Start MODE with the heap-dump words, writing NAME in the scale dir.  */
static int
heap_dump (struct scale_run *s, int mode, char *path)
{
  static const enum compare_step extras[] = { COMPARE_STEP_HEAP_DUMP, COMPARE_STEP_BATCH,
                                              COMPARE_STEP_COUNT };
  char name[64], label[64];
  snprintf (name, sizeof name, "heap-%s.txt", compare_mode_names[mode]);
  snprintf (label, sizeof label, "%s-heap-dump", compare_mode_names[mode]);
  path_in (s, path, name);
  struct compare_proc p;
  return run_step (s, mode, start_step[source_of (mode)], extras,
                   s->artifact[source_of (mode)], path, label, &p, NULL);
}

/* The digests differ: show where, for each mode that differs.  */
static int
report_divergence (struct scale_run *s)
{
  const struct compare_scale *o = s->out;
  fflush (stderr);
  printf ("scale %ld: the heap digests differ:\n", o->scale);
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    if (s->host->enabled[m] && !s->refused[m])
      printf ("  %-11s %s\n", compare_mode_names[m], o->digest[m]);
  if (s->host->steps[COMPARE_STEP_HEAP_DUMP].count == 0)
    {
      printf ("(the host has no heap-dump command, so no path to the difference)\n");
      return COMPARE_EXIT_DIVERGED;
    }
  char cold_path[PATH_MAX];
  int st = heap_dump (s, COMPARE_COLD, cold_path);
  if (st)
    return st;
  for (int m = COMPARE_UNEXEC; m < COMPARE_MODE_COUNT; m++)
    {
      if (!s->host->enabled[m] || s->refused[m]
          || strcmp (o->digest[m], o->digest[COMPARE_COLD]) == 0)
        continue;
      char path[PATH_MAX];
      if ((st = heap_dump (s, m, path)) != 0)
        return st;
      printf ("\n");
      int d = compare_heap_diff (cold_path, "cold", path, compare_mode_names[m], stdout);
      if (d < 0)
        return COMPARE_EXIT_NOINPUT;
      if (d == 0)
        printf ("the heap dumps of cold and %s are identical, but their digests are not:\n"
                "the host's digest and heap dump do not walk the same heap\n",
                compare_mode_names[m]);
    }
  if (s->run->opt->work_dir)
    printf ("\nthe heap dumps are in %s\n", s->dir);
  else
    printf ("\n(run with --work-dir DIR to keep the heap dumps)\n");
  return COMPARE_EXIT_DIVERGED;
}

/* What to do with one start's result: its mode, how it ran and the
   file holding its standard output.  Returns 0 or an exit status.  */
typedef int start_result (struct scale_run *s, int mode, const struct compare_proc *p,
                          const char *out_path);

/* A start of MODE with its base-mode variable failed (P, its error
   output at ERR_PATH).  When the same start without the variable
   succeeds, the host refused the base mode: record that (the row goes
   unmeasured) and return true.  */
static bool
base_mode_refused (struct scale_run *s, int mode, const struct step_run *r,
                   const struct compare_proc *p, const char *err_path)
{
  if (s->env[mode] == NULL)
    return false;
  char label[96], err_without[PATH_MAX];
  snprintf (label, sizeof label, "%s-without-base", r->label);
  struct step_run without = *r;
  without.label = label;
  struct compare_proc q;
  if (spawn_step (s, mode, COMPARE_STEP_PDUMP_START, &without, false, &q, NULL, err_without)
      != 0 || !compare_proc_ok (&q))
    return false;
  char how[96], line[160];
  compare_proc_describe (p, how, sizeof how);
  last_line (err_path, line, sizeof line);
  snprintf (s->out->base[mode].refused, sizeof s->out->base[mode].refused, "%s%s%s", how,
            line[0] ? ": " : "", line);
  s->refused[mode] = true;
  compare_error ("scale %ld: %s: the host refused %s (%s); the row is not measured",
                 s->out->scale, compare_mode_names[mode], s->env[mode],
                 s->out->base[mode].refused);
  return true;
}

/* Start each enabled mode once, in mode order, with the words of EXTRAS
   (output files MODE-WHAT.*), and hand each result to THEN.  */
static int
start_each (struct scale_run *s, const enum compare_step *extras, const char *what,
            start_result *then)
{
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    {
      if (!s->host->enabled[m] || s->refused[m])
        continue;
      char label[64], out_path[PATH_MAX], err_path[PATH_MAX];
      snprintf (label, sizeof label, "%s-%s", compare_mode_names[m], what);
      const struct step_run r = { extras, s->artifact[source_of (m)], NULL, label };
      enum compare_step step = start_step[source_of (m)];
      struct compare_proc p;
      int st = spawn_step (s, m, step, &r, true, &p, out_path, err_path);
      if (st == 0 && !compare_proc_ok (&p))
        {
          if (base_mode_refused (s, m, &r, &p, err_path))
            continue;
          report_step_failure (s, m, step, &r, &p, err_path);
          st = COMPARE_EXIT_MODE_FAILED;
        }
      if (st == 0)
        st = then (s, m, &p, out_path);
      if (st)
        return st;
    }
  return 0;
}

static int
read_digest (struct scale_run *s, int mode, const struct compare_proc *p, const char *out_path)
{
  (void) p;
  if (first_word (out_path, s->out->digest[mode], sizeof s->out->digest[mode]))
    return 0;
  compare_error ("scale %ld: the %s start printed no heap digest (see %s)", s->out->scale,
                 compare_mode_names[mode], out_path);
  return COMPARE_EXIT_MODE_FAILED;
}

static int
check_digests (struct scale_run *s)
{
  static const enum compare_step extras[] = { COMPARE_STEP_DIGEST, COMPARE_STEP_BATCH,
                                              COMPARE_STEP_COUNT };
  int st = start_each (s, extras, "digest", read_digest);
  if (st)
    return st;
  for (int m = COMPARE_UNEXEC; m < COMPARE_MODE_COUNT; m++)
    if (s->host->enabled[m] && !s->refused[m]
        && strcmp (s->out->digest[m], s->out->digest[COMPARE_COLD]) != 0)
      return report_divergence (s);
  return 0;
}

/* The figures of a start's --stats output.  */
static int
sample_stats (struct scale_run *s, int mode, const struct compare_proc *p, const char *path)
{
  (void) p;
  struct compare_kv kv;
  if (!compare_kv_read (&kv, path))
    return 0;
  static const struct { const char *key; enum compare_figure fig; double scale; } keys[] = {
    { "private-dirty-kb", COMPARE_FIG_PRIVATE_DIRTY_KB, 1 },
    { "digest-seconds", COMPARE_FIG_DIGEST_MS, 1e3 },
    { "heap-objects", COMPARE_FIG_HEAP_OBJECTS, 1 },
    { "heap-bytes", COMPARE_FIG_HEAP_BYTES, 1 },
    { "pdump-open-seconds", COMPARE_FIG_LOAD_OPEN_MS, 1e3 },
    { "pdump-map-seconds", COMPARE_FIG_LOAD_MAP_MS, 1e3 },
    { "pdump-verify-seconds", COMPARE_FIG_LOAD_VERIFY_MS, 1e3 },
    { "pdump-relocate-seconds", COMPARE_FIG_LOAD_RELOCATE_MS, 1e3 },
    { "pdump-restore-seconds", COMPARE_FIG_LOAD_RESTORE_MS, 1e3 },
    { "pdump-hooks-seconds", COMPARE_FIG_LOAD_HOOKS_MS, 1e3 },
    { "pdump-total-seconds", COMPARE_FIG_LOAD_TOTAL_MS, 1e3 },
    { "pdump-minor-faults", COMPARE_FIG_LOAD_FAULTS, 1 },
    { "pdump-hot-size", COMPARE_FIG_HOT_BYTES, 1 },
    { "pdump-cold-size", COMPARE_FIG_COLD_BYTES, 1 },
    { "pdump-discardable-size", COMPARE_FIG_DISCARDABLE_BYTES, 1 },
  };
  double v;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if ((loads_image (mode) || strncmp (keys[i].key, "pdump-", 6) != 0)
        && compare_kv_number (&kv, keys[i].key, &v))
      sample (s, mode, keys[i].fig, v * keys[i].scale);
  double image_relocs, exe_relocs, relocate;
  if (loads_image (mode) && compare_kv_number (&kv, "pdump-image-relocs", &image_relocs)
      && compare_kv_number (&kv, "pdump-exe-relocs", &exe_relocs))
    {
      double relocs = image_relocs + exe_relocs;
      sample (s, mode, COMPARE_FIG_RELOCS, relocs);
      if (relocs > 0 && compare_kv_number (&kv, "pdump-relocate-seconds", &relocate))
        sample (s, mode, COMPARE_FIG_NS_PER_RELOC, relocate * 1e9 / relocs);
    }
  const char *method = compare_kv_get (&kv, "pdump-method");
  if (mode == COMPARE_PDUMP && method)
    snprintf (s->out->load_method, sizeof s->out->load_method, "%s", method);
  struct compare_base_info *b = &s->out->base[mode];
  if (b->asked[0])
    {
      /* What the host says it did (doc/compare.md, "Base modes").  A
         fallback in any run is kept, with its reason.  */
      const char *reported = compare_kv_get (&kv, "pdump-base-mode");
      const char *placement = compare_kv_get (&kv, "pdump-placement");
      const char *reason = compare_kv_get (&kv, "pdump-placement-reason");
      bool fallback = placement && strcmp (placement, "fallback") == 0;
      b->stats_runs++;
      if (method)
        snprintf (b->method, sizeof b->method, "%s", method);
      b->fallbacks += fallback;
      if (reported)
        snprintf (b->reported, sizeof b->reported, "%s", reported);
      if (placement && (fallback || b->fallbacks == 0))
        {
          snprintf (b->placement, sizeof b->placement, "%s", placement);
          snprintf (b->reason, sizeof b->reason, "%s", reason ? reason : "");
        }
    }
  compare_kv_free (&kv);
  return 0;
}

static int
sample_start (struct scale_run *s, int mode, const struct compare_proc *p,
              const char *out_path)
{
  (void) out_path;
  sample (s, mode, COMPARE_FIG_START_MS, p->seconds * 1e3);
  sample (s, mode, COMPARE_FIG_PEAK_RSS_KB, (double) p->max_rss_kb);
  sample (s, mode, COMPARE_FIG_MINOR_FAULTS, (double) p->minor_faults);
  return 0;
}

static int
start_rounds (struct scale_run *s)
{
  static const enum compare_step timed[] = { COMPARE_STEP_BATCH, COMPARE_STEP_COUNT };
  static const enum compare_step stats[] = { COMPARE_STEP_STATS, COMPARE_STEP_BATCH,
                                             COMPARE_STEP_COUNT };
  bool has_stats = s->host->steps[COMPARE_STEP_STATS].count > 0;
  for (int r = 0; r < s->run->opt->runs; r++)
    {
      int st = start_each (s, timed, "start", sample_start);
      if (st == 0 && has_stats)
        st = start_each (s, stats, "stats", sample_stats);
      if (st)
        return st;
    }
  return 0;
}

/* bench/pdump-floor's lines: "method median min max pages".  */
static int
measure_floor (struct scale_run *s)
{
  if (!s->host->enabled[COMPARE_PDUMP] || s->host->steps[COMPARE_STEP_PDUMP_FLOOR].count == 0)
    return 0;
  struct compare_proc p;
  char path[PATH_MAX];
  int st = run_step (s, COMPARE_PDUMP, COMPARE_STEP_PDUMP_FLOOR, NULL,
                     s->artifact[COMPARE_PDUMP], NULL, "pdump-floor", &p, path);
  if (st)
    return st;
  char *text = compare_read_file (path, NULL);
  for (char *line = text; line && *line; )
    {
      char name[32];
      double median, min, max;
      if (sscanf (line, "%31s %lf %lf %lf", name, &median, &min, &max) == 4)
        {
          struct compare_stat stat = { median, min, max, s->run->opt->runs, 0, false };
          if (strcmp (name, "map-touch") == 0)
            s->out->fig[COMPARE_PDUMP][COMPARE_FIG_FLOOR_MAP_TOUCH_MS] = stat;
          else if (strcmp (name, "read-huge") == 0)
            s->out->fig[COMPARE_PDUMP][COMPARE_FIG_FLOOR_READ_HUGE_MS] = stat;
        }
      char *end = strchr (line, '\n');
      line = end ? end + 1 : NULL;
    }
  free (text);
  return 0;
}

/* The memory section of MODE: --procs idle starts at once.  */
static int
memory_of (struct scale_run *s, int mode)
{
  static const enum compare_step extras[] = { COMPARE_STEP_IDLE_ARGS, COMPARE_STEP_COUNT };
  int src = source_of (mode);
  struct compare_vars v = { s->out->scale, s->run->opt->runs, s->artifact[src], NULL };
  char **argv = compare_host_argv (s->host, start_step[src], extras, &v);
  char *probe = compare_host_line (s->host, COMPARE_STEP_IDLE, &v);
  char prefix[PATH_MAX], name[64];
  snprintf (name, sizeof name, "%s-idle", compare_mode_names[mode]);
  path_in (s, prefix, name);
  const char *env = start_step[src] == COMPARE_STEP_PDUMP_START ? s->env[mode] : NULL;
  const struct compare_memory_request req = { argv, env, probe, s->run->opt->procs, prefix };
  struct compare_memory_failure failure;
  int st = 0;
  if (compare_memory_sample (&req, &s->samples[mode][COMPARE_FIG_MEM_DIRTY_KB],
                             &s->samples[mode][COMPARE_FIG_MEM_PSS_KB], &failure) != 0)
    {
      char what[96];
      snprintf (what, sizeof what, "the memory section of %s", compare_mode_names[mode]);
      report_failure_how (argv, env, failure.why, failure.err_path, what, s);
      st = COMPARE_EXIT_MODE_FAILED;
    }
  free (probe);
  compare_argv_free (argv);
  return st;
}

/* Whether the memory section runs at this scale.  */
static bool
memory_scale_p (const struct scale_run *s)
{
  const struct compare_options *o = s->run->opt;
  if (o->procs == 0 || s->host->steps[COMPARE_STEP_IDLE].count == 0)
    return false;
  for (size_t i = 0; i < o->memory_scale_count; i++)
    if (o->memory_scales[i] == s->out->scale)
      return true;
  return false;
}

static int
measure_memory (struct scale_run *s)
{
  if (!memory_scale_p (s))
    return 0;
  char what[96];
  snprintf (what, sizeof what, "memory: %d processes at once per mode", s->run->opt->procs);
  progress (s, what);
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    if (s->host->enabled[m] && !s->refused[m])
      {
        int st = memory_of (s, m);
        if (st)
          return st;
      }
  return 0;
}

/* The `VAR=VALUE' of each row with a base mode, when the host names its
   base-mode variable, followed by ` COLDVAR=VALUE' for a row that sets
   COLD's verification (host.c enables such a row only when the host
   names that variable).  */
static void
set_base_env (struct scale_run *s)
{
  struct compare_vars v = { s->out->scale, s->run->opt->runs, NULL, NULL };
  char *var = compare_host_line (s->host, COMPARE_STEP_BASE_ENV, &v);
  if (var == NULL)
    return;
  char *cold_var = compare_host_line (s->host, COMPARE_STEP_COLD_ENV, &v);
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    {
      const char *value = compare_base_value (m);
      if (value == NULL || !s->host->enabled[m])
        continue;
      const char *cold = cold_var ? compare_base_cold (m) : NULL;
      size_t size = strlen (var) + strlen (value) + 2
                    + (cold ? strlen (cold_var) + strlen (cold) + 2 : 0);
      s->env[m] = tool_xmalloc (size);
      snprintf (s->env[m], size, "%s=%s%s%s%s%s", var, value, cold ? " " : "",
                cold ? cold_var : "", cold ? "=" : "", cold ? cold : "");
      snprintf (s->out->base[m].asked, sizeof s->out->base[m].asked, "%s", value);
    }
  free (cold_var);
  free (var);
}

static int
measure_scale (struct scale_run *s)
{
  if (mkdir (s->dir, 0755) != 0 && errno != EEXIST)
    {
      compare_error ("cannot create %s: %s", s->dir, strerror (errno));
      return COMPARE_EXIT_CANTCREAT;
    }
  int st;
  set_base_env (s);
  progress (s, "dumping");
  for (int m = COMPARE_UNEXEC; m < COMPARE_MODE_COUNT; m++)
    if (s->host->enabled[m] && !compare_base_row_p (m))
      {
        path_in (s, s->artifact[m], artifact_name[m]);
        st = dump_step[m] != COMPARE_STEP_COUNT ? dump_once (s, m, s->artifact[m], false)
                                                : embed_once (s);
        if (st != 0)
          return st;
      }
  progress (s, "checking the heap digests");
  if ((st = check_digests (s)) != 0)
    return st;
  char what[64];
  snprintf (what, sizeof what, "%d rounds of dumps", s->run->opt->runs);
  progress (s, what);
  for (int r = 0; r < s->run->opt->runs; r++)
    for (int m = COMPARE_UNEXEC; m < COMPARE_MODE_COUNT; m++)
      if (s->host->enabled[m] && !compare_base_row_p (m) && dump_step[m] != COMPARE_STEP_COUNT)
        {
          char scratch[PATH_MAX];
          path_in (s, scratch, scratch_name[m]);
          st = dump_once (s, m, scratch, true);
          unlink (scratch);
          if (st)
            return st;
        }
  sync ();
  snprintf (what, sizeof what, "%d rounds of starts", s->run->opt->runs);
  progress (s, what);
  if ((st = start_rounds (s)) != 0)
    return st;
  if (s->host->enabled[COMPARE_PDUMP] && s->host->steps[COMPARE_STEP_PDUMP_FLOOR].count)
    progress (s, "the physical floor of the image load");
  if ((st = measure_floor (s)) != 0)
    return st;
  return measure_memory (s);
}

/* A per-user runtime directory of the run's own for its children: a
   base mode that keeps a per-boot cache there (boot) starts with none,
   as on a fresh boot, whatever the caller's XDG_RUNTIME_DIR holds, and
   leaves nothing behind it.  Made by mkdtemp: mode 0700, the user's.  */
static int
private_runtime_dir (const struct compare_run *run)
{
  char dir[PATH_MAX];
  snprintf (dir, sizeof dir, "%s/runtime.XXXXXX", run->work_dir);
  if (mkdtemp (dir) == NULL || setenv ("XDG_RUNTIME_DIR", dir, 1) != 0)
    {
      compare_error ("cannot create a runtime directory %s: %s", dir, strerror (errno));
      return COMPARE_EXIT_OSERR;
    }
  return 0;
}

int
compare_measure (struct compare_run *run, struct compare_results *r)
{
  memset (r, 0, sizeof *r);
  int st = private_runtime_dir (run);
  if (st)
    return st;
  snprintf (r->host, sizeof r->host, "%s", run->host->name);
  r->runs = run->opt->runs;
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    r->modes[m] = run->host->enabled[m];
  for (size_t i = 0; i < run->opt->scale_count; i++)
    {
      struct scale_run *s = calloc (1, sizeof *s);
      if (s == NULL)
        return COMPARE_EXIT_OSERR;
      s->run = run;
      s->host = run->host;
      s->out = &r->scales[r->scale_count++];
      s->out->scale = run->opt->scales[i];
      int n = snprintf (s->dir, sizeof s->dir, "%s/scale-%ld", run->work_dir, s->out->scale);
      if (n < 0 || (size_t) n >= sizeof s->dir - COMPARE_NAME_MAX)
        abort ();
      st = measure_scale (s);
      for (int m = 0; m < COMPARE_MODE_COUNT; m++)
        for (int f = 0; f < COMPARE_FIG_COUNT; f++)
          {
            if (s->samples[m][f].count)
              s->out->fig[m][f] = compare_samples_stat (&s->samples[m][f]);
            s->out->fig[m][f].has_p99 = s->out->fig[m][f].has_p99 && compare_figures[f].tail;
            compare_stat_round (&s->out->fig[m][f], compare_figures[f].decimals);
            compare_samples_free (&s->samples[m][f]);
          }
      for (int m = 0; m < COMPARE_MODE_COUNT; m++)
        free (s->env[m]);
      free (s);
      if (st)
        return st;
    }
  return 0;
}
