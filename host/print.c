/* SPDX-License-Identifier: MIT */
/* host/print.c: the printer, `format', error messages and output
   buffers.

   Owns: the printed representation of every object.  With ESCAPE
   (prin1) the text reads back `equal' for numbers, strings, symbols,
   lists, vectors and hash tables; floats print with the fewest digits
   that read back to the same bits, NaN and infinities as 0.0e+NaN and
   1.0e+INF.  Closures, macros and builtins print as #<...> and are not
   readable.  A printed representation never contains an address, so
   it is the same in every run (the heap dump relies on that).

   Circular structure: an object already being printed by an enclosing
   level prints as #N (N its level); a list whose cdrs loop prints its
   first elements then "...".

   Buffers (struct dl_buf) use dumper_realloc, so a buffer a static
   keeps is still valid in an unexec'd executable.  */

#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lisp.h"

/* ------------------------------------------------------------------ */
/* Buffers.  */

static void
reserve (struct dl_buf *b, size_t extra)
{
  if (b->len + extra + 1 <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *data = dumper_realloc (b->data, cap);
  if (data == NULL)
    {
      fprintf (stderr, "dlisp: fatal: out of memory for a %zu-byte buffer\n", cap);
      exit (71);
    }
  b->data = data;
  b->cap = cap;
}

void
dl_buf_add (struct dl_buf *b, const char *bytes, size_t n)
{
  reserve (b, n);
  memcpy (b->data + b->len, bytes, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void
dl_buf_addc (struct dl_buf *b, char c)
{
  dl_buf_add (b, &c, 1);
}

void
dl_buf_addf (struct dl_buf *b, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  int n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (n < 0)
    return;
  reserve (b, (size_t) n);
  va_start (ap, fmt);
  vsnprintf (b->data + b->len, (size_t) n + 1, fmt, ap);
  va_end (ap);
  b->len += (size_t) n;
}

void
dl_buf_add_char (struct dl_buf *b, int64_t code)
{
  char out[4];
  size_t n;
  if (code < 0x80)
    out[0] = (char) code, n = 1;
  else if (code < 0x800)
    out[0] = (char) (0xC0 | (code >> 6)), out[1] = (char) (0x80 | (code & 0x3F)), n = 2;
  else if (code < 0x10000)
    out[0] = (char) (0xE0 | (code >> 12)), out[1] = (char) (0x80 | ((code >> 6) & 0x3F)),
    out[2] = (char) (0x80 | (code & 0x3F)), n = 3;
  else
    out[0] = (char) (0xF0 | ((code >> 18) & 7)), out[1] = (char) (0x80 | ((code >> 12) & 0x3F)),
    out[2] = (char) (0x80 | ((code >> 6) & 0x3F)), out[3] = (char) (0x80 | (code & 0x3F)), n = 4;
  dl_buf_add (b, out, n);
}

void
dl_buf_free (struct dl_buf *b)
{
  dumper_free (b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* ------------------------------------------------------------------ */
/* Atoms.  */

void
dl_format_float (char *buf, size_t size, double v)
{
  if (isnan (v))
    {
      snprintf (buf, size, "%s0.0e+NaN", signbit (v) ? "-" : "");
      return;
    }
  if (isinf (v))
    {
      snprintf (buf, size, "%s1.0e+INF", v < 0 ? "-" : "");
      return;
    }
  for (int precision = 1; precision <= 17; precision++)
    {
      snprintf (buf, size, "%.*g", precision, v);
      if (strtod (buf, NULL) == v)
        break;
    }
  /* Make sure it reads back as a float, not an integer ("1e+20" is a
     float to the reader already).  */
  if (strpbrk (buf, ".e") == NULL)
    {
      size_t len = strlen (buf);
      snprintf (buf + len, size - len, ".0");
    }
}

static void
print_string (struct dl_buf *out, dl_obj s, bool escape)
{
  const char *d = dl_sdata (s);
  size_t len = dl_slen (s);
  if (!escape)
    {
      dl_buf_add (out, d, len);
      return;
    }
  dl_buf_addc (out, '"');
  for (size_t i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char) d[i];
      if (c == '"' || c == '\\')
        {
          dl_buf_addc (out, '\\');
          dl_buf_addc (out, (char) c);
        }
      else if (c == '\n')
        dl_buf_add (out, "\\n", 2);
      else if (c == '\t')
        dl_buf_add (out, "\\t", 2);
      else if (c < 0x20 || c == 0x7F)
        dl_buf_addf (out, "\\%03o", c);
      else
        dl_buf_addc (out, (char) c);
    }
  dl_buf_addc (out, '"');
}

static bool
looks_like_number (const char *name, size_t len)
{
  if (len == 0)
    return false;
  size_t i = (name[0] == '+' || name[0] == '-') ? 1 : 0;
  bool digit = false;
  for (; i < len; i++)
    {
      if (name[i] >= '0' && name[i] <= '9')
        digit = true;
      else if (name[i] != '.' && name[i] != 'e' && name[i] != 'E'
               && name[i] != '+' && name[i] != '-' && name[i] != 'I'
               && name[i] != 'N' && name[i] != 'F' && name[i] != 'a')
        return false;
    }
  return digit;
}

static void
print_symbol (struct dl_buf *out, dl_obj sym, bool escape)
{
  dl_obj name = dl_xsym (sym)->name;
  const char *d = dl_sdata (name);
  size_t len = dl_slen (name);
  if (!escape)
    {
      dl_buf_add (out, d, len);
      return;
    }
  if (!(dl_xsym (sym)->h.flags & DL_F_INTERNED))
    dl_buf_add (out, "#:", 2);
  else if (len == 0)
    {
      dl_buf_add (out, "##", 2);
      return;
    }
  if (looks_like_number (d, len) || (len > 0 && d[0] == '?') || (len > 0 && d[0] == '#'))
    dl_buf_addc (out, '\\');
  for (size_t i = 0; i < len; i++)
    {
      char c = d[i];
      if (strchr ("()[]\"';`,\\ \t\n\r\f", c) != NULL && !(len == 1 && (c == '`' || c == ',')))
        dl_buf_addc (out, '\\');
      else if (c == '.' && len == 1)
        dl_buf_addc (out, '\\');
      dl_buf_addc (out, c);
    }
}

/* ------------------------------------------------------------------ */
/* Structure.  */

#define MAX_PRINT_DEPTH 2000

struct printer
{
  struct dl_buf *out;
  bool escape;
  int depth;
  dl_obj being_printed[MAX_PRINT_DEPTH];
};

static void print_object (struct printer *p, dl_obj x);

/* Print #N and return true when X is being printed by a caller.  */
static bool
print_back_reference (struct printer *p, dl_obj x)
{
  for (int i = 0; i < p->depth; i++)
    if (p->being_printed[i] == x)
      {
        dl_buf_addf (p->out, "#%d", i);
        return true;
      }
  return false;
}

static bool
print_quote_sugar (struct printer *p, dl_obj x)
{
  dl_obj head = dl_car_unsafe (x), rest = dl_cdr_unsafe (x);
  if (!dl_consp (rest) || dl_cdr_unsafe (rest) != Qnil || !dl_symbolp (head))
    return false;
  const char *prefix = head == DL_Q (quote) ? "'"
                       : head == DL_Q (function) ? "#'"
                       : head == DL_Q (backquote) ? "`"
                       : head == DL_Q (comma) ? ","
                       : head == DL_Q (comma_at) ? ",@" : NULL;
  if (prefix == NULL)
    return false;
  dl_buf_add (p->out, prefix, strlen (prefix));
  print_object (p, dl_car_unsafe (rest));
  return true;
}

static void
print_list (struct printer *p, dl_obj x)
{
  if (print_quote_sugar (p, x))
    return;
  dl_buf_addc (p->out, '(');
  dl_obj slow = x;
  size_t n = 0;
  for (;;)
    {
      print_object (p, dl_car_unsafe (x));
      x = dl_cdr_unsafe (x);
      n++;
      if ((n & 1) == 0)
        slow = dl_cdr_unsafe (slow);
      if (!dl_consp (x))
        break;
      dl_buf_addc (p->out, ' ');
      if (x == slow)
        {
          dl_buf_add (p->out, "...", 3);
          x = Qnil;
          break;
        }
    }
  if (x != Qnil)
    {
      dl_buf_add (p->out, " . ", 3);
      print_object (p, x);
    }
  dl_buf_addc (p->out, ')');
}

static void
print_hash (struct printer *p, dl_obj x)
{
  struct dl_hash *h = dl_xhash (x);
  dl_buf_addf (p->out, "#s(hash-table test %s data (",
               h->test == DL_HASH_EQ ? "eq" : "equal");
  struct dl_vector *e = dl_xvec (h->entries);
  bool first = true;
  for (uint64_t i = 0; i < h->used; i++)
    {
      if (e->items[2 * i] == DL_UNBOUND)
        continue;
      if (!first)
        dl_buf_addc (p->out, ' ');
      first = false;
      print_object (p, e->items[2 * i]);
      dl_buf_addc (p->out, ' ');
      print_object (p, e->items[2 * i + 1]);
    }
  dl_buf_add (p->out, "))", 2);
}

static void
print_named (struct printer *p, const char *kind, dl_obj name)
{
  dl_buf_addf (p->out, "#<%s", kind);
  if (name != Qnil)
    {
      dl_buf_addc (p->out, ' ');
      print_object (p, name);
    }
  dl_buf_addc (p->out, '>');
}

static void
print_object (struct printer *p, dl_obj x)
{
  char buf[64];
  switch (dl_tag (x))
    {
    case DL_TAG_FIXNUM:
      dl_buf_addf (p->out, "%lld", (long long) dl_fixval (x));
      return;
    case DL_TAG_FLOAT:
      dl_format_float (buf, sizeof buf, dl_float_value (x));
      dl_buf_add (p->out, buf, strlen (buf));
      return;
    case DL_TAG_STRING:
      print_string (p->out, x, p->escape);
      return;
    case DL_TAG_SYMBOL:
      print_symbol (p->out, x, p->escape);
      return;
    case DL_TAG_BUILTIN:
      dl_buf_addf (p->out, "#<%s %s>",
                   dl_xbuiltin (x)->max_args == DL_UNEVALLED ? "special-form" : "subr",
                   dl_xbuiltin (x)->name);
      return;
    case DL_TAG_MISC:
      dl_buf_add (p->out, "#<unbound>", 10);
      return;
    default:
      break;
    }
  if (print_back_reference (p, x))
    return;
  if (p->depth >= MAX_PRINT_DEPTH)
    {
      dl_buf_add (p->out, "...", 3);
      return;
    }
  p->being_printed[p->depth++] = x;
  if (dl_consp (x))
    print_list (p, x);
  else if (dl_vectorp (x))
    {
      struct dl_vector *v = dl_xvec (x);
      dl_buf_addc (p->out, '[');
      for (uint64_t i = 0; i < v->size; i++)
        {
          if (i > 0)
            dl_buf_addc (p->out, ' ');
          print_object (p, v->items[i]);
        }
      dl_buf_addc (p->out, ']');
    }
  else if (dl_hashp (x))
    print_hash (p, x);
  else if (dl_closurep (x))
    print_named (p, "closure", dl_xclosure (x)->name);
  else if (dl_macrop (x))
    print_named (p, "macro", dl_xmacro (x)->name);
  p->depth--;
}

void
dl_print (struct dl_buf *out, dl_obj x, bool escape)
{
  struct printer *p = malloc (sizeof *p);
  if (p == NULL)
    {
      fprintf (stderr, "dlisp: fatal: out of memory for the printer\n");
      exit (71);
    }
  p->out = out;
  p->escape = escape;
  p->depth = 0;
  print_object (p, x);
  free (p);
}

dl_obj
dl_prin1_to_string (dl_obj x, bool escape)
{
  struct dl_buf b = { 0 };
  dl_print (&b, x, escape);
  dl_obj s = dl_make_string (b.data ? b.data : "", b.len);
  dl_buf_free (&b);
  return s;
}

/* ------------------------------------------------------------------ */
/* format.  */

/* The buffer of `format': static, so an error in the middle leaks
   nothing (it is reused by the next call).  */
static struct dl_buf format_buf;

static double
number_value (dl_obj x)
{
  dl_check (dl_fixnump (x) || dl_floatp (x), "numberp", x);
  return dl_fixnump (x) ? (double) dl_fixval (x) : dl_float_value (x);
}

/* Append TEXT padded to WIDTH (left-aligned with LEFT, zeros with ZERO
   for numbers).  */
static void
add_padded (const char *text, size_t len, int width, bool left, bool zero)
{
  size_t pad = width > 0 && (size_t) width > len ? (size_t) width - len : 0;
  if (left)
    dl_buf_add (&format_buf, text, len);
  if (zero && !left && len > 0 && text[0] == '-')
    {
      dl_buf_addc (&format_buf, '-');
      text++;
      len--;
    }
  for (size_t i = 0; i < pad; i++)
    dl_buf_addc (&format_buf, left ? ' ' : zero ? '0' : ' ');
  if (!left)
    dl_buf_add (&format_buf, text, len);
}

dl_obj
dl_format (size_t nargs, dl_obj *args)
{
  dl_obj fmt = dl_check_string (args[0]);
  const char *f = dl_sdata (fmt);
  size_t len = dl_slen (fmt), argi = 1;
  format_buf.len = 0;
  for (size_t i = 0; i < len; i++)
    {
      if (f[i] != '%')
        {
          dl_buf_addc (&format_buf, f[i]);
          continue;
        }
      /* %[-0][width][.precision]conversion */
      bool left = false, zero = false;
      int width = 0, precision = -1;
      for (i++; i < len && (f[i] == '-' || f[i] == '0'); i++)
        left |= f[i] == '-', zero |= f[i] == '0';
      for (; i < len && f[i] >= '0' && f[i] <= '9' && width < 10000; i++)
        width = width * 10 + (f[i] - '0');
      if (i < len && f[i] == '.')
        for (precision = 0, i++; i < len && f[i] >= '0' && f[i] <= '9' && precision < 100; i++)
          precision = precision * 10 + (f[i] - '0');
      if (i >= len)
        dl_error ("format: string ends in the middle of a %% spec");
      char conv = f[i];
      if (conv == '%')
        {
          dl_buf_addc (&format_buf, '%');
          continue;
        }
      if (argi >= nargs)
        dl_error ("format: not enough arguments for the format string");
      dl_obj arg = args[argi++];
      char num[512];
      switch (conv)
        {
        case 's':
        case 'S':
          {
            struct dl_buf text = { 0 };
            dl_print (&text, arg, conv == 'S');
            size_t n = text.len;
            if (precision >= 0 && (size_t) precision < n)
              n = (size_t) precision;
            add_padded (text.data ? text.data : "", n, width, left, false);
            dl_buf_free (&text);
            break;
          }
        case 'd':
        case 'x':
        case 'X':
        case 'o':
          {
            long long v = dl_fixnump (arg) ? (long long) dl_fixval (arg)
                                           : (long long) number_value (arg);
            if (conv == 'd')
              snprintf (num, sizeof num, "%lld", v);
            else if (conv == 'o')
              snprintf (num, sizeof num, "%llo", (unsigned long long) v);
            else
              snprintf (num, sizeof num, conv == 'x' ? "%llx" : "%llX",
                        (unsigned long long) v);
            add_padded (num, strlen (num), width, left, zero);
            break;
          }
        case 'c':
          dl_buf_add_char (&format_buf, dl_check_fixnum (arg));
          break;
        case 'f':
        case 'e':
        case 'g':
          {
            int prec = precision < 0 ? 6 : precision;
            double v = number_value (arg);
            if (conv == 'f')
              snprintf (num, sizeof num, "%.*f", prec, v);
            else if (conv == 'e')
              snprintf (num, sizeof num, "%.*e", prec, v);
            else
              snprintf (num, sizeof num, "%.*g", prec, v);
            add_padded (num, strlen (num), width, left, zero);
            break;
          }
        default:
          dl_error ("format: unknown conversion %%%c", conv);
        }
    }
  return dl_make_string (format_buf.data ? format_buf.data : "", format_buf.len);
}

dl_obj
dl_error_message (dl_obj err)
{
  if (!dl_consp (err))
    return dl_prin1_to_string (err, true);
  dl_obj sym = dl_car_unsafe (err), data = dl_cdr_unsafe (err);
  struct dl_buf b = { 0 };
  dl_obj message = dl_symbolp (sym) ? dl_get (sym, DL_Q (error_message)) : Qnil;
  if (sym == DL_Q (error) && dl_consp (data) && dl_stringp (dl_car_unsafe (data))
      && dl_cdr_unsafe (data) == Qnil)
    dl_print (&b, dl_car_unsafe (data), false);
  else
    {
      if (dl_stringp (message))
        dl_print (&b, message, false);
      else
        dl_print (&b, sym, true);
      const char *sep = ": ";
      for (dl_obj l = data; dl_consp (l); l = dl_cdr_unsafe (l))
        {
          dl_buf_add (&b, sep, strlen (sep));
          dl_obj item = dl_car_unsafe (l);
          /* Messages of user errors print their strings plainly.  */
          dl_print (&b, item, !(dl_stringp (item) && l == data));
          sep = ", ";
        }
    }
  dl_obj s = dl_make_string (b.data ? b.data : "", b.len);
  dl_buf_free (&b);
  return s;
}
