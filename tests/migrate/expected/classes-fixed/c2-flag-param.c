/* SPDX-License-Identifier: MIT */
/* c2-flag-param.c -- issue 18, class 2 (minimal): dropping the flag
   parameter would make the body read the gflags `initialized', which is
   true after a pdump load too, where the unexec-only re-mapping must not
   run.  */

#include <stdbool.h>
#include <sys/mman.h>
#include <dumper/gflags.h>

extern char __data_start[], _edata[];

/* Re-map the pages unexec saved in the data segment.  */
void
remap_saved_pages (void)
{
  mprotect (__data_start, (size_t) (_edata - __data_start),
            PROT_READ | PROT_WRITE);
}

void
init_x (void)
{
  /* dumper-migrate: review flag-parameter */
  if (initialized)
    remap_saved_pages ();
}

void
c2_init (void)
{
  init_x ();
}
