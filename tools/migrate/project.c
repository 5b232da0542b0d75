/* SPDX-License-Identifier: MIT */
/* tools/migrate/project.c: the set of files dumper-migrate works on.

   Owns reading files, walking directories (sorted, so output is stable
   whatever the file system's order), recognising a file given twice,
   resolving #include lines, loading the headers found through -I for
   their declarations only, and answering "does this file see
   <dumper/gflags.h>" through its includes.  A file that cannot be read
   is an error naming it; nothing is analysed or written then.  */

#include <config.h>

#include "migrate.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void
migrate_project_init (struct migrate_project *proj)
{
  memset (proj, 0, sizeof *proj);
}

void
migrate_file_free (struct migrate_file *f)
{
  if (!f)
    return;
  free (f->path);
  free (f->real);
  free (f->text);
  free (f->line_start);
  free (f->toks);
  free (f->dirs);
  free (f->comments);
  free (f->branches);
  free (f->groups);
  free (f->funcs);
  free (f->includes);
  free (f->warnings);
  free (f->claimed);
  free (f);
}

void
migrate_project_free (struct migrate_project *proj)
{
  for (int i = 0; i < proj->nfiles; i++)
    migrate_file_free (proj->files[i]);
  free (proj->files);
  for (int i = 0; i < proj->ninclude_dirs; i++)
    free (proj->include_dirs[i]);
  free (proj->include_dirs);
  for (int i = 0; i < proj->nskipped; i++)
    free (proj->skipped[i].path);
  free (proj->skipped);
  migrate_machinery_free (proj->machinery);
  for (size_t i = 0; i < proj->nsites; i++)
    {
      free (proj->sites[i].what);
      free (proj->sites[i].suggestion);
    }
  free (proj->sites);
  for (size_t i = 0; i < proj->nedits; i++)
    free (proj->edits[i].text);
  free (proj->edits);
  memset (proj, 0, sizeof *proj);
}

struct migrate_file *
migrate_file_new (const char *path, char *text, size_t len, bool in_paths)
{
  struct migrate_file *f = tool_xcalloc (1, sizeof *f);
  f->path = tool_xstrdup (path);
  f->text = text;
  f->len = len;
  f->in_paths = in_paths;
  migrate_lex (f);
  migrate_cond_build (f);
  migrate_scope_build (f);
  return f;
}

int
migrate_project_add_file (struct migrate_project *proj, struct migrate_file *f)
{
  migrate_grow (&proj->files, &proj->files_cap, (size_t) proj->nfiles + 1,
                sizeof *proj->files);
  proj->files[proj->nfiles] = f;
  return proj->nfiles++;
}

static int
find_real (const struct migrate_project *proj, const char *real)
{
  for (int i = 0; i < proj->nfiles; i++)
    if (proj->files[i]->real && strcmp (proj->files[i]->real, real) == 0)
      return i;
  return -1;
}

/* Read PATH whole.  On failure sets *WHY (static text) and returns NULL.  */
static char *
slurp (const char *path, size_t *len, const char **why)
{
  FILE *in = fopen (path, "rb");
  if (!in)
    {
      *why = strerror (errno);
      return NULL;
    }
  struct migrate_buf buf = { 0 };
  char chunk[65536];
  size_t n;
  while ((n = fread (chunk, 1, sizeof chunk, in)) > 0)
    migrate_buf_add (&buf, chunk, n);
  bool bad = ferror (in);
  int saved = errno;
  fclose (in);
  if (bad)
    {
      migrate_buf_free (&buf);
      *why = strerror (saved);
      return NULL;
    }
  if (memchr (buf.data ? buf.data : "", '\0', buf.len))
    {
      migrate_buf_free (&buf);
      *why = "not a text file (contains NUL bytes)";
      return NULL;
    }
  *len = buf.len;
  return migrate_buf_take (&buf);
}

/* Load PATH into the project unless it is there already.  Returns its
   index, or -1 with *WHY set.  */
static int
load (struct migrate_project *proj, const char *path, bool in_paths,
      const char **why)
{
  char *real = realpath (path, NULL);
  if (!real)
    {
      *why = strerror (errno);
      return -1;
    }
  int have = find_real (proj, real);
  if (have >= 0)
    {
      free (real);
      return have;
    }
  size_t len = 0;
  char *text = slurp (path, &len, why);
  if (!text)
    {
      free (real);
      return -1;
    }
  struct migrate_file *f = migrate_file_new (path, text, len, in_paths);
  f->real = real;
  if (f->warnings)
    fputs (f->warnings, stderr);
  return migrate_project_add_file (proj, f);
}


static bool
has_suffix (const char *s, const char *suffix)
{
  size_t n = strlen (s), m = strlen (suffix);
  return n >= m && strcmp (s + n - m, suffix) == 0;
}

/* File names the walk reads: every C-family source and header (C,
   Objective-C, C++), since any of them may declare `initialized' next
   to <dumper/gflags.h>.  */
static const char *const c_family[] = {
  ".c", ".h", ".m", ".mm", ".cc", ".cp", ".cpp", ".cxx", ".c++", ".C",
  ".hh", ".hpp", ".hxx", ".h++", ".H", ".inc", NULL
};
/* Names that hold C-like text the tool does not read, and why.  */
static const char *const not_read[][2] = {
  { ".y", "yacc grammar, not C: migrate its C by hand" },
  { ".l", "lex source, not C: migrate its C by hand" },
  { ".in", "a template (configure input), not C" },
  { ".def", "a macro table, not C" },
  { ".s", "assembly" }, { ".S", "assembly" },
  { NULL, NULL }
};

static bool
c_family_name (const char *name)
{
  for (int k = 0; c_family[k]; k++)
    if (has_suffix (name, c_family[k]))
      return true;
  return false;
}

static void
skip (struct migrate_project *proj, const char *path, const char *why)
{
  migrate_grow (&proj->skipped, &proj->skipped_cap, (size_t) proj->nskipped + 1,
                sizeof *proj->skipped);
  proj->skipped[proj->nskipped].path = tool_xstrdup (path);
  proj->skipped[proj->nskipped++].why = why;
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static char *
join (const char *dir, const char *name)
{
  size_t n = strlen (dir);
  return migrate_xasprintf ("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/",
                            name);
}

static bool
error_at (const char *path, const char *why)
{
  fprintf (stderr, "dumper-migrate: %s: %s\n", path, why);
  return false;
}

static bool
walk (struct migrate_project *proj, const char *dir)
{
  DIR *d = opendir (dir);
  if (!d)
    return error_at (dir, strerror (errno));
  char **names = NULL;
  size_t count = 0, cap = 0;
  struct dirent *e;
  /* readdir ends with NULL on an error as at the end: errno tells them
     apart (on i386 without large-file support it was EOVERFLOW, and the
     directory looked empty).  */
  for (;;)
    {
      errno = 0;
      if ((e = readdir (d)) == NULL)
        break;
      if (e->d_name[0] == '.')
        {
          if (c_family_name (e->d_name))
            {
              char *hidden = join (dir, e->d_name);
              skip (proj, hidden, "hidden");
              free (hidden);
            }
          continue;
        }
      migrate_grow (&names, &cap, count + 1, sizeof *names);
      names[count++] = tool_xstrdup (e->d_name);
    }
  int read_error = errno;
  closedir (d);
  if (read_error != 0)
    {
      for (size_t i = 0; i < count; i++)
        free (names[i]);
      free (names);
      return error_at (dir, strerror (read_error));
    }
  qsort (names, count, sizeof *names, compare_names);
  bool ok = true;
  for (size_t i = 0; i < count; i++)
    {
      char *path = join (dir, names[i]);
      struct stat st;
      if (lstat (path, &st) != 0)
        ok = error_at (path, strerror (errno)) && ok;
      else if (S_ISDIR (st.st_mode))
        ok = walk (proj, path) && ok;
      else if (S_ISLNK (st.st_mode) && c_family_name (names[i]))
        skip (proj, path, "symbolic link (the file it names is read where"
              " the walk meets it)");
      else if (S_ISREG (st.st_mode) && has_suffix (names[i], ".orig"))
        {
          char *base = tool_xstrndup (names[i], strlen (names[i]) - 5);
          if (c_family_name (base))
            skip (proj, path, "backup written by --fix");
          free (base);
        }
      else if (S_ISREG (st.st_mode) && !c_family_name (names[i]))
        {
          for (int k = 0; not_read[k][0]; k++)
            if (has_suffix (names[i], not_read[k][0]))
              {
                skip (proj, path, not_read[k][1]);
                break;
              }
        }
      else if (S_ISREG (st.st_mode))
        {
          const char *why = NULL;
          if (load (proj, path, true, &why) < 0)
            ok = error_at (path, why);
        }
      free (path);
      free (names[i]);
    }
  free (names);
  return ok;
}

bool
migrate_project_add_path (struct migrate_project *proj, const char *path)
{
  struct stat st;
  if (stat (path, &st) != 0)
    return error_at (path, strerror (errno));
  if (S_ISDIR (st.st_mode))
    return walk (proj, path);
  if (!S_ISREG (st.st_mode))
    return error_at (path, "not a regular file or directory");
  const char *why = NULL;
  if (load (proj, path, true, &why) < 0)
    return error_at (path, why);
  return true;
}

/* ------------------------------------------------------------------ */
/* Includes.  */

static char *
dir_of (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash ? tool_xstrndup (path, (size_t) (slash - path) + 1)
    : tool_xstrdup ("");
}

static bool
regular_file (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 && S_ISREG (st.st_mode);
}

/* The project index of header NAME included by file FI, or -1.  */
static int
resolve_one (struct migrate_project *proj, int fi, const char *name,
             bool quoted)
{
  char *found = NULL;
  if (name[0] == '/')
    found = regular_file (name) ? tool_xstrdup (name) : NULL;
  if (!found && quoted && name[0] != '/')
    {
      char *dir = dir_of (proj->files[fi]->path);
      char *cand = migrate_xasprintf ("%s%s", dir, name);
      free (dir);
      if (regular_file (cand))
        found = cand;
      else
        free (cand);
    }
  for (int k = 0; !found && name[0] != '/' && k < proj->ninclude_dirs; k++)
    {
      char *cand = join (proj->include_dirs[k], name);
      if (regular_file (cand))
        found = cand;
      else
        free (cand);
    }
  if (!found)
    return -1;
  const char *why = NULL;
  int index = load (proj, found, false, &why);
  free (found);
  return index;
}

static void
resolve_file (struct migrate_project *proj, int fi)
{
  struct migrate_file *f = proj->files[fi];
  size_t cap = 0;
  for (int d = 0; d < f->ndirs; d++)
    {
      const struct migrate_directive *dir = &f->dirs[d];
      if (migrate_tok_dead (f, dir->hash))
        continue;
      if (dir->kind == MIGRATE_D_DEFINE && dir->first < dir->end
          && migrate_tok_is (f, dir->first, "DUMPER_GFLAGS_NO_SHORT_NAMES"))
        f->defines_no_short = true;
      if (dir->kind != MIGRATE_D_INCLUDE || dir->first >= dir->end)
        continue;
      const struct migrate_token *t = &f->toks[dir->first];
      bool quoted = t->kind == MIGRATE_T_STRING;
      if (!quoted && t->kind != MIGRATE_T_HEADER)
        continue;             /* #include MACRO */
      if (t->end - t->start < 2)
        continue;
      char *name = tool_xstrndup (f->text + t->start + 1, t->end - t->start - 2);
      if (strcmp (name, "dumper/dumper.h") == 0)
        f->includes_gflags = f->includes_dumper = true;
      else if (strcmp (name, "dumper/gflags.h") == 0)
        f->includes_gflags = true;
      else
        {
          int index = resolve_one (proj, fi, name, quoted);
          f = proj->files[fi];        /* the array may have moved */
          if (index >= 0 && index != fi)
            {
              migrate_grow (&f->includes, &cap, (size_t) f->nincludes + 1,
                            sizeof *f->includes);
              f->includes[f->nincludes++] = index;
            }
          else if (index < 0 && quoted)
            f->unresolved_include = true;
        }
      free (name);
    }
}

enum reach { REACH_GFLAGS, REACH_DUMPER, REACH_NO_SHORT, REACH_INIT_KEPT,
             REACH_INIT_DELETED };

static bool
reaches (struct migrate_project *proj, int fi, enum reach what,
         const unsigned char *plan)
{
  struct migrate_file *f = proj->files[fi];
  if (f->visit == proj->generation)
    return false;
  f->visit = proj->generation;
  switch (what)
    {
    case REACH_GFLAGS:
      if (f->includes_gflags || (plan && plan[fi] != MIGRATE_PLAN_NONE))
        return true;
      break;
    case REACH_DUMPER:
      if (f->includes_dumper || (plan && plan[fi] == MIGRATE_PLAN_DUMPER))
        return true;
      break;
    case REACH_NO_SHORT:
      if (f->defines_no_short)
        return true;
      break;
    case REACH_INIT_KEPT:
      if (f->init_decl_survives)
        return true;
      break;
    case REACH_INIT_DELETED:
      if (f->init_decl_deleted)
        return true;
      break;
    }
  for (int k = 0; k < f->nincludes; k++)
    if (reaches (proj, f->includes[k], what, plan))
      return true;
  return false;
}

static bool
reach_from (struct migrate_project *proj, int fi, enum reach what,
            const unsigned char *plan)
{
  proj->generation++;
  return reaches (proj, fi, what, plan);
}

bool
migrate_sees_gflags (struct migrate_project *proj, int file,
                     const unsigned char *plan)
{
  return reach_from (proj, file, REACH_GFLAGS, plan);
}

bool
migrate_sees_dumper (struct migrate_project *proj, int file,
                     const unsigned char *plan)
{
  return reach_from (proj, file, REACH_DUMPER, plan);
}

bool
migrate_sees_legacy_init (struct migrate_project *proj, int file, bool deleted)
{
  return reach_from (proj, file, deleted ? REACH_INIT_DELETED : REACH_INIT_KEPT,
                     NULL);
}

void
migrate_project_resolve (struct migrate_project *proj)
{
  /* Headers loaded here are appended and resolved in turn.  */
  for (int fi = 0; fi < proj->nfiles; fi++)
    resolve_file (proj, fi);
  for (int fi = 0; fi < proj->nfiles; fi++)
    proj->files[fi]->no_short_names = reach_from (proj, fi, REACH_NO_SHORT, NULL);
}
