/* SPDX-License-Identifier: MIT */
/* tools/migrate/lex.c: the C lexer of dumper-migrate.

   Owns turning a file's bytes into lines, tokens, comment spans and
   preprocessor directive records.  It knows exactly as much C as the
   rules need to never mistake text for code: block and line comments
   (a `//' comment continues over a backslash-newline), string and
   character literals with escapes and encoding prefixes, line
   continuations anywhere (a token may be split by one), header names
   after #include, and which tokens form a directive line.  It does not
   expand macros and never fails: what is unterminated ends at the end
   of its line or of the file, with a warning.

   Invariant: tokens are in increasing byte order and never overlap;
   every byte of a comment lies outside every token.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>

struct lexer
{
  struct migrate_file *f;
  const char *s;
  size_t len;
  size_t toks_cap, dirs_cap, comments_cap;
  unsigned cur_line;          /* line of the last token, for line/col */
};

/* Skip any backslash-newlines starting at P.  */
static size_t
skip_splices (const struct lexer *lx, size_t p)
{
  while (p < lx->len && lx->s[p] == '\\')
    {
      size_t q = p + 1;
      if (q < lx->len && lx->s[q] == '\r')
        q++;
      if (q < lx->len && lx->s[q] == '\n')
        p = q + 1;
      else
        break;
    }
  return p;
}

/* The character at P after splices, or -1 at the end.  */
static int
char_at (const struct lexer *lx, size_t p)
{
  p = skip_splices (lx, p);
  return p < lx->len ? (unsigned char) lx->s[p] : -1;
}

/* The position after the character at P (splices skipped first).  */
static size_t
after (const struct lexer *lx, size_t p)
{
  p = skip_splices (lx, p);
  return p < lx->len ? p + 1 : lx->len;
}

static bool
ident_char (int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
    || (c >= '0' && c <= '9') || c == '_' || c == '$' || c >= 0x80;
}

static bool
digit (int c)
{
  return c >= '0' && c <= '9';
}

void
migrate_warn (struct migrate_file *f, unsigned line, const char *msg)
{
  char *old = f->warnings;
  f->warnings = migrate_xasprintf ("%sdumper-migrate: %s:%u: warning: %s\n",
                                   old ? old : "", f->path, line, msg);
  free (old);
}

static void
build_lines (struct migrate_file *f)
{
  size_t count = 0;
  for (size_t i = 0; i < f->len; i++)
    if (f->text[i] == '\n')
      count++;
  if (f->len > 0 && f->text[f->len - 1] != '\n')
    count++;
  f->line_start = tool_xmalloc ((count + 1) * sizeof *f->line_start);
  unsigned n = 0;
  f->line_start[n++] = 0;
  for (size_t i = 0; i < f->len; i++)
    if (f->text[i] == '\n' && i + 1 < f->len)
      f->line_start[n++] = i + 1;
  f->nlines = count;
  f->line_start[count] = f->len;
  if (count == 0)
    f->line_start[0] = 0;
}

/* End of a literal opened by the quote at P.  */
static size_t
scan_literal (struct lexer *lx, size_t p, bool *unterminated)
{
  char quote = lx->s[p];
  size_t q = p + 1;
  *unterminated = false;
  for (;;)
    {
      q = skip_splices (lx, q);
      if (q >= lx->len || lx->s[q] == '\n')
        {
          *unterminated = true;
          return q;
        }
      char c = lx->s[q];
      if (c == '\\')
        {
          q = skip_splices (lx, q + 1);
          if (q < lx->len && lx->s[q] != '\n')
            q++;
          continue;
        }
      q++;
      if (c == quote)
        return q;
    }
}

static size_t
scan_ident (const struct lexer *lx, size_t p, bool *spliced)
{
  size_t q = p;
  for (;;)
    {
      size_t r = skip_splices (lx, q);
      if (r >= lx->len || !ident_char ((unsigned char) lx->s[r]))
        return q;
      if (r != q)
        *spliced = true;
      q = r + 1;
    }
}

static size_t
scan_number (const struct lexer *lx, size_t p)
{
  size_t q = after (lx, p);
  for (;;)
    {
      int c = char_at (lx, q);
      if (c == 'e' || c == 'E' || c == 'p' || c == 'P')
        {
          size_t r = after (lx, q);
          int sign = char_at (lx, r);
          q = (sign == '+' || sign == '-') ? after (lx, r) : r;
          continue;
        }
      /* C23 digit separators: 0x8000'0000.  */
      if (c == '\'' && ident_char (char_at (lx, after (lx, q))))
        {
          q = after (lx, q);
          continue;
        }
      if (c < 0 || !(ident_char (c) || c == '.'))
        return q;
      q = after (lx, q);
    }
}

static const char *const punct3[] = { "<<=", ">>=", "...", NULL };
static const char *const punct2[] = {
  "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=",
  "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", NULL
};

static size_t
scan_punct (const struct lexer *lx, size_t p, bool *other)
{
  *other = false;
  for (int i = 0; punct3[i]; i++)
    if (p + 3 <= lx->len && memcmp (lx->s + p, punct3[i], 3) == 0)
      return p + 3;
  for (int i = 0; punct2[i]; i++)
    if (p + 2 <= lx->len && memcmp (lx->s + p, punct2[i], 2) == 0)
      return p + 2;
  if (!strchr ("[](){}.&*+-~!/%<>^|?:;=,#", lx->s[p]))
    *other = true;
  return p + 1;
}

static int
add_token (struct lexer *lx, enum migrate_tok_kind kind, size_t start,
           size_t end, unsigned flags, int directive)
{
  struct migrate_file *f = lx->f;
  migrate_grow (&f->toks, &lx->toks_cap, (size_t) f->ntoks + 1,
                sizeof *f->toks);
  while (lx->cur_line + 1 < f->nlines
         && f->line_start[lx->cur_line + 1] <= start)
    lx->cur_line++;
  struct migrate_token *t = &f->toks[f->ntoks];
  memset (t, 0, sizeof *t);
  t->kind = kind;
  t->flags = (unsigned char) flags;
  t->start = start;
  t->end = end;
  t->line = lx->cur_line + 1;
  t->col = (unsigned) (start - f->line_start[lx->cur_line]) + 1;
  t->directive = directive;
  t->branch = -1;
  t->match = -1;
  t->func = -1;
  t->open = -1;
  return f->ntoks++;
}

static const struct
{
  const char *name;
  enum migrate_dir_kind kind;
} directive_names[] = {
  { "if", MIGRATE_D_IF }, { "ifdef", MIGRATE_D_IFDEF },
  { "ifndef", MIGRATE_D_IFNDEF }, { "elif", MIGRATE_D_ELIF },
  { "else", MIGRATE_D_ELSE }, { "endif", MIGRATE_D_ENDIF },
  { "include", MIGRATE_D_INCLUDE }, { "define", MIGRATE_D_DEFINE },
  { "undef", MIGRATE_D_UNDEF }, { NULL, MIGRATE_D_OTHER }
};

static int
open_directive (struct lexer *lx, size_t hash_pos)
{
  struct migrate_file *f = lx->f;
  migrate_grow (&f->dirs, &lx->dirs_cap, (size_t) f->ndirs + 1,
                sizeof *f->dirs);
  struct migrate_directive *d = &f->dirs[f->ndirs];
  size_t ls = hash_pos;
  while (ls > 0 && f->text[ls - 1] != '\n')
    ls--;
  d->kind = MIGRATE_D_NULL;
  d->line_start = ls;
  d->line_end = f->len;
  d->group = -1;
  d->hash = add_token (lx, MIGRATE_T_PUNCT, hash_pos, hash_pos + 1,
                       MIGRATE_TF_BOL, f->ndirs);
  d->first = d->end = f->ntoks;
  return f->ndirs++;
}

/* Token I is the first after a directive's `#': it names the directive.  */
static void
name_directive (struct lexer *lx, int dir, int i)
{
  struct migrate_file *f = lx->f;
  struct migrate_directive *d = &f->dirs[dir];
  d->kind = MIGRATE_D_OTHER;
  if (f->toks[i].kind == MIGRATE_T_IDENT)
    for (int k = 0; directive_names[k].name; k++)
      if (migrate_tok_is (f, i, directive_names[k].name))
        {
          d->kind = directive_names[k].kind;
          break;
        }
  d->first = i + 1;
}

void
migrate_lex (struct migrate_file *f)
{
  struct lexer lx = { f, f->text, f->len, 0, 0, 0, 0 };
  build_lines (f);
  size_t pos = 0;
  bool bol = true, ws = true;
  int dir = -1;
  for (;;)
    {
      size_t p = skip_splices (&lx, pos);
      if (p >= lx.len)
        break;
      unsigned char c = (unsigned char) lx.s[p];
      if (c == '\n')
        {
          if (dir >= 0)
            {
              f->dirs[dir].end = f->ntoks;
              f->dirs[dir].line_end = p + 1;
              dir = -1;
            }
          bol = ws = true;
          pos = p + 1;
          continue;
        }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v')
        {
          ws = true;
          pos = p + 1;
          continue;
        }
      if (c == '/' && (char_at (&lx, p + 1) == '*' || char_at (&lx, p + 1) == '/'))
        {
          bool block = char_at (&lx, p + 1) == '*';
          size_t q = after (&lx, p + 1);
          bool closed = !block;
          for (;;)
            {
              q = skip_splices (&lx, q);
              if (q >= lx.len || (!block && lx.s[q] == '\n'))
                break;
              if (block && lx.s[q] == '*' && char_at (&lx, q + 1) == '/')
                {
                  q = after (&lx, q + 1);
                  closed = true;
                  break;
                }
              q++;
            }
          if (!closed)
            {
              unsigned line = 1;
              for (size_t k = 0; k < p; k++)
                line += lx.s[k] == '\n';
              migrate_warn (f, line, "unterminated comment");
            }
          migrate_grow (&f->comments, &lx.comments_cap,
                        (size_t) f->ncomments + 1, sizeof *f->comments);
          f->comments[f->ncomments].start = p;
          f->comments[f->ncomments].end = q;
          f->ncomments++;
          ws = true;
          pos = q;
          continue;
        }
      unsigned flags = (bol ? MIGRATE_TF_BOL : 0) | (ws ? MIGRATE_TF_WS_BEFORE : 0);
      if (c == '#' && bol && dir < 0)
        {
          dir = open_directive (&lx, p);
          f->toks[f->dirs[dir].hash].flags |= ws ? MIGRATE_TF_WS_BEFORE : 0;
          bol = ws = false;
          pos = p + 1;
          continue;
        }
      enum migrate_tok_kind kind;
      size_t end;
      bool spliced = false, unterminated = false;
      if (ident_char (c) && !digit (c))
        {
          end = scan_ident (&lx, p, &spliced);
          kind = MIGRATE_T_IDENT;
          size_t n = end - p;
          int next = char_at (&lx, end);
          bool prefix = !spliced
            && ((n == 1 && strchr ("LuU", lx.s[p]))
                || (n == 2 && memcmp (lx.s + p, "u8", 2) == 0));
          if (prefix && (next == '"' || next == '\''))
            {
              size_t q = skip_splices (&lx, end);
              kind = lx.s[q] == '"' ? MIGRATE_T_STRING : MIGRATE_T_CHAR;
              end = scan_literal (&lx, q, &unterminated);
            }
        }
      else if (digit (c) || (c == '.' && digit (char_at (&lx, p + 1))))
        {
          end = scan_number (&lx, p);
          kind = MIGRATE_T_NUMBER;
        }
      else if (c == '"' || c == '\'')
        {
          end = scan_literal (&lx, p, &unterminated);
          kind = c == '"' ? MIGRATE_T_STRING : MIGRATE_T_CHAR;
        }
      else if (c == '<' && dir >= 0 && f->dirs[dir].kind == MIGRATE_D_INCLUDE
               && f->ntoks == f->dirs[dir].first)
        {
          end = p + 1;
          while (end < lx.len && lx.s[end] != '>' && lx.s[end] != '\n')
            end++;
          if (end < lx.len && lx.s[end] == '>')
            end++;
          kind = MIGRATE_T_HEADER;
        }
      else
        {
          bool other;
          end = scan_punct (&lx, p, &other);
          kind = other ? MIGRATE_T_OTHER : MIGRATE_T_PUNCT;
        }
      if (!spliced)
        for (size_t k = p; k < end; k++)
          if (lx.s[k] == '\\' && skip_splices (&lx, k) != k)
            spliced = true;
      int t = add_token (&lx, kind, p, end,
                         flags | (spliced ? MIGRATE_TF_SPLICED : 0), dir);
      if (unterminated)
        migrate_warn (f, f->toks[t].line, kind == MIGRATE_T_STRING
                      ? "unterminated string literal"
                      : "unterminated character literal");
      if (dir >= 0 && f->dirs[dir].kind == MIGRATE_D_NULL
          && t == f->dirs[dir].hash + 1)
        name_directive (&lx, dir, t);
      bol = ws = false;
      pos = end;
    }
  if (dir >= 0)
    {
      f->dirs[dir].end = f->ntoks;
      f->dirs[dir].line_end = lx.len;
    }
}

bool
migrate_tok_is (const struct migrate_file *f, int i, const char *s)
{
  const struct migrate_token *t = &f->toks[i];
  size_t n = strlen (s);
  if (!(t->flags & MIGRATE_TF_SPLICED))
    return t->end - t->start == n && memcmp (f->text + t->start, s, n) == 0;
  char *text = migrate_tok_text (f, i);
  bool same = strcmp (text, s) == 0;
  free (text);
  return same;
}

bool
migrate_tok_in (const struct migrate_file *f, int i, const char *const *words)
{
  for (int k = 0; words[k]; k++)
    if (migrate_tok_is (f, i, words[k]))
      return true;
  return false;
}

char *
migrate_tok_text (const struct migrate_file *f, int i)
{
  const struct migrate_token *t = &f->toks[i];
  struct lexer lx = { (struct migrate_file *) f, f->text, f->len, 0, 0, 0, 0 };
  struct migrate_buf buf = { 0 };
  size_t p = t->start;
  while (p < t->end)
    {
      size_t q = skip_splices (&lx, p);
      if (q >= t->end)
        break;
      migrate_buf_add (&buf, f->text + q, 1);
      p = q + 1;
    }
  return migrate_buf_take (&buf);
}
