/* SPDX-License-Identifier: MIT */
/* c3-aslr.c -- issue 18, class 3 (minimal): the dumping run disables
   ASLR and re-executes itself.  That is unexec-only work: a pdump run
   must do neither, so `dumping' here is `will_dump_with_unexec'.  The
   callee's name says nothing; its body does.  */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/personality.h>

extern char **environ;

void
disable_aslr_somehow (bool on, char **argv)
{
  if (on && !getenv ("C3_REEXECED"))
    {
      personality (0xffffffff | ADDR_NO_RANDOMIZE);
      setenv ("C3_REEXECED", "1", 1);
      execve ("/proc/self/exe", argv, environ);
    }
}

static char **c3_argv;

/* Re-execute without ASLR, once.  */
static void
c3_reexec (void)
{
  if (!getenv ("C3_REEXECED"))
    {
      setenv ("C3_REEXECED", "1", 1);
      personality (0xffffffff | ADDR_NO_RANDOMIZE);
      execve ("/proc/self/exe", c3_argv, environ);
    }
}

void
c3_prepare_dump (bool dumping)
{
  if (dumping)
    c3_reexec ();
}

int
c3_main (int argc, char **argv)
{
  bool dumping = argc > 1 && strcmp (argv[argc - 1], "dump") == 0;
  c3_argv = argv;
  c3_prepare_dump (dumping);
  disable_aslr_somehow (dumping, argv);
  if (dumping && !getenv ("C3_NO_REEXEC"))
    {
      personality (0xffffffff | ADDR_NO_RANDOMIZE);
      execve ("/proc/self/exe", argv, environ);
    }
  return 0;
}
