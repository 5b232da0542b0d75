/* SPDX-License-Identifier: MIT */
/* host/env.c: per-start state, and the C scalars kept across dumps.

   Owns: the variables that describe this run rather than the world --
   command-line-args, dlisp-home ($HOME), default-directory (the current
   directory), dlisp-start-time, dlisp-lisp-directory, dlisp-origin
   (cold, unexec or pdump) and noninteractive.  Their symbols carry
   DL_F_PER_START: the digest records a marker instead of their values,
   and dl_env_clear empties them before a dump, so neither digests nor
   images depend on the run that produced them.  dl_env_init sets them
   again after every start.

   Also the remembered C scalars of the world (scale, loaded flag,
   gensym counter), registered with DUMPER_REMEMBER_SCALAR.

   Must not: store anything per-start anywhere but in these symbols'
   value cells (and the C string dl_lisp_dir returns).  */

#include <config.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lisp.h"

int64_t dl_world_scale;
bool dl_world_loaded;
uint64_t dl_gensym_counter;

/* DLISP_TEST_FORGET_SCALAR builds a deliberately broken host for
   dumper-compare's tests (tests/compare/): the `loaded' flag is not
   remembered, so a start from a pdump image believes the world is
   missing and runs the loadup again on top of it, and its heap diverges
   from a cold start's.  (An unexec executable still has it: its data
   segment keeps every static, remembered or not.)  Never defined in a
   normal build.  */
#ifdef DLISP_TEST_FORGET_SCALAR
# define REMEMBER_WORLD_LOADED() DUMPER_OK
#else
# define REMEMBER_WORLD_LOADED() DUMPER_REMEMBER_SCALAR (dl_world_loaded)
#endif

/* Per start; points at argv, the environment or a literal.  Cleared
   before a dump so no saved data points at this run's stack.  */
static const char *lisp_dir;

static const int per_start_symbols[] = {
  DL_SYM_command_line_args, DL_SYM_dlisp_home, DL_SYM_default_directory,
  DL_SYM_dlisp_start_time, DL_SYM_dlisp_lisp_directory, DL_SYM_dlisp_origin,
  DL_SYM_noninteractive,
};
#define PER_START_COUNT (sizeof per_start_symbols / sizeof per_start_symbols[0])

const char *
dl_lisp_dir (void)
{
  return lisp_dir ? lisp_dir : ".";
}

void
dl_env_register (void)
{
  for (size_t i = 0; i < PER_START_COUNT; i++)
    {
      struct dl_symbol *s = dl_xsym (dl_syms[per_start_symbols[i]]);
      s->h.flags |= DL_F_PER_START | DL_F_SPECIAL;
      s->value = Qnil;
    }
  if (DUMPER_REMEMBER_SCALAR (dl_world_scale) != DUMPER_OK
      || REMEMBER_WORLD_LOADED () != DUMPER_OK
      || DUMPER_REMEMBER_SCALAR (dl_gensym_counter) != DUMPER_OK)
    {
      fprintf (stderr, "dlisp: fatal: cannot register scalars: %s\n",
               dumper_error_detail ());
      exit (71);
    }
}

static dl_obj
string_or_nil (const char *s)
{
  return s ? dl_make_cstring (s) : Qnil;
}

void
dl_env_init (int argc, char **argv, const char *dir, bool batch)
{
  lisp_dir = dir;
  dl_obj args = Qnil;
  for (int i = argc; i > 0; i--)
    args = dl_cons (dl_make_cstring (argv[i - 1]), args);
  dl_xsym (DL_Q (command_line_args))->value = args;
  dl_xsym (DL_Q (dlisp_home))->value = string_or_nil (getenv ("HOME"));

  char cwd[PATH_MAX];
  if (getcwd (cwd, sizeof cwd - 1))
    {
      size_t n = strlen (cwd);
      if (n == 0 || cwd[n - 1] != '/')
        strcat (cwd, "/");
      dl_xsym (DL_Q (default_directory))->value = dl_make_cstring (cwd);
    }
  else
    dl_xsym (DL_Q (default_directory))->value = Qnil;

  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  dl_xsym (DL_Q (dlisp_start_time))->value
    = dl_make_float ((double) ts.tv_sec + (double) ts.tv_nsec * 1e-9);
  dl_xsym (DL_Q (dlisp_lisp_directory))->value = string_or_nil (dir);

  enum dumper_origin origin = dumper_start_info ()->origin;
  dl_xsym (DL_Q (dlisp_origin))->value
    = origin == DUMPER_ORIGIN_PDUMP ? DL_Q (pdump)
      : origin == DUMPER_ORIGIN_UNEXEC ? DL_Q (unexec) : DL_Q (cold);
  dl_xsym (DL_Q (noninteractive))->value = dl_bool (batch);
}

void
dl_env_clear (void)
{
  for (size_t i = 0; i < PER_START_COUNT; i++)
    dl_xsym (dl_syms[per_start_symbols[i]])->value = Qnil;
  lisp_dir = NULL;
}
