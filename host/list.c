/* SPDX-License-Identifier: MIT */
/* host/list.c: builtins for lists, vectors and generic sequences.

   Owns: cons cells and list operations, vectors, and the sequence
   functions that accept lists, vectors and strings (length, elt, copy,
   reverse, sort).  Only `sort' evaluates Lisp code (its predicate); it
   keeps its working vectors on the value stack.  */

#include <config.h>

#include <string.h>

#include "lisp.h"

#define ARGS size_t nargs, dl_obj *args
#define UNUSED_ARGS ((void) nargs, (void) args)

static dl_obj f_cons (ARGS) { UNUSED_ARGS; return dl_cons (args[0], args[1]); }
static dl_obj f_car (ARGS) { UNUSED_ARGS; return dl_car (args[0]); }
static dl_obj f_cdr (ARGS) { UNUSED_ARGS; return dl_cdr (args[0]); }

static dl_obj
f_car_safe (ARGS)
{
  UNUSED_ARGS;
  return dl_consp (args[0]) ? dl_car_unsafe (args[0]) : Qnil;
}

static dl_obj
f_cdr_safe (ARGS)
{
  UNUSED_ARGS;
  return dl_consp (args[0]) ? dl_cdr_unsafe (args[0]) : Qnil;
}

static dl_obj
f_setcar (ARGS)
{
  UNUSED_ARGS;
  dl_check (dl_consp (args[0]), "consp", args[0]);
  dl_xcons (args[0])->car = args[1];
  return args[1];
}

static dl_obj
f_setcdr (ARGS)
{
  UNUSED_ARGS;
  dl_check (dl_consp (args[0]), "consp", args[0]);
  dl_xcons (args[0])->cdr = args[1];
  return args[1];
}

static dl_obj
list_from (size_t n, const dl_obj *items, dl_obj tail)
{
  dl_obj list = tail;
  while (n > 0)
    list = dl_cons (items[--n], list);
  return list;
}

static dl_obj f_list (ARGS) { return list_from (nargs, args, Qnil); }

static dl_obj
f_list_star (ARGS)
{
  return list_from (nargs - 1, args, args[nargs - 1]);
}

static dl_obj
f_make_list (ARGS)
{
  UNUSED_ARGS;
  dl_obj list = Qnil;
  for (int64_t n = dl_check_fixnum (args[0]); n > 0; n--)
    list = dl_cons (args[1], list);
  return list;
}

static dl_obj
f_nthcdr (ARGS)
{
  UNUSED_ARGS;
  dl_obj l = args[1];
  for (int64_t n = dl_check_fixnum (args[0]); n > 0 && l != Qnil; n--)
    l = dl_cdr (l);
  return l;
}

static dl_obj
f_nth (ARGS)
{
  UNUSED_ARGS;
  dl_obj l = args[1];
  for (int64_t n = dl_check_fixnum (args[0]); n > 0 && l != Qnil; n--)
    l = dl_cdr (l);
  return dl_car (l);
}

static dl_obj
f_last (ARGS)
{
  UNUSED_ARGS;
  dl_obj l = dl_check_list (args[0]);
  while (dl_consp (l) && dl_consp (dl_cdr_unsafe (l)))
    l = dl_cdr_unsafe (l);
  return l;
}

/* Copy LIST's spine onto the front of TAIL.  */
static dl_obj
copy_onto (dl_obj list, dl_obj tail)
{
  if (!dl_consp (list))
    return tail;
  dl_obj head = dl_cons (dl_car_unsafe (list), Qnil);
  dl_obj last = head;
  for (list = dl_cdr_unsafe (list); dl_consp (list); list = dl_cdr_unsafe (list))
    {
      dl_obj cell = dl_cons (dl_car_unsafe (list), Qnil);
      dl_xcons (last)->cdr = cell;
      last = cell;
    }
  dl_xcons (last)->cdr = tail;
  return head;
}

/* The elements of a sequence as a fresh list.  */
static dl_obj seq_to_list (dl_obj seq);

static dl_obj
f_append (ARGS)
{
  if (nargs == 0)
    return Qnil;
  dl_obj result = args[nargs - 1];
  for (size_t i = nargs - 1; i > 0; i--)
    {
      dl_obj seq = args[i - 1];
      result = copy_onto (dl_consp (seq) || seq == Qnil ? seq : seq_to_list (seq),
                          result);
    }
  return result;
}

static dl_obj
f_nconc (ARGS)
{
  dl_obj result = Qnil, last = Qnil;
  for (size_t i = 0; i < nargs; i++)
    {
      dl_obj l = args[i];
      if (l == Qnil)
        continue;
      if (last == Qnil)
        result = l;
      else
        dl_xcons (last)->cdr = l;
      if (!dl_consp (l))
        break;
      last = l;
      while (dl_consp (dl_cdr_unsafe (last)))
        last = dl_cdr_unsafe (last);
    }
  return result;
}

enum match { MATCH_EQ, MATCH_EQL, MATCH_EQUAL };

static bool
matches (enum match m, dl_obj a, dl_obj b)
{
  return m == MATCH_EQ ? a == b : m == MATCH_EQL ? dl_eql (a, b) : dl_equal (a, b);
}

/* The tail of LIST whose car matches ELT, or nil.  */
static dl_obj
member_by (enum match m, dl_obj elt, dl_obj list)
{
  for (; dl_consp (list); list = dl_cdr_unsafe (list))
    if (matches (m, dl_car_unsafe (list), elt))
      return list;
  return Qnil;
}

/* The pair of ALIST whose car (or cdr, with BY_CDR) matches KEY.  */
static dl_obj
assoc_by (enum match m, dl_obj key, dl_obj alist, bool by_cdr)
{
  for (; dl_consp (alist); alist = dl_cdr_unsafe (alist))
    {
      dl_obj pair = dl_car_unsafe (alist);
      if (dl_consp (pair)
          && matches (m, by_cdr ? dl_cdr_unsafe (pair) : dl_car_unsafe (pair), key))
        return pair;
    }
  return Qnil;
}

static dl_obj f_memq (ARGS) { UNUSED_ARGS; return member_by (MATCH_EQ, args[0], args[1]); }
static dl_obj f_memql (ARGS) { UNUSED_ARGS; return member_by (MATCH_EQL, args[0], args[1]); }
static dl_obj f_member (ARGS) { UNUSED_ARGS; return member_by (MATCH_EQUAL, args[0], args[1]); }
static dl_obj f_assq (ARGS) { UNUSED_ARGS; return assoc_by (MATCH_EQ, args[0], args[1], false); }
static dl_obj f_assoc (ARGS) { UNUSED_ARGS; return assoc_by (MATCH_EQUAL, args[0], args[1], false); }
static dl_obj f_rassq (ARGS) { UNUSED_ARGS; return assoc_by (MATCH_EQ, args[0], args[1], true); }

/* Destructively remove the elements matching ELT (eq or equal).  */
static dl_obj
delete_matching (dl_obj elt, dl_obj list, enum match m)
{
  dl_obj head = list, prev = Qnil;
  for (dl_obj l = list; dl_consp (l); l = dl_cdr_unsafe (l))
    {
      if (matches (m, dl_car_unsafe (l), elt))
        {
          if (prev == Qnil)
            head = dl_cdr_unsafe (l);
          else
            dl_xcons (prev)->cdr = dl_cdr_unsafe (l);
        }
      else
        prev = l;
    }
  return head;
}

static dl_obj f_delq (ARGS) { UNUSED_ARGS; return delete_matching (args[0], args[1], MATCH_EQ); }
static dl_obj f_delete (ARGS) { UNUSED_ARGS; return delete_matching (args[0], args[1], MATCH_EQUAL); }

static dl_obj
f_plist_get (ARGS)
{
  UNUSED_ARGS;
  return dl_plist_get (args[0], args[1]);
}

/* ------------------------------------------------------------------ */
/* Vectors.  */

static dl_obj
f_make_vector (ARGS)
{
  UNUSED_ARGS;
  int64_t n = dl_check_fixnum (args[0]);
  if (n < 0)
    dl_signal (DL_Q (args_out_of_range), dl_list (1, args[0]));
  return dl_make_vector ((size_t) n, args[1]);
}

static dl_obj
f_vector (ARGS)
{
  dl_obj v = dl_make_vector (nargs, Qnil);
  memcpy (dl_xvec (v)->items, args, nargs * sizeof *args);
  return v;
}

static size_t
check_index (dl_obj seq, dl_obj index, size_t size)
{
  int64_t i = dl_check_fixnum (index);
  if (i < 0 || (uint64_t) i >= size)
    dl_signal (DL_Q (args_out_of_range), dl_list (2, seq, index));
  return (size_t) i;
}

static dl_obj
f_aref (ARGS)
{
  UNUSED_ARGS;
  dl_obj seq = args[0];
  if (dl_vectorp (seq))
    return dl_xvec (seq)->items[check_index (seq, args[1], dl_xvec (seq)->size)];
  if (dl_stringp (seq))
    {
      size_t i = check_index (seq, args[1], (size_t) dl_xstr (seq)->nchars);
      size_t pos = dl_char_offset (seq, (int64_t) i);
      return dl_fix (dl_utf8_decode (dl_sdata (seq), dl_slen (seq), &pos));
    }
  dl_wrong_type ("arrayp", seq);
}

static dl_obj
f_aset (ARGS)
{
  UNUSED_ARGS;
  dl_obj v = args[0];
  /* Strings are immutable (their bytes may be in a read-only image).  */
  dl_check (dl_vectorp (v), "vectorp", v);
  dl_xvec (v)->items[check_index (v, args[1], dl_xvec (v)->size)] = args[2];
  return args[2];
}

static dl_obj
list_to_vector (dl_obj list)
{
  size_t n = dl_list_length (list);
  dl_obj v = dl_make_vector (n, Qnil);
  for (size_t i = 0; i < n; i++, list = dl_cdr_unsafe (list))
    dl_xvec (v)->items[i] = dl_car_unsafe (list);
  return v;
}

static dl_obj
seq_to_list (dl_obj seq)
{
  if (seq == Qnil || dl_consp (seq))
    return copy_onto (seq, Qnil);
  dl_obj list = Qnil;
  if (dl_vectorp (seq))
    {
      struct dl_vector *v = dl_xvec (seq);
      for (uint64_t i = v->size; i > 0; i--)
        list = dl_cons (v->items[i - 1], list);
      return list;
    }
  if (dl_stringp (seq))
    {
      const char *d = dl_sdata (seq);
      size_t len = dl_slen (seq);
      for (size_t pos = 0; pos < len;)
        list = dl_cons (dl_fix (dl_utf8_decode (d, len, &pos)), list);
      return dl_nreverse (list);
    }
  dl_wrong_type ("sequencep", seq);
}

static dl_obj
f_vconcat (ARGS)
{
  dl_obj all = Qnil;
  for (size_t i = nargs; i > 0; i--)
    all = copy_onto (seq_to_list (args[i - 1]), all);
  return list_to_vector (all);
}

static dl_obj
f_fillarray (ARGS)
{
  UNUSED_ARGS;
  dl_check (dl_vectorp (args[0]), "vectorp", args[0]);
  struct dl_vector *v = dl_xvec (args[0]);
  for (uint64_t i = 0; i < v->size; i++)
    v->items[i] = args[1];
  return args[0];
}

/* ------------------------------------------------------------------ */
/* Sequences.  */

static dl_obj
f_length (ARGS)
{
  UNUSED_ARGS;
  dl_obj seq = args[0];
  if (dl_vectorp (seq))
    return dl_fix ((int64_t) dl_xvec (seq)->size);
  if (dl_stringp (seq))
    return dl_fix ((int64_t) dl_xstr (seq)->nchars);
  if (dl_hashp (seq))
    dl_wrong_type ("sequencep", seq);
  return dl_fix ((int64_t) dl_list_length (seq));
}

static dl_obj
f_safe_length (ARGS)
{
  UNUSED_ARGS;
  int64_t n = 0;
  for (dl_obj l = args[0]; dl_consp (l) && n < DL_FIXNUM_MAX; l = dl_cdr_unsafe (l))
    n++;
  return dl_fix (n);
}

static dl_obj
f_elt (ARGS)
{
  UNUSED_ARGS;
  if (dl_consp (args[0]) || args[0] == Qnil)
    return f_nth (2, (dl_obj[]) { args[1], args[0] });
  return f_aref (2, args);
}

static dl_obj
f_copy_sequence (ARGS)
{
  UNUSED_ARGS;
  dl_obj seq = args[0];
  if (dl_vectorp (seq))
    return list_to_vector (seq_to_list (seq));
  if (dl_stringp (seq))
    return dl_make_string (dl_sdata (seq), dl_slen (seq));
  return copy_onto (dl_check_list (seq), Qnil);
}

static dl_obj
f_reverse (ARGS)
{
  UNUSED_ARGS;
  dl_obj seq = args[0];
  if (dl_vectorp (seq))
    return list_to_vector (dl_nreverse (seq_to_list (seq)));
  dl_obj result = Qnil;
  for (dl_obj l = dl_check_list (seq); dl_consp (l); l = dl_cdr_unsafe (l))
    result = dl_cons (dl_car_unsafe (l), result);
  return result;
}

static dl_obj
f_nreverse (ARGS)
{
  UNUSED_ARGS;
  if (dl_vectorp (args[0]))
    {
      struct dl_vector *v = dl_xvec (args[0]);
      for (uint64_t i = 0, j = v->size; i + 1 < j; i++, j--)
        {
          dl_obj t = v->items[i];
          v->items[i] = v->items[j - 1];
          v->items[j - 1] = t;
        }
      return args[0];
    }
  return dl_nreverse (dl_check_list (args[0]));
}

/* Stable merge sort of the items of vector slot FROM (using slot TMP)
   with PRED.  Both vectors stay on the value stack, so the predicate
   may allocate and collect.  */
static void
merge_sort (size_t from, size_t tmp, size_t pred, size_t lo, size_t hi)
{
  if (hi - lo < 2)
    return;
  size_t mid = lo + (hi - lo) / 2;
  merge_sort (from, tmp, pred, lo, mid);
  merge_sort (from, tmp, pred, mid, hi);
  size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi)
    {
      dl_obj pair[2] = { dl_xvec (dl_vstack[from])->items[j],
                         dl_xvec (dl_vstack[from])->items[i] };
      /* Take from the right only when strictly less: stable.  */
      bool right = dl_funcall (dl_vstack[pred], 2, pair) != Qnil;
      dl_xvec (dl_vstack[tmp])->items[k++]
        = dl_xvec (dl_vstack[from])->items[right ? j++ : i++];
    }
  while (i < mid)
    dl_xvec (dl_vstack[tmp])->items[k++] = dl_xvec (dl_vstack[from])->items[i++];
  while (j < hi)
    dl_xvec (dl_vstack[tmp])->items[k++] = dl_xvec (dl_vstack[from])->items[j++];
  memcpy (&dl_xvec (dl_vstack[from])->items[lo], &dl_xvec (dl_vstack[tmp])->items[lo],
          (hi - lo) * sizeof (dl_obj));
}

static dl_obj
f_sort (ARGS)
{
  UNUSED_ARGS;
  dl_obj seq = args[0];
  bool is_list = !dl_vectorp (seq);
  size_t top = dl_vstack_top;
  size_t from = dl_push (is_list ? list_to_vector (seq) : seq);
  size_t n = (size_t) dl_xvec (dl_vstack[from])->size;
  size_t tmp = dl_push (dl_make_vector (n, Qnil));
  size_t pred = dl_push (args[1]);
  merge_sort (from, tmp, pred, 0, n);
  dl_obj result = seq;
  if (is_list)
    {
      /* Reuse the list's cells, in sorted order.  */
      dl_obj l = seq;
      for (size_t i = 0; i < n; i++, l = dl_cdr_unsafe (l))
        dl_xcons (l)->car = dl_xvec (dl_vstack[from])->items[i];
    }
  dl_pop_to (top);
  return result;
}

const struct dl_builtin dl_list_builtins[] = {
  DL_BUILTIN ("cons", f_cons, 2, 2, "A new cons of CAR and CDR."),
  DL_BUILTIN ("car", f_car, 1, 1, "The car of LIST."),
  DL_BUILTIN ("cdr", f_cdr, 1, 1, "The cdr of LIST."),
  DL_BUILTIN ("car-safe", f_car_safe, 1, 1, "The car of OBJECT if a cons, else nil."),
  DL_BUILTIN ("cdr-safe", f_cdr_safe, 1, 1, "The cdr of OBJECT if a cons, else nil."),
  DL_BUILTIN ("setcar", f_setcar, 2, 2, "Set the car of CELL."),
  DL_BUILTIN ("setcdr", f_setcdr, 2, 2, "Set the cdr of CELL."),
  DL_BUILTIN ("list", f_list, 0, DL_MANY, "A list of the arguments."),
  DL_BUILTIN ("list*", f_list_star, 1, DL_MANY, "Like list, the last argument the tail."),
  DL_BUILTIN ("make-list", f_make_list, 2, 2, "A list of N copies of INIT."),
  DL_BUILTIN ("nth", f_nth, 2, 2, "Element N of LIST."),
  DL_BUILTIN ("nthcdr", f_nthcdr, 2, 2, "LIST after N cdrs."),
  DL_BUILTIN ("last", f_last, 1, 1, "The last cons of LIST."),
  DL_BUILTIN ("append", f_append, 0, DL_MANY, "Concatenate sequences into a list."),
  DL_BUILTIN ("nconc", f_nconc, 0, DL_MANY, "Concatenate lists destructively."),
  DL_BUILTIN ("memq", f_memq, 2, 2, "The tail of LIST starting with ELT (eq)."),
  DL_BUILTIN ("memql", f_memql, 2, 2, "The tail of LIST starting with ELT (eql)."),
  DL_BUILTIN ("member", f_member, 2, 2, "The tail of LIST starting with ELT (equal)."),
  DL_BUILTIN ("assq", f_assq, 2, 2, "The pair of ALIST whose car is KEY (eq)."),
  DL_BUILTIN ("assoc", f_assoc, 2, 2, "The pair of ALIST whose car is KEY (equal)."),
  DL_BUILTIN ("rassq", f_rassq, 2, 2, "The pair of ALIST whose cdr is VALUE (eq)."),
  DL_BUILTIN ("delq", f_delq, 2, 2, "Remove ELT from LIST destructively (eq)."),
  DL_BUILTIN ("delete", f_delete, 2, 2, "Remove ELT from LIST destructively (equal)."),
  DL_BUILTIN ("plist-get", f_plist_get, 2, 2, "The value of PROP in PLIST."),
  DL_BUILTIN ("make-vector", f_make_vector, 2, 2, "A vector of N copies of INIT."),
  DL_BUILTIN ("vector", f_vector, 0, DL_MANY, "A vector of the arguments."),
  DL_BUILTIN ("aref", f_aref, 2, 2, "Element INDEX of a vector or string."),
  DL_BUILTIN ("aset", f_aset, 3, 3, "Set element INDEX of VECTOR."),
  DL_BUILTIN ("vconcat", f_vconcat, 0, DL_MANY, "Concatenate sequences into a vector."),
  DL_BUILTIN ("fillarray", f_fillarray, 2, 2, "Set every element of VECTOR."),
  DL_BUILTIN ("length", f_length, 1, 1, "Number of elements of SEQUENCE."),
  DL_BUILTIN ("safe-length", f_safe_length, 1, 1, "Number of conses of LIST, without signalling."),
  DL_BUILTIN ("elt", f_elt, 2, 2, "Element INDEX of SEQUENCE."),
  DL_BUILTIN ("copy-sequence", f_copy_sequence, 1, 1, "A shallow copy of SEQUENCE."),
  DL_BUILTIN ("reverse", f_reverse, 1, 1, "A reversed copy of SEQUENCE."),
  DL_BUILTIN ("nreverse", f_nreverse, 1, 1, "Reverse SEQUENCE in place."),
  DL_BUILTIN ("sort", f_sort, 2, 2, "Sort SEQUENCE stably by PREDICATE, in place."),
};
DUMPER_DECLARE_OBJECTS (dl_list_builtins, DL_T_BUILTIN);
const size_t dl_list_builtin_count
  = sizeof dl_list_builtins / sizeof dl_list_builtins[0];
