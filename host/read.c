/* SPDX-License-Identifier: MIT */
/* host/read.c: the dlisp reader.

   Owns: turning text into objects.  The syntax is a small Emacs Lisp:
   integers (also #xFF, #o17, #b101), floats (with 1.0e+INF, -1.0e+INF
   and 0.0e+NaN), strings
   with escapes, ?c characters, symbols with \ escapes, lists and dotted
   pairs, [vectors], 'x `x ,x ,@x #'x, #:uninterned symbols and
   #s(hash-table test eq data (K V ...)).  Everything the printer writes
   with escaping on reads back `equal' (host/print.c).

   Must not: evaluate, so it never collects; the objects it builds need
   no protection until it returns.  */

#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lisp.h"

_Noreturn static void
syntax_error (struct dl_reader *r, const char *what)
{
  char message[256];
  snprintf (message, sizeof message, "%s%s%d: %s", r->source ? r->source : "",
            r->source ? ":" : "line ", r->line, what);
  dl_signal (DL_Q (invalid_read_syntax), dl_list (1, dl_make_cstring (message)));
}

_Noreturn static void
incomplete (struct dl_reader *r)
{
  (void) r;
  dl_signal (DL_Q (end_of_file), dl_list (1, dl_make_cstring ("end of input inside a form")));
}

static int
peek (struct dl_reader *r)
{
  return r->pos < r->len ? (unsigned char) r->text[r->pos] : -1;
}

static int
next (struct dl_reader *r)
{
  if (r->pos >= r->len)
    return -1;
  int c = (unsigned char) r->text[r->pos++];
  if (c == '\n')
    r->line++;
  return c;
}

static void
skip_blank (struct dl_reader *r)
{
  for (;;)
    {
      int c = peek (r);
      if (c == ';')
        while (c != -1 && c != '\n')
          c = next (r);
      else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f')
        next (r);
      else
        return;
    }
}

static bool
delimiter (int c)
{
  return c == -1 || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
         || c == '(' || c == ')' || c == '[' || c == ']' || c == '"' || c == '\''
         || c == ';' || c == '`' || c == ',';
}

static int
hex_value (int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* After a backslash: the character an escape denotes.  */
static int64_t
read_escape (struct dl_reader *r)
{
  int c = next (r);
  switch (c)
    {
    case -1: incomplete (r);
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'e': return 27;
    case 'a': return 7;
    case 's': return ' ';
    case 'd': return 127;
    case 'x':
      {
        int64_t v = 0;
        int digits = 0;
        while (hex_value (peek (r)) >= 0 && digits < 8)
          v = v * 16 + hex_value (next (r)), digits++;
        if (digits == 0)
          syntax_error (r, "\\x needs hexadecimal digits");
        return v;
      }
    case 'u':
      {
        int64_t v = 0;
        for (int i = 0; i < 4; i++)
          {
            int h = hex_value (next (r));
            if (h < 0)
              syntax_error (r, "\\u needs four hexadecimal digits");
            v = v * 16 + h;
          }
        return v;
      }
    default:
      if (c >= '0' && c <= '7')
        {
          int64_t v = c - '0';
          for (int i = 0; i < 2 && peek (r) >= '0' && peek (r) <= '7'; i++)
            v = v * 8 + (next (r) - '0');
          return v;
        }
      return c;
    }
}

static dl_obj
read_string (struct dl_reader *r)
{
  struct dl_buf b = { 0 };
  for (;;)
    {
      int c = next (r);
      if (c == -1)
        {
          dl_buf_free (&b);
          incomplete (r);
        }
      if (c == '"')
        break;
      if (c == '\\')
        {
          if (peek (r) == '\n')
            {
              next (r);         /* line continuation */
              continue;
            }
          bool unicode = peek (r) == 'u';
          int64_t code = read_escape (r);
          /* \ooo and \xHH from 128 to 255 are raw bytes (as in Emacs
             unibyte strings); \uXXXX is always a character.  */
          if (!unicode && code < 256 && code >= 128)
            dl_buf_addc (&b, (char) code);
          else
            dl_buf_add_char (&b, code);
        }
      else
        dl_buf_addc (&b, (char) c);
    }
  dl_obj s = dl_make_string (b.data ? b.data : "", b.len);
  dl_buf_free (&b);
  return s;
}

static dl_obj
read_char_literal (struct dl_reader *r)
{
  int c = next (r);
  if (c == -1)
    incomplete (r);
  if (c == '\\')
    return dl_fix (read_escape (r));
  if (c >= 0xC0)
    {
      r->pos--;
      size_t pos = r->pos;
      int64_t code = dl_utf8_decode (r->text, r->len, &pos);
      r->pos = pos;
      return dl_fix (code);
    }
  return dl_fix (c);
}

/* A number if TOKEN (not escaped) has number syntax.  */
static bool
parse_number (const char *token, size_t len, dl_obj *out)
{
  size_t i = 0;
  if (len > 0 && (token[0] == '+' || token[0] == '-'))
    i++;
  size_t digits_start = i;
  while (i < len && token[i] >= '0' && token[i] <= '9')
    i++;
  size_t int_digits = i - digits_start;
  if (int_digits > 0 && (i == len || (i + 1 == len && token[i] == '.')))
    {
      errno = 0;
      long long v = strtoll (token, NULL, 10);
      if (errno != 0 || !dl_fix_in_range (v))
        return false;
      *out = dl_fix (v);
      return true;
    }
  /* Floats: digits, optional fraction, optional exponent.  */
  size_t frac_digits = 0;
  if (i < len && token[i] == '.')
    {
      i++;
      size_t f = i;
      while (i < len && token[i] >= '0' && token[i] <= '9')
        i++;
      frac_digits = i - f;
    }
  if (int_digits + frac_digits == 0)
    return false;
  bool negative = token[0] == '-';
  if (i < len && (token[i] == 'e' || token[i] == 'E'))
    {
      size_t e = i + 1;
      if (len - e == 4 && memcmp (token + e, "+INF", 4) == 0)
        {
          *out = dl_make_float (negative ? -INFINITY : INFINITY);
          return true;
        }
      if (len - e == 4 && memcmp (token + e, "+NaN", 4) == 0)
        {
          *out = dl_make_float (negative ? -NAN : NAN);
          return true;
        }
      if (e < len && (token[e] == '+' || token[e] == '-'))
        e++;
      size_t exp_start = e;
      while (e < len && token[e] >= '0' && token[e] <= '9')
        e++;
      if (e == exp_start || e != len)
        return false;
      i = e;
    }
  else if (frac_digits == 0)
    return false;
  if (i != len)
    return false;
  char buf[128];
  if (len >= sizeof buf)
    return false;
  memcpy (buf, token, len);
  buf[len] = '\0';
  *out = dl_make_float (strtod (buf, NULL));
  return true;
}

/* A symbol or number token.  */
static dl_obj
read_atom (struct dl_reader *r, bool uninterned)
{
  struct dl_buf b = { 0 };
  bool escaped = false;
  while (!delimiter (peek (r)))
    {
      int c = next (r);
      if (c == '\\')
        {
          c = next (r);
          if (c == -1)
            {
              dl_buf_free (&b);
              incomplete (r);
            }
          escaped = true;
        }
      dl_buf_addc (&b, (char) c);
    }
  const char *text = b.data ? b.data : "";
  dl_obj result;
  if (!escaped && !uninterned && parse_number (text, b.len, &result))
    ;
  else if (uninterned)
    result = dl_make_symbol (dl_make_string (text, b.len));
  else
    result = dl_intern (text, b.len);
  dl_buf_free (&b);
  return result;
}

static dl_obj read_form (struct dl_reader *r, int depth);

/* #xFF, #o17, #b101: an integer in another base.  */
static dl_obj
read_radix (struct dl_reader *r, int base)
{
  char digits[80];
  size_t n = 0;
  while (!delimiter (peek (r)) && n < sizeof digits - 1)
    digits[n++] = (char) next (r);
  digits[n] = '\0';
  char *end;
  errno = 0;
  long long v = strtoll (digits, &end, base);
  if (n == 0 || *end != '\0' || errno != 0 || !dl_fix_in_range (v))
    syntax_error (r, "invalid integer in #x/#o/#b syntax");
  return dl_fix (v);
}

/* Read elements up to CLOSE; a list with an optional dotted tail.  */
static dl_obj
read_list (struct dl_reader *r, int close, int depth)
{
  dl_obj head = Qnil, last = Qnil;
  for (;;)
    {
      skip_blank (r);
      int c = peek (r);
      if (c == -1)
        incomplete (r);
      if (c == close)
        {
          next (r);
          return head;
        }
      if (c == ')' || c == ']')
        syntax_error (r, "mismatched closing bracket");
      if (c == '.' && close == ')' && r->pos + 1 <= r->len
          && delimiter (r->pos + 1 < r->len ? (unsigned char) r->text[r->pos + 1] : -1))
        {
          next (r);
          if (last == Qnil)
            syntax_error (r, "dot at the start of a list");
          dl_xcons (last)->cdr = read_form (r, depth + 1);
          skip_blank (r);
          if (next (r) != ')')
            syntax_error (r, "more than one object after a dot");
          return head;
        }
      dl_obj cell = dl_cons (read_form (r, depth + 1), Qnil);
      if (last == Qnil)
        head = cell;
      else
        dl_xcons (last)->cdr = cell;
      last = cell;
    }
}

static dl_obj
read_hash_table (struct dl_reader *r, int depth)
{
  dl_obj spec = read_list (r, ')', depth);
  if (!dl_consp (spec) || dl_car_unsafe (spec) != DL_Q (hash_table))
    syntax_error (r, "#s( is only for hash tables");
  dl_obj props = dl_cdr_unsafe (spec);
  dl_obj test = dl_plist_get (props, DL_Q (test));
  dl_obj data = dl_plist_get (props, DL_Q (data));
  dl_obj table = dl_make_hash (test == DL_Q (equal) ? DL_HASH_EQUAL : DL_HASH_EQ,
                               dl_list_length (data) / 2);
  for (dl_obj l = data; dl_consp (l) && dl_consp (dl_cdr_unsafe (l));
       l = dl_cdr_unsafe (dl_cdr_unsafe (l)))
    dl_hash_put (table, dl_car_unsafe (l), dl_car_unsafe (dl_cdr_unsafe (l)));
  return table;
}

static dl_obj
read_form (struct dl_reader *r, int depth)
{
  if (depth > 10000)
    syntax_error (r, "nesting too deep");
  skip_blank (r);
  int c = next (r);
  switch (c)
    {
    case -1:
      incomplete (r);
    case '(':
      return read_list (r, ')', depth);
    case '[':
      {
        dl_obj items = read_list (r, ']', depth);
        size_t n = dl_list_length (items);
        dl_obj v = dl_make_vector (n, Qnil);
        for (size_t i = 0; i < n; i++, items = dl_cdr_unsafe (items))
          dl_xvec (v)->items[i] = dl_car_unsafe (items);
        return v;
      }
    case ')':
    case ']':
      syntax_error (r, "unexpected closing bracket");
    case '"':
      return read_string (r);
    case '?':
      return read_char_literal (r);
    case '\'':
      return dl_list (2, DL_Q (quote), read_form (r, depth + 1));
    case '`':
      return dl_list (2, DL_Q (backquote), read_form (r, depth + 1));
    case ',':
      if (peek (r) == '@')
        {
          next (r);
          return dl_list (2, DL_Q (comma_at), read_form (r, depth + 1));
        }
      return dl_list (2, DL_Q (comma), read_form (r, depth + 1));
    case '#':
      c = next (r);
      if (c == '\'')
        return dl_list (2, DL_Q (function), read_form (r, depth + 1));
      if (c == ':')
        return read_atom (r, true);
      if (c == 's' && next (r) == '(')
        return read_hash_table (r, depth);
      if (c == '#')
        return dl_intern ("", 0);
      if (c == 'x' || c == 'X' || c == 'o' || c == 'b')
        return read_radix (r, c == 'o' ? 8 : c == 'b' ? 2 : 16);
      syntax_error (r, "unknown # syntax (#<...> objects cannot be read)");
    default:
      r->pos--;
      if (c == '\n')
        r->line--;
      return read_atom (r, false);
    }
}

bool
dl_read (struct dl_reader *r, dl_obj *out)
{
  skip_blank (r);
  if (r->pos >= r->len)
    return false;
  *out = read_form (r, 0);
  return true;
}

dl_obj
dl_read_from_string (const char *text, size_t len)
{
  struct dl_reader r = { text, len, 0, 1, NULL };
  dl_obj form;
  if (!dl_read (&r, &form))
    incomplete (&r);
  return form;
}
