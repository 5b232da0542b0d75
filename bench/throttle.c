/* SPDX-License-Identifier: MIT */
/* bench/throttle.c: slow storage for bench/compress.sh, as an LD_PRELOAD
   library.  Every pread and read of a regular file sleeps as long as
   reading that many bytes at BENCH_THROTTLE_MBPS megabytes per second
   (default 100) would take, on top of the (page-cache) read itself.
   The pdump loader reads through pread when DUMPER_PDUMP_LOAD=read and
   for compressed images, so every byte of the image pays the rate; a
   mapped image would not, which is why the bench forces `read' for
   plain images.  Not installed; for measurement only.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static double rate = 0;

static void
pay (int fd, ssize_t n)
{
  struct stat st;
  if (n <= 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  if (rate == 0)
    {
      const char *e = getenv ("BENCH_THROTTLE_MBPS");
      rate = (e && atof (e) > 0 ? atof (e) : 100) * 1e6;
    }
  double seconds = (double) n / rate;
  struct timespec ts = { (time_t) seconds,
                         (long) ((seconds - (double) (time_t) seconds) * 1e9) };
  while (nanosleep (&ts, &ts) != 0)
    ;
}

ssize_t
pread (int fd, void *buf, size_t count, off_t offset)
{
  static ssize_t (*real) (int, void *, size_t, off_t);
  if (real == NULL)
    real = (ssize_t (*) (int, void *, size_t, off_t)) dlsym (RTLD_NEXT, "pread");
  ssize_t n = real (fd, buf, count, offset);
  pay (fd, n);
  return n;
}

ssize_t
pread64 (int fd, void *buf, size_t count, off_t offset)
{
  return pread (fd, buf, count, offset);
}
