/* SPDX-License-Identifier: MIT */
/* tools/migrate/rules.c: the rule catalogue and the analysis driver.

   Owns the pattern ids (the stable names printed in every report), the
   site and edit records the rule files add to, the atom classifier
   they share, and the order of the analysis: flag parameters (across
   files) first, because they decide what `dumping' means inside a
   function; then per file the CANNOT_DUMP conditionals, which consume
   the flags they rewrite; then the remaining flag uses.  Afterwards it
   drops suppressed and unselected sites with their edits, plans the
   #include <dumper/gflags.h> (or dumper.h) lines the certain edits
   need, and sorts everything so output never depends on walk order.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>

const char MIGRATE_P_GUARD[] = "cannot-dump-guard";
const char MIGRATE_P_ONLY[] = "cannot-dump-only";
const char MIGRATE_P_OTHER[] = "cannot-dump-other";
const char MIGRATE_P_INIT_DECL[] = "initialized-decl";
const char MIGRATE_P_INIT_SET[] = "initialized-set";
const char MIGRATE_P_INIT_TEST[] = "initialized-test";
const char MIGRATE_P_MIGHT_DECL[] = "might-dump-decl";
const char MIGRATE_P_MIGHT_SET[] = "might-dump-set";
const char MIGRATE_P_MIGHT_USE[] = "might-dump-use";
const char MIGRATE_P_DUMPING_LOCAL[] = "dumping-local";
const char MIGRATE_P_DUMPING_USE[] = "dumping-use";
const char MIGRATE_P_PARAM[] = "flag-parameter";
const char MIGRATE_P_PURIFY[] = "purify-flag";
const char MIGRATE_P_COLLISION[] = "name-collision";
const char MIGRATE_P_INCLUDE[] = "gflags-include";
const char MIGRATE_P_LEFTOVER[] = "leftover";

const struct migrate_pattern migrate_patterns[] = {
  { MIGRATE_P_GUARD, "#ifndef CANNOT_DUMP around a dump test or dump-only code" },
  { MIGRATE_P_ONLY, "#ifdef CANNOT_DUMP: code for builds that cannot dump" },
  { MIGRATE_P_OTHER, "any other preprocessor use of CANNOT_DUMP" },
  { MIGRATE_P_INIT_DECL, "the runtime's own `initialized' variable" },
  { MIGRATE_P_INIT_SET, "an assignment to `initialized'" },
  { MIGRATE_P_INIT_TEST, "a read of the runtime's own `initialized'" },
  { MIGRATE_P_MIGHT_DECL, "the `might_dump' variable" },
  { MIGRATE_P_MIGHT_SET, "an assignment to `might_dump'" },
  { MIGRATE_P_MIGHT_USE, "a read of `might_dump'" },
  { MIGRATE_P_DUMPING_LOCAL, "a local `dumping' computed from argv" },
  { MIGRATE_P_DUMPING_USE, "a read of that `dumping' local or parameter" },
  { MIGRATE_P_PARAM, "a function taking `initialized' or `dumping'" },
  { MIGRATE_P_PURIFY, "NILP (Vpurify_flag) used as a dump test" },
  { MIGRATE_P_COLLISION, "a name that collides with a gflags short name" },
  { MIGRATE_P_INCLUDE, "gflags names used without <dumper/gflags.h>" },
  { MIGRATE_P_LEFTOVER, "something a rewrite would leave behind" },
};
const int migrate_npatterns = sizeof migrate_patterns / sizeof migrate_patterns[0];

const struct migrate_pattern *
migrate_pattern_find (const char *id)
{
  for (int k = 0; k < migrate_npatterns; k++)
    if (strcmp (migrate_patterns[k].id, id) == 0)
      return &migrate_patterns[k];
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Sites and edits.  */

int
migrate_site_add (struct migrate_project *proj, int file, int tok,
                  const char *pattern, enum migrate_conf conf, char *what,
                  char *suggestion)
{
  const struct migrate_file *f = proj->files[file];
  migrate_grow (&proj->sites, &proj->sites_cap, proj->nsites + 1,
                sizeof *proj->sites);
  struct migrate_site *s = &proj->sites[proj->nsites];
  s->file = file;
  s->line = f->toks[tok].line;
  s->col = f->toks[tok].col;
  s->pattern = pattern;
  s->conf = conf;
  s->what = what;
  s->suggestion = suggestion;
  s->held = false;
  return (int) proj->nsites++;
}

void
migrate_site_demote (struct migrate_project *proj, size_t s, const char *why)
{
  struct migrate_site *site = &proj->sites[s];
  if (site->conf == MIGRATE_REVIEW)
    return;
  site->conf = MIGRATE_REVIEW;
  char *old = site->suggestion;
  site->suggestion = migrate_xasprintf ("%s; review: %s", old ? old : "", why);
  free (old);
  size_t kept = 0;
  for (size_t e = 0; e < proj->nedits; e++)
    {
      if (proj->edits[e].site == (int) s)
        {
          free (proj->edits[e].text);
          continue;
        }
      proj->edits[kept++] = proj->edits[e];
    }
  proj->nedits = kept;
}

/* `might_dump' read or set at a review site still needs its
   declaration: keep it (a deleted one would not compile).  */
static void
keep_needed_decls (struct migrate_project *proj)
{
  bool used = false;
  for (size_t s = 0; s < proj->nsites && !used; s++)
    used = proj->sites[s].conf == MIGRATE_REVIEW
      && (proj->sites[s].pattern == MIGRATE_P_MIGHT_SET
          || proj->sites[s].pattern == MIGRATE_P_MIGHT_USE);
  for (size_t s = 0; s < proj->nsites && used; s++)
    if (proj->sites[s].pattern == MIGRATE_P_MIGHT_DECL
        || (proj->sites[s].pattern == MIGRATE_P_ONLY && proj->sites[s].what
            && strstr (proj->sites[s].what, "`# define might_dump")))
      migrate_site_demote (proj, s, "`might_dump' is still used at a review"
                           " site, which needs this declaration");
}

void
migrate_edit_add (struct migrate_project *proj, int file, size_t start,
                  size_t end, const char *text, int site)
{
  migrate_grow (&proj->edits, &proj->edits_cap, proj->nedits + 1,
                sizeof *proj->edits);
  struct migrate_edit *e = &proj->edits[proj->nedits++];
  e->file = file;
  e->start = start;
  e->end = end;
  e->text = tool_xstrdup (text);
  e->site = site;
}

static size_t
line_begin (const struct migrate_file *f, size_t pos)
{
  while (pos > 0 && f->text[pos - 1] != '\n')
    pos--;
  return pos;
}

static size_t
line_after (const struct migrate_file *f, size_t pos)
{
  while (pos < f->len && f->text[pos] != '\n')
    pos++;
  return pos < f->len ? pos + 1 : pos;
}

/* The line starting at POS holds only white space.  */
static bool
blank_line_at (const struct migrate_file *f, size_t pos)
{
  while (pos < f->len && (f->text[pos] == ' ' || f->text[pos] == '\t'
                          || f->text[pos] == '\r'))
    pos++;
  return pos < f->len && f->text[pos] == '\n';
}

/* Delete the whole lines [A, B) (A at a line start, B after a newline),
   and one blank line after them when a blank line (or the start of
   the file) precedes them, so no run of blank lines is left behind.  */
static void
delete_whole_lines (struct migrate_project *proj, int file, size_t a, size_t b,
                    int site)
{
  const struct migrate_file *f = proj->files[file];
  if ((a == 0 || blank_line_at (f, line_begin (f, a - 1))) && blank_line_at (f, b))
    b = line_after (f, b);
  migrate_edit_add (proj, file, a, b, "", site);
}

void
migrate_edit_delete_lines (struct migrate_project *proj, int file,
                           size_t start, size_t end, int site)
{
  const struct migrate_file *f = proj->files[file];
  delete_whole_lines (proj, file, line_begin (f, start),
                      line_after (f, end > start ? end - 1 : start), site);
}

void
migrate_claim (struct migrate_file *f, int first, int last)
{
  for (int i = first; i >= 0 && i <= last && i < f->ntoks; i++)
    f->claimed[i] = 1;
}

/* The comment that starts at or after POS on the same line, or -1.  */
static int
comment_at (const struct migrate_file *f, size_t pos)
{
  for (int c = 0; c < f->ncomments; c++)
    if (f->comments[c].start == pos)
      return c;
  return -1;
}

/* Only white space and comments between POS and the end of its line.  */
static bool
rest_of_line_blank (const struct migrate_file *f, size_t pos)
{
  while (pos < f->len && f->text[pos] != '\n')
    {
      char c = f->text[pos];
      if (c == ' ' || c == '\t' || c == '\r')
        pos++;
      else
        {
          int k = comment_at (f, pos);
          if (k < 0)
            return false;
          size_t end = f->comments[k].end;
          if (memchr (f->text + pos, '\n', end - pos))
            return false;
          pos = end;
        }
    }
  return true;
}

static bool
blank_before (const struct migrate_file *f, size_t pos)
{
  size_t b = line_begin (f, pos);
  for (size_t k = b; k < pos; k++)
    if (f->text[k] != ' ' && f->text[k] != '\t')
      return false;
  return true;
}

/* The start of a comment block that ends on the line just above the
   line starting at POS and begins its own line, or POS.  */
size_t
migrate_attached_comment (const struct migrate_file *f, size_t pos)
{
  if (pos == 0)
    return pos;
  size_t prev_end = pos - 1;          /* the newline ending the line above */
  size_t k = prev_end;
  while (k > 0 && (f->text[k - 1] == ' ' || f->text[k - 1] == '\t'))
    k--;
  for (int c = 0; c < f->ncomments; c++)
    if (f->comments[c].end == k && f->text[f->comments[c].start] == '/'
        && f->text[f->comments[c].start + 1] == '*'
        && blank_before (f, f->comments[c].start))
      return line_begin (f, f->comments[c].start);
  return pos;
}

bool
migrate_controlled_body (const struct migrate_file *f, int i)
{
  int p = migrate_prev (f, i);
  if (p < 0)
    return false;
  if (migrate_tok_is (f, p, "else") || migrate_tok_is (f, p, "do"))
    return true;
  if (!migrate_tok_is (f, p, ")") || f->toks[p].match < 0)
    return false;
  int kw = migrate_prev (f, f->toks[p].match);
  static const char *const controls[] = { "if", "while", "for", "switch", NULL };
  return kw >= 0 && migrate_tok_in (f, kw, controls);
}

bool
migrate_edit_delete_tokens (struct migrate_project *proj, int file,
                            int first, int last, int site)
{
  const struct migrate_file *f = proj->files[file];
  size_t a = f->toks[first].start, b = f->toks[last].end;
  /* Deleting the statement an `if' or a loop controls would make the
     next statement its body.  */
  if (migrate_controlled_body (f, first))
    return false;
  if (!blank_before (f, a) || !rest_of_line_blank (f, b))
    {
      migrate_edit_add (proj, file, a, b, "", site);
      return true;
    }
  a = line_begin (f, a);
  b = line_after (f, b);
  /* Take in every conditional group the lines straddle.  */
  bool grew = true;
  while (grew)
    {
      grew = false;
      for (int d = 0; d < f->ndirs; d++)
        {
          const struct migrate_directive *dir = &f->dirs[d];
          if (dir->group < 0 || dir->line_end <= a || dir->line_start >= b
              || migrate_tok_dead (f, dir->hash))
            continue;
          const struct migrate_group *g = &f->groups[dir->group];
          if (g->endif < 0)
            return false;
          size_t ga = f->dirs[f->branches[g->first_branch].directive].line_start;
          size_t gb = f->dirs[g->endif].line_end;
          if (ga < a || gb > b)
            {
              a = ga < a ? ga : a;
              b = gb > b ? gb : b;
              grew = true;
            }
        }
    }
  static const char *const legacy[] = { "might_dump", "initialized", NULL };
  for (int i = 0; i < f->ntoks; i++)
    {
      if (f->toks[i].start < a || f->toks[i].start >= b || (i >= first && i <= last))
        continue;
      if (migrate_is_code (f, i))
        return false;
      /* A directive other than the conditionals taken in (and a
         `#define' of the legacy flag itself) would go with them.  */
      int d = f->toks[i].directive;
      if (d >= 0 && i == f->dirs[d].hash && !migrate_tok_dead (f, i)
          && f->dirs[d].kind != MIGRATE_D_IF && f->dirs[d].kind != MIGRATE_D_IFDEF
          && f->dirs[d].kind != MIGRATE_D_IFNDEF && f->dirs[d].kind != MIGRATE_D_ELIF
          && f->dirs[d].kind != MIGRATE_D_ELSE && f->dirs[d].kind != MIGRATE_D_ENDIF
          && !(f->dirs[d].kind == MIGRATE_D_DEFINE && f->dirs[d].first < f->dirs[d].end
               && migrate_tok_in (f, f->dirs[d].first, legacy)))
        return false;
    }
  delete_whole_lines (proj, file, migrate_attached_comment (f, a), b, site);
  return true;
}

/* ------------------------------------------------------------------ */
/* What a token means in a dump condition.  */

static const char *const gflag_short_names[] = {
  "will_dump", "will_dump_with_unexec", "will_dump_with_pdumper",
  "dumped_with_unexec", "dumped_with_pdumper", NULL
};
static const char *const gflag_long_names[] = {
  "dumper_will_dump", "dumper_will_dump_with_unexec",
  "dumper_will_dump_with_pdumper", "dumper_dumped_with_unexec",
  "dumper_dumped_with_pdumper", NULL
};

bool
migrate_is_gflag_name (const struct migrate_file *f, int i, bool *short_name)
{
  bool is_short = migrate_tok_in (f, i, gflag_short_names);
  if (short_name)
    *short_name = is_short;
  return is_short || migrate_tok_in (f, i, gflag_long_names);
}

bool
migrate_is_assigned (const struct migrate_file *f, int i)
{
  int n = migrate_next (f, i), p = migrate_prev (f, i);
  static const char *const ops[] = {
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
    "++", "--", NULL
  };
  if (n < f->ntoks && migrate_tok_in (f, n, ops))
    return true;
  return p >= 0 && (migrate_tok_is (f, p, "++") || migrate_tok_is (f, p, "--"));
}

/* The code tokens of statement or expression [FIRST, LAST] mention argv.  */
static bool
mentions_argv (const struct migrate_file *f, int first, int last)
{
  for (int j = first; j >= 0 && j <= last && j < f->ntoks; j = migrate_next (f, j))
    if (f->toks[j].kind == MIGRATE_T_IDENT && migrate_tok_is (f, j, "argv"))
      return true;
  return false;
}

/* The `;' ending the expression starting at I, or -1.  */
static int
semicolon_after (const struct migrate_file *f, int i)
{
  for (int j = i; j < f->ntoks; j = migrate_next (f, j))
    {
      if (migrate_tok_is (f, j, ";"))
        return j;
      if (migrate_tok_is (f, j, "}") || migrate_tok_is (f, j, "{"))
        return -1;
      if (f->toks[j].match > j)
        j = f->toks[j].match;
    }
  return -1;
}

int
migrate_argv_dumping (const struct migrate_file *f, int func)
{
  if (func < 0 || f->funcs[func].body < 0)
    return -1;
  int body = f->funcs[func].body, close = f->toks[body].match;
  int limit = close > body ? close : f->ntoks;
  int decl = -1;
  bool from_argv = false;
  for (int j = body; j < limit; j = migrate_next (f, j))
    {
      if (f->toks[j].kind != MIGRATE_T_IDENT || !migrate_tok_is (f, j, "dumping")
          || migrate_is_member (f, j))
        continue;
      if (decl < 0 && migrate_is_declarator (f, j))
        decl = j;
      int eq = migrate_next (f, j);
      if (eq < limit && migrate_tok_is (f, eq, "="))
        from_argv |= mentions_argv (f, eq, semicolon_after (f, eq));
    }
  return (decl >= 0 && from_argv) ? decl : -1;
}

enum migrate_atom
migrate_rule_atom (const struct migrate_file *f, int i, void *data)
{
  (void) data;
  if (f->toks[i].kind != MIGRATE_T_IDENT || migrate_is_member (f, i)
      || migrate_is_declarator (f, i))
    return MIGRATE_A_NONE;
  int func = f->toks[i].func;
  if (migrate_tok_is (f, i, "initialized"))
    {
      if (func >= 0 && f->funcs[func].dropped_param >= 0
          && migrate_tok_is (f, f->funcs[func].dropped_param, "initialized"))
        return MIGRATE_A_INITIALIZED;
      return migrate_shadowed (f, i, "initialized") ? MIGRATE_A_NONE
        : MIGRATE_A_INITIALIZED;
    }
  if (migrate_tok_is (f, i, "might_dump"))
    return migrate_shadowed (f, i, "might_dump") ? MIGRATE_A_NONE : MIGRATE_A_WILL;
  if (migrate_tok_is (f, i, "dumping"))
    {
      if (func < 0)
        return MIGRATE_A_NONE;
      int dropped = f->funcs[func].dropped_param;
      if (dropped >= 0 && migrate_tok_is (f, dropped, "dumping"))
        return MIGRATE_A_WILL;
      if (migrate_param_find (f, func, "dumping") >= 0)
        return MIGRATE_A_NONE;
      return migrate_argv_dumping (f, func) >= 0 ? MIGRATE_A_WILL : MIGRATE_A_NONE;
    }
  if (migrate_tok_is (f, i, "NILP"))
    {
      int open = migrate_next (f, i);
      int arg = open < f->ntoks ? migrate_next (f, open) : f->ntoks;
      int close = arg < f->ntoks ? migrate_next (f, arg) : f->ntoks;
      if (close < f->ntoks && migrate_tok_is (f, open, "(")
          && migrate_tok_is (f, arg, "Vpurify_flag") && migrate_tok_is (f, close, ")"))
        return MIGRATE_A_PURIFY;
      return MIGRATE_A_NONE;
    }
  if (migrate_is_gflag_name (f, i, NULL))
    return MIGRATE_A_GFLAG_WILL;
  return MIGRATE_A_NONE;
}

/* ------------------------------------------------------------------ */
/* After the rules.  */

static bool
selected (const char *pattern, const char *const *list)
{
  if (!list)
    return true;
  for (int k = 0; list[k]; k++)
    if (strcmp (list[k], pattern) == 0)
      return true;
  return false;
}

/* Drop the sites for which DROP[site] is set, with their edits.  */
static void
drop_sites (struct migrate_project *proj, const bool *drop)
{
  int *map = tool_xmalloc ((proj->nsites ? proj->nsites : 1) * sizeof *map);
  size_t kept = 0;
  for (size_t s = 0; s < proj->nsites; s++)
    {
      if (drop[s])
        {
          free (proj->sites[s].what);
          free (proj->sites[s].suggestion);
          map[s] = -1;
          continue;
        }
      map[s] = (int) kept;
      proj->sites[kept++] = proj->sites[s];
    }
  proj->nsites = kept;
  size_t ekept = 0;
  for (size_t e = 0; e < proj->nedits; e++)
    {
      struct migrate_edit *ed = &proj->edits[e];
      if (ed->site >= 0 && map[ed->site] < 0)
        {
          free (ed->text);
          continue;
        }
      if (ed->site >= 0)
        ed->site = map[ed->site];
      proj->edits[ekept++] = *ed;
    }
  proj->nedits = ekept;
  free (map);
}

/* Where an #include line goes in F: after the last #include at the top
   level (or inside the include guard) before the first function body;
   else after the guard's #define; else before the first token.  */
static size_t
include_position (const struct migrate_file *f)
{
  int guard_branch = -1, guard_define = -1;
  if (f->ngroups > 0 && f->ndirs > 1 && f->dirs[0].kind == MIGRATE_D_IFNDEF
      && f->dirs[0].group == 0 && f->groups[0].endif == f->ndirs - 1
      && f->dirs[1].kind == MIGRATE_D_DEFINE)
    {
      guard_branch = f->groups[0].first_branch;
      guard_define = 1;
    }
  int first_body = f->ntoks;
  for (int k = 0; k < f->nfuncs; k++)
    if (f->funcs[k].body >= 0 && f->funcs[k].body < first_body)
      first_body = f->funcs[k].body;
  int last_include = -1;
  for (int d = 0; d < f->ndirs; d++)
    {
      int b = f->toks[f->dirs[d].hash].branch;
      if (f->dirs[d].kind == MIGRATE_D_INCLUDE && f->dirs[d].hash < first_body
          && (b < 0 || b == guard_branch))
        last_include = d;
    }
  if (last_include >= 0)
    return f->dirs[last_include].line_end;
  if (guard_define >= 0)
    return f->dirs[guard_define].line_end;
  return f->ntoks > 0 ? line_begin (f, f->toks[0].start) : 0;
}

/* The project the comparison functions below sort for (qsort has no
   context argument in ISO C).  */
static const struct migrate_project *sorting;

static int
compare_file_order (const void *a, const void *b)
{
  const struct migrate_project *proj = sorting;
  const struct migrate_file *fa = proj->files[*(const int *) a];
  const struct migrate_file *fb = proj->files[*(const int *) b];
  size_t la = strlen (fa->path), lb = strlen (fb->path);
  bool ha = la > 2 && strcmp (fa->path + la - 2, ".h") == 0;
  bool hb = lb > 2 && strcmp (fb->path + lb - 2, ".h") == 0;
  if (ha != hb)
    return ha ? -1 : 1;
  return strcmp (fa->path, fb->path);
}

/* Set each file's init_decl_survives / init_decl_deleted: a file-scope
   declaration of `initialized', and whether an initialized-decl edit
   removes it.  */
static void
mark_legacy_init_decls (struct migrate_project *proj)
{
  for (int fi = 0; fi < proj->nfiles; fi++)
    {
      struct migrate_file *f = proj->files[fi];
      for (int i = 0; i < f->ntoks; i++)
        {
          if (f->toks[i].func >= 0 || f->toks[i].open >= 0
              || f->toks[i].kind != MIGRATE_T_IDENT || !migrate_is_code (f, i)
              || !migrate_tok_is (f, i, "initialized")
              || !migrate_is_declarator (f, i) || migrate_is_member (f, i))
            continue;
          bool deleted = false;
          for (size_t e = 0; e < proj->nedits && !deleted; e++)
            {
              const struct migrate_edit *ed = &proj->edits[e];
              deleted = ed->file == fi && ed->site >= 0
                && proj->sites[ed->site].pattern == MIGRATE_P_INIT_DECL
                && ed->start <= f->toks[i].start && f->toks[i].start < ed->end;
            }
          bool in_params = false;
          for (int k = 0; k < f->nfuncs; k++)
            in_params |= f->funcs[k].lparen < i && i < f->funcs[k].rparen;
          if (in_params)
            continue;
          if (deleted)
            f->init_decl_deleted = true;
          else
            f->init_decl_survives = true;
        }
    }
}

/* Add the include lines the certain edits need; with REPORT_MISSING,
   also a gflags-include site for each file that already uses gflags
   names without the header.  */
static void
plan_includes (struct migrate_project *proj, bool report_missing)
{
  int n = proj->nfiles;
  unsigned char *need = tool_xcalloc ((size_t) n, 1);
  unsigned char *plan = tool_xcalloc ((size_t) n, 1);
  int *site_of = tool_xmalloc ((size_t) (n ? n : 1) * sizeof *site_of);
  for (int fi = 0; fi < n; fi++)
    site_of[fi] = -1;
  for (size_t e = 0; e < proj->nedits; e++)
    {
      const struct migrate_edit *ed = &proj->edits[e];
      unsigned char want = MIGRATE_PLAN_NONE;
      if (strstr (ed->text, "dumper_mark_initialized"))
        want = MIGRATE_PLAN_DUMPER;
      else if (strstr (ed->text, "will_dump") || strstr (ed->text, "dumped_with"))
        want = MIGRATE_PLAN_GFLAGS;
      if (want > need[ed->file])
        need[ed->file] = want;
    }
  /* Files already using gflags names without the header, and files
     reading `initialized' once no legacy declaration of it is left.  */
  mark_legacy_init_decls (proj);
  for (int fi = 0; fi < n; fi++)
    {
      struct migrate_file *f = proj->files[fi];
      if (!f->in_paths)
        continue;
      bool reads = f->reads_initialized >= 0
        && !migrate_sees_legacy_init (proj, fi, false)
        && (migrate_sees_legacy_init (proj, fi, true) || !f->unresolved_include);
      unsigned char want = f->uses_mark >= 0 ? MIGRATE_PLAN_DUMPER
        : (f->uses_gflags_name >= 0 || reads) ? MIGRATE_PLAN_GFLAGS
        : MIGRATE_PLAN_NONE;
      if (f->unresolved_include && !reads)
        want = MIGRATE_PLAN_NONE;
      bool missing = want == MIGRATE_PLAN_DUMPER ? !migrate_sees_dumper (proj, fi, NULL)
        : want == MIGRATE_PLAN_GFLAGS ? !migrate_sees_gflags (proj, fi, NULL) : false;
      if (!missing || (!report_missing && !reads))
        continue;
      if (want > need[fi])
        need[fi] = want;
      site_of[fi] = f->uses_mark >= 0 ? f->uses_mark
        : f->uses_gflags_name >= 0 ? f->uses_gflags_name : f->reads_initialized;
    }
  int *order = tool_xmalloc ((size_t) (n ? n : 1) * sizeof *order);
  for (int fi = 0; fi < n; fi++)
    order[fi] = fi;
  sorting = proj;
  qsort (order, (size_t) n, sizeof *order, compare_file_order);
  for (int k = 0; k < n; k++)
    {
      int fi = order[k];
      if (need[fi] == MIGRATE_PLAN_DUMPER && !migrate_sees_dumper (proj, fi, plan))
        plan[fi] = MIGRATE_PLAN_DUMPER;
      else if (need[fi] != MIGRATE_PLAN_NONE && !migrate_sees_gflags (proj, fi, plan))
        plan[fi] = MIGRATE_PLAN_GFLAGS;
      if (plan[fi] == MIGRATE_PLAN_NONE)
        continue;
      const struct migrate_file *f = proj->files[fi];
      size_t pos = include_position (f);
      const char *header = plan[fi] == MIGRATE_PLAN_DUMPER ? "dumper/dumper.h"
        : "dumper/gflags.h";
      char *line = migrate_xasprintf ("%s#include <%s>\n",
                                      (pos > 0 && f->text[pos - 1] != '\n')
                                      ? "\n" : "", header);
      int site = -1;
      if (site_of[fi] >= 0 && report_missing)
        {
          int tok = site_of[fi];
          char *name = migrate_tok_text (f, tok);
          site = migrate_site_add
            (proj, fi, tok, MIGRATE_P_INCLUDE, MIGRATE_CERTAIN,
             migrate_xasprintf ("`%s' is used but <%s> is not included%s", name,
                                header, tok == f->reads_initialized
                                ? " (no legacy declaration of `initialized'"
                                " is left)" : ""),
             migrate_xasprintf ("add `#include <%s>'", header));
          free (name);
        }
      migrate_edit_add (proj, fi, pos, pos, line, site);
      free (line);
    }
  free (order);
  free (site_of);
  free (need);
  free (plan);
}

static int
compare_sites (const void *a, const void *b)
{
  const struct migrate_project *proj = sorting;
  const struct migrate_site *sa = &proj->sites[*(const int *) a];
  const struct migrate_site *sb = &proj->sites[*(const int *) b];
  int c = strcmp (proj->files[sa->file]->path, proj->files[sb->file]->path);
  if (c)
    return c;
  if (sa->line != sb->line)
    return sa->line < sb->line ? -1 : 1;
  if (sa->col != sb->col)
    return sa->col < sb->col ? -1 : 1;
  c = strcmp (sa->pattern, sb->pattern);
  if (c)
    return c;
  return *(const int *) a - *(const int *) b;
}

static void
sort_sites (struct migrate_project *proj)
{
  size_t n = proj->nsites;
  int *order = tool_xmalloc ((n ? n : 1) * sizeof *order);
  for (size_t s = 0; s < n; s++)
    order[s] = (int) s;
  sorting = proj;
  qsort (order, n, sizeof *order, compare_sites);
  int *map = tool_xmalloc ((n ? n : 1) * sizeof *map);
  struct migrate_site *sorted = tool_xmalloc ((n ? n : 1) * sizeof *sorted);
  for (size_t k = 0; k < n; k++)
    {
      sorted[k] = proj->sites[order[k]];
      map[order[k]] = (int) k;
    }
  free (proj->sites);
  proj->sites = sorted;
  proj->sites_cap = n ? n : 1;
  for (size_t e = 0; e < proj->nedits; e++)
    if (proj->edits[e].site >= 0)
      proj->edits[e].site = map[proj->edits[e].site];
  free (map);
  free (order);
}

void
migrate_analyse (struct migrate_project *proj, const char *const *selection)
{
  for (int fi = 0; fi < proj->nfiles; fi++)
    {
      struct migrate_file *f = proj->files[fi];
      f->claimed = tool_xcalloc ((size_t) f->ntoks + 1, 1);
      f->uses_gflags_name = f->uses_mark = f->reads_initialized = -1;
    }
  migrate_machinery_build (proj);
  migrate_rule_params (proj);
  int nfiles = proj->nfiles;
  for (int fi = 0; fi < nfiles; fi++)
    {
      struct migrate_file *f = proj->files[fi];
      if (!f->in_paths)
        continue;
      struct migrate_rulectx ctx = { proj, fi, f, migrate_sees_gflags (proj, fi, NULL) };
      migrate_rule_guards (&ctx);
      migrate_rule_flags (&ctx);
    }

  migrate_markers_apply (proj);
  keep_needed_decls (proj);
  bool *drop = tool_xcalloc (proj->nsites + 1, sizeof *drop);
  for (int fi = 0; fi < nfiles; fi++)
    {
      bool *keep = migrate_keep_lines (proj->files[fi]);
      for (size_t s = 0; keep && s < proj->nsites; s++)
        if (proj->sites[s].file == fi && keep[proj->sites[s].line])
          drop[s] = true;
      free (keep);
    }
  for (size_t s = 0; s < proj->nsites; s++)
    if (!selected (proj->sites[s].pattern, selection))
      drop[s] = true;
  drop_sites (proj, drop);
  free (drop);

  plan_includes (proj, selected (MIGRATE_P_INCLUDE, selection));
  migrate_edits_normalize (proj);
  if (selected (MIGRATE_P_LEFTOVER, selection))
    migrate_leftovers (proj);
  sort_sites (proj);
  migrate_edits_normalize (proj);
  migrate_markers_plan (proj);
  migrate_edits_normalize (proj);
}

size_t
migrate_count_sites (const struct migrate_project *proj, enum migrate_conf conf)
{
  size_t n = 0;
  for (size_t s = 0; s < proj->nsites; s++)
    n += proj->sites[s].conf == conf;
  return n;
}
