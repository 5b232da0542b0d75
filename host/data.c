/* SPDX-License-Identifier: MIT */
/* host/data.c: equality, type checks, symbols' cells and numbers.

   Owns: eq/eql/equal, the checking accessors other files use (they
   signal wrong-type-argument), property lists, and the builtins for
   predicates, symbol cells, arithmetic and hash tables.  None of these
   builtins evaluates Lisp code, so none needs the value stack.  */

#include <config.h>

#include <math.h>
#include <string.h>

#include "lisp.h"

/* ------------------------------------------------------------------ */
/* Helpers used by every file.  */

void
dl_check (bool ok, const char *predicate, dl_obj x)
{
  if (!ok)
    dl_wrong_type (predicate, x);
}

int64_t
dl_check_fixnum (dl_obj x)
{
  dl_check (dl_fixnump (x), "fixnump", x);
  return dl_fixval (x);
}

dl_obj
dl_check_symbol (dl_obj x)
{
  dl_check (dl_symbolp (x), "symbolp", x);
  return x;
}

dl_obj
dl_check_string (dl_obj x)
{
  dl_check (dl_stringp (x), "stringp", x);
  return x;
}

dl_obj
dl_check_list (dl_obj x)
{
  dl_check (x == Qnil || dl_consp (x), "listp", x);
  return x;
}

/* nil for nil, else wrong-type-argument: the non-cons case of car/cdr.  */
static dl_obj
nil_or_wrong_type (dl_obj x)
{
  dl_check (x == Qnil, "listp", x);
  return Qnil;
}

dl_obj
dl_car (dl_obj x)
{
  return dl_consp (x) ? dl_car_unsafe (x) : nil_or_wrong_type (x);
}

dl_obj
dl_cdr (dl_obj x)
{
  return dl_consp (x) ? dl_cdr_unsafe (x) : nil_or_wrong_type (x);
}

size_t
dl_list_length (dl_obj list)
{
  size_t n = 0;
  dl_obj slow = list;
  for (dl_obj l = list; dl_consp (l); l = dl_cdr_unsafe (l))
    {
      n++;
      if ((n & 1) == 0)
        {
          slow = dl_cdr_unsafe (slow);
          if (slow == dl_cdr_unsafe (l))
            dl_signal (DL_Q (error),
                       dl_list (2, dl_make_cstring ("circular list"), list));
        }
      if (!dl_consp (dl_cdr_unsafe (l)) && dl_cdr_unsafe (l) != Qnil)
        dl_wrong_type ("listp", list);
    }
  if (!dl_consp (list) && list != Qnil)
    dl_wrong_type ("listp", list);
  return n;
}

dl_obj
dl_nreverse (dl_obj list)
{
  dl_obj prev = Qnil;
  while (dl_consp (list))
    {
      dl_obj next = dl_cdr_unsafe (list);
      dl_xcons (list)->cdr = prev;
      prev = list;
      list = next;
    }
  return prev;
}

dl_obj
dl_memq (dl_obj elt, dl_obj list)
{
  for (; dl_consp (list); list = dl_cdr_unsafe (list))
    if (dl_car_unsafe (list) == elt)
      return list;
  return Qnil;
}

dl_obj
dl_plist_get (dl_obj plist, dl_obj prop)
{
  while (dl_consp (plist) && dl_consp (dl_cdr_unsafe (plist)))
    {
      if (dl_car_unsafe (plist) == prop)
        return dl_car_unsafe (dl_cdr_unsafe (plist));
      plist = dl_cdr_unsafe (dl_cdr_unsafe (plist));
    }
  return Qnil;
}

dl_obj
dl_get (dl_obj sym, dl_obj prop)
{
  return dl_plist_get (dl_xsym (dl_check_symbol (sym))->plist, prop);
}

void
dl_put (dl_obj sym, dl_obj prop, dl_obj value)
{
  struct dl_symbol *s = dl_xsym (dl_check_symbol (sym));
  for (dl_obj p = s->plist; dl_consp (p) && dl_consp (dl_cdr_unsafe (p));
       p = dl_cdr_unsafe (dl_cdr_unsafe (p)))
    if (dl_car_unsafe (p) == prop)
      {
        dl_xcons (dl_cdr_unsafe (p))->car = value;
        return;
      }
  /* Appended, so a plist reads in the order it was built.  */
  dl_obj cell = dl_list (2, prop, value);
  if (!dl_consp (s->plist))
    {
      s->plist = cell;
      return;
    }
  dl_obj last = s->plist;
  while (dl_consp (dl_cdr_unsafe (last)))
    last = dl_cdr_unsafe (last);
  dl_xcons (last)->cdr = cell;
}

bool
dl_eql (dl_obj a, dl_obj b)
{
  if (a == b)
    return true;
  if (dl_floatp (a) && dl_floatp (b))
    {
      double x = dl_float_value (a), y = dl_float_value (b);
      return memcmp (&x, &y, sizeof x) == 0;
    }
  return false;
}

bool
dl_equal (dl_obj a, dl_obj b)
{
  for (int depth = 0;; depth++)
    {
      if (dl_eql (a, b))
        return true;
      if (dl_tag (a) != dl_tag (b) || depth > 100000)
        return false;
      switch (dl_tag (a))
        {
        case DL_TAG_STRING:
          return dl_slen (a) == dl_slen (b)
                 && memcmp (dl_sdata (a), dl_sdata (b), dl_slen (a)) == 0;
        case DL_TAG_CONS:
          if (!dl_equal (dl_car_unsafe (a), dl_car_unsafe (b)))
            return false;
          a = dl_cdr_unsafe (a);
          b = dl_cdr_unsafe (b);
          continue;
        case DL_TAG_VECTORLIKE:
          if (dl_vectorp (a) && dl_vectorp (b))
            {
              struct dl_vector *x = dl_xvec (a), *y = dl_xvec (b);
              if (x->size != y->size)
                return false;
              for (uint64_t i = 0; i < x->size; i++)
                if (!dl_equal (x->items[i], y->items[i]))
                  return false;
              return true;
            }
          return false;
        default:
          return false;
        }
    }
}

const char *
dl_type_name (dl_obj x)
{
  switch (dl_tag (x))
    {
    case DL_TAG_FIXNUM: return "integer";
    case DL_TAG_CONS: return "cons";
    case DL_TAG_SYMBOL: return "symbol";
    case DL_TAG_STRING: return "string";
    case DL_TAG_FLOAT: return "float";
    case DL_TAG_BUILTIN:
      return dl_xbuiltin (x)->max_args == DL_UNEVALLED ? "special-form" : "subr";
    case DL_TAG_MISC: return "unbound";
    case DL_TAG_VECTORLIKE:
      switch (dl_header_type (x))
        {
        case DL_T_VECTOR: return "vector";
        case DL_T_HASH: return "hash-table";
        case DL_T_CLOSURE: return "closure";
        case DL_T_MACRO: return "macro";
        }
    }
  return "unknown";
}

dl_obj
dl_type_of (dl_obj x)
{
  return dl_intern_c (dl_type_name (x));
}

/* ------------------------------------------------------------------ */
/* Predicates and symbol cells.  */

#define ARGS size_t nargs, dl_obj *args
#define UNUSED_ARGS ((void) nargs, (void) args)

static dl_obj f_eq (ARGS) { UNUSED_ARGS; return dl_bool (args[0] == args[1]); }
static dl_obj f_eql (ARGS) { UNUSED_ARGS; return dl_bool (dl_eql (args[0], args[1])); }
static dl_obj f_equal (ARGS) { UNUSED_ARGS; return dl_bool (dl_equal (args[0], args[1])); }
static dl_obj f_null (ARGS) { UNUSED_ARGS; return dl_bool (args[0] == Qnil); }
static dl_obj f_consp (ARGS) { UNUSED_ARGS; return dl_bool (dl_consp (args[0])); }
static dl_obj f_atom (ARGS) { UNUSED_ARGS; return dl_bool (!dl_consp (args[0])); }
static dl_obj f_listp (ARGS) { UNUSED_ARGS; return dl_bool (dl_consp (args[0]) || args[0] == Qnil); }
static dl_obj f_symbolp (ARGS) { UNUSED_ARGS; return dl_bool (dl_symbolp (args[0])); }
static dl_obj f_stringp (ARGS) { UNUSED_ARGS; return dl_bool (dl_stringp (args[0])); }
static dl_obj f_integerp (ARGS) { UNUSED_ARGS; return dl_bool (dl_fixnump (args[0])); }
static dl_obj f_floatp (ARGS) { UNUSED_ARGS; return dl_bool (dl_floatp (args[0])); }
static dl_obj f_numberp (ARGS) { UNUSED_ARGS; return dl_bool (dl_fixnump (args[0]) || dl_floatp (args[0])); }
static dl_obj f_vectorp (ARGS) { UNUSED_ARGS; return dl_bool (dl_vectorp (args[0])); }
static dl_obj f_hash_table_p (ARGS) { UNUSED_ARGS; return dl_bool (dl_hashp (args[0])); }
static dl_obj f_closurep (ARGS) { UNUSED_ARGS; return dl_bool (dl_closurep (args[0])); }
static dl_obj f_subrp (ARGS) { UNUSED_ARGS; return dl_bool (dl_builtinp (args[0])); }
static dl_obj f_type_of (ARGS) { UNUSED_ARGS; return dl_type_of (args[0]); }

static dl_obj
f_functionp (ARGS)
{
  UNUSED_ARGS;
  dl_obj f = args[0];
  if (dl_symbolp (f) && f != Qnil)
    f = dl_indirect_function (f);
  return dl_bool ((dl_builtinp (f) && dl_xbuiltin (f)->max_args != DL_UNEVALLED)
                  || dl_closurep (f)
                  || (dl_consp (f) && dl_car_unsafe (f) == DL_Q (lambda)));
}

static dl_obj
f_keywordp (ARGS)
{
  UNUSED_ARGS;
  return dl_bool (dl_symbolp (args[0])
                  && dl_sdata (dl_xsym (args[0])->name)[0] == ':'
                  && (dl_xsym (args[0])->h.flags & DL_F_INTERNED));
}

static dl_obj
f_boundp (ARGS)
{
  UNUSED_ARGS;
  return dl_bool (dl_xsym (dl_check_symbol (args[0]))->value != DL_UNBOUND);
}

static dl_obj
f_fboundp (ARGS)
{
  UNUSED_ARGS;
  dl_obj f = dl_xsym (dl_check_symbol (args[0]))->function;
  return dl_bool (f != DL_UNBOUND && f != Qnil);
}

static dl_obj
f_symbol_value (ARGS)
{
  UNUSED_ARGS;
  return dl_value (dl_check_symbol (args[0]), Qnil);
}

static dl_obj
f_set (ARGS)
{
  UNUSED_ARGS;
  dl_set (args[0], args[1]);
  return args[1];
}

static dl_obj
f_symbol_function (ARGS)
{
  UNUSED_ARGS;
  dl_obj f = dl_xsym (dl_check_symbol (args[0]))->function;
  return f == DL_UNBOUND ? Qnil : f;
}

static dl_obj
f_fset (ARGS)
{
  UNUSED_ARGS;
  dl_obj sym = dl_check_symbol (args[0]);
  if (sym == Qnil && args[1] != Qnil)
    dl_signal (DL_Q (setting_constant), dl_list (1, sym));
  dl_xsym (sym)->function = args[1];
  return args[1];
}

static dl_obj
f_makunbound (ARGS)
{
  UNUSED_ARGS;
  dl_obj sym = dl_check_symbol (args[0]);
  if (dl_xsym (sym)->h.flags & DL_F_CONSTANT)
    dl_signal (DL_Q (setting_constant), dl_list (1, sym));
  dl_xsym (sym)->value = DL_UNBOUND;
  return sym;
}

static dl_obj
f_fmakunbound (ARGS)
{
  UNUSED_ARGS;
  dl_xsym (dl_check_symbol (args[0]))->function = DL_UNBOUND;
  return args[0];
}

static dl_obj f_get (ARGS) { UNUSED_ARGS; return dl_get (args[0], args[1]); }

static dl_obj
f_put (ARGS)
{
  UNUSED_ARGS;
  dl_put (args[0], args[1], args[2]);
  return args[2];
}

static dl_obj
f_symbol_plist (ARGS)
{
  UNUSED_ARGS;
  return dl_xsym (dl_check_symbol (args[0]))->plist;
}

static dl_obj
f_setplist (ARGS)
{
  UNUSED_ARGS;
  dl_xsym (dl_check_symbol (args[0]))->plist = args[1];
  return args[1];
}

static dl_obj
f_symbol_name (ARGS)
{
  UNUSED_ARGS;
  return dl_xsym (dl_check_symbol (args[0]))->name;
}

static dl_obj
f_intern (ARGS)
{
  UNUSED_ARGS;
  dl_obj name = dl_check_string (args[0]);
  return dl_intern (dl_sdata (name), dl_slen (name));
}

static dl_obj
f_intern_soft (ARGS)
{
  UNUSED_ARGS;
  dl_obj name = args[0];
  if (dl_symbolp (name))
    name = dl_xsym (name)->name;
  dl_check_string (name);
  return dl_intern_soft (dl_sdata (name), dl_slen (name));
}

static dl_obj
f_unintern (ARGS)
{
  UNUSED_ARGS;
  return dl_bool (dl_unintern (dl_check_symbol (args[0])));
}

static dl_obj
f_make_symbol (ARGS)
{
  UNUSED_ARGS;
  return dl_make_symbol (dl_check_string (args[0]));
}

static dl_obj
f_gensym (ARGS)
{
  UNUSED_ARGS;
  char name[64];
  const char *prefix = args[0] != Qnil ? dl_sdata (dl_check_string (args[0])) : "g";
  snprintf (name, sizeof name, "%.40s%llu", prefix,
            (unsigned long long) dl_gensym_counter++);
  return dl_make_symbol (dl_make_cstring (name));
}

static dl_obj
f_special_variable_p (ARGS)
{
  UNUSED_ARGS;
  return dl_bool (dl_xsym (dl_check_symbol (args[0]))->h.flags & DL_F_SPECIAL);
}

/* The documentation of a function: a builtin's doc, or the leading
   string of a closure's body.  */
static dl_obj
f_documentation (ARGS)
{
  UNUSED_ARGS;
  dl_obj f = dl_indirect_function (args[0]);
  if (dl_macrop (f))
    f = dl_xmacro (f)->expander;
  if (dl_builtinp (f))
    return dl_xbuiltin (f)->doc ? dl_make_cstring (dl_xbuiltin (f)->doc) : Qnil;
  if (dl_closurep (f))
    {
      dl_obj body = dl_xclosure (f)->body;
      if (dl_consp (body) && dl_stringp (dl_car_unsafe (body))
          && dl_consp (dl_cdr_unsafe (body)))
        return dl_car_unsafe (body);
    }
  return Qnil;
}

/* ------------------------------------------------------------------ */
/* Numbers.  Fixnums overflow into an error, never silently.  */

static bool
numberp (dl_obj x)
{
  return dl_fixnump (x) || dl_floatp (x);
}

static double
to_double (dl_obj x)
{
  dl_check (numberp (x), "numberp", x);
  return dl_fixnump (x) ? (double) dl_fixval (x) : dl_float_value (x);
}

enum arith_op { OP_ADD, OP_SUB, OP_MUL, OP_DIV };

static dl_obj
arith (enum arith_op op, size_t nargs, dl_obj *args)
{
  bool is_float = false;
  for (size_t i = 0; i < nargs; i++)
    {
      dl_check (numberp (args[i]), "numberp", args[i]);
      is_float |= dl_floatp (args[i]);
    }
  if (nargs == 0)
    return dl_fix (op == OP_MUL ? 1 : 0);
  if (is_float)
    {
      double acc = to_double (args[0]);
      if (nargs == 1 && op == OP_SUB)
        return dl_make_float (-acc);
      if (nargs == 1 && op == OP_DIV)
        return dl_make_float (1.0 / acc);
      for (size_t i = 1; i < nargs; i++)
        {
          double v = to_double (args[i]);
          switch (op)
            {
            case OP_ADD: acc += v; break;
            case OP_SUB: acc -= v; break;
            case OP_MUL: acc *= v; break;
            case OP_DIV: acc /= v; break;
            }
        }
      return dl_make_float (acc);
    }
  int64_t acc = dl_fixval (args[0]);
  if (nargs == 1 && op == OP_SUB)
    return dl_make_integer (-acc);
  if (nargs == 1 && op == OP_DIV)
    {
      if (acc == 0)
        dl_signal (DL_Q (arith_error), Qnil);
      return dl_fix (1 / acc);
    }
  for (size_t i = 1; i < nargs; i++)
    {
      int64_t v = dl_fixval (args[i]);
      bool overflow = false;
      switch (op)
        {
        case OP_ADD: overflow = __builtin_add_overflow (acc, v, &acc); break;
        case OP_SUB: overflow = __builtin_sub_overflow (acc, v, &acc); break;
        case OP_MUL: overflow = __builtin_mul_overflow (acc, v, &acc); break;
        case OP_DIV:
          if (v == 0)
            dl_signal (DL_Q (arith_error), Qnil);
          acc /= v;
          break;
        }
      if (overflow || !dl_fix_in_range (acc))
        dl_signal (DL_Q (overflow_error), dl_list (1, dl_make_cstring ("fixnum overflow")));
    }
  return dl_fix (acc);
}

static dl_obj f_add (ARGS) { return arith (OP_ADD, nargs, args); }
static dl_obj f_sub (ARGS) { return arith (OP_SUB, nargs, args); }
static dl_obj f_mul (ARGS) { return arith (OP_MUL, nargs, args); }
static dl_obj f_div (ARGS) { return arith (OP_DIV, nargs, args); }

static dl_obj
f_add1 (ARGS)
{
  UNUSED_ARGS;
  dl_obj one[2] = { args[0], dl_fix (1) };
  return arith (OP_ADD, 2, one);
}

static dl_obj
f_sub1 (ARGS)
{
  UNUSED_ARGS;
  dl_obj one[2] = { args[0], dl_fix (1) };
  return arith (OP_SUB, 2, one);
}

static dl_obj
f_rem (ARGS)
{
  UNUSED_ARGS;
  int64_t a = dl_check_fixnum (args[0]), b = dl_check_fixnum (args[1]);
  if (b == 0)
    dl_signal (DL_Q (arith_error), Qnil);
  return dl_fix (a % b);
}

static dl_obj
f_mod (ARGS)
{
  UNUSED_ARGS;
  if (dl_floatp (args[0]) || dl_floatp (args[1]))
    {
      double a = to_double (args[0]), b = to_double (args[1]);
      double r = fmod (a, b);
      if (r != 0 && (r < 0) != (b < 0))
        r += b;
      return dl_make_float (r);
    }
  int64_t a = dl_check_fixnum (args[0]), b = dl_check_fixnum (args[1]);
  if (b == 0)
    dl_signal (DL_Q (arith_error), Qnil);
  int64_t r = a % b;
  if (r != 0 && (r < 0) != (b < 0))
    r += b;
  return dl_fix (r);
}

/* Compare all adjacent pairs: -1 less, 0 equal, 1 greater; NaN never
   compares.  */
enum cmp_op { CMP_LT, CMP_GT, CMP_LE, CMP_GE, CMP_EQ };

static bool
compare_pair (enum cmp_op op, dl_obj a, dl_obj b)
{
  if (dl_fixnump (a) && dl_fixnump (b))
    {
      int64_t x = dl_fixval (a), y = dl_fixval (b);
      switch (op)
        {
        case CMP_LT: return x < y;
        case CMP_GT: return x > y;
        case CMP_LE: return x <= y;
        case CMP_GE: return x >= y;
        case CMP_EQ: return x == y;
        }
    }
  double x = to_double (a), y = to_double (b);
  switch (op)
    {
    case CMP_LT: return x < y;
    case CMP_GT: return x > y;
    case CMP_LE: return x <= y;
    case CMP_GE: return x >= y;
    case CMP_EQ: return x == y;
    }
  return false;
}

static dl_obj
compare (enum cmp_op op, size_t nargs, dl_obj *args)
{
  for (size_t i = 0; i < nargs; i++)
    dl_check (numberp (args[i]), "numberp", args[i]);
  for (size_t i = 0; i + 1 < nargs; i++)
    if (!compare_pair (op, args[i], args[i + 1]))
      return Qnil;
  return Qt;
}

static dl_obj f_lt (ARGS) { return compare (CMP_LT, nargs, args); }
static dl_obj f_gt (ARGS) { return compare (CMP_GT, nargs, args); }
static dl_obj f_le (ARGS) { return compare (CMP_LE, nargs, args); }
static dl_obj f_ge (ARGS) { return compare (CMP_GE, nargs, args); }
static dl_obj f_num_eq (ARGS) { return compare (CMP_EQ, nargs, args); }
static dl_obj f_num_ne (ARGS) { UNUSED_ARGS; return dl_bool (compare (CMP_EQ, 2, args) == Qnil); }

static dl_obj
extremum (size_t nargs, dl_obj *args, enum cmp_op op)
{
  dl_obj best = args[0];
  dl_check (numberp (best), "numberp", best);
  for (size_t i = 1; i < nargs; i++)
    if (compare_pair (op, args[i], best))
      best = args[i];
  return best;
}

static dl_obj f_max (ARGS) { return extremum (nargs, args, CMP_GT); }
static dl_obj f_min (ARGS) { return extremum (nargs, args, CMP_LT); }

static dl_obj
f_abs (ARGS)
{
  UNUSED_ARGS;
  if (dl_floatp (args[0]))
    return dl_make_float (fabs (dl_float_value (args[0])));
  int64_t v = dl_check_fixnum (args[0]);
  return dl_make_integer (v < 0 ? -v : v);
}

static dl_obj
f_float (ARGS)
{
  UNUSED_ARGS;
  return dl_floatp (args[0]) ? args[0] : dl_make_float (to_double (args[0]));
}

static dl_obj
round_with (dl_obj x, dl_obj divisor, double (*fn) (double))
{
  if (dl_fixnump (x) && divisor == Qnil)
    return x;
  double v = to_double (x);
  if (divisor != Qnil)
    {
      double d = to_double (divisor);
      if (d == 0 && !dl_floatp (x) && !dl_floatp (divisor))
        dl_signal (DL_Q (arith_error), Qnil);
      v /= d;
    }
  v = fn (v);
  if (isnan (v) || v < (double) DL_FIXNUM_MIN || v > (double) DL_FIXNUM_MAX)
    dl_signal (DL_Q (overflow_error), dl_list (1, x));
  return dl_fix ((int64_t) v);
}

static dl_obj f_truncate (ARGS) { UNUSED_ARGS; return round_with (args[0], args[1], trunc); }
static dl_obj f_floor (ARGS) { UNUSED_ARGS; return round_with (args[0], args[1], floor); }
static dl_obj f_ceiling (ARGS) { UNUSED_ARGS; return round_with (args[0], args[1], ceil); }
static dl_obj f_round (ARGS) { UNUSED_ARGS; return round_with (args[0], args[1], rint); }
static dl_obj f_sqrt (ARGS) { UNUSED_ARGS; return dl_make_float (sqrt (to_double (args[0]))); }
static dl_obj f_isnan (ARGS) { UNUSED_ARGS; return dl_bool (isnan (to_double (args[0]))); }

static dl_obj
f_expt (ARGS)
{
  UNUSED_ARGS;
  if (dl_fixnump (args[0]) && dl_fixnump (args[1]) && dl_fixval (args[1]) >= 0)
    {
      int64_t base = dl_fixval (args[0]), result = 1;
      for (int64_t e = dl_fixval (args[1]); e > 0; e--)
        if (__builtin_mul_overflow (result, base, &result) || !dl_fix_in_range (result))
          dl_signal (DL_Q (overflow_error), dl_list (1, args[0]));
      return dl_fix (result);
    }
  return dl_make_float (pow (to_double (args[0]), to_double (args[1])));
}

static dl_obj
bitwise (size_t nargs, dl_obj *args, int op)
{
  int64_t acc = op == 0 ? -1 : 0;
  for (size_t i = 0; i < nargs; i++)
    {
      int64_t v = dl_check_fixnum (args[i]);
      acc = op == 0 ? (acc & v) : op == 1 ? (acc | v) : (acc ^ v);
    }
  return dl_fix (acc);
}

static dl_obj f_logand (ARGS) { return bitwise (nargs, args, 0); }
static dl_obj f_logior (ARGS) { return bitwise (nargs, args, 1); }
static dl_obj f_logxor (ARGS) { return bitwise (nargs, args, 2); }

static dl_obj
f_ash (ARGS)
{
  UNUSED_ARGS;
  int64_t v = dl_check_fixnum (args[0]), n = dl_check_fixnum (args[1]);
  if (n >= 0)
    {
      if (n >= 62 || (v != 0 && (v > (DL_FIXNUM_MAX >> n) || v < (DL_FIXNUM_MIN >> n))))
        dl_signal (DL_Q (overflow_error), dl_list (1, args[0]));
      return dl_fix (v * ((int64_t) 1 << n));
    }
  return dl_fix (n <= -63 ? (v < 0 ? -1 : 0) : v >> -n);
}

/* ------------------------------------------------------------------ */
/* Hash tables.  */

static dl_obj
f_make_hash_table (ARGS)
{
  enum dl_hash_test test = DL_HASH_EQ;
  size_t size = 8;
  for (size_t i = 0; i + 1 < nargs; i += 2)
    {
      if (args[i] == DL_Q (ktest))
        {
          if (args[i + 1] == DL_Q (equal))
            test = DL_HASH_EQUAL;
          else if (args[i + 1] != DL_Q (eq))
            dl_error ("make-hash-table: unsupported test; use eq or equal");
        }
      else if (args[i] == DL_Q (ksize))
        size = (size_t) dl_check_fixnum (args[i + 1]);
    }
  return dl_make_hash (test, size);
}

static dl_obj
check_hash (dl_obj x)
{
  dl_check (dl_hashp (x), "hash-table-p", x);
  return x;
}

static dl_obj
f_gethash (ARGS)
{
  UNUSED_ARGS;
  return dl_hash_get (check_hash (args[1]), args[0], args[2]);
}

static dl_obj
f_puthash (ARGS)
{
  UNUSED_ARGS;
  dl_hash_put (check_hash (args[2]), args[0], args[1]);
  return args[1];
}

static dl_obj
f_remhash (ARGS)
{
  UNUSED_ARGS;
  return dl_bool (dl_hash_remove (check_hash (args[1]), args[0]));
}

static dl_obj
f_clrhash (ARGS)
{
  UNUSED_ARGS;
  dl_hash_clear (check_hash (args[0]));
  return args[0];
}

static dl_obj
f_hash_table_count (ARGS)
{
  UNUSED_ARGS;
  return dl_fix ((int64_t) dl_xhash (check_hash (args[0]))->count);
}

static dl_obj
f_hash_table_test (ARGS)
{
  UNUSED_ARGS;
  return dl_xhash (check_hash (args[0]))->test == DL_HASH_EQ ? DL_Q (eq)
                                                             : DL_Q (equal);
}

static dl_obj
f_sxhash (ARGS)
{
  UNUSED_ARGS;
  return dl_fix ((int64_t) (dl_sxhash (args[0]) >> 8));
}

const struct dl_builtin dl_data_builtins[] = {
  DL_BUILTIN ("eq", f_eq, 2, 2, "True if the two arguments are the same object."),
  DL_BUILTIN ("eql", f_eql, 2, 2, "Like eq, but floats with the same bits are eql."),
  DL_BUILTIN ("equal", f_equal, 2, 2, "True if the arguments have the same structure and contents."),
  DL_BUILTIN ("null", f_null, 1, 1, "True if OBJECT is nil."),
  DL_BUILTIN ("not", f_null, 1, 1, "True if OBJECT is nil."),
  DL_BUILTIN ("consp", f_consp, 1, 1, "True if OBJECT is a cons."),
  DL_BUILTIN ("atom", f_atom, 1, 1, "True if OBJECT is not a cons."),
  DL_BUILTIN ("listp", f_listp, 1, 1, "True if OBJECT is a cons or nil."),
  DL_BUILTIN ("symbolp", f_symbolp, 1, 1, "True if OBJECT is a symbol."),
  DL_BUILTIN ("keywordp", f_keywordp, 1, 1, "True if OBJECT is a keyword."),
  DL_BUILTIN ("stringp", f_stringp, 1, 1, "True if OBJECT is a string."),
  DL_BUILTIN ("integerp", f_integerp, 1, 1, "True if OBJECT is an integer."),
  DL_BUILTIN ("fixnump", f_integerp, 1, 1, "True if OBJECT is a fixnum."),
  DL_BUILTIN ("floatp", f_floatp, 1, 1, "True if OBJECT is a float."),
  DL_BUILTIN ("numberp", f_numberp, 1, 1, "True if OBJECT is a number."),
  DL_BUILTIN ("vectorp", f_vectorp, 1, 1, "True if OBJECT is a vector."),
  DL_BUILTIN ("hash-table-p", f_hash_table_p, 1, 1, "True if OBJECT is a hash table."),
  DL_BUILTIN ("closurep", f_closurep, 1, 1, "True if OBJECT is a closure."),
  DL_BUILTIN ("subrp", f_subrp, 1, 1, "True if OBJECT is a built-in function."),
  DL_BUILTIN ("functionp", f_functionp, 1, 1, "True if OBJECT can be called."),
  DL_BUILTIN ("type-of", f_type_of, 1, 1, "The type of OBJECT, a symbol."),
  DL_BUILTIN ("boundp", f_boundp, 1, 1, "True if SYMBOL has a value."),
  DL_BUILTIN ("fboundp", f_fboundp, 1, 1, "True if SYMBOL has a function."),
  DL_BUILTIN ("symbol-value", f_symbol_value, 1, 1, "SYMBOL's global or dynamic value."),
  DL_BUILTIN ("set", f_set, 2, 2, "Set SYMBOL's global or dynamic value."),
  DL_BUILTIN ("symbol-function", f_symbol_function, 1, 1, "SYMBOL's function, or nil."),
  DL_BUILTIN ("fset", f_fset, 2, 2, "Set SYMBOL's function."),
  DL_BUILTIN ("defalias", f_fset, 2, 3, "Set SYMBOL's function (docstring ignored)."),
  DL_BUILTIN ("makunbound", f_makunbound, 1, 1, "Make SYMBOL's value void."),
  DL_BUILTIN ("fmakunbound", f_fmakunbound, 1, 1, "Make SYMBOL's function void."),
  DL_BUILTIN ("get", f_get, 2, 2, "SYMBOL's property PROP."),
  DL_BUILTIN ("put", f_put, 3, 3, "Set SYMBOL's property PROP to VALUE."),
  DL_BUILTIN ("symbol-plist", f_symbol_plist, 1, 1, "SYMBOL's property list."),
  DL_BUILTIN ("setplist", f_setplist, 2, 2, "Set SYMBOL's property list."),
  DL_BUILTIN ("symbol-name", f_symbol_name, 1, 1, "SYMBOL's name, a string."),
  DL_BUILTIN ("intern", f_intern, 1, 1, "The interned symbol named STRING."),
  DL_BUILTIN ("intern-soft", f_intern_soft, 1, 1, "The interned symbol named STRING, or nil."),
  DL_BUILTIN ("unintern", f_unintern, 1, 1, "Remove SYMBOL from the obarray."),
  DL_BUILTIN ("make-symbol", f_make_symbol, 1, 1, "A fresh uninterned symbol."),
  DL_BUILTIN ("gensym", f_gensym, 0, 1, "A fresh uninterned symbol with a counter."),
  DL_BUILTIN ("special-variable-p", f_special_variable_p, 1, 1, "True if SYMBOL is dynamically bound."),
  DL_BUILTIN ("documentation", f_documentation, 1, 1, "FUNCTION's documentation string."),
  DL_BUILTIN ("+", f_add, 0, DL_MANY, "Sum of the arguments."),
  DL_BUILTIN ("-", f_sub, 0, DL_MANY, "Negation or difference."),
  DL_BUILTIN ("*", f_mul, 0, DL_MANY, "Product of the arguments."),
  DL_BUILTIN ("/", f_div, 1, DL_MANY, "Quotient (truncating for integers)."),
  DL_BUILTIN ("%", f_rem, 2, 2, "Remainder of integer division."),
  DL_BUILTIN ("mod", f_mod, 2, 2, "Modulus, with the sign of the divisor."),
  DL_BUILTIN ("1+", f_add1, 1, 1, "NUMBER plus one."),
  DL_BUILTIN ("1-", f_sub1, 1, 1, "NUMBER minus one."),
  DL_BUILTIN ("<", f_lt, 1, DL_MANY, "True if the arguments increase."),
  DL_BUILTIN (">", f_gt, 1, DL_MANY, "True if the arguments decrease."),
  DL_BUILTIN ("<=", f_le, 1, DL_MANY, "True if the arguments do not decrease."),
  DL_BUILTIN (">=", f_ge, 1, DL_MANY, "True if the arguments do not increase."),
  DL_BUILTIN ("=", f_num_eq, 1, DL_MANY, "True if the numbers are equal."),
  DL_BUILTIN ("/=", f_num_ne, 2, 2, "True if the numbers differ."),
  DL_BUILTIN ("max", f_max, 1, DL_MANY, "The largest argument."),
  DL_BUILTIN ("min", f_min, 1, DL_MANY, "The smallest argument."),
  DL_BUILTIN ("abs", f_abs, 1, 1, "Absolute value."),
  DL_BUILTIN ("float", f_float, 1, 1, "NUMBER as a float."),
  DL_BUILTIN ("truncate", f_truncate, 1, 2, "Round towards zero."),
  DL_BUILTIN ("floor", f_floor, 1, 2, "Round down."),
  DL_BUILTIN ("ceiling", f_ceiling, 1, 2, "Round up."),
  DL_BUILTIN ("round", f_round, 1, 2, "Round to nearest, ties to even."),
  DL_BUILTIN ("sqrt", f_sqrt, 1, 1, "Square root."),
  DL_BUILTIN ("expt", f_expt, 2, 2, "BASE to the power EXP."),
  DL_BUILTIN ("isnan", f_isnan, 1, 1, "True if X is a NaN."),
  DL_BUILTIN ("logand", f_logand, 0, DL_MANY, "Bitwise and."),
  DL_BUILTIN ("logior", f_logior, 0, DL_MANY, "Bitwise or."),
  DL_BUILTIN ("logxor", f_logxor, 0, DL_MANY, "Bitwise exclusive or."),
  DL_BUILTIN ("ash", f_ash, 2, 2, "Arithmetic shift."),
  DL_BUILTIN ("make-hash-table", f_make_hash_table, 0, DL_MANY, "(make-hash-table :test eq|equal :size N)"),
  DL_BUILTIN ("gethash", f_gethash, 2, 3, "(gethash KEY TABLE DEFAULT)"),
  DL_BUILTIN ("puthash", f_puthash, 3, 3, "(puthash KEY VALUE TABLE)"),
  DL_BUILTIN ("remhash", f_remhash, 2, 2, "(remhash KEY TABLE)"),
  DL_BUILTIN ("clrhash", f_clrhash, 1, 1, "Remove every entry of TABLE."),
  DL_BUILTIN ("hash-table-count", f_hash_table_count, 1, 1, "Number of entries."),
  DL_BUILTIN ("hash-table-test", f_hash_table_test, 1, 1, "eq or equal."),
  DL_BUILTIN ("sxhash", f_sxhash, 1, 1, "The address-free hash `equal' tables use."),
};
DUMPER_DECLARE_OBJECTS (dl_data_builtins, DL_T_BUILTIN);
const size_t dl_data_builtin_count
  = sizeof dl_data_builtins / sizeof dl_data_builtins[0];
