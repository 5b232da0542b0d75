/* SPDX-License-Identifier: MIT */
/* tests/migrate/test_lex.c: the lexer, the conditional tree and the
   scope pass of dumper-migrate.  */

#include "mtest.h"

#include <stdlib.h>

static void
test_comments_and_literals_are_not_code (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("/* initialized */ int a = 1; // initialized\n"
     "char *s = \"initialized \\\" initialized\";\n"
     "char c = '\\'';\n"
     "char *u = u8\"initialized\";\n"
     "long n = 0x8000'0000ull;\n");
  for (int i = 0; i < f->ntoks; i++)
    assert_false (migrate_tok_is (f, i, "initialized"));
  assert_int_equal (f->ncomments, 2);
  int s = mt_tok (f, "s", 0);
  assert_int_equal (f->toks[s + 2].kind, MIGRATE_T_STRING);
  int c = mt_tok (f, "c", 0);
  assert_int_equal (f->toks[c + 2].kind, MIGRATE_T_CHAR);
  assert_int_equal (f->toks[c + 2].end - f->toks[c + 2].start, 4);
  int u = mt_tok (f, "u", 0);
  assert_int_equal (f->toks[u + 2].kind, MIGRATE_T_STRING);
  /* A C23 digit separator is part of the number, not a character
     constant.  */
  int n = mt_tok (f, "n", 0);
  assert_int_equal (f->toks[n + 2].kind, MIGRATE_T_NUMBER);
  assert_true (migrate_tok_is (f, n + 2, "0x8000'0000ull"));
  assert_null (f->warnings);
  migrate_file_free (f);
}

static void
test_line_continuations (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("int initi\\\nalized;\n"
     "// comment \\\n  if (initialized) x;\n"
     "#if !defined \\\n   CANNOT_DUMP\nint y;\n#endif\n");
  int t = mt_tok (f, "initialized", 0);
  assert_int_equal (t, 1);
  assert_true (f->toks[t].flags & MIGRATE_TF_SPLICED);
  char *text = migrate_tok_text (f, t);
  assert_string_equal (text, "initialized");
  free (text);
  /* The `if' after the continued // comment is comment: the only `if'
     left is the name of the #if directive.  */
  int if_tok = mt_tok (f, "if", 0);
  assert_true (if_tok > 0);
  assert_false (migrate_is_code (f, if_tok));
  assert_int_equal (mt_tok (f, "if", if_tok + 1), -1);
  assert_int_equal (f->ndirs, 2);
  assert_int_equal (f->dirs[0].kind, MIGRATE_D_IF);
  assert_int_equal (migrate_directive_guard (f, 0), MIGRATE_G_NOT_CANNOT);
  /* The directive's bytes run over both physical lines.  */
  assert_int_equal (f->text[f->dirs[0].line_end - 1], '\n');
  assert_true (strncmp (f->text + f->dirs[0].line_end, "int y;", 6) == 0);
  migrate_file_free (f);
}

static void
test_positions (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file ("int a;\n\tint bb;\n/* x\n y */ int c;");
  int bb = mt_tok (f, "bb", 0), c = mt_tok (f, "c", 0);
  assert_int_equal (f->toks[bb].line, 2);
  assert_int_equal (f->toks[bb].col, 6);
  assert_int_equal (f->toks[c].line, 4);
  assert_int_equal (f->toks[c].col, 11);
  assert_int_equal (f->nlines, 4);
  migrate_file_free (f);
}

static void
test_punctuators (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file ("a != b == c && d || e -> f <<= g ... h");
  const char *want[] = { "a", "!=", "b", "==", "c", "&&", "d", "||", "e",
                         "->", "f", "<<=", "g", "...", "h" };
  assert_int_equal (f->ntoks, 15);
  for (int i = 0; i < 15; i++)
    assert_true (migrate_tok_is (f, i, want[i]));
  migrate_file_free (f);
}

static void
test_directives (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("#include <dumper/gflags.h>\n"
     "  # ifndef CANNOT_DUMP\n"
     "/* c */ #define X 1\n"
     "#endif /* CANNOT_DUMP */\n"
     "x = a # b;\n");
  assert_int_equal (f->ndirs, 4);
  assert_int_equal (f->dirs[0].kind, MIGRATE_D_INCLUDE);
  assert_int_equal (f->toks[f->dirs[0].first].kind, MIGRATE_T_HEADER);
  assert_int_equal (f->dirs[1].kind, MIGRATE_D_IFNDEF);
  assert_int_equal (migrate_directive_guard (f, 1), MIGRATE_G_NOT_CANNOT);
  assert_int_equal (f->dirs[2].kind, MIGRATE_D_DEFINE);
  assert_int_equal (f->dirs[3].kind, MIGRATE_D_ENDIF);
  /* A `#' that does not start a line is a token of code.  */
  int hash = mt_tok (f, "#", f->dirs[3].end);
  assert_true (hash > 0);
  assert_int_equal (f->toks[hash].directive, -1);
  migrate_file_free (f);
}

static void
test_guard_classification (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("#ifndef CANNOT_DUMP\n#endif\n"
     "#if !defined(CANNOT_DUMP)\n#endif\n"
     "#ifdef CANNOT_DUMP\n#endif\n"
     "#if defined CANNOT_DUMP\n#endif\n"
     "#if !defined CANNOT_DUMP && defined X\n#endif\n"
     "#ifndef CANNOT_DUMPING\n#endif\n"
     "#undef CANNOT_DUMP\n");
  enum migrate_guard want[] = {
    MIGRATE_G_NOT_CANNOT, MIGRATE_G_OTHER, MIGRATE_G_NOT_CANNOT, MIGRATE_G_OTHER,
    MIGRATE_G_CANNOT, MIGRATE_G_OTHER, MIGRATE_G_CANNOT, MIGRATE_G_OTHER,
    MIGRATE_G_MENTIONS, MIGRATE_G_OTHER, MIGRATE_G_OTHER, MIGRATE_G_OTHER,
    MIGRATE_G_MENTIONS
  };
  assert_int_equal (f->ndirs, 13);
  for (int d = 0; d < 13; d++)
    assert_int_equal (migrate_directive_guard (f, d), want[d]);
  migrate_file_free (f);
}

static void
test_dead_branches (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("#if 0\n a;\n#ifdef X\n b;\n#endif\n#elif 1\n c;\n#else\n d;\n#endif\n"
     "#if (1)\n e;\n#else\n f;\n#endif\n"
     "#ifdef Y\n g;\n#else\n h;\n#endif\n");
  const char *dead[] = { "a", "b", "d", "f", NULL };
  const char *live[] = { "c", "e", "g", "h", NULL };
  for (int k = 0; dead[k]; k++)
    assert_true (migrate_tok_dead (f, mt_tok (f, dead[k], 0)));
  for (int k = 0; live[k]; k++)
    assert_false (migrate_tok_dead (f, mt_tok (f, live[k], 0)));
  assert_null (f->warnings);
  migrate_file_free (f);
}

static void
test_unbalanced_conditionals_warn (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file ("#endif\n#else\n#if X\nint a;\n");
  assert_non_null (f->warnings);
  assert_non_null (strstr (f->warnings, "t.c:1: warning: #endif without #if"));
  assert_non_null (strstr (f->warnings, "t.c:2: warning: #else without #if"));
  assert_non_null (strstr (f->warnings, "t.c:3: warning: #if without #endif"));
  migrate_file_free (f);
}

static void
test_unterminated_literals_warn (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file ("char *s = \"abc\nint x; /* open");
  assert_non_null (strstr (f->warnings, "unterminated string literal"));
  assert_non_null (strstr (f->warnings, "unterminated comment"));
  /* The string stops at the end of its line.  */
  assert_true (mt_tok (f, "x", 0) > 0);
  migrate_file_free (f);
}

static void
test_brackets_across_branches (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("void f (int a)\n{\n#ifdef X\n  if (a) {\n#else\n  if (!a) {\n#endif\n"
     "    g ();\n  }\n}\n");
  int first = mt_tok (f, "{", mt_tok (f, "if", 0));
  int close = f->toks[first].match;
  assert_true (close > first);
  assert_true (migrate_tok_is (f, close, "}"));
  /* The function body's brace still matches the last `}'.  */
  int body = mt_tok (f, "{", 0);
  assert_int_equal (f->toks[body].match, f->ntoks - 1);
  assert_int_equal (f->toks[body].brace, MIGRATE_B_FUNC);
  migrate_file_free (f);
}

static void
test_functions_and_params (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("struct s { int initialized; };\n"
     "extern void init_buffer (int initialized);\n"
     "static int x = 1;\n"
     "void init_buffer (int initialized) { if (initialized) g (); }\n"
     "void h (void) { bool dumping; int y = dumping; }\n"
     "void k (int a, char **argv, void (*fn) (int initialized));\n");
  assert_int_equal (f->nfuncs, 4);
  assert_int_equal (f->funcs[0].body, -1);
  assert_int_equal (migrate_param_count (f, 0), 1);
  assert_true (migrate_param_find (f, 0, "initialized") >= 0);
  assert_true (f->funcs[1].body >= 0);
  assert_int_equal (migrate_param_count (f, 2), 0);
  assert_int_equal (migrate_param_count (f, 3), 3);
  assert_int_equal (migrate_param_find (f, 3, "initialized"), -1);
  assert_true (migrate_param_find (f, 3, "argv") >= 0);
  /* Member, parameter read, local declaration.  */
  int member = mt_tok (f, "initialized", 0);
  assert_true (migrate_is_declarator (f, member));
  assert_int_equal (f->toks[f->toks[member].open].brace, MIGRATE_B_AGGR);
  int read = mt_tok (f, "initialized", f->funcs[1].body);
  assert_false (migrate_is_declarator (f, read));
  assert_true (migrate_shadowed (f, read, "initialized"));
  int decl = mt_tok (f, "dumping", 0);
  assert_true (migrate_is_declarator (f, decl));
  int use = mt_tok (f, "dumping", decl + 1);
  assert_false (migrate_is_declarator (f, use));
  assert_true (migrate_shadowed (f, use, "dumping"));
  migrate_file_free (f);
}

static void
test_statements (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("void f (void) { if (a (dumping)) { b (); } else c (); d = dumping + 1; }\n");
  int first, last;
  /* A use in an if condition: the whole if/else statement.  */
  migrate_statement_of (f, mt_tok (f, "dumping", 0), &first, &last);
  assert_true (migrate_tok_is (f, first, "if"));
  assert_true (migrate_tok_is (f, last, ";"));
  int call = migrate_prev (f, migrate_prev (f, migrate_prev (f, last)));
  assert_true (migrate_tok_is (f, call, "c"));
  assert_int_equal (migrate_skip_statement (f, first, f->ntoks), last);
  /* A use in an expression statement: that statement.  */
  int second = mt_tok (f, "dumping", mt_tok (f, "d", 0));
  migrate_statement_of (f, second, &first, &last);
  assert_true (migrate_tok_is (f, first, "d"));
  assert_true (migrate_tok_is (f, migrate_prev (f, last), "1"));
  /* A statement that does not end before the limit.  */
  assert_int_equal (migrate_skip_statement (f, first, last), -1);
  migrate_file_free (f);
}

static void
test_unexec_signals (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("x = a_unexec_thing; y = dump_tz_string; z = dump_tz_strings; w = UNEXEC;");
  int semi1 = mt_tok (f, ";", 0);
  int which = -1;
  assert_true (migrate_unexec_signal (NULL, f, 0, semi1, false, &which, NULL));
  assert_true (migrate_tok_is (f, which, "a_unexec_thing"));
  int y = mt_tok (f, "y", 0), semi2 = mt_tok (f, ";", y);
  assert_true (migrate_unexec_signal (NULL, f, y, semi2, false, NULL, NULL));
  int z = mt_tok (f, "z", 0), semi3 = mt_tok (f, ";", z);
  assert_false (migrate_unexec_signal (NULL, f, z, semi3, false, NULL, NULL));
  int w = mt_tok (f, "w", 0);
  assert_true (migrate_unexec_signal (NULL, f, w, f->ntoks - 1, false, NULL, NULL));
  migrate_file_free (f);
}

static void
test_knr_definition (void **state)
{
  (void) state;
  struct migrate_file *f = mt_file
    ("extern int g (int);\n"
     "static int\nget_boot_time_1 (filename, newest)\n"
     "     char *filename;\n     int newest;\n{\n  return newest;\n}\n");
  assert_int_equal (f->nfuncs, 2);
  assert_true (migrate_tok_is (f, f->funcs[1].name, "get_boot_time_1"));
  assert_true (f->funcs[1].body > 0);
  int use = mt_tok (f, "newest", f->funcs[1].body);
  assert_int_equal (f->toks[use].func, 1);
  migrate_file_free (f);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_comments_and_literals_are_not_code),
    cmocka_unit_test (test_line_continuations),
    cmocka_unit_test (test_positions),
    cmocka_unit_test (test_punctuators),
    cmocka_unit_test (test_directives),
    cmocka_unit_test (test_guard_classification),
    cmocka_unit_test (test_dead_branches),
    cmocka_unit_test (test_unbalanced_conditionals_warn),
    cmocka_unit_test (test_unterminated_literals_warn),
    cmocka_unit_test (test_brackets_across_branches),
    cmocka_unit_test (test_functions_and_params),
    cmocka_unit_test (test_knr_definition),
    cmocka_unit_test (test_statements),
    cmocka_unit_test (test_unexec_signals),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
