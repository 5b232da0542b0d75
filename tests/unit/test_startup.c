/* SPDX-License-Identifier: MIT */
/* tests/unit/test_startup.c: dumper_startup and the flags, in whichever
   mode this build was configured (pdumper, unexec or none).

   Each case runs tests/unit/flagprobe in a fresh process and checks
   what it prints: a process calls dumper_startup once, and an unexec
   dump request re-executes the process with ASLR disabled.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <dumper/dumper.h>

#define PROBE "tests/unit/flagprobe"

struct probe_result
{
  int exit_status;
  char output[8192];
};

/* Run the probe with ARGS (NULL-terminated, after argv[0]).  */
static void
run_probe (const char *const *args, struct probe_result *r)
{
  char command[2048];
  size_t len = (size_t) snprintf (command, sizeof command, "%s", PROBE);
  for (int i = 0; args[i]; i++)
    len += (size_t) snprintf (command + len, sizeof command - len, " '%s'", args[i]);
  assert_true (len < sizeof command);
  FILE *p = popen (command, "r");
  assert_non_null (p);
  size_t n = fread (r->output, 1, sizeof r->output - 1, p);
  r->output[n] = '\0';
  int status = pclose (p);
  assert_true (WIFEXITED (status));
  r->exit_status = WEXITSTATUS (status);
}

/* The value printed for KEY ("key=value"), or NULL.  */
static const char *
value_of (const struct probe_result *r, const char *key)
{
  static char value[1024];
  char pattern[64];
  snprintf (pattern, sizeof pattern, "%s=", key);
  const char *line = r->output;
  while (line && *line)
    {
      if (strncmp (line, pattern, strlen (pattern)) == 0)
        {
          const char *v = line + strlen (pattern);
          size_t n = strcspn (v, "\n");
          if (n >= sizeof value)
            n = sizeof value - 1;
          memcpy (value, v, n);
          value[n] = '\0';
          return value;
        }
      line = strchr (line, '\n');
      if (line)
        line++;
    }
  return NULL;
}

static void
assert_flag (const struct probe_result *r, const char *flag, int expected)
{
  const char *v = value_of (r, flag);
  if (v == NULL)
    fail_msg ("probe printed no %s; output:\n%s", flag, r->output);
  assert_int_equal (atoi (v), expected);
}

static void
test_cold_start_flags (void **state)
{
  struct probe_result r;
  const char *const args[] = { "--no-dump-file", "host-arg", NULL };
  run_probe (args, &r);
  assert_int_equal (r.exit_status, 0);
  assert_flag (&r, "status", DUMPER_OK);
  assert_flag (&r, "initialized", 0);
  assert_flag (&r, "will_dump", 0);
  assert_flag (&r, "will_dump_with_unexec", 0);
  assert_flag (&r, "will_dump_with_pdumper", 0);
  assert_flag (&r, "dumped_with_unexec", 0);
  assert_flag (&r, "dumped_with_pdumper", 0);
  assert_flag (&r, "origin", DUMPER_ORIGIN_COLD);
  assert_flag (&r, "initialized_after_mark", 1);
  assert_non_null (strstr (r.output, "arg=host-arg\n"));
  assert_null (strstr (r.output, "arg=--no-dump-file"));
}

static void
test_no_image_beside_means_cold (void **state)
{
  /* No flagprobe.pdmp exists beside the probe: a cold start.  */
  struct probe_result r;
  const char *const args[] = { NULL };
  run_probe (args, &r);
  assert_int_equal (r.exit_status, 0);
  assert_flag (&r, "initialized", 0);
  assert_flag (&r, "origin", DUMPER_ORIGIN_COLD);
}

static void
test_temacs_pdump (void **state)
{
  struct probe_result r;
  const char *const args[] = { "--temacs=pdump", "x", NULL };
  run_probe (args, &r);
  if (DUMPER_WITH_PDUMPER)
    {
      assert_int_equal (r.exit_status, 0);
      assert_flag (&r, "will_dump", 1);
      assert_flag (&r, "will_dump_with_pdumper", 1);
      assert_flag (&r, "will_dump_with_unexec", 0);
      assert_flag (&r, "initialized", 0);
      assert_non_null (strstr (r.output, "arg=x\n"));
    }
  else
    {
      assert_int_equal (r.exit_status, dumper_exit_status (DUMPER_E_NO_BACKEND));
      assert_flag (&r, "status", DUMPER_E_NO_BACKEND);
      /* The message names the configured back end, and the --temacs
         that dumps with it when there is one.  */
      const char *detail = value_of (&r, "detail");
      assert_non_null (strstr (detail, DUMPER_BACKEND));
      assert_true ((strstr (detail, "(use --temacs=dump)") != NULL)
                   == DUMPER_WITH_UNEXEC);
    }
}

static void
test_temacs_dump (void **state)
{
  struct probe_result r;
  const char *const args[] = { "--temacs=dump", "y", NULL };
  run_probe (args, &r);
  if (DUMPER_WITH_UNEXEC)
    {
      assert_int_equal (r.exit_status, 0);
      assert_flag (&r, "will_dump", 1);
      assert_flag (&r, "will_dump_with_unexec", 1);
      assert_flag (&r, "will_dump_with_pdumper", 0);
      /* The dumping run re-executed itself with ASLR disabled, and the
         guard variable does not leak into the host's environment.  */
      assert_flag (&r, "aslr_off", 1);
      assert_string_equal (value_of (&r, "reexec_env"), "unset");
      assert_non_null (strstr (r.output, "arg=y\n"));
      assert_null (strstr (r.output, "arg=--temacs"));
    }
  else
    {
      assert_int_equal (r.exit_status, dumper_exit_status (DUMPER_E_NO_BACKEND));
      const char *detail = value_of (&r, "detail");
      assert_non_null (strstr (detail, DUMPER_BACKEND));
      assert_non_null (strstr (detail, "--temacs=dump needs unexec"));
      assert_true ((strstr (detail, "(use --temacs=pdump)") != NULL)
                   == DUMPER_WITH_PDUMPER);
    }
}

static void
test_reexec_does_not_loop (void **state)
{
  /* With the guard already set (as after a re-exec whose personality
     change did not take), startup warns and continues instead of
     executing again.  */
  if (!DUMPER_WITH_UNEXEC)
    skip ();
  setenv ("DUMPER_ASLR_REEXEC", "1", 1);
  struct probe_result r;
  const char *const args[] = { "--temacs=dump", NULL };
  run_probe (args, &r);
  unsetenv ("DUMPER_ASLR_REEXEC");
  assert_int_equal (r.exit_status, 0);
  assert_flag (&r, "will_dump_with_unexec", 1);
  assert_string_equal (value_of (&r, "reexec_env"), "unset");
}

static void
test_usage_error_status (void **state)
{
  struct probe_result r;
  const char *const args[] = { "--temacs=nonsense", NULL };
  run_probe (args, &r);
  assert_int_equal (r.exit_status, dumper_exit_status (DUMPER_E_USAGE));
  assert_non_null (strstr (value_of (&r, "detail"), "nonsense"));
}

static void
test_dump_file_missing_image (void **state)
{
  struct probe_result r;
  const char *const args[] = { "--dump-file=/nonexistent/dir/x.pdmp", NULL };
  run_probe (args, &r);
  if (DUMPER_WITH_PDUMPER)
    {
      assert_int_not_equal (r.exit_status, 0);
      assert_non_null (strstr (value_of (&r, "detail"), "/nonexistent/dir/x.pdmp"));
    }
  else
    {
      assert_int_equal (r.exit_status, dumper_exit_status (DUMPER_E_NO_BACKEND));
      assert_non_null (strstr (value_of (&r, "detail"), "--dump-file"));
    }
}

static void
test_compile_time_flags (void **state)
{
  /* Flags of an absent back end are the constant false, so the code
     they guard is eliminated.  */
#if !DUMPER_WITH_UNEXEC
  _Static_assert (!will_dump_with_unexec, "unexec flag must be constant");
  _Static_assert (!dumped_with_unexec, "unexec flag must be constant");
#endif
#if !DUMPER_WITH_PDUMPER
  _Static_assert (!will_dump_with_pdumper, "pdumper flag must be constant");
  _Static_assert (!dumped_with_pdumper, "pdumper flag must be constant");
#endif
#if !DUMPER_WITH_UNEXEC && !DUMPER_WITH_PDUMPER
  _Static_assert (!will_dump, "will_dump must be constant in a none build");
#endif
  assert_int_equal (__builtin_constant_p (will_dump_with_unexec), !DUMPER_WITH_UNEXEC);
  assert_int_equal (__builtin_constant_p (dumped_with_pdumper), !DUMPER_WITH_PDUMPER);
  /* Predicates agree with the macros.  */
  assert_int_equal (dumper_will_dump_p (), will_dump);
  assert_int_equal (dumper_initialized_p (), initialized);
}

static void
test_dump_refused_without_request (void **state)
{
  /* This process did not start with --temacs: dumping is refused with a
     status, never an exit.  */
  enum dumper_status st = dumper_dump ("/tmp/never-written");
  if (!DUMPER_WITH_PDUMPER && !DUMPER_WITH_UNEXEC)
    {
      assert_int_equal (st, DUMPER_E_NO_BACKEND);
      assert_non_null (strstr (dumper_error_detail (), "none"));
    }
  else
    {
      assert_int_equal (st, DUMPER_E_STATE);
      assert_non_null (strstr (dumper_error_detail (), "--temacs"));
    }
  assert_int_equal (dumper_last_status (), st);
  assert_int_equal (dumper_dump (NULL) != DUMPER_OK, 1);
  /* A successful call clears the last status.  */
  static enum dumper_status saved_status;
  assert_int_equal (DUMPER_REMEMBER_SCALAR (saved_status), DUMPER_OK);
  assert_int_equal (dumper_last_status (), DUMPER_OK);
}

static void
test_status_table (void **state)
{
  /* Every status has a message and a distinct exit status in 64..99.  */
  int seen[128] = { 0 };
  assert_int_equal (dumper_exit_status (DUMPER_OK), 0);
  for (int s = 1; s < DUMPER_STATUS_COUNT; s++)
    {
      int code = dumper_exit_status ((enum dumper_status) s);
      assert_in_range (code, 64, 99);
      assert_int_equal (seen[code], 0);
      seen[code] = 1;
      const char *msg = dumper_strerror ((enum dumper_status) s);
      assert_non_null (msg);
      assert_true (strlen (msg) > 5);
    }
  assert_string_equal (dumper_strerror ((enum dumper_status) 999),
                       "unknown dumper status");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_cold_start_flags),
    cmocka_unit_test (test_no_image_beside_means_cold),
    cmocka_unit_test (test_temacs_pdump),
    cmocka_unit_test (test_temacs_dump),
    cmocka_unit_test (test_reexec_does_not_loop),
    cmocka_unit_test (test_usage_error_status),
    cmocka_unit_test (test_dump_file_missing_image),
    cmocka_unit_test (test_compile_time_flags),
    cmocka_unit_test (test_dump_refused_without_request),
    cmocka_unit_test (test_status_table),
  };
  return cmocka_run_group_tests_name ("startup and flags (" DUMPER_BACKEND ")",
                                      tests, NULL, NULL);
}
