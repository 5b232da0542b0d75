/* SPDX-License-Identifier: MIT */
/* tools/migrate/expr.c: dump conditions: evaluation and rewriting.

   Owns the reasoning behind the CANNOT_DUMP rules.  A condition is
   parsed as operands joined by `&&', `||', `!' and parentheses; an
   operand is a flag atom (classified by the caller's function) or an
   opaque expression.  The legacy atoms are translated into the gflags
   vocabulary

       initialized           ->  !will_dump   (legacy: "not while dumping")
       might_dump, dumping   ->  will_dump
       NILP (Vpurify_flag)   ->  !will_dump   (review: purify has other uses)

   and the result is evaluated in three-valued logic for a `none' build,
   where every will_dump / dumped_with flag is the constant false.  A
   rule may drop a CANNOT_DUMP guard only when that value proves the
   rewritten code does in a `none' build exactly what the legacy code
   did when CANNOT_DUMP was defined.  A flag used other than as a plain
   operand (`initialized == 1', `f (initialized)') makes the condition
   "complex": it is never rewritten automatically.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>

struct parser
{
  const struct migrate_file *f;
  int pos, end;
  migrate_atom_fn atom;
  void *data;
  struct migrate_cond *out;
};

static bool
at (const struct parser *p, const char *s)
{
  return p->pos < p->end && migrate_tok_is (p->f, p->pos, s);
}

static void
advance (struct parser *p)
{
  p->pos = migrate_next (p->f, p->pos);
}

static enum migrate_tri
tri_not (enum migrate_tri v)
{
  return v == MIGRATE_UNKNOWN ? v : v == MIGRATE_TRUE ? MIGRATE_FALSE : MIGRATE_TRUE;
}

static enum migrate_tri
tri_and (enum migrate_tri a, enum migrate_tri b)
{
  if (a == MIGRATE_FALSE || b == MIGRATE_FALSE)
    return MIGRATE_FALSE;
  return (a == MIGRATE_TRUE && b == MIGRATE_TRUE) ? MIGRATE_TRUE : MIGRATE_UNKNOWN;
}

static enum migrate_tri
tri_or (enum migrate_tri a, enum migrate_tri b)
{
  if (a == MIGRATE_TRUE || b == MIGRATE_TRUE)
    return MIGRATE_TRUE;
  return (a == MIGRATE_FALSE && b == MIGRATE_FALSE) ? MIGRATE_FALSE : MIGRATE_UNKNOWN;
}

/* The value of one atom in a `none' build, after translation.  */
static enum migrate_tri
atom_value (enum migrate_atom kind)
{
  switch (kind)
    {
    case MIGRATE_A_INITIALIZED:
    case MIGRATE_A_PURIFY:
      return MIGRATE_TRUE;
    case MIGRATE_A_WILL:
    case MIGRATE_A_GFLAG_WILL:
      return MIGRATE_FALSE;
    default:
      return MIGRATE_UNKNOWN;
    }
}

static bool
is_legacy (enum migrate_atom kind)
{
  return kind == MIGRATE_A_INITIALIZED || kind == MIGRATE_A_WILL
    || kind == MIGRATE_A_PURIFY;
}

static enum migrate_tri parse_or (struct parser *p);

/* An operand: tokens up to the next top-level `&&', `||' or the end.
   It is a plain atom when it is exactly one flag (or one
   `NILP (Vpurify_flag)'); a flag anywhere else in it makes the
   condition complex.  */
static enum migrate_tri
parse_operand (struct parser *p)
{
  int top = 0, flags = 0, depth = 0;
  enum migrate_atom single = MIGRATE_A_NONE;
  while (p->pos < p->end && (depth > 0 || (!at (p, "&&") && !at (p, "||"))))
    {
      int i = p->pos;
      if (p->f->toks[i].kind == MIGRATE_T_IDENT)
        {
          enum migrate_atom kind = p->atom (p->f, i, p->data);
          if (kind != MIGRATE_A_NONE)
            {
              flags++;
              single = kind;
              p->out->purify |= kind == MIGRATE_A_PURIFY;
              p->out->legacy |= is_legacy (kind);
            }
        }
      if (depth == 0)
        top++;
      if (at (p, "(") || at (p, "[") || at (p, "{"))
        depth++;
      else if ((at (p, ")") || at (p, "]") || at (p, "}")) && depth > 0)
        depth--;
      advance (p);
    }
  p->out->natoms += flags;
  if (flags == 0)
    return MIGRATE_UNKNOWN;
  bool plain = flags == 1
    && (top == 1 || (single == MIGRATE_A_PURIFY && top == 2));
  if (!plain)
    {
      p->out->complex = true;
      return MIGRATE_UNKNOWN;
    }
  return atom_value (single);
}

static enum migrate_tri
parse_unary (struct parser *p)
{
  if (at (p, "!"))
    {
      advance (p);
      return tri_not (parse_unary (p));
    }
  if (at (p, "("))
    {
      int close = p->f->toks[p->pos].match;
      int after_close = close > 0 ? migrate_next (p->f, close) : p->end;
      if (close > p->pos && close < p->end
          && (after_close >= p->end
              || migrate_tok_is (p->f, after_close, "&&")
              || migrate_tok_is (p->f, after_close, "||")))
        {
          struct parser inner = *p;
          inner.pos = migrate_next (p->f, p->pos);
          inner.end = close;
          enum migrate_tri v = parse_or (&inner);
          p->pos = after_close;
          return v;
        }
    }
  return parse_operand (p);
}

/* LEVEL 0: operands joined by `||'; LEVEL 1: by `&&' (which binds
   tighter); below that, unary operands.  */
static enum migrate_tri
parse_binary (struct parser *p, int level)
{
  static const char *const ops[] = { "||", "&&" };
  enum migrate_tri v = level < 1 ? parse_binary (p, level + 1) : parse_unary (p);
  while (at (p, ops[level]))
    {
      advance (p);
      enum migrate_tri w = level < 1 ? parse_binary (p, level + 1) : parse_unary (p);
      v = level == 0 ? tri_or (v, w) : tri_and (v, w);
    }
  return v;
}

static enum migrate_tri
parse_or (struct parser *p)
{
  return parse_binary (p, 0);
}

struct migrate_cond
migrate_cond_eval (const struct migrate_file *f, int first, int end,
                   migrate_atom_fn atom, void *data)
{
  struct migrate_cond out = { MIGRATE_UNKNOWN, false, false, false, 0 };
  struct parser p = { f, first, end, atom, data, &out };
  if (p.pos < end && !migrate_is_code (f, p.pos))
    p.pos = migrate_next (f, p.pos);
  if (p.pos >= end)
    return out;
  out.none_value = parse_or (&p);
  if (p.pos < end)
    out.complex = true;
  return out;
}

char *
migrate_flag_name (const struct migrate_file *f, const char *base)
{
  return f->no_short_names ? migrate_xasprintf ("dumper_%s", base)
    : tool_xstrdup (base);
}

int
migrate_cond_rewrite (struct migrate_project *proj, int file, int site,
                      int first, int end, migrate_atom_fn atom, void *data,
                      bool unexec)
{
  const struct migrate_file *f = proj->files[file];
  char *will = migrate_flag_name (f, unexec ? "will_dump_with_unexec" : "will_dump");
  char *not_will = migrate_xasprintf ("!%s", will);
  int added = 0;
  for (int i = first; i < end; i = migrate_next (f, i))
    {
      if (!migrate_is_code (f, i) || f->toks[i].kind != MIGRATE_T_IDENT)
        continue;
      enum migrate_atom kind = atom (f, i, data);
      int p = migrate_prev (f, i);
      bool negated = p >= first && migrate_tok_is (f, p, "!");
      size_t start = negated ? f->toks[p].start : f->toks[i].start;
      size_t stop = f->toks[i].end;
      if (kind == MIGRATE_A_PURIFY)
        {
          int open = migrate_next (f, i);
          int close = open < f->ntoks ? f->toks[open].match : -1;
          if (close < 0 || close >= end)
            continue;
          stop = f->toks[close].end;
          i = close;
        }
      switch (kind)
        {
        case MIGRATE_A_INITIALIZED:
        case MIGRATE_A_PURIFY:
          migrate_edit_add (proj, file, start, stop, negated ? will : not_will,
                            site);
          added++;
          break;
        case MIGRATE_A_WILL:
          migrate_edit_add (proj, file, f->toks[i].start, f->toks[i].end,
                            will, site);
          added++;
          break;
        default:
          break;
        }
    }
  free (will);
  free (not_will);
  return added;
}

/* Append code token I of F to BUF, with one space when the source had
   any gap before it and BUF is not empty.  */
static void
render_piece (struct migrate_buf *buf, const struct migrate_file *f, int prev,
              int i, const char *text)
{
  if (buf->len > 0 && prev >= 0 && f->toks[prev].end != f->toks[i].start)
    migrate_buf_puts (buf, " ");
  if (text)
    migrate_buf_puts (buf, text);
  else
    {
      char *t = migrate_tok_text (f, i);
      migrate_buf_puts (buf, t);
      free (t);
    }
}

char *
migrate_render (const struct migrate_file *f, int first, int end)
{
  struct migrate_buf buf = { 0 };
  int prev = -1;
  for (int i = first; i < end && i < f->ntoks; i++)
    if (migrate_is_code (f, i))
      {
        render_piece (&buf, f, prev, i, NULL);
        prev = i;
      }
  return migrate_buf_take (&buf);
}

char *
migrate_render_edited (const struct migrate_project *proj, int file,
                       int first, int end, int site)
{
  const struct migrate_file *f = proj->files[file];
  struct migrate_buf buf = { 0 };
  int prev = -1;
  size_t skip_until = 0;
  for (int i = first; i < end && i < f->ntoks; i++)
    {
      if (!migrate_is_code (f, i) || f->toks[i].start < skip_until)
        continue;
      /* The edits of SITE are the last ones added.  */
      const struct migrate_edit *hit = NULL;
      for (size_t e = proj->nedits; e > 0 && proj->edits[e - 1].site == site; e--)
        {
          const struct migrate_edit *ed = &proj->edits[e - 1];
          if (ed->file == file && ed->end > ed->start
              && ed->start == f->toks[i].start)
            hit = ed;
        }
      render_piece (&buf, f, prev, i, hit ? hit->text : NULL);
      if (hit)
        skip_until = hit->end;
      prev = i;
    }
  return migrate_buf_take (&buf);
}
