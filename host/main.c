/* SPDX-License-Identifier: MIT */
/* host/main.c: dlisp's command line, start-up sequence and REPL.

   Owns: the program.  It follows the shared init sequence of
   dumper.h: describe the heap, dumper_startup, the once-only init when
   the state was not restored from a dump, dumper_mark_initialized, the
   per-start init, then either loadup-and-dump (--temacs) or the user's
   work.  The loadup itself runs in the dumping run, or at start-up in a
   run whose state is cold (a `none' build, or no image).

   This file is the only one of the executable with
   DUMPER_DEFINE_FINGERPRINT; the unit tests link every other host file.

   Exit statuses (the table of tools/common/status.h and
   doc/exit-status.md): 0 success; 7 an uncaught Lisp error in
   -l/--eval; 8 loadup failed; 64 bad command line; 71 out of memory; the
   library's statuses (dumper_exit_status) for start-up and dump
   errors.  */

#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dumper/pdump.h>

#include "lisp.h"
#include "tools/common/status.h"

DUMPER_DEFINE_FINGERPRINT;

#ifndef DLISP_SRC_LISPDIR
# define DLISP_SRC_LISPDIR "host/lisp"
#endif
#ifndef DLISP_INSTALLED_LISPDIR
# define DLISP_INSTALLED_LISPDIR "/usr/local/share/dumper/lisp"
#endif

#define EXIT_LISP_ERROR TOOL_EXIT_LISP_ERROR
#define EXIT_USAGE TOOL_EXIT_USAGE

enum action_kind { ACTION_LOAD, ACTION_EVAL };

struct action
{
  enum action_kind kind;
  const char *arg;
};

struct options
{
  int64_t scale;
  bool scale_given;
  const char *lisp_dir;
  const char *output;
  const char *heap_dump;
  bool batch, digest, stats, load_stats, gc, help, version;
  struct action *actions;
  int action_count;
  int rest_index;                 /* first argument after `--', or argc */
};

/* A copy of argv[0]'s base name: never a pointer into this run's stack,
   which an unexec dump would save.  */
static char program_name[64] = "dlisp";

static void
usage (FILE *out)
{
  fprintf (out,
"Usage: %s [OPTION]... [-- ARG...]\n"
"A small Lisp, the reference host of libdumper (back end: %s).\n"
"\n"
"Start-up:\n"
"  --dump-file=FILE      start from this pdump image (pdumper builds)\n"
"  --no-dump-file        ignore any image: a cold start\n"
"  --loadup-scale N      grow the synthetic part of the world N times (default\n"
"                        1); only for a cold start or a dumping run\n"
"  --lisp-dir DIR        where loadup.lisp and the prelude are (default:\n"
"                        $DLISP_LISPDIR, else the configured directory)\n"
"Dumping (dlisp-bare):\n"
"  --temacs=pdump        run the loadup and write an image (pdumper builds)\n"
"  --temacs=dump         run the loadup and write an executable (unexec builds)\n"
"  --output PATH         the image or executable to write (default dlisp.pdmp\n"
"                        or dlisp in the current directory)\n"
"Work, in command-line order:\n"
"  -l, --load FILE       load a Lisp file\n"
"  --eval EXPR           evaluate the forms in EXPR\n"
"  --batch               do not start the REPL\n"
"Inspection, right after start-up and before any -l/--eval:\n"
"  --gc                  run a full collection first\n"
"  --heap-digest         print a hex digest of the reachable heap\n"
"  --heap-dump FILE      write the canonical text form of the heap (- = stdout)\n"
"  --stats               print how the state was obtained and heap figures\n"
"  --load-stats          print only the image load's figures (no heap walk)\n"
"  -h, --help            show this help\n"
"  -V, --version         show the version\n"
"\n"
"Without -l, --eval, --batch or an inspection option, dlisp reads forms from\n"
"standard input (a REPL).  Arguments after `--' are in `command-line-args'.\n"
"Exit status: 0 ok, 7 Lisp error, 8 loadup failed, 64 usage, 80-94 image or\n"
"dump errors (see doc/dlisp.md).\n",
           program_name, DUMPER_BACKEND);
}

_Noreturn static void usage_error (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));

_Noreturn static void
usage_error (const char *fmt, ...)
{
  va_list ap;
  fprintf (stderr, "%s: ", program_name);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputs ("; try --help\n", stderr);
  exit (EXIT_USAGE);
}

/* The value of option NAME at argv[*i]: `--name=value' or `--name value'.
   NULL when argv[*i] is not that option.  */
static const char *
option_value (int argc, char **argv, int *i, const char *name, const char *short_name)
{
  const char *arg = argv[*i];
  size_t n = strlen (name);
  if (strncmp (arg, name, n) == 0 && arg[n] == '=')
    return arg + n + 1;
  if (strcmp (arg, name) == 0 || (short_name && strcmp (arg, short_name) == 0))
    {
      if (*i + 1 >= argc)
        usage_error ("option `%s' needs a value", arg);
      return argv[++*i];
    }
  return NULL;
}

static int64_t
parse_scale (const char *text)
{
  char *end;
  errno = 0;
  long long v = strtoll (text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < 1 || v > 100000)
    usage_error ("--loadup-scale needs a whole number from 1 to 100000, not `%s'", text);
  return v;
}

static void
parse_options (int argc, char **argv, struct options *o)
{
  memset (o, 0, sizeof *o);
  o->scale = 1;
  o->rest_index = argc;
  o->actions = calloc ((size_t) argc + 1, sizeof *o->actions);
  if (o->actions == NULL)
    exit (71);
  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i], *v;
      if (strcmp (arg, "--") == 0)
        {
          o->rest_index = i + 1;
          return;
        }
      if ((v = option_value (argc, argv, &i, "--loadup-scale", NULL)))
        {
          o->scale = parse_scale (v);
          o->scale_given = true;
        }
      else if ((v = option_value (argc, argv, &i, "--lisp-dir", NULL)))
        o->lisp_dir = v;
      else if ((v = option_value (argc, argv, &i, "--output", "-o")))
        o->output = v;
      else if ((v = option_value (argc, argv, &i, "--heap-dump", NULL)))
        o->heap_dump = v;
      else if ((v = option_value (argc, argv, &i, "--load", "-l")))
        o->actions[o->action_count++] = (struct action) { ACTION_LOAD, v };
      else if ((v = option_value (argc, argv, &i, "--eval", NULL)))
        o->actions[o->action_count++] = (struct action) { ACTION_EVAL, v };
      else if (strcmp (arg, "--batch") == 0 || strcmp (arg, "-batch") == 0)
        o->batch = true;
      else if (strcmp (arg, "--heap-digest") == 0)
        o->digest = true;
      else if (strcmp (arg, "--stats") == 0)
        o->stats = true;
      else if (strcmp (arg, "--load-stats") == 0)
        o->load_stats = true;
      else if (strcmp (arg, "--gc") == 0)
        o->gc = true;
      else if (strcmp (arg, "--help") == 0 || strcmp (arg, "-h") == 0)
        o->help = true;
      else if (strcmp (arg, "--version") == 0 || strcmp (arg, "-V") == 0)
        o->version = true;
      else if (arg[0] == '-')
        usage_error ("unknown option `%s'", arg);
      else
        usage_error ("unexpected argument `%s' (put script arguments after `--')", arg);
    }
}

static bool
is_dir_with_loadup (const char *dir)
{
  char path[4096];
  struct stat st;
  snprintf (path, sizeof path, "%s/loadup.lisp", dir);
  return stat (path, &st) == 0;
}

/* --lisp-dir, then $DLISP_LISPDIR, then the source tree the build came
   from, then the installed directory.  */
static const char *
resolve_lisp_dir (const struct options *o)
{
  if (o->lisp_dir)
    return o->lisp_dir;
  const char *env = getenv ("DLISP_LISPDIR");
  if (env && *env)
    return env;
  if (is_dir_with_loadup (DLISP_SRC_LISPDIR))
    return DLISP_SRC_LISPDIR;
  return DLISP_INSTALLED_LISPDIR;
}

/* ------------------------------------------------------------------ */
/* Running Lisp from the command line.  */

static dl_obj
run_action (void *data)
{
  const struct action *a = data;
  if (a->kind == ACTION_LOAD)
    {
      struct stat st;
      if (stat (a->arg, &st) == 0)
        dl_load_file (a->arg);
      else
        dl_load (a->arg, false);
      return Qnil;
    }
  return dl_eval_text (a->arg, strlen (a->arg), "--eval");
}

static void
print_error (const char *prefix, dl_obj err)
{
  dl_obj message = dl_error_message (err);
  fflush (stdout);
  fprintf (stderr, "%s%s\n", prefix, dl_sdata (message));
}

/* One complete form from the start of PENDING, evaluated and printed.  */
struct repl_step
{
  struct dl_buf *pending;
  size_t consumed;
  bool have_form;
  dl_obj form;
};

static dl_obj
repl_read (void *data)
{
  struct repl_step *s = data;
  struct dl_reader r = { s->pending->data, s->pending->len, 0, 1, NULL };
  s->have_form = dl_read (&r, &s->form);
  s->consumed = r.pos;
  return Qnil;
}

static dl_obj
repl_eval (void *data)
{
  struct repl_step *s = data;
  dl_push (s->form);
  return dl_eval (s->form, Qnil);
}

static void
repl (void)
{
  bool tty = isatty (STDIN_FILENO);
  struct dl_buf pending = { 0 };
  char line[4096];
  for (;;)
    {
      if (tty)
        {
          fputs (pending.len ? "  ... " : "dlisp> ", stdout);
          fflush (stdout);
        }
      if (fgets (line, sizeof line, stdin) == NULL)
        break;
      dl_buf_add (&pending, line, strlen (line));
      for (;;)
        {
          struct repl_step step = { &pending, 0, false, 0 };
          dl_obj result;
          if (!dl_protect (repl_read, &step, &result))
            {
              if (dl_car (result) == DL_Q (end_of_file))
                break;                  /* incomplete: read more */
              print_error ("error: ", result);
              pending.len = 0;
              break;
            }
          if (!step.have_form)
            {
              pending.len = 0;
              break;
            }
          memmove (pending.data, pending.data + step.consumed, pending.len - step.consumed);
          pending.len -= step.consumed;
          if (dl_protect (repl_eval, &step, &result))
            {
              struct dl_buf out = { 0 };
              dl_print (&out, result, true);
              printf ("%s\n", out.data ? out.data : "");
              dl_buf_free (&out);
            }
          else
            print_error ("error: ", result);
          fflush (stdout);
        }
    }
  if (tty)
    putchar ('\n');
  dl_buf_free (&pending);
}

/* ------------------------------------------------------------------ */
/* Inspection.  */

static const char *
origin_name (enum dumper_origin origin)
{
  return origin == DUMPER_ORIGIN_PDUMP ? "pdump"
         : origin == DUMPER_ORIGIN_UNEXEC ? "unexec" : "cold";
}

static const char *
load_method_name (enum pdump_load_method method)
{
  return method == PDUMP_LOAD_MAP ? "map" : method == PDUMP_LOAD_READ ? "read"
         : method == PDUMP_LOAD_UNPACK ? "unpack" : "hybrid";
}

/* This process's private dirty memory in KiB, from the kernel's
   /proc/self/smaps_rollup; -1 when the kernel does not say.  Read at the
   end of start-up, before any digest or heap dump work, so it is the
   memory a start from each mode leaves written (dumper-compare's
   `private dirty' column, doc/compare.md).  */
static long
private_dirty_kb (void)
{
  FILE *f = fopen ("/proc/self/smaps_rollup", "r");
  if (f == NULL)
    return -1;
  char line[256];
  long kb = -1;
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "Private_Dirty: %ld kB", &kb) == 1)
      break;
  fclose (f);
  return kb;
}

/* Whether objects moved since the dump (dumper.h: what `eq' tables
   rehash on), then the pdump loader's figures (pdump.h), when an image
   was loaded.  */
static void
print_load_stats (void)
{
  printf ("dumper-moved: %d\n", dumper_start_info ()->moved ? 1 : 0);
  printf ("dumper-origin-in-hook: %d\n", dl_hook_origin);
  const struct pdump_stats *ps = pdump_stats ();
  if (ps->loaded)
    {
      printf ("pdump-file-size: %llu\n", (unsigned long long) ps->file_size);
      printf ("pdump-image-size: %llu\n", (unsigned long long) ps->image_size);
      printf ("pdump-embedded: %s\n", ps->embedded ? "yes" : "no");
      printf ("pdump-method: %s\n", load_method_name (ps->method));
      printf ("pdump-mapped: %s\n", ps->mapped ? "yes" : "no");
      printf ("pdump-hot-size: %llu\n", (unsigned long long) ps->hot_size);
      printf ("pdump-cold-size: %llu\n", (unsigned long long) ps->cold_size);
      printf ("pdump-discardable-size: %llu\n", (unsigned long long) ps->discardable_size);
      printf ("pdump-objects: %llu\n", (unsigned long long) ps->object_count);
      printf ("pdump-image-relocs: %llu\n", (unsigned long long) ps->image_relocs);
      printf ("pdump-exe-relocs: %llu\n", (unsigned long long) ps->exe_relocs);
      printf ("pdump-open-seconds: %.6f\n", ps->open_seconds);
      printf ("pdump-map-seconds: %.6f\n", ps->map_seconds);
      printf ("pdump-verify-seconds: %.6f\n", ps->verify_seconds);
      printf ("pdump-relocate-seconds: %.6f\n", ps->relocate_seconds);
      printf ("pdump-structure-seconds: %.6f\n", ps->structure_seconds);
      printf ("pdump-structure-index-seconds: %.6f\n",
              ps->structure_index_seconds);
      printf ("pdump-restore-seconds: %.6f\n", ps->restore_seconds);
      printf ("pdump-hooks-seconds: %.6f\n", ps->hooks_seconds);
      printf ("pdump-total-seconds: %.6f\n", ps->total_seconds);
      printf ("pdump-minor-faults: %ld\n", ps->minor_faults);
      static const char *const base_modes[] = { "random", "fixed", "boot" };
      static const char *const placements[] = {
        [PDUMP_PLACED_RANDOM] = "random", [PDUMP_PLACED_PREFERRED] = "preferred",
        [PDUMP_PLACED_FALLBACK] = "fallback", [PDUMP_PLACED_BOOT] = "boot",
        [PDUMP_PLACED_BOOT_CACHE] = "boot-cache"
      };
      printf ("pdump-base-mode: %s\n", ps->base_mode < 3
              ? base_modes[ps->base_mode] : "?");
      printf ("pdump-placement: %s\n", placements[ps->placement]);
      printf ("pdump-placement-reason: %s\n", ps->placement_reason);
      printf ("pdump-preferred-base: 0x%llx\n",
              (unsigned long long) ps->preferred_base);
      printf ("pdump-base: 0x%llx\n", (unsigned long long) ps->base);
      printf ("pdump-exe-pages: %llu\n", (unsigned long long) ps->exe_pages);
      printf ("pdump-huge-pages: %s\n", ps->huge_pages);
      printf ("pdump-cold-check: %s\n", ps->cold_check);
      printf ("pdump-structure-check: %s\n", ps->structure_check);
      printf ("pdump-boot-dir: %s\n", ps->boot_dir);
    }
}


static void
print_stats (double loadup_seconds, double ready_seconds, long dirty_kb)
{
  const struct dumper_start_info *info = dumper_start_info ();
  struct dl_digest d;
  double t0 = dl_now ();
  dl_heap_digest (&d);
  double digest_seconds = dl_now () - t0;
  printf ("origin: %s\n", origin_name (info->origin));
  printf ("backend: %s\n", DUMPER_BACKEND);
  printf ("image: %s\n", info->image_path ? info->image_path : "-");
  printf ("startup-seconds: %.6f\n", info->startup_seconds);
  printf ("image-load-seconds: %.6f\n", info->load_seconds);
  printf ("loadup-seconds: %.6f\n", loadup_seconds);
  printf ("ready-seconds: %.6f\n", ready_seconds);
  if (dirty_kb >= 0)
    printf ("private-dirty-kb: %ld\n", dirty_kb);
  printf ("loadup-scale: %lld\n", (long long) dl_world_scale);
  printf ("heap-objects: %zu\n", d.objects);
  printf ("heap-bytes: %zu\n", d.heap_bytes);
  printf ("digest-seconds: %.6f\n", digest_seconds);
  printf ("symbols: %zu\n", dl_symbol_count ());
  printf ("allocated-objects: %zu\n", dl_heap_stats.objects);
  printf ("allocated-bytes: %zu\n", dl_heap_stats.bytes);
  printf ("gc-count: %zu\n", dl_heap_stats.gc_count);
  printf ("gc-seconds: %.6f\n", dl_heap_stats.gc_seconds);
  print_load_stats ();
}

static int
write_heap_dump (const char *path)
{
  FILE *out = strcmp (path, "-") == 0 ? stdout : fopen (path, "w");
  if (out == NULL)
    {
      fprintf (stderr, "%s: cannot write the heap dump %s: %s\n", program_name, path,
               strerror (errno));
      return 73;
    }
  bool ok = dl_heap_dump (out);
  if (out != stdout && fclose (out) != 0)
    ok = false;
  if (!ok)
    {
      fprintf (stderr, "%s: error writing the heap dump %s\n", program_name, path);
      return 74;
    }
  return 0;
}

/* ------------------------------------------------------------------ */

static int
dump_and_exit (const struct options *o, const char *lisp_dir)
{
  const char *output = o->output ? o->output
                       : will_dump_with_pdumper ? "dlisp.pdmp" : "dlisp";
  double t0 = dl_now ();
  /* A process started from a dump already has its world: dumping it
     again must save that state, not load the prelude a second time.  */
  if (!dl_world_loaded)
    dl_loadup (lisp_dir, o->scale);
  double t1 = dl_now ();
  dl_pre_dump ();
  double t2 = dl_now ();
  /* What the collection left is what the dump will write (objects of a
     loaded image too, when re-dumping): the writer sizes its tables once.  */
  dumper_expect_objects (dl_heap_stats.objects + dl_heap_stats.blocks
                         + (size_t) pdump_stats ()->object_count);
  enum dumper_status st = dumper_dump (output);
  if (st != DUMPER_OK)
    return dumper_report (program_name, st);
  if (o->stats)
    {
      /* write-seconds: the back end's write alone, without the
         collection before it (what the per-MB figures divide).  */
      double t3 = dl_now ();
      printf ("loadup-seconds: %.6f\ndump-seconds: %.6f\nwrite-seconds: %.6f\n",
              t1 - t0, t3 - t1, t3 - t2);
      const struct pdump_dump_stats *ds = pdump_dump_stats ();
      if (ds->written)
        printf ("pdump-walk-seconds: %.6f\npdump-layout-seconds: %.6f\n"
                "pdump-output-seconds: %.6f\npdump-objects: %llu\n"
                "pdump-byte-blocks: %llu\npdump-numbered-objects: %llu\n"
                "pdump-late-objects: %llu\npdump-late-written: %llu\n",
                ds->walk_seconds, ds->layout_seconds, ds->output_seconds,
                (unsigned long long) ds->object_count,
                (unsigned long long) ds->byte_block_count,
                (unsigned long long) ds->numbered_objects,
                (unsigned long long) ds->late_objects,
                (unsigned long long) ds->late_written);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  double t_start = dl_now ();
  if (argc > 0 && argv[0])
    {
      const char *slash = strrchr (argv[0], '/');
      snprintf (program_name, sizeof program_name, "%s", slash ? slash + 1 : argv[0]);
    }
  enum dumper_status st = dumper_describe_heap (&dl_heap_description);
  if (st != DUMPER_OK)
    return dumper_report (program_name, st);
  st = dumper_startup (&argc, &argv);
  if (st != DUMPER_OK)
    return dumper_report (argv[0], st);

  struct options o;
  parse_options (argc, argv, &o);
  if (o.help)
    {
      usage (stdout);
      free (o.actions);
      return 0;
    }
  if (o.version)
    {
      printf ("dlisp (dumper) %s, back end %s\n", PACKAGE_VERSION, DUMPER_BACKEND);
      free (o.actions);
      return 0;
    }

  if (!initialized)
    {
      dl_init_once ();
      dumper_mark_initialized ();
    }

  /* Per-start init: never dumped.  */
  dl_eval_init_stacks ();
  const char *lisp_dir = resolve_lisp_dir (&o);
  int rest = o.rest_index <= argc ? argc - o.rest_index : 0;
  char **rest_argv = argv + o.rest_index - 1;
  char *saved = rest_argv[0];
  rest_argv[0] = argv[0];               /* command-line-args: program, then the rest */
  dl_env_init (rest + 1, rest_argv, lisp_dir, o.batch || o.action_count > 0);
  rest_argv[0] = saved;

  if (will_dump)
    {
      int status = dump_and_exit (&o, lisp_dir);
      free (o.actions);
      return status;
    }

  double loadup_seconds = 0;
  if (!dl_world_loaded)
    {
      double t0 = dl_now ();
      dl_loadup (lisp_dir, o.scale);
      loadup_seconds = dl_now () - t0;
    }
  else if (o.scale_given && o.scale != dl_world_scale)
    {
      fprintf (stderr, "%s: --loadup-scale %lld only applies to a cold start or a "
               "dumping run; this run started from a dump made with scale %lld\n"
               "(pass --no-dump-file for a cold start with another scale)\n",
               program_name, (long long) o.scale, (long long) dl_world_scale);
      free (o.actions);
      return EXIT_USAGE;
    }
  double ready_seconds = dl_now () - t_start;
  long dirty_kb = o.stats ? private_dirty_kb () : -1;

  if (o.gc)
    dl_gc ();
  if (o.digest)
    {
      struct dl_digest d;
      char hex[33];
      dl_heap_digest (&d);
      dl_digest_hex (&d, hex);
      printf ("%s\n", hex);
    }
  if (o.heap_dump)
    {
      int status = write_heap_dump (o.heap_dump);
      if (status)
        {
          free (o.actions);
          return status;
        }
    }
  if (o.stats)
    print_stats (loadup_seconds, ready_seconds, dirty_kb);
  else if (o.load_stats)
    print_load_stats ();
  fflush (stdout);

  for (int i = 0; i < o.action_count; i++)
    {
      dl_obj result;
      if (!dl_protect (run_action, &o.actions[i], &result))
        {
          print_error (o.actions[i].kind == ACTION_LOAD ? "dlisp: error in -l: "
                                                        : "dlisp: error in --eval: ",
                       result);
          free (o.actions);
          return EXIT_LISP_ERROR;
        }
    }
  bool inspected = o.digest || o.heap_dump || o.stats || o.load_stats;
  if (o.action_count == 0 && !o.batch && !inspected)
    repl ();
  free (o.actions);
  fflush (stdout);
  return 0;
}
