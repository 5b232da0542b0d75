/* SPDX-License-Identifier: MIT */
/* pdump/hash.h: the hash functions of the image format (XXH3 from
   libxxhash).  On x86-64 the library's dispatching entry points pick the
   widest vector unit at run time (AVX2 where present): about 3.5 times
   the throughput of the baseline SSE2 code on the machines we measure,
   and the same hash values.

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
# include <xxh_x86dispatch.h>
#endif

#endif /* DUMPER_PDUMP_HASH_H */
