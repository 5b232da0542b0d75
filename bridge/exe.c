/* SPDX-License-Identifier: MIT */
/* bridge/exe.c: where the running executable is, where its image is
   looked for and how a loaded image is verified.

   The image is found beside the *real* executable (/proc/self/exe), so
   invoking the program through a symlink or a renamed copy behaves: the
   image belongs to the file, not to the name it was started by.  */

#include <config.h>

#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bridge.h"

#ifndef DUMPER_LIBEXECDIR
# define DUMPER_LIBEXECDIR "/usr/local/libexec"
#endif

static char exe_path[PATH_MAX];
static const char *image_dir_override;

const char *
bridge_exe_path (void)
{
  ssize_t n = readlink ("/proc/self/exe", exe_path, sizeof exe_path - 1);
  if (n <= 0)
    return NULL;
  exe_path[n] = '\0';
  return exe_path;
}

char *
bridge_image_beside (const char *exe)
{
  size_t len = strlen (exe);
  char *path = malloc (len + sizeof ".pdmp");
  if (path)
    {
      memcpy (path, exe, len);
      memcpy (path + len, ".pdmp", sizeof ".pdmp");
    }
  return path;
}

void
dumper_set_image_dir (const char *dir)
{
  image_dir_override = dir;
}

const char *
bridge_image_dir (void)
{
  return image_dir_override ? image_dir_override : DUMPER_LIBEXECDIR "/dumper";
}

/* Verification mode: DUMPER_PDUMP_VERIFY in the environment, else
   dumper_set_verify, else the configured default.  The environment wins
   so that a user (and dumper-inspect --check --deep) can always ask for
   more checking than the host chose.  */
#ifndef DUMPER_DEFAULT_VERIFY
# define DUMPER_DEFAULT_VERIFY DUMPER_VERIFY_NONE
#endif

static int verify_override = -1;

void
dumper_set_verify (enum dumper_verify mode)
{
  verify_override = (int) mode;
}

enum dumper_status
bridge_verify_mode (enum dumper_verify *mode)
{
  const char *env = getenv ("DUMPER_PDUMP_VERIFY");
  if (env && *env)
    {
      if (strcmp (env, "none") == 0)
        *mode = DUMPER_VERIFY_NONE;
      else if (strcmp (env, "structure") == 0)
        *mode = DUMPER_VERIFY_STRUCTURE;
      else
        return bridge_fail (DUMPER_E_USAGE, "DUMPER_PDUMP_VERIFY=%s: valid "
                            "values are `none' and `structure'", env);
      return DUMPER_OK;
    }
  *mode = verify_override >= 0 ? (enum dumper_verify) verify_override
                               : DUMPER_DEFAULT_VERIFY;
  return DUMPER_OK;
}

static int
collect_main (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  struct bridge_exe_span *span = data;
  int max = (int) (sizeof span->start / sizeof span->start[0]);
  for (int i = 0; i < info->dlpi_phnum && span->count < max; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD)
      {
        span->start[span->count] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        span->end[span->count] = span->start[span->count]
                                 + info->dlpi_phdr[i].p_memsz;
        span->count++;
      }
  return 1;   /* the first object is the main program */
}

void
bridge_exe_span (struct bridge_exe_span *span)
{
  span->count = 0;
  dl_iterate_phdr (collect_main, span);
}

bool
bridge_exe_span_contains (const struct bridge_exe_span *span, uintptr_t address)
{
  for (int i = 0; i < span->count; i++)
    if (address >= span->start[i] && address < span->end[i])
      return true;
  return false;
}
