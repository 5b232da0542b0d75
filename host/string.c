/* SPDX-License-Identifier: MIT */
/* host/string.c: string builtins.

   Owns: building, comparing, searching and converting strings.  Strings
   are immutable UTF-8: every operation returns a new string, and
   character indexes count characters, not bytes.  No builtin here
   evaluates Lisp code.  */

#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lisp.h"

#define ARGS size_t nargs, dl_obj *args
#define UNUSED_ARGS ((void) nargs, (void) args)

/* Append the UTF-8 encoding of CODE to B.  */
static void
encode_char (struct dl_buf *b, int64_t code)
{
  if (code < 0 || code > 0x10FFFF)
    dl_signal (DL_Q (args_out_of_range), dl_list (1, dl_fix (code)));
  dl_buf_add_char (b, code);
}

static dl_obj
buf_to_string (struct dl_buf *b)
{
  dl_obj s = dl_make_string (b->data ? b->data : "", b->len);
  dl_buf_free (b);
  return s;
}

/* Append the text of X (a string, symbol, or list/vector of chars).  */
static void
add_sequence (struct dl_buf *b, dl_obj x)
{
  if (dl_stringp (x))
    dl_buf_add (b, dl_sdata (x), dl_slen (x));
  else if (dl_symbolp (x) && x != Qnil)
    add_sequence (b, dl_xsym (x)->name);
  else if (dl_vectorp (x))
    for (uint64_t i = 0; i < dl_xvec (x)->size; i++)
      encode_char (b, dl_check_fixnum (dl_xvec (x)->items[i]));
  else
    for (dl_obj l = dl_check_list (x); dl_consp (l); l = dl_cdr_unsafe (l))
      encode_char (b, dl_check_fixnum (dl_car_unsafe (l)));
}

static dl_obj
f_concat (ARGS)
{
  struct dl_buf b = { 0 };
  for (size_t i = 0; i < nargs; i++)
    {
      dl_obj x = args[i];
      dl_check (x == Qnil || dl_stringp (x) || dl_consp (x) || dl_vectorp (x),
                "sequencep", x);
      add_sequence (&b, x);
    }
  return buf_to_string (&b);
}

static dl_obj
f_string (ARGS)
{
  struct dl_buf b = { 0 };
  for (size_t i = 0; i < nargs; i++)
    encode_char (&b, dl_check_fixnum (args[i]));
  return buf_to_string (&b);
}

static dl_obj
f_make_string (ARGS)
{
  UNUSED_ARGS;
  int64_t n = dl_check_fixnum (args[0]);
  if (n < 0)
    dl_signal (DL_Q (args_out_of_range), dl_list (1, args[0]));
  struct dl_buf one = { 0 };
  encode_char (&one, dl_check_fixnum (args[1]));
  struct dl_buf b = { 0 };
  for (int64_t i = 0; i < n; i++)
    dl_buf_add (&b, one.data, one.len);
  dl_buf_free (&one);
  return buf_to_string (&b);
}

static dl_obj
f_substring (ARGS)
{
  UNUSED_ARGS;
  dl_obj s = dl_check_string (args[0]);
  int64_t n = (int64_t) dl_xstr (s)->nchars;
  int64_t from = args[1] == Qnil ? 0 : dl_check_fixnum (args[1]);
  int64_t to = args[2] == Qnil ? n : dl_check_fixnum (args[2]);
  if (from < 0)
    from += n;
  if (to < 0)
    to += n;
  if (from < 0 || to > n || from > to)
    dl_signal (DL_Q (args_out_of_range), dl_list (3, s, args[1], args[2]));
  size_t a = dl_char_offset (s, from), b = dl_char_offset (s, to);
  return dl_make_string (dl_sdata (s) + a, b - a);
}

static dl_obj
string_arg (dl_obj x)
{
  if (dl_symbolp (x))
    return dl_xsym (x)->name;
  return dl_check_string (x);
}

static int
string_compare (dl_obj a, dl_obj b)
{
  a = string_arg (a);
  b = string_arg (b);
  size_t la = dl_slen (a), lb = dl_slen (b);
  int c = memcmp (dl_sdata (a), dl_sdata (b), la < lb ? la : lb);
  if (c != 0)
    return c;
  return la < lb ? -1 : la > lb;
}

static dl_obj f_string_equal (ARGS) { UNUSED_ARGS; return dl_bool (string_compare (args[0], args[1]) == 0); }
static dl_obj f_string_less (ARGS) { UNUSED_ARGS; return dl_bool (string_compare (args[0], args[1]) < 0); }

static dl_obj
f_string_prefix_p (ARGS)
{
  UNUSED_ARGS;
  dl_obj p = string_arg (args[0]), s = string_arg (args[1]);
  return dl_bool (dl_slen (p) <= dl_slen (s)
                  && memcmp (dl_sdata (p), dl_sdata (s), dl_slen (p)) == 0);
}

static dl_obj
f_string_suffix_p (ARGS)
{
  UNUSED_ARGS;
  dl_obj p = string_arg (args[0]), s = string_arg (args[1]);
  return dl_bool (dl_slen (p) <= dl_slen (s)
                  && memcmp (dl_sdata (p), dl_sdata (s) + dl_slen (s) - dl_slen (p),
                             dl_slen (p)) == 0);
}

/* Character index of the first NEEDLE in HAYSTACK at or after START.  */
static dl_obj
f_string_search (ARGS)
{
  UNUSED_ARGS;
  dl_obj needle = dl_check_string (args[0]), hay = dl_check_string (args[1]);
  int64_t start = args[2] == Qnil ? 0 : dl_check_fixnum (args[2]);
  if (start < 0 || start > (int64_t) dl_xstr (hay)->nchars)
    dl_signal (DL_Q (args_out_of_range), dl_list (2, hay, args[2]));
  size_t from = dl_char_offset (hay, start);
  const char *h = dl_sdata (hay), *n = dl_sdata (needle);
  size_t hl = dl_slen (hay), nl = dl_slen (needle);
  for (size_t i = from; i + nl <= hl; i++)
    if (memcmp (h + i, n, nl) == 0)
      return dl_fix ((int64_t) dl_utf8_count (h, i));
  return Qnil;
}

static dl_obj
change_case (dl_obj x, bool upper)
{
  if (dl_fixnump (x))
    {
      int64_t c = dl_fixval (x);
      if (c < 128)
        return dl_fix (upper ? (c >= 'a' && c <= 'z' ? c - 32 : c)
                             : (c >= 'A' && c <= 'Z' ? c + 32 : c));
      return x;
    }
  dl_obj s = dl_check_string (x);
  size_t len = dl_slen (s);
  char *copy = malloc (len + 1);
  if (copy == NULL)
    dl_error ("out of memory");
  memcpy (copy, dl_sdata (s), len);
  for (size_t i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char) copy[i];
      if (upper && (dl_char_class[c] & DL_CC_LOWER))
        copy[i] = (char) (c - 32);
      else if (!upper && (dl_char_class[c] & DL_CC_UPPER))
        copy[i] = (char) (c + 32);
    }
  dl_obj result = dl_make_string (copy, len);
  free (copy);
  return result;
}

static dl_obj f_upcase (ARGS) { UNUSED_ARGS; return change_case (args[0], true); }
static dl_obj f_downcase (ARGS) { UNUSED_ARGS; return change_case (args[0], false); }

static dl_obj
f_number_to_string (ARGS)
{
  UNUSED_ARGS;
  dl_check (dl_fixnump (args[0]) || dl_floatp (args[0]), "numberp", args[0]);
  return dl_prin1_to_string (args[0], false);
}

static dl_obj
f_string_to_number (ARGS)
{
  UNUSED_ARGS;
  dl_obj s = dl_check_string (args[0]);
  int base = args[1] == Qnil ? 10 : (int) dl_check_fixnum (args[1]);
  const char *d = dl_sdata (s);
  while (*d == ' ' || *d == '\t')
    d++;
  char *end;
  errno = 0;
  long long v = strtoll (d, &end, base);
  if (base == 10 && (*end == '.' || *end == 'e' || *end == 'E'))
    {
      double f = strtod (d, &end);
      return end == d ? dl_fix (0) : dl_make_float (f);
    }
  if (end == d || errno != 0 || !dl_fix_in_range (v))
    return dl_fix (0);
  return dl_fix (v);
}

static dl_obj
f_char_to_string (ARGS)
{
  UNUSED_ARGS;
  return f_string (1, args);
}

/* (split-string STRING [SEPARATORS]): split at runs of the separator
   bytes (default whitespace), dropping empty pieces.  */
static dl_obj
f_split_string (ARGS)
{
  UNUSED_ARGS;
  dl_obj s = dl_check_string (args[0]);
  const char *seps = args[1] == Qnil ? " \t\n\r\f" : dl_sdata (dl_check_string (args[1]));
  const char *d = dl_sdata (s);
  size_t len = dl_slen (s);
  dl_obj result = Qnil;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++)
    if (i == len || strchr (seps, d[i]) != NULL)
      {
        if (i > start)
          result = dl_cons (dl_make_string (d + start, i - start), result);
        start = i + 1;
      }
  return dl_nreverse (result);
}

static dl_obj
f_string_to_list (ARGS)
{
  UNUSED_ARGS;
  dl_obj s = dl_check_string (args[0]);
  dl_obj result = Qnil;
  /* Decode forward, then reverse: O(n).  */
  const char *d = dl_sdata (s);
  size_t len = dl_slen (s);
  for (size_t pos = 0; pos < len;)
    result = dl_cons (dl_fix (dl_utf8_decode (d, len, &pos)), result);
  return dl_nreverse (result);
}

static dl_obj
f_string_bytes (ARGS)
{
  UNUSED_ARGS;
  return dl_fix ((int64_t) dl_slen (dl_check_string (args[0])));
}

/* (char-class CHAR): the class bits of an ASCII character, from the
   table computed at init (dl_char_class).  */
static dl_obj
f_char_class (ARGS)
{
  UNUSED_ARGS;
  int64_t c = dl_check_fixnum (args[0]);
  return dl_fix (c >= 0 && c < 256 ? dl_char_class[c] : 0);
}

static dl_obj
f_prin1_to_string (ARGS)
{
  UNUSED_ARGS;
  return dl_prin1_to_string (args[0], args[1] == Qnil);
}

static dl_obj
f_format (ARGS)
{
  return dl_format (nargs, args);
}

static dl_obj
f_read_from_string (ARGS)
{
  UNUSED_ARGS;
  dl_obj s = dl_check_string (args[0]);
  return dl_read_from_string (dl_sdata (s), dl_slen (s));
}

static dl_obj
f_error_message_string (ARGS)
{
  UNUSED_ARGS;
  return dl_error_message (args[0]);
}

const struct dl_builtin dl_string_builtins[] = {
  DL_BUILTIN ("concat", f_concat, 0, DL_MANY, "Concatenate sequences into a string."),
  DL_BUILTIN ("string", f_string, 0, DL_MANY, "A string of the character arguments."),
  DL_BUILTIN ("make-string", f_make_string, 2, 2, "A string of N copies of CHAR."),
  DL_BUILTIN ("substring", f_substring, 1, 3, "Characters FROM to TO of STRING."),
  DL_BUILTIN ("string=", f_string_equal, 2, 2, "True if the strings have the same text."),
  DL_BUILTIN ("string-equal", f_string_equal, 2, 2, "True if the strings have the same text."),
  DL_BUILTIN ("string<", f_string_less, 2, 2, "True if STRING1 sorts before STRING2 (bytes)."),
  DL_BUILTIN ("string-lessp", f_string_less, 2, 2, "True if STRING1 sorts before STRING2 (bytes)."),
  DL_BUILTIN ("string-prefix-p", f_string_prefix_p, 2, 2, "True if PREFIX starts STRING."),
  DL_BUILTIN ("string-suffix-p", f_string_suffix_p, 2, 2, "True if SUFFIX ends STRING."),
  DL_BUILTIN ("string-search", f_string_search, 2, 3, "Index of NEEDLE in HAYSTACK, or nil."),
  DL_BUILTIN ("upcase", f_upcase, 1, 1, "Upper-case a string or character (ASCII)."),
  DL_BUILTIN ("downcase", f_downcase, 1, 1, "Lower-case a string or character (ASCII)."),
  DL_BUILTIN ("number-to-string", f_number_to_string, 1, 1, "The printed form of NUMBER."),
  DL_BUILTIN ("string-to-number", f_string_to_number, 1, 2, "The number STRING denotes, or 0."),
  DL_BUILTIN ("char-to-string", f_char_to_string, 1, 1, "A one-character string."),
  DL_BUILTIN ("split-string", f_split_string, 1, 2, "Split STRING at SEPARATORS."),
  DL_BUILTIN ("string-to-list", f_string_to_list, 1, 1, "The characters of STRING."),
  DL_BUILTIN ("string-bytes", f_string_bytes, 1, 1, "Number of UTF-8 bytes of STRING."),
  DL_BUILTIN ("char-class", f_char_class, 1, 1, "Class bits of an ASCII CHAR."),
  DL_BUILTIN ("prin1-to-string", f_prin1_to_string, 1, 2, "The printed form of OBJECT."),
  DL_BUILTIN ("format", f_format, 1, DL_MANY, "Format a string: %s %S %d %x %c %f %%."),
  DL_BUILTIN ("read-from-string", f_read_from_string, 1, 1, "The first form read from STRING."),
  DL_BUILTIN ("error-message-string", f_error_message_string, 1, 1, "The message of an error value."),
};
DUMPER_DECLARE_OBJECTS (dl_string_builtins, DL_T_BUILTIN);
const size_t dl_string_builtin_count
  = sizeof dl_string_builtins / sizeof dl_string_builtins[0];
