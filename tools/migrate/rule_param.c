/* SPDX-License-Identifier: MIT */
/* tools/migrate/rule_param.c: functions that take a dump flag.

   Owns flag-parameter: a function whose parameter is named
   `initialized' or `dumping' (init_buffer (int initialized),
   init_editfns (bool dumping)).  This is the one cross-file rule: the
   parameter can be dropped only when every declaration is in the files
   being migrated, the function has exactly that one parameter, its
   definition never assigns it, nothing takes its address, and every
   call, in every file, passes the flag itself (the global
   `initialized'; for `dumping' the argv-computed local, will_dump or
   might_dump).  Then the value inside the function equals the global
   flag, so reading the gflags flag instead changes nothing.  Otherwise
   every declaration is reported for review with the reasons.

   It runs before the per-file rules and records the dropped parameter
   in its function, so that `dumping' inside the body is a flag.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>

struct fdecl
{
  int file, func;
};

struct candidate
{
  char *name;                 /* the function */
  const char *flag;           /* "initialized" or "dumping" */
  struct fdecl *decls;
  size_t ndecls, decls_cap;
  struct fdecl *calls;        /* file and name token of each call */
  size_t ncalls, calls_cap;
  struct migrate_buf why;     /* reasons it is not certain */
};

static bool
is (const struct migrate_file *f, int i, const char *s)
{
  return i >= 0 && i < f->ntoks && migrate_tok_is (f, i, s);
}

static void
add_reason (struct candidate *c, char *text)
{
  if (c->why.len < 400)
    migrate_buf_printf (&c->why, "%s%s", c->why.len ? "; " : "", text);
  free (text);
}

static struct candidate *
find_candidate (struct candidate *cands, size_t n, const char *name)
{
  for (size_t k = 0; k < n; k++)
    if (strcmp (cands[k].name, name) == 0)
      return &cands[k];
  return NULL;
}

/* The argument of a call is the flag itself.  */
static bool
passes_flag (const struct migrate_file *f, int open, const char *flag)
{
  int close = f->toks[open].match;
  int arg = migrate_next (f, open);
  if (close < 0 || arg >= close || migrate_next (f, arg) != close)
    return false;
  enum migrate_atom atom = migrate_rule_atom (f, arg, NULL);
  if (strcmp (flag, "initialized") == 0)
    return is (f, arg, "initialized") && atom == MIGRATE_A_INITIALIZED;
  return atom == MIGRATE_A_WILL
    || (atom == MIGRATE_A_GFLAG_WILL
        && (is (f, arg, "will_dump") || is (f, arg, "dumper_will_dump")));
}

static bool
is_decl_name (const struct migrate_file *f, int tok)
{
  for (int k = 0; k < f->nfuncs; k++)
    if (f->funcs[k].name == tok)
      return true;
  return false;
}

/* Reference I in file FI to candidate C: a call, or another use.  */
static void
on_reference (struct migrate_project *proj, struct candidate *c, int fi, int i)
{
  struct migrate_file *f = proj->files[fi];
  int open = migrate_next (f, i);
  if (!is (f, open, "("))
    {
      add_reason (c, migrate_xasprintf ("it is used other than called at %s:%u",
                                        f->path, f->toks[i].line));
      return;
    }
  if (!f->in_paths)
    add_reason (c, migrate_xasprintf ("it is called from %s, which is not"
                                      " being migrated", f->path));
  else if (!passes_flag (f, open, c->flag))
    {
      int close = f->toks[open].match;
      char *call = migrate_render (f, i, close > open ? close + 1 : open + 1);
      add_reason (c, migrate_xasprintf ("`%s' at %s:%u passes something else",
                                        call, f->path, f->toks[i].line));
      free (call);
    }
  migrate_grow (&c->calls, &c->calls_cap, c->ncalls + 1, sizeof *c->calls);
  c->calls[c->ncalls].file = fi;
  c->calls[c->ncalls++].func = i;
}

/* Candidates by name: open addressing on an FNV-1a hash, so finding
   every declaration and reference is one pass over the tokens however
   many candidates a large tree has.  */
struct index
{
  int *slots;                 /* candidate index, or -1 */
  size_t mask;
};

static void
index_build (struct index *ix, const struct candidate *cands, size_t n)
{
  size_t cap = 16;
  while (cap < 2 * n + 1)
    cap *= 2;
  ix->slots = tool_xmalloc (cap * sizeof *ix->slots);
  ix->mask = cap - 1;
  for (size_t k = 0; k < cap; k++)
    ix->slots[k] = -1;
  for (size_t c = 0; c < n; c++)
    {
      size_t h = migrate_hash (cands[c].name, strlen (cands[c].name)) & ix->mask;
      while (ix->slots[h] >= 0)
        h = (h + 1) & ix->mask;
      ix->slots[h] = (int) c;
    }
}

/* The candidate named like token I of F, or NULL.  */
static struct candidate *
index_find (const struct index *ix, struct candidate *cands,
            const struct migrate_file *f, int i)
{
  char *spliced = NULL;
  const char *name = f->text + f->toks[i].start;
  size_t len = f->toks[i].end - f->toks[i].start;
  if (f->toks[i].flags & MIGRATE_TF_SPLICED)
    {
      spliced = migrate_tok_text (f, i);
      name = spliced;
      len = strlen (spliced);
    }
  struct candidate *hit = NULL;
  for (size_t h = migrate_hash (name, len) & ix->mask; ix->slots[h] >= 0;
       h = (h + 1) & ix->mask)
    {
      struct candidate *c = &cands[ix->slots[h]];
      if (strlen (c->name) == len && memcmp (c->name, name, len) == 0)
        {
          hit = c;
          break;
        }
    }
  free (spliced);
  return hit;
}

static void
check_declarations (struct migrate_project *proj, struct candidate *c)
{
  bool defined = false;
  for (size_t k = 0; k < c->ndecls; k++)
    {
      const struct migrate_file *f = proj->files[c->decls[k].file];
      const struct migrate_func *fn = &f->funcs[c->decls[k].func];
      if (!f->in_paths)
        add_reason (c, migrate_xasprintf ("it is declared in %s, which is not"
                                          " being migrated", f->path));
      if (migrate_param_count (f, c->decls[k].func) != 1)
        add_reason (c, migrate_xasprintf ("it has other parameters (%s:%u)",
                                          f->path, f->toks[fn->name].line));
      if (fn->body < 0)
        continue;
      defined = true;
      int close = f->toks[fn->body].match;
      for (int j = fn->body; j < (close > 0 ? close : f->ntoks); j = migrate_next (f, j))
        if (migrate_tok_is (f, j, c->flag) && !migrate_is_member (f, j)
            && migrate_is_assigned (f, j))
          add_reason (c, migrate_xasprintf ("the body assigns it (%s:%u)",
                                            f->path, f->toks[j].line));
    }
  if (!defined)
    add_reason (c, tool_xstrdup ("its definition is not among the files"));
}

/* Delete `(void) FLAG;' statements in the definition's body.  */
static void
drop_void_casts (struct migrate_project *proj, int fi, int func,
                 const char *flag, int site)
{
  struct migrate_file *f = proj->files[fi];
  int body = f->funcs[func].body, close = f->toks[body].match;
  for (int j = body; j < (close > 0 ? close : f->ntoks); j = migrate_next (f, j))
    {
      int v = migrate_next (f, j), c = migrate_next (f, v);
      int name = migrate_next (f, c), semi = migrate_next (f, name);
      if (is (f, j, "(") && is (f, v, "void") && is (f, c, ")")
          && is (f, name, flag) && is (f, semi, ";"))
        {
          if (migrate_edit_delete_tokens (proj, fi, j, semi, site))
            migrate_claim (f, j, semi);
        }
    }
}

static void
apply (struct migrate_project *proj, struct candidate *c)
{
  bool certain = c->why.len == 0;
  char *fix_review = certain ? NULL
    : migrate_xasprintf ("drop the parameter and read `%s' inside, once the"
                         " callers agree: %s",
                         strcmp (c->flag, "dumping") == 0 ? "will_dump" : "initialized",
                         c->why.data);
  for (size_t k = 0; k < c->ndecls; k++)
    {
      int fi = c->decls[k].file;
      struct migrate_file *f = proj->files[fi];
      struct migrate_func *fn = &f->funcs[c->decls[k].func];
      if (!f->in_paths)
        continue;
      char *head = migrate_render (f, fn->name, fn->rparen + 1);
      int site = migrate_site_add
        (proj, fi, fn->name, MIGRATE_P_PARAM,
         certain ? MIGRATE_CERTAIN : MIGRATE_REVIEW,
         migrate_xasprintf ("`%s' %s the legacy flag `%s'", head,
                            fn->body >= 0 ? "takes" : "declares", c->flag),
         certain ? migrate_xasprintf ("`%s (void)': every caller passes the flag"
                                      " itself, so the body can read %s",
                                      c->name, strcmp (c->flag, "dumping") == 0
                                      ? "will_dump" : "the gflags `initialized'")
         : tool_xstrdup (fix_review));
      free (head);
      if (!certain)
        continue;
      migrate_edit_add (proj, fi, f->toks[migrate_next (f, fn->lparen)].start,
                        f->toks[migrate_prev (f, fn->rparen)].end, "void", site);
      migrate_claim (f, fn->lparen, fn->rparen);
      if (fn->body >= 0)
        {
          fn->dropped_param = migrate_param_find (f, c->decls[k].func, c->flag);
          drop_void_casts (proj, fi, c->decls[k].func, c->flag, site);
        }
    }
  free (fix_review);
  if (!certain)
    return;
  for (size_t k = 0; k < c->ncalls; k++)
    {
      int fi = c->calls[k].file, name = c->calls[k].func;
      struct migrate_file *f = proj->files[fi];
      int open = migrate_next (f, name), close = f->toks[open].match;
      char *call = migrate_render (f, name, close + 1);
      int site = migrate_site_add (proj, fi, name, MIGRATE_P_PARAM, MIGRATE_CERTAIN,
                                   migrate_xasprintf ("`%s' passes the legacy"
                                                      " flag", call),
                                   migrate_xasprintf ("`%s ()'", c->name));
      free (call);
      migrate_edit_add (proj, fi, f->toks[open].end, f->toks[close].start, "", site);
      migrate_claim (f, open, close);
    }
}

void
migrate_rule_params (struct migrate_project *proj)
{
  struct candidate *cands = NULL;
  size_t ncands = 0, cap = 0;
  static const char *const flags[] = { "initialized", "dumping", NULL };
  for (int fi = 0; fi < proj->nfiles; fi++)
    {
      const struct migrate_file *f = proj->files[fi];
      for (int k = 0; k < f->nfuncs; k++)
        for (int q = 0; flags[q]; q++)
          if (migrate_param_find (f, k, flags[q]) >= 0)
            {
              char *name = migrate_tok_text (f, f->funcs[k].name);
              if (!find_candidate (cands, ncands, name))
                {
                  migrate_grow (&cands, &cap, ncands + 1, sizeof *cands);
                  memset (&cands[ncands], 0, sizeof *cands);
                  cands[ncands].name = name;
                  cands[ncands++].flag = flags[q];
                }
              else
                free (name);
            }
    }
  struct index ix;
  index_build (&ix, cands, ncands);
  /* Every declaration of each candidate, named parameter or not, and
     every other reference.  */
  for (int fi = 0; fi < proj->nfiles; fi++)
    {
      const struct migrate_file *f = proj->files[fi];
      for (int k = 0; k < f->nfuncs; k++)
        {
          struct candidate *c = index_find (&ix, cands, f, f->funcs[k].name);
          if (!c)
            continue;
          migrate_grow (&c->decls, &c->decls_cap, c->ndecls + 1, sizeof *c->decls);
          c->decls[c->ndecls].file = fi;
          c->decls[c->ndecls++].func = k;
        }
    }
  for (int fi = 0; fi < proj->nfiles && ncands > 0; fi++)
    {
      const struct migrate_file *f = proj->files[fi];
      for (int i = 0; i < f->ntoks; i++)
        {
          if (f->toks[i].kind != MIGRATE_T_IDENT || !migrate_is_code (f, i))
            continue;
          struct candidate *c = index_find (&ix, cands, f, i);
          if (c && !is_decl_name (f, i))
            on_reference (proj, c, fi, i);
        }
    }
  free (ix.slots);
  for (size_t c = 0; c < ncands; c++)
    {
      check_declarations (proj, &cands[c]);
      if (cands[c].ncalls == 0)
        add_reason (&cands[c], tool_xstrdup ("no call of it was found among"
                                                " the files"));
      apply (proj, &cands[c]);
      free (cands[c].name);
      free (cands[c].decls);
      free (cands[c].calls);
      migrate_buf_free (&cands[c].why);
    }
  free (cands);
}
