/* SPDX-License-Identifier: MIT */
/* tools/migrate/scope.c: brackets, functions and declarations.

   Owns the structure the rules navigate: matching ( [ { across
   preprocessor branches, the kind of each `{', function definitions
   and file-scope prototypes with their parameters, which tokens name a
   declaration, which names a local shadows, statement extents, and the
   "unexec signal" test.

   Branches: each arm of an #if group starts from the bracket state at
   the #if, and after #endif the state left by the first arm is kept,
   so `#ifdef X if (a) { #else if (b) { #endif ... }' still matches the
   closing brace.  Dead branches and directive lines are not code.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool
migrate_is_code (const struct migrate_file *f, int i)
{
  return f->toks[i].directive < 0 && !migrate_tok_dead (f, i);
}

int
migrate_next (const struct migrate_file *f, int i)
{
  for (i++; i < f->ntoks; i++)
    if (migrate_is_code (f, i))
      return i;
  return f->ntoks;
}

int
migrate_prev (const struct migrate_file *f, int i)
{
  for (i--; i >= 0; i--)
    if (migrate_is_code (f, i))
      return i;
  return -1;
}

/* Whether token I (possibly out of range) is the punctuator or word S.  */
static bool
is (const struct migrate_file *f, int i, const char *s)
{
  return i >= 0 && i < f->ntoks && migrate_tok_is (f, i, s);
}

static bool
is_ident (const struct migrate_file *f, int i)
{
  return i >= 0 && i < f->ntoks && f->toks[i].kind == MIGRATE_T_IDENT;
}

/* The bracket stack and the snapshots taken at each open #if.  */
struct snapshot
{
  int *stack;
  int depth;
  int *after_first;           /* state after the first arm, or NULL */
  int after_depth;
};

struct walker
{
  struct migrate_file *f;
  int *stack;
  int depth;
  size_t stack_cap;
  struct snapshot *snaps;
  int nsnaps;
  size_t snaps_cap;
  size_t funcs_cap;
  int proto_name, proto_lparen, proto_rparen;   /* pending prototype */
};

static int *
copy_stack (const int *stack, int depth)
{
  int *copy = tool_xmalloc ((size_t) (depth ? depth : 1) * sizeof *copy);
  if (depth)
    memcpy (copy, stack, (size_t) depth * sizeof *copy);
  return copy;
}

static void
set_stack (struct walker *w, const int *stack, int depth)
{
  migrate_grow (&w->stack, &w->stack_cap, (size_t) depth + 1, sizeof *w->stack);
  if (depth)
    memcpy (w->stack, stack, (size_t) depth * sizeof *w->stack);
  w->depth = depth;
}

static void
on_directive (struct walker *w, int d)
{
  const struct migrate_directive *dir = &w->f->dirs[d];
  if (dir->group < 0)
    return;
  switch (dir->kind)
    {
    case MIGRATE_D_IF:
    case MIGRATE_D_IFDEF:
    case MIGRATE_D_IFNDEF:
      migrate_grow (&w->snaps, &w->snaps_cap, (size_t) w->nsnaps + 1,
                    sizeof *w->snaps);
      w->snaps[w->nsnaps].stack = copy_stack (w->stack, w->depth);
      w->snaps[w->nsnaps].depth = w->depth;
      w->snaps[w->nsnaps].after_first = NULL;
      w->snaps[w->nsnaps].after_depth = 0;
      w->nsnaps++;
      break;
    case MIGRATE_D_ELIF:
    case MIGRATE_D_ELSE:
      if (w->nsnaps > 0)
        {
          struct snapshot *s = &w->snaps[w->nsnaps - 1];
          if (!s->after_first)
            {
              s->after_first = copy_stack (w->stack, w->depth);
              s->after_depth = w->depth;
            }
          set_stack (w, s->stack, s->depth);
        }
      break;
    case MIGRATE_D_ENDIF:
      if (w->nsnaps > 0)
        {
          struct snapshot *s = &w->snaps[--w->nsnaps];
          if (s->after_first)
            set_stack (w, s->after_first, s->after_depth);
          free (s->stack);
          free (s->after_first);
        }
      break;
    default:
      break;
    }
}

static bool
inside_brace_kind (const struct walker *w, enum migrate_brace kind)
{
  for (int k = w->depth - 1; k >= 0; k--)
    if (migrate_tok_is (w->f, w->stack[k], "{"))
      return w->f->toks[w->stack[k]].brace == kind;
  return false;
}

/* The `)' closing the parameter list of a function whose body opens
   right after P (P itself, or in a K&R definition the `)' before the
   parameter declarations), or -1.  */
static int
params_close (const struct migrate_file *f, int p)
{
  int j = p;
  if (is (f, j, ";"))
    while (j >= 0 && !is (f, j, ")"))
      {
        if (!(is_ident (f, j) || is (f, j, "*") || is (f, j, ",")
              || is (f, j, ";") || is (f, j, "[") || is (f, j, "]")
              || f->toks[j].kind == MIGRATE_T_NUMBER))
          return -1;
        j = migrate_prev (f, j);
      }
  if (!is (f, j, ")") || f->toks[j].match < 0
      || !is_ident (f, migrate_prev (f, f->toks[j].match)))
    return -1;
  return j;
}

/* Classify the `{' at I; record a function when it opens a body.  */
static void
classify_brace (struct walker *w, int i)
{
  struct migrate_file *f = w->f;
  int p = migrate_prev (f, i);
  enum migrate_brace kind = MIGRATE_B_BLOCK;
  if (is (f, p, "=") || ((is (f, p, ",") || is (f, p, "{"))
                         && inside_brace_kind (w, MIGRATE_B_INIT)))
    kind = MIGRATE_B_INIT;
  else if (is (f, p, "struct") || is (f, p, "union") || is (f, p, "enum")
           || (is_ident (f, p)
               && (is (f, migrate_prev (f, p), "struct")
                   || is (f, migrate_prev (f, p), "union")
                   || is (f, migrate_prev (f, p), "enum"))))
    kind = MIGRATE_B_AGGR;
  else if (w->depth == 0 && (p = params_close (f, p)) >= 0)
    {
      kind = MIGRATE_B_FUNC;
      migrate_grow (&f->funcs, &w->funcs_cap, (size_t) f->nfuncs + 1,
                    sizeof *f->funcs);
      struct migrate_func *fn = &f->funcs[f->nfuncs];
      fn->name = migrate_prev (f, f->toks[p].match);
      fn->lparen = f->toks[p].match;
      fn->rparen = p;
      fn->body = i;
      fn->dropped_param = -1;
      f->toks[i].func = f->nfuncs++;
    }
  f->toks[i].brace = (unsigned char) kind;
}

static void
record_prototype (struct walker *w)
{
  struct migrate_file *f = w->f;
  migrate_grow (&f->funcs, &w->funcs_cap, (size_t) f->nfuncs + 1,
                sizeof *f->funcs);
  struct migrate_func *fn = &f->funcs[f->nfuncs++];
  fn->name = w->proto_name;
  fn->lparen = w->proto_lparen;
  fn->rparen = w->proto_rparen;
  fn->body = -1;
  fn->dropped_param = -1;
}

static void
on_code (struct walker *w, int i)
{
  struct migrate_file *f = w->f;
  struct migrate_token *t = &f->toks[i];

  if (w->proto_name >= 0)
    {
      if (is (f, i, ";") || is (f, i, ","))
        record_prototype (w);
      w->proto_name = -1;
    }
  for (int k = w->depth - 1; k >= 0; k--)
    if (migrate_tok_is (f, w->stack[k], "{"))
      {
        t->open = w->stack[k];
        break;
      }
  if (w->depth > 0 && migrate_tok_is (f, w->stack[0], "{")
      && f->toks[w->stack[0]].brace == MIGRATE_B_FUNC)
    t->func = f->toks[w->stack[0]].func;

  if (t->kind != MIGRATE_T_PUNCT)
    return;
  char c = f->text[t->start];
  if (t->end - t->start != 1)
    return;
  if (c == '(' || c == '[' || c == '{')
    {
      if (c == '{')
        classify_brace (w, i);
      migrate_grow (&w->stack, &w->stack_cap, (size_t) w->depth + 1,
                    sizeof *w->stack);
      w->stack[w->depth++] = i;
    }
  else if (c == ')' || c == ']' || c == '}')
    {
      char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (w->depth == 0 || f->text[f->toks[w->stack[w->depth - 1]].start] != want)
        return;
      int open = w->stack[--w->depth];
      t->match = open;
      f->toks[open].match = i;
      if (c == ')' && w->depth == 0 && is_ident (f, migrate_prev (f, open)))
        {
          w->proto_name = migrate_prev (f, open);
          w->proto_lparen = open;
          w->proto_rparen = i;
        }
      if (c == '}')
        t->open = f->toks[open].open;
    }
}

void
migrate_scope_build (struct migrate_file *f)
{
  struct walker w = { 0 };
  w.f = f;
  w.proto_name = -1;
  for (int i = 0; i < f->ntoks; i++)
    {
      int d = f->toks[i].directive;
      if (d >= 0)
        {
          if (i == f->dirs[d].hash && !migrate_tok_dead (f, i))
            on_directive (&w, d);
          continue;
        }
      if (!migrate_tok_dead (f, i))
        on_code (&w, i);
    }
  for (int k = 0; k < w.nsnaps; k++)
    {
      free (w.snaps[k].stack);
      free (w.snaps[k].after_first);
    }
  free (w.snaps);
  free (w.stack);
}

/* ------------------------------------------------------------------ */
/* Parameters and declarations.  */

/* Call FN for each parameter [first, last] of FUNC; stop when it
   returns true.  Returns the index of that parameter, or -1.  */
static int
each_param (const struct migrate_file *f, int func,
            bool (*fn) (const struct migrate_file *, int, int, void *),
            void *data)
{
  const struct migrate_func *fd = &f->funcs[func];
  int index = 0;
  int j = migrate_next (f, fd->lparen);
  while (j < fd->rparen)
    {
      int first = j, last = j;
      while (j < fd->rparen && !is (f, j, ","))
        {
          if (f->toks[j].match > j)
            j = f->toks[j].match;       /* a nested group */
          last = j;
          j = migrate_next (f, j);
        }
      if (fn (f, first, last, data))
        return index;
      index++;
      if (j < fd->rparen)
        j = migrate_next (f, j);        /* the comma */
    }
  return -1;
}

static bool
count_one (const struct migrate_file *f, int first, int last, void *data)
{
  int *count = data;
  if (!(first == last && migrate_tok_is (f, first, "void")))
    (*count)++;
  return false;
}

int
migrate_param_count (const struct migrate_file *f, int func)
{
  int count = 0;
  each_param (f, func, count_one, &count);
  return count;
}

struct param_query
{
  const char *name;
  int found;
};

static bool
param_named (const struct migrate_file *f, int first, int last, void *data)
{
  struct param_query *q = data;
  int name = -1;
  for (int j = first; j <= last; j = migrate_next (f, j))
    {
      if (is (f, j, "("))
        return false;         /* a function-pointer parameter */
      if (is (f, j, "["))
        break;
      if (is_ident (f, j))
        name = j;
    }
  if (name >= 0 && name != first && migrate_tok_is (f, name, q->name))
    {
      q->found = name;
      return true;
    }
  return false;
}

int
migrate_param_find (const struct migrate_file *f, int func, const char *name)
{
  struct param_query q = { name, -1 };
  each_param (f, func, param_named, &q);
  return q.found;
}

static const char *const not_type_words[] = {
  "return", "sizeof", "case", "goto", "else", "do", "typeof", "__typeof__",
  "alignof", "_Alignof", "defined", "if", "while", "for", "switch", NULL
};

/* Token I follows a `,' in a declaration (`bool a, I'): the statement
   it is in starts with two identifiers and no `(' or `=' stands
   unmatched between that start and I.  */
static bool
later_declarator (const struct migrate_file *f, int i)
{
  int j = migrate_prev (f, i), start = i;
  while (j >= 0 && !is (f, j, ";") && !is (f, j, "{") && !is (f, j, "}"))
    {
      if (is (f, j, ")") || is (f, j, "]"))
        {
          if (f->toks[j].match < 0)
            return false;
          j = f->toks[j].match;
        }
      else if (is (f, j, "(") || is (f, j, "[") || is (f, j, "="))
        return false;
      start = j;
      j = migrate_prev (f, j);
    }
  int second = migrate_next (f, start);
  return is_ident (f, start) && is_ident (f, second) && second < i;
}

bool
migrate_is_declarator (const struct migrate_file *f, int i)
{
  int n = migrate_next (f, i);
  if (!(is (f, n, ";") || is (f, n, "=") || is (f, n, ",") || is (f, n, "[")
        || is (f, n, ")") || is (f, n, ":")))
    return false;
  int p = migrate_prev (f, i);
  if (is (f, p, ","))
    return later_declarator (f, i);
  /* `struct { ... } name;', `enum { ... } name;'.  */
  if (is (f, p, "}") && f->toks[p].match >= 0
      && f->toks[f->toks[p].match].brace == MIGRATE_B_AGGR)
    return true;
  while (is (f, p, "*") || is (f, p, "const") || is (f, p, "volatile")
         || is (f, p, "restrict"))
    p = migrate_prev (f, p);
  return is_ident (f, p) && !migrate_tok_in (f, p, not_type_words);
}

bool
migrate_is_member (const struct migrate_file *f, int i)
{
  int p = migrate_prev (f, i);
  return is (f, p, ".") || is (f, p, "->");
}

bool
migrate_shadowed (const struct migrate_file *f, int i, const char *name)
{
  int func = f->toks[i].func;
  if (func < 0)
    return false;
  if (migrate_param_find (f, func, name) >= 0)
    return true;
  for (int j = f->funcs[func].body; j < i; j = migrate_next (f, j))
    if (f->toks[j].kind == MIGRATE_T_IDENT && migrate_tok_is (f, j, name)
        && migrate_is_declarator (f, j) && !migrate_is_member (f, j))
      {
        int open = f->toks[j].open;
        if (open >= 0 && open < i
            && (f->toks[open].match < 0 || f->toks[open].match > i))
          return true;
      }
  return false;
}

/* ------------------------------------------------------------------ */
/* Statements.  */

static bool
control_word (const struct migrate_file *f, int i)
{
  return is (f, i, "if") || is (f, i, "while") || is (f, i, "for")
    || is (f, i, "switch");
}

int
migrate_skip_statement (const struct migrate_file *f, int i, int limit)
{
  if (i < 0 || i >= limit)
    return -1;
  if (is (f, i, "{"))
    {
      int m = f->toks[i].match;
      return (m > i && m < limit) ? m : -1;
    }
  if (control_word (f, i))
    {
      int open = migrate_next (f, i);
      if (!is (f, open, "(") || f->toks[open].match < 0)
        return -1;
      int last = migrate_skip_statement (f, migrate_next (f, f->toks[open].match),
                                         limit);
      if (last < 0)
        return -1;
      int e = migrate_next (f, last);
      if (is (f, i, "if") && e < limit && is (f, e, "else"))
        last = migrate_skip_statement (f, migrate_next (f, e), limit);
      return last;
    }
  if (is (f, i, "do"))
    {
      int body = migrate_skip_statement (f, migrate_next (f, i), limit);
      int w = body < 0 ? limit : migrate_next (f, body);
      int open = w < limit ? migrate_next (f, w) : limit;
      if (!is (f, w, "while") || !is (f, open, "(") || f->toks[open].match < 0)
        return -1;
      int semi = migrate_next (f, f->toks[open].match);
      return (semi < limit && is (f, semi, ";")) ? semi : -1;
    }
  for (int j = i; j < limit; j = migrate_next (f, j))
    {
      if (is (f, j, ";"))
        return j;
      if (is (f, j, "}") || is (f, j, ")") || is (f, j, "]"))
        return -1;
      if ((is (f, j, "(") || is (f, j, "[") || is (f, j, "{")))
        {
          if (f->toks[j].match < 0)
            return -1;
          j = f->toks[j].match;
        }
    }
  return -1;
}

void
migrate_statement_of (const struct migrate_file *f, int i, int *first,
                      int *last)
{
  int j = migrate_prev (f, i);
  int start = i;
  while (j >= 0)
    {
      if (is (f, j, ")") || is (f, j, "]"))
        {
          if (f->toks[j].match < 0)
            break;
          start = f->toks[j].match;
          j = migrate_prev (f, f->toks[j].match);
          continue;
        }
      if (is (f, j, "(") && control_word (f, migrate_prev (f, j)))
        {
          int kw = migrate_prev (f, j);
          int end = migrate_skip_statement (f, kw, f->ntoks);
          *first = kw;
          *last = end >= 0 ? end : i;
          return;
        }
      if (is (f, j, ";") || is (f, j, "{") || is (f, j, "}"))
        break;
      start = j;
      j = migrate_prev (f, j);
    }
  *first = start;
  int k = i;
  while (k < f->ntoks && !is (f, k, ";"))
    {
      if ((is (f, k, "(") || is (f, k, "[") || is (f, k, "{"))
          && f->toks[k].match > k)
        k = f->toks[k].match;
      else if (is (f, k, "}"))
        break;
      k = migrate_next (f, k);
    }
  *last = k < f->ntoks ? k : i;
}
