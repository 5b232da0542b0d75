/* SPDX-License-Identifier: MIT */
/* tools/compare/spawn.c: running child processes and measuring them.

   Owns: posix_spawn with the child's standard streams redirected (to
   files, or to pipes for a child that keeps running), the variables a
   child's environment may get (the base mode of a pdump start, and its
   COLD verification), the
   wall clock around a run (CLOCK_MONOTONIC, from just before the spawn
   to the reaping), and the child's own resource usage from wait4: peak
   resident set (ru_maxrss) and minor page faults (ru_minflt).  The
   figures are the child's alone, never the tool's: wait4 reports the
   process it reaps.

   Must not: interpret the child's output (a running child is asked a
   line and answers one; what it means is measure.c's).  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "compare.h"

extern char **environ;

/* Seconds a child that got end of file has to exit.  */
#define FINISH_TIMEOUT 60.0

volatile sig_atomic_t compare_interrupted;

/* Whether the environment string ENTRY sets a variable that ENV_SET
   (`NAME=VALUE NAME=VALUE ...') sets.  */
static bool
set_by (const char *entry, const char *env_set)
{
  for (const char *a = env_set; *a; )
    {
      size_t name_len = strcspn (a, "=");
      if (strncmp (entry, a, name_len) == 0 && entry[name_len] == '=')
        return true;
      a += strcspn (a, " ");
      a += strspn (a, " ");
    }
  return false;
}

/* The environment with each assignment of ENV_SET (`NAME=VALUE', several
   separated by a space; values without spaces) in place of NAME's
   value; environ itself when ENV_SET is NULL.  Free the vector and its
   last entry (*OWN, the copy of ENV_SET the assignments point into)
   when it is not environ.  */
static char **
child_environ (const char *env_set, char **own)
{
  *own = NULL;
  if (env_set == NULL)
    return environ;
  size_t count = 0, set_count = 1;
  while (environ[count])
    count++;
  for (const char *c = env_set; *c; c++)
    set_count += *c == ' ';
  char **env = tool_xmalloc ((count + set_count + 1) * sizeof *env);
  size_t n = 0;
  for (size_t i = 0; i < count; i++)
    if (!set_by (environ[i], env_set))
      env[n++] = environ[i];
  *own = tool_xstrdup (env_set);
  char *save = NULL;
  for (char *a = strtok_r (*own, " ", &save); a; a = strtok_r (NULL, " ", &save))
    env[n++] = a;
  env[n] = NULL;
  return env;
}

/* Spawn ARGV with standard input IN_FD, or IN_PATH when IN_FD < 0;
   standard output OUT_FD, or OUT_PATH (NULL: /dev/null) when OUT_FD <
   0; standard error to ERR_PATH (NULL: /dev/null).  The start time in
   *STARTED.  Returns 0, or -1 with errno set.  */
static int
start (char *const *argv, const char *env_set, int in_fd, const char *in_path, int out_fd,
       const char *out_path, const char *err_path, pid_t *pid, double *started)
{
  if (compare_interrupted)
    {
      errno = EINTR;
      return -1;
    }
  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init (&actions) != 0)
    return -1;
  int rc = in_fd >= 0 ? posix_spawn_file_actions_adddup2 (&actions, in_fd, 0)
                      : posix_spawn_file_actions_addopen (&actions, 0, in_path, O_RDONLY, 0);
  if (rc == 0)
    rc = out_fd >= 0 ? posix_spawn_file_actions_adddup2 (&actions, out_fd, 1)
                     : posix_spawn_file_actions_addopen (&actions, 1,
                                                         out_path ? out_path : "/dev/null",
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
  char *own;
  char **env = child_environ (env_set, &own);
  *started = common_now ();
  rc = posix_spawnp (pid, argv[0], &actions, NULL, argv, env);
  posix_spawn_file_actions_destroy (&actions);
  if (env != environ)
    free (env);
  free (own);
  if (rc != 0)
    {
      errno = rc;
      return -1;
    }
  return 0;
}

/* Wait for PID, started at STARTED, into RESULT.  */
static int
reap (pid_t pid, double started, struct compare_proc *result)
{
  int status;
  struct rusage ru;
  pid_t got;
  do
    got = wait4 (pid, &status, 0, &ru);
  while (got < 0 && errno == EINTR);
  result->seconds = common_now () - started;
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

int
compare_spawn (char *const *argv, const char *env_set, const char *out_path,
               const char *err_path, struct compare_proc *result)
{
  memset (result, 0, sizeof *result);
  pid_t pid;
  double started;
  if (start (argv, env_set, -1, "/dev/null", -1, out_path, err_path, &pid, &started) != 0)
    return -1;
  return reap (pid, started, result);
}

int
compare_spawn_child (char *const *argv, const char *env_set, const char *err_path,
                     struct compare_child *c)
{
  int in[2], out[2];
  c->pid = 0;
  c->to_child = c->from_child = -1;
  if (pipe2 (in, O_CLOEXEC) != 0)
    return -1;
  if (pipe2 (out, O_CLOEXEC) != 0)
    {
      close (in[0]);
      close (in[1]);
      return -1;
    }
  pid_t pid;
  int st = start (argv, env_set, in[0], NULL, out[1], NULL, err_path, &pid, &c->started);
  int saved = errno;
  close (in[0]);
  close (out[1]);
  if (st != 0)
    {
      close (in[1]);
      close (out[0]);
      errno = saved;
      return -1;
    }
  c->pid = pid;
  c->to_child = in[1];
  c->from_child = out[0];
  return 0;
}

int
compare_child_ask (struct compare_child *c, const char *line, double timeout)
{
  size_t len = strlen (line);
  char *text = tool_xmalloc (len + 1);
  memcpy (text, line, len);
  text[len] = '\n';
  /* A child that ended makes the write fail with EPIPE: the tool
     ignores SIGPIPE while it writes.  */
  struct sigaction ignore, old;
  memset (&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigaction (SIGPIPE, &ignore, &old);
  size_t done = 0;
  while (done < len + 1)
    {
      ssize_t n = write (c->to_child, text + done, len + 1 - done);
      if (n < 0 && errno == EINTR && !compare_interrupted)
        continue;
      if (n < 0)
        break;
      done += (size_t) n;
    }
  int saved = errno;
  sigaction (SIGPIPE, &old, NULL);
  free (text);
  if (done < len + 1)
    {
      errno = saved;
      return -1;
    }
  double deadline = common_now () + timeout;
  for (;;)
    {
      double left = deadline - common_now ();
      if (left <= 0)
        {
          errno = ETIMEDOUT;
          return -1;
        }
      struct pollfd p = { c->from_child, POLLIN, 0 };
      int ready = poll (&p, 1, (int) (left * 1000) + 1);
      if (ready < 0 && errno == EINTR && !compare_interrupted)
        continue;
      if (ready < 0)
        return -1;
      if (ready == 0)
        continue;
      char buf[512];
      ssize_t n = read (c->from_child, buf, sizeof buf);
      if (n < 0 && errno == EINTR && !compare_interrupted)
        continue;
      if (n < 0)
        return -1;
      if (n == 0)
        {
          errno = EPIPE;
          return -1;
        }
      if (memchr (buf, '\n', (size_t) n))
        return 0;
    }
}

int
compare_child_finish (struct compare_child *c, bool kill_it, struct compare_proc *result)
{
  memset (result, 0, sizeof *result);
  if (kill_it && c->pid > 0)
    kill (c->pid, SIGKILL);
  if (c->to_child >= 0)
    close (c->to_child);
  c->to_child = -1;
  /* Drain what it prints on its way out, so it never blocks on a full
     pipe; end of file when it exits.  One that is still there after
     FINISH_TIMEOUT seconds is killed (and reaped as such).  */
  if (c->from_child >= 0)
    {
      double deadline = common_now () + FINISH_TIMEOUT;
      bool killed = kill_it;
      for (;;)
        {
          double left = deadline - common_now ();
          if (left <= 0 && !killed && c->pid > 0)
            {
              kill (c->pid, SIGKILL);
              killed = true;
            }
          struct pollfd p = { c->from_child, POLLIN, 0 };
          /* Once killed, 5 s more: a process it left behind may hold
             the pipe open.  */
          int ready = poll (&p, 1, killed ? 5000 : (int) (left * 1000) + 1);
          if ((ready < 0 && errno != EINTR) || (ready == 0 && killed))
            break;
          if (ready <= 0)
            continue;
          char buf[4096];
          ssize_t n = read (c->from_child, buf, sizeof buf);
          if (n == 0 || (n < 0 && errno != EINTR))
            break;
        }
      close (c->from_child);
      c->from_child = -1;
    }
  if (c->pid == 0)
    return 0;
  pid_t pid = c->pid;
  c->pid = 0;
  return reap (pid, c->started, result);
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
