/* SPDX-License-Identifier: MIT */
/* tests/host/test_reader.c: the reader and the printer (host/read.c,
   host/print.c): texts that print back as read, objects that read back
   `equal' (floats by their bits), escapes, characters, and syntax
   errors as Lisp errors.  */

#include <config.h>

#include <stdio.h>

#include <math.h>
#include <string.h>

#include "harness.h"

static dl_obj
read_text (const char *text)
{
  return dl_read_from_string (text, strlen (text));
}

/* TEXT reads and prints back as itself.  */
static void
assert_round_trip (const char *text)
{
  assert_string_equal (dlt_print (read_text (text)), text);
}

static void
test_text_round_trips (void **state)
{
  static const char *const texts[] = {
    "42", "-7", "0",
    "1.5", "-0.0", "0.1", "1e+20", "1e-07", "1.0e+INF", "-1.0e+INF",
    "0.0e+NaN", "123456.789", "1.7976931348623157e+308", "5e-324",
    "foo", "nil", "t", "a\\ b", "\\12", "\\?x", "##", ":key",
    "\"\"", "\"a\\\"b\\\\c\\nd\\te\"", "\"h\xc3\xa9llo \xe2\x9c\x93\"",
    "\"\\001\\037\"",
    "(1 2 3)", "(1 . 2)", "(a (b (c)) . d)", "[]", "[1 \"s\" [x] (y)]",
    "'x", "#'car", "`(a ,b ,@c)", "(quote x y)",
    "#s(hash-table test eq data (a 1 b 2))",
    "#s(hash-table test equal data (\"k\" (1 2) (x) [v]))",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    assert_round_trip (texts[i]);
  /* The extreme fixnums of this word size (1152921504606846975 and
     -1152921504606846976 with 8-byte words).  */
  char text[32];
  snprintf (text, sizeof text, "%lld", (long long) DL_FIXNUM_MAX);
  assert_round_trip (text);
  snprintf (text, sizeof text, "%lld", (long long) DL_FIXNUM_MIN);
  assert_round_trip (text);
}

/* X printed with escapes reads back equal (and floats bit-identical).  */
static void
assert_reads_back (dl_obj x)
{
  const char *text = dlt_print (x);
  dl_obj y = read_text (text);
  if (dl_floatp (x))
    {
      double a = dl_float_value (x), b;
      assert_true (dl_floatp (y));
      b = dl_float_value (y);
      assert_memory_equal (&a, &b, sizeof a);
      return;
    }
  if (!dl_equal (x, y))
    fail_msg ("%s did not read back equal", text);
}

static void
test_objects_read_back (void **state)
{
  /* Floats across magnitudes, including subnormals and signed zero.  */
  uint64_t bits = UINT64_C (0x123456789abcdef);
  for (int i = 0; i < 2000; i++)
    {
      bits = bits * UINT64_C (6364136223846793005) + 1442695040888963407u;
      double v;
      memcpy (&v, &bits, sizeof v);
      if (isnan (v))
        continue;
      assert_reads_back (dl_make_float (v));
    }
  assert_reads_back (dl_make_float (-0.0));
  assert_reads_back (dl_make_float (INFINITY));
  assert_reads_back (dl_make_float (-INFINITY));

  /* Strings with every byte value.  */
  char all[255];
  for (int i = 0; i < 255; i++)
    all[i] = (char) (i + 1);
  assert_reads_back (dl_make_string (all, sizeof all));
  assert_reads_back (dl_make_string ("", 0));

  /* Symbols whose names need escapes.  */
  static const char *const names[] = { "a b", "12", "1.5", "(x)", "a;b", "'q",
                                       "\"", ".", "-", "+1", "1e5", "é" };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    {
      dl_obj sym = dl_intern_c (names[i]);
      assert_true (read_text (dlt_print (sym)) == sym);
    }

  /* Nested structure.  */
  dl_obj nested = dlt_eval ("(list 1 -2.5 \"s\" (vector 'a (list \"b\" 3)) (cons 'x 'y))");
  assert_reads_back (nested);
}

static void
test_characters_and_escapes (void **state)
{
  assert_string_equal (dlt_print (read_text ("?a")), "97");
  assert_string_equal (dlt_print (read_text ("?\\n")), "10");
  assert_string_equal (dlt_print (read_text ("?\\s")), "32");
  assert_string_equal (dlt_print (read_text ("?\xc3\xa9")), "233");
  assert_string_equal (dlt_print (read_text ("#x1F")), "31");
  assert_string_equal (dlt_print (read_text ("#b101")), "5");
  assert_string_equal (dlt_print (read_text ("\"\\x41\\u00e9\"")), "\"A\xc3\xa9\"");
  assert_string_equal (dlt_print (read_text ("(a . (b . (c)))")), "(a b c)");
  assert_string_equal (dlt_print (read_text ("; comment\n  x")), "x");
  /* Uninterned symbols read as fresh symbols.  */
  dl_obj u = read_text ("#:g1");
  assert_true (dl_symbolp (u));
  assert_true (u != dl_intern_c ("g1"));
  assert_string_equal (dlt_print (u), "#:g1");
}

static void
assert_read_error (const char *text, const char *error_symbol)
{
  char source[256];
  snprintf (source, sizeof source, "(read-from-string %s)",
            dlt_print (dl_make_cstring (text)));
  dl_obj err = dlt_eval_error (source);
  assert_string_equal (dlt_print (dl_car (err)), error_symbol);
}

static void
test_syntax_errors (void **state)
{
  assert_read_error (")", "invalid-read-syntax");
  assert_read_error ("(1 . 2 3)", "invalid-read-syntax");
  assert_read_error ("#<closure>", "invalid-read-syntax");
  assert_read_error ("(. a)", "invalid-read-syntax");
  assert_read_error ("(1 2", "end-of-file");
  assert_read_error ("\"abc", "end-of-file");
  assert_read_error ("", "end-of-file");
}

static void
test_printer_cycles_and_unreadables (void **state)
{
  dlt_assert_eval ("(let ((l (list 1 2 3))) (setcdr (cdr (cdr l)) l) l)", "(1 2 3 1 2 ...)");
  dlt_assert_eval ("(let ((v (make-vector 2 nil))) (aset v 0 v) v)", "[#0 nil]");
  dlt_assert_eval ("(let ((c (list nil))) (setcar c c) c)", "(#0)");
  dlt_assert_eval ("(symbol-function 'car)", "#<subr car>");
  dlt_assert_eval ("(symbol-function 'if)", "#<special-form if>");
  dlt_assert_eval ("(defun rt-named (x) x) (symbol-function 'rt-named)", "#<closure rt-named>");
  dlt_assert_eval ("(prin1-to-string \"a\\nb\" t)", "\"a\\nb\"");
  dlt_assert_eval ("(format \"%s|%S|%5d|%-4s|%.2f|%x|%c|%%\" \"s\" \"s\" 42 \"ab\" 2.375 255 ?z)",
                   "\"s|\\\"s\\\"|   42|ab  |2.38|ff|z|%\"");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_text_round_trips),
    cmocka_unit_test (test_objects_read_back),
    cmocka_unit_test (test_characters_and_escapes),
    cmocka_unit_test (test_syntax_errors),
    cmocka_unit_test (test_printer_cycles_and_unreadables),
  };
  return cmocka_run_group_tests (tests, dlt_setup, NULL);
}
