/* unexec/arena.h: arena internals shared inside unexec/ and with its
   unit tests (the allocation calls themselves are in backend.h).  */

#ifndef DUMPER_UNEXEC_ARENA_H
#define DUMPER_UNEXEC_ARENA_H

#include <stdbool.h>
#include <stddef.h>

/* The arena's start, the bytes in use from it (what a dump must save)
   and its capacity.  */
void unexec_arena_bounds (void **base, size_t *used, size_t *capacity);

/* Payload bytes currently allocated.  */
size_t unexec_arena_live_bytes (void);

/* Walk every block and free list and check the invariants stated in
   arena.c; on failure describe the first violation in DETAIL.  */
bool unexec_arena_check (char *detail, size_t detail_size);

#endif /* DUMPER_UNEXEC_ARENA_H */
