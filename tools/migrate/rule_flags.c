/* SPDX-License-Identifier: MIT */
/* tools/migrate/rule_flags.c: the legacy flag variables, token by token.

   Owns initialized-decl, initialized-set, initialized-test,
   might-dump-decl, might-dump-set, might-dump-use, dumping-local,
   dumping-use, purify-flag and name-collision, for every live code
   token that rule_guard.c and rule_param.c did not consume.  Scope is
   respected: `x->initialized' is a member, a parameter or local named
   like a flag shadows it, and `dumping' is a flag only when it is the
   argv-computed local of its function (or a parameter being dropped).

   The certain rewrites here preserve behaviour under the bridge's
   contract: dumper_startup sets will_dump in the run that dumps, and
   dumper_mark_initialized sets `initialized' where the legacy code set
   its own variable.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool
is (const struct migrate_file *f, int i, const char *s)
{
  return i >= 0 && i < f->ntoks && migrate_tok_is (f, i, s);
}

static int
semicolon (const struct migrate_file *f, int i)
{
  for (int j = i; j < f->ntoks; j = migrate_next (f, j))
    {
      if (is (f, j, ";"))
        return j;
      if (is (f, j, "}"))
        return -1;
      if (f->toks[j].match > j)
        j = f->toks[j].match;
    }
  return -1;
}

/* Statement or declaration around I: [*FIRST, return value] ending at
   `;' (or -1); *SINGLE when it declares one name only.  */
static int
statement_bounds (const struct migrate_file *f, int i, int *first, bool *single)
{
  int j = migrate_prev (f, i);
  *first = i;
  while (j >= 0 && !is (f, j, ";") && !is (f, j, "{") && !is (f, j, "}"))
    {
      *first = j;
      j = migrate_prev (f, j);
    }
  int semi = semicolon (f, i);
  *single = true;
  for (int k = *first; semi >= 0 && k < semi; k = migrate_next (f, k))
    {
      if (is (f, k, ","))
        *single = false;
      if (f->toks[k].match > k)
        k = f->toks[k].match;
    }
  return semi;
}

static bool
at_statement_start (const struct migrate_file *f, int i)
{
  int p = migrate_prev (f, i);
  return p < 0 || is (f, p, ";") || is (f, p, "{") || is (f, p, "}")
    || is (f, p, ")") || is (f, p, "else") || is (f, p, ":");
}

static bool
in_param_list (const struct migrate_file *f, int i)
{
  for (int k = 0; k < f->nfuncs; k++)
    if (f->funcs[k].lparen < i && i < f->funcs[k].rparen)
      return true;
  return false;
}

static void
collision (struct migrate_rulectx *ctx, int i, const char *what_kind)
{
  if (ctx->f->no_short_names)
    return;
  char *name = migrate_tok_text (ctx->f, i);
  migrate_site_add (ctx->proj, ctx->file, i, MIGRATE_P_COLLISION, MIGRATE_REVIEW,
                    migrate_xasprintf ("%s `%s' collides with the gflags macro"
                                       " `%s'", what_kind, name, name),
                    tool_xstrdup ("rename it, or define"
                                     " DUMPER_GFLAGS_NO_SHORT_NAMES before"
                                     " including <dumper/gflags.h> and use the"
                                     " dumper_-prefixed names"));
  free (name);
}

/* A file-scope declaration of a legacy flag: delete it.  */
static void
legacy_decl (struct migrate_rulectx *ctx, int i, const char *pattern,
             const char *fix)
{
  struct migrate_file *f = ctx->f;
  int first;
  bool single;
  int semi = statement_bounds (f, i, &first, &single);
  if (semi < 0)
    return;
  char *text = migrate_render (f, first, semi + 1);
  int site = migrate_site_add (ctx->proj, ctx->file, i, pattern, MIGRATE_CERTAIN,
                               migrate_xasprintf ("`%s' declares the runtime's"
                                                  " own flag", text), NULL);
  free (text);
  if (single && migrate_edit_delete_tokens (ctx->proj, ctx->file, first, semi, site))
    ctx->proj->sites[site].suggestion = tool_xstrdup (fix);
  else
    {
      ctx->proj->sites[site].conf = MIGRATE_REVIEW;
      ctx->proj->sites[site].suggestion
        = migrate_xasprintf ("%s; review: it shares its declaration or its"
                             " conditional with other code", fix);
    }
  migrate_claim (f, first, semi);
}

static void
statement_text_range (const struct migrate_file *f, int i, int *first, int *end)
{
  int s0, s1;
  migrate_statement_of (f, i, &s0, &s1);
  *first = s0;
  *end = s1 + 1;
  /* For a control statement, just its head.  */
  int open = migrate_next (f, s0);
  if ((is (f, s0, "if") || is (f, s0, "while") || is (f, s0, "switch")
       || is (f, s0, "for")) && is (f, open, "(") && f->toks[open].match > open)
    *end = f->toks[open].match + 1;
}

/* The statement controlled by the `if' holding token I calls a
   *_once or syms_of_* function: the cold-init guard.  */
static bool
guards_cold_init (const struct migrate_file *f, int i)
{
  int s0, s1;
  migrate_statement_of (f, i, &s0, &s1);
  if (!is (f, s0, "if"))
    return false;
  for (int j = s0; j <= s1 && j < f->ntoks; j = migrate_next (f, j))
    if (f->toks[j].kind == MIGRATE_T_IDENT)
      {
        size_t n = f->toks[j].end - f->toks[j].start;
        const char *s = f->text + f->toks[j].start;
        if ((n > 5 && memcmp (s + n - 5, "_once", 5) == 0)
            || (n > 8 && memcmp (s, "syms_of_", 8) == 0))
          return true;
      }
  return false;
}

/* Token I reads the parameter `initialized' that rule_param.c drops:
   from now on it reads the gflags flag, which is true after a pdump
   load as well.  Never silent: a review site, with dumped_with_unexec
   first when the statement does unexec-era work.  */
static void
rebound_read (struct migrate_rulectx *ctx, int i)
{
  struct migrate_file *f = ctx->f;
  int first, end, s0, s1;
  statement_text_range (f, i, &first, &end);
  migrate_statement_of (f, i, &s0, &s1);
  char *sigwhy = NULL;
  bool unexec = migrate_unexec_signal (ctx->proj, f, s0, s1, false, NULL, &sigwhy);
  char *text = migrate_render (f, first, end);
  char *fname = migrate_tok_text (f, f->funcs[f->toks[i].func].name);
  char *fix = unexec
    ? migrate_xasprintf ("it guards unexec-only machinery (%s): write"
                         " `dumped_with_unexec' (or `#if DUMPER_WITH_UNEXEC');"
                         " the gflags `initialized' is true after a pdump load"
                         " too", sigwhy)
    : tool_xstrdup ("candidates: `initialized' (the heap is initialised, any"
                    " back end: true after a pdump load too), `!will_dump'"
                    " (not while dumping), `dumped_with_unexec' (unexec-era"
                    " work only), `dumped_with_unexec || dumped_with_pdumper'"
                    " (only in a dumped program)");
  migrate_site_add (ctx->proj, ctx->file, i, MIGRATE_P_PARAM, MIGRATE_REVIEW,
                    migrate_xasprintf ("`%s' reads the parameter `initialized'"
                                       " of `%s', which is dropped: it would"
                                       " read the gflags flag instead",
                                       text, fname), fix);
  free (fname);
  free (text);
  free (sigwhy);
}

static void
on_initialized (struct migrate_rulectx *ctx, int i)
{
  struct migrate_file *f = ctx->f;
  if (migrate_is_member (f, i))
    {
      collision (ctx, i, "member");
      return;
    }
  if (migrate_is_declarator (f, i))
    {
      /* A parameter the flag-parameter rule does not drop keeps its
         name, which the gflags macro would expand.  */
      if (in_param_list (f, i))
        {
          collision (ctx, i, "parameter");
          return;
        }
      if (f->toks[i].func < 0 && f->toks[i].open < 0)
        legacy_decl (ctx, i, MIGRATE_P_INIT_DECL,
                     "delete it: <dumper/gflags.h> defines `initialized', set"
                     " by dumper_mark_initialized and restored by every back"
                     " end");
      else
        collision (ctx, i, f->toks[i].func < 0 ? "member" : "local");
      return;
    }
  if (migrate_shadowed (f, i, "initialized"))
    {
      /* A dropped parameter: the body reads the global from now on.  */
      if (migrate_rule_atom (f, i, NULL) == MIGRATE_A_INITIALIZED)
        {
          if (f->reads_initialized < 0)
            f->reads_initialized = i;
          rebound_read (ctx, i);
        }
      return;
    }
  if (migrate_is_assigned (f, i))
    {
      int eq = migrate_next (f, i), semi = semicolon (f, i);
      int v0 = migrate_next (f, eq);
      int v1 = semi > v0 ? migrate_prev (f, semi) : -1;
      bool stmt = at_statement_start (f, i) && semi >= 0 && is (f, eq, "=");
      bool paren = v1 >= 0 && is (f, v0, "(") && f->toks[v0].match == v1;
      int val = paren ? migrate_next (f, v0) : v0;
      bool one = v1 >= 0 && (paren ? migrate_next (f, val) == v1 : v0 == v1);
      bool truth = stmt && one && (is (f, val, "1") || is (f, val, "true"));
      bool falsity = stmt && one && (is (f, val, "0") || is (f, val, "false"));
      char *text = semi >= 0 ? migrate_render (f, i, semi) : migrate_tok_text (f, i);
      int site = migrate_site_add
        (ctx->proj, ctx->file, i, MIGRATE_P_INIT_SET,
         truth ? MIGRATE_CERTAIN : MIGRATE_REVIEW,
         migrate_xasprintf ("`%s' sets the runtime's own flag", text),
         tool_xstrdup (truth ? "call `dumper_mark_initialized ()': the"
                          " bridge owns the flag and every back end restores it"
                          : falsity ? "the bridge owns `initialized' and nothing"
                          " clears it; delete the assignment or keep a flag of"
                          " the host's own"
                          : "the bridge owns `initialized': call"
                          " `dumper_mark_initialized ()' where it becomes true"));
      free (text);
      if (truth)
        {
          migrate_edit_add (ctx->proj, ctx->file, f->toks[i].start,
                            f->toks[v1].end, "dumper_mark_initialized ()", site);
        }
      migrate_claim (f, i, semi >= 0 ? semi : i);
      return;
    }
  if (f->reads_initialized < 0)
    f->reads_initialized = i;
  if (ctx->sees_gflags)
    return;
  int first, end, s0, s1;
  statement_text_range (f, i, &first, &end);
  migrate_statement_of (f, i, &s0, &s1);
  char *text = migrate_render (f, first, end);
  char *sigwhy = NULL;
  if (migrate_unexec_signal (ctx->proj, f, s0, s1, false, NULL, &sigwhy))
    {
      bool negated = is (f, migrate_prev (f, i), "!");
      migrate_site_add (ctx->proj, ctx->file, i, MIGRATE_P_INIT_TEST,
                        MIGRATE_REVIEW,
                        migrate_xasprintf ("`initialized' read in `%s'", text),
                        migrate_xasprintf ("it guards unexec-only machinery"
                                           " (%s): write %s, never the gflags"
                                           " `initialized', which is true after"
                                           " a pdump load too", sigwhy, negated
                                           ? "`will_dump_with_unexec' (work for"
                                           " the dumping run) for `!initialized'"
                                           : "`dumped_with_unexec' (only in a"
                                           " dumped unexec executable)"));
      free (sigwhy);
      free (text);
      return;
    }
  const char *fix = guards_cold_init (f, i)
    ? "this guards the cold init, as in the shared sequence: keep `initialized'"
      " (the gflags flag) and call dumper_mark_initialized () where the legacy"
      " code set it"
    : "kept as is it reads the gflags flag, which has the legacy meaning (heap"
      " initialised) when dumper_mark_initialized () stands where the flag was"
      " set; if it means `not while dumping' write `!will_dump', if `only in a"
      " dumped program' write `dumped_with_unexec || dumped_with_pdumper'";
  migrate_site_add (ctx->proj, ctx->file, i, MIGRATE_P_INIT_TEST, MIGRATE_REVIEW,
                    migrate_xasprintf ("`initialized' read in `%s'", text),
                    tool_xstrdup (fix));
  free (text);
}

/* Rewrite flag token I to will_dump (or will_dump_with_unexec when its
   statement mentions unexec-only machinery).  */
static void
to_will_dump (struct migrate_rulectx *ctx, int i, const char *pattern,
              const char *what, bool certain)
{
  struct migrate_file *f = ctx->f;
  int s0, s1;
  char *sigwhy = NULL;
  migrate_statement_of (f, i, &s0, &s1);
  bool unexec = migrate_unexec_signal (ctx->proj, f, s0, s1, false, NULL, &sigwhy);
  char *name = migrate_flag_name (f, unexec ? "will_dump_with_unexec" : "will_dump");
  char *fix;
  if (unexec)
    {
      fix = migrate_xasprintf ("`%s' (unexec-only machinery: %s)", name, sigwhy);
      free (sigwhy);
    }
  else
    fix = migrate_xasprintf ("`%s': dumper_startup sets it in the run that dumps",
                             name);
  if (!certain)
    {
      /* Rewriting the reads while the local stays would leave it set but
         never read (a compiler warning): both go together.  */
      char *old = fix;
      fix = migrate_xasprintf ("%s; review: together with the local, once"
                               " this function calls dumper_startup", old);
      free (old);
    }
  int site = migrate_site_add (ctx->proj, ctx->file, i, pattern,
                               certain ? MIGRATE_CERTAIN : MIGRATE_REVIEW,
                               tool_xstrdup (what), fix);
  if (certain)
    migrate_edit_add (ctx->proj, ctx->file, f->toks[i].start, f->toks[i].end,
                      name, site);
  free (name);
  migrate_claim (f, i, i);
}

static void
on_might_dump (struct migrate_rulectx *ctx, int i)
{
  struct migrate_file *f = ctx->f;
  if (migrate_is_member (f, i))
    return;
  if (migrate_is_declarator (f, i))
    {
      if (f->toks[i].func < 0 && f->toks[i].open < 0 && !in_param_list (f, i))
        legacy_decl (ctx, i, MIGRATE_P_MIGHT_DECL,
                     "delete it: the bridge's will_dump replaces it");
      return;
    }
  if (migrate_shadowed (f, i, "might_dump"))
    return;
  if (migrate_is_assigned (f, i))
    {
      int semi = semicolon (f, i);
      bool stmt = at_statement_start (f, i) && semi >= 0
        && is (f, migrate_next (f, i), "=");
      char *text = semi >= 0 ? migrate_render (f, i, semi + 1) : migrate_tok_text (f, i);
      int site = migrate_site_add (ctx->proj, ctx->file, i, MIGRATE_P_MIGHT_SET,
                                   MIGRATE_CERTAIN,
                                   migrate_xasprintf ("`%s' records that this run"
                                                      " might dump", text),
                                   tool_xstrdup ("delete it: dumper_startup"
                                                    " sets will_dump"));
      free (text);
      if (!stmt || !migrate_edit_delete_tokens (ctx->proj, ctx->file, i, semi, site))
        ctx->proj->sites[site].conf = MIGRATE_REVIEW;
      migrate_claim (f, i, semi >= 0 ? semi : i);
      return;
    }
  to_will_dump (ctx, i, MIGRATE_P_MIGHT_USE,
                "`might_dump' read (true in a run that may dump)", true);
}

static bool
calls_startup (const struct migrate_file *f, int func)
{
  int body = f->funcs[func].body, close = f->toks[body].match;
  for (int j = body; j < (close > body ? close : f->ntoks); j = migrate_next (f, j))
    if (is (f, j, "dumper_startup") && is (f, migrate_next (f, j), "("))
      return true;
  return false;
}

static void
dumping_local (struct migrate_rulectx *ctx, int decl)
{
  struct migrate_file *f = ctx->f;
  int func = f->toks[decl].func;
  int first;
  bool single;
  int semi = statement_bounds (f, decl, &first, &single);
  bool startup = calls_startup (f, func);
  int site = migrate_site_add (ctx->proj, ctx->file, decl, MIGRATE_P_DUMPING_LOCAL,
                               MIGRATE_CERTAIN, NULL, NULL);
  bool ok = startup && single && semi >= 0
    && migrate_edit_delete_tokens (ctx->proj, ctx->file, first, semi, site);
  struct migrate_buf lines = { 0 };
  if (semi >= 0)
    migrate_claim (f, first, semi);
  int body = f->funcs[func].body, close = f->toks[body].match;
  for (int j = body; j < (close > body ? close : f->ntoks); j = migrate_next (f, j))
    if (j != decl && is (f, j, "dumping") && !migrate_is_member (f, j)
        && is (f, migrate_next (f, j), "=") && at_statement_start (f, j))
      {
        int s = semicolon (f, j);
        migrate_buf_printf (&lines, "%s%u", lines.len ? ", " : "", f->toks[j].line);
        if (ok)
          ok = s >= 0 && migrate_edit_delete_tokens (ctx->proj, ctx->file, j, s, site);
        migrate_claim (f, j, s >= 0 ? s : j);
      }
  char *where = migrate_buf_take (&lines);
  struct migrate_site *st = &ctx->proj->sites[site];
  st->what = migrate_xasprintf ("local `dumping' computed from argv%s%s%s",
                                *where ? " (assigned on line " : "", where,
                                *where ? ")" : "");
  free (where);
  if (ok)
    st->suggestion = tool_xstrdup ("delete it: dumper_startup, called in this"
                                      " function, sets will_dump");
  else
    {
      st->conf = MIGRATE_REVIEW;
      st->suggestion = tool_xstrdup
        ("the bridge decides this: call `dumper_startup (&argc, &argv)' at the"
         " top of main (the dumping run passes --temacs=dump or"
         " --temacs=pdump) and delete the local; its reads become `will_dump'");
    }
}

static void
on_dumping (struct migrate_rulectx *ctx, int i)
{
  struct migrate_file *f = ctx->f;
  int func = f->toks[i].func;
  if (func < 0 || migrate_is_member (f, i))
    return;
  if (migrate_is_declarator (f, i))
    {
      if (migrate_argv_dumping (f, func) == i)
        dumping_local (ctx, i);
      return;
    }
  if (migrate_is_assigned (f, i)
      || migrate_rule_atom (f, i, NULL) != MIGRATE_A_WILL)
    return;
  int dropped = f->funcs[func].dropped_param;
  bool param = dropped >= 0 && is (f, dropped, "dumping");
  to_will_dump (ctx, i, MIGRATE_P_DUMPING_USE,
                "`dumping' read (this run will dump)",
                param || calls_startup (f, func));
}

/* Whether the comments in bytes [A, B) of F mention dumping.  */
static bool
comments_say_dump (const struct migrate_file *f, size_t a, size_t b)
{
  for (int c = 0; c < f->ncomments; c++)
    if (f->comments[c].start >= a && f->comments[c].end <= b)
      for (size_t k = f->comments[c].start; k + 4 <= f->comments[c].end; k++)
        if (strncasecmp (f->text + k, "dump", 4) == 0)
          return true;
  return false;
}

/* Some identifier in code tokens [FIRST, LAST] contains one of WORDS
   (any case); sets *WHICH.  */
static bool
mentions_word (const struct migrate_file *f, int first, int last,
               const char *const *words, int *which)
{
  for (int j = first; j >= 0 && j <= last && j < f->ntoks; j = migrate_next (f, j))
    if (f->toks[j].kind == MIGRATE_T_IDENT)
      {
        char *t = migrate_tok_text (f, j);
        bool hit = false;
        for (int k = 0; words[k] && !hit; k++)
          for (char *q = t; *q && !hit; q++)
            hit = strncasecmp (q, words[k], strlen (words[k])) == 0;
        free (t);
        if (hit)
          {
            *which = j;
            return true;
          }
      }
  return false;
}

enum migrate_purify
migrate_purify_kind (const struct migrate_project *proj,
                     const struct migrate_file *f, int nilp, char **why)
{
  *why = NULL;
  int p = migrate_prev (f, nilp);
  int start = is (f, p, "!") ? p : nilp;
  int close = f->toks[migrate_next (f, nilp)].match;
  int s0, s1;
  migrate_statement_of (f, nilp, &s0, &s1);
  int open = migrate_next (f, s0);
  /* A test: in the condition of an if / while, joined only by `!',
     `&&', `||' and grouping parentheses.  Anything else uses the flag
     as a value: passed on, stored, compared, returned.  */
  if (!(is (f, s0, "if") || is (f, s0, "while")) || !is (f, open, "(")
      || f->toks[open].match < close)
    return MIGRATE_PURIFY_VALUE;
  int before = migrate_prev (f, start), after = migrate_next (f, close);
  static const char *const joins[] = { "&&", "||", "!", "(", NULL };
  static const char *const ends[] = { "&&", "||", ")", NULL };
  if (!migrate_tok_in (f, before, joins) || !migrate_tok_in (f, after, ends))
    return MIGRATE_PURIFY_VALUE;
  for (int k = open + 1; k < start; k = migrate_next (f, k))
    if (is (f, k, "(") && f->toks[k].match > close
        && f->toks[migrate_prev (f, k)].kind == MIGRATE_T_IDENT)
      return MIGRATE_PURIFY_VALUE;         /* an argument of a call */
  int body = migrate_next (f, f->toks[open].match);
  int which = -1;
  static const char *const pure_words[] = { "purecopy", "make_pure", "pure_", NULL };
  static const char *const boot_words[] = { "autoload", "require", "bootstrap", NULL };
  if (mentions_word (f, body, s1, pure_words, &which))
    {
      char *t = migrate_tok_text (f, which);
      *why = migrate_xasprintf ("it guards `%s', a purecopy-style copy", t);
      free (t);
      return MIGRATE_PURIFY_PURECOPY;
    }
  if (mentions_word (f, s0, s1, boot_words, &which))
    {
      char *t = migrate_tok_text (f, which);
      *why = migrate_xasprintf ("it guards `%s' during loadup: a bootstrap dump"
                                " loads with Vpurify_flag set too and must keep"
                                " this behaviour, so the dump-time test needs a"
                                " bootstrap exception (the host's own test, as"
                                " `will_dump && !bootstrapping'); no gflags"
                                " predicate alone keeps it", t);
      free (t);
      return MIGRATE_PURIFY_BOOTSTRAP;
    }
  char *sigwhy = NULL;
  if (migrate_unexec_signal (proj, f, body, s1, false, NULL, &sigwhy))
    {
      *why = migrate_xasprintf ("it gates unexec-only machinery (%s)", sigwhy);
      free (sigwhy);
      return MIGRATE_PURIFY_DUMP_UNEXEC;
    }
  size_t a = migrate_attached_comment (f, f->line_start[f->toks[s0].line - 1]);
  if (mentions_word (f, body, s1, (const char *const[]) { "dump", NULL }, &which))
    {
      char *t = migrate_tok_text (f, which);
      *why = migrate_xasprintf ("it gates `%s', work for the dump", t);
      free (t);
      return MIGRATE_PURIFY_DUMP;
    }
  if (comments_say_dump (f, a, f->toks[s1].end))
    {
      *why = tool_xstrdup ("its comments say the work is for the dump");
      return MIGRATE_PURIFY_DUMP;
    }
  return MIGRATE_PURIFY_UNKNOWN;
}

static void
on_purify (struct migrate_rulectx *ctx, int i)
{
  struct migrate_file *f = ctx->f;
  if (migrate_rule_atom (f, i, NULL) != MIGRATE_A_PURIFY)
    return;
  int p = migrate_prev (f, i);
  bool negated = is (f, p, "!");
  int close = f->toks[migrate_next (f, i)].match;
  char *why = NULL;
  enum migrate_purify kind = migrate_purify_kind (ctx->proj, f, i, &why);
  migrate_claim (f, negated ? p : i, close);
  /* A value, or purecopy mode: not a dump test, not a site.  */
  if (kind == MIGRATE_PURIFY_VALUE || kind == MIGRATE_PURIFY_PURECOPY)
    {
      free (why);
      return;
    }
  char *text = migrate_render (f, negated ? p : i, close + 1);
  const char *pred = kind == MIGRATE_PURIFY_DUMP_UNEXEC
    ? (negated ? "will_dump_with_unexec" : "!will_dump_with_unexec")
    : (negated ? "will_dump" : "!will_dump");
  char *fix;
  if (kind == MIGRATE_PURIFY_DUMP || kind == MIGRATE_PURIFY_DUMP_UNEXEC)
    fix = migrate_xasprintf ("`%s': %s; review: Vpurify_flag is also set during"
                             " loadup in runs that do not dump", pred, why);
  else if (kind == MIGRATE_PURIFY_BOOTSTRAP)
    fix = migrate_xasprintf ("no predicate: %s", why);
  else
    fix = tool_xstrdup ("no predicate: the code does not say whether this"
                        " means `purecopy mode' (then mark it `dumper-migrate:"
                        " keep') or gates work done only because a dump"
                        " follows (then `will_dump')");
  migrate_site_add (ctx->proj, ctx->file, negated ? p : i, MIGRATE_P_PURIFY,
                    MIGRATE_REVIEW,
                    migrate_xasprintf ("`%s' tests purify-flag%s", text,
                                       kind == MIGRATE_PURIFY_DUMP
                                       || kind == MIGRATE_PURIFY_DUMP_UNEXEC
                                       ? (negated ? " as `about to dump'"
                                          : " as `not dumping'") : ""),
                    fix);
  free (why);
  free (text);
}

void
migrate_rule_flags (struct migrate_rulectx *ctx)
{
  struct migrate_file *f = ctx->f;
  bool short_name;
  for (int i = 0; i < f->ntoks; i++)
    {
      if (f->toks[i].kind != MIGRATE_T_IDENT || !migrate_is_code (f, i))
        continue;
      /* Names already in the gflags vocabulary count even inside a
         construct another rule consumed: they need the header.  */
      if (migrate_tok_is (f, i, "dumper_mark_initialized"))
        f->uses_mark = f->uses_mark < 0 ? i : f->uses_mark;
      else if (migrate_is_gflag_name (f, i, &short_name))
        {
          if (migrate_is_member (f, i) || migrate_is_declarator (f, i))
            {
              if (short_name && !f->claimed[i])
                collision (ctx, i, migrate_is_member (f, i) ? "member"
                           : in_param_list (f, i) ? "parameter"
                           : f->toks[i].func >= 0 ? "local"
                           : f->toks[i].open >= 0 ? "member" : "declaration");
            }
          else if (f->uses_gflags_name < 0)
            {
              /* A parameter or local of that name is not the flag.  */
              char *name = migrate_tok_text (f, i);
              if (!migrate_shadowed (f, i, name))
                f->uses_gflags_name = i;
              free (name);
            }
        }
      if (f->claimed[i])
        continue;
      if (migrate_tok_is (f, i, "initialized"))
        on_initialized (ctx, i);
      else if (migrate_tok_is (f, i, "might_dump"))
        on_might_dump (ctx, i);
      else if (migrate_tok_is (f, i, "dumping"))
        on_dumping (ctx, i);
      else if (migrate_tok_is (f, i, "NILP"))
        on_purify (ctx, i);
    }
}
