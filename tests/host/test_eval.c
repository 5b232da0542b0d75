/* SPDX-License-Identifier: MIT */
/* tests/host/test_eval.c: the evaluator (host/eval.c): each special
   form, closures and lexical scope, dynamic binding, macros, non-local
   exits (catch/throw, condition-case, unwind-protect) and the errors a
   program can catch.  */

#include <config.h>

#include <stdio.h>

#include "harness.h"

static void
test_basic_forms (void **state)
{
  dlt_assert_eval ("(quote (a b))", "(a b)");
  dlt_assert_eval ("'x", "x");
  dlt_assert_eval ("(if nil 1 2 3)", "3");
  dlt_assert_eval ("(if t 1 2)", "1");
  dlt_assert_eval ("(if nil 1)", "nil");
  dlt_assert_eval ("(cond ((= 1 2) 'a) ((= 1 1) 'b 'c) (t 'd))", "c");
  dlt_assert_eval ("(cond ((+ 1 2)))", "3");
  dlt_assert_eval ("(cond (nil 1))", "nil");
  dlt_assert_eval ("(and 1 2 3)", "3");
  dlt_assert_eval ("(and 1 nil 3)", "nil");
  dlt_assert_eval ("(and)", "t");
  dlt_assert_eval ("(or nil 2 3)", "2");
  dlt_assert_eval ("(or)", "nil");
  dlt_assert_eval ("(progn 1 2 3)", "3");
  dlt_assert_eval ("(prog1 1 2 3)", "1");
  dlt_assert_eval ("(let ((i 0) (sum 0)) (while (< i 10) (setq sum (+ sum i) i (1+ i))) sum)", "45");
}

static void
test_let_and_scope (void **state)
{
  dlt_assert_eval ("(let ((x 1) (y 2)) (let ((x y) (y x)) (list x y)))", "(2 1)");
  dlt_assert_eval ("(let* ((x 1) (y (+ x 1))) (list x y))", "(1 2)");
  dlt_assert_eval ("(let (a (b)) (list a b))", "(nil nil)");
  /* Closures capture their environment; setq writes the captured cell.  */
  dlt_assert_eval ("(defun make-counter () (let ((n 0)) (lambda () (setq n (1+ n)))))"
                   "(let ((c (make-counter)) (d (make-counter)))"
                   "  (funcall c) (funcall c) (funcall d) (list (funcall c) (funcall d)))",
                   "(3 2)");
  dlt_assert_eval ("(let ((x 'outer)) (let ((f (lambda () x))) (let ((x 'inner)) (funcall f))))",
                   "outer");
  dlt_assert_eval ("(setq test-global 5) (let ((test-global 6)) test-global)", "6");
  dlt_assert_eval ("test-global", "5");
}

static void
test_functions (void **state)
{
  /* 18! needs 53 bits: a fixnum with 8-byte words; 11! fits 29 bits.  */
  if (DL_FIXNUM_BITS > 53)
    dlt_assert_eval ("(defun fact (n) \"Factorial.\" (if (< n 2) 1 (* n (fact (1- n))))) (fact 18)",
                     "6402373705728000");
  else
    dlt_assert_eval ("(defun fact (n) \"Factorial.\" (if (< n 2) 1 (* n (fact (1- n))))) (fact 11)",
                     "39916800");
  dlt_assert_eval ("(documentation 'fact)", "\"Factorial.\"");
  dlt_assert_eval ("(defun opt (a &optional b &rest c) (list a b c)) (list (opt 1) (opt 1 2) (opt 1 2 3 4))",
                   "((1 nil nil) (1 2 nil) (1 2 (3 4)))");
  dlt_assert_eval ("(funcall #'+ 1 2 3)", "6");
  dlt_assert_eval ("(apply #'list 1 2 '(3 4))", "(1 2 3 4)");
  dlt_assert_eval ("(apply '+ nil)", "0");
  dlt_assert_eval ("((lambda (x y) (* x y)) 6 7)", "42");
  dlt_assert_eval ("(funcall '(lambda (x) (list x)) 1)", "(1)");
  dlt_assert_eval ("(mapcar (lambda (x) (* x x)) '(1 2 3))", "(1 4 9)");
  dlt_assert_eval ("(eval '(+ 1 2))", "3");
  dlt_assert_eval ("(defalias 'my-first #'car) (my-first '(9 8))", "9");
  dlt_assert_eval ("(sort (list 3 1 2 5 4) #'<)", "(1 2 3 4 5)");
  dlt_assert_eval ("(sort (vector \"b\" \"a\" \"c\") #'string<)", "[\"a\" \"b\" \"c\"]");
}

static void
test_macros_and_backquote (void **state)
{
  dlt_assert_eval ("(let ((b 2) (c '(3 4))) `(a ,b ,@c e))", "(a 2 3 4 e)");
  dlt_assert_eval ("(let ((x 1)) `[x ,x])", "[x 1]");
  dlt_assert_eval ("(let ((x 1)) `(a . ,x))", "(a . 1)");
  dlt_assert_eval ("`(1 `(2 ,(3 ,(+ 1 3))))", "(1 `(2 ,(3 4)))");
  dlt_assert_eval ("(defmacro my-unless (c &rest body) `(if ,c nil ,@body))"
                   "(list (my-unless nil 1 2) (my-unless t 1))", "(2 nil)");
  dlt_assert_eval ("(macroexpand '(my-unless x y))", "(if x nil y)");
  /* Expansion is displaced into the code: a loop expands once and still
     evaluates correctly every time.  */
  dlt_assert_eval ("(defvar expansions 0)"
                   "(defmacro counted (x) (setq expansions (1+ expansions)) x)"
                   "(defun use-counted (n) (let ((s 0)) (while (> n 0) (setq s (+ s (counted n)) n (1- n))) s))"
                   "(list (use-counted 10) (use-counted 5) expansions)", "(55 15 1)");
}

static void
test_dynamic_binding (void **state)
{
  dlt_assert_eval ("(defvar dyn 'global) (defun read-dyn () dyn)"
                   "(list (let ((dyn 'bound)) (read-dyn)) (read-dyn))", "(bound global)");
  dlt_assert_eval ("(defun dyn-param (dyn) (read-dyn)) (dyn-param 'param)", "param");
  /* An error inside the binding still restores the value.  */
  dlt_assert_eval ("(condition-case nil (let ((dyn 'inside)) (car 1)) (error (read-dyn)))", "global");
  dlt_assert_eval ("(special-variable-p 'dyn)", "t");
  dlt_assert_eval ("(defvar dyn 'again) dyn", "global");
  dlt_assert_eval ("(defconst dyn-const 1) (defconst dyn-const 2) dyn-const", "2");
}

static void
test_non_local_exits (void **state)
{
  dlt_assert_eval ("(catch 'done (let ((i 0)) (while t (setq i (1+ i)) (if (= i 7) (throw 'done i)))))", "7");
  dlt_assert_eval ("(catch 'outer (catch 'inner (throw 'outer 'o)) 'not-here)", "o");
  dlt_assert_eval ("(catch 'x 1 2)", "2");
  dlt_assert_eval ("(defvar log nil)"
                   "(catch 'k (unwind-protect (throw 'k 'thrown) (setq log 'cleaned)))", "thrown");
  dlt_assert_eval ("log", "cleaned");
  dlt_assert_eval ("(unwind-protect 'value (setq log 'normal))", "value");
  dlt_assert_eval ("log", "normal");
  dlt_assert_eval ("(condition-case e (signal 'my-error '(1 2)) (error 'no) (t (list 'any e)))", "(any (my-error 1 2))");
  dlt_assert_eval ("(define-error 'my-error \"Mine\") (condition-case e (signal 'my-error '(1)) (error (list 'caught e)))",
                   "(caught (my-error 1))");
  dlt_assert_eval ("(condition-case e (/ 1 0) (arith-error 'div) (error 'other))", "div");
  dlt_assert_eval ("(condition-case e (car 5) ((void-variable wrong-type-argument) e))", "(wrong-type-argument listp 5)");
  dlt_assert_eval ("(condition-case e (error \"Bad %d\" 3) (error (error-message-string e)))", "\"Bad 3\"");
  dlt_assert_eval ("(condition-case nil (+ 1 2) (error 'no))", "3");
  /* A handler that does not match lets the error through.  */
  dlt_assert_eval ("(condition-case outer (condition-case inner (car 1) (arith-error 'wrong)) (error (car outer)))",
                   "wrong-type-argument");
  dlt_assert_eval ("(condition-case e (throw 'nobody 1) (no-catch e))", "(no-catch nobody 1)");
}

static void
test_errors (void **state)
{
  /* The largest fixnum times 2, for this word size.  */
  static char overflow[64];
  snprintf (overflow, sizeof overflow, "(* %lld 2)", (long long) DL_FIXNUM_MAX);
  const struct { const char *source, *error; } cases[] = {
    { "undefined-variable-xyz", "void-variable" },
    { "(undefined-function-xyz)", "void-function" },
    { "(car 1)", "wrong-type-argument" },
    { "(aref [1 2] 5)", "args-out-of-range" },
    { "((lambda (x) x))", "wrong-number-of-arguments" },
    { "((lambda (x) x) 1 2)", "wrong-number-of-arguments" },
    { "(car 1 2)", "wrong-number-of-arguments" },
    { "(setq t 5)", "setting-constant" },
    { "(1 2)", "invalid-function" },
    { "(funcall 'if t 1)", "invalid-function" },
    { overflow, "overflow-error" },
    { "(defun deep (n) (deep (1+ n))) (deep 0)", "excessive-lisp-nesting" },
    { "(error \"plain %s\" \"message\")", "error" },
    { "(load \"/nonexistent/file.lisp\")", "file-error" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      dl_obj err = dlt_eval_error (cases[i].source);
      assert_string_equal (dlt_print (dl_car (err)), cases[i].error);
    }
  /* The evaluator is usable after each error, deep recursion included.  */
  dlt_assert_eval ("(defun down (n) (if (= n 0) 'bottom (down (1- n)))) (down 500)", "bottom");
  dlt_assert_eval ("(error-message-string '(wrong-type-argument listp 1))",
                   "\"Wrong type argument: listp, 1\"");
}

static void
test_data_builtins (void **state)
{
  dlt_assert_eval ("(list (+ 1 2.5) (- 10) (* 2 3) (/ 7 2) (/ 7.0 2) (% -7 2) (mod -7 2))",
                   "(3.5 -10 6 3 3.5 -1 1)");
  dlt_assert_eval ("(list (< 1 2 3) (< 1 3 2) (= 1 1.0) (max 1 5 3) (min 2.5 1) (abs -4))",
                   "(t nil t 5 1 4)");
  dlt_assert_eval ("(list (truncate 2.7) (floor -2.5) (ceiling 2.1) (round 2.5) (sqrt 16.0) (expt 2 10))",
                   "(2 -3 3 2 4.0 1024)");
  dlt_assert_eval ("(list (logand 12 10) (logior 12 10) (logxor 12 10) (ash 1 10) (ash 1024 -3))",
                   "(8 14 6 1024 128)");
  dlt_assert_eval ("(list (equal '(1 (2 \"x\")) (list 1 (list 2 \"x\"))) (eq \"a\" \"a\") (eql 1.0 1.0) (equal [1 2] [1 2]))",
                   "(t nil t t)");
  dlt_assert_eval ("(list (length '(1 2 3)) (length \"h\xc3\xa9\") (length [1 2]) (string-bytes \"h\xc3\xa9\"))",
                   "(3 2 2 3)");
  dlt_assert_eval ("(list (nth 1 '(a b c)) (nthcdr 2 '(a b c)) (last '(1 2 3)) (append '(1) '(2) '(3 . 4)))",
                   "(b (c) (3) (1 2 3 . 4))");
  dlt_assert_eval ("(list (memq 'b '(a b c)) (member \"b\" '(\"a\" \"b\")) (assq 'k '((j . 1) (k . 2))) (assoc \"k\" '((\"k\" . 3))))",
                   "((b c) (\"b\") (k . 2) (\"k\" . 3))");
  dlt_assert_eval ("(list (reverse '(1 2 3)) (nreverse (list 1 2 3)) (delq 'a (list 'a 'b 'a)) (delete \"x\" (list \"x\" \"y\")))",
                   "((3 2 1) (3 2 1) (b) (\"y\"))");
  dlt_assert_eval ("(list (concat \"a\" \"b\" '(99)) (substring \"h\xc3\xa9llo\" 1 3) (substring \"abc\" -2) (upcase \"abc\") (string-to-number \"42\") (string-to-number \"2.5\") (number-to-string 7))",
                   "(\"abc\" \"\xc3\xa9l\" \"bc\" \"ABC\" 42 2.5 \"7\")");
  dlt_assert_eval ("(list (split-string \" a  b c \") (string-search \"lo\" \"hello\") (aref \"h\xc3\xa9\" 1) (string 104 233))",
                   "((\"a\" \"b\" \"c\") 3 233 \"h\xc3\xa9\")");
  dlt_assert_eval ("(progn (put 'p 'color 'red) (put 'p 'size 3) (put 'p 'color 'blue) (list (get 'p 'color) (symbol-plist 'p)))",
                   "(blue (color blue size 3))");
  dlt_assert_eval ("(list (intern \"fresh-symbol\") (eq (intern \"fresh-symbol\") 'fresh-symbol) (intern-soft \"never-seen-zz\") (symbolp (make-symbol \"m\")))",
                   "(fresh-symbol t nil t)");
  dlt_assert_eval ("(list (type-of 1) (type-of 1.0) (type-of \"\") (type-of 'a) (type-of '(1)) (type-of []) (type-of (make-hash-table)) (type-of (lambda ())) (type-of (symbol-function 'car)))",
                   "(integer float string symbol cons vector hash-table closure subr)");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_basic_forms),
    cmocka_unit_test (test_let_and_scope),
    cmocka_unit_test (test_functions),
    cmocka_unit_test (test_macros_and_backquote),
    cmocka_unit_test (test_dynamic_binding),
    cmocka_unit_test (test_non_local_exits),
    cmocka_unit_test (test_errors),
    cmocka_unit_test (test_data_builtins),
  };
  return cmocka_run_group_tests (tests, dlt_setup, NULL);
}
