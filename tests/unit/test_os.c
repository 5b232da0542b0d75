/* SPDX-License-Identifier: MIT */
/* tests/unit/test_os.c: the OS layer's promises (common/os.h) that the
   boot cache (pdump/bootcache.c) and the bridge rely on, each checked
   here directly, in every build:

   - common_private_dir: a 0700 directory of this user is private; a
     symbolic link to one (not followed), a directory any group or other
     bit is set on, a file, another user's directory (as root) are not,
     each with its reason, errno EEXIST; nothing there is ENOENT;
   - common_shared_parent_dir: this user's directory without group or
     other write, or root's sticky one; not one writable by group or
     others, another user's sticky one (as root), nor a symbolic link;
   - common_read_private: a non-empty 0600 regular file of this user;
     not one others may read, a symbolic link, a FIFO (without waiting),
     an empty file, another user's (as root); ENOENT when missing;
   - common_try_lock: one holder at a time, in this process (another
     open of the file) and in another (a child holding it); free again
     once released; a path that cannot be opened is not "busy";
   - the facts: page sizes, the boot's identifier, the executable's
     path, random bytes.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/os.h"

/* The user a directory or file is given away to, as root.  */
#define OTHER_UID 65534

static char dir[512];   /* short enough that DIR/NAME always fits */

static int
make_scratch (void **state)
{
  (void) state;
  const char *tmp = getenv ("TMPDIR");
  snprintf (dir, sizeof dir, "%s/test_os.XXXXXX",
            tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
  return mkdtemp (dir) == NULL ? -1 : 0;
}

static int
remove_scratch (void **state)
{
  (void) state;
  char command[PATH_MAX + 16];
  snprintf (command, sizeof command, "rm -rf '%s'", dir);
  return system (command) == 0 ? 0 : -1;
}

/* DIR/NAME into PATH.  */
static char *
in_dir (char *path, const char *name)
{
  if ((size_t) snprintf (path, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
    fail_msg ("%s/%s is too long", dir, name);
  return path;
}

/* A new directory DIR/NAME of mode MODE (exactly: umask not applied).  */
static char *
new_dir (char *path, const char *name, mode_t mode)
{
  in_dir (path, name);
  assert_int_equal (mkdir (path, 0700), 0);
  assert_int_equal (chmod (path, mode), 0);
  return path;
}

/* A new file DIR/NAME holding TEXT, of mode MODE.  */
static char *
new_file (char *path, const char *name, const char *text, mode_t mode)
{
  in_dir (path, name);
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  assert_true (fd >= 0);
  assert_int_equal (write (fd, text, strlen (text)), (ssize_t) strlen (text));
  close (fd);
  assert_int_equal (chmod (path, mode), 0);
  return path;
}

/* common_private_dir (PATH) is false with errno ERR and a reason that
   contains WHAT.  */
static void
refused_dir (const char *path, int err, const char *what)
{
  char why[PATH_MAX + 128] = "";
  errno = 0;
  assert_false (common_private_dir (path, geteuid (), why, sizeof why));
  assert_int_equal (errno, err);
  if (strstr (why, what) == NULL || strstr (why, path) == NULL)
    fail_msg ("reason '%s': wanted '%s' and the path", why, what);
}

static void
test_private_dir (void **state)
{
  (void) state;
  char path[PATH_MAX], link_path[PATH_MAX], why[PATH_MAX + 128];
  new_dir (path, "private", 0700);
  assert_true (common_private_dir (path, geteuid (), why, sizeof why));

  static const mode_t open_modes[] = { 0710, 0720, 0701, 0702, 0755 };
  for (size_t i = 0; i < sizeof open_modes / sizeof open_modes[0]; i++)
    {
      char name[16], mode[16];
      snprintf (name, sizeof name, "open%03o", (unsigned) open_modes[i]);
      snprintf (mode, sizeof mode, "mode %03o", (unsigned) open_modes[i]);
      refused_dir (new_dir (path, name, open_modes[i]), EEXIST, mode);
    }

  /* A link to a private directory: the link is judged, not followed.  */
  in_dir (path, "private");
  assert_int_equal (symlink (path, in_dir (link_path, "link")), 0);
  refused_dir (link_path, EEXIST, "is not a directory");

  refused_dir (new_file (path, "file", "x", 0700), EEXIST,
               "is not a directory");
  refused_dir (in_dir (path, "missing"), ENOENT, "No such file");

  if (geteuid () != 0)
    return;   /* only root can give a directory away */
  new_dir (path, "foreign", 0700);
  assert_int_equal (chown (path, OTHER_UID, (gid_t) -1), 0);
  refused_dir (path, EEXIST, "is owned by uid 65534");
}

static void
test_shared_parent_dir (void **state)
{
  (void) state;
  char path[PATH_MAX], link_path[PATH_MAX];
  assert_true (common_shared_parent_dir (new_dir (path, "mine", 0755), geteuid ()));
  assert_true (common_shared_parent_dir (new_dir (path, "mine700", 0700), geteuid ()));
  assert_false (common_shared_parent_dir (new_dir (path, "groupw", 0775), geteuid ()));
  assert_false (common_shared_parent_dir (new_dir (path, "otherw", 0757), geteuid ()));
  assert_false (common_shared_parent_dir (new_file (path, "file", "x", 0700), geteuid ()));
  assert_false (common_shared_parent_dir (in_dir (path, "missing"), geteuid ()));
  in_dir (path, "mine");
  assert_int_equal (symlink (path, in_dir (link_path, "link")), 0);
  assert_false (common_shared_parent_dir (link_path, geteuid ()));

  if (geteuid () != 0)
    return;
  /* Root's sticky directory: other users cannot remove or rename what
     this user makes there.  Another user's: its owner can.  */
  new_dir (path, "sticky", 01777);
  assert_true (common_shared_parent_dir (path, geteuid ()));
  assert_int_equal (chown (path, OTHER_UID, (gid_t) -1), 0);
  assert_false (common_shared_parent_dir (path, geteuid ()));
  /* Root's but not sticky and open to all: anyone may rename.  */
  assert_false (common_shared_parent_dir (new_dir (path, "rootopen", 0777), geteuid ()));
}

static void
test_read_private (void **state)
{
  (void) state;
  char path[PATH_MAX], link_path[PATH_MAX], text[64];
  new_file (path, "good", "boot base\n", 0600);
  assert_true (common_read_private (path, geteuid (), text, sizeof text));
  assert_string_equal (text, "boot base\n");

  /* Only SIZE - 1 bytes are read, and the text is terminated.  */
  assert_true (common_read_private (path, geteuid (), text, 5));
  assert_string_equal (text, "boot");

  static const mode_t open_modes[] = { 0640, 0604, 0620, 0602 };
  for (size_t i = 0; i < sizeof open_modes / sizeof open_modes[0]; i++)
    {
      char name[16];
      snprintf (name, sizeof name, "open%03o", (unsigned) open_modes[i]);
      new_file (path, name, "x\n", open_modes[i]);
      errno = 0;
      assert_false (common_read_private (path, geteuid (), text, sizeof text));
      assert_int_not_equal (errno, ENOENT);
    }

  in_dir (path, "good");
  assert_int_equal (symlink (path, in_dir (link_path, "link")), 0);
  assert_false (common_read_private (link_path, geteuid (), text, sizeof text));
  assert_int_not_equal (errno, ENOENT);

  assert_false (common_read_private (new_file (path, "empty", "", 0600),
                                     geteuid (), text, sizeof text));
  assert_int_not_equal (errno, ENOENT);

  /* A FIFO: refused at once (a plain open would wait for a writer;
     the alarm ends the test if it does).  */
  assert_int_equal (mkfifo (in_dir (path, "fifo"), 0600), 0);
  alarm (10);
  assert_false (common_read_private (path, geteuid (), text, sizeof text));
  alarm (0);
  assert_int_not_equal (errno, ENOENT);

  errno = 0;
  assert_false (common_read_private (in_dir (path, "missing"), geteuid (), text,
                                     sizeof text));
  assert_int_equal (errno, ENOENT);

  if (geteuid () != 0)
    return;
  new_file (path, "foreign", "x\n", 0600);
  assert_int_equal (chown (path, OTHER_UID, (gid_t) -1), 0);
  assert_false (common_read_private (path, geteuid (), text, sizeof text));
}

/* In a child: take the lock of PATH, say so on the pipe (1 taken, 0
   busy), hold it until the parent closes its end, and exit.  */
static pid_t
child_locker (const char *path, int *report, int *release)
{
  int up[2], down[2];
  assert_int_equal (pipe (up), 0);
  assert_int_equal (pipe (down), 0);
  pid_t pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      close (up[0]);
      close (down[1]);
      bool busy;
      int fd = common_try_lock (path, &busy);
      char said = fd >= 0 ? '1' : '0';
      if (write (up[1], &said, 1) != 1)
        _exit (2);
      char c;
      while (read (down[0], &c, 1) > 0)
        ;
      common_unlock (fd);
      _exit (0);
    }
  close (up[1]);
  close (down[0]);
  *report = up[0];
  *release = down[1];
  return pid;
}

static char
child_said (int report)
{
  char said = '?';
  assert_int_equal (read (report, &said, 1), 1);
  return said;
}

static void
end_child (pid_t pid, int report, int release)
{
  close (release);
  close (report);
  int status;
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static void
test_try_lock (void **state)
{
  (void) state;
  char path[PATH_MAX];
  bool busy = true;
  int fd = common_try_lock (in_dir (path, "lock"), &busy);
  assert_true (fd >= 0);
  assert_false (busy);
  struct stat st;
  assert_int_equal (stat (path, &st), 0);
  assert_int_equal (st.st_mode & 0777, 0600);

  /* Held: another open of the file, even in this process, is refused.  */
  int again = common_try_lock (path, &busy);
  assert_int_equal (again, -1);
  assert_true (busy);

  /* And another process is refused while this one holds it.  */
  int report, release;
  pid_t pid = child_locker (path, &report, &release);
  assert_int_equal (child_said (report), '0');
  end_child (pid, report, release);

  /* Released: another process takes it, and this one is refused until
     that process lets it go.  */
  common_unlock (fd);
  pid = child_locker (path, &report, &release);
  assert_int_equal (child_said (report), '1');
  assert_int_equal (common_try_lock (path, &busy), -1);
  assert_true (busy);
  end_child (pid, report, release);
  fd = common_try_lock (path, &busy);
  assert_true (fd >= 0);
  common_unlock (fd);

  /* Not busy but not opened: a missing directory, a symbolic link.  */
  errno = 0;
  assert_int_equal (common_try_lock (in_dir (path, "missing/lock"), &busy),
                    -1);
  assert_false (busy);
  assert_int_equal (errno, ENOENT);
  char target[PATH_MAX];
  assert_int_equal (symlink (in_dir (target, "lock"),
                             in_dir (path, "lock-link")), 0);
  assert_int_equal (common_try_lock (path, &busy), -1);
  assert_false (busy);
  assert_int_equal (errno, ELOOP);
  common_unlock (-1);   /* nothing to release: no effect */
}

static bool
power_of_two (size_t n)
{
  return n != 0 && (n & (n - 1)) == 0;
}

static void
test_facts (void **state)
{
  (void) state;
  size_t page = common_page_size ();
  assert_true (power_of_two (page));
  assert_int_equal (page, (size_t) sysconf (_SC_PAGESIZE));
  size_t huge = common_huge_page_size ();
  assert_true (power_of_two (huge));
  assert_true (huge >= page);

  char id[40], again[40];
  assert_true (common_boot_id (id));
  assert_int_equal (strlen (id), 36);   /* a UUID, its newline gone */
  assert_true (common_boot_id (again));
  assert_string_equal (id, again);

  /* The executable's path names this program: an absolute path to an
     executable regular file named test_os.  (Not compared with what
     stat of /proc/self/exe finds: under valgrind that is valgrind's
     own tool, while readlink of it is made to give the program's.)  */
  char exe[PATH_MAX];
  assert_true (common_exe_path (exe, sizeof exe));
  struct stat named;
  assert_int_equal (stat (exe, &named), 0);
  assert_true (S_ISREG (named.st_mode) && (named.st_mode & S_IXUSR));
  assert_true (exe[0] == '/');
  const char *base = strrchr (exe, '/') + 1;
  assert_true (strncmp (base, "test_os", 7) == 0);
  assert_false (common_exe_path (exe, 4));   /* does not fit */

  unsigned char a[16], b[16];
  assert_true (common_random_bytes (a, sizeof a));
  assert_true (common_random_bytes (b, sizeof b));
  assert_memory_not_equal (a, b, sizeof a);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_private_dir, make_scratch,
                                     remove_scratch),
    cmocka_unit_test_setup_teardown (test_shared_parent_dir, make_scratch,
                                     remove_scratch),
    cmocka_unit_test_setup_teardown (test_read_private, make_scratch,
                                     remove_scratch),
    cmocka_unit_test_setup_teardown (test_try_lock, make_scratch,
                                     remove_scratch),
    cmocka_unit_test (test_facts),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
