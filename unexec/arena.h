/* SPDX-License-Identifier: MIT */
/* unexec/arena.h: arena internals shared inside unexec/ and with its
   unit tests (the allocation calls themselves are in backend.h).  */

#ifndef DUMPER_UNEXEC_ARENA_H
#define DUMPER_UNEXEC_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include "backend.h"   /* unexec_arena_bounds */

/* Payload bytes currently allocated.  */
size_t unexec_arena_live_bytes (void);

/* Zero every byte of the arena that no live block or allocator record
   uses: free blocks' payloads and the stale bytes above top.  The writer
   calls it before a dump, so dumps do not depend on what freed memory
   held (same state, same bytes) and the pointer scan is not misled by
   stale pointers in freed blocks.  */
void unexec_arena_scrub (void);

/* Free everything and zero the used memory: an empty arena.  Only for
   tests: every pointer handed out before becomes invalid.  */
void unexec_arena_reset (void);

/* Walk every block and free list and check the invariants stated in
   arena.c; on failure describe the first violation in DETAIL and return
   false.  */
bool unexec_arena_check (char *detail, size_t detail_size);

#endif /* DUMPER_UNEXEC_ARENA_H */
