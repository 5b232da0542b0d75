/* SPDX-License-Identifier: MIT */
/* common/addrmap.h: the one hash map from addresses to 64-bit values
   (addrmap.c), for every part of libdumper that looks things up by
   address: the pdump writer's "already visited" map (millions of
   objects, so it is compact and sized once), the bridge's registry
   index (tens of entries, in the unexec arena).

   Keys are non-zero uintptr_t (0 marks an empty slot).  A slot is the
   key and its value side by side, 16 bytes (12 on i386, whose ABI
   aligns uint64_t to 4 in a struct), so a lookup that hits
   costs one cache miss: a caller that packs what it needs on a hit into
   the value (the writer packs an object's image offset and type) never
   touches a second array.

   A zero-initialised map is an empty map with the default allocator:
   its first insert allocates a small table (for maps in static storage,
   like the bridge's table of live dumper_alloc blocks).  */

#ifndef DUMPER_COMMON_ADDRMAP_H
#define DUMPER_COMMON_ADDRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a map's table comes from.  ALLOC returns SIZE zero bytes or
   NULL; FREE gets the pointer and the same SIZE.  */
struct common_addrmap_allocator
{
  void *(*alloc) (size_t size);
  void (*free) (void *block, size_t size);
};

struct common_addrmap_slot
{
  uintptr_t key;            /* 0: empty */
  uint64_t value;
};

struct common_addrmap
{
  struct common_addrmap_slot *slots;
  size_t capacity;          /* slots: any number, not a power of two */
  size_t count;             /* keys present */
  size_t limit;             /* grow when an insert would pass it */
  const struct common_addrmap_allocator *allocator;
};

/* The fullest a map gets, as a fraction: 4/5 (linear probing stays
   short there and a presized map wastes a fifth of its slots).  */
#define COMMON_ADDRMAP_LOAD_NUM 4
#define COMMON_ADDRMAP_LOAD_DEN 5

/* Bytes of table for EXPECTED keys, for callers that budget memory.  */
size_t common_addrmap_bytes (size_t expected);

/* Make MAP empty, with room for EXPECTED keys before it first grows.
   ALLOCATOR may be NULL: then large tables come from the kernel (zeroed
   pages, huge pages where possible, common/zmem.c).  False when memory
   runs out (MAP is then empty and needs no freeing).  */
bool common_addrmap_init (struct common_addrmap *map, size_t expected,
                          const struct common_addrmap_allocator *allocator);
void common_addrmap_free (struct common_addrmap *map);

/* The value of KEY, or NULL when absent.  The pointer is valid until
   the next insert or remove.  */
uint64_t *common_addrmap_get (const struct common_addrmap *map, uintptr_t key);

/* The value of KEY (non-zero), inserting it with value 0 when absent
   (*ADDED says which); NULL when the map had to grow and memory ran
   out.  One probe sequence for "find, else add".  The pointer is valid
   until the next insert or remove.  */
uint64_t *common_addrmap_insert (struct common_addrmap *map, uintptr_t key,
                                 bool *added);

/* The slot where the probe for KEY starts in a map of CAPACITY slots:
   a Fibonacci hash scaled to the capacity (multiply-high, no modulo).
   Without a 128-bit type (32-bit targets) size_t is 32 bits, so the
   high half of the hash times the capacity fits in 64 bits.  */
static inline size_t
common_addrmap_home (size_t capacity, uintptr_t key)
{
  uint64_t h = (uint64_t) key * UINT64_C (0x9E3779B97F4A7C15);
#ifdef __SIZEOF_INT128__
  return (size_t) (((unsigned __int128) h * capacity) >> 64);
#else
  _Static_assert (sizeof (size_t) <= 4, "a 64-bit size_t needs __int128");
  return (size_t) (((h >> 32) * (uint64_t) capacity) >> 32);
#endif
}

/* Start loading the slot where a lookup of KEY begins, for a caller
   that knows its next keys ahead of using them (the writer queues an
   object's fields): misses then overlap instead of following one
   another.  Only a hint.  */
static inline void
common_addrmap_prefetch (const struct common_addrmap *map, uintptr_t key)
{
  if (map->capacity)
    {
      __builtin_prefetch (&map->slots[common_addrmap_home (map->capacity,
                                                           key)]);
    }
}

/* Set KEY (non-zero) to VALUE, inserting it when absent; false when
   the map had to grow and memory ran out.  */
bool common_addrmap_put (struct common_addrmap *map, uintptr_t key,
                         uint64_t value);

/* Remove KEY; false when it was absent.  Deletion shifts the rest of
   the probe run back, so a map that sees many removals stays as fast
   as one that sees none (no tombstones).  */
bool common_addrmap_remove (struct common_addrmap *map, uintptr_t key);

/* Visit every key: start *CURSOR at 0; each call returns false at the
   end, else the next key and its value.  Order is the table's, which
   depends on addresses: never let it decide anything that is saved.  */
bool common_addrmap_next (const struct common_addrmap *map, size_t *cursor,
                          uintptr_t *key, uint64_t **value);

#endif
