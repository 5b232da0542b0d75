/* SPDX-License-Identifier: MIT */
/* tests/e2e/probe.c: an LD_PRELOAD library that watches how a program
   writes its output files, for tests/e2e/atomic.sh.

   It logs to the file named by $PROBE_LOG, one line per event:
     umask            the process umask was changed (another thread
                      creating a file at that moment gets the wrong mode)
     fsync-noexec F   a regular file was synced through a descriptor
                      without FD_CLOEXEC (a child exec'd meanwhile
                      inherits it)
     fsync-file F     a regular file was synced (F: its inode number)
     fsync-dir        a directory was synced (the rename is durable)
   With $PROBE_FAIL_FSYNC set, every fsync of a regular file fails with
   EIO (logged as fsync-failed F), as on a disk that lost the data: the
   writer must report it and leave no temporary file.
   Only the calls a program makes through the dynamic libc are seen;
   that is every call libdumper.a and the tools make.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
probe_log (const char *line)
{
  const char *path = getenv ("PROBE_LOG");
  if (path == NULL)
    return;
  int fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  ssize_t n = write (fd, line, strlen (line));
  (void) n;
  close (fd);
}

mode_t
umask (mode_t mask)
{
  mode_t (*real) (mode_t) = (mode_t (*) (mode_t)) dlsym (RTLD_NEXT, "umask");
  probe_log ("umask\n");
  return real (mask);
}

int
fsync (int fd)
{
  int (*real) (int) = (int (*) (int)) dlsym (RTLD_NEXT, "fsync");
  struct stat st;
  if (fstat (fd, &st) == 0)
    {
      char line[64];
      if (S_ISDIR (st.st_mode))
        snprintf (line, sizeof line, "fsync-dir\n");
      else if (!(fcntl (fd, F_GETFD) & FD_CLOEXEC))
        snprintf (line, sizeof line, "fsync-noexec %lu\n",
                  (unsigned long) st.st_ino);
      else
        snprintf (line, sizeof line, "fsync-file %lu\n",
                  (unsigned long) st.st_ino);
      probe_log (line);
      if (!S_ISDIR (st.st_mode) && getenv ("PROBE_FAIL_FSYNC") != NULL)
        {
          snprintf (line, sizeof line, "fsync-failed %lu\n",
                    (unsigned long) st.st_ino);
          probe_log (line);
          errno = EIO;
          return -1;
        }
    }
  return real (fd);
}
