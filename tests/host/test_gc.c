/* SPDX-License-Identifier: MIT */
/* tests/host/test_gc.c: the collector (host/gc.c): reachable objects
   survive (from symbols, the value stack, registered roots and through
   hash tables and closures), unreachable ones are freed with the blocks
   they own, and both hold under many collections with churn.  */

#include <config.h>

#include "harness.h"

static dl_obj static_root;     /* registered with dumper_staticpro */
static dl_obj unregistered;    /* a C static the GC does not know */

static size_t
live_objects (void)
{
  dl_gc ();
  return dl_heap_stats.objects;
}

static void
test_unreachable_objects_are_freed (void **state)
{
  size_t before = live_objects ();
  size_t bytes_before = dl_heap_stats.bytes;
  for (int i = 0; i < 1000; i++)
    {
      dl_cons (dl_fix (i), Qnil);
      dl_make_string ("garbage string data", 19);
      dl_make_vector (10, Qnil);
      dl_make_float (i * 0.5);
    }
  dl_make_hash (DL_HASH_EQUAL, 100);
  assert_true (dl_heap_stats.objects >= before + 4000);
  assert_int_equal (live_objects (), before);
  assert_int_equal (dl_heap_stats.bytes, bytes_before);
}

static void
test_reachable_objects_survive (void **state)
{
  dlt_eval ("(setq gc-kept (let ((l nil) (i 0)) (while (< i 5000) (setq l (cons (list i (format \"s%d\" i) (* i 0.5)) l) i (1+ i))) l))");
  size_t with_list = live_objects ();
  for (int round = 0; round < 5; round++)
    {
      dl_gc ();
      dlt_assert_eval ("(length gc-kept)", "5000");
      dlt_assert_eval ("(nth 4999 gc-kept)", "(0 \"s0\" 0.0)");
      dlt_assert_eval ("(car (nth 0 gc-kept))", "4999");
    }
  assert_int_equal (live_objects (), with_list);
  dlt_eval ("(setq gc-kept nil)");
  assert_true (live_objects () <= with_list - 5000 * 5);
}

static void
test_roots (void **state)
{
  size_t base = live_objects ();
  /* The value stack.  */
  size_t top = dl_push (dl_list (3, dl_fix (1), dl_make_cstring ("on the stack"), dl_fix (3)));
  assert_int_equal (live_objects (), base + 4);
  assert_string_equal (dlt_print (dl_vstack[top]), "(1 \"on the stack\" 3)");
  dl_pop_to (top);
  assert_int_equal (live_objects (), base);

  /* A registered C static.  */
  assert_int_equal (DUMPER_STATICPRO (static_root), DUMPER_OK);
  static_root = dl_cons (dl_make_cstring ("rooted"), Qnil);
  unregistered = dl_make_cstring ("not rooted");
  assert_int_equal (live_objects (), base + 2);
  assert_string_equal (dlt_print (static_root), "(\"rooted\")");
  static_root = Qnil;
  unregistered = Qnil;
  assert_int_equal (live_objects (), base);

  /* A hash table keeps its entries vector and its index, including the
     `eq' index that the trace functions leave out for the dumper.  */
  top = dl_push (dl_make_hash (DL_HASH_EQ, 4));
  dl_hash_put (dl_vstack[top], dl_fix (1), dl_fix (2));
  assert_int_equal (live_objects (), base + 3);
  assert_true (dl_hash_get (dl_vstack[top], dl_fix (1), Qnil) == dl_fix (2));
  dl_vstack[top] = dl_make_hash (DL_HASH_EQUAL, 4);
  assert_int_equal (live_objects (), base + 3);
  dl_pop_to (top);
  assert_int_equal (live_objects (), base);

  /* Uninterned symbols die with their last reference; interned live.  */
  dl_make_symbol (dl_make_cstring ("uninterned-gc-test"));
  assert_int_equal (live_objects (), base);
  dl_intern_c ("interned-gc-test");   /* symbol, name, bucket cons */
  assert_int_equal (live_objects (), base + 3);
}

static void
test_through_tables_and_closures (void **state)
{
  dlt_eval ("(setq gc-table (make-hash-table :test 'equal))"
            "(setq gc-eq (make-hash-table :test 'eq))"
            "(let ((i 0)) (while (< i 300) (puthash (format \"k%d\" i) (list i) gc-table)"
            "  (puthash (list i) (format \"v%d\" i) gc-eq) (setq i (1+ i))))"
            "(setq gc-closure (let ((captured (list 'a \"captured\"))) (lambda () captured)))");
  for (int i = 0; i < 3; i++)
    dl_gc ();
  dlt_assert_eval ("(gethash \"k299\" gc-table)", "(299)");
  dlt_assert_eval ("(hash-table-count gc-eq)", "300");
  dlt_assert_eval ("(let ((n 0)) (maphash (lambda (k v) (if (equal v (format \"v%d\" (car k))) (setq n (1+ n)))) gc-eq) n)", "300");
  dlt_assert_eval ("(funcall gc-closure)", "(a \"captured\")");
  size_t with_tables = live_objects ();
  dlt_eval ("(setq gc-table nil gc-eq nil gc-closure nil)");
  assert_true (live_objects () < with_tables - 1200);
}

static void
test_collection_during_evaluation (void **state)
{
  /* Allocate far past the threshold inside one evaluation, so the
     collector runs at the evaluator's safe points while arguments,
     environments and partial results are live on the value stack.  */
  size_t before = dl_heap_stats.gc_count;
  dlt_assert_eval ("(defun churn (n acc)"
                   "  (if (= n 0) acc"
                   "    (churn (1- n) (cons (length (make-list 200 (format \"%d\" n))) acc))))"
                   "(let ((total 0) (round 0))"
                   "  (while (< round 40)"
                   "    (setq total (+ total (apply #'+ (churn 300 nil))) round (1+ round)))"
                   "  total)", "2400000");
  assert_true (dl_heap_stats.gc_count > before);
  dlt_assert_eval ("(let ((v (make-vector 100 nil)) (i 0))"
                   "  (while (< i 20000) (aset v (% i 100) (list i (make-string 10 ?x))) (setq i (1+ i)))"
                   "  (list (car (aref v 99)) (car (aref v 0))))", "(19999 19900)");
}

/* With a collection at every safe point, every evaluating builtin and
   special form must still keep its intermediate values reachable.  */
static void
test_collect_at_every_safe_point (void **state)
{
  static const struct { const char *source, *expected; } cases[] = {
    { "(let ((a (list 1 2)) (b (list 3))) (append a b (list (car a))))", "(1 2 3 1)" },
    { "(let* ((a (list 1)) (b (cons 0 a))) (list a b))", "((1) (0 1))" },
    { "(let ((x (list 'x))) `[,@x ,(list 1) (y ,(car x))])", "[x (1) (y x)]" },
    { "(let ((x (list 1 2))) `(a ,@x . ,(list 3)))", "(a 1 2 3)" },
    { "(mapcar (lambda (s) (concat s \"!\")) (list \"a\" \"b\"))", "(\"a!\" \"b!\")" },
    { "(sort (mapcar (lambda (n) (format \"%03d\" n)) (list 5 3 9 1)) (lambda (a b) (string< (copy-sequence a) (copy-sequence b))))",
      "(\"001\" \"003\" \"005\" \"009\")" },
    { "(apply #'list (list 1 2) (list (list 3 4)))", "((1 2) (3 4))" },
    { "(let ((h (make-hash-table :test 'equal)) (r nil)) (puthash (list 1) (list 2) h) (puthash \"k\" (vector 3) h)"
      " (maphash (lambda (k v) (setq r (cons (list k v (copy-sequence (list 0))) r))) h) r)",
      "((\"k\" [3] (0)) ((1) (2) (0)))" },
    { "(condition-case e (progn (list 1 2) (signal 'error (list (format \"m%d\" 1)))) (error (list (cdr e) (list 'h))))",
      "((\"m1\") (h))" },
    { "(catch 'k (unwind-protect (throw 'k (list 'v (make-string 2 ?a))) (list 'cleanup)))", "(v \"aa\")" },
    { "(prog1 (list 'first) (list 'second))", "(first)" },
    { "(defmacro stress-m (x) `(list ,x ,(list 'quote (list x)))) (stress-m (+ 1 2))", "(3 ((+ 1 2)))" },
    { "(defun stress-f (a &optional b &rest c) (list a b c (list 'new))) (stress-f (list 1) (list 2) (list 3) 4)",
      "((1) (2) ((3) 4) (new))" },
    { "(let ((acc nil) (i 0)) (while (< i 50) (setq acc (cons (format \"%d\" i) acc) i (1+ i))) (length acc))", "50" },
  };
  dl_gc_stress = true;
  size_t before = dl_heap_stats.gc_count;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    dlt_assert_eval (cases[i].source, cases[i].expected);
  dl_gc_stress = false;
  assert_true (dl_heap_stats.gc_count > before + 100);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_unreachable_objects_are_freed),
    cmocka_unit_test (test_reachable_objects_survive),
    cmocka_unit_test (test_roots),
    cmocka_unit_test (test_through_tables_and_closures),
    cmocka_unit_test (test_collection_during_evaluation),
    cmocka_unit_test (test_collect_at_every_safe_point),
  };
  return cmocka_run_group_tests (tests, dlt_setup, NULL);
}
