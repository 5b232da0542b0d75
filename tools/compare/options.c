/* SPDX-License-Identifier: MIT */
/* tools/compare/options.c: dumper-compare's command line.

   Owns: parsing argv into struct compare_options, --help, --version and
   the wording of usage errors.  It checks the form of every value (a
   scale is a whole number, a threshold a percentage); whether a
   directory or file exists is for the part that uses it.  */

#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "tools/common/cli.h"

static const char *const program_name = "dumper-compare";

#define COMPARE_BASE_NAME(e, name, key, value, cold) [e] = name,
const char *const compare_mode_names[COMPARE_MODE_COUNT] = {
  [COMPARE_COLD] = "cold", [COMPARE_UNEXEC] = "unexec", [COMPARE_PDUMP] = "pdump",
  COMPARE_BASE_ROWS (COMPARE_BASE_NAME)
  [COMPARE_EMBEDDED] = "embedded",
};
#undef COMPARE_BASE_NAME

/* The base modes with a row of their own, "fixed, ...".  */
static const char *
base_mode_list (void)
{
  static char list[128];
  size_t n = 0;
  list[0] = '\0';
  for (size_t i = 1; i < compare_base_row_count && n < sizeof list; i++)
    n += (size_t) snprintf (list + n, sizeof list - n, "%s%s", i > 1 ? ", " : "",
                            compare_base_rows[i].key);
  return list;
}

static void
usage (FILE *out)
{
  fprintf (out,
"Usage: %s --none DIR [--unexec DIR] [--pdumper DIR] [OPTION]...\n"
"       %s --load FILE [--baseline FILE] [--json FILE] [--plot FILE.png]\n"
"Run a host cold, from an unexec'd executable and from a pdump image; check\n"
"that all three restore the same heap (heap digests); print their start-up\n"
"time, dump time, artifact size, memory and page faults side by side.\n"
"\n"
"Builds (out-of-tree build directories of one source tree):\n"
"  --none DIR          a build configured --with-dumper=none (cold starts)\n"
"  --unexec DIR        a build configured --with-dumper=unexec\n"
"  --pdumper DIR       a build configured --with-dumper=pdumper\n"
"  --host FILE         the host's commands (default: the reference host dlisp);\n"
"                      see doc/compare.md\n"
"  --print-host        print the reference host's description and exit\n"
"Measuring:\n"
"  --scale N[,N...]    loadup scale; repeat for several (default 1)\n"
"  --runs N            runs per figure: median, min and max (default 7)\n"
"  --work-dir DIR      keep dumps, logs and heap dumps in DIR (default: a\n"
"                      temporary directory, removed at exit)\n"
"  --base-mode M[,M]   the pdump base modes measured in rows of their own\n"
"                      beside `pdump' (random): %s (default: all)\n"
"  --procs N           processes at once in the memory section (default 16;\n"
"                      0: no memory section)\n"
"  --memory-scale N[,N]  the scales with a memory section (default: the\n"
"                      scales up to 4)\n"
"  --quiet             no progress messages on stderr\n"
"Results:\n"
"  --json FILE         write every figure as JSON\n"
"  --baseline FILE     compare with an earlier --json; exit 3 when a figure\n"
"                      got worse by more than the threshold\n"
"  --threshold PCT     what counts as worse, in percent (default 10)\n"
"  --noise-ms MS       and for a time, by more than MS ms (default 0.1)\n"
"  --plot FILE.png     draw start-up times and sizes per mode and scale\n"
"  --load FILE         take the results from an earlier --json, measure nothing\n"
"  -h, --help          show this help\n"
"  -V, --version       show the version\n"
"\n"
"Exit status: 0 all agree (and no regression), 2 heap digests differ,\n"
"3 regression against the baseline, 4 a mode's command failed, 64 usage,\n"
"65 malformed input file, 66 missing build or file, 69 no gnuplot,\n"
"71 system error, 73 cannot write output.\n",
           program_name, program_name, base_mode_list ());
}

static struct tool_cli cli = { "dumper-compare", usage, 0 };

/* "dumper-compare: MESSAGE\n" on stderr, after what stdout holds.  */
static void report (const char *fmt, va_list ap)
  __attribute__ ((format (printf, 1, 0)));

static void
report (const char *fmt, va_list ap)
{
  fflush (stdout);
  fprintf (stderr, "%s: ", program_name);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
}

void
compare_error (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  report (fmt, ap);
  va_end (ap);
}

int
compare_usage_error (const char *fmt, ...)
{
  char message[1024];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (message, sizeof message, fmt, ap);
  va_end (ap);
  fflush (stdout);
  return tool_usage_error (&cli, "%s", message);
}

bool
compare_parse_long (const char *text, long min, long max, long *out)
{
  char *end;
  errno = 0;
  long v = strtol (text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min || v > max)
    return false;
  *out = v;
  return true;
}

/* The value of --scale or --memory-scale (OPTION): one scale or a
   comma-separated list, added to SCALES (*COUNT of them).  */
static int
add_scales (long *scales, size_t *count, const char *option, const char *text)
{
  for (const char *p = text; ; )
    {
      size_t len = strcspn (p, ",");
      char token[32];
      long v;
      snprintf (token, sizeof token, "%.*s", (int) (len < sizeof token ? len : sizeof token - 1),
                p);
      if (len >= sizeof token || !compare_parse_long (token, 1, 100000, &v))
        return compare_usage_error ("%s needs whole numbers from 1 to 100000, not `%.*s'",
                                    option, (int) len, p);
      for (size_t i = 0; i < *count; i++)
        if (scales[i] == v)
          return compare_usage_error ("scale %ld given twice", v);
      if (*count == COMPARE_MAX_SCALES)
        return compare_usage_error ("at most %d scales", COMPARE_MAX_SCALES);
      scales[(*count)++] = v;
      if (p[len] == '\0')
        return -1;
      p += len + 1;
    }
}

/* The value of option NAME at argv[*i] (`--name=value' or `--name
   value'); NULL when argv[*i] is not NAME.  *MISSING is set when the
   value is absent.  */
static const char *
option_value (int argc, char **argv, int *i, const char *name, bool *missing)
{
  const char *arg = argv[*i];
  size_t n = strlen (name);
  if (strncmp (arg, name, n) == 0 && arg[n] == '=')
    return arg + n + 1;
  if (strcmp (arg, name) != 0)
    return NULL;
  if (*i + 1 >= argc)
    {
      *missing = true;
      return NULL;
    }
  return argv[++*i];
}

/* A number in [0, MAX] into *OUT.  */
static bool
parse_number (const char *text, double max, double *out)
{
  char *end;
  errno = 0;
  double v = strtod (text, &end);
  if (errno != 0 || end == text || *end != '\0' || !(v >= 0 && v <= max))
    return false;
  *out = v;
  return true;
}

/* --base-mode's value: base modes of the table, comma-separated.  */
static int
add_base_modes (struct compare_options *o, const char *text)
{
  memset (o->base_rows, 0, sizeof o->base_rows);
  for (const char *p = text; ; )
    {
      size_t len = strcspn (p, ",");
      bool known = false;
      for (size_t i = 0; i < compare_base_row_count; i++)
        if (strlen (compare_base_rows[i].key) == len
            && strncmp (p, compare_base_rows[i].key, len) == 0)
          {
            o->base_rows[compare_base_rows[i].mode] = true;
            known = true;
          }
      if (!known)
        return compare_usage_error ("--base-mode: `%.*s' is not a base mode (%s, %s)",
                                    (int) len, p, compare_base_rows[0].key,
                                    base_mode_list ());
      if (p[len] == '\0')
        return -1;
      p += len + 1;
    }
}

struct value_option
{
  const char *name;
  const char **slot;     /* or NULL: handled by name */
};

int
compare_parse_options (int argc, char **argv, struct compare_options *o)
{
  memset (o, 0, sizeof *o);
  o->runs = 7;
  o->threshold_pct = 10;
  o->noise_ms = 0.1;
  o->procs = 16;
  for (size_t i = 0; i < compare_base_row_count; i++)
    o->base_rows[compare_base_rows[i].mode] = true;
  const char *runs_text = NULL, *threshold_text = NULL, *noise_text = NULL,
    *procs_text = NULL, *base_text = NULL;
  const struct value_option values[] = {
    { "--none", &o->dirs[COMPARE_COLD] },
    { "--unexec", &o->dirs[COMPARE_UNEXEC] },
    { "--pdumper", &o->dirs[COMPARE_PDUMP] },
    { "--host", &o->host_file },
    { "--json", &o->json_path },
    { "--baseline", &o->baseline_path },
    { "--plot", &o->plot_path },
    { "--load", &o->load_path },
    { "--work-dir", &o->work_dir },
    { "--runs", &runs_text },
    { "--threshold", &threshold_text },
    { "--noise-ms", &noise_text },
    { "--procs", &procs_text },
    { "--base-mode", &base_text },
    { "--scale", NULL },
    { "--memory-scale", NULL },
  };
  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      if (tool_cli_help_or_version (&cli, arg))
        return cli.status;
      if (strcmp (arg, "--quiet") == 0 || strcmp (arg, "-q") == 0)
        {
          o->quiet = true;
          continue;
        }
      if (strcmp (arg, "--print-host") == 0)
        {
          o->print_host = true;
          continue;
        }
      bool matched = false, missing = false;
      for (size_t k = 0; k < sizeof values / sizeof values[0] && !matched; k++)
        {
          const char *v = option_value (argc, argv, &i, values[k].name, &missing);
          if (missing)
            return compare_usage_error ("option `%s' needs a value", arg);
          if (v == NULL)
            continue;
          matched = true;
          if (*v == '\0')
            return compare_usage_error ("option `%s' needs a non-empty value", values[k].name);
          if (values[k].slot)
            {
              if (*values[k].slot)
                return compare_usage_error ("option `%s' given twice", values[k].name);
              *values[k].slot = v;
            }
          else
            {
              bool memory = strcmp (values[k].name, "--memory-scale") == 0;
              int st = memory ? add_scales (o->memory_scales, &o->memory_scale_count,
                                            values[k].name, v)
                              : add_scales (o->scales, &o->scale_count, values[k].name, v);
              if (st >= 0)
                return st;
            }
        }
      if (matched)
        continue;
      if (arg[0] == '-')
        return compare_usage_error ("unknown option `%s'", arg);
      return compare_usage_error ("unexpected argument `%s'", arg);
    }

  long v;
  if (runs_text)
    {
      if (!compare_parse_long (runs_text, 1, 1000, &v))
        return compare_usage_error ("--runs needs a whole number from 1 to 1000, not `%s'",
                                    runs_text);
      o->runs = (int) v;
    }
  if (threshold_text && !parse_number (threshold_text, 10000, &o->threshold_pct))
    return compare_usage_error ("--threshold needs a percentage from 0 to 10000, not `%s'",
                                threshold_text);
  if (procs_text)
    {
      if (!compare_parse_long (procs_text, 0, 256, &v))
        return compare_usage_error ("--procs needs a whole number from 0 to 256, not `%s'",
                                    procs_text);
      o->procs = (int) v;
    }
  if (base_text)
    {
      int st = add_base_modes (o, base_text);
      if (st >= 0)
        return st;
    }
  if (noise_text && !parse_number (noise_text, 1e6, &o->noise_ms))
    return compare_usage_error ("--noise-ms needs a time in ms from 0 to 1000000, not `%s'",
                                noise_text);
  if (o->print_host)
    return -1;
  if (o->scale_count == 0)
    o->scales[o->scale_count++] = 1;
  for (size_t i = 0; i < o->memory_scale_count; i++)
    {
      bool measured = false;
      for (size_t k = 0; k < o->scale_count; k++)
        measured = measured || o->scales[k] == o->memory_scales[i];
      if (!measured)
        return compare_usage_error ("--memory-scale %ld is not one of the --scale values",
                                    o->memory_scales[i]);
    }
  if (o->memory_scale_count == 0)
    for (size_t i = 0; i < o->scale_count; i++)
      if (o->scales[i] <= 4)
        o->memory_scales[o->memory_scale_count++] = o->scales[i];
  bool any_dir = o->dirs[COMPARE_COLD] || o->dirs[COMPARE_UNEXEC] || o->dirs[COMPARE_PDUMP];
  if (o->load_path)
    {
      if (any_dir || o->host_file)
        return compare_usage_error ("--load takes the results from a file: it goes with "
                                    "no build directory and no --host");
      return -1;
    }
  if (!o->host_file && !o->dirs[COMPARE_COLD])
    return compare_usage_error ("the cold start is the reference: give --none DIR (a build "
                                "configured --with-dumper=none)");
  if (!o->host_file && !o->dirs[COMPARE_UNEXEC] && !o->dirs[COMPARE_PDUMP])
    return compare_usage_error ("nothing to compare with: give --unexec DIR, --pdumper DIR "
                                "or both");
  return -1;
}
