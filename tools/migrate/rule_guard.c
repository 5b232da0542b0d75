/* SPDX-License-Identifier: MIT */
/* tools/migrate/rule_guard.c: the CANNOT_DUMP conditional rules.

   Owns cannot-dump-guard (#ifndef CANNOT_DUMP and #if !defined
   CANNOT_DUMP), cannot-dump-only (#ifdef CANNOT_DUMP) and
   cannot-dump-other (every other directive naming CANNOT_DUMP), plus
   might-dump-set when the assignment is all a guard holds.

   A guard is rewritten only in one of these shapes, and only when
   expr.c proves that in a `none' build (every dump flag false) the
   rewritten code behaves as the legacy code did with CANNOT_DUMP
   defined, i.e. as if the guarded text were absent:

     head       #ifndef CANNOT_DUMP / if (C) / #endif  S     C' must be true
     statement  #ifndef CANNOT_DUMP / if (C) S; / #endif     C' must be false
     fragment   ... #ifndef CANNOT_DUMP / && C / #endif ...  C' true (|| : false)
     expr-else  #ifndef CANNOT_DUMP / (C) / #else / (0) / #endif   C' false
     empty      #ifndef CANNOT_DUMP / #endif

   In a dumping build C' equals C under the legacy meaning of the flags
   (initialized = "not while dumping").  Anything else is reported for
   review with the candidates; nothing is guessed.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>

enum shape { SHAPE_HEAD, SHAPE_STATEMENT, SHAPE_FRAGMENT, SHAPE_EXPR_ELSE };

static bool
is (const struct migrate_file *f, int i, const char *s)
{
  return i >= 0 && i < f->ntoks && migrate_tok_is (f, i, s);
}

static int
first_code_in (const struct migrate_file *f, int a, int b)
{
  for (int i = a; i < b; i++)
    if (migrate_is_code (f, i))
      return i;
  return b;
}

static int
last_code_in (const struct migrate_file *f, int a, int b)
{
  for (int i = b - 1; i >= a; i--)
    if (migrate_is_code (f, i))
      return i;
  return -1;
}

static bool
nested_directive (const struct migrate_file *f, int a, int b)
{
  for (int i = a; i < b; i++)
    if (f->toks[i].directive >= 0 && i == f->dirs[f->toks[i].directive].hash
        && !migrate_tok_dead (f, i))
      return true;
  return false;
}

/* Code tokens [FIRST, END) hold a legacy `initialized' atom that is not
   directly negated.  */
static bool
positive_initialized (const struct migrate_file *f, int first, int end)
{
  for (int i = first; i < end && i >= 0; i = migrate_next (f, i))
    if (migrate_rule_atom (f, i, NULL) == MIGRATE_A_INITIALIZED
        && !is (f, migrate_prev (f, i), "!"))
      return true;
  return false;
}

/* A live directive in the statement [FIRST, LAST] that is not inside a
   brace pair of the statement: it decides what the statement is.  */
static bool
loose_directive (const struct migrate_file *f, int first, int last)
{
  for (int i = first; i <= last && i < f->ntoks; i++)
    {
      if (f->toks[i].directive < 0 || i != f->dirs[f->toks[i].directive].hash
          || migrate_tok_dead (f, i))
        continue;
      bool enclosed = false;
      for (int k = first; k < i && !enclosed; k = migrate_next (f, k))
        enclosed = is (f, k, "{") && f->toks[k].match > i
          && f->toks[k].match <= last;
      if (!enclosed)
        return true;
    }
  return false;
}

/* The text of directive D, one space between tokens.  */
static char *
directive_text (const struct migrate_file *f, int d)
{
  struct migrate_buf buf = { 0 };
  const struct migrate_directive *dir = &f->dirs[d];
  for (int i = dir->hash; i < dir->end; i++)
    {
      if (i > dir->hash + 1)
        migrate_buf_puts (&buf, " ");
      char *t = migrate_tok_text (f, i);
      migrate_buf_puts (&buf, t);
      free (t);
    }
  return migrate_buf_take (&buf);
}

/* No top-level && or || in code tokens [FIRST, LAST].  */
static bool
single_operand (const struct migrate_file *f, int first, int last)
{
  for (int j = first; j <= last; j = migrate_next (f, j))
    {
      if (is (f, j, "&&") || is (f, j, "||"))
        return false;
      if (f->toks[j].match > j)
        j = f->toks[j].match;
    }
  return true;
}

/* Drop the edits added since N0.  */
static void
discard_edits (struct migrate_project *proj, size_t n0)
{
  while (proj->nedits > n0)
    free (proj->edits[--proj->nedits].text);
}

struct guard
{
  struct migrate_rulectx *ctx;
  int d0, endif, d_else;      /* directives (d_else: -1 when none) */
};

static char *
shape_what (enum shape shape, const char *old)
{
  switch (shape)
    {
    case SHAPE_HEAD:
      return migrate_xasprintf ("`if (%s)' is compiled only where the build can"
                                " dump (#ifndef CANNOT_DUMP)", old);
    case SHAPE_STATEMENT:
      return migrate_xasprintf ("`if (%s) ...' exists only where the build can"
                                " dump (#ifndef CANNOT_DUMP)", old);
    case SHAPE_FRAGMENT:
      return migrate_xasprintf ("`%s' joins the condition only where the build"
                                " can dump (#ifndef CANNOT_DUMP)", old);
    default:
      return migrate_xasprintf ("the condition is `(%s)' where the build can dump"
                                " and `(0)' otherwise", old);
    }
}

static void
shape_fix (struct migrate_buf *buf, enum shape shape, const char *now)
{
  switch (shape)
    {
    case SHAPE_HEAD:
      migrate_buf_printf (buf, "drop the #ifndef/#endif and test `if (%s)': the"
                          " same where a back end is configured, always true in"
                          " a `none' build", now);
      break;
    case SHAPE_STATEMENT:
      migrate_buf_printf (buf, "drop the #ifndef/#endif and test `if (%s)': never"
                          " true in a `none' build, where the legacy code was"
                          " compiled out", now);
      break;
    case SHAPE_FRAGMENT:
      migrate_buf_printf (buf, "drop the #ifndef/#endif and write `%s'", now);
      break;
    default:
      migrate_buf_printf (buf, "drop the conditional and test `(%s)'", now);
      break;
    }
}

/* Rewrite or report a guard of shape SHAPE whose dump condition is
   code tokens [CFIRST, CEND) and must evaluate to WANT in a `none'
   build; [SFIRST, SLAST] is where unexec signals are looked for.  OP is
   the `&&'/`||' token of a fragment, or -1.  */
static void
guard_cond (struct guard *g, enum shape shape, int cfirst, int cend, int op,
            enum migrate_tri want, int sfirst, int slast)
{
  struct migrate_rulectx *ctx = g->ctx;
  struct migrate_project *proj = ctx->proj;
  struct migrate_file *f = ctx->f;
  int fi = ctx->file;
  struct migrate_cond ev = migrate_cond_eval (f, cfirst, cend, migrate_rule_atom, NULL);
  char *sigwhy = NULL;
  bool unexec = migrate_unexec_signal (proj, f, sfirst, slast, false, NULL, &sigwhy);
  /* `initialized' (not negated) guarding unexec machinery means "in a
     dumped unexec executable": its translation `!will_dump' would run
     the machinery after a pdump load too.  Never certain.  */
  bool dumped_test = unexec && positive_initialized (f, cfirst, cend);
  /* A conditional inside the guarded text makes what the guard holds
     depend on the build: the statement is not one statement.  */
  bool split = shape == SHAPE_STATEMENT && loose_directive (f, sfirst, slast);
  bool certain = ev.natoms > 0 && !ev.complex && !ev.purify && ev.none_value == want
    && !dumped_test && !split;

  int site = migrate_site_add (proj, fi, f->dirs[g->d0].hash, MIGRATE_P_GUARD,
                               certain ? MIGRATE_CERTAIN : MIGRATE_REVIEW,
                               NULL, NULL);
  size_t n0 = proj->nedits;
  int rfirst = op >= 0 && op < cfirst ? op : cfirst;
  int rend = op >= cend ? op + 1 : cend;
  migrate_cond_rewrite (proj, fi, site, cfirst, cend, migrate_rule_atom, NULL, unexec);
  char *old = migrate_render (f, rfirst, rend);
  char *now = migrate_render_edited (proj, fi, rfirst, rend, site);
  struct migrate_buf why = { 0 };
  if ((certain || ev.purify) && !dumped_test)
    shape_fix (&why, shape, now);
  if (unexec && (certain || ev.purify) && !dumped_test)
    migrate_buf_printf (&why, " (`will_dump_with_unexec': %s)", sigwhy);
  if (!certain)
    {
      discard_edits (proj, n0);
      if (dumped_test)
        migrate_buf_printf (&why, "%s, so this `initialized' test means"
                            " `running from an unexec dump': `if"
                            " (dumped_with_unexec)', or `#if DUMPER_WITH_UNEXEC'"
                            " around it; never `initialized' or `!will_dump',"
                            " which are true after a pdump load too", sigwhy);
      else if (split && ev.natoms > 0 && !ev.complex && !ev.purify)
        migrate_buf_printf (&why, "it would become `if (%s)', but a conditional"
                            " inside the guard decides what the `if' controls,"
                            " so the shape differs between builds; rewrite by"
                            " hand%s%s", now, unexec ? "; " : "",
                            unexec ? sigwhy : "");
      else if (ev.natoms == 0)
        migrate_buf_puts (&why, "the test has no dump flag, so its meaning"
                          " cannot be decided from the code; candidates: `if"
                          " (will_dump)' (work for the dumping run), `if"
                          " (dumped_with_unexec || dumped_with_pdumper)' (only"
                          " in a dumped program), `#if DUMPER_WITH_UNEXEC ||"
                          " DUMPER_WITH_PDUMPER' (the exact build condition)");
      else if (ev.purify)
        {
          char *pwhy = NULL;
          enum migrate_purify kind = MIGRATE_PURIFY_UNKNOWN;
          for (int i = cfirst; i < cend; i = migrate_next (f, i))
            if (migrate_rule_atom (f, i, NULL) == MIGRATE_A_PURIFY)
              {
                kind = migrate_purify_kind (proj, f, i, &pwhy);
                break;
              }
          if (kind == MIGRATE_PURIFY_DUMP || kind == MIGRATE_PURIFY_DUMP_UNEXEC)
            migrate_buf_printf (&why, "; review: %s, but Vpurify_flag is also"
                                " set by runs that do not dump", pwhy);
          else
            {
              /* Offer no predicate: the rewrite above was only a guess.  */
              why.len = 0;
              migrate_buf_printf (&why, "the test is on Vpurify_flag (%s): not"
                                  " a dump test by itself; keep the test and"
                                  " choose the guard: `#if DUMPER_WITH_UNEXEC ||"
                                  " DUMPER_WITH_PDUMPER' (the exact build"
                                  " condition), or none if the code is right in"
                                  " every build", pwhy ? pwhy
                                  : "the code does not say whether it means"
                                  " purecopy mode or `about to dump'");
            }
          free (pwhy);
        }
      else if (ev.complex)
        migrate_buf_puts (&why, "a flag is part of a larger expression, so the"
                          " tool cannot prove a rewrite; rewrite by hand"
                          " (initialized -> !will_dump, dumping/might_dump ->"
                          " will_dump) and drop the guard");
      else
        migrate_buf_printf (&why, "`%s' would not behave in a `none' build as"
                            " the legacy code, which was compiled out there;"
                            " candidates: `if (dumped_with_unexec ||"
                            " dumped_with_pdumper)' (only in a dumped program),"
                            " `#if DUMPER_WITH_UNEXEC || DUMPER_WITH_PDUMPER'"
                            " (the exact build condition)", now);
    }
  else
    {
      migrate_edit_delete_lines (proj, fi, f->dirs[g->d0].line_start,
                                 f->dirs[g->d0].line_end, site);
      if (g->d_else >= 0)
        migrate_edit_delete_lines (proj, fi, f->dirs[g->d_else].line_start,
                                   f->dirs[g->endif].line_end, site);
      else
        migrate_edit_delete_lines (proj, fi, f->dirs[g->endif].line_start,
                                   f->dirs[g->endif].line_end, site);
    }
  proj->sites[site].what = shape_what (shape, old);
  proj->sites[site].suggestion = migrate_buf_take (&why);
  migrate_claim (f, rfirst, rend - 1);
  if (!certain)
    /* The guard stays, but a `dumping' or `might_dump' in its test
       still goes with its declaration or parameter, and the read of a
       dropped `initialized' parameter is still reported: leave those to
       rule_flags.c.  */
    for (int i = cfirst; i < cend; i = migrate_next (f, i))
      {
        enum migrate_atom atom = migrate_rule_atom (f, i, NULL);
        int func = f->toks[i].func;
        if (atom == MIGRATE_A_WILL
            || (atom == MIGRATE_A_INITIALIZED && func >= 0
                && f->funcs[func].dropped_param >= 0))
          f->claimed[i] = 0;
      }
  free (old);
  free (now);
  free (sigwhy);
}

static void
guard_other (struct guard *g, int c0, bool cannot)
{
  struct migrate_rulectx *ctx = g->ctx;
  struct migrate_file *f = ctx->f;
  const struct migrate_branch *b = &f->branches[f->groups[f->dirs[g->d0].group].first_branch];
  char *sigwhy = NULL;
  bool unexec = migrate_unexec_signal (ctx->proj, f, b->first, b->end - 1, true,
                                       NULL, &sigwhy);
  bool file_scope = c0 < f->ntoks && f->toks[c0].func < 0;
  bool has_else = f->groups[f->dirs[g->d0].group].nbranches > 1;
  char *what, *fix;
  if (cannot)
    {
      what = migrate_xasprintf ("code compiled only in builds that cannot dump"
                                " (#ifdef CANNOT_DUMP)%s",
                                has_else ? ", with an #else for builds that can" : "");
      fix = tool_xstrdup ("a `none' build is the new CANNOT_DUMP: `#if"
                             " !DUMPER_WITH_UNEXEC && !DUMPER_WITH_PDUMPER' is"
                             " the exact equivalent; drop the guard where the"
                             " code is right in every build");
    }
  else
    {
      what = migrate_xasprintf ("code compiled only where the build can dump"
                                " (#ifndef CANNOT_DUMP)%s%s",
                                file_scope ? " at file scope" : "",
                                has_else ? ", with an #else for builds that cannot" : "");
      if (unexec)
        fix = migrate_xasprintf ("unexec-only machinery: %s; `#if"
                                 " DUMPER_WITH_UNEXEC' (a pdumper build must"
                                 " not compile it)%s", sigwhy, file_scope ? ""
                                 : ", or at run time `if (will_dump_with_unexec)'"
                                 " (work for the dumping run) or `if"
                                 " (dumped_with_unexec)' (only in a dumped"
                                 " executable)");
      else if (file_scope)
        fix = tool_xstrdup ("candidates: `#if DUMPER_WITH_UNEXEC ||"
                               " DUMPER_WITH_PDUMPER' (the exact build"
                               " condition), `#if DUMPER_WITH_UNEXEC'"
                               " (unexec-only code), or no guard when its users"
                               " already test a gflags flag");
      else
        fix = tool_xstrdup ("the meaning cannot be decided from the code;"
                               " candidates: `if (will_dump)' (work for the"
                               " dumping run), `if (dumped_with_unexec ||"
                               " dumped_with_pdumper)' (only in a dumped"
                               " program), `#if DUMPER_WITH_UNEXEC ||"
                               " DUMPER_WITH_PDUMPER' (the exact build"
                               " condition)");
    }
  migrate_site_add (ctx->proj, ctx->file, f->dirs[g->d0].hash,
                    cannot ? MIGRATE_P_ONLY : MIGRATE_P_GUARD, MIGRATE_REVIEW,
                    what, fix);
  free (sigwhy);
}

static void
guard_empty (struct guard *g, bool cannot)
{
  struct migrate_rulectx *ctx = g->ctx;
  struct migrate_file *f = ctx->f;
  int site = migrate_site_add (ctx->proj, ctx->file, f->dirs[g->d0].hash,
                               cannot ? MIGRATE_P_ONLY : MIGRATE_P_GUARD,
                               MIGRATE_CERTAIN,
                               tool_xstrdup (cannot
                                                ? "empty #ifdef CANNOT_DUMP block"
                                                : "empty #ifndef CANNOT_DUMP block"),
                               tool_xstrdup ("delete it"));
  migrate_edit_delete_lines (ctx->proj, ctx->file, f->dirs[g->d0].line_start,
                             f->dirs[g->endif].line_end, site);
}

/* The guard holds only `might_dump = ...;'.  */
static bool
guard_might_set (struct guard *g, int c0, int cl, int end)
{
  struct migrate_rulectx *ctx = g->ctx;
  struct migrate_file *f = ctx->f;
  if (!is (f, c0, "might_dump") || !is (f, migrate_next (f, c0), "=")
      || migrate_shadowed (f, c0, "might_dump") || migrate_controlled_body (f, c0)
      || migrate_skip_statement (f, c0, end) != cl)
    return false;
  char *stmt = migrate_render (f, c0, cl + 1);
  int site = migrate_site_add (ctx->proj, ctx->file, c0, MIGRATE_P_MIGHT_SET,
                               MIGRATE_CERTAIN,
                               migrate_xasprintf ("`%s' under #ifndef CANNOT_DUMP"
                                                  " records that this run might"
                                                  " dump", stmt),
                               tool_xstrdup ("delete it with its guard:"
                                                " dumper_startup sets will_dump"));
  free (stmt);
  migrate_edit_delete_lines (ctx->proj, ctx->file, f->dirs[g->d0].line_start,
                             f->dirs[g->endif].line_end, site);
  migrate_claim (f, c0, cl);
  return true;
}

/* Code tokens [A, E) are exactly `0', `false', `(0)' or `(false)'.  */
static bool
constant_false (const struct migrate_file *f, int a, int e)
{
  int c0 = first_code_in (f, a, e), cl = last_code_in (f, a, e);
  if (c0 >= e)
    return false;
  if (is (f, c0, "(") && f->toks[c0].match == cl)
    {
      c0 = migrate_next (f, c0);
      if (migrate_next (f, c0) != cl)
        return false;
    }
  else if (c0 != cl)
    return false;
  return is (f, c0, "0") || is (f, c0, "false");
}

/* #ifndef CANNOT_DUMP: the shapes of the header comment.  */
static void
guard_not_cannot (struct guard g, const struct migrate_group *grp,
                  const struct migrate_branch *b0)
{
  struct migrate_file *f = g.ctx->f;
  int a = b0->first, e = b0->end;
  int c0 = first_code_in (f, a, e), cl = last_code_in (f, a, e);
  bool nested = nested_directive (f, a, e);

  /* The second arm: not the next branch when the first holds a nested
     group.  */
  int second = grp->first_branch + 1;
  while (second < f->nbranches && f->branches[second].group != b0->group)
    second++;
  if (grp->nbranches == 2 && second < f->nbranches
      && f->dirs[f->branches[second].directive].kind == MIGRATE_D_ELSE)
    {
      const struct migrate_branch *b1 = &f->branches[second];
      if (!nested && c0 < e && is (f, c0, "(") && f->toks[c0].match == cl
          && constant_false (f, b1->first, b1->end))
        {
          g.d_else = b1->directive;
          int after = migrate_next (f, last_code_in (f, b1->first, b1->end));
          int stmt = migrate_skip_statement (f, after, f->ntoks);
          guard_cond (&g, SHAPE_EXPR_ELSE, migrate_next (f, c0), cl, -1,
                      MIGRATE_FALSE, c0, stmt >= 0 ? stmt : cl);
          return;
        }
      guard_other (&g, c0, false);
      return;
    }
  if (grp->nbranches != 1)
    {
      guard_other (&g, c0, false);
      return;
    }
  if (c0 >= e)
    {
      guard_empty (&g, false);
      return;
    }
  if (guard_might_set (&g, c0, cl, e))
    return;
  int open = migrate_next (f, c0);
  if (is (f, c0, "if") && is (f, open, "(") && f->toks[open].match > open)
    {
      int close = f->toks[open].match;
      if (close == cl && !nested)
        {
          int stmt = migrate_skip_statement (f, migrate_next (f, cl), f->ntoks);
          guard_cond (&g, SHAPE_HEAD, migrate_next (f, open), close, -1,
                      MIGRATE_TRUE, c0, stmt >= 0 ? stmt : cl);
          return;
        }
      int body = migrate_next (f, close);
      if (close < cl && migrate_skip_statement (f, body, e) == cl)
        {
          guard_cond (&g, SHAPE_STATEMENT, migrate_next (f, open), close, -1,
                      MIGRATE_FALSE, c0, cl);
          return;
        }
    }
  int before = migrate_prev (f, c0), after = migrate_next (f, cl);
  bool in_expr = !nested && before >= 0 && after < f->ntoks
    && !is (f, before, ";") && !is (f, before, "{") && !is (f, before, "}")
    && !is (f, after, ";") && !is (f, after, "{") && !is (f, after, "}");
  if (in_expr && c0 != cl && (is (f, c0, "&&") || is (f, c0, "||"))
      && single_operand (f, migrate_next (f, c0), cl))
    {
      int s0, s1;
      migrate_statement_of (f, c0, &s0, &s1);
      guard_cond (&g, SHAPE_FRAGMENT, migrate_next (f, c0), cl + 1, c0,
                  is (f, c0, "&&") ? MIGRATE_TRUE : MIGRATE_FALSE, s0, s1);
      return;
    }
  if (in_expr && c0 != cl && (is (f, cl, "&&") || is (f, cl, "||"))
      && single_operand (f, c0, migrate_prev (f, cl)))
    {
      int s0, s1;
      migrate_statement_of (f, c0, &s0, &s1);
      guard_cond (&g, SHAPE_FRAGMENT, c0, cl, cl,
                  is (f, cl, "&&") ? MIGRATE_TRUE : MIGRATE_FALSE, s0, s1);
      return;
    }
  guard_other (&g, c0, false);
}

/* The only thing in branch B is `#define FLAG ...' for a legacy flag
   (might_dump, initialized); returns that directive, or -1.  */
static int
legacy_define_only (const struct migrate_file *f, const struct migrate_branch *b)
{
  static const char *const legacy[] = { "might_dump", "initialized", NULL };
  int found = -1;
  for (int i = b->first; i < b->end; i++)
    {
      int d = f->toks[i].directive;
      if (d < 0)
        return -1;                      /* code */
      if (i != f->dirs[d].hash || d == b->directive)
        continue;
      if (found >= 0 || f->dirs[d].kind != MIGRATE_D_DEFINE
          || f->dirs[d].first >= f->dirs[d].end
          || !migrate_tok_in (f, f->dirs[d].first, legacy))
        return -1;
      found = d;
    }
  return found;
}

/* #ifdef CANNOT_DUMP: an empty one, or one that only defines a legacy
   flag for builds that cannot dump, is deleted; anything else is
   review.  */
static void
guard_cannot (struct guard g, const struct migrate_group *grp,
              const struct migrate_branch *b0)
{
  struct migrate_file *f = g.ctx->f;
  int c0 = first_code_in (f, b0->first, b0->end);
  int def = grp->nbranches == 1 ? legacy_define_only (f, b0) : -1;
  if (grp->nbranches == 1 && c0 >= b0->end && def < 0)
    guard_empty (&g, true);
  else if (def >= 0)
    {
      char *text = directive_text (f, def);
      int site = migrate_site_add
        (g.ctx->proj, g.ctx->file, f->dirs[g.d0].hash, MIGRATE_P_ONLY,
         MIGRATE_CERTAIN,
         migrate_xasprintf ("#ifdef CANNOT_DUMP holds only `%s', the legacy"
                            " flag for builds that cannot dump", text),
         tool_xstrdup ("delete it: the flag's uses are rewritten, and in a"
                       " `none' build the gflags flags are false"));
      free (text);
      migrate_edit_delete_lines (g.ctx->proj, g.ctx->file,
                                 migrate_attached_comment
                                 (f, f->dirs[g.d0].line_start),
                                 f->dirs[g.endif].line_end, site);
    }
  else
    guard_other (&g, c0, true);
}

/* The group opened by D0, an #ifndef (NOT_CANNOT) or #ifdef
   CANNOT_DUMP.  A group without #endif (diagnosed by cond.c) is left
   alone.  */
static void
guard_group (struct migrate_rulectx *ctx, int d0, bool not_cannot)
{
  const struct migrate_file *f = ctx->f;
  const struct migrate_group *grp = &f->groups[f->dirs[d0].group];
  struct guard g = { ctx, d0, grp->endif, -1 };
  if (grp->endif < 0)
    return;
  const struct migrate_branch *b0 = &f->branches[grp->first_branch];
  if (not_cannot)
    guard_not_cannot (g, grp, b0);
  else
    guard_cannot (g, grp, b0);
}

static void
mentions (struct migrate_rulectx *ctx, int d)
{
  struct migrate_file *f = ctx->f;
  const struct migrate_directive *dir = &f->dirs[d];
  char *text = directive_text (f, d);
  const char *fix;
  if (dir->kind == MIGRATE_D_DEFINE || dir->kind == MIGRATE_D_UNDEF)
    fix = "`configure --with-dumper=none' replaces CANNOT_DUMP; test"
      " DUMPER_WITH_UNEXEC / DUMPER_WITH_PDUMPER (dumper/backend.h) for what"
      " the build can do";
  else
    fix = "split the condition: keep the other tests in the directive and test"
      " the dump condition with a gflags flag at run time, or write"
      " `(DUMPER_WITH_UNEXEC || DUMPER_WITH_PDUMPER)' for `!defined CANNOT_DUMP'";
  migrate_site_add (ctx->proj, ctx->file, dir->hash, MIGRATE_P_OTHER,
                    MIGRATE_REVIEW, migrate_xasprintf ("`%s'", text),
                    tool_xstrdup (fix));
  free (text);
}

void
migrate_rule_guards (struct migrate_rulectx *ctx)
{
  struct migrate_file *f = ctx->f;
  for (int d = 0; d < f->ndirs; d++)
    {
      const struct migrate_directive *dir = &f->dirs[d];
      if (migrate_tok_dead (f, dir->hash) || dir->kind == MIGRATE_D_ELSE
          || dir->kind == MIGRATE_D_ENDIF)
        continue;
      enum migrate_guard kind = migrate_directive_guard (f, d);
      bool opens = dir->kind == MIGRATE_D_IF || dir->kind == MIGRATE_D_IFDEF
        || dir->kind == MIGRATE_D_IFNDEF;
      if (kind == MIGRATE_G_OTHER)
        continue;
      if (opens && (kind == MIGRATE_G_NOT_CANNOT || kind == MIGRATE_G_CANNOT)
          && dir->group >= 0)
        guard_group (ctx, d, kind == MIGRATE_G_NOT_CANNOT);
      else
        mentions (ctx, d);
    }
}
