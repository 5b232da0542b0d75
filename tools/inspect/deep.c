/* SPDX-License-Identifier: MIT */
/* tools/inspect/deep.c: dumper-inspect --check --deep.

   The structural pass (pdump/verify-structure.c) needs the host's type table:
   its size and trace functions are code in the host, not data in the
   image.  So the inspector does not imitate it: it runs the host
   itself, BINARY --dump-file=IMAGE with DUMPER_PDUMP_CHECK_ONLY=1 and
   DUMPER_PDUMP_VERIFY=structure in the environment.  The bridge then
   runs the real loader with the structural pass, restores nothing, runs
   no hook and no host code past dumper_describe_heap, prints the
   failure like any failed start-up and exits with the loader's status
   (bridge/startup.c).  The verdict is therefore the loader's by
   construction.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inspect.h"

/* The status whose exit status is CODE, or DUMPER_STATUS_COUNT.  */
static enum dumper_status
status_of_exit (int code)
{
  for (int s = 0; s < DUMPER_STATUS_COUNT; s++)
    if (dumper_exit_status ((enum dumper_status) s) == code)
      return (enum dumper_status) s;
  return DUMPER_STATUS_COUNT;
}

enum dumper_status
insp_deep_check (const char *exe_path, const char *image_path, char *detail,
                 size_t detail_size)
{
  int pipe_fds[2];
  if (pipe (pipe_fds) != 0)
    return pdump_check_fail (DUMPER_E_IO, detail, detail_size, exe_path,
                             "cannot create a pipe: %s", strerror (errno));
  size_t arg_size = strlen (image_path) + sizeof "--dump-file=";
  char *arg = malloc (arg_size);
  if (arg == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, exe_path,
                             "out of memory");
  snprintf (arg, arg_size, "--dump-file=%s", image_path);
  fflush (NULL);
  pid_t pid = fork ();
  if (pid < 0)
    {
      int err = errno;
      free (arg);
      close (pipe_fds[0]);
      close (pipe_fds[1]);
      return pdump_check_fail (DUMPER_E_IO, detail, detail_size, exe_path,
                               "cannot start it: %s", strerror (err));
    }
  if (pid == 0)
    {
      int null_fd = open ("/dev/null", O_RDWR);
      if (null_fd >= 0)
        {
          dup2 (null_fd, STDIN_FILENO);
          dup2 (null_fd, STDOUT_FILENO);
        }
      dup2 (pipe_fds[1], STDERR_FILENO);
      close (pipe_fds[0]);
      setenv ("DUMPER_PDUMP_CHECK_ONLY", "1", 1);
      setenv ("DUMPER_PDUMP_VERIFY", "structure", 1);
      char *argv[] = { (char *) exe_path, arg, NULL };
      execv (exe_path, argv);
      fprintf (stderr, "cannot run %s: %s\n", exe_path, strerror (errno));
      _exit (127);
    }
  free (arg);
  close (pipe_fds[1]);
  char message[INSP_DETAIL_SIZE];
  size_t used = 0;
  for (;;)
    {
      /* Read to the end, keeping the start: the child must never block
         on a full pipe.  */
      char chunk[512];
      ssize_t n = read (pipe_fds[0], chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      size_t room = sizeof message - 1 - used;
      size_t take = (size_t) n < room ? (size_t) n : room;
      memcpy (message + used, chunk, take);
      used += take;
    }
  close (pipe_fds[0]);
  message[used] = '\0';
  char *newline = strchr (message, '\n');
  if (newline)
    *newline = '\0';
  int wstatus;
  while (waitpid (pid, &wstatus, 0) < 0)
    if (errno != EINTR)
      return pdump_check_fail (DUMPER_E_IO, detail, detail_size, exe_path,
                               "cannot wait for it: %s", strerror (errno));

  if (WIFEXITED (wstatus))
    {
      enum dumper_status st = status_of_exit (WEXITSTATUS (wstatus));
      if (st == DUMPER_OK)
        return DUMPER_OK;
      if (st != DUMPER_STATUS_COUNT && st != DUMPER_E_USAGE)
        {
          /* "PROGRAM: class: IMAGE: problem": keep from the image on.  */
          const char *from = strstr (message, image_path);
          snprintf (detail, detail_size, "%s", from ? from : message);
          return st;
        }
      return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, exe_path,
                               "exited with status %d while checking the "
                               "image (is it a dumper host built with "
                               "--with-dumper=pdumper?)%s%s",
                               WEXITSTATUS (wstatus), *message ? ": " : "",
                               message);
    }
  return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, exe_path,
                           "was killed by signal %d while checking the image "
                           "%s%s%s", WTERMSIG (wstatus), image_path,
                           *message ? ": " : "", message);
}
