/* SPDX-License-Identifier: MIT */
/* tools/migrate/fix.c: rewriting files in place (--fix).

   Owns the promise that nothing is ever half-written: the new text goes
   to a temporary file in the same directory (so the rename cannot cross
   file systems), is flushed and synced, gets the old file's permission
   bits, and only then replaces the file with rename(2).  The backup
   PATH.orig is a hard link to the old file made before the rename (a
   copy where links are not possible), so at every instant PATH holds
   either the complete old or the complete new text.  */

#include <config.h>

#include "migrate.h"

#include "common/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Print "dumper-migrate: PATH: WHAT: strerror (ERR)"; false.  */
static bool
report_error (const char *path, const char *what, int err)
{
  fprintf (stderr, "dumper-migrate: %s: %s: %s\n", path, what, strerror (err));
  return false;
}

/* Copy FROM to TO (for file systems without hard links).  */
static bool
copy_file (const char *from, const char *to, mode_t mode)
{
  int in = open (from, O_RDONLY);
  if (in < 0)
    return false;
  int outfd = open (to, O_WRONLY | O_CREAT | O_TRUNC, mode & 07777);
  if (outfd < 0)
    {
      int saved = errno;
      close (in);
      errno = saved;
      return false;
    }
  char buf[65536];
  ssize_t n;
  bool ok = true;
  while (ok && (n = read (in, buf, sizeof buf)) != 0)
    {
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          ok = false;
          break;
        }
      ok = common_write_fully (outfd, buf, (size_t) n) == 0;
    }
  int saved = errno;
  close (in);
  if (close (outfd) != 0)
    ok = false;
  errno = saved;
  return ok;
}

static bool
make_backup (const char *path, mode_t mode)
{
  char *backup = migrate_xasprintf ("%s.orig", path);
  bool ok = true;
  if (unlink (backup) != 0 && errno != ENOENT)
    ok = report_error (backup, "cannot replace the old backup", errno);
  else if (link (path, backup) != 0 && !copy_file (path, backup, mode))
    ok = report_error (backup, "cannot write the backup", errno);
  free (backup);
  return ok;
}

bool
migrate_fix_write (const char *path, const char *text, size_t len, bool backup)
{
  struct stat st;
  if (stat (path, &st) != 0)
    return report_error (path, "cannot stat", errno);
  struct common_atomic out;
  int err = common_atomic_begin (&out, path, "migrate", st.st_mode, true);
  if (err != 0)
    return report_error (path, "cannot create a temporary file beside it",
                         err);
  err = common_atomic_write (&out, text, len);
  if (err != 0)
    common_atomic_abort (&out);
  else
    err = common_atomic_finish (&out);
  if (err != 0)
    return report_error (path, "cannot write the new text", err);
  if (backup && !make_backup (path, st.st_mode))
    {
      common_atomic_abort (&out);
      return false;
    }
  err = common_atomic_rename (&out);
  if (err != 0)
    return report_error (path, strcmp (out.step, "rename") == 0
                               ? "cannot replace it"
                               : "cannot sync its directory", err);
  return true;
}
