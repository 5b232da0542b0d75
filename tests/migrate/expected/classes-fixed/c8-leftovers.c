/* SPDX-License-Identifier: MIT */
/* c8-leftovers.c -- issue 18, class 8 (minimal): what a rewrite must
   not leave behind.  */

#include <stdbool.h>
#include <string.h>
#include <dumper/gflags.h>

extern void c8_init_once (void);
extern void c8_lock_reset (void);


void
c8_alloc_init (void)
{
  if (will_dump)
    c8_lock_reset ();
}

int
c8_main (int argc, char **argv)
{
  /* Computed from the command line: the run that dumps.  */
  /* dumper-migrate: review dumping-local */
  bool dumping = argc > 1 && strcmp (argv[1], "dump") == 0;
  /* dumper-migrate: review dumping-use */
  if (!dumping)
    c8_init_once ();
  return 0;
}

void
c8_init_buffer (void)
{
}

void
c8_buffers (void)
{
  c8_init_buffer ();
}
