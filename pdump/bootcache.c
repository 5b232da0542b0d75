/* SPDX-License-Identifier: MIT */
/* pdump/bootcache.c: base mode boot's per-boot base and per-user cache
   (bootcache.h says what lies where and what is trusted).  */

#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "bootcache.h"
#include "common/os.h"
#include "format.h"
#include "hash.h"
#include "internal.h"

#if defined __has_feature
# if __has_feature (address_sanitizer)
#  define BOOT_ASAN 1
# endif
#endif
#if defined __SANITIZE_ADDRESS__
# define BOOT_ASAN 1
#endif

/* New bases are multiples of the huge page size (2 MiB on x86-64, the
   kernel's on others: common/os.c), so the cache's mapping can have
   huge pages.  A base is never written to an image, only to this
   machine's base file and cache, so it may follow the machine.  One
   read back is only required to be a multiple of the page, which is
   what the loader needs: the huge page size costs a sysfs read, which
   a start from the cache does not otherwise make.  */
#define BOOT_ALIGN ((uint64_t) common_huge_page_size ())

static bool
reason (struct pdump_boot *b, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

static bool
reason (struct pdump_boot *b, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (b->reason, sizeof b->reason, fmt, ap);
  va_end (ap);
  return false;
}

/* This user (the effective uid), asked once a load: every check of
   the directory, the base, the cache and its stamp compares owners with
   it, five system calls where one does (issue 33, the fixed cost of a
   start).  Not once a process: the uid may change between loads.  */
static uid_t
user_of (struct pdump_boot *b)
{
  if (!b->uid_known)
    {
      b->uid = geteuid ();
      b->uid_known = true;
    }
  return b->uid;
}

/* PATH is a directory of this user that no one else may enter
   (common_private_dir).  When not, false with the reason and errno
   ENOENT only if there is nothing at PATH (make_dir then creates it).  */
static bool
private_dir (struct pdump_boot *b, const char *path)
{
  return common_private_dir (path, user_of (b), b->reason, sizeof b->reason);
}

/* A new random base, in a range the kernel's layout leaves free with
   ASLR (the range of preferred bases: format.h, PDUMP_DEFAULT_BASE):
   [64 GiB, 256 GiB) with 39-bit addresses (aarch64), [2 TiB, 32 TiB)
   with 47 bits or more, [256 MiB, 1 GiB) with 32-bit words;
   AddressSanitizer's high memory under it (its shadow takes the
   others).  */
static uint64_t
random_base (void)
{
  uint64_t lo, hi;
#if UINTPTR_MAX <= 0xffffffffu
  lo = UINT64_C (0x10000000), hi = UINT64_C (0x40000000);
#elif defined BOOT_ASAN
  lo = UINT64_C (0x500000000000), hi = UINT64_C (0x580000000000);
#else
  int here;
  if ((uintptr_t) &here >> 46)
    lo = UINT64_C (1) << 41, hi = UINT64_C (1) << 45;
  else
    lo = UINT64_C (64) << 30, hi = UINT64_C (256) << 30;
#endif
  uint64_t r = 0;
  if (!common_random_bytes (&r, sizeof r))
    r = (uint64_t) (pdump_now () * 1e9) ^ ((uint64_t) getpid () << 32);
  uint64_t slots = (hi - lo) / BOOT_ALIGN;
  return lo + r % (slots ? slots : 1) * BOOT_ALIGN;
}

/* This boot's base from DIR/base, written first when it is missing or
   from another boot.  The first writer wins (link), so processes that
   start together agree.  */
static bool
boot_base (struct pdump_boot *b)
{
  char id[40], path[sizeof b->dir + 8];
  if (!common_boot_id (id))
    return reason (b, "cannot read /proc/sys/kernel/random/boot_id");
  snprintf (path, sizeof path, "%s/base", b->dir);
  for (int attempt = 0; attempt < 2; attempt++)
    {
      char text[128] = "", file_id[40];
      uint64_t base;
      errno = 0;
      bool exists = common_read_private (path, user_of (b), text, sizeof text)
                    || errno != ENOENT;
      if (sscanf (text, "%39s %" SCNx64, file_id, &base) == 2
          && strcmp (file_id, id) == 0 && base != 0
          && base % common_page_size () == 0)
        {
          b->base = base;
          return true;
        }
      /* Missing, damaged or from another boot: a new one.  */
      char tmp[sizeof b->dir + 32];
      snprintf (tmp, sizeof tmp, "%s/base.%ld", b->dir, (long) getpid ());
      int out = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW
                      | O_CLOEXEC, 0600);
      if (out < 0)
        return reason (b, "%s: %s", tmp, strerror (errno));
      int len = snprintf (text, sizeof text, "%s %" PRIx64 "\n", id,
                          random_base ());
      int err = common_write_fully (out, text, (size_t) len);
      close (out);
      if (err == 0 && exists)
        err = rename (tmp, path) == 0 ? 0 : errno;   /* replace a stale one */
      else if (err == 0)
        err = link (tmp, path) == 0 || errno == EEXIST ? 0 : errno;
      unlink (tmp);
      if (err != 0)
        return reason (b, "%s: %s", path, strerror (err));
    }
  return reason (b, "%s: cannot agree on this boot's base", path);
}

/* DIR (PARENT/NAME, created when missing) when it is a private
   directory of this user; false with the reason (LABEL names PARENT
   there).  PRIVATE_PARENT: the
   parent must be private too ($XDG_RUNTIME_DIR); otherwise it may be a
   shared directory with the sticky bit owned by root, such as /tmp,
   where no other user can rename or remove what this user made.  */
static bool
make_dir (struct pdump_boot *b, const char *parent, const char *label,
          const char *name, bool private_parent, char *dir, size_t size)
{
  if (private_parent)
    {
      if (!private_dir (b, parent))
        return false;
    }
  else if (!common_shared_parent_dir (parent, user_of (b)))
    return reason (b, "%s is not a directory of this user, nor a sticky "
                   "directory of root", parent);
  if ((size_t) snprintf (dir, size, "%s/%s", parent, name) >= size)
    return reason (b, "%s is too long", label);
  /* Checked first, created only when missing: at every start but the
     first the directory exists, and the check is then the one system
     call (a mkdir first cost one more, answered EEXIST).  */
  if (private_dir (b, dir))
    return true;
  if (errno != ENOENT)
    return false;
  if (mkdir (dir, 0700) != 0 && errno != EEXIST)
    return reason (b, "cannot create %s: %s", dir, strerror (errno));
  return private_dir (b, dir);
}

/* This user's directory: $XDG_RUNTIME_DIR/dumper, or where that is
   unset or unusable (containers, CI jobs, cron, su and sudo shells),
   $TMPDIR/dumper-UID (/tmp without TMPDIR): as private (0700, this
   user's, not a symbolic link), in a parent no other user can change
   (issue 33).  The reason names each place refused.  */
static bool
user_dir (struct pdump_boot *b, char *dir, size_t size)
{
  const char *runtime = b->runtime_dir;
  if (runtime != NULL && runtime[0] == '/')
    {
      if (make_dir (b, runtime, "XDG_RUNTIME_DIR", "dumper", true, dir, size))
        return b->dir_is_xdg = true;
    }
  else
    reason (b, "XDG_RUNTIME_DIR is not set to an absolute path");
  char first[256];   /* not initialised: a start touches no more stack */
  snprintf (first, sizeof first, "%.255s", b->reason);
  const char *tmp = b->tmp_dir;
  if (tmp == NULL || tmp[0] != '/')
    tmp = "/tmp";
  char name[32];
  snprintf (name, sizeof name, "dumper-%u", (unsigned) user_of (b));
  b->dir_is_xdg = false;
  if (make_dir (b, tmp, "TMPDIR", name, false, dir, size))
    return true;
  char second[256];
  snprintf (second, sizeof second, "%.255s", b->reason);
  return reason (b, "%s; and %s", first, second);
}

/* DIR, checked (created when missing), and the image's PREFIX.  */
static bool
boot_dir (struct pdump_boot *b, const char *image_path)
{
  if (b->dir[0] != '\0')
    return true;
  char dir[sizeof b->dir];
  if (!user_dir (b, dir, sizeof dir))
    return false;
  memcpy (b->dir, dir, sizeof dir);   /* set once checked */
  /* The image's caches are named by its path (realpath when it has
     one), so a new dump of the same file replaces the old cache.  */
  char *real = realpath (image_path, NULL);
  const char *name = real ? real : image_path;
  snprintf (b->prefix, sizeof b->prefix, "%016" PRIx64 "-",
            (uint64_t) XXH3_64bits (name, strlen (name)));
  free (real);
  return true;
}

void
pdump_boot_init (struct pdump_boot *b, const char *runtime_dir,
                 const char *tmp_dir)
{
  memset (b, 0, offsetof (struct pdump_boot, dir));
  b->lock_fd = -1;
  b->runtime_dir = runtime_dir;
  b->tmp_dir = tmp_dir;
  b->dir[0] = b->cache[0] = b->reason[0] = '\0';
}

bool
pdump_boot_setup (struct pdump_boot *b, const char *image_path,
                  uint64_t image_sum, const struct stat *image)
{
  b->base = 0;
  b->image = image;
  if (!boot_dir (b, image_path))
    return false;
  if (!boot_base (b))
    {
      b->base = 0;
      return false;
    }
  if ((size_t) snprintf (b->cache, sizeof b->cache, "%s/%s%016" PRIx64
                         "-%" PRIx64 ".pdmp", b->dir, b->prefix, image_sum,
                         b->base) >= sizeof b->cache)
    {
      b->base = 0;
      return reason (b, "XDG_RUNTIME_DIR is too long");
    }
  return true;
}

/* What identifies a file's bytes as last written: device, inode, size,
   and the change time, which every write, truncation, chmod or rename
   moves and which no user can set back.  */
static void
stamp_of (const struct stat *st, char *text, size_t size)
{
  snprintf (text, size, "%ju %ju %jd %jd.%09ld\n", (uintmax_t) st->st_dev,
            (uintmax_t) st->st_ino, (intmax_t) st->st_size,
            (intmax_t) st->st_ctim.tv_sec, (long) st->st_ctim.tv_nsec);
}

/* The stamp of the cache whose status is ST: its own line, then the
   image file's as it was when the cache was written from it (issue
   33).  The cache is named by the image's header checksum, which
   covers the sections' checksums but not their bytes: an image damaged
   or rewritten in place under an intact header would otherwise go on
   loading from the cache, its damage never seen.  Any write to the
   image moves its change time, a replacement its inode: either makes
   the next start load the image itself, checked in full.  */
static void
stamp_text (const struct pdump_boot *b, const struct stat *st, char *text,
            size_t size)
{
  stamp_of (st, text, size);
  size_t used = strlen (text);
  if (b->image != NULL)
    stamp_of (b->image, text + used, size - used);
}

/* Whether the cache open as FD is the file this boot's writer stamped
   (CACHE.stamp): not changed since it was written and checked, and
   written from the image file as it is now.  False with the reason.  */
static bool
stamped (struct pdump_boot *b, const struct stat *st, const char **bad)
{
  char path[sizeof b->cache + 8], want[256], have[256] = "";
  snprintf (path, sizeof path, "%s.stamp", b->cache);
  *bad = "changed since it was written, or not stamped";
  if (!common_read_private (path, user_of (b), have, sizeof have))
    return false;
  stamp_text (b, st, want, sizeof want);
  if (strcmp (want, have) == 0)
    return true;
  size_t own = strcspn (want, "\n") + 1;
  if (strncmp (want, have, own) == 0)
    *bad = "the image file changed since the cache was written from it";
  return false;
}

/* Stamp the cache just put in place.  */
static void
stamp (struct pdump_boot *b)
{
  char path[sizeof b->cache + 8], text[256];
  struct stat st;
  int fd = common_open_entry (b->cache);
  if (fd < 0)
    return;
  bool ok = fstat (fd, &st) == 0 && S_ISREG (st.st_mode);
  close (fd);
  if (!ok)
    return;
  stamp_text (b, &st, text, sizeof text);
  snprintf (path, sizeof path, "%s.stamp", b->cache);
  struct common_atomic out;
  if (common_atomic_begin (&out, path, "boot", 0600, true) != 0)
    return;
  if (common_atomic_write (&out, text, strlen (text)) == 0)
    common_atomic_commit (&out);
  else
    common_atomic_abort (&out);
}

int
pdump_boot_open (struct pdump_boot *b, struct stat *st)
{
  int fd = common_open_entry (b->cache);
  if (fd < 0)
    {
      reason (b, errno == ENOENT ? "no boot cache yet (%s)" : "%s: %s",
              b->cache, strerror (errno));
      return -1;
    }
  const char *bad = NULL;
  if (fstat (fd, st) != 0)
    bad = strerror (errno);
  else if (!S_ISREG (st->st_mode))
    bad = "not a regular file";
  else if (st->st_uid != user_of (b))
    bad = "owned by another user";
  else if (st->st_mode & 077)
    bad = "group or others have access";
  else if (stamped (b, st, &bad))
    bad = NULL;
  if (bad == NULL)
    return fd;
  close (fd);
  reason (b, "the boot cache %s is not used: %s", b->cache, bad);
  return -1;
}

bool
pdump_boot_matches (struct pdump_boot *b, const struct pdump_view *cache,
                    const struct pdump_view *image)
{
  const struct pdump_header *c = &cache->header, *i = &image->header;
  bool same = c->preferred_base == b->base && !cache->compressed
              && c->image_size == i->image_size
              && c->file_size == i->image_size
              && c->object_count == i->object_count
              && c->type_count == i->type_count && c->tag_bits == i->tag_bits
              && c->page_size == i->page_size;
  for (unsigned k = 1; same && k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      const struct pdump_section *cs = &cache->sections[k];
      const struct pdump_section *is = &image->sections[k];
      same = cs->offset == is->offset && cs->size == is->size
             && cs->count == is->count
             && (k == PDUMP_SECTION_HOT || cs->checksum == is->checksum);
    }
  return same ? true
              : reason (b, "the boot cache %s is not the image relocated to "
                        "0x%" PRIx64, b->cache, b->base);
}

static void
unlock (struct pdump_boot *b)
{
  common_unlock (b->lock_fd);
  b->lock_fd = -1;
}

bool
pdump_boot_write (struct pdump_boot *b, const unsigned char *bytes,
                  uint64_t image_size, uint64_t hot_sum)
{
  struct pdump_header h;
  memcpy (&h, bytes, sizeof h);
  size_t table_size = PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section);
  struct pdump_section table[PDUMP_SECTION_KIND_MAX];
  memcpy (table, bytes + sizeof h, table_size);
  for (size_t i = 0; i < PDUMP_SECTION_KIND_MAX; i++)
    if (table[i].kind == PDUMP_SECTION_HOT)
      table[i].checksum = hot_sum;
  h.preferred_base = b->base;
  h.header_checksum = pdump_header_sum (&h, table);

  /* One writer at a time (DIR/lock, held until the cache and its stamp
     are in place): the others load without writing, and no stamp can
     describe a file another writer has since replaced.  */
  char lock[sizeof b->dir + 8];
  snprintf (lock, sizeof lock, "%s/lock", b->dir);
  bool busy;
  b->lock_fd = common_try_lock (lock, &busy);
  if (b->lock_fd < 0 && !busy)
    return reason (b, "%s: %s", lock, strerror (errno));
  if (b->lock_fd < 0)
    return reason (b, "relocated to this boot's base; another process is "
                   "writing the boot cache %s", b->cache);
  int err = common_atomic_begin (&b->out, b->cache, "boot", 0600, true);
  if (err != 0)
    {
      unlock (b);
      return reason (b, "the boot cache %s was not written (%s): %s",
                     b->cache, b->out.step, strerror (err));
    }
  err = common_atomic_write (&b->out, &h, sizeof h);
  if (err == 0)
    err = common_atomic_write (&b->out, table, table_size);
  if (err == 0)
    err = common_atomic_write (&b->out, bytes + sizeof h + table_size,
                               (size_t) image_size - sizeof h - table_size);
  if (err != 0)
    {
      common_atomic_abort (&b->out);
      unlock (b);
      return reason (b, "the boot cache %s was not written: %s", b->cache,
                     strerror (err));
    }
  b->writing = true;
  return true;
}

static bool
ends_with (const char *s, const char *suffix)
{
  size_t n = strlen (s), k = strlen (suffix);
  return n >= k && strcmp (s + n - k, suffix) == 0;
}

/* Remove the other files of this image (B->prefix) ending in SUFFIX
   or SUFFIX.stamp but MINE and MINE.stamp: older dumps' caches or COLD
   stamps, caches at other bases.  Temporary files of writers still at
   work are left alone.  */
static void
prune (struct pdump_boot *b, const char *mine, const char *suffix)
{
  DIR *d = opendir (b->dir);
  if (d == NULL)
    return;
  char stamp_suffix[32], mine_stamp[sizeof b->cache];
  snprintf (stamp_suffix, sizeof stamp_suffix, "%s.stamp", suffix);
  snprintf (mine_stamp, sizeof mine_stamp, "%s.stamp", mine);
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    if (strncmp (e->d_name, b->prefix, strlen (b->prefix)) == 0
        && (ends_with (e->d_name, suffix) || ends_with (e->d_name, stamp_suffix))
        && strcmp (e->d_name, mine) != 0 && strcmp (e->d_name, mine_stamp) != 0)
      unlinkat (dirfd (d), e->d_name, 0);
  closedir (d);
}

void
pdump_boot_commit (struct pdump_boot *b)
{
  if (!b->writing)
    return;
  b->writing = false;
  int err = common_atomic_commit (&b->out);
  if (err != 0)
    reason (b, "the boot cache %s was not written (%s): %s", b->cache,
            b->out.step ? b->out.step : "commit", strerror (err));
  else
    {
      reason (b, "relocated to this boot's base; boot cache %s written",
              b->cache);
      stamp (b);
      prune (b, strrchr (b->cache, '/') + 1, ".pdmp");
    }
  unlock (b);
}

void
pdump_boot_abort (struct pdump_boot *b)
{
  if (b->writing)
    common_atomic_abort (&b->out);
  b->writing = false;
  unlock (b);
}

/* The suffix of WHAT's records.  */
static const char *
check_suffix (enum pdump_boot_check what)
{
  return what == PDUMP_BOOT_STRUCTURE ? ".structure" : ".cold";
}

/* DIR/PATHSUM-IMAGESUM.cold (or .structure) for the image at
   IMAGE_PATH.  */
static bool
check_name (struct pdump_boot *b, enum pdump_boot_check what,
            const char *image_path, uint64_t image_sum, char *name,
            size_t size, char *path, size_t path_size)
{
  if (!boot_dir (b, image_path))
    return false;
  snprintf (name, size, "%s%016" PRIx64 "%s", b->prefix, image_sum,
            check_suffix (what));
  return (size_t) snprintf (path, path_size, "%s/%s", b->dir, name)
         < path_size;
}

/* The stamp of image file ST in this boot.  */
static bool
cold_text (const struct stat *st, char *text, size_t size)
{
  char id[40];
  if (!common_boot_id (id))
    return false;
  int n = snprintf (text, size, "%s ", id);
  stamp_of (st, text + n, size - (size_t) n);
  return true;
}

int
pdump_boot_checked (struct pdump_boot *b, enum pdump_boot_check what,
                    const char *image_path, uint64_t image_sum,
                    const struct stat *st)
{
  char name[64], path[sizeof b->dir + 64], want[192], have[192] = "";
  if (!check_name (b, what, image_path, image_sum, name, sizeof name, path,
                   sizeof path))
    return -1;
  if (!cold_text (st, want, sizeof want))
    return reason (b, "cannot read /proc/sys/kernel/random/boot_id") - 1;
  return common_read_private (path, user_of (b), have, sizeof have)
         && strcmp (want, have) == 0;
}

void
pdump_boot_stamp_checked (struct pdump_boot *b, enum pdump_boot_check what,
                          const char *image_path, uint64_t image_sum,
                          const struct stat *st)
{
  char name[64], path[sizeof b->dir + 64], text[192];
  if (!check_name (b, what, image_path, image_sum, name, sizeof name, path,
                   sizeof path)
      || !cold_text (st, text, sizeof text))
    return;
  struct common_atomic out;
  if (common_atomic_begin (&out, path, check_suffix (what) + 1, 0600, true)
      != 0)
    return;
  if (common_atomic_write (&out, text, strlen (text)) != 0)
    {
      common_atomic_abort (&out);
      return;
    }
  if (common_atomic_commit (&out) == 0)
    prune (b, name, check_suffix (what));
}
