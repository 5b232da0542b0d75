/* SPDX-License-Identifier: MIT */
/* tools/compare/compare.h: what the parts of dumper-compare share.

   dumper-compare runs a host in its modes -- a cold start (a `none'
   build), a start from an unexec'd executable, a start from a pdump
   image and, when the host can, a start from an executable with the
   image embedded (dumper-embed) -- checks that they restore the same
   heap, and measures each side by side.  One concern per file:

     options.c   the command line
     util.c      memory and whole-file helpers
     host.c      the host contract: the commands of each mode, expanded
     spawn.c     running a child and measuring it (wall time, rusage)
     measure.c   the run plan: dumps, digest check, timed rounds
     stats.c     samples, medians, the figure table, `key: value' output
     memory.c    the memory section: concurrent idle starts, smaps_rollup
     heapdiff.c  the first divergence of two heap dumps, as a path
     table.c     the text tables
     json.c      the results as JSON, written and read back
     baseline.c  the comparison with an earlier JSON
     plot.c      the chart, through gnuplot
     main.c      the program: the order of the above, exit statuses

   External names carry the prefix compare_.  Nothing here is part of
   libdumper: the tool only runs programs and reads what they print.  */

#ifndef COMPARE_COMPARE_H
#define COMPARE_COMPARE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tools/common/status.h"
#include "tools/common/xalloc.h"

/* Exit statuses: the tools' one table (tools/common/status.h,
   doc/exit-status.md, doc/man/dumper-compare.1).  */
enum
{
  COMPARE_EXIT_OK = TOOL_EXIT_OK,
  COMPARE_EXIT_DIVERGED = TOOL_EXIT_DIVERGED,
  COMPARE_EXIT_REGRESSION = TOOL_EXIT_REGRESSION,
  COMPARE_EXIT_MODE_FAILED = TOOL_EXIT_MODE_FAILED,
  COMPARE_EXIT_USAGE = TOOL_EXIT_USAGE,
  COMPARE_EXIT_DATA = TOOL_EXIT_DATAERR,
  COMPARE_EXIT_NOINPUT = TOOL_EXIT_NOINPUT,
  COMPARE_EXIT_UNAVAILABLE = TOOL_EXIT_UNAVAILABLE,
  COMPARE_EXIT_OSERR = TOOL_EXIT_OSERR,
  COMPARE_EXIT_CANTCREAT = TOOL_EXIT_CANTCREAT
};

/* The pdump base modes measured as rows of their own beside `pdump'
   (issue 15): X (ENUM, ROW NAME, --base-mode NAME, VALUE OF THE HOST'S
   base-env VARIABLE, VALUE OF ITS cold-env VARIABLE or NULL: the
   host's default COLD verification).  The `pdump' row itself is the
   random one (compare_base_rows[0]).  Adding a base mode is adding one
   line here.  fixed-cb: base mode fixed with COLD verified once per
   boot (doc/format.md, "COLD verification"), what bench/base-modes.sh
   calls fixed-cb.  */
#define COMPARE_BASE_ROWS(X) \
  X (COMPARE_PDUMP_FIXED, "pdump-fixed", "fixed", "fixed", NULL) \
  X (COMPARE_PDUMP_FIXED_CB, "pdump-fixed-cb", "fixed-cb", "fixed", "boot") \
  X (COMPARE_PDUMP_BOOT, "pdump-boot", "boot", "boot", NULL)

/* The ways a host gets its heap -- the rows of the tables.  The first
   three have a build directory of their own (--none, --unexec,
   --pdumper); the base-mode rows start from the pdump image with the
   host's base-mode variable set; EMBEDDED uses the pdumper build and
   the pdump image.  The order is the order of the rows.  */
#define COMPARE_BASE_ENUM(e, name, key, value, cold) e,
enum compare_mode
{
  COMPARE_COLD,
  COMPARE_UNEXEC,
  COMPARE_PDUMP,
  COMPARE_BASE_ROWS (COMPARE_BASE_ENUM)
  COMPARE_EMBEDDED,
  COMPARE_MODE_COUNT
};
#undef COMPARE_BASE_ENUM
#define COMPARE_DIR_COUNT 3

/* A row started from the pdump image in a base mode: its mode, its
   name for --base-mode, the value of the base-env variable and of the
   cold-env variable (NULL: not set).  */
struct compare_base_row
{
  enum compare_mode mode;
  const char *key;
  const char *value;
  const char *cold;
};
extern const struct compare_base_row compare_base_rows[];
extern const size_t compare_base_row_count;

/* The value of MODE's base-env variable, or NULL when MODE is not a
   base-mode row (`pdump' is: random).  */
const char *compare_base_value (int mode);

/* The value of MODE's cold-env variable, or NULL when MODE sets none.  */
const char *compare_base_cold (int mode);

/* True for the rows that start from the pdump image with a base mode
   of their own (not `pdump').  They use pdump's build, image and
   commands.  */
bool compare_base_row_p (int mode);

extern const char *const compare_mode_names[COMPARE_MODE_COUNT];

/* ------------------------------------------------------------------ */
/* util.c */


/* The whole file at PATH, NUL-terminated (its size in *SIZE when SIZE is
   not NULL); NULL with errno set when it cannot be read.  */
char *compare_read_file (const char *path, size_t *size);

/* ------------------------------------------------------------------ */
/* options.c */

#define COMPARE_MAX_SCALES 32

struct compare_options
{
  const char *dirs[COMPARE_DIR_COUNT];   /* --none, --unexec, --pdumper */
  const char *host_file;                 /* --host, NULL: the reference host */
  long scales[COMPARE_MAX_SCALES];
  size_t scale_count;
  int runs;
  const char *json_path, *baseline_path, *plot_path, *load_path, *work_dir;
  double threshold_pct;
  double noise_ms;                       /* --noise-ms */
  bool quiet, print_host;
  bool base_rows[COMPARE_MODE_COUNT];    /* --base-mode: the rows asked for */
  int procs;                             /* --procs: the memory section's */
  long memory_scales[COMPARE_MAX_SCALES];  /* --memory-scale */
  size_t memory_scale_count;
};

/* Parse ARGV into O.  Returns -1 to go on, else the exit status (after
   --help/--version, or a usage error already reported).  */
int compare_parse_options (int argc, char **argv, struct compare_options *o);

/* Report a usage error the way every part does: "dumper-compare: ...",
   then a hint.  Returns COMPARE_EXIT_USAGE.  */
int compare_usage_error (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* "dumper-compare: MESSAGE" on stderr.  */
void compare_error (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Parse a whole decimal number in [MIN, MAX]; false when TEXT is not one.  */
bool compare_parse_long (const char *text, long min, long max, long *out);

/* ------------------------------------------------------------------ */
/* host.c: the host contract.  A description names, per step, the words
   of a command with {placeholders}; see doc/compare.md.  */

enum compare_step
{
  COMPARE_STEP_COLD,            /* a cold start */
  COMPARE_STEP_UNEXEC_DUMP,     /* write the executable {artifact} */
  COMPARE_STEP_UNEXEC_START,    /* start from it */
  COMPARE_STEP_UNEXEC_INPUT,    /* the undumped executable (a path) */
  COMPARE_STEP_PDUMP_DUMP,      /* write the image {artifact} */
  COMPARE_STEP_PDUMP_START,     /* start from it */
  COMPARE_STEP_PDUMP_FLOOR,     /* optional: the physical floor of a load */
  COMPARE_STEP_EMBED,           /* write {artifact}: the image {file} embedded */
  COMPARE_STEP_EMBEDDED_START,  /* start from it */
  COMPARE_STEP_EMBEDDED_INPUT,  /* the executable it embeds into (a path) */
  COMPARE_STEP_BATCH,           /* words added to a timed start */
  COMPARE_STEP_DIGEST,          /* ... to print the heap digest */
  COMPARE_STEP_HEAP_DUMP,       /* ... to write the heap dump {file} */
  COMPARE_STEP_STATS,           /* ... to print `key: value' figures */
  COMPARE_STEP_BASE_ENV,        /* the variable naming the pdump base mode */
  COMPARE_STEP_COLD_ENV,        /* ... naming its COLD verification */
  COMPARE_STEP_IDLE,            /* the line that an idle start answers */
  COMPARE_STEP_IDLE_ARGS,       /* words added to make a start wait */
  COMPARE_STEP_COUNT
};

struct compare_words
{
  char **items;
  size_t count;
};

struct compare_host
{
  char name[64];
  struct compare_words steps[COMPARE_STEP_COUNT];
  const char *dirs[COMPARE_DIR_COUNT];
  bool enabled[COMPARE_MODE_COUNT];
};

/* Values of the placeholders for one command.  */
struct compare_vars
{
  long scale;
  int runs;
  const char *artifact;
  const char *file;
};

/* The reference host's description, as text in the host file format.  */
extern const char compare_builtin_host[];

/* Read a description from PATH (NULL: the built-in one), take the
   directories of O, decide which modes are enabled and check that their
   programs exist.  Returns 0 or an exit status, reported.  */
int compare_host_load (struct compare_host *h, const struct compare_options *o);

/* The argv of STEP (with the words of each step of EXTRAS, ending in
   COMPARE_STEP_COUNT, appended), placeholders expanded.  NULL-terminated,
   freed with compare_argv_free.  */
char **compare_host_argv (const struct compare_host *h, enum compare_step step,
                          const enum compare_step *extras,
                          const struct compare_vars *v);
void compare_argv_free (char **argv);

/* The single-word path of STEP (COMPARE_STEP_UNEXEC_INPUT).  */
char *compare_host_path (const struct compare_host *h, enum compare_step step,
                         const struct compare_vars *v);

/* The words of STEP expanded and joined by spaces (COMPARE_STEP_IDLE,
   COMPARE_STEP_BASE_ENV); NULL when the host has none.  Free with free.  */
char *compare_host_line (const struct compare_host *h, enum compare_step step,
                         const struct compare_vars *v);

void compare_host_free (struct compare_host *h);

/* ------------------------------------------------------------------ */
/* spawn.c */

struct compare_proc
{
  int exit_status;        /* when !signaled */
  int signal;             /* the signal that ended it, or 0 */
  double seconds;         /* wall time, CLOCK_MONOTONIC, spawn to reap */
  long max_rss_kb;        /* ru_maxrss */
  long minor_faults;      /* ru_minflt */
};

/* Set by the tool's signal handler: the signal that asks it to stop.
   compare_spawn then starts nothing more.  */
#include <signal.h>
extern volatile sig_atomic_t compare_interrupted;

/* Run ARGV with stdin from /dev/null, stdout to OUT_PATH and stderr to
   ERR_PATH (NULL: /dev/null); wait for it.  ENV_SET, when not NULL, is
   a `NAME=VALUE' the child's environment gets (replacing NAME's value).
   Returns 0, or -1 when it could not be started (errno set; EINTR after
   compare_interrupted).  */
int compare_spawn (char *const *argv, const char *env_set, const char *out_path,
                   const char *err_path, struct compare_proc *result);

/* A child that keeps running: its standard input and output are pipes
   to the tool.  */
struct compare_child
{
  int pid;                /* 0: not running */
  int to_child;           /* its standard input, or -1 */
  int from_child;         /* its standard output, or -1 */
  double started;
};

/* Start ARGV as compare_spawn does, but with pipes for its standard
   input and output, and do not wait.  Returns 0 or -1 (errno set).  */
int compare_spawn_child (char *const *argv, const char *env_set, const char *err_path,
                         struct compare_child *c);

/* Write LINE and a newline to C's input and wait at most TIMEOUT
   seconds for a whole line on its output.  Returns 0, or -1 with errno
   set (EPIPE: it ended first; ETIMEDOUT).  */
int compare_child_ask (struct compare_child *c, const char *line, double timeout);

/* Close C's input (end of file: it should exit; with KILL_IT, SIGKILL
   it first), discard what it still prints, and reap it.  Returns 0 or
   -1 (errno set).  */
int compare_child_finish (struct compare_child *c, bool kill_it,
                          struct compare_proc *result);

/* True when the child exited 0.  */
bool compare_proc_ok (const struct compare_proc *p);

/* "exit status N" or "killed by signal NAME".  */
void compare_proc_describe (const struct compare_proc *p, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* stats.c: figures.  Each figure of each mode is a set of samples,
   summarised by median, min and max.  */

enum compare_figure
{
  COMPARE_FIG_START_MS,          /* wall time of a start (cold: a cold start) */
  COMPARE_FIG_PEAK_RSS_KB,
  COMPARE_FIG_MINOR_FAULTS,
  COMPARE_FIG_PRIVATE_DIRTY_KB,  /* private-dirty-kb of --stats */
  COMPARE_FIG_DIGEST_MS,         /* digest-seconds of --stats */
  COMPARE_FIG_HEAP_OBJECTS,
  COMPARE_FIG_HEAP_BYTES,
  COMPARE_FIG_DUMP_MS,           /* wall time of the whole dumping run */
  COMPARE_FIG_DUMP_STEP_MS,      /* dump-seconds of the dumping run */
  COMPARE_FIG_DUMP_RSS_KB,
  COMPARE_FIG_ARTIFACT_BYTES,    /* image, or data added to the executable */
  COMPARE_FIG_EXE_BYTES,         /* unexec, embedded: the executable */
  COMPARE_FIG_INPUT_BYTES,       /* unexec, embedded: the undumped one */
  COMPARE_FIG_LOAD_OPEN_MS,      /* pdump loader phases, from --stats */
  COMPARE_FIG_LOAD_MAP_MS,
  COMPARE_FIG_LOAD_VERIFY_MS,
  COMPARE_FIG_LOAD_RELOCATE_MS,
  COMPARE_FIG_LOAD_RESTORE_MS,
  COMPARE_FIG_LOAD_HOOKS_MS,
  COMPARE_FIG_LOAD_TOTAL_MS,
  COMPARE_FIG_LOAD_FAULTS,
  COMPARE_FIG_RELOCS,            /* image + executable relocations */
  COMPARE_FIG_NS_PER_RELOC,
  COMPARE_FIG_HOT_BYTES,
  COMPARE_FIG_COLD_BYTES,
  COMPARE_FIG_DISCARDABLE_BYTES,
  COMPARE_FIG_FLOOR_MAP_TOUCH_MS,
  COMPARE_FIG_FLOOR_READ_HUGE_MS,
  COMPARE_FIG_WRITE_MS,          /* write-seconds: the back end's write alone */
  COMPARE_FIG_MEM_DIRTY_KB,      /* memory section: Private_Dirty per process */
  COMPARE_FIG_MEM_PSS_KB,        /* memory section: Pss per process */
  COMPARE_FIG_COUNT
};

struct compare_figure_info
{
  const char *key;        /* JSON name */
  int decimals;           /* in JSON */
  bool baseline;          /* compared with --baseline: larger is worse */
  bool is_ms;             /* a time in milliseconds */
  bool tail;              /* its p99 is kept too */
};

extern const struct compare_figure_info compare_figures[COMPARE_FIG_COUNT];

/* Summary of a figure's samples; n == 0: not measured.  p99 (the
   nearest-rank 99th percentile) is kept for the figures whose info says
   `tail'; has_p99 says whether it is known (a file of an earlier
   version has none).  */
struct compare_stat
{
  double median, min, max;
  int n;
  double p99;
  bool has_p99;
};

/* Samples while measuring.  */
struct compare_samples
{
  double *values;
  int count, capacity;
};

void compare_samples_add (struct compare_samples *s, double value);
struct compare_stat compare_samples_stat (const struct compare_samples *s);
void compare_samples_free (struct compare_samples *s);

/* Round S to the precision the JSON keeps, so figures in memory, in the
   table and in a file read back are the same numbers.  */
void compare_stat_round (struct compare_stat *s, int decimals);

/* How a row started in a base mode fared: the base mode asked for,
   what the host reported (`pdump-base-mode', `pdump-placement' and its
   reason in its stats), how many of the stats starts fell back, and,
   when the host refused the value, its message.  asked[0] == 0: the row
   has no base mode.  */
struct compare_base_info
{
  char asked[16];
  char reported[16];          /* "" when the host does not say */
  char placement[16];         /* "" when the host does not say */
  char method[16];            /* pdump-method: hybrid, map, read */
  char reason[96];
  int stats_runs, fallbacks;
  char refused[200];          /* "" unless refused */
};

/* Whether the row was measured in the base mode it asked for: 1 yes,
   0 no (refused, another mode reported, or it fell back), -1 unknown
   (the host does not report its base mode).  */
int compare_base_honoured (const struct compare_base_info *b);

/* Everything measured at one scale.  */
struct compare_scale
{
  long scale;
  char digest[COMPARE_MODE_COUNT][80];
  char load_method[16];            /* pdump: hybrid, map or read */
  struct compare_stat fig[COMPARE_MODE_COUNT][COMPARE_FIG_COUNT];
  struct compare_base_info base[COMPARE_MODE_COUNT];
};

struct compare_results
{
  char host[64];
  int runs;
  bool modes[COMPARE_MODE_COUNT];
  struct compare_scale scales[COMPARE_MAX_SCALES];
  size_t scale_count;
};

/* Ratio of two medians, or 0 when either is missing or zero.  */
double compare_ratio (const struct compare_scale *s, enum compare_figure f,
                      enum compare_mode num, enum compare_mode den);

/* `key: value' lines of a host's --stats output.  */
struct compare_kv
{
  char *text;             /* the whole output, lines split in place */
  char **keys, **values;
  size_t count;
};

/* Read PATH into KV.  Returns false when it cannot be read.  */
bool compare_kv_read (struct compare_kv *kv, const char *path);
const char *compare_kv_get (const struct compare_kv *kv, const char *key);
/* The value of KEY as a number; false when absent or not a number.  */
bool compare_kv_number (const struct compare_kv *kv, const char *key, double *out);
void compare_kv_free (struct compare_kv *kv);

/* ------------------------------------------------------------------ */
/* measure.c */

/* Room left in a path for the names measure.c gives its files; a work
   directory name must leave it (and the `/scale-N' below it).  */
#define COMPARE_NAME_MAX 256

struct compare_run
{
  const struct compare_options *opt;
  struct compare_host *host;
  char *work_dir;
};

/* Measure every scale of OPT into R.  Returns 0 or an exit status
   (COMPARE_EXIT_DIVERGED after printing the divergence).  */
int compare_measure (struct compare_run *run, struct compare_results *r);

/* ------------------------------------------------------------------ */
/* memory.c */

struct compare_memory_request
{
  char *const *argv;          /* a start with the idle words */
  const char *env_set;        /* as for compare_spawn */
  const char *probe;          /* the idle line */
  int procs;                  /* how many at once */
  const char *err_prefix;     /* process K's stderr: ERR_PREFIX-K.err */
};

struct compare_memory_failure
{
  char why[256];
  char err_path[PATH_MAX];    /* the failing process's stderr, or "" */
  bool ended;                 /* it ended: PROC says how */
  struct compare_proc proc;
};

/* Run REQ->PROCS copies of the idle start at once; when every one has
   answered the idle line, add each one's Private_Dirty and Pss (KiB,
   /proc/PID/smaps_rollup) to DIRTY and PSS; then end them all.
   Returns 0, or -1 with FAILURE filled in.  */
int compare_memory_sample (const struct compare_memory_request *req,
                           struct compare_samples *dirty, struct compare_samples *pss,
                           struct compare_memory_failure *failure);

/* ------------------------------------------------------------------ */
/* heapdiff.c */

/* Compare the heap dumps at PATH_A and PATH_B (named NAME_A, NAME_B in
   the report) and print the first divergence to OUT as a path from a
   root.  Returns 1 when they differ, 0 when identical, -1 when a file
   cannot be read (reported).  */
int compare_heap_diff (const char *path_a, const char *name_a,
                       const char *path_b, const char *name_b, FILE *out);

/* ------------------------------------------------------------------ */
/* table.c */

void compare_print_tables (FILE *out, const struct compare_results *r);

/* ------------------------------------------------------------------ */
/* json.c */

/* Write R to PATH.  Returns 0 or COMPARE_EXIT_CANTCREAT (reported).  */
int compare_json_write (const char *path, const struct compare_results *r);

/* A parsed JSON value (only what this tool's own files hold).  */
enum compare_json_type
{
  COMPARE_JSON_NULL, COMPARE_JSON_BOOL, COMPARE_JSON_NUMBER,
  COMPARE_JSON_STRING, COMPARE_JSON_ARRAY, COMPARE_JSON_OBJECT
};

struct compare_json
{
  enum compare_json_type type;
  double number;
  bool boolean;
  char *string;
  /* Arrays and objects: COUNT children; objects also name them.  */
  struct compare_json *items;
  char **names;
  size_t count;
};

/* Parse TEXT.  Returns NULL on a syntax error, described in ERR.  */
struct compare_json *compare_json_parse (const char *text, char *err, size_t err_size);
const struct compare_json *compare_json_member (const struct compare_json *obj,
                                                const char *name);
void compare_json_free (struct compare_json *v);

/* Read results saved by compare_json_write.  Returns 0, or
   COMPARE_EXIT_NOINPUT / COMPARE_EXIT_DATA (reported).  */
int compare_json_load (const char *path, struct compare_results *r);

/* ------------------------------------------------------------------ */
/* baseline.c */

/* Compare CURRENT with BASE: print each figure whose median grew by
   more than THRESHOLD_PCT percent (and, for a time, by more than
   NOISE_MS).  Returns the number of regressions.  */
int compare_baseline (FILE *out, const struct compare_results *current,
                      const struct compare_results *base, double threshold_pct,
                      double noise_ms);

/* ------------------------------------------------------------------ */
/* plot.c */

/* Draw R into PATH (PNG) with gnuplot ($GNUPLOT, else gnuplot on the
   PATH); WORK_DIR holds the script.  Returns 0 or an exit status.  */
int compare_plot (const char *path, const struct compare_results *r,
                  const char *work_dir);

#endif /* COMPARE_COMPARE_H */
