/* unexec/backend.h: what the bridge calls in the unexec back end.

   unexec/ never calls into the bridge: everything it needs comes in as
   arguments, and errors come back as a status plus a detail string
   written into the caller's buffer.  */

#ifndef DUMPER_UNEXEC_BACKEND_H
#define DUMPER_UNEXEC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include <dumper/dumper.h>

/* ------------------------------------------------------------------ */
/* The static arena (arena.c): malloc/free/realloc semantics over a
   zero-initialised region of the executable.  Memory from
   unexec_arena_alloc is zeroed.  On exhaustion they return NULL and
   write a message naming the configure option that raises the size to
   DETAIL (at most DETAIL_SIZE bytes) when DETAIL is not NULL.  */
void *unexec_arena_alloc (size_t size, char *detail, size_t detail_size);
void *unexec_arena_realloc (void *ptr, size_t size, char *detail,
                            size_t detail_size);
void unexec_arena_free (void *ptr);

/* ------------------------------------------------------------------ */
/* The writer (write.c and friends).  */

struct unexec_request
{
  const char *output;        /* the new executable */
  /* Warnings (suspicious pointers): one call per message.  */
  void (*warn) (const char *message, void *data);
  void *warn_data;
  char *detail;              /* out: error specifics */
  size_t detail_size;
};

/* Write a new executable at REQ->output whose data holds the current
   .data, .bss and used arena.  The caller has already set the flags the
   dumped program must start with.  */
enum dumper_status unexec_write (const struct unexec_request *req);

#endif /* DUMPER_UNEXEC_BACKEND_H */
