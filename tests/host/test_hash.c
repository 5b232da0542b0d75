/* SPDX-License-Identifier: MIT */
/* tests/host/test_hash.c: hash tables (host/hash.c): both tests,
   growth, deletion, insertion order, `equal' hashing by content, and
   the lazy rehash of an `eq' table whose index a dump dropped (the
   type's fixup in host/types.c, applied here the way the pdump writer
   applies it to its copy).  */

#include <config.h>

#include <string.h>

#include "harness.h"

static dl_obj
keys_of (dl_obj table)
{
  size_t top = dl_push (table);
  dl_obj keys = dlt_eval ("(lambda (table) (let ((ks nil)) (maphash (lambda (k v) (setq ks (cons k ks))) table) (nreverse ks)))");
  dl_push (keys);
  dl_obj result = dl_funcall (keys, 1, &dl_vstack[top]);
  dl_pop_to (top);
  return result;
}

static void
test_eq_and_equal (void **state)
{
  dl_obj eq = dl_make_hash (DL_HASH_EQ, 4), equal = dl_make_hash (DL_HASH_EQUAL, 4);
  size_t top = dl_push (eq);
  dl_push (equal);
  dl_obj k1 = dl_make_cstring ("key"), k2 = dl_make_cstring ("key");
  dl_hash_put (eq, k1, dl_fix (1));
  dl_hash_put (eq, k2, dl_fix (2));
  dl_hash_put (equal, k1, dl_fix (1));
  dl_hash_put (equal, k2, dl_fix (2));
  assert_int_equal (dl_xhash (eq)->count, 2);       /* distinct strings */
  assert_int_equal (dl_xhash (equal)->count, 1);    /* same contents */
  assert_true (dl_hash_get (eq, k1, Qnil) == dl_fix (1));
  assert_true (dl_hash_get (eq, k2, Qnil) == dl_fix (2));
  assert_true (dl_hash_get (equal, dl_make_cstring ("key"), Qnil) == dl_fix (2));
  assert_true (dl_hash_get (eq, dl_make_cstring ("key"), Qt) == Qt);

  /* equal keys of every kind; sxhash agrees for equal objects.  */
  dl_obj pairs = dlt_eval ("(list (list 1 \"a\" [2 3]) (list 1 \"a\" [2 3]) 1.5 1.5 'sym 'sym"
                           " (make-string 3 ?z) \"zzz\" [] [] \"\" \"\")");
  for (dl_obj l = pairs; dl_consp (l); l = dl_cdr (dl_cdr (l)))
    {
      dl_obj a = dl_car (l), b = dl_car (dl_cdr (l));
      assert_true (dl_sxhash (a) == dl_sxhash (b));
      dl_hash_put (equal, a, Qt);
      assert_true (dl_hash_get (equal, b, Qnil) == Qt);
    }
  dl_pop_to (top);
}

static void
test_growth_deletion_and_order (void **state)
{
  dlt_eval ("(setq ht (make-hash-table :test 'equal))"
            "(let ((i 0)) (while (< i 20000) (puthash (format \"k%d\" i) i ht) (setq i (1+ i))))");
  dlt_assert_eval ("(hash-table-count ht)", "20000");
  dlt_assert_eval ("(list (gethash \"k0\" ht) (gethash \"k19999\" ht) (gethash \"k20000\" ht 'none))", "(0 19999 none)");
  /* Delete every even key; the odd ones keep their order.  */
  dlt_eval ("(let ((i 0)) (while (< i 20000) (remhash (format \"k%d\" i) ht) (setq i (+ i 2))))");
  dlt_assert_eval ("(hash-table-count ht)", "10000");
  dlt_assert_eval ("(gethash \"k2\" ht)", "nil");
  dlt_assert_eval ("(gethash \"k3\" ht)", "3");
  dl_obj keys = keys_of (dlt_eval ("ht"));
  assert_int_equal (dl_list_length (keys), 10000);
  assert_string_equal (dlt_print (dl_car (keys)), "\"k1\"");
  long expect = 1;
  for (dl_obj l = keys; dl_consp (l); l = dl_cdr (l), expect += 2)
    {
      char name[32];
      snprintf (name, sizeof name, "k%ld", expect);
      assert_string_equal (dl_sdata (dl_car (l)), name);
    }
  /* Reinsertion appends at the end; overwrite keeps the position.  */
  dlt_eval ("(puthash \"k0\" 'back ht) (puthash \"k1\" 'first ht)");
  keys = keys_of (dlt_eval ("ht"));
  assert_string_equal (dlt_print (dl_car (keys)), "\"k1\"");
  assert_string_equal (dlt_print (dl_car (dl_nreverse (keys))), "\"k0\"");
  /* Churn: inserts and deletes past many compactions (values kept
     inside 29-bit fixnums, for 4-byte words).  */
  dlt_eval ("(setq churn (make-hash-table))"
            "(let ((i 0)) (while (< i 50000) (puthash i (* i 3) churn) (if (>= i 10) (remhash (- i 10) churn)) (setq i (1+ i))))");
  dlt_assert_eval ("(hash-table-count churn)", "10");
  dlt_assert_eval ("(list (gethash 49999 churn) (gethash 49989 churn))", "(149997 nil)");
  dlt_assert_eval ("(progn (clrhash churn) (list (hash-table-count churn) (gethash 49999 churn)))", "(0 nil)");
}

/* What a pdump image holds for a table: the writer copies the object and
   runs the type's fixup on the copy.  Applying the fixup in place gives
   the state a loaded table starts in.  */
static void
simulate_dump_fixup (dl_obj table)
{
  const struct dumper_type *type = &dl_heap_description.types[DL_T_HASH];
  struct dl_hash *h = dl_xhash (table);
  struct dl_hash copy = *h;
  type->fixup (h, &copy);
  *h = copy;
}

static void
test_rehash_after_dump (void **state)
{
  dlt_eval ("(setq by-object (make-hash-table :test 'eq))"
            "(setq keys (list (list 1) [2] \"three\" 'four 5 6.0))"
            "(let ((k keys) (i 0)) (while k (puthash (car k) i by-object) (setq k (cdr k) i (1+ i))))");
  dl_obj table = dlt_eval ("by-object");
  simulate_dump_fixup (table);
  struct dl_hash *h = dl_xhash (table);
  assert_null (h->index);
  assert_true (h->h.flags & DL_F_NEEDS_REHASH);
  /* The dropped index is garbage now; a collection frees it safely.  */
  dl_gc ();
  /* The first access rebuilds the index.  */
  dlt_assert_eval ("(let ((k keys) (r nil)) (while k (setq r (cons (gethash (car k) by-object) r) k (cdr k))) r)",
                   "(5 4 3 2 1 0)");
  assert_non_null (h->index);
  assert_false (h->h.flags & DL_F_NEEDS_REHASH);
  dlt_assert_eval ("(progn (puthash 'seven 7 by-object) (list (gethash 'seven by-object) (hash-table-count by-object)))",
                   "(7 7)");

  /* An equal table keeps its index through a dump: no rehash needed.  */
  dlt_eval ("(setq by-name (make-hash-table :test 'equal)) (puthash \"a\" 1 by-name) (puthash \"b\" 2 by-name)");
  table = dlt_eval ("by-name");
  h = dl_xhash (table);
  const struct dl_hash_index *index = h->index;
  simulate_dump_fixup (table);
  assert_true (h->index == index);
  assert_false (h->h.flags & DL_F_NEEDS_REHASH);
  dlt_assert_eval ("(list (gethash \"a\" by-name) (gethash \"b\" by-name))", "(1 2)");
  assert_true (h->index == index);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_eq_and_equal),
    cmocka_unit_test (test_growth_deletion_and_order),
    cmocka_unit_test (test_rehash_after_dump),
  };
  return cmocka_run_group_tests (tests, dlt_setup, NULL);
}
