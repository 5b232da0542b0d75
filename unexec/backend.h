/* SPDX-License-Identifier: MIT */
/* unexec/backend.h: what the bridge calls in the unexec back end.

   unexec/ never calls into the bridge: everything it needs comes in as
   arguments, and errors come back as a status plus a detail string
   written into the caller's buffer.  */

#ifndef DUMPER_UNEXEC_BACKEND_H
#define DUMPER_UNEXEC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* NULL when PTR is a block in use of the arena (what free and realloc
   accept), else why not ("was already freed", ...).  Free and realloc
   abort on such a pointer; the bridge asks first and returns a status.  */
const char *unexec_arena_not_live (const void *ptr);

/* The payload's usable size of the block in use at PTR (PTR as
   unexec_arena_not_live accepts it), or 0 when it is not one.  */
size_t unexec_arena_usable_size (const void *ptr);

/* The arena's start, the bytes in use from it (what a dump must save:
   [*BASE, *BASE + *USED)) and its capacity.  */
void unexec_arena_bounds (void **base, size_t *used, size_t *capacity);

/* Call FN for every block in use, in address order, with its payload
   and the payload's usable size.  */
void unexec_arena_each_block (void (*fn) (void *payload, size_t size,
                                          void *ctx), void *ctx);

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
   dumped program must start with.

   Reads the running executable (/proc/self/exe), which must be a non-PIE
   ELF executable with libdumper linked in statically.  Words of the
   saved data that look like pointers into shared libraries, the stack
   or the malloc heap are reported through REQ->warn (when not NULL).
   Returns DUMPER_OK, or with a message naming the file and the problem
   in REQ->detail: DUMPER_E_OUTPUT (cannot create OUTPUT: missing or
   unwritable directory, OUTPUT is a directory), DUMPER_E_IO (reading
   the executable or writing OUTPUT failed: disk full, file size limit),
   DUMPER_E_EXE (not ELF, PIE, libdumper not linked statically, layout
   not understood), DUMPER_E_NOMEM.  On failure OUTPUT is untouched and
   no temporary file remains.  Not thread-safe: other threads must not
   write the saved data while it runs.  */
enum dumper_status unexec_write (const struct unexec_request *req);

/* A half-open address range [start, end).  */
struct unexec_range
{
  uintptr_t start;
  uintptr_t end;
};

/* The arena as the writer sees it.  */
struct unexec_arena_view
{
  uintptr_t base;
  size_t used;
  size_t capacity;
};

/* What the dump saves besides the data segment's sections, and how.
   Either an arena (a libdumper host: the data segment is the one
   holding it) or none (capacity 0: the data segment is the last
   writable PT_LOAD); and a brk heap to save, or an empty range.  */
struct unexec_memory
{
  struct unexec_arena_view arena;
  struct unexec_range brk_heap;
  /* Write the .debug_* sections compressed (zlib, SHF_COMPRESSED) and
     the sections after the data segment packed, not merely moved.  */
  bool compress_debug;
};

/* Write REQ->output from the executable INPUT (the running program's
   file) and the process memory MEM describes: the steps of a dump in
   order, with the statistics.  The one writer behind unexec_write and
   unexec ().  */
enum dumper_status unexec_write_memory (const char *input,
                                        const struct unexec_request *req,
                                        const struct unexec_memory *mem);

/* Figures of the last unexec_write of this process, for benchmarks.
   Zero until a dump succeeds (and in a dumped executable, since they
   are cleared before the data is saved).  */
struct unexec_stats
{
  bool written;
  double seconds;             /* the whole unexec_write */
  uint64_t input_size;        /* bytes of the running executable's file */
  uint64_t output_size;       /* bytes of the new executable */
  uint64_t segment_file_size; /* the data segment's file part, now */
  int64_t segment_added;      /* ... minus what it was in the input */
  uint64_t arena_used;        /* bytes of the arena saved */
  uint64_t upper_saved;       /* file bytes of the upper segment (unexec ():
                                 the end of .bss, the brk heap) */
  uint64_t suspicious_words;  /* words reported by the pointer scan */
};

const struct unexec_stats *unexec_last_stats (void);

#endif /* DUMPER_UNEXEC_BACKEND_H */
