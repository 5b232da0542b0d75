/* SPDX-License-Identifier: MIT */
/* tests/migrate/test_rules.c: dump-condition evaluation and the
   rewrite rules of dumper-migrate, on small in-memory sources.  */

#include "mtest.h"

#include <stdlib.h>

/* Evaluate the condition of the first `if' in "void f (void) { if
   (COND) g (); }".  */
static struct migrate_cond
eval (const char *cond)
{
  char *src = migrate_xasprintf ("extern int a, b, initialized;\n"
                                 "void f (void) { if (%s) g (); }\n", cond);
  struct migrate_file *f = mt_file (src);
  free (src);
  int open = mt_tok (f, "(", mt_tok (f, "if", 0));
  struct migrate_cond c = migrate_cond_eval (f, open + 1, f->toks[open].match,
                                             migrate_rule_atom, NULL);
  migrate_file_free (f);
  return c;
}

static void
test_eval (void **state)
{
  (void) state;
  struct { const char *cond; enum migrate_tri value; bool complex; } cases[] = {
    { "initialized", MIGRATE_TRUE, false },
    { "!initialized", MIGRATE_FALSE, false },
    { "! initialized", MIGRATE_FALSE, false },
    { "a || initialized", MIGRATE_TRUE, false },
    { "a && initialized", MIGRATE_UNKNOWN, false },
    { "a && !initialized", MIGRATE_FALSE, false },
    { "!(a && !initialized)", MIGRATE_TRUE, false },
    { "(a || initialized) && b", MIGRATE_UNKNOWN, false },
    { "(initialized)", MIGRATE_TRUE, false },
    { "initialized == 1", MIGRATE_UNKNOWN, true },
    { "g (initialized)", MIGRATE_UNKNOWN, true },
    { "will_dump", MIGRATE_FALSE, false },
    { "!dumped_with_unexec", MIGRATE_TRUE, false },
    { "a", MIGRATE_UNKNOWN, false },
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      struct migrate_cond c = eval (cases[k].cond);
      if (c.none_value != cases[k].value || c.complex != cases[k].complex)
        fail_msg ("%s: value %d complex %d", cases[k].cond, c.none_value, c.complex);
    }
  struct migrate_cond p = eval ("!NILP (Vpurify_flag)");
  assert_true (p.purify);
  assert_int_equal (p.none_value, MIGRATE_FALSE);
  assert_int_equal (eval ("a").natoms, 0);
  assert_true (eval ("initialized").legacy);
  assert_false (eval ("will_dump").legacy);
}

/* Analyse SRC, expect exactly one site: PATTERN on LINE with CONF, and
   when FIXED is not NULL the fixed text ("" for unchanged).  PATTERN
   "none" expects no site at all.  */
static void
expect_one (const char *src, const char *pattern, unsigned line,
            enum migrate_conf conf, const char *fixed)
{
  struct migrate_project proj;
  mt_analyse (&proj, src);
  bool none = strcmp (pattern, "none") == 0;
  if (proj.nsites != (none ? 0u : 1u))
    {
      for (size_t s = 0; s < proj.nsites; s++)
        print_message ("site %u %s: %s\n", proj.sites[s].line,
                       proj.sites[s].pattern, proj.sites[s].what);
      fail_msg ("%zu sites in:\n%s", proj.nsites, src);
    }
  if (!none && (strcmp (proj.sites[0].pattern, pattern) != 0
                || proj.sites[0].line != line || proj.sites[0].conf != conf))
    fail_msg ("got %s line %u conf %d in:\n%s", proj.sites[0].pattern,
              proj.sites[0].line, proj.sites[0].conf, src);
  char *text = mt_fixed (&proj);
  if (fixed && strcmp (text, fixed) != 0)
    fail_msg ("fixed text\n%s\nwanted\n%s", text, fixed);
  free (text);
  migrate_project_free (&proj);
}

#define HEAD "#include <dumper/gflags.h>\nextern int a, x (void);\nvoid f (void)\n{\n"

/* Sources with exactly one site (or none: pattern "none"), its line,
   its confidence and the fixed text ("" when unchanged).  */
static const struct one_case
{
  const char *src, *pattern;
  unsigned line;
  enum migrate_conf conf;
  const char *fixed;
} one_cases[] = {
  /* cannot-dump-guard, head: C' must be true in a none build.  */
  { HEAD "#ifndef CANNOT_DUMP\n  if (a || initialized)\n#endif\n    x ();\n}\n",
    "cannot-dump-guard", 5, MIGRATE_CERTAIN,
    HEAD "  if (a || !will_dump)\n    x ();\n}\n" },
  /* `a && !will_dump' is `a' there, but the legacy code ran x ().  */
  { HEAD "#ifndef CANNOT_DUMP\n  if (a && initialized)\n#endif\n    x ();\n}\n",
    "cannot-dump-guard", 5, MIGRATE_REVIEW, "" },
  { HEAD "#if !defined CANNOT_DUMP\n  if (initialized == 1)\n#endif\n    x ();\n}\n",
    "cannot-dump-guard", 5, MIGRATE_REVIEW, "" },
  { HEAD "#ifndef CANNOT_DUMP\n  if (a)\n#endif\n    x ();\n}\n",
    "cannot-dump-guard", 5, MIGRATE_REVIEW, "" },
  /* Unexec-only machinery under `initialized' (in a dumped unexec
     executable) is never certain: `!will_dump' is true after a pdump
     load too (issue 18, class 2).  */
  { HEAD "#ifndef CANNOT_DUMP\n  if (initialized)\n#endif\n    unexec_init ();\n}\n",
    "cannot-dump-guard", 5, MIGRATE_REVIEW, "" },
  /* ... under `!initialized' (about to dump) it narrows the flag.  */
  { HEAD "#ifndef CANNOT_DUMP\n  if (!initialized)\n    unexec_init ();\n#endif\n}\n",
    "cannot-dump-guard", 5, MIGRATE_CERTAIN,
    HEAD "  if (will_dump_with_unexec)\n    unexec_init ();\n}\n" },
  /* Statement: C' must be false in a none build.  */
  { HEAD "#ifndef CANNOT_DUMP\n  if (!initialized)\n    return;\n#endif\n}\n",
    "cannot-dump-guard", 5, MIGRATE_CERTAIN, HEAD "  if (will_dump)\n    return;\n}\n" },
  { HEAD "#ifndef CANNOT_DUMP\n  if (initialized)\n    x ();\n#endif\n}\n",
    "cannot-dump-guard", 5, MIGRATE_REVIEW, "" },
  { HEAD "#ifndef CANNOT_DUMP\n  if (!initialized)\n    x ();\n  else\n    a = 1;\n#endif\n}\n",
    "cannot-dump-guard", 5, MIGRATE_REVIEW, "" },
  /* Fragments: `X &&' needs X' true, `|| X' needs X' false.  */
  { HEAD "  if (\n#ifndef CANNOT_DUMP\n      initialized &&\n#endif\n      a)\n    x ();\n}\n",
    "cannot-dump-guard", 6, MIGRATE_CERTAIN,
    HEAD "  if (\n      !will_dump &&\n      a)\n    x ();\n}\n" },
  { HEAD "  if (a\n#ifndef CANNOT_DUMP\n      || initialized\n#endif\n      )\n    x ();\n}\n",
    "cannot-dump-guard", 6, MIGRATE_REVIEW, "" },
  /* Expression with #else (0).  */
  { HEAD "  int y =\n#ifndef CANNOT_DUMP\n    (!initialized)\n#else\n    (0)\n#endif\n    ;\n  (void) y;\n}\n",
    "cannot-dump-guard", 6, MIGRATE_CERTAIN,
    HEAD "  int y =\n    (will_dump)\n    ;\n  (void) y;\n}\n" },
  { "#ifndef CANNOT_DUMP\nint dump_only;\n#endif\n", "cannot-dump-guard", 1,
    MIGRATE_REVIEW, "" },
  { "#ifndef CANNOT_DUMP\nint p;\n#elif X\nint q;\n#endif\n", "cannot-dump-guard", 1,
    MIGRATE_REVIEW, "" },
  { "#ifdef CANNOT_DUMP\nint p;\n#endif\n", "cannot-dump-only", 1, MIGRATE_REVIEW, "" },
  { "int p;\n#ifdef CANNOT_DUMP\n#endif\n", "cannot-dump-only", 2, MIGRATE_CERTAIN,
    "int p;\n" },
  { "#if defined CANNOT_DUMP || defined X\nint p;\n#endif\n", "cannot-dump-other", 1,
    MIGRATE_REVIEW, "" },
  /* Nothing in a dead branch.  */
  { "#if 0\n#ifndef CANNOT_DUMP\nint p;\n#endif\n#endif\n#define CANNOT_DUMP\n",
    "cannot-dump-other", 6, MIGRATE_REVIEW, "" },

  /* initialized-set; dumper_mark_initialized needs dumper.h.  */
  { "#include <dumper/dumper.h>\nvoid f (void) { initialized = true; }\n",
    "initialized-set", 2, MIGRATE_CERTAIN,
    "#include <dumper/dumper.h>\nvoid f (void) { dumper_mark_initialized (); }\n" },
  { "#include <dumper/gflags.h>\nvoid f (void) { initialized = 1; }\n",
    "initialized-set", 2, MIGRATE_CERTAIN,
    "#include <dumper/gflags.h>\n#include <dumper/dumper.h>\n"
    "void f (void) { dumper_mark_initialized (); }\n" },
  { "#include <dumper/gflags.h>\nvoid f (void) { initialized = 0; }\n",
    "initialized-set", 2, MIGRATE_REVIEW, "" },
  { "#include <dumper/gflags.h>\nvoid f (void) { initialized++; }\n",
    "initialized-set", 2, MIGRATE_REVIEW, "" },
  { "#include <dumper/gflags.h>\nint f (void) { return initialized; }\n",
    "none", 0, MIGRATE_REVIEW, NULL },
  /* Collisions with the short names.  */
  { "#include <dumper/gflags.h>\nstruct s { int initialized; };\n",
    "name-collision", 2, MIGRATE_REVIEW, "" },
  { "struct t { enum { A, B } initialized; };\n", "name-collision", 1,
    MIGRATE_REVIEW, "" },
  { "int f (struct s *p) { return p->initialized; }\n", "name-collision", 1,
    MIGRATE_REVIEW, "" },
  { "int f (void) { int initialized = 0; return initialized; }\n",
    "name-collision", 1, MIGRATE_REVIEW, "" },

  /* Declarations, with the comment above and a straddled group.  */
  { "#include <stdbool.h>\n\n/* The flag.  */\nbool initialized;\n\nint x;\n",
    "initialized-decl", 4, MIGRATE_CERTAIN, "#include <stdbool.h>\n\nint x;\n" },
  { "#include <stdbool.h>\n#ifndef X\nstatic\n#endif\nbool might_dump;\nint y;\n",
    "might-dump-decl", 5, MIGRATE_CERTAIN, "#include <stdbool.h>\nint y;\n" },
  /* The group around the storage class holds other code: review.  */
  { "#include <stdbool.h>\n#ifndef X\nint other;\nstatic\n#endif\nbool might_dump;\n",
    "might-dump-decl", 6, MIGRATE_REVIEW, "" },
  { "#include <stdbool.h>\nbool a, initialized;\n", "initialized-decl", 2,
    MIGRATE_REVIEW, "" },
  { "#include <dumper/gflags.h>\nint f (int a) { return g (a, initialized); }\n",
    "none", 0, MIGRATE_REVIEW, "" },

  /* might_dump.  */
  { "#include <dumper/gflags.h>\nint f (void) { return might_dump; }\n",
    "might-dump-use", 2, MIGRATE_CERTAIN,
    "#include <dumper/gflags.h>\nint f (void) { return will_dump; }\n" },
  { "#include <dumper/gflags.h>\nvoid f (void) {\n  might_dump = 1;\n}\n",
    "might-dump-set", 3, MIGRATE_CERTAIN, "#include <dumper/gflags.h>\nvoid f (void) {\n}\n" },

  /* Include placement: in a header with a guard and no includes,
     after #define ...  */
  { "#ifndef T_H\n#define T_H\nstatic inline int f (void) { return might_dump; }\n#endif\n",
    "might-dump-use", 3, MIGRATE_CERTAIN,
    "#ifndef T_H\n#define T_H\n#include <dumper/gflags.h>\n"
    "static inline int f (void) { return will_dump; }\n#endif\n" },
  /* ... after the last top-level #include before the first function
     body, never inside a conditional ...  */
  { "#include <a.h>\n#ifdef X\n#include <b.h>\n#endif\n#include <c.h>\n"
    "int f (void) { return might_dump; }\n#include <d.h>\n",
    "might-dump-use", 6, MIGRATE_CERTAIN,
    "#include <a.h>\n#ifdef X\n#include <b.h>\n#endif\n#include <c.h>\n"
    "#include <dumper/gflags.h>\nint f (void) { return will_dump; }\n#include <d.h>\n" },
  /* ... else before the first token; a last line gets its newline.  */
  { "/* c */\nint f (void) { return might_dump; }", "might-dump-use", 2,
    MIGRATE_CERTAIN, "/* c */\n#include <dumper/gflags.h>\nint f (void) { return will_dump; }" },

  /* purify-flag: NILP of anything else is no site.  */
  { "int f (void) { if (!NILP (Vpurify_flag)) return 1; return NILP (x); }\n",
    "purify-flag", 1, MIGRATE_REVIEW, "" },
};

static void
test_single_site_cases (void **state)
{
  (void) state;
  for (size_t k = 0; k < sizeof one_cases / sizeof one_cases[0]; k++)
    {
      expect_one (one_cases[k].src, one_cases[k].pattern, one_cases[k].line,
                  one_cases[k].conf, one_cases[k].fixed);
    }
}

static void
test_initialized_read_needs_gflags (void **state)
{
  (void) state;
  /* A read is reported while gflags.h is not seen; with nothing else
     declaring `initialized' the fix includes gflags.h, unless a header
     the tool could not find may declare it.  */
  struct migrate_project proj;
  mt_analyse (&proj, "#include \"lisp.h\"\nint f (void) { return initialized; }\n");
  assert_int_equal (proj.nsites, 1);
  assert_string_equal (proj.sites[0].pattern, "initialized-test");
  assert_int_equal (mt_nedits (&proj), 0);
  migrate_project_free (&proj);
  mt_analyse (&proj, "extern int g (void);\nint f (void) { return g () && initialized; }\n");
  assert_int_equal (proj.nsites, 2);
  assert_int_equal (proj.sites[mt_site (&proj, "initialized-test", 2)].conf,
                    MIGRATE_REVIEW);
  assert_int_equal (proj.sites[mt_site (&proj, "gflags-include", 2)].conf,
                    MIGRATE_CERTAIN);
  migrate_project_free (&proj);
}

static void
test_might_dump_and_dumping (void **state)
{
  (void) state;
  /* With dumper_startup in the function, the argv local goes.  */
  struct migrate_project proj;
  mt_analyse (&proj,
              "#include <dumper/dumper.h>\n"
              "int main (int argc, char **argv)\n{\n"
              "  bool dumping;\n"
              "  dumper_startup (&argc, &argv);\n"
              "  dumping = argc > 1 && argv[1][0] == 'd';\n"
              "  return dumping;\n}\n");
  assert_int_equal (proj.nsites, 2);
  int local = mt_site (&proj, "dumping-local", 4);
  assert_true (local >= 0);
  assert_int_equal (proj.sites[local].conf, MIGRATE_CERTAIN);
  assert_true (mt_site (&proj, "dumping-use", 7) >= 0);
  char *text = mt_fixed (&proj);
  assert_string_equal (text, "#include <dumper/dumper.h>\n"
                       "int main (int argc, char **argv)\n{\n"
                       "  dumper_startup (&argc, &argv);\n"
                       "  return will_dump;\n}\n");
  free (text);
  migrate_project_free (&proj);

  /* Without it, the local is a review item; its reads still become
     will_dump.  A `dumping' not computed from argv is no site.  */
  mt_analyse (&proj,
              "#include <dumper/gflags.h>\n"
              "int main (int argc, char **argv)\n{\n"
              "  bool dumping = argc > 1 && argv[1][0] == 'd';\n"
              "  return dumping;\n}\n"
              "int g (int dumping) { return dumping; }\n"
              "int h (void) { bool dumping = 0; return dumping; }\n");
  assert_int_equal (proj.nsites, 3);
  assert_int_equal (proj.sites[mt_site (&proj, "dumping-local", 4)].conf,
                    MIGRATE_REVIEW);
  assert_true (mt_site (&proj, "dumping-use", 5) >= 0);
  assert_true (mt_site (&proj, "flag-parameter", 7) >= 0);
  migrate_project_free (&proj);
}

static void
test_flag_parameters (void **state)
{
  (void) state;
  struct migrate_project proj;
  mt_analyse (&proj,
              "#include <dumper/gflags.h>\n"
              "void init_buffer (int initialized);\n"
              "void init_buffer (int initialized)\n{\n"
              "  if (initialized) x ();\n"
              "#ifndef Y\n  (void) initialized;\n#endif\n}\n"
              "void init (void) { init_buffer (initialized); }\n");
  /* The declarations and the call are certain; the read of the
     dropped parameter is a review site, never a silent re-binding to
     the gflags flag (issue 18, class 2).  */
  assert_int_equal (proj.nsites, 4);
  for (size_t s = 0; s < proj.nsites; s++)
    assert_int_equal (proj.sites[s].conf, proj.sites[s].line == 5
                      ? MIGRATE_REVIEW : MIGRATE_CERTAIN);
  assert_true (strstr (proj.sites[mt_site (&proj, "flag-parameter", 5)].suggestion,
                       "dumped_with_unexec") != NULL);
  char *text = mt_fixed (&proj);
  /* The `#ifndef Y' that held only the (void) cast goes too (class 8).  */
  assert_string_equal (text,
                       "#include <dumper/gflags.h>\n"
                       "void init_buffer (void);\n"
                       "void init_buffer (void)\n{\n"
                       "  if (initialized) x ();\n"
                       "}\n"
                       "void init (void) { init_buffer (); }\n");
  free (text);
  migrate_project_free (&proj);

  const char *review[] = {
    /* A caller passes something else.  */
    "void f (bool dumping) { }\nvoid g (void) { f (false); }\n",
    /* Two parameters.  */
    "void f (int a, int initialized) { }\nvoid g (void) { f (1, initialized); }\n",
    /* Its address is taken.  */
    "void f (int initialized) { }\nvoid (*p) (int) = f;\n",
    /* The body assigns it.  */
    "void f (int initialized) { initialized = 0; }\nvoid g (void) { f (initialized); }\n",
    /* No caller among the files.  */
    "void f (int initialized) { }\n",
  };
  for (size_t k = 0; k < sizeof review / sizeof review[0]; k++)
    {
      char *src = migrate_xasprintf ("#include <dumper/gflags.h>\n%s", review[k]);
      mt_analyse (&proj, src);
      free (src);
      int site = mt_site (&proj, "flag-parameter", 2);
      if (site < 0 || proj.sites[site].conf != MIGRATE_REVIEW)
        fail_msg ("case %zu: no review flag-parameter site", k);
      assert_int_equal (mt_nedits (&proj), 0);
      migrate_project_free (&proj);
    }
}

static void
test_keep_comment (void **state)
{
  (void) state;
  /* A keep comment on the line above suppresses it.  */
  struct migrate_project proj;
  mt_analyse (&proj, "int f (void) {\n  /* dumper-migrate: keep */\n"
              "  return NILP (Vpurify_flag);\n}\n");
  assert_int_equal (proj.nsites, 0);
  migrate_project_free (&proj);
}

static void
test_selection_and_short_names (void **state)
{
  (void) state;
  const char *src =
    "#define DUMPER_GFLAGS_NO_SHORT_NAMES\n#include <dumper/gflags.h>\n"
    "struct t { int initialized; };\n"
    "int f (void) { if (!NILP (Vpurify_flag)) clear_dump_caches ();"
    " return might_dump + !NILP (Vpurify_flag); }\n";
  struct migrate_project proj;
  mt_analyse (&proj, src);
  /* No collision: the short names are off; the rewrite is prefixed.
     The purify-flag test over dump work is a site; its use as a value
     is not (issue 18, class 6).  */
  assert_int_equal (proj.nsites, 2);
  char *text = mt_fixed (&proj);
  assert_non_null (strstr (text, "return dumper_will_dump + "));
  assert_non_null (strstr (text, "if (!NILP (Vpurify_flag)) clear"));
  free (text);
  migrate_project_free (&proj);

  const char *only[] = { "purify-flag", NULL };
  mt_analyse_only (&proj, src, only);
  assert_int_equal (proj.nsites, 1);
  assert_string_equal (proj.sites[0].pattern, "purify-flag");
  assert_int_equal (mt_nedits (&proj), 0);
  migrate_project_free (&proj);
}

static void
test_fix_is_idempotent (void **state)
{
  (void) state;
  const char *src =
    "#include <stdio.h>\n\nbool initialized;\n\n"
    "int main (void)\n{\n"
    "#ifndef CANNOT_DUMP\n  if (initialized)\n#endif\n    puts (\"hi\");\n"
    "  initialized = 1;\n  return 0;\n}\n";
  struct migrate_project proj;
  mt_analyse (&proj, src);
  assert_int_equal (migrate_count_sites (&proj, MIGRATE_CERTAIN), 3);
  char *once = mt_fixed (&proj);
  assert_string_equal (once,
                       "#include <stdio.h>\n#include <dumper/dumper.h>\n\n"
                       "int main (void)\n{\n"
                       "  if (!will_dump)\n    puts (\"hi\");\n"
                       "  dumper_mark_initialized ();\n  return 0;\n}\n");
  migrate_project_free (&proj);
  mt_analyse (&proj, once);
  assert_int_equal (proj.nsites, 0);
  assert_int_equal (mt_nedits (&proj), 0);
  migrate_project_free (&proj);
  free (once);
}

static void
test_overlapping_edits_are_dropped (void **state)
{
  (void) state;
  struct migrate_project proj;
  mt_analyse (&proj, "int x;\n");
  int a = migrate_site_add (&proj, 0, 0, MIGRATE_P_GUARD, MIGRATE_CERTAIN,
                            tool_xstrdup ("a"), tool_xstrdup ("fix a"));
  int b = migrate_site_add (&proj, 0, 1, MIGRATE_P_GUARD, MIGRATE_CERTAIN,
                            tool_xstrdup ("b"), tool_xstrdup ("fix b"));
  migrate_edit_add (&proj, 0, 0, 5, "long", a);
  migrate_edit_add (&proj, 0, 4, 5, "y", b);
  migrate_edit_add (&proj, 0, 6, 6, "/**/", b);
  migrate_edits_normalize (&proj);
  assert_int_equal (proj.nedits, 1);
  assert_int_equal (proj.sites[b].conf, MIGRATE_REVIEW);
  assert_non_null (strstr (proj.sites[b].suggestion, "overlaps"));
  char *text = mt_fixed (&proj);
  assert_string_equal (text, "long;\n");
  free (text);
  migrate_project_free (&proj);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_eval),
    cmocka_unit_test (test_single_site_cases),
    cmocka_unit_test (test_initialized_read_needs_gflags),
    cmocka_unit_test (test_might_dump_and_dumping),
    cmocka_unit_test (test_flag_parameters),
    cmocka_unit_test (test_keep_comment),
    cmocka_unit_test (test_selection_and_short_names),
    cmocka_unit_test (test_fix_is_idempotent),
    cmocka_unit_test (test_overlapping_edits_are_dropped),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
