/* SPDX-License-Identifier: MIT */
/* common/blockset.h: a set of block start addresses, one bit per
   COMMON_BLOCKSET_GRAIN bytes of address space (blockset.c).

   For sets of heap blocks, where a hash map would cost 16 bytes or more
   per block: the bridge's table of live dumper_alloc blocks in a
   dumping run (hundreds of thousands of blocks, kept from the start of
   the run) and the pre-dump check's set of blocks it has visited, which
   it hands, numbered, to the pdump writer: the writer keeps what it
   knows of each reachable block in an array indexed by that number
   instead of a hash map.  The bits live in chunks of
   COMMON_BLOCKSET_CHUNK bytes of address space, each a 4 KiB bitmap
   made on first use and found through a small common/addrmap.c index;
   a heap of N bytes costs about N / 64 bytes, however many blocks it
   holds (N / 43 while numbered).

   Only addresses that are multiples of the grain can be members.  A
   zero-initialised set is an empty set.  */

#ifndef DUMPER_COMMON_BLOCKSET_H
#define DUMPER_COMMON_BLOCKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addrmap.h"

#define COMMON_BLOCKSET_GRAIN 8
#define COMMON_BLOCKSET_CHUNK_SHIFT 18   /* 256 KiB of addresses a chunk */

struct common_blockset
{
  struct common_addrmap chunks;   /* chunk number + 1 -> its bitmap */
  size_t count;                   /* members */
  /* The chunk of the last lookup: a walk of the heap meets neighbours
     one after another, so most lookups skip the index.  */
  uintptr_t last_key;
  void *last_chunk;
  bool numbered;                  /* common_blockset_number holds */
  uint32_t *numbers;              /* its array: a count per bitmap word */
};

/* Make ADDRESS a member; *ADDED says whether it was not one before.
   False when ADDRESS is not a multiple of the grain (or is 0) or when
   memory runs out (the set is then unchanged).  */
bool common_blockset_add (struct common_blockset *set, uintptr_t address,
                          bool *added);

/* Whether ADDRESS is a member (SET is not changed but for the cache of
   its last chunk).  */
bool common_blockset_has (struct common_blockset *set, uintptr_t address);

/* Remove ADDRESS; false when it was not a member.  */
bool common_blockset_remove (struct common_blockset *set, uintptr_t address);

/* Add every member of OTHER to SET; false when memory runs out (SET
   then holds some of them).  */
bool common_blockset_merge (struct common_blockset *set,
                            const struct common_blockset *other);

/* Number the members 0 to count - 1, for a caller that keeps a value
   per member in an array instead of a map (the pdump writer's visited
   objects): the members of one chunk get consecutive numbers in address
   order, so neighbours in memory have neighbours in the array.  Adding
   or removing a member undoes the numbering.  False when there are more
   than 2^32 members.  */
bool common_blockset_number (struct common_blockset *set);

/* The number of ADDRESS, or SIZE_MAX when it is not a member or the set
   is not numbered.  A bitmap word, its count and one popcount: no
   hashing.  */
size_t common_blockset_number_of (struct common_blockset *set,
                                  uintptr_t address);

/* The greatest member at or below ADDRESS, in *MEMBER; false when there
   is none.  Visits every chunk: for error paths, not for lookups.  */
bool common_blockset_floor (const struct common_blockset *set,
                            uintptr_t address, uintptr_t *member);

/* Call FN with every member, in no particular order (the index's).
   For a caller that needs every member once after the fact (the pdump
   writer's interior pointers), not for lookups.  */
void common_blockset_each (const struct common_blockset *set,
                           void (*fn) (uintptr_t member, void *ctx),
                           void *ctx);

/* Bytes the set holds now (bitmaps and index), for callers that
   budget memory.  */
size_t common_blockset_bytes (const struct common_blockset *set);

/* Empty SET and free its memory; it can be used again.  */
void common_blockset_free (struct common_blockset *set);

#endif
