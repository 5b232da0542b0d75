/* SPDX-License-Identifier: MIT */
/* c4-unexec-alloc.c -- issue 18, class 4 (minimal): malloc redirected
   to the unexec allocator and sbrk bookkeeping under #ifndef
   CANNOT_DUMP.  A pdumper build must not compile them: the candidate is
   `#if DUMPER_WITH_UNEXEC', never `DUMPER_WITH_UNEXEC ||
   DUMPER_WITH_PDUMPER'.  */

#include <stddef.h>
#include <unistd.h>

void *c4_arena_malloc (size_t size);

#ifndef CANNOT_DUMP
# define c4_malloc(n) c4_arena_malloc (n)
#else
# define c4_malloc(n) ((void) (n), (void *) 0)
#endif

static char *c4_heap_top;

/* The unexec allocator: it grows the break, so that unexec saves the
   heap with the data segment.  */
void *
c4_arena_malloc (size_t size)
{
  char *p = c4_heap_top;
  c4_heap_top = sbrk ((long) size);
  return p;
}

void
c4_init_heap (void)
{
#ifndef CANNOT_DUMP
  c4_heap_top = sbrk (0);
#endif
  (void) c4_malloc (16);
}
