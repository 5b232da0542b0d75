/* SPDX-License-Identifier: MIT */
/* bridge/options.c: every setting of the library, resolved in one place.

   Owns the API's setters (dumper_set_verify, dumper_set_base_mode,
   dumper_set_cold_check, dumper_set_image_dir, dumper_set_compression,
   dumper_set_image_base, dumper_set_strict_lint, dumper_expect_objects)
   and the library's only reads of the environment: bridge_options
   resolves each setting (an API call, then the environment, then the
   configured default), validates it, and fills the one record the back
   ends receive (common/options.h).  doc/environment.md lists the
   variables.

   The loader's settings let the environment win over the API, so that
   a user (and dumper-inspect --check --deep) can always ask for more
   checking, or another base mode, than the host chose.  Must not: read
   a setting anywhere else, or act on one (it only says what they are).  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "common/options.h"
#include "backend.h"

/* What the API set; -1 (or NULL) where it set nothing.  */
static int verify_override = -1, base_mode_override = -1;
static int cold_check_override = -1;
static const char *image_dir_override;
static bool strict_lint;
static unsigned compress_codec;        /* enum pdump_codec */
static int compress_level;
static uint64_t image_base = UINT64_MAX;
static size_t expected_objects;

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

void
dumper_set_cold_check (enum dumper_cold_check mode)
{
  cold_check_override = (int) mode;
}

void
dumper_set_image_dir (const char *dir)
{
  image_dir_override = dir;
}

void
dumper_set_strict_lint (bool strict)
{
  strict_lint = strict;
}

void
dumper_expect_objects (size_t count)
{
  expected_objects = count;
}

enum dumper_status
dumper_set_compression (const char *spec)
{
  bridge_clear_detail ();
  if (spec == NULL)
    spec = "none";
  if (bridge_backend.parse_codec == NULL)
    {
      if (strcmp (spec, "none") == 0)
        return DUMPER_OK;
      return bridge_fail (DUMPER_E_NO_BACKEND,
                          "--compress=%s needs the portable dumper, but this "
                          "build was configured with %s", spec,
                          bridge_backend.configure);
    }
  char detail[256];
  unsigned codec;
  int level;
  if (!bridge_backend.parse_codec (spec, &codec, &level, detail, sizeof detail))
    return bridge_fail (DUMPER_E_USAGE, "%s", detail);
  compress_codec = codec;
  compress_level = level;
  return DUMPER_OK;
}

enum dumper_status
dumper_set_image_base (uint64_t base)
{
  bridge_clear_detail ();
  if (base % (UINT64_C (2) << 20) != 0 || base > (uint64_t) UINTPTR_MAX / 2)
    return bridge_fail (DUMPER_E_USAGE, "image base 0x%llx: not a multiple "
                        "of 2 MiB in the lower half of the address space",
                        (unsigned long long) base);
  image_base = base;
  return DUMPER_OK;
}

/* A setting named VAR with COUNT values NAMES: the index of the
   environment's value; unset or empty, OVERRIDE when an API call set it
   (>= 0), else DEFAULT_CHOICE.  An invalid value in the environment is
   a usage error naming the valid ones (*ST).  */
static unsigned
choice (const char *var, const char *const *names, int count, int override,
        int default_choice, enum dumper_status *st)
{
  const char *env = getenv (var);
  if (env == NULL || *env == '\0')
    return (unsigned) (override >= 0 ? override : default_choice);
  char valid[128] = "";
  for (int i = 0; i < count; i++)
    {
      if (strcmp (env, names[i]) == 0)
        return (unsigned) i;
      size_t used = strlen (valid);
      snprintf (valid + used, sizeof valid - used, "%s`%s'",
                i == 0 ? "" : i == count - 1 ? " and " : ", ", names[i]);
    }
  if (*st == DUMPER_OK)
    *st = bridge_fail (DUMPER_E_USAGE, "%s=%s: valid values are %s", var,
                       env, valid);
  return (unsigned) default_choice;
}

/* Whether the environment variable VAR is set (to anything).  */
static bool
flag (const char *var)
{
  return getenv (var) != NULL;
}

enum dumper_status
bridge_options (struct common_options *o)
{
  /* Each in the order of its enum.  */
  static const char *const verify_names[] = { "none", "structure", "auto" };
  static const char *const base_names[] = { "random", "fixed", "boot" };
  static const char *const cold_names[] = { "full", "boot", "size" };
  static const char *const load_names[] = { "hybrid", "map", "read" };
  enum dumper_status st = DUMPER_OK;
  *o = common_default_options;
  o->verify = choice ("DUMPER_PDUMP_VERIFY", verify_names, 3, verify_override,
                      (int) common_default_options.verify, &st);
  o->verify_from_env = flag ("DUMPER_PDUMP_VERIFY");
  o->base_mode = choice ("DUMPER_PDUMP_BASE", base_names, 3,
                         base_mode_override,
                         (int) common_default_options.base_mode, &st);
  o->cold_check = choice ("DUMPER_PDUMP_COLD", cold_names, 3,
                          cold_check_override,
                          (int) common_default_options.cold_check, &st);
  o->load_choice = choice ("DUMPER_PDUMP_LOAD", load_names, 3, -1,
                           (int) common_default_options.load_choice, &st);
  o->check_only = flag ("DUMPER_PDUMP_CHECK_ONLY");
  if (image_dir_override)
    o->image_dir = image_dir_override;
  o->runtime_dir = getenv ("XDG_RUNTIME_DIR");
  o->tmp_dir = getenv ("TMPDIR");
  o->aslr_reexecuted = flag (BRIDGE_REEXEC_ENV);

  o->strict_lint = strict_lint;
  o->codec = compress_codec;
  o->level = compress_level;
  o->image_base = image_base;
  o->expected_objects = expected_objects;
  o->in_memory = flag ("DUMPER_PDUMP_IN_MEMORY");
  o->visited_map = flag ("DUMPER_PDUMP_VISITED_MAP");
#if DUMPER_TEST_HOOKS
  o->test_damage_image = getenv ("DUMPER_TEST_DAMAGE_IMAGE");
  o->test_truncate_image = getenv ("DUMPER_TEST_TRUNCATE_IMAGE");
  o->test_truncate_when = getenv ("DUMPER_TEST_TRUNCATE_WHEN");
  o->test_occupy_base = flag ("DUMPER_TEST_OCCUPY_BASE");
#endif
  return st;
}
