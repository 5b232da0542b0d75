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
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bridge.h"
#include "common/os.h"

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

/* The loader settings, verification mode and base mode: in the
   environment (DUMPER_PDUMP_VERIFY, DUMPER_PDUMP_BASE), else set by the
   API (dumper_set_verify, dumper_set_base_mode), else the configured
   default.  The environment wins so that a user (and dumper-inspect
   --check --deep) can always ask for more checking, or another base
   mode, than the host chose.  */
#ifndef DUMPER_DEFAULT_VERIFY
# define DUMPER_DEFAULT_VERIFY DUMPER_VERIFY_NONE
#endif
#ifndef DUMPER_DEFAULT_BASE_MODE
# define DUMPER_DEFAULT_BASE_MODE DUMPER_BASE_RANDOM
#endif
#ifndef DUMPER_DEFAULT_COLD_CHECK
# define DUMPER_DEFAULT_COLD_CHECK DUMPER_COLD_FULL
#endif

static int verify_override = -1, base_mode_override = -1;
static int cold_check_override = -1;

void
dumper_set_cold_check (enum dumper_cold_check mode)
{
  cold_check_override = (int) mode;
}

void
dumper_set_verify (enum dumper_verify mode)
{
  verify_override = (int) mode;
}

void
dumper_set_base_mode (enum dumper_base_mode mode)
{
  base_mode_override = (int) mode;
}

/* A loader setting: the environment variable VAR, one of the COUNT
   values NAMES (its index returned); unset or empty, OVERRIDE when an
   API call set it (>= 0), else DEFAULT_CHOICE.  An invalid value in the
   environment is a usage error naming the valid ones (*ST).  */
static int
loader_setting (const char *var, const char *const *names, int count,
                int override, int default_choice, enum dumper_status *st)
{
  const char *env = getenv (var);
  *st = DUMPER_OK;
  if (env == NULL || *env == '\0')
    return override >= 0 ? override : default_choice;
  char valid[128] = "";
  for (int i = 0; i < count; i++)
    {
      if (strcmp (env, names[i]) == 0)
        return i;
      size_t used = strlen (valid);
      snprintf (valid + used, sizeof valid - used, "%s`%s'",
                i == 0 ? "" : i == count - 1 ? " and " : ", ", names[i]);
    }
  *st = bridge_fail (DUMPER_E_USAGE, "%s=%s: valid values are %s", var, env,
                     valid);
  return default_choice;
}

enum dumper_status
bridge_verify_mode (enum dumper_verify *mode)
{
  static const char *const names[] = { "none", "structure" };
  enum dumper_status st;
  *mode = loader_setting ("DUMPER_PDUMP_VERIFY", names, 2, verify_override,
                          DUMPER_DEFAULT_VERIFY, &st)
          ? DUMPER_VERIFY_STRUCTURE : DUMPER_VERIFY_NONE;
  return st;
}

enum dumper_status
bridge_base_mode (enum dumper_base_mode *mode)
{
  /* In the order of enum dumper_base_mode.  */
  static const char *const names[] = { "random", "fixed", "boot" };
  enum dumper_status st;
  *mode = (enum dumper_base_mode)
    loader_setting ("DUMPER_PDUMP_BASE", names, 3, base_mode_override,
                    DUMPER_DEFAULT_BASE_MODE, &st);
  return st;
}

enum dumper_status
bridge_cold_check (enum dumper_cold_check *mode)
{
  /* In the order of enum dumper_cold_check.  */
  static const char *const names[] = { "full", "boot", "size" };
  enum dumper_status st;
  *mode = (enum dumper_cold_check)
    loader_setting ("DUMPER_PDUMP_COLD", names, 3, cold_check_override,
                    DUMPER_DEFAULT_COLD_CHECK, &st);
  return st;
}

void
bridge_exe_span (struct bridge_exe_span *span)
{
  span->count = 0;
  struct common_program program;
  if (!common_main_program (&program))
    return;
  int max = (int) (sizeof span->start / sizeof span->start[0]);
  for (int i = 0; i < program.phnum && span->count < max; i++)
    if (program.phdr[i].p_type == PT_LOAD)
      {
        span->start[span->count] = program.bias + program.phdr[i].p_vaddr;
        span->end[span->count] = span->start[span->count]
                                 + program.phdr[i].p_memsz;
        span->count++;
      }
}

bool
bridge_exe_span_contains (const struct bridge_exe_span *span, uintptr_t address)
{
  for (int i = 0; i < span->count; i++)
    if (address >= span->start[i] && address < span->end[i])
      return true;
  return false;
}
