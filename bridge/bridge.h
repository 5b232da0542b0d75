/* SPDX-License-Identifier: MIT */
/* bridge/bridge.h: private interfaces between the files of the bridge.

   The bridge owns the gflags, the start-up sequence, the registry of
   roots, remembered data and hooks, the heap description, allocation
   dispatch and error reporting.  It calls the back ends (pdump/,
   unexec/) through their backend.h headers and hands them everything as
   arguments; they never call back up.  Nothing here is installed.  */

#ifndef DUMPER_BRIDGE_H
#define DUMPER_BRIDGE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>


/* ------------------------------------------------------------------ */
/* Errors (error.c).  */

/* Record the specifics of a failure for dumper_error_detail and return
   STATUS, so callers can write `return bridge_fail (st, "...", ...)'.  */
enum dumper_status bridge_fail (enum dumper_status status, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Copy DETAIL (from a back end) as the current detail; return STATUS.  */
enum dumper_status bridge_fail_detail (enum dumper_status status,
                                       const char *detail);

/* Clear the detail (at the start of a public call).  */
void bridge_clear_detail (void);

/* Emit a warning through the installed handler.  */
void bridge_warn (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* The handler in the form the back ends take it.  */
void bridge_warning_sink (const char *message, void *data);

/* ------------------------------------------------------------------ */
/* Argument parsing (args.c): pure, so it is unit-tested directly.  */

enum bridge_dump_request
{
  BRIDGE_DUMP_NONE,
  BRIDGE_DUMP_PDUMP,    /* --temacs=pdump */
  BRIDGE_DUMP_UNEXEC    /* --temacs=dump */
};

struct bridge_args
{
  enum bridge_dump_request dump;
  const char *dump_file;   /* --dump-file, or NULL */
  bool no_dump_file;       /* --no-dump-file */
  const char *compress;    /* --compress, or NULL */
  const char *image_base;  /* --image-base, or NULL */
};

/* Parse and remove the bridge's options from *ARGC and *ARGV.  On error
   returns DUMPER_E_USAGE with the detail set and leaves argv unchanged.  */
enum dumper_status bridge_parse_args (int *argc, char ***argv,
                                      struct bridge_args *out);

/* ------------------------------------------------------------------ */
/* The declaration table (decls.c).  */

/* The executable's validated declaration table.  Returns DUMPER_OK, or
   the table's defect (set as the detail) with *DECLS and *COUNT still
   set.  Checked once, on first use.  */
enum dumper_status bridge_decls (const struct dumper_decl **decls,
                                 size_t *count);

/* Check a table (pure; bridge_decls uses it, the unit tests call it):
   every entry valid for its kind, no two statics overlapping unless
   identical.  On error writes the problem to PROBLEM.  */
enum dumper_status bridge_decls_check (const struct dumper_decl *decls,
                                       size_t count, char *problem,
                                       size_t problem_size);

/* After a successful bridge_decls: the index of DECL in the table, or
   SIZE_MAX when it is not an entry of it.  */
size_t bridge_decl_index (const struct dumper_decl *decl);

/* After a successful bridge_decls: the index of the declared static of
   KIND that contains ADDR, or of the declaration of KIND of FN; SIZE_MAX
   when there is none.  */
size_t bridge_decl_find_static (uint32_t kind, const void *addr);
size_t bridge_decl_find_fn (uint32_t kind, void (*fn) (void));

/* "root", "scalar", ... for a declaration kind.  */
const char *bridge_decl_kind_name (uint32_t kind);

/* ------------------------------------------------------------------ */
/* The registry (registry.c).  */

/* One registration: a declaration and, for statics, the word (ROOT,
   WORD, PTR) or the bytes (SCALAR) it registers.  The kind is the
   declaration's, kept here for the loops that dispatch on it.  */
struct bridge_entry
{
  uint32_t kind;            /* enum dumper_decl_kind */
  uint32_t decl;            /* index in the declaration table */
  void *addr;               /* the word or scalar; NULL for hooks */
};

/* Append an entry unless the same (kind, address or hook) is present.
   The entry must name a valid declaration (the caller checked it).
   Returns DUMPER_OK or DUMPER_E_NOMEM.  */
enum dumper_status bridge_registry_add (const struct bridge_entry *entry);

/* All entries in registration order.  */
const struct bridge_entry *bridge_registry_entries (size_t *count);

/* Drop every entry (tests; and before refilling from an image).  */
void bridge_registry_reset (void);

/* Run the after-load hooks of the registry, in registration order,
   through the declaration table (never an address from an image or the
   saved data); DUMPER_E_STATE when an entry names no hook.  */
enum dumper_status bridge_registry_run_hooks (void);

/* Check the registered PTR entries' types against HEAP (heap.c calls it
   when a description is installed).  */
enum dumper_status bridge_registry_check_types (const struct dumper_heap *heap);

/* DUMPER_OK, or DUMPER_E_REGISTRATION with the detail naming the first
   registration refused since the start (or the last
   dumper_clear_registration_error): dumper_dump's check.  */
enum dumper_status bridge_registration_error (void);

/* ------------------------------------------------------------------ */
/* The heap description (heap.c).  */

const struct dumper_heap *bridge_heap (void);

/* Check a description; on error set the detail and return it.  */
enum dumper_status bridge_check_heap (const struct dumper_heap *heap);

/* ------------------------------------------------------------------ */
/* Flags (gflags.c).  Only the bridge writes them.  */

void bridge_set_flags (const struct dumper_gflags *flags);

/* ------------------------------------------------------------------ */
/* Executables and images (exe.c).  */

/* The real executable's path (readlink /proc/self/exe), or NULL.  The
   string is static.  */
const char *bridge_exe_path (void);

/* The main program's PT_LOAD segments (its statics and code), read
   from memory (common_main_program).  */
struct bridge_exe_span
{
  uintptr_t start[16], end[16];
  int count;
};
void bridge_exe_span (struct bridge_exe_span *span);
bool bridge_exe_span_contains (const struct bridge_exe_span *span,
                               uintptr_t address);

/* Every setting, resolved now (bridge/options.c: an API call, then the
   environment, then the configured default) into *OPTIONS.  DUMPER_OK,
   or DUMPER_E_USAGE for an environment variable with an invalid value
   (the record then holds the defaults in its place).  */
struct common_options;
enum dumper_status bridge_options (struct common_options *options);

/* Set in the environment across the one ASLR re-exec, so the new
   process knows not to try again.  */
#define BRIDGE_REEXEC_ENV "DUMPER_ASLR_REEXEC"

/* Time in seconds from a monotonic clock: the one in common/clock.c.  */
#include "common/clock.h"
#define bridge_now common_now

/* The load information dumper_start_info reports (gflags.c).  */
struct dumper_start_info *bridge_start_info_mut (void);

/* Set whether dumper_startup has run (gflags.c); returns the previous
   value.  For the unexec dump, whose saved data must say "not
   started".  */
bool bridge_startup_swap_started (bool value);

/* ------------------------------------------------------------------ */
/* The check before a dump (refcheck.c), common to both back ends.  */

/* Walk everything the registry reaches through the heap description
   and refuse a traced pointer that is neither into the executable, nor
   a loaded image, nor the start of a live dumper_alloc block: into the
   middle of a block (DUMPER_E_INTERIOR_POINTER) or to memory not from
   dumper_alloc (DUMPER_E_FOREIGN_POINTER), with the detail naming the
   type, the field offset and the address.
   With REACHABLE (may be NULL), a check that passes leaves there the
   objects it reached (live blocks, objects of a loaded image, byte
   blocks) at addresses that are multiples of 8, numbered
   (common_blockset_number) for the pdump writer's visited objects; the
   caller frees it.  */
struct common_blockset;
enum dumper_status bridge_check_references (const struct dumper_heap *heap,
                                            struct common_blockset *reachable);

/* ------------------------------------------------------------------ */
/* Allocation (alloc.c).  */

/* Called by dumper_startup once it knows whether this run dumps: the
   live blocks are tracked (for bridge_check_references) only in a
   dumping run; other runs drop the table.  */
void bridge_alloc_track (bool track);

/* Ready the live blocks of dumper_alloc for a check: in unexec builds
   listed from the arena, exactly, until bridge_alloc_blocks_release
   (only the check asks there), and [*MANAGED_START,
   *MANAGED_END) is the arena; otherwise the set tracked since the start
   of a dumping run (a failure when an allocation could not enter it),
   and the range is empty.  */
enum dumper_status bridge_alloc_blocks (uintptr_t *managed_start,
                                        uintptr_t *managed_end);
/* True when ADDRESS is the start of a live dumper_alloc block (as far
   as bridge_alloc_blocks knows; false outside a dumping run of a
   pdumper or none build, and outside the check in an unexec build).  DATA is unused: the pdump lint's callback.  */
bool bridge_alloc_block_p (uintptr_t address, void *data);

/* Done with the blocks of bridge_alloc_blocks (unexec: the list built
   for the check is freed, so the dumped data does not carry it).  */
void bridge_alloc_blocks_release (void);

/* The usable size of the live block that starts at ADDRESS (the
   arena's exact size; with malloc, malloc_usable_size's), for the check
   of an owner-sized block's length.  False when ADDRESS is not such a
   block or the C library cannot tell (then the length is not checked
   against the block).  */
bool bridge_alloc_block_size (uintptr_t address, size_t *size);

/* The allocator's realloc (alloc-arena.c or alloc-malloc.c), for a
   block that is not an image object.  */
void *bridge_realloc_block (void *ptr, size_t size);

/* The live block whose bytes hold ADDRESS: its start and size (the
   arena's exact size; with malloc, the usable size malloc reports).
   False when there is none.  Slow: for error messages.  */
bool bridge_alloc_block_containing (uintptr_t address, uintptr_t *start,
                                    size_t *size);

/* The bridge's own bookkeeping memory; from the arena in unexec builds
   (so a dumped executable keeps it), otherwise malloc.  */
void *bridge_alloc (size_t size);
void *bridge_realloc (void *ptr, size_t size);
void bridge_free (void *ptr);

#endif /* DUMPER_BRIDGE_H */
