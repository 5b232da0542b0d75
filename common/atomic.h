/* SPDX-License-Identifier: MIT */
/* common/atomic.h: replacing a file atomically (temporary file, then
   rename).

   Shared by every writer of the project: the pdump image writer, the
   unexec executable writer, dumper-fingerprint and dumper-migrate.  The
   target PATH is either its old content or the complete new one at
   every instant, whatever happens (error, full disk, file-size limit,
   crash after the rename: the rename and the directory are synced).

   Usage:
     struct common_atomic out;
     int err = common_atomic_begin (&out, path, "tmp", 0644, false);
     ... common_atomic_write (&out, buf, n) or write to out.fd ...
     err = common_atomic_commit (&out);      (or common_atomic_abort)
   Every function returns 0 or an errno value; on failure OUT.step names
   the step that failed ("create", "write", "sync", "rename"), for the
   caller's message.  After a failed begin or commit nothing is left on
   disk and nothing needs releasing.

   Between begin and commit/abort the calling thread has SIGXFSZ
   blocked: a write beyond RLIMIT_FSIZE fails with EFBIG instead of
   killing the process (the pending signal the kernel raises is consumed
   before the mask is restored).  No function here touches the process
   umask or a signal disposition, so other threads are not disturbed.

   Must not: know anything about what is written (images, executables,
   source text); call up into bridge/, pdump/ or unexec/.  */

#ifndef DUMPER_COMMON_ATOMIC_H
#define DUMPER_COMMON_ATOMIC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct common_atomic
{
  int fd;                     /* the temporary file, open for reading
                                 and writing (a writer may read back
                                 what it wrote: the pdump writer does) */
  char *path;                 /* the target (a copy) */
  char *tmp;                  /* the temporary file's name */
  const char *step;           /* the step that failed, for messages */
  sigset_t saved_mask;        /* the thread's mask before begin */
  bool efbig;                 /* a write failed with EFBIG */
};

/* Create a temporary file PATH.TAG-XXXXXX beside PATH (O_CREAT|O_EXCL|
   O_CLOEXEC, a fresh random XXXXXX on a clash) with mode MODE.  TAG
   names the writer, so a file left by a killed process says whose it
   is.  If EXACT_MODE is false the kernel applies the umask, as
   for any new file; if true (rewriting an existing file and keeping its
   permissions) the file gets exactly MODE.  */
int common_atomic_begin (struct common_atomic *out, const char *path,
                         const char *tag, mode_t mode, bool exact_mode);

/* Write SIZE bytes at DATA to OUT->fd, retrying after EINTR and short
   writes.  Returns 0 or an errno value (EFBIG past a file-size limit,
   ENOSPC on a full disk).  Does not abort OUT.  */
int common_atomic_write (struct common_atomic *out, const void *data,
                         size_t size);

/* Also usable on any descriptor: write all of DATA to FD.  */
int common_write_fully (int fd, const void *data, size_t size);
/* The same at OFFSET (pwrite), and all of SIZE bytes read from OFFSET
   (pread), for writers that fill a file out of order and for the
   loader.  A read that finds the end of the file first returns
   COMMON_EOF, which is no errno value: a loader tells a truncated file
   from an I/O error by it.  */
#define COMMON_EOF (-1)
int common_pwrite_fully (int fd, const void *data, size_t size,
                         uint64_t offset);
int common_pread_fully (int fd, void *data, size_t size, uint64_t offset);

/* Sync and close the temporary file, rename it over the target and sync
   the directory.  On failure the temporary file is removed.  Either way
   OUT is released.  */
int common_atomic_commit (struct common_atomic *out);

/* Like common_atomic_commit, but only up to and excluding the rename:
   the file is synced and closed; call common_atomic_rename or
   common_atomic_abort next.  For callers with a step between the two
   (dumper-migrate makes its backup there).  */
int common_atomic_finish (struct common_atomic *out);
int common_atomic_rename (struct common_atomic *out);

/* Give up: close and remove the temporary file, release OUT.  */
void common_atomic_abort (struct common_atomic *out);

#endif
