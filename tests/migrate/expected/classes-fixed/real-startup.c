/* SPDX-License-Identifier: MIT */
/* dumper-migrate: review leftover */
/* real-startup.c -- a realistic unexec-era start-up file for issue 18:
   the argv `dumping' flag, ASLR and re-exec in a helper, a saved-pages
   re-map behind a flag parameter, guards with nested conditionals, and
   purify-flag tests of every kind.  Written for the dumper-migrate
   tests; it compiles with and without CANNOT_DUMP.  */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <dumper/dumper.h>

typedef long Lisp_Object;
#define NILP(x) ((x) == 0)

extern char **environ;
extern char __data_start[], _edata[];
extern Lisp_Object Vpurify_flag, Vfeatures;
extern Lisp_Object Fpurecopy (Lisp_Object);
extern Lisp_Object Fprovide (Lisp_Object);
extern void r1_init_alloc_once (void);
extern void r1_syms_of_all (void);
extern void r1_init_terminal (void);
extern void r1_loadup (void);
extern void r1_report (const char *, bool);

/* Turn address-space randomisation off for the dumping run and start
   again, so that unexec sees fixed addresses.  */
static void
r1_maybe_disable_aslr (bool on, char **argv)
{
  if (on && !getenv ("R1_ASLR_DONE"))
    {
      int pers = personality (0xffffffff);
      if (pers >= 0 && !(pers & ADDR_NO_RANDOMIZE)
          && personality (pers | ADDR_NO_RANDOMIZE) >= 0)
        {
          setenv ("R1_ASLR_DONE", "1", 1);
          execve ("/proc/self/exe", argv, environ);
        }
    }
}

/* After an unexec start the data segment's pages come from the file:
   make them writable again.  */
static void
r1_remap_data (void)
{
  /* dumper-migrate: review flag-parameter */
  if (initialized)
    mprotect (__data_start, (size_t) (_edata - __data_start),
              PROT_READ | PROT_WRITE);
}

static Lisp_Object
r1_intern_feature (Lisp_Object name)
{
  /* Loadup copies the name into pure space.  */
  if (!NILP (Vpurify_flag))
    name = Fpurecopy (name);
  r1_report ("purify", !NILP (Vpurify_flag));
  return name;
}

int
main (int argc, char **argv)
{
  /* dumper-migrate: review dumping-local */
  bool dumping = argc > 1 && strcmp (argv[argc - 1], "dump") == 0;

  /* dumper-migrate: review dumping-use */
  r1_maybe_disable_aslr (dumping, argv);
  r1_remap_data ();

  if (will_dump)
    {
# ifdef HAVE_SETLOCALE
      r1_report ("locale", true);
# endif
      r1_report ("cold start", true);
    }

  /* dumper-migrate: review initialized-test */
  if (!initialized)
    {
      r1_init_alloc_once ();
      r1_syms_of_all ();
    }
  r1_init_terminal ();
  (void) r1_intern_feature (0);

  /* dumper-migrate: review dumping-use */
  if (dumping)
    {
      r1_loadup ();
      /* Features provided while dumping go into the dumped image.  */
      /* dumper-migrate: review purify-flag */
      if (!NILP (Vpurify_flag))
        Vfeatures = Fprovide (Vfeatures);
    }
  dumper_mark_initialized ();
  return 0;
}
