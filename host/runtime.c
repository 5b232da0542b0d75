/* SPDX-License-Identifier: MIT */
/* host/runtime.c: the runtime's init phases, shared by dlisp's main and
   the unit tests.

   Owns: the once-only init (symbols, builtins, standard errors, C
   statics pointing at heap objects, remembered scalars -- every
   registration with libdumper happens here), the loadup, and the
   pre-dump step.  The order of registrations is the order of the
   digest's roots, so it must not depend on the run.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "lisp.h"
#include "tools/common/status.h"

/* C statics that hold heap objects: shared by every empty string and
   vector the runtime makes, GC roots through dumper_staticpro.  */
static dl_obj empty_string;
static dl_obj empty_vector;

static void
must (enum dumper_status st, const char *what)
{
  if (st != DUMPER_OK)
    {
      fprintf (stderr, "dlisp: fatal: %s: %s: %s\n", what, dumper_strerror (st),
               dumper_error_detail ());
      exit (dumper_exit_status (st));
    }
}

void
dl_init_once (void)
{
  dl_symbols_init ();
  dl_builtins_init ();
  dl_env_register ();

  empty_string = dl_make_string ("", 0);
  empty_vector = dl_make_vector (0, Qnil);
  must (DUMPER_STATICPRO (empty_string), "registering a root");
  must (DUMPER_STATICPRO (empty_vector), "registering a root");

  struct dl_symbol *s;
  s = dl_xsym (DL_Q (load_file_name));
  s->h.flags |= DL_F_SPECIAL;
  s->value = Qnil;
  s = dl_xsym (DL_Q (max_lisp_eval_depth));
  s->h.flags |= DL_F_SPECIAL;
  s->value = dl_fix (1600);
  s = dl_xsym (DL_Q (dlisp_loadup_scale));
  s->h.flags |= DL_F_SPECIAL;
  s->value = dl_fix (0);
  s = dl_xsym (dl_intern_c ("dlisp-empty-string"));
  s->h.flags |= DL_F_SPECIAL;
  s->value = empty_string;
  s = dl_xsym (dl_intern_c ("dlisp-empty-vector"));
  s->h.flags |= DL_F_SPECIAL;
  s->value = empty_vector;
  s = dl_xsym (dl_intern_c ("dlisp-version"));
  s->h.flags |= DL_F_SPECIAL;
  s->value = dl_make_cstring (PACKAGE_VERSION);
}

static dl_obj
load_loadup (void *data)
{
  (void) data;
  dl_load ("loadup", false);
  return Qnil;
}

void
dl_loadup (const char *lisp_dir, int64_t scale)
{
  (void) lisp_dir;
  dl_world_scale = scale;
  dl_xsym (DL_Q (dlisp_loadup_scale))->value = dl_fix (scale);
  dl_obj result;
  if (!dl_protect (load_loadup, NULL, &result))
    {
      dl_obj message = dl_error_message (result);
      fprintf (stderr, "dlisp: fatal: loadup failed: %s\n", dl_sdata (message));
      fprintf (stderr, "dlisp: the lisp directory is %s (set it with --lisp-dir "
               "or DLISP_LISPDIR)\n", dl_lisp_dir ());
      exit (TOOL_EXIT_LOADUP_FAILED);
    }
  dl_world_loaded = true;
}

void
dl_pre_dump (void)
{
  dl_env_clear ();
  dl_eval_reset ();
  dl_gc ();
}

void
dl_test_boot (void)
{
  static char arg0[] = "dlisp-test", arg1[] = "--no-dump-file";
  static char *argv_storage[] = { arg0, arg1, NULL };
  int argc = 2;
  char **argv = argv_storage;
  must (dumper_describe_heap (&dl_heap_description), "describing the heap");
  must (dumper_startup (&argc, &argv), "starting up");
  if (!initialized)
    {
      dl_init_once ();
      dumper_mark_initialized ();
    }
  dl_eval_init_stacks ();
  const char *dir = getenv ("DLISP_LISPDIR");
  dl_env_init (argc, argv, dir, true);
}
