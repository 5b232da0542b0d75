/* SPDX-License-Identifier: MIT */
/* pdump/hash.h: the hash functions of the image format (XXH3 from
   libxxhash).  On x86-64 the library's dispatching entry points pick the
   widest vector unit at run time (AVX2 where present): about 3.5 times
   the throughput of the baseline SSE2 code on the machines we measure,
   and the same hash values.

   But the dispatcher's first call asks the processor what it has
   (CPUID, several times), and on a virtual machine each CPUID traps to
   the hypervisor: 7 us apiece, 24 us for the first dispatched hash of
   a process against 2 us for the baseline code's, measured on the VM
   this project runs on (issue 33, the fixed cost of a start, where it
   was a third of what a start from a tiny image paid over one without
   an image).  So the pdump code, which names the plain XXH3 functions,
   gets them through the wrappers below: a hash of under
   PDUMP_HASH_DISPATCH_MIN bytes, or a streaming state that has hashed
   less, runs the baseline code; anything larger, and every hash after
   the first such, the dispatched one (the 24 us then buy AVX2 for the
   rest).  Both compute the same values, on the same state.

   XXH_STATIC_LINKING_ONLY gives XXH3_state_t's definition, so a
   streaming hash keeps its state on the stack: a state from
   XXH3_createState is heap memory, which a load's SIGBUS escape
   (load.c, on_sigbus) would strand (issue 32).  The definition is
   libxxhash's for its 0.8 series, the one configure links.  */

#ifndef DUMPER_PDUMP_HASH_H
#define DUMPER_PDUMP_HASH_H

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#if defined __x86_64__
# include <stdbool.h>
# include <stddef.h>
/* The header would rename XXH3_64bits and XXH3_64bits_update to their
   dispatching versions; the wrappers below choose instead.  */
# define XXH_DISPATCH_DISABLE_REPLACE 1
# include <xxh_x86dispatch.h>

/* From this many bytes the dispatcher's first call pays for itself:
   a MiB takes 55 us by the SSE2 code and 25 us dispatched (AVX-512 on
   the VM measured; best of 200), so its 22 us extra are repaid from
   about 0.73 MiB.  */
# define PDUMP_HASH_DISPATCH_MIN ((size_t) 768 * 1024)

/* Whether this file's code has made a dispatched call (the first of
   the process, or one after it): every later hash may then use the
   dispatcher for free.  One flag a file (static), as a hint: a file
   that has not dispatched yet pays at most one more baseline hash under
   the threshold.  */
static bool pdump_hash_dispatched_ __attribute__ ((unused));

static inline XXH64_hash_t
pdump_xxh3_64 (const void *data, size_t size)
{
  if (size >= PDUMP_HASH_DISPATCH_MIN || pdump_hash_dispatched_)
    {
      pdump_hash_dispatched_ = true;
      return XXH3_64bits_dispatch (data, size);
    }
  return (XXH3_64bits) (data, size);
}

static inline XXH_errorcode
pdump_xxh3_64_update (XXH3_state_t *state, const void *data, size_t size)
{
  if (state->totalLen + size >= PDUMP_HASH_DISPATCH_MIN
      || pdump_hash_dispatched_)
    {
      pdump_hash_dispatched_ = true;
      return XXH3_64bits_update_dispatch (state, data, size);
    }
  return (XXH3_64bits_update) (state, data, size);
}

# define XXH3_64bits(data, size) pdump_xxh3_64 ((data), (size))
# define XXH3_64bits_update(state, data, size) \
  pdump_xxh3_64_update ((state), (data), (size))
#endif

#endif /* DUMPER_PDUMP_HASH_H */
