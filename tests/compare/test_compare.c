/* SPDX-License-Identifier: MIT */
/* tests/compare/test_compare.c: dumper-compare's parts without running a
   host: the heap-dump divergence (heapdiff.c) on small dumps written
   here in the contract's line format, the JSON reader and the results
   file (json.c), statistics (stats.c), the host description (host.c)
   and the command line (options.c).  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "compare.h"

static char dir[] = "/tmp/test_compare.XXXXXX";

static int
setup (void **state)
{
  (void) state;
  return mkdtemp (dir) ? 0 : -1;
}

static int
teardown (void **state)
{
  (void) state;
  char cmd[64];
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  return system (cmd) == 0 ? 0 : -1;
}

static const char *
write_temp (const char *name, const char *text)
{
  static char paths[4][256];
  static int next;
  char *path = paths[next++ % 4];
  snprintf (path, 256, "%s/%s", dir, name);
  FILE *f = fopen (path, "w");
  assert_non_null (f);
  fputs (text, f);
  fclose (f);
  return path;
}

/* Run the divergence search on two dumps; its report in a buffer.  */
static char *
diff_report (const char *a, const char *b, int expect)
{
  const char *pa = write_temp ("a.txt", a);
  const char *pb = write_temp ("b.txt", b);
  char *buf = NULL;
  size_t size = 0;
  FILE *out = open_memstream (&buf, &size);
  assert_non_null (out);
  assert_int_equal (compare_heap_diff (pa, "cold", pb, "pdump", out), expect);
  fclose (out);
  return buf;
}

static void
assert_has (const char *text, const char *part)
{
  if (strstr (text, part) == NULL)
    fail_msg ("expected `%s' in:\n%s", part, text);
}

/* The common start of the dumps below: a symbol with a property list.  */
#define PLIST_HEAD \
  "#1 symbol[0] symbol \"foo\" flags=8\n" \
  "#2 #1.name string \"foo\"\n" \
  "  #1.value = 7\n" \
  "  #1.function = #<unbound>\n" \
  "#3 #1.plist cons\n" \
  "#4 #3.car symbol \"size\" flags=8\n" \
  "#5 #4.name string \"size\"\n" \
  "  #4.value = #<unbound>\n" \
  "  #4.function = #<unbound>\n" \
  "  #4.plist = 0\n" \
  "#6 #3.cdr cons\n"

static void
test_plist_value (void **state)
{
  (void) state;
  char *r = diff_report (PLIST_HEAD "#7 #6.car float 1.5 (3ff8000000000000)\n  #6.cdr = 0\n",
                         PLIST_HEAD "#7 #6.car float 1.25 (3ff4000000000000)\n  #6.cdr = 0\n",
                         1);
  assert_has (r, "at line 12 ");
  assert_has (r, "agree on the 6 objects before it");
  assert_has (r, "  symbol `foo' → property list → 2nd element (property `size')\n");
  assert_has (r, "  cold:  float 1.5 (3ff8000000000000)\n");
  assert_has (r, "  pdump: float 1.25 (3ff4000000000000)\n");
  free (r);
}

static void
test_list_tail_and_end (void **state)
{
  (void) state;
  /* The list ends after its 2nd element on one side only.  */
  char *r = diff_report (PLIST_HEAD "#7 #6.car float 1.5 (3ff8000000000000)\n  #6.cdr = 0\n",
                         PLIST_HEAD "#7 #6.car float 1.5 (3ff8000000000000)\n"
                         "#8 #6.cdr cons\n", 1);
  assert_has (r, "symbol `foo' → property list → the rest after the 2nd element\n");
  assert_has (r, "cold:  0\n");
  assert_has (r, "pdump: cons\n");
  free (r);
  /* One dump has a record more.  */
  r = diff_report (PLIST_HEAD, PLIST_HEAD "#7 #6.car float 1.5 (3ff8000000000000)\n", 1);
  assert_has (r, "cold:  (no more records)");
  assert_has (r, "symbol `foo' → property list → 2nd element (property `size')");
  free (r);
}

static void
test_hash_vector_closure (void **state)
{
  (void) state;
  const char *head =
    "#1 symbol[0] symbol \"tbl\" flags=8\n"
    "#2 #1.name string \"tbl\"\n"
    "#3 #1.value hash-table test=equal count=2\n"
    "#4 #3.key[0] string \"k\"\n"
    "#5 #3.value[0] vector size=2\n"
    "  #5.[0] = 1\n"
    "#6 #5.[1] closure\n"
    "#7 #6.params cons\n"
    "  #7.car = #1\n"
    "  #7.cdr = 0\n";
  char a[1024], b[1024];
  snprintf (a, sizeof a, "%s  #6.body = 10\n", head);
  snprintf (b, sizeof b, "%s  #6.body = 11\n", head);
  char *r = diff_report (a, b, 1);
  assert_has (r, "symbol `tbl' → value → value for key \"k\" → element [1] → body\n");
  free (r);
  /* A reference against a new object: say what the reference is.  */
  snprintf (a, sizeof a, "%s  #6.body = #4\n", head);
  snprintf (b, sizeof b, "%s#8 #6.body string \"k\"\n", head);
  r = diff_report (a, b, 1);
  assert_has (r, "cold:  #4, an object seen before: \"k\"");
  assert_has (r, "pdump: string \"k\"");
  free (r);
}

static void
test_root_and_identity (void **state)
{
  (void) state;
  char *r = diff_report (PLIST_HEAD "# 6 objects\n", PLIST_HEAD "# 6 objects\n", 0);
  assert_string_equal (r, "");
  free (r);
  /* A GC root named by kind and number.  */
  r = diff_report ("#1 staticpro[0] vector size=1\n  #1.[0] = 1\n",
                   "#1 staticpro[0] vector size=1\n  #1.[0] = 2\n", 1);
  assert_has (r, "root staticpro[0] (vector) → element [0]\n");
  free (r);
  /* Nested lists: each head starts a new count.  */
  r = diff_report ("#1 staticpro[0] cons\n#2 #1.car cons\n  #2.car = 1\n#3 #2.cdr cons\n"
                   "  #3.car = 2\n",
                   "#1 staticpro[0] cons\n#2 #1.car cons\n  #2.car = 1\n#3 #2.cdr cons\n"
                   "  #3.car = 3\n", 1);
  assert_has (r, "root staticpro[0] (cons) → 1st element → 2nd element\n");
  free (r);
  /* A field a cons does not have (not this format's, but no hang).  */
  r = diff_report ("#1 staticpro[0] cons\n  #1.odd = 1\n", "#1 staticpro[0] cons\n  #1.odd = 2\n",
                   1);
  assert_has (r, "root staticpro[0] (cons) → odd\n");
  free (r);
}

static void
test_missing_file (void **state)
{
  (void) state;
  FILE *out = fopen ("/dev/null", "w");
  assert_int_equal (compare_heap_diff ("/nonexistent/a", "a", "/nonexistent/b", "b", out), -1);
  fclose (out);
}

/* ------------------------------------------------------------------ */

static void
test_json_parse (void **state)
{
  (void) state;
  char err[128];
  struct compare_json *v = compare_json_parse (
    " {\"a\": [1, -2.5e3, true, false, null], \"s\": \"q\\\"\\u00e9\\ud83d\\ude00\\n\"} ",
    err, sizeof err);
  assert_non_null (v);
  const struct compare_json *a = compare_json_member (v, "a");
  assert_non_null (a);
  assert_int_equal (a->type, COMPARE_JSON_ARRAY);
  assert_int_equal (a->count, 5);
  assert_true (a->items[1].number == -2500);
  assert_true (a->items[2].boolean);
  assert_int_equal (a->items[4].type, COMPARE_JSON_NULL);
  assert_string_equal (compare_json_member (v, "s")->string, "q\"\xc3\xa9\xf0\x9f\x98\x80\n");
  assert_null (compare_json_member (v, "missing"));
  compare_json_free (v);

  static const char *const bad[] = {
    "", "{", "[1,]", "{\"a\" 1}", "{\"a\": 1,}", "\"open", "tru", "[1] x", "{1: 2}",
    "\"bad \\x escape\"", "\"ctl \x01\"", "-", "[\"\\u12\"]",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      err[0] = '\0';
      v = compare_json_parse (bad[i], err, sizeof err);
      if (v != NULL)
        fail_msg ("parsed `%s'", bad[i]);
      assert_non_null (strstr (err, "line 1, column"));
    }
  char deep[200];
  memset (deep, '[', 100);
  memset (deep + 100, ']', 100);
  deep[199] = '\0';
  deep[99] = '1';
  assert_null (compare_json_parse (deep, err, sizeof err));
  assert_non_null (strstr (err, "nested too deeply"));
}

static void
sample_results (struct compare_results *r)
{
  memset (r, 0, sizeof *r);
  strcpy (r->host, "test \"host\"");
  r->runs = 3;
  r->modes[COMPARE_COLD] = r->modes[COMPARE_PDUMP] = true;
  r->scale_count = 1;
  struct compare_scale *s = &r->scales[0];
  s->scale = 4;
  strcpy (s->load_method, "map");
  strcpy (s->digest[COMPARE_COLD], "abc");
  strcpy (s->digest[COMPARE_PDUMP], "abc");
  s->fig[COMPARE_COLD][COMPARE_FIG_START_MS] = (struct compare_stat) { 100, 90, 120, 3, 0, false };
  s->fig[COMPARE_PDUMP][COMPARE_FIG_START_MS] = (struct compare_stat) { 2.5, 2, 3, 3, 0, false };
  s->fig[COMPARE_PDUMP][COMPARE_FIG_ARTIFACT_BYTES] = (struct compare_stat) { 4096, 4096,
                                                                              4096, 3, 0,
                                                                              false };
}

/* Results with a base-mode row, p99 and the memory section.  */
static void
test_json_base_modes (void **state)
{
  (void) state;
  struct compare_results r, back;
  sample_results (&r);
  r.modes[COMPARE_PDUMP_FIXED] = true;
  struct compare_scale *s = &r.scales[0];
  s->fig[COMPARE_PDUMP][COMPARE_FIG_START_MS].p99 = 2.75;
  s->fig[COMPARE_PDUMP][COMPARE_FIG_START_MS].has_p99 = true;
  s->fig[COMPARE_PDUMP_FIXED][COMPARE_FIG_START_MS] = (struct compare_stat) { 2, 1.5, 3, 3, 3,
                                                                              true };
  s->fig[COMPARE_PDUMP_FIXED][COMPARE_FIG_MEM_PSS_KB] = (struct compare_stat) { 900, 800,
                                                                                1000, 16, 0,
                                                                                false };
  strcpy (s->base[COMPARE_PDUMP].asked, "random");
  strcpy (s->base[COMPARE_PDUMP].placement, "random");
  strcpy (s->base[COMPARE_PDUMP_FIXED].asked, "fixed");
  strcpy (s->base[COMPARE_PDUMP_FIXED].reported, "fixed");
  strcpy (s->base[COMPARE_PDUMP_FIXED].placement, "fallback");
  strcpy (s->base[COMPARE_PDUMP_FIXED].reason, "range \"taken\"");
  s->base[COMPARE_PDUMP_FIXED].stats_runs = 3;
  s->base[COMPARE_PDUMP_FIXED].fallbacks = 2;
  char path[256], again[256];
  snprintf (path, sizeof path, "%s/b.json", dir);
  snprintf (again, sizeof again, "%s/b2.json", dir);
  assert_int_equal (compare_json_write (path, &r), 0);
  assert_int_equal (compare_json_load (path, &back), 0);
  assert_true (back.modes[COMPARE_PDUMP_FIXED]);
  const struct compare_scale *t = &back.scales[0];
  assert_true (t->fig[COMPARE_PDUMP][COMPARE_FIG_START_MS].has_p99
               && t->fig[COMPARE_PDUMP][COMPARE_FIG_START_MS].p99 == 2.75);
  assert_false (t->fig[COMPARE_COLD][COMPARE_FIG_START_MS].has_p99);
  assert_true (t->fig[COMPARE_PDUMP_FIXED][COMPARE_FIG_START_MS].p99 == 3);
  assert_int_equal (t->fig[COMPARE_PDUMP_FIXED][COMPARE_FIG_MEM_PSS_KB].n, 16);
  assert_string_equal (t->base[COMPARE_PDUMP_FIXED].reason, "range \"taken\"");
  assert_int_equal (t->base[COMPARE_PDUMP_FIXED].fallbacks, 2);
  assert_string_equal (t->base[COMPARE_PDUMP].placement, "random");
  assert_int_equal (t->base[COMPARE_COLD].asked[0], 0);
  /* Not ==: on i386 the x87 keeps the quotient in 80 bits.  */
  double fixed_ratio = compare_ratio (t, COMPARE_FIG_START_MS, COMPARE_PDUMP_FIXED,
                                      COMPARE_PDUMP);
  assert_true (fixed_ratio > 0.8 - 1e-9 && fixed_ratio < 0.8 + 1e-9);
  /* Written again, byte for byte.  */
  assert_int_equal (compare_json_write (again, &back), 0);
  char *a = compare_read_file (path, NULL), *b = compare_read_file (again, NULL);
  assert_string_equal (a, b);
  assert_non_null (strstr (a, "\"pdump_fixed_pdump\": 0.800"));
  free (a);
  free (b);
  /* base_modes naming a mode the file does not list.  */
  assert_int_equal (compare_json_load (write_temp ("x.json", "{\"tool\": \"dumper-compare\", "
                                                   "\"format\": 1, \"host\": \"h\", \"runs\": 1,"
                                                   " \"modes\": [\"cold\"], \"scales\": [{"
                                                   "\"scale\": 1, \"figures\": {}, \"base_modes\":"
                                                   " {\"pdump-fixed\": {\"asked\": \"fixed\"}}}"
                                                   "]}"), &back), COMPARE_EXIT_DATA);
}

static void
test_json_round_trip (void **state)
{
  (void) state;
  struct compare_results r, back;
  sample_results (&r);
  char path[256];
  snprintf (path, sizeof path, "%s/r.json", dir);
  assert_int_equal (compare_json_write (path, &r), 0);
  assert_int_equal (compare_json_load (path, &back), 0);
  assert_string_equal (back.host, "test \"host\"");
  assert_int_equal (back.runs, 3);
  assert_true (back.modes[COMPARE_PDUMP] && !back.modes[COMPARE_UNEXEC]);
  assert_int_equal (back.scales[0].scale, 4);
  assert_string_equal (back.scales[0].load_method, "map");
  assert_true (back.scales[0].fig[COMPARE_PDUMP][COMPARE_FIG_START_MS].median == 2.5);
  assert_true (back.scales[0].fig[COMPARE_COLD][COMPARE_FIG_START_MS].max == 120);
  assert_int_equal (back.scales[0].fig[COMPARE_COLD][COMPARE_FIG_PEAK_RSS_KB].n, 0);
  assert_true (compare_ratio (&back.scales[0], COMPARE_FIG_START_MS, COMPARE_COLD,
                              COMPARE_PDUMP) == 40);

  /* Files that are JSON but not results.  */
  assert_int_equal (compare_json_load (write_temp ("x.json", "[1]"), &back), COMPARE_EXIT_DATA);
  assert_int_equal (compare_json_load (write_temp ("x.json", "{\"tool\": \"other\"}"), &back),
                    COMPARE_EXIT_DATA);
  assert_int_equal (compare_json_load (write_temp ("x.json", "{\"tool\": \"dumper-compare\", "
                                                   "\"format\": 1, \"host\": \"h\", \"runs\": 1,"
                                                   " \"modes\": [\"cold\"], \"scales\": [{"
                                                   "\"scale\": 1, \"figures\": {\"pdump\": {}}}"
                                                   "]}"), &back), COMPARE_EXIT_DATA);
  assert_int_equal (compare_json_load ("/nonexistent.json", &back), COMPARE_EXIT_NOINPUT);
}

static void
test_baseline (void **state)
{
  (void) state;
  struct compare_results now, base;
  sample_results (&now);
  sample_results (&base);
  FILE *out = fopen ("/dev/null", "w");
  assert_int_equal (compare_baseline (out, &now, &base, 10, 0.1), 0);
  now.scales[0].fig[COMPARE_PDUMP][COMPARE_FIG_START_MS].median = 2.76;   /* +10.4% */
  now.scales[0].fig[COMPARE_PDUMP][COMPARE_FIG_ARTIFACT_BYTES].median = 4500;  /* +9.9% */
  assert_int_equal (compare_baseline (out, &now, &base, 10, 0.1), 1);
  assert_int_equal (compare_baseline (out, &now, &base, 11, 0.1), 0);
  assert_int_equal (compare_baseline (out, &now, &base, 5, 0.1), 2);
  /* Faster is never a regression; a scale the baseline lacks is skipped.  */
  now.scales[0].fig[COMPARE_PDUMP][COMPARE_FIG_START_MS].median = 1;
  now.scales[0].fig[COMPARE_PDUMP][COMPARE_FIG_ARTIFACT_BYTES].median = 4096;
  assert_int_equal (compare_baseline (out, &now, &base, 0, 0.1), 0);
  now.scales[0].scale = 16;
  now.scales[0].fig[COMPARE_PDUMP][COMPARE_FIG_START_MS].median = 100;
  assert_int_equal (compare_baseline (out, &now, &base, 0, 0.1), 0);
  /* A time that grew by less than the noise floor is not worse.  */
  now.scales[0].scale = 4;
  now.scales[0].fig[COMPARE_PDUMP][COMPARE_FIG_START_MS].median = 2.59;      /* +0.09 ms */
  assert_int_equal (compare_baseline (out, &now, &base, 1, 0.1), 0);
  assert_int_equal (compare_baseline (out, &now, &base, 1, 0.05), 1);
  fclose (out);
}

/* ------------------------------------------------------------------ */

static void
test_samples (void **state)
{
  (void) state;
  struct compare_samples s = { 0 };
  assert_int_equal (compare_samples_stat (&s).n, 0);
  double odd[] = { 5, 1, 9, 3, 7 };
  for (int i = 0; i < 5; i++)
    compare_samples_add (&s, odd[i]);
  struct compare_stat st = compare_samples_stat (&s);
  assert_true (st.median == 5 && st.min == 1 && st.max == 9 && st.n == 5);
  compare_samples_add (&s, 11);
  st = compare_samples_stat (&s);
  assert_true (st.median == 6 && st.max == 11 && st.n == 6);
  compare_samples_free (&s);
  st = (struct compare_stat) { 1.23456, 1.00049, 2.99951, 3, 1.99951, true };
  compare_stat_round (&st, 3);
  assert_true (st.median == 1.235 && st.min == 1.0 && st.max == 3.0 && st.p99 == 2.0);

  /* p99 is the nearest rank: the 99th of 100 samples, the largest of 50
     or fewer, whatever their order.  */
  for (int i = 100; i >= 1; i--)
    compare_samples_add (&s, i);
  st = compare_samples_stat (&s);
  assert_true (st.has_p99 && st.p99 == 99 && st.max == 100 && st.median == 50.5);
  compare_samples_free (&s);
  for (int i = 1; i <= 50; i++)
    compare_samples_add (&s, i == 17 ? 1000 : i);
  st = compare_samples_stat (&s);
  assert_true (st.p99 == 1000 && st.median == 26.5);
  compare_samples_free (&s);
}

/* The base-mode rows: their table, and when a row got its mode.  */
static void
test_base_modes (void **state)
{
  (void) state;
  assert_string_equal (compare_base_value (COMPARE_PDUMP), "random");
  assert_string_equal (compare_base_value (COMPARE_PDUMP_FIXED), "fixed");
  assert_string_equal (compare_base_value (COMPARE_PDUMP_BOOT), "boot");
  assert_string_equal (compare_mode_names[COMPARE_PDUMP_BOOT], "pdump-boot");
  assert_null (compare_base_value (COMPARE_COLD));
  assert_null (compare_base_value (COMPARE_EMBEDDED));
  assert_true (compare_base_row_p (COMPARE_PDUMP_FIXED));
  assert_false (compare_base_row_p (COMPARE_PDUMP));
  assert_string_equal (compare_mode_names[COMPARE_PDUMP_FIXED], "pdump-fixed");
  assert_string_equal (compare_mode_names[COMPARE_EMBEDDED], "embedded");
  assert_true (compare_base_rows[0].mode == COMPARE_PDUMP);
  for (size_t i = 1; i < compare_base_row_count; i++)
    assert_true (compare_base_row_p (compare_base_rows[i].mode));

  struct compare_base_info b;
  memset (&b, 0, sizeof b);
  strcpy (b.asked, "fixed");
  assert_int_equal (compare_base_honoured (&b), -1);     /* the host does not say */
  strcpy (b.reported, "fixed");
  strcpy (b.placement, "preferred");
  b.stats_runs = 3;
  assert_int_equal (compare_base_honoured (&b), 1);
  b.fallbacks = 1;                                        /* one start fell back */
  assert_int_equal (compare_base_honoured (&b), 0);
  b.fallbacks = 0;
  strcpy (b.placement, "fallback");
  assert_int_equal (compare_base_honoured (&b), 0);
  strcpy (b.placement, "random");
  strcpy (b.reported, "random");                          /* another mode taken */
  assert_int_equal (compare_base_honoured (&b), 0);
  strcpy (b.reported, "fixed");
  strcpy (b.refused, "exit status 64: no");
  assert_int_equal (compare_base_honoured (&b), 0);
}

static void
test_kv (void **state)
{
  (void) state;
  struct compare_kv kv;
  const char *path = write_temp ("stats.txt", "origin: pdump\nheap-bytes: 123\n"
                                 "bad line\nx: 1.5e-3\nx: 2\nempty: \nnum: 12abc");
  assert_true (compare_kv_read (&kv, path));
  assert_string_equal (compare_kv_get (&kv, "origin"), "pdump");
  double v;
  assert_true (compare_kv_number (&kv, "heap-bytes", &v) && v == 123);
  assert_true (compare_kv_number (&kv, "x", &v) && v == 2);
  assert_false (compare_kv_number (&kv, "origin", &v));
  assert_false (compare_kv_number (&kv, "empty", &v));
  assert_false (compare_kv_number (&kv, "num", &v));
  assert_null (compare_kv_get (&kv, "bad line"));
  compare_kv_free (&kv);
  assert_false (compare_kv_read (&kv, "/nonexistent"));
}

/* ------------------------------------------------------------------ */

static int
parse (struct compare_options *o, ...)
{
  char *argv[32] = { "dumper-compare" };
  int argc = 1;
  va_list ap;
  va_start (ap, o);
  for (char *a; (a = va_arg (ap, char *)) != NULL; )
    argv[argc++] = a;
  va_end (ap);
  return compare_parse_options (argc, argv, o);
}

static void
test_options (void **state)
{
  (void) state;
  struct compare_options o;
  assert_int_equal (parse (&o, "--none", "n", "--pdumper=p", "--scale", "1,4", "--scale=16",
                           "--runs", "3", "--threshold", "2.5", "--noise-ms", "0", NULL), -1);
  assert_string_equal (o.dirs[COMPARE_COLD], "n");
  assert_string_equal (o.dirs[COMPARE_PDUMP], "p");
  assert_null (o.dirs[COMPARE_UNEXEC]);
  assert_int_equal (o.scale_count, 3);
  assert_int_equal (o.scales[2], 16);
  assert_int_equal (o.runs, 3);
  assert_true (o.threshold_pct == 2.5);
  assert_true (o.noise_ms == 0);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", NULL), -1);
  assert_int_equal (o.runs, 7);
  assert_int_equal (o.scales[0], 1);
  assert_true (o.threshold_pct == 10 && o.noise_ms == 0.1);
  assert_int_equal (parse (&o, "--load", "x.json", NULL), -1);

  int usage = COMPARE_EXIT_USAGE;
  assert_int_equal (parse (&o, NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", NULL), usage);
  assert_int_equal (parse (&o, "--unexec", "u", NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--runs", "0", NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--runs", "x", NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--scale", "1,,2", NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--scale", "4,4", NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--threshold", "-1", NULL),
                    usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--noise-ms", "x", NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--bogus", NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "stray", NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--none", "m", "--unexec", "u", NULL), usage);
  assert_int_equal (parse (&o, "--none", NULL), usage);
  assert_int_equal (parse (&o, "--none=", "--unexec", "u", NULL), usage);
  assert_int_equal (parse (&o, "--load", "x", "--none", "n", NULL), usage);

  /* Base modes and the memory section.  */
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--scale", "1,4,16", NULL), -1);
  assert_true (o.base_rows[COMPARE_PDUMP] && o.base_rows[COMPARE_PDUMP_FIXED]
               && o.base_rows[COMPARE_PDUMP_BOOT]);
  assert_int_equal (o.procs, 16);
  assert_int_equal (o.memory_scale_count, 2);
  assert_int_equal (o.memory_scales[1], 4);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--base-mode", "random",
                           "--procs", "0", "--scale", "1,4", "--memory-scale", "4", NULL), -1);
  assert_false (o.base_rows[COMPARE_PDUMP_FIXED]);
  assert_int_equal (o.procs, 0);
  assert_int_equal (o.memory_scale_count, 1);
  assert_int_equal (o.memory_scales[0], 4);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--base-mode", "fixed", NULL),
                    -1);
  assert_true (o.base_rows[COMPARE_PDUMP_FIXED] && !o.base_rows[COMPARE_PDUMP_BOOT]);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--base-mode", "fixed,nope",
                           NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--procs", "257", NULL), usage);
  assert_int_equal (parse (&o, "--none", "n", "--unexec", "u", "--memory-scale", "4", NULL),
                    usage);
}

static void
test_host (void **state)
{
  (void) state;
  struct compare_options o;
  memset (&o, 0, sizeof o);
  o.host_file = write_temp ("h.host",
                            "# a host\nname  toy\ncold  /bin/true --scale={scale}\n"
                            "pdump-dump /bin/true \"{artifact} x\" {runs}\n"
                            "pdump-start {artifact}\ndigest --digest\nbatch -b\n");
  struct compare_host h;
  assert_int_equal (compare_host_load (&h, &o), 0);
  assert_string_equal (h.name, "toy");
  assert_true (h.enabled[COMPARE_COLD] && h.enabled[COMPARE_PDUMP] && !h.enabled[COMPARE_UNEXEC]);
  struct compare_vars v = { 16, 5, "/a b/img", NULL };
  static const enum compare_step extras[] = { COMPARE_STEP_DIGEST, COMPARE_STEP_BATCH,
                                              COMPARE_STEP_COUNT };
  char **argv = compare_host_argv (&h, COMPARE_STEP_PDUMP_DUMP, extras, &v);
  assert_string_equal (argv[0], "/bin/true");
  assert_string_equal (argv[1], "/a b/img x");
  assert_string_equal (argv[2], "5");
  assert_string_equal (argv[3], "--digest");
  assert_string_equal (argv[4], "-b");
  assert_null (argv[5]);
  compare_argv_free (argv);
  argv = compare_host_argv (&h, COMPARE_STEP_COLD, NULL, &v);
  assert_string_equal (argv[1], "--scale=16");
  compare_argv_free (argv);
  compare_host_free (&h);

  static const char *const bad[] = {
    "cold /bin/true {nope}\ndigest -d\npdump-dump /bin/true\npdump-start /bin/true\n",
    "cold /bin/true\nwhat /bin/true\ndigest -d\n",
    "cold /bin/true\ncold /bin/true\ndigest -d\n",
    "cold /bin/true \"open\ndigest -d\n",
    "cold /bin/true\npdump-dump /bin/true\npdump-start /bin/true\n",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      o.host_file = write_temp ("bad.host", bad[i]);
      assert_int_equal (compare_host_load (&h, &o), COMPARE_EXIT_DATA);
      compare_host_free (&h);
    }
  /* A program that does not exist; a mode with nothing to compare.  */
  o.host_file = write_temp ("bad.host", "cold /nonexistent/x\ndigest -d\n"
                            "pdump-dump /bin/true\npdump-start /bin/true\n");
  assert_int_equal (compare_host_load (&h, &o), COMPARE_EXIT_NOINPUT);
  compare_host_free (&h);
  o.host_file = write_temp ("bad.host", "cold /bin/true\ndigest -d\n");
  assert_int_equal (compare_host_load (&h, &o), COMPARE_EXIT_USAGE);
  compare_host_free (&h);
  /* A row per base mode when the host names its base-mode variable and
     the row is asked for; never without pdump.  */
  o.host_file = write_temp ("b.host", "cold /bin/true\ndigest -d\n"
                            "pdump-dump /bin/true\npdump-start /bin/true\n"
                            "base-env DUMPER_PDUMP_BASE\nidle t\n");
  assert_int_equal (compare_host_load (&h, &o), 0);
  assert_false (h.enabled[COMPARE_PDUMP_FIXED]);
  compare_host_free (&h);
  o.base_rows[COMPARE_PDUMP_FIXED] = true;
  assert_int_equal (compare_host_load (&h, &o), 0);
  assert_true (h.enabled[COMPARE_PDUMP_FIXED] && h.enabled[COMPARE_PDUMP]);
  struct compare_vars none = { 1, 1, NULL, NULL };
  char *line = compare_host_line (&h, COMPARE_STEP_IDLE, &none);
  assert_string_equal (line, "t");
  free (line);
  compare_host_free (&h);
  o.host_file = write_temp ("b.host", "cold /bin/true\ndigest -d\n"
                            "pdump-dump /bin/true\npdump-start /bin/true\n");
  assert_int_equal (compare_host_load (&h, &o), 0);
  assert_false (h.enabled[COMPARE_PDUMP_FIXED]);
  compare_host_free (&h);
  o.host_file = write_temp ("b.host", "cold /bin/true\ndigest -d\nunexec-dump /bin/true\n"
                            "unexec-start /bin/true\nbase-env DUMPER_PDUMP_BASE\n");
  assert_int_equal (compare_host_load (&h, &o), 0);
  assert_false (h.enabled[COMPARE_PDUMP_FIXED]);
  compare_host_free (&h);
  o.host_file = write_temp ("b.host", "cold /bin/true\ndigest -d\n"
                            "pdump-dump /bin/true\npdump-start /bin/true\n"
                            "base-env DUMPER_PDUMP_BASE=fixed\n");
  assert_int_equal (compare_host_load (&h, &o), COMPARE_EXIT_DATA);
  compare_host_free (&h);
  o.base_rows[COMPARE_PDUMP_FIXED] = false;

  /* The reference host needs its build directories to exist.  */
  o.host_file = NULL;
  o.dirs[COMPARE_COLD] = "/nonexistent/none";
  o.dirs[COMPARE_PDUMP] = "/nonexistent/pdumper";
  assert_int_equal (compare_host_load (&h, &o), COMPARE_EXIT_NOINPUT);
  compare_host_free (&h);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_plist_value),
    cmocka_unit_test (test_list_tail_and_end),
    cmocka_unit_test (test_hash_vector_closure),
    cmocka_unit_test (test_root_and_identity),
    cmocka_unit_test (test_missing_file),
    cmocka_unit_test (test_json_parse),
    cmocka_unit_test (test_json_round_trip),
    cmocka_unit_test (test_json_base_modes),
    cmocka_unit_test (test_base_modes),
    cmocka_unit_test (test_baseline),
    cmocka_unit_test (test_samples),
    cmocka_unit_test (test_kv),
    cmocka_unit_test (test_options),
    cmocka_unit_test (test_host),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
