/* SPDX-License-Identifier: MIT */
/* dumper/gflags.h: the global dump flags, one vocabulary for every back end.

   A runtime that can save its initialised heap used to scatter checks
   such as `#ifndef CANNOT_DUMP', `if (initialized)' and `might_dump'
   through its init code.  These six flags replace them.  All are false
   at process start unless the state was restored from a dump:

     initialized              the heap is initialised: after the cold
                              init, in an unexec'd executable, or after a
                              pdump image was loaded
     will_dump                this run will dump (with either back end)
     will_dump_with_unexec    ... with unexec
     will_dump_with_pdumper   ... with the portable dumper
     dumped_with_unexec       this run's state came from unexec
     dumped_with_pdumper      this run's state came from a pdump image

   Only libdumper writes them (dumper_startup, dumper_mark_initialized,
   and the back ends through the bridge); a host reads them.  The macros
   below expand to rvalues, so an assignment to a flag does not compile.

   The flags of a back end that this build does not have are the
   constant `false', so code guarded by them is eliminated by the
   compiler and a `none' build carries no dump code paths at all.

   Short names (`initialized', `will_dump', ...) are defined unless the
   host defines DUMPER_GFLAGS_NO_SHORT_NAMES before including this
   header, for hosts whose own identifiers collide with them; the
   `dumper_'-prefixed names and the `_p ()' predicates always exist.

   The short names are object-like macros, so they expand inside ANY
   host identifier spelled the same: a struct member (`tty->initialized'
   becomes `tty->((bool) dumper_gflags.initialized_)', a syntax error), a
   parameter or local (`int initialized'), a declaration.  The names are
   kept on purpose -- they are the migrated vocabulary -- and the
   collision is made visible instead: `dumper-migrate' reports every
   such member, parameter, local and declaration (pattern
   name-collision, doc/migration.md).  Rename the host identifier, or
   define DUMPER_GFLAGS_NO_SHORT_NAMES in that file.  */

#ifndef DUMPER_GFLAGS_H
#define DUMPER_GFLAGS_H

#include <stdbool.h>
#include <dumper/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The storage behind the flags.  Its members are private to libdumper:
   read the flags through the macros below.  In unexec builds this
   object lives in the executable's data, so a dumped executable starts
   with the values the dumper saved.  */
struct dumper_gflags
{
  bool initialized_;
  bool will_dump_;
  bool will_dump_with_unexec_;
  bool will_dump_with_pdumper_;
  bool dumped_with_unexec_;
  bool dumped_with_pdumper_;
};

extern struct dumper_gflags dumper_gflags;

#define dumper_initialized ((bool) dumper_gflags.initialized_)

#if DUMPER_WITH_UNEXEC || DUMPER_WITH_PDUMPER
# define dumper_will_dump ((bool) dumper_gflags.will_dump_)
#else
# define dumper_will_dump false
#endif

#if DUMPER_WITH_UNEXEC
# define dumper_will_dump_with_unexec ((bool) dumper_gflags.will_dump_with_unexec_)
# define dumper_dumped_with_unexec ((bool) dumper_gflags.dumped_with_unexec_)
#else
# define dumper_will_dump_with_unexec false
# define dumper_dumped_with_unexec false
#endif

#if DUMPER_WITH_PDUMPER
# define dumper_will_dump_with_pdumper ((bool) dumper_gflags.will_dump_with_pdumper_)
# define dumper_dumped_with_pdumper ((bool) dumper_gflags.dumped_with_pdumper_)
#else
# define dumper_will_dump_with_pdumper false
# define dumper_dumped_with_pdumper false
#endif

/* Predicate forms, for code that prefers calls to flag-like names.  */
static inline bool dumper_initialized_p (void) { return dumper_initialized; }
static inline bool dumper_will_dump_p (void) { return dumper_will_dump; }
static inline bool dumper_will_dump_with_unexec_p (void)
{ return dumper_will_dump_with_unexec; }
static inline bool dumper_will_dump_with_pdumper_p (void)
{ return dumper_will_dump_with_pdumper; }
static inline bool dumper_dumped_with_unexec_p (void)
{ return dumper_dumped_with_unexec; }
static inline bool dumper_dumped_with_pdumper_p (void)
{ return dumper_dumped_with_pdumper; }

#ifndef DUMPER_GFLAGS_NO_SHORT_NAMES
# define initialized dumper_initialized
# define will_dump dumper_will_dump
# define will_dump_with_unexec dumper_will_dump_with_unexec
# define will_dump_with_pdumper dumper_will_dump_with_pdumper
# define dumped_with_unexec dumper_dumped_with_unexec
# define dumped_with_pdumper dumper_dumped_with_pdumper
#endif

#ifdef __cplusplus
}
#endif

#endif /* DUMPER_GFLAGS_H */
