/* SPDX-License-Identifier: MIT */
/* tools/compare/spawn.c: running one child process and measuring it.

   Owns: posix_spawn with the child's standard streams redirected to
   files, the wall clock around it (CLOCK_MONOTONIC, from just before the
   spawn to the reaping), and the child's own resource usage from wait4:
   peak resident set (ru_maxrss) and minor page faults (ru_minflt).  The
   figures are the child's alone, never the tool's: wait4 reports the
   process it reaps.

   Must not: interpret the child's output.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "common/clock.h"
#include "compare.h"

extern char **environ;

volatile sig_atomic_t compare_interrupted;

int
compare_spawn (char *const *argv, const char *out_path, const char *err_path,
               struct compare_proc *result)
{
  memset (result, 0, sizeof *result);
  if (compare_interrupted)
    {
      errno = EINTR;
      return -1;
    }
  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init (&actions) != 0)
    return -1;
  int rc = posix_spawn_file_actions_addopen (&actions, 0, "/dev/null", O_RDONLY, 0);
  if (rc == 0)
    rc = posix_spawn_file_actions_addopen (&actions, 1, out_path ? out_path : "/dev/null",
                                           O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (rc == 0)
    rc = posix_spawn_file_actions_addopen (&actions, 2, err_path ? err_path : "/dev/null",
                                           O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (rc != 0)
    {
      posix_spawn_file_actions_destroy (&actions);
      errno = rc;
      return -1;
    }
  pid_t pid;
  double t0 = common_now ();
  rc = posix_spawnp (&pid, argv[0], &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy (&actions);
  if (rc != 0)
    {
      errno = rc;
      return -1;
    }
  int status;
  struct rusage ru;
  pid_t got;
  do
    got = wait4 (pid, &status, 0, &ru);
  while (got < 0 && errno == EINTR);
  result->seconds = common_now () - t0;
  if (got < 0)
    return -1;
  result->max_rss_kb = ru.ru_maxrss;
  result->minor_faults = ru.ru_minflt;
  if (WIFSIGNALED (status))
    result->signal = WTERMSIG (status);
  else
    result->exit_status = WEXITSTATUS (status);
  return 0;
}

bool
compare_proc_ok (const struct compare_proc *p)
{
  return p->signal == 0 && p->exit_status == 0;
}

void
compare_proc_describe (const struct compare_proc *p, char *buf, size_t size)
{
  if (p->signal)
    snprintf (buf, size, "killed by signal %d (%s)", p->signal, strsignal (p->signal));
  else
    snprintf (buf, size, "exit status %d", p->exit_status);
}
