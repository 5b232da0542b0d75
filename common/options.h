/* SPDX-License-Identifier: MIT */
/* common/options.h: the one record of a process's dumper settings.

   The bridge resolves every setting once, in bridge/options.c (an API
   call, then the environment, then the configured default; the one
   place the library reads the environment), and hands the back ends
   this record.  The back ends read settings from it and nowhere else.
   doc/environment.md lists the environment variables.  */

#ifndef DUMPER_COMMON_OPTIONS_H
#define DUMPER_COMMON_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the loader brings a pdump image into memory (DUMPER_PDUMP_LOAD).  */
enum common_load_choice
{
  COMMON_LOAD_HYBRID = 0,   /* the default: map what stays shared,
                               read what is written */
  COMMON_LOAD_MAP = 1,
  COMMON_LOAD_READ = 2
};

struct common_options
{
  /* Loading.  */
  unsigned verify;              /* enum dumper_verify */
  bool verify_from_env;         /* DUMPER_PDUMP_VERIFY was set */
  unsigned base_mode;           /* enum dumper_base_mode */
  unsigned cold_check;          /* enum dumper_cold_check */
  unsigned load_choice;         /* enum common_load_choice */
  bool check_only;              /* DUMPER_PDUMP_CHECK_ONLY */
  const char *image_dir;        /* the installed images' directory */
  /* The base mode boot cache's directories: XDG_RUNTIME_DIR and
     TMPDIR as the environment has them (NULL when unset).  */
  const char *runtime_dir;
  const char *tmp_dir;
  bool aslr_reexecuted;         /* this process is the ASLR re-execution */

  /* Dumping.  */
  bool strict_lint;             /* dumper_set_strict_lint */
  unsigned codec;               /* enum pdump_codec, dumper_set_compression */
  int level;                    /* its level, 0 = the codec's default */
  uint64_t image_base;          /* dumper_set_image_base; UINT64_MAX:
                                   the format's default */
  size_t expected_objects;      /* dumper_expect_objects */
  bool in_memory;               /* DUMPER_PDUMP_IN_MEMORY: build the
                                   image in memory, not through the file */
  bool visited_map;             /* DUMPER_PDUMP_VISITED_MAP: the walk's
                                   hash map even when the check numbered
                                   the blocks */

  /* Fault injection, read only in builds configured with
     --enable-test-hooks (DUMPER_TEST_HOOKS); zero in a release.  */
  const char *test_damage_image;    /* DUMPER_TEST_DAMAGE_IMAGE */
  const char *test_truncate_image;  /* DUMPER_TEST_TRUNCATE_IMAGE */
  const char *test_truncate_when;   /* DUMPER_TEST_TRUNCATE_WHEN */
  bool test_occupy_base;            /* DUMPER_TEST_OCCUPY_BASE */
};

/* The record of a process that set nothing: what a back end uses when
   its caller (a tool, a fuzz target) passes none.  */
extern const struct common_options common_default_options;

#endif
