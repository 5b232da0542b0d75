/* SPDX-License-Identifier: MIT */
/* tests/unit/test_args.c: the bridge's command-line parsing
   (bridge/args.c): every accepted form, `--', missing values, unknown
   modes, contradictions, and that a usage error leaves argv intact.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bridge/bridge.h"

#define MAX_ARGS 16

/* A mutable argv built from string literals.  */
struct argv_buf
{
  int argc;
  char *argv[MAX_ARGS + 1];
  char storage[MAX_ARGS][64];
};

static void
make_argv (struct argv_buf *b, const char *const *args)
{
  memset (b, 0, sizeof *b);
  for (int i = 0; args[i]; i++)
    {
      assert_true (i < MAX_ARGS);
      strncpy (b->storage[i], args[i], sizeof b->storage[i] - 1);
      b->argv[i] = b->storage[i];
      b->argc = i + 1;
    }
  b->argv[b->argc] = NULL;
}

static enum dumper_status
parse (struct argv_buf *b, struct bridge_args *out)
{
  char **argv = b->argv;
  enum dumper_status st = bridge_parse_args (&b->argc, &argv, out);
  assert_ptr_equal (argv, b->argv);
  return st;
}

static void
assert_argv (const struct argv_buf *b, const char *const *expected)
{
  int n = 0;
  while (expected[n])
    n++;
  assert_int_equal (b->argc, n);
  for (int i = 0; i < n; i++)
    assert_string_equal (b->argv[i], expected[i]);
  assert_null (b->argv[n]);
}

static void
test_no_bridge_options (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", "-l", "x.lisp", "--eval", "(+ 1 2)", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_int_equal (a.dump, BRIDGE_DUMP_NONE);
  assert_null (a.dump_file);
  assert_false (a.no_dump_file);
  assert_argv (&b, in);
}

static void
test_temacs_pdump (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", "--loadup-scale", "4", "--temacs=pdump",
                             "--output", "o.pdmp", NULL };
  const char *const out[] = { "prog", "--loadup-scale", "4", "--output",
                              "o.pdmp", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_int_equal (a.dump, BRIDGE_DUMP_PDUMP);
  assert_argv (&b, out);
}

static void
test_temacs_dump_separate_value (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", "--temacs", "dump", "x", NULL };
  const char *const out[] = { "prog", "x", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_int_equal (a.dump, BRIDGE_DUMP_UNEXEC);
  assert_argv (&b, out);
}

static void
test_temacs_unknown_mode (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", "--temacs=bogus", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_E_USAGE);
  assert_non_null (strstr (dumper_error_detail (), "bogus"));
  assert_non_null (strstr (dumper_error_detail (), "pdump"));
  assert_argv (&b, in);
}

static void
test_temacs_missing_value (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", "--temacs", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_E_USAGE);
  assert_non_null (strstr (dumper_error_detail (), "--temacs"));
  assert_argv (&b, in);
}

static void
test_temacs_conflict (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", "--temacs=pdump", "--temacs=dump", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_E_USAGE);
  assert_argv (&b, in);
  /* The same mode twice is not a conflict.  */
  const char *const same[] = { "prog", "--temacs=pdump", "--temacs=pdump", NULL };
  const char *const left[] = { "prog", NULL };
  make_argv (&b, same);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_int_equal (a.dump, BRIDGE_DUMP_PDUMP);
  assert_argv (&b, left);
}

static void
test_dump_file_forms (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const eq[] = { "prog", "--dump-file=/tmp/x.pdmp", "-q", NULL };
  const char *const left[] = { "prog", "-q", NULL };
  make_argv (&b, eq);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_string_equal (a.dump_file, "/tmp/x.pdmp");
  assert_argv (&b, left);

  const char *const sep[] = { "prog", "-q", "--dump-file", "y.pdmp", NULL };
  make_argv (&b, sep);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_string_equal (a.dump_file, "y.pdmp");
  assert_argv (&b, left);
}

static void
test_dump_file_missing_value (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const last[] = { "prog", "--dump-file", NULL };
  make_argv (&b, last);
  assert_int_equal (parse (&b, &a), DUMPER_E_USAGE);
  assert_non_null (strstr (dumper_error_detail (), "file name"));
  assert_argv (&b, last);

  const char *const empty[] = { "prog", "--dump-file=", NULL };
  make_argv (&b, empty);
  assert_int_equal (parse (&b, &a), DUMPER_E_USAGE);
  assert_argv (&b, empty);

  const char *const empty_sep[] = { "prog", "--dump-file", "", NULL };
  make_argv (&b, empty_sep);
  assert_int_equal (parse (&b, &a), DUMPER_E_USAGE);
}

static void
test_dump_file_twice (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", "--dump-file=a", "--dump-file=b", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_E_USAGE);
  assert_non_null (strstr (dumper_error_detail (), "twice"));
}

static void
test_no_dump_file (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", "--no-dump-file", "z", NULL };
  const char *const left[] = { "prog", "z", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_true (a.no_dump_file);
  assert_argv (&b, left);

  const char *const both[] = { "prog", "--no-dump-file", "--dump-file=q", NULL };
  make_argv (&b, both);
  assert_int_equal (parse (&b, &a), DUMPER_E_USAGE);
  assert_non_null (strstr (dumper_error_detail (), "contradict"));
}

static void
test_double_dash_ends_scan (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", "--temacs=pdump", "--", "--dump-file=x",
                             "--temacs=bogus", NULL };
  const char *const left[] = { "prog", "--", "--dump-file=x", "--temacs=bogus",
                               NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_int_equal (a.dump, BRIDGE_DUMP_PDUMP);
  assert_null (a.dump_file);
  assert_argv (&b, left);
}

static void
test_similar_options_untouched (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  /* Prefixes and look-alikes belong to the host.  */
  const char *const in[] = { "prog", "--temacsx=pdump", "--dump-filex=y",
                             "-temacs=pdump", "--dump-files", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_int_equal (a.dump, BRIDGE_DUMP_NONE);
  assert_null (a.dump_file);
  assert_argv (&b, in);
}

static void
test_argv0_only (void **state)
{
  struct argv_buf b;
  struct bridge_args a;
  const char *const in[] = { "prog", NULL };
  make_argv (&b, in);
  assert_int_equal (parse (&b, &a), DUMPER_OK);
  assert_argv (&b, in);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_no_bridge_options),
    cmocka_unit_test (test_temacs_pdump),
    cmocka_unit_test (test_temacs_dump_separate_value),
    cmocka_unit_test (test_temacs_unknown_mode),
    cmocka_unit_test (test_temacs_missing_value),
    cmocka_unit_test (test_temacs_conflict),
    cmocka_unit_test (test_dump_file_forms),
    cmocka_unit_test (test_dump_file_missing_value),
    cmocka_unit_test (test_dump_file_twice),
    cmocka_unit_test (test_no_dump_file),
    cmocka_unit_test (test_double_dash_ends_scan),
    cmocka_unit_test (test_similar_options_untouched),
    cmocka_unit_test (test_argv0_only),
  };
  return cmocka_run_group_tests_name ("bridge arguments", tests, NULL, NULL);
}
