/* SPDX-License-Identifier: MIT */
/* common/os.c: see os.h.  */

#include <config.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_SYS_PERSONALITY_H
# include <sys/personality.h>
#endif

#include "os.h"

size_t
common_page_size (void)
{
  static size_t size;
  if (size == 0)
    {
      long page = sysconf (_SC_PAGESIZE);
      size = page > 0 ? (size_t) page : 4096;
    }
  return size;
}

size_t
common_huge_page_size (void)
{
  static size_t size;
  if (size == 0)
    {
      size_t found = (size_t) 2 << 20;
      char text[32];
      int fd = open ("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
                     O_RDONLY | O_CLOEXEC);
      if (fd >= 0)
        {
          ssize_t n = read (fd, text, sizeof text - 1);
          close (fd);
          text[n > 0 ? n : 0] = '\0';
          char *end;
          unsigned long long v = strtoull (text, &end, 10);
          /* A power of two, a multiple of the page, at most 1 GiB.  */
          if (end != text && v >= (unsigned long long) common_page_size ()
              && v <= (1ull << 30) && (v & (v - 1)) == 0)
            found = (size_t) v;
        }
      size = found;
    }
  return size;
}

void
common_thp_setting (const char *name, char *word, size_t size)
{
  char path[96], text[128];
  snprintf (path, sizeof path, "/sys/kernel/mm/transparent_hugepage/%s", name);
  word[0] = '\0';
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  ssize_t n = read (fd, text, sizeof text - 1);
  close (fd);
  text[n > 0 ? n : 0] = '\0';
  char *open_bracket = strchr (text, '['), *close_bracket;
  if (open_bracket && (close_bracket = strchr (open_bracket, ']'))
      && (size_t) (close_bracket - open_bracket) <= size)
    {
      memcpy (word, open_bracket + 1, (size_t) (close_bracket - open_bracket - 1));
      word[close_bracket - open_bracket - 1] = '\0';
    }
}

long
common_free_huge_blocks (void)
{
  long page = (long) common_page_size ();
  int huge_order = 0;
  while (page > 0 && ((size_t) page << huge_order) < common_huge_page_size ()
         && huge_order < 30)
    huge_order++;
  char text[2048];
  int fd = open ("/proc/buddyinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read (fd, text, sizeof text - 1);
  close (fd);
  if (n <= 0)
    return -1;
  text[n] = '\0';
  long blocks = 0;
  /* Lines "Node 0, zone   Normal   6099   2162 ...": counts of orders
     0, 1, ... after the zone's name.  */
  for (char *line = strtok (text, "\n"); line; line = strtok (NULL, "\n"))
    {
      char *counts = strstr (line, "zone");
      if (counts == NULL)
        continue;
      counts += 4;
      while (*counts == ' ')
        counts++;
      while (*counts && *counts != ' ')   /* the zone's name */
        counts++;
      for (int order = 0; order <= 20; order++)
        {
          char *end;
          long count = strtol (counts, &end, 10);
          if (end == counts)
            break;
          if (order >= huge_order)
            blocks += count << (order - huge_order);
          counts = end;
        }
    }
  return blocks;
}

int
common_huge_advice (uint64_t size, char *note, size_t note_size)
{
  char enabled[32], defrag[32];
  common_thp_setting ("enabled", enabled, sizeof enabled);
  common_thp_setting ("defrag", defrag, sizeof defrag);
  size_t huge = common_huge_page_size ();
  long need = (long) ((size + huge - 1) / huge);
  long free_blocks = -2;
  int advice;
  if (strcmp (enabled, "always") != 0 && strcmp (enabled, "madvise") != 0)
    advice = 0;
  else if (strcmp (defrag, "defer") == 0 || strcmp (defrag, "never") == 0)
    advice = MADV_HUGEPAGE;
  else if ((free_blocks = common_free_huge_blocks ()) >= 2 * need)
    advice = MADV_HUGEPAGE;
  else
    advice = strcmp (defrag, "always") == 0 && strcmp (enabled, "always") == 0
             ? MADV_NOHUGEPAGE : 0;
  if (note)
    snprintf (note, note_size, "%s (enabled=%s, defrag=%s, %ld huge pages "
              "of %zu KiB needed, %ld free)",
              advice == MADV_HUGEPAGE ? "advised"
              : advice == MADV_NOHUGEPAGE ? "refused" : "small pages",
              enabled[0] ? enabled : "?", defrag[0] ? defrag : "?", need,
              huge >> 10, free_blocks);
  return advice;
}

/* The thread's SIGBUS handler (common_catch_sigbus), and the one the
   process had before.  */
static _Thread_local common_fault_fn *bus_fn;
static _Thread_local void *bus_ctx;
static struct sigaction previous_bus_action;

static void
on_sigbus (int sig, siginfo_t *info, void *uc)
{
  (void) sig, (void) info, (void) uc;
  if (bus_fn)
    bus_fn (bus_ctx);           /* jumps away when the fault is its own */
  /* Not this thread's, or declined: the previous handler takes the
     fault when the instruction runs again.  */
  sigaction (SIGBUS, &previous_bus_action, NULL);
}

bool
common_catch_sigbus (common_fault_fn *fn, void *ctx)
{
  struct sigaction action;
  memset (&action, 0, sizeof action);
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO;
  sigemptyset (&action.sa_mask);
  bus_fn = fn;
  bus_ctx = ctx;
  return sigaction (SIGBUS, &action, &previous_bus_action) == 0;
}

void
common_release_sigbus (bool installed)
{
  bus_fn = NULL;
  bus_ctx = NULL;
  if (installed)
    sigaction (SIGBUS, &previous_bus_action, NULL);
}

static int
first_object (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  struct common_program *p = data;
  p->bias = info->dlpi_addr;
  p->phdr = info->dlpi_phdr;
  p->phnum = info->dlpi_phnum;
  return 1;   /* the first object is the main program: stop */
}

int
common_main_program (struct common_program *p)
{
  memset (p, 0, sizeof *p);
  dl_iterate_phdr (first_object, p);
  return p->phdr != NULL && p->phnum > 0;
}

bool
common_reexec_without_aslr (char **argv, const char *guard, bool retried,
                            char *why, size_t size)
{
#ifdef HAVE_SYS_PERSONALITY_H
  int persona = personality (0xffffffff);
  unsetenv (guard);
  if (persona == -1)
    {
      snprintf (why, size, "cannot read the process personality (%s)",
                strerror (errno));
      return false;
    }
  if (persona & ADDR_NO_RANDOMIZE)
    return true;
  if (retried)
    {
      snprintf (why, size, "re-executed with ADDR_NO_RANDOMIZE but ASLR is "
                "still enabled");
      return false;
    }
  if (personality ((unsigned long) persona | ADDR_NO_RANDOMIZE) == -1)
    {
      snprintf (why, size, "cannot disable ASLR with personality (%s)",
                strerror (errno));
      return false;
    }
  setenv (guard, "1", 1);
  execv ("/proc/self/exe", argv);
  int err = errno;
  unsetenv (guard);
  personality ((unsigned long) persona);
  snprintf (why, size, "cannot re-execute /proc/self/exe with ASLR disabled "
            "(%s)", strerror (err));
  return false;
#else
  (void) argv, (void) guard, (void) retried;
  snprintf (why, size, "this system has no personality(2)");
  return false;
#endif
}

bool
common_describe_address (uintptr_t address, char *buf, size_t size)
{
  Dl_info info;
  if (dladdr ((void *) address, &info) == 0 || info.dli_fname == NULL)
    return false;
  if (info.dli_sname != NULL && info.dli_saddr != NULL)
    snprintf (buf, size, "%s+0x%lx in %s", info.dli_sname,
              (unsigned long) (address - (uintptr_t) info.dli_saddr),
              info.dli_fname);
  else
    snprintf (buf, size, "%s", info.dli_fname);
  return true;
}

bool
common_in_main_program (uintptr_t address)
{
  struct common_program program;
  if (!common_main_program (&program))
    return false;
  for (int i = 0; i < program.phnum; i++)
    {
      const ElfW (Phdr) *ph = &program.phdr[i];
      uintptr_t start = program.bias + ph->p_vaddr;
      if (ph->p_type == PT_LOAD && address >= start
          && address - start < ph->p_memsz)
        return true;
    }
  return false;
}

bool
common_exe_path (char *buf, size_t size)
{
  if (size < 2)
    return false;
  /* readlink truncates silently: a result that fills the buffer may
     have been cut.  */
  ssize_t n = readlink ("/proc/self/exe", buf, size - 1);
  if (n <= 0 || (size_t) n >= size - 1)
    return false;
  buf[n] = '\0';
  return true;
}

bool
common_boot_id (char id[40])
{
  int fd = open ("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = read (fd, id, 39);
  close (fd);
  if (n < 32)
    return false;
  id[n] = '\0';
  id[strcspn (id, "\n")] = '\0';
  return true;
}

bool
common_random_bytes (void *buf, size_t size)
{
  return getrandom (buf, size, GRND_NONBLOCK) == (ssize_t) size;
}

bool
common_private_dir (const char *path, uid_t user, char *why, size_t size)
{
  struct stat st;
  if (lstat (path, &st) != 0)
    {
      int err = errno;
      snprintf (why, size, "%s: %s", path, strerror (err));
      errno = err;
      return false;
    }
  errno = EEXIST;   /* every refusal below: something is there */
  if (!S_ISDIR (st.st_mode))
    snprintf (why, size, "%s is not a directory", path);
  else if (st.st_uid != user)
    snprintf (why, size, "%s is owned by uid %u, not by this user (%u)", path,
              (unsigned) st.st_uid, (unsigned) user);
  else if (st.st_mode & 077)
    snprintf (why, size, "%s has mode %03o: group or others have access",
              path, (unsigned) (st.st_mode & 0777));
  else
    return true;
  return false;
}

bool
common_shared_parent_dir (const char *path, uid_t user)
{
  struct stat st;
  return lstat (path, &st) == 0 && S_ISDIR (st.st_mode)
         && ((st.st_uid == user && !(st.st_mode & 022))
             || (st.st_uid == 0 && (st.st_mode & S_ISVTX)));
}

int
common_open_entry (const char *path)
{
  return open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
}

bool
common_read_private (const char *path, uid_t user, char *text, size_t size)
{
  int fd = common_open_entry (path);
  if (fd < 0)
    return false;
  struct stat st;
  ssize_t n = fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
              && st.st_uid == user && !(st.st_mode & 077)
              ? read (fd, text, size - 1) : -1;
  close (fd);
  if (n <= 0)
    {
      errno = EINVAL;
      return false;
    }
  text[n] = '\0';
  return true;
}

int
common_try_lock (const char *path, bool *busy)
{
  *busy = false;
  int fd = open (path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      int err = errno;
      close (fd);
      errno = err;
      *busy = true;
      return -1;
    }
  return fd;
}

void
common_unlock (int fd)
{
  if (fd >= 0)
    close (fd);   /* the last descriptor of the open file: flock released */
}
