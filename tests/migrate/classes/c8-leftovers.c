/* SPDX-License-Identifier: MIT */
/* c8-leftovers.c -- issue 18, class 8 (minimal): what a rewrite must
   not leave behind.  */

#include <stdbool.h>
#include <string.h>

extern void c8_init_once (void);
extern void c8_lock_reset (void);

extern bool initialized;

/* Whether this run might dump: set in main, read by the allocator.  */
#ifndef CANNOT_DUMP
# ifndef DOUG_LEA_MALLOC
extern bool might_dump;
# endif
#endif
#ifdef CANNOT_DUMP
/* A build that cannot dump never dumps.  */
# define might_dump false
#endif

void
c8_alloc_init (void)
{
  if (might_dump)
    c8_lock_reset ();
}

int
c8_main (int argc, char **argv)
{
  /* Computed from the command line: the run that dumps.  */
  bool dumping = argc > 1 && strcmp (argv[1], "dump") == 0;
  if (!dumping)
    c8_init_once ();
  return 0;
}

void
c8_init_buffer (int initialized)
{
#ifdef HAVE_UNUSED_PARAMETER_WARNINGS
  (void) initialized;
#else
  (void) initialized;
#endif
}

void
c8_buffers (void)
{
  c8_init_buffer (initialized);
}
