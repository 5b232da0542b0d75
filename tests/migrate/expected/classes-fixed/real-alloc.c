/* SPDX-License-Identifier: MIT */
/* real-alloc.c -- a realistic unexec-era allocator file for issue 18:
   malloc redirected to the unexec allocator, sbrk and bss bookkeeping,
   the dump-to-executable primitive and its registration, might_dump,
   and leftovers a rewrite must clean up.  Written for the
   dumper-migrate tests; it compiles with and without CANNOT_DUMP.  */

#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>
#include <dumper/gflags.h>

typedef long Lisp_Object;
struct Lisp_Subr { const char *name; Lisp_Object (*fn) (Lisp_Object); };

extern void *r2_unexec_malloc (size_t);
extern int unexec (const char *, const char *);
extern void r2_defsubr (struct Lisp_Subr *);
extern void r2_lock_reset (void);

/* Whether this run might dump: the allocator keeps its state for it.  */
/* dumper-migrate: review cannot-dump-guard leftover */
#ifndef CANNOT_DUMP
#else
# define might_dump false
#endif

/* The unexec build allocates the dumpable heap from the executable's
   own bss, so that unexec saves it.  */
/* dumper-migrate: review cannot-dump-guard */
#ifndef CANNOT_DUMP
# define r2_heap_alloc(n) r2_unexec_malloc (n)
#else
# define r2_heap_alloc(n) ((void) (n), (void *) 0)
#endif

static char *r2_bss_end;

void
r2_init_heap (void)
{
/* dumper-migrate: review cannot-dump-guard */
#ifndef CANNOT_DUMP
  r2_bss_end = sbrk (0);
#endif
  if (will_dump)
    r2_lock_reset ();
}

void *
r2_alloc (size_t n)
{
  (void) r2_bss_end;
  return r2_heap_alloc (n);
}

Lisp_Object
Fdump_emacs (Lisp_Object filename)
{
  return unexec ((const char *) filename, "temacs");
}

struct Lisp_Subr Sdump_emacs = { "dump-emacs", Fdump_emacs };

void
r2_syms_of_alloc (void)
{
/* dumper-migrate: review cannot-dump-guard */
#ifndef CANNOT_DUMP
  r2_defsubr (&Sdump_emacs);
#endif
}

void
r2_main_hook (int argc)
{
}
