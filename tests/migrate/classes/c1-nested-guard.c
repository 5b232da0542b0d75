/* SPDX-License-Identifier: MIT */
/* c1-nested-guard.c -- issue 18, class 1 (minimal): a guard that is
   review on the first --fix because it holds two statements; the first
   --fix deletes one of them (with the #ifndef around it), and a second
   run must not then see one `if' and rewrite it.  */

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/personality.h>

extern bool initialized;
extern bool might_dump;
extern char **environ;

/* Not called by this name in the legacy list: what it does decides.  */
void
reexec_without_aslr (char **argv)
{
  personality (0xffffffff | ADDR_NO_RANDOMIZE);
  execve ("/proc/self/exe", argv, environ);
}

void
c1_startup (char **argv)
{
#ifndef CANNOT_DUMP
# ifndef DOUG_LEA_MALLOC
  might_dump = !initialized;
# endif
  if (!initialized)
    reexec_without_aslr (argv);
#endif
}
