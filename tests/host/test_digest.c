/* SPDX-License-Identifier: MIT */
/* tests/host/test_digest.c: the heap digest and heap dump
   (host/digest.c): stable across calls and collections, blind to
   per-start values and addresses, and changed by any one change to the
   reachable state -- a value, a string's bytes, a float's bits, sharing,
   a cycle, hash table order, a symbol flag.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void
digest (unsigned char out[16])
{
  struct dl_digest d;
  dl_heap_digest (&d);
  memcpy (out, d.bytes, 16);
}

#define assert_digest_equal(a, b) assert_memory_equal (a, b, 16)
#define assert_digest_differs(a, b) assert_memory_not_equal (a, b, 16)

static void
test_stable (void **state)
{
  unsigned char a[16], b[16];
  dlt_eval ("(setq digest-data (list 1 \"two\" 3.0 [4] (make-hash-table)))");
  digest (a);
  digest (b);
  assert_digest_equal (a, b);
  /* Garbage and collections move nothing that is hashed.  */
  for (int i = 0; i < 5000; i++)
    dl_make_vector (8, dl_make_cstring ("garbage"));
  dl_gc ();
  digest (b);
  assert_digest_equal (a, b);
  /* Per-start values are not part of the state.  */
  dlt_eval ("(setq default-directory \"/somewhere/else/\" dlisp-start-time 12.5)");
  digest (b);
  assert_digest_equal (a, b);
}

/* Evaluating CHANGE alters the digest; UNDO restores it exactly.  */
static void
assert_sensitive (const char *setup, const char *change, const char *undo)
{
  unsigned char before[16], changed[16], restored[16];
  dlt_eval (setup);
  digest (before);
  dlt_eval (change);
  digest (changed);
  dlt_eval (undo);
  digest (restored);
  if (memcmp (before, changed, 16) == 0)
    fail_msg ("digest did not change after: %s", change);
  assert_digest_equal (before, restored);
}

static void
test_sensitive_to_one_change (void **state)
{
  assert_sensitive ("(setq d-x 1)", "(setq d-x 2)", "(setq d-x 1)");
  assert_sensitive ("(setq d-s \"abc\")", "(setq d-s \"abd\")", "(setq d-s \"abc\")");
  assert_sensitive ("(setq d-f 0.0)", "(setq d-f -0.0)", "(setq d-f 0.0)");
  assert_sensitive ("(setq d-v (vector 1 2 3))", "(aset d-v 2 4)", "(aset d-v 2 3)");
  /* Sharing: two references to one list versus two equal lists.  */
  assert_sensitive ("(setq d-shared (list 'a 'b)) (setq d-pair (list d-shared d-shared))",
                    "(setcar (cdr d-pair) (list 'a 'b))", "(setcar (cdr d-pair) d-shared)");
  /* A cycle.  */
  assert_sensitive ("(setq d-cyc (list 1 2))", "(setcdr (cdr d-cyc) d-cyc)", "(setcdr (cdr d-cyc) nil)");
  /* Hash table insertion order.  */
  assert_sensitive ("(setq d-h (make-hash-table)) (puthash 'a 1 d-h) (puthash 'b 2 d-h)",
                    "(remhash 'a d-h) (puthash 'a 1 d-h)",
                    "(clrhash d-h) (puthash 'a 1 d-h) (puthash 'b 2 d-h)");
  /* A property, a function cell, a flag.  */
  assert_sensitive ("(put 'd-sym 'p 1)", "(put 'd-sym 'p 2)", "(put 'd-sym 'p 1)");
  assert_sensitive ("(fset 'd-fn #'car)", "(fset 'd-fn #'cdr)", "(fset 'd-fn #'car)");
}

static void
test_special_flag_changes_digest (void **state)
{
  /* defvar marks the symbol special, which no Lisp code can undo, so
     this one is checked without a restore.  */
  unsigned char a[16], b[16];
  dlt_eval ("(setq d-flag 1)");
  digest (a);
  dlt_eval ("(defvar d-flag)");
  digest (b);
  assert_digest_differs (a, b);
}

static void
test_heap_dump (void **state)
{
  dlt_eval ("(setq dump-probe (list \"probe\" 2.5 (symbol-function 'car)))");
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream (&text, &size);
  assert_non_null (out);
  assert_true (dl_heap_dump (out));
  fclose (out);
  assert_non_null (strstr (text, " symbol \"dump-probe\" flags="));
  assert_non_null (strstr (text, " string \"probe\""));
  assert_non_null (strstr (text, " float 2.5 (4004000000000000)"));
  assert_non_null (strstr (text, " = #<subr car>"));
  /* No address ever appears.  */
  assert_null (strstr (text, "0x"));
  /* The dump of an unchanged heap is the same text.  */
  char *again = NULL;
  size_t again_size = 0;
  out = open_memstream (&again, &again_size);
  assert_true (dl_heap_dump (out));
  fclose (out);
  assert_int_equal (size, again_size);
  assert_memory_equal (text, again, size);
  free (text);
  free (again);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_stable),
    cmocka_unit_test (test_sensitive_to_one_change),
    cmocka_unit_test (test_special_flag_changes_digest),
    cmocka_unit_test (test_heap_dump),
  };
  return cmocka_run_group_tests (tests, dlt_setup, NULL);
}
