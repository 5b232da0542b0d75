/* SPDX-License-Identifier: MIT */
/* tools/compare/host.c: the host contract.

   Owns: the description of a host -- for each step (cold start, dump,
   start from the dump, the words that ask for a digest, a heap dump or
   statistics) the words of a command with {placeholders} -- reading one
   from a file or taking the reference host's, deciding which modes it
   can run, and expanding a step into an argv.  Commands are run without
   a shell, so a placeholder that expands to a path with spaces stays
   one word.  The format is documented in doc/compare.md.

   Must not: run anything (spawn.c does) or know what a step's output
   means (measure.c does).  */

#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"

const char compare_builtin_host[] =
"# The reference host, dlisp (doc/dlisp.md), in the build directories\n"
"# given with --none, --unexec and --pdumper.\n"
"name          dlisp\n"
"cold          {none}/host/dlisp --loadup-scale {scale}\n"
"unexec-dump   {unexec}/host/dlisp-bare --loadup-scale {scale} --temacs=dump --output {artifact}\n"
"unexec-start  {artifact}\n"
"unexec-input  {unexec}/host/dlisp-bare\n"
"pdump-dump    {pdumper}/host/dlisp-bare --loadup-scale {scale} --temacs=pdump --output {artifact}\n"
"pdump-start   {pdumper}/host/dlisp --dump-file={artifact}\n"
"pdump-floor   {pdumper}/bench/pdump-floor {artifact} {runs}\n"
"embed         {pdumper}/tools/dumper-embed {pdumper}/host/dlisp-bare {file} -o {artifact}\n"
"embedded-start {artifact}\n"
"embedded-input {pdumper}/host/dlisp-bare\n"
"batch         --batch\n"
"digest        --heap-digest\n"
"heap-dump     --heap-dump {file}\n"
"stats         --stats\n"
"base-env      DUMPER_PDUMP_BASE\n"
"cold-env      DUMPER_PDUMP_COLD\n"
"idle          t\n";

static const char *const step_keys[COMPARE_STEP_COUNT] = {
  "cold", "unexec-dump", "unexec-start", "unexec-input", "pdump-dump",
  "pdump-start", "pdump-floor", "embed", "embedded-start", "embedded-input",
  "batch", "digest", "heap-dump", "stats", "base-env", "cold-env", "idle",
  "idle-args",
};

/* The steps a mode needs (ending in COMPARE_STEP_COUNT).  The base-mode
   rows use pdump's (compare_base_row_p).  */
static const enum compare_step mode_steps[COMPARE_MODE_COUNT][3] = {
  [COMPARE_COLD] = { COMPARE_STEP_COLD, COMPARE_STEP_COUNT },
  [COMPARE_UNEXEC] = { COMPARE_STEP_UNEXEC_DUMP, COMPARE_STEP_UNEXEC_START, COMPARE_STEP_COUNT },
  [COMPARE_PDUMP] = { COMPARE_STEP_PDUMP_DUMP, COMPARE_STEP_PDUMP_START, COMPARE_STEP_COUNT },
  [COMPARE_EMBEDDED] = { COMPARE_STEP_EMBED, COMPARE_STEP_EMBEDDED_START, COMPARE_STEP_COUNT },
};

/* Each mode's optional steps, whose directories must be given too.  */
static const enum compare_step mode_optional[COMPARE_MODE_COUNT] = {
  [COMPARE_COLD] = COMPARE_STEP_COUNT, [COMPARE_UNEXEC] = COMPARE_STEP_UNEXEC_INPUT,
  [COMPARE_PDUMP] = COMPARE_STEP_PDUMP_FLOOR, [COMPARE_EMBEDDED] = COMPARE_STEP_EMBEDDED_INPUT,
};

/* Placeholders; the first three are the build directories.  */
static const char *const placeholders[] = {
  "none", "unexec", "pdumper", "scale", "runs", "artifact", "file",
};
#define PLACEHOLDER_COUNT (sizeof placeholders / sizeof placeholders[0])

/* The configure --with-dumper name of each directory's build.  */
static const char *const backend_names[COMPARE_DIR_COUNT] = { "none", "unexec", "pdumper" };

/* Index of the placeholder at TEXT (just after `{'), its length in *LEN;
   -1 when unknown.  */
static int
placeholder_at (const char *text, size_t *len)
{
  const char *close = strchr (text, '}');
  if (close == NULL)
    return -1;
  for (size_t i = 0; i < PLACEHOLDER_COUNT; i++)
    if (strlen (placeholders[i]) == (size_t) (close - text)
        && strncmp (text, placeholders[i], (size_t) (close - text)) == 0)
      {
        *len = (size_t) (close - text) + 2;
        return (int) i;
      }
  return -1;
}

/* Split LINE (the value of a key) into words; double quotes group.  */
static bool
split_words (const char *line, struct compare_words *w, const char **bad)
{
  size_t capacity = 8;
  w->items = tool_xmalloc (capacity * sizeof *w->items);
  w->count = 0;
  const char *p = line;
  for (;;)
    {
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0')
        return true;
      char *word = tool_xmalloc (strlen (p) + 1);
      size_t n = 0;
      bool quoted = false;
      for (; *p && (quoted || (*p != ' ' && *p != '\t')); p++)
        if (*p == '"')
          quoted = !quoted;
        else
          word[n++] = *p;
      word[n] = '\0';
      if (quoted)
        {
          free (word);
          *bad = "unbalanced double quote";
          return false;
        }
      for (const char *b = strchr (word, '{'); b; b = strchr (b + 1, '{'))
        {
          size_t len;
          if (placeholder_at (b + 1, &len) < 0)
            {
              free (word);
              *bad = "unknown {placeholder}";
              return false;
            }
        }
      if (w->count == capacity)
        {
          capacity *= 2;
          w->items = tool_xrealloc (w->items, capacity * sizeof *w->items);
        }
      w->items[w->count++] = word;
    }
}

static void
words_free (struct compare_words *w)
{
  for (size_t i = 0; i < w->count; i++)
    free (w->items[i]);
  free (w->items);
  w->items = NULL;
  w->count = 0;
}

/* Parse the description TEXT (from ORIGIN, for messages) into H.  */
static int
parse_description (struct compare_host *h, const char *text, const char *origin)
{
  int line_no = 0;
  for (const char *line = text; *line; )
    {
      const char *end = strchr (line, '\n');
      size_t len = end ? (size_t) (end - line) : strlen (line);
      char *copy = tool_xstrndup (line, len);
      line = end ? end + 1 : line + len;
      line_no++;
      char *p = copy;
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0' || *p == '#')
        {
          free (copy);
          continue;
        }
      char *key = p;
      while (*p && *p != ' ' && *p != '\t')
        p++;
      if (*p)
        *p++ = '\0';
      if (strcmp (key, "name") == 0)
        {
          while (*p == ' ' || *p == '\t')
            p++;
          snprintf (h->name, sizeof h->name, "%s", p);
          free (copy);
          continue;
        }
      int step = -1;
      for (int s = 0; s < COMPARE_STEP_COUNT; s++)
        if (strcmp (key, step_keys[s]) == 0)
          step = s;
      const char *bad = NULL;
      if (step < 0)
        bad = "unknown key";
      else if (h->steps[step].count)
        bad = "key given twice";
      else if (!split_words (p, &h->steps[step], &bad))
        ;
      else if (h->steps[step].count == 0)
        bad = "no command";
      if (bad)
        {
          compare_error ("%s:%d: %s: `%s'", origin, line_no, bad, key);
          free (copy);
          return COMPARE_EXIT_DATA;
        }
      free (copy);
    }
  if (h->steps[COMPARE_STEP_DIGEST].count == 0)
    {
      compare_error ("%s: no `digest' words: the contract needs a heap digest", origin);
      return COMPARE_EXIT_DATA;
    }
  if (h->name[0] == '\0')
    snprintf (h->name, sizeof h->name, "host");
  return 0;
}

/* True when every build-directory placeholder of STEP has a directory.  */
static bool
step_has_dirs (const struct compare_host *h, enum compare_step step, int *missing)
{
  const struct compare_words *w = &h->steps[step];
  for (size_t i = 0; i < w->count; i++)
    for (const char *b = strchr (w->items[i], '{'); b; b = strchr (b + 1, '{'))
      {
        size_t len;
        int k = placeholder_at (b + 1, &len);
        if (k >= 0 && k < COMPARE_DIR_COUNT && h->dirs[k] == NULL)
          {
            *missing = k;
            return false;
          }
      }
  return true;
}

static char *
expand_word (const struct compare_host *h, const char *word, const struct compare_vars *v)
{
  char numbers[2][32];
  snprintf (numbers[0], sizeof numbers[0], "%ld", v->scale);
  snprintf (numbers[1], sizeof numbers[1], "%d", v->runs);
  const char *values[PLACEHOLDER_COUNT] = {
    h->dirs[COMPARE_COLD], h->dirs[COMPARE_UNEXEC], h->dirs[COMPARE_PDUMP],
    numbers[0], numbers[1], v->artifact, v->file,
  };
  size_t size = strlen (word) + 1;
  for (size_t i = 0; i < PLACEHOLDER_COUNT; i++)
    size += values[i] ? strlen (values[i]) : 0;
  /* Each placeholder may occur several times: grow as needed.  */
  char *out = tool_xmalloc (size);
  size_t n = 0;
  for (const char *p = word; *p; )
    {
      size_t len;
      int k = *p == '{' ? placeholder_at (p + 1, &len) : -1;
      const char *piece = k >= 0 ? (values[k] ? values[k] : "") : p;
      size_t piece_len = k >= 0 ? strlen (piece) : 1;
      if (n + piece_len + 1 > size)
        {
          size = 2 * (n + piece_len + 1);
          out = tool_xrealloc (out, size);
        }
      memcpy (out + n, piece, piece_len);
      n += piece_len;
      p += k >= 0 ? len : 1;
    }
  out[n] = '\0';
  return out;
}

char **
compare_host_argv (const struct compare_host *h, enum compare_step step,
                   const enum compare_step *extras, const struct compare_vars *v)
{
  size_t total = h->steps[step].count;
  for (const enum compare_step *e = extras; e && *e != COMPARE_STEP_COUNT; e++)
    total += h->steps[*e].count;
  char **argv = tool_xmalloc ((total + 1) * sizeof *argv);
  size_t n = 0;
  for (size_t i = 0; i < h->steps[step].count; i++)
    argv[n++] = expand_word (h, h->steps[step].items[i], v);
  for (const enum compare_step *e = extras; e && *e != COMPARE_STEP_COUNT; e++)
    for (size_t i = 0; i < h->steps[*e].count; i++)
      argv[n++] = expand_word (h, h->steps[*e].items[i], v);
  argv[n] = NULL;
  return argv;
}

void
compare_argv_free (char **argv)
{
  if (argv == NULL)
    return;
  for (char **p = argv; *p; p++)
    free (*p);
  free (argv);
}

char *
compare_host_path (const struct compare_host *h, enum compare_step step,
                   const struct compare_vars *v)
{
  if (h->steps[step].count == 0)
    return NULL;
  return expand_word (h, h->steps[step].items[0], v);
}

/* True when PROGRAM can be run: a path to an executable file, or a name
   found on $PATH.  */
static bool
runnable (const char *program)
{
  struct stat st;
  if (strchr (program, '/'))
    return stat (program, &st) == 0 && S_ISREG (st.st_mode) && access (program, X_OK) == 0;
  const char *path = getenv ("PATH");
  if (path == NULL)
    return false;
  char buf[4096];
  for (const char *p = path; ; )
    {
      const char *colon = strchr (p, ':');
      size_t len = colon ? (size_t) (colon - p) : strlen (p);
      snprintf (buf, sizeof buf, "%.*s/%s", (int) len, len ? p : ".", program);
      if (stat (buf, &st) == 0 && S_ISREG (st.st_mode) && access (buf, X_OK) == 0)
        return true;
      if (colon == NULL)
        return false;
      p = colon + 1;
    }
}

/* The BACKEND line of DIR/Makefile, in BUF; false when there is none.  */
static bool
build_backend (const char *dir, char *buf, size_t size)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/Makefile", dir);
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return false;
  char line[512];
  bool found = false;
  while (!found && fgets (line, sizeof line, f))
    if (sscanf (line, "BACKEND = %63s", buf) == 1 && size >= 64)
      found = true;
  fclose (f);
  return found;
}

/* Check the directory given for MODE.  */
static int
check_dir (const struct compare_host *h, int mode)
{
  static const char *const option[COMPARE_DIR_COUNT] = { "--none", "--unexec", "--pdumper" };
  const char *dir = h->dirs[mode];
  struct stat st;
  if (stat (dir, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      compare_error ("%s %s: no such directory", option[mode], dir);
      return COMPARE_EXIT_NOINPUT;
    }
  char backend[64];
  if (build_backend (dir, backend, sizeof backend) && strcmp (backend, backend_names[mode]) != 0)
    {
      compare_error ("%s %s: that build is configured --with-dumper=%s, not %s",
                     option[mode], dir, backend, backend_names[mode]);
      return COMPARE_EXIT_USAGE;
    }
  return 0;
}

/* Check that the program of STEP exists (not for steps run from an
   artifact, which do not exist yet).  */
static int
check_step (const struct compare_host *h, enum compare_step step, int mode)
{
  const struct compare_words *w = &h->steps[step];
  if (w->count == 0 || strncmp (w->items[0], "{artifact}", 10) == 0)
    return 0;
  struct compare_vars v = { 1, 1, "ARTIFACT", "FILE" };
  char *program = expand_word (h, w->items[0], &v);
  bool ok;
  if (step == COMPARE_STEP_UNEXEC_INPUT || step == COMPARE_STEP_EMBEDDED_INPUT)
    {
      struct stat st;
      ok = stat (program, &st) == 0 && S_ISREG (st.st_mode);
    }
  else
    ok = runnable (program);
  if (!ok)
    {
      const char *dir = h->dirs[mode < COMPARE_DIR_COUNT ? mode : COMPARE_PDUMP];
      if (dir)
        compare_error ("%s: %s not found (build it: make -C %s)", compare_mode_names[mode],
                       program, dir);
      else
        compare_error ("%s: %s not found", compare_mode_names[mode], program);
    }
  free (program);
  return ok ? 0 : COMPARE_EXIT_NOINPUT;
}

int
compare_host_load (struct compare_host *h, const struct compare_options *o)
{
  memset (h, 0, sizeof *h);
  for (int m = 0; m < COMPARE_DIR_COUNT; m++)
    h->dirs[m] = o->dirs[m];
  int st;
  if (o->host_file)
    {
      char *text = compare_read_file (o->host_file, NULL);
      if (text == NULL)
        {
          compare_error ("--host %s: %s", o->host_file, strerror (errno));
          return COMPARE_EXIT_NOINPUT;
        }
      st = parse_description (h, text, o->host_file);
      free (text);
    }
  else
    st = parse_description (h, compare_builtin_host, "built-in host");
  if (st)
    return st;

  for (int m = 0; m < COMPARE_DIR_COUNT; m++)
    if (h->dirs[m] && (st = check_dir (h, m)) != 0)
      return st;
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    {
      if (compare_base_row_p (m))
        continue;               /* below, once pdump's is known */
      bool defined = true, dirs = true;
      int missing = -1;
      for (const enum compare_step *s = mode_steps[m]; *s != COMPARE_STEP_COUNT; s++)
        {
          defined = defined && h->steps[*s].count > 0;
          dirs = dirs && step_has_dirs (h, *s, &missing);
        }
      if (mode_optional[m] != COMPARE_STEP_COUNT)
        dirs = dirs && step_has_dirs (h, mode_optional[m], &missing);
      h->enabled[m] = defined && dirs;
      /* The embedded executable is made from the pdump image.  */
      if (m == COMPARE_EMBEDDED)
        h->enabled[m] = h->enabled[m] && h->enabled[COMPARE_PDUMP];
      if (defined && !dirs && m < COMPARE_DIR_COUNT && h->dirs[m])
        {
          compare_error ("%s: the host's commands for it need a directory for {%s}",
                         compare_mode_names[m], placeholders[missing]);
          return COMPARE_EXIT_USAGE;
        }
    }
  /* A row per base mode asked for, when pdump runs and the host names
     the variable that chooses the base mode (and the one that chooses
     COLD's verification, for a row that sets it).  */
  for (size_t i = 0; i < compare_base_row_count; i++)
    {
      int m = compare_base_rows[i].mode;
      if (compare_base_row_p (m))
        h->enabled[m] = h->enabled[COMPARE_PDUMP] && o->base_rows[m]
                        && h->steps[COMPARE_STEP_BASE_ENV].count > 0
                        && (compare_base_rows[i].cold == NULL
                            || h->steps[COMPARE_STEP_COLD_ENV].count > 0);
    }
  static const enum compare_step env_steps[] = { COMPARE_STEP_BASE_ENV,
                                                 COMPARE_STEP_COLD_ENV };
  for (size_t i = 0; i < sizeof env_steps / sizeof env_steps[0]; i++)
    {
      const struct compare_words *w = &h->steps[env_steps[i]];
      if (w->count > 1 || (w->count && strpbrk (w->items[0], "= ")))
        {
          compare_error ("%s: `%s' takes one word, the name of an environment variable",
                         o->host_file ? o->host_file : "built-in host",
                         step_keys[env_steps[i]]);
          return COMPARE_EXIT_DATA;
        }
    }
  if (!h->enabled[COMPARE_COLD])
    return compare_usage_error ("the host description has no usable `cold' command%s",
                                o->host_file ? "" : " (give --none DIR)");
  if (!h->enabled[COMPARE_UNEXEC] && !h->enabled[COMPARE_PDUMP])
    return compare_usage_error ("nothing to compare the cold start with: no usable unexec "
                                "or pdump commands");
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    {
      if (!h->enabled[m] || compare_base_row_p (m))
        continue;
      for (const enum compare_step *s = mode_steps[m]; *s != COMPARE_STEP_COUNT; s++)
        if ((st = check_step (h, *s, m)) != 0)
          return st;
      if (mode_optional[m] != COMPARE_STEP_COUNT
          && (st = check_step (h, mode_optional[m], m)) != 0)
        return st;
    }
  return 0;
}

char *
compare_host_line (const struct compare_host *h, enum compare_step step,
                   const struct compare_vars *v)
{
  const struct compare_words *w = &h->steps[step];
  if (w->count == 0)
    return NULL;
  char *line = tool_xstrdup ("");
  for (size_t i = 0; i < w->count; i++)
    {
      char *word = expand_word (h, w->items[i], v);
      size_t len = strlen (line);
      line = tool_xrealloc (line, len + strlen (word) + 2);
      if (i > 0)
        line[len++] = ' ';
      strcpy (line + len, word);
      free (word);
    }
  return line;
}

void
compare_host_free (struct compare_host *h)
{
  for (int s = 0; s < COMPARE_STEP_COUNT; s++)
    words_free (&h->steps[s]);
}
