/* SPDX-License-Identifier: MIT */
/* common/atomic.c: replacing a file atomically (see atomic.h).

   Why each step:
   - O_EXCL with a random name: never follow or reuse a file someone
     else put there; O_CLOEXEC: a child started by another thread while
     we write must not inherit a descriptor of a half-written file.
   - The mode is given to open(2), so the kernel applies the umask: the
     process umask is never changed, not even for an instant (another
     thread creating a file in that instant would get mode 0666).
   - SIGXFSZ is blocked in the calling thread only, and a SIGXFSZ the
     kernel raised for our write is consumed before the mask is put
     back, so exceeding RLIMIT_FSIZE is the error EFBIG, not a kill.
   - fsync of the file before the rename and of the directory after it:
     after a crash the target is the old or the new file, never an
     empty one.  */

#include <config.h>

#include "common/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int
common_write_fully (int fd, const void *data, size_t size)
{
  const unsigned char *p = data;
  while (size > 0)
    {
      /* Linux writes at most about 2 GiB at once; ask for less.  */
      ssize_t n = write (fd, p, size > (1u << 30) ? (1u << 30) : size);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return errno;
        }
      if (n == 0)
        return EIO;            /* no progress and no error: do not spin */
      p += n;
      size -= (size_t) n;
    }
  return 0;
}

/* The one loop behind common_pwrite_fully and common_pread_fully:
   all of SIZE bytes at OFFSET, in pieces of at most 1 GiB (Linux moves
   at most about 2 GiB at once), retrying after EINTR and short
   transfers.  0, an errno value, or COMMON_EOF when a read finds the
   end of the file (a write that makes no progress is EIO: never
   spin).  */
static int
transfer (int fd, void *data, size_t size, uint64_t offset, bool writing)
{
  unsigned char *p = data;
  while (size > 0)
    {
      size_t piece = size > (1u << 30) ? (1u << 30) : size;
      ssize_t n = writing ? pwrite (fd, p, piece, (off_t) offset)
                          : pread (fd, p, piece, (off_t) offset);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return errno;
        }
      if (n == 0)
        return writing ? EIO : COMMON_EOF;
      p += n;
      size -= (size_t) n;
      offset += (uint64_t) n;
    }
  return 0;
}

int
common_pwrite_fully (int fd, const void *data, size_t size, uint64_t offset)
{
  return transfer (fd, (void *) data, size, offset, true);
}

int
common_pread_fully (int fd, void *data, size_t size, uint64_t offset)
{
  return transfer (fd, data, size, offset, false);
}

/* Six characters that make the temporary name unlikely to exist.  */
static void
random_suffix (char out[6])
{
  static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  static unsigned counter;
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  uint64_t x = (uint64_t) ts.tv_nsec ^ ((uint64_t) ts.tv_sec << 30)
               ^ ((uint64_t) getpid () << 40)
               ^ ((uint64_t) __atomic_add_fetch (&counter, 1, __ATOMIC_RELAXED)
                  * 0x9e3779b97f4a7c15u);
  /* splitmix64's finaliser spreads every input bit over the output.  */
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  x ^= x >> 31;
  for (int i = 0; i < 6; i++, x /= 36)
    out[i] = digits[x % 36];
}

static void
block_xfsz (struct common_atomic *out)
{
  sigset_t xfsz;
  sigemptyset (&xfsz);
  sigaddset (&xfsz, SIGXFSZ);
  pthread_sigmask (SIG_BLOCK, &xfsz, &out->saved_mask);
}

/* Put the thread's mask back, first consuming a SIGXFSZ raised while it
   was blocked (it would kill the process the moment it is unblocked).
   If the caller had SIGXFSZ blocked itself, its pending signals are its
   own business.  */
static void
restore_xfsz (struct common_atomic *out)
{
  if (!sigismember (&out->saved_mask, SIGXFSZ))
    {
      sigset_t pending, xfsz;
      sigemptyset (&xfsz);
      sigaddset (&xfsz, SIGXFSZ);
      static const struct timespec now = { 0, 0 };
      while (sigpending (&pending) == 0 && sigismember (&pending, SIGXFSZ)
             && sigtimedwait (&xfsz, NULL, &now) == SIGXFSZ)
        continue;
    }
  pthread_sigmask (SIG_SETMASK, &out->saved_mask, NULL);
}

/* Free OUT's names and put the signal mask back (once: after a failed
   begin there is nothing to release).  */
static void
release (struct common_atomic *out)
{
  bool active = out->tmp != NULL;
  free (out->path);
  free (out->tmp);
  out->path = out->tmp = NULL;
  if (active)
    restore_xfsz (out);
}

int
common_atomic_begin (struct common_atomic *out, const char *path,
                     const char *tag, mode_t mode, bool exact_mode)
{
  memset (out, 0, sizeof *out);
  out->fd = -1;
  out->step = "create";
  size_t len = strlen (path), tag_len = strlen (tag);
  out->path = strdup (path);
  out->tmp = malloc (len + 1 + tag_len + 1 + 6 + 1);
  if (out->path == NULL || out->tmp == NULL)
    {
      free (out->path);
      free (out->tmp);
      return ENOMEM;
    }
  memcpy (out->tmp, path, len);
  out->tmp[len] = '.';
  memcpy (out->tmp + len + 1, tag, tag_len);
  out->tmp[len + 1 + tag_len] = '-';
  char *suffix = out->tmp + len + 1 + tag_len + 1;
  suffix[6] = '\0';
  int err = EEXIST;
  for (int attempt = 0; attempt < 100 && err == EEXIST; attempt++)
    {
      random_suffix (suffix);
      out->fd = open (out->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
                      mode & 07777);
      err = out->fd < 0 ? errno : 0;
    }
  if (err == 0 && exact_mode && fchmod (out->fd, mode & 07777) != 0)
    {
      err = errno;
      close (out->fd);
      unlink (out->tmp);
    }
  if (err != 0)
    {
      free (out->path);
      free (out->tmp);
      out->path = out->tmp = NULL;
      out->fd = -1;
      return err;
    }
  block_xfsz (out);
  return 0;
}

int
common_atomic_write (struct common_atomic *out, const void *data,
                     size_t size)
{
  int err = common_write_fully (out->fd, data, size);
  if (err != 0)
    out->step = "write";
  return err;
}

int
common_atomic_finish (struct common_atomic *out)
{
  int err = 0;
  if (fsync (out->fd) != 0)
    {
      err = errno;
      out->step = err == EFBIG || err == ENOSPC ? "write" : "sync";
    }
  if (close (out->fd) != 0 && err == 0)
    {
      err = errno;
      out->step = "write";
    }
  out->fd = -1;
  if (err != 0)
    common_atomic_abort (out);
  return err;
}

/* The directory holding PATH, synced so the rename survives a crash.
   A directory we may write but not read, or a file system that cannot
   sync directories, is no error: the rename itself has happened.  */
static int
sync_directory (const char *path)
{
  const char *slash = strrchr (path, '/');
  char *dir = slash == NULL ? strdup (".")
              : slash == path ? strdup ("/")
              : strndup (path, (size_t) (slash - path));
  if (dir == NULL)
    return ENOMEM;
  int err = 0;
  int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0)
    {
      if (fsync (dfd) != 0 && errno != EINVAL && errno != EROFS)
        err = errno;
      close (dfd);
    }
  free (dir);
  return err;
}

int
common_atomic_rename (struct common_atomic *out)
{
  if (rename (out->tmp, out->path) != 0)
    {
      int err = errno;
      out->step = "rename";
      common_atomic_abort (out);
      return err;
    }
  int err = sync_directory (out->path);
  if (err != 0)
    out->step = "sync directory";
  release (out);
  return err;
}

int
common_atomic_commit (struct common_atomic *out)
{
  int err = common_atomic_finish (out);
  return err != 0 ? err : common_atomic_rename (out);
}

void
common_atomic_abort (struct common_atomic *out)
{
  if (out->fd >= 0)
    close (out->fd);
  out->fd = -1;
  if (out->tmp != NULL)
    unlink (out->tmp);
  release (out);
}
