/* SPDX-License-Identifier: MIT */
/* tests/migrate/test_diff.c: the line diff and the unified diff
   printer of dumper-migrate.  */

#include "mtest.h"

#include <stdlib.h>

/* The ops of diffing the lines of A and B (one char a line) as a
   string: `=' same, `-' deleted, `+' added.  */
static char *
script (const char *a, const char *b)
{
  size_t na = strlen (a), nb = strlen (b);
  const char **la = tool_xcalloc (na + 1, sizeof *la);
  const char **lb = tool_xcalloc (nb + 1, sizeof *lb);
  size_t *sa = tool_xcalloc (na + 1, sizeof *sa);
  size_t *sb = tool_xcalloc (nb + 1, sizeof *sb);
  for (size_t k = 0; k < na; k++)
    la[k] = a + k, sa[k] = 1;
  for (size_t k = 0; k < nb; k++)
    lb[k] = b + k, sb[k] = 1;
  enum migrate_diff_op *ops;
  size_t n = migrate_diff_lines (la, sa, na, lb, sb, nb, &ops);
  char *out = tool_xcalloc (n + 1, 1);
  for (size_t k = 0; k < n; k++)
    out[k] = ops[k] == MIGRATE_DIFF_SAME ? '=' : ops[k] == MIGRATE_DIFF_DEL ? '-' : '+';
  free (ops);
  free (la);
  free (lb);
  free (sa);
  free (sb);
  return out;
}

static void
test_edit_scripts (void **state)
{
  (void) state;
  struct { const char *a, *b, *want; } cases[] = {
    { "", "", "" },
    { "abc", "abc", "===" },
    { "", "ab", "++" },
    { "ab", "", "--" },
    { "abc", "axc", "=-+=" },
    { "abcabba", "cbabac", NULL },      /* Myers' example: D = 5 */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      char *got = script (cases[k].a, cases[k].b);
      if (cases[k].want)
        assert_string_equal (got, cases[k].want);
      else
        {
          size_t edits = 0;
          for (char *p = got; *p; p++)
            edits += *p != '=';
          assert_int_equal (edits, 5);
        }
      free (got);
    }
}

/* The unified diff from OLD to NEW as a string.  */
static char *
unified (const char *old, const char *new)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream (&buf, &len);
  assert_non_null (out);
  migrate_diff_write (out, "f.c", old, strlen (old), new, strlen (new));
  fclose (out);
  return buf;
}

static void
test_unified_hunks (void **state)
{
  (void) state;
  char *d = unified ("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n",
                     "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n");
  assert_string_equal (d,
                       "--- f.c\n+++ f.c\n"
                       "@@ -1,5 +1,5 @@\n 1\n-2\n+TWO\n 3\n 4\n 5\n"
                       "@@ -11,4 +11,3 @@\n 11\n 12\n 13\n-14\n");
  free (d);
  /* Changes six lines apart share a hunk.  */
  d = unified ("a\n1\n2\n3\n4\n5\n6\nb\n", "A\n1\n2\n3\n4\n5\n6\nB\n");
  assert_string_equal (d,
                       "--- f.c\n+++ f.c\n"
                       "@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n");
  free (d);
}

static void
test_unified_edges (void **state)
{
  (void) state;
  char *d = unified ("same\n", "same\n");
  assert_string_equal (d, "");
  free (d);
  d = unified ("", "new\n");
  assert_string_equal (d, "--- f.c\n+++ f.c\n@@ -0,0 +1 @@\n+new\n");
  free (d);
  d = unified ("x\nlast", "x\nlast\n");
  assert_string_equal (d, "--- f.c\n+++ f.c\n@@ -1,2 +1,2 @@\n x\n-last\n"
                       "\\ No newline at end of file\n+last\n");
  free (d);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_edit_scripts),
    cmocka_unit_test (test_unified_hunks),
    cmocka_unit_test (test_unified_edges),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
