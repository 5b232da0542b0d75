/* SPDX-License-Identifier: MIT */
/* common/blockset.c: a set of block start addresses as sparse bitmaps
   (see blockset.h).  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "blockset.h"

#define CHUNK_BITS ((size_t) 1 << (COMMON_BLOCKSET_CHUNK_SHIFT - 3))
#define CHUNK_WORDS (CHUNK_BITS / 64)

_Static_assert (COMMON_BLOCKSET_GRAIN == 8, "the shift below assumes it");

struct chunk
{
  uint64_t bits[CHUNK_WORDS];
  /* While the set is numbered: the number of the first member of each
     word (the members before it in the set's numbering), in the array
     common_blockset_number allocates.  */
  uint32_t *rank;
};

/* The index key of ADDRESS's chunk (never 0).  */
static uintptr_t
chunk_key (uintptr_t address)
{
  return (address >> COMMON_BLOCKSET_CHUNK_SHIFT) + 1;
}

static size_t
bit_of (uintptr_t address)
{
  return (size_t) (address >> 3) & (CHUNK_BITS - 1);
}

static struct chunk *
chunk_of (struct common_blockset *set, uintptr_t address)
{
  uintptr_t key = chunk_key (address);
  if (key == set->last_key)
    return set->last_chunk;
  uint64_t *value = common_addrmap_get (&set->chunks, key);
  if (value == NULL)
    return NULL;   /* not cached: it may be added */
  set->last_key = key;
  set->last_chunk = (struct chunk *) (uintptr_t) *value;
  return set->last_chunk;
}

static void
drop_numbers (struct common_blockset *set)
{
  free (set->numbers);
  set->numbers = NULL;
  set->numbered = false;
}

bool
common_blockset_add (struct common_blockset *set, uintptr_t address,
                     bool *added)
{
  *added = false;
  if (address == 0 || address % COMMON_BLOCKSET_GRAIN != 0)
    return false;
  struct chunk *c = chunk_of (set, address);
  if (c == NULL)
    {
      c = calloc (1, sizeof *c);
      if (c == NULL)
        return false;
      if (!common_addrmap_put (&set->chunks, chunk_key (address),
                               (uint64_t) (uintptr_t) c))
        {
          free (c);
          return false;
        }
    }
  size_t bit = bit_of (address);
  uint64_t mask = UINT64_C (1) << (bit % 64);
  if (!(c->bits[bit / 64] & mask))
    {
      c->bits[bit / 64] |= mask;
      set->count++;
      if (set->numbered)
        drop_numbers (set);
      *added = true;
    }
  return true;
}

bool
common_blockset_has (struct common_blockset *set, uintptr_t address)
{
  if (address % COMMON_BLOCKSET_GRAIN != 0)
    return false;
  const struct chunk *c = chunk_of (set, address);
  size_t bit = bit_of (address);
  return c && (c->bits[bit / 64] >> (bit % 64) & 1);
}

bool
common_blockset_remove (struct common_blockset *set, uintptr_t address)
{
  if (!common_blockset_has (set, address))
    return false;
  size_t bit = bit_of (address);
  chunk_of (set, address)->bits[bit / 64] &= ~(UINT64_C (1) << (bit % 64));
  set->count--;
  if (set->numbered)
    drop_numbers (set);
  return true;
}

bool
common_blockset_merge (struct common_blockset *set,
                       const struct common_blockset *other)
{
  size_t cursor = 0;
  uintptr_t key;
  uint64_t *value;
  while (common_addrmap_next (&other->chunks, &cursor, &key, &value))
    {
      const struct chunk *from = (const struct chunk *) (uintptr_t) *value;
      uintptr_t base = (key - 1) << COMMON_BLOCKSET_CHUNK_SHIFT;
      for (size_t w = 0; w < CHUNK_WORDS; w++)
        for (uint64_t bits = from->bits[w]; bits; bits &= bits - 1)
          {
            uintptr_t address = base + (w * 64 + (size_t) __builtin_ctzll (bits))
                                       * COMMON_BLOCKSET_GRAIN;
            bool added;
            if (!common_blockset_add (set, address, &added))
              return false;
          }
    }
  return true;
}

bool
common_blockset_number (struct common_blockset *set)
{
  drop_numbers (set);
#if SIZE_MAX > UINT32_MAX
  if (set->count > UINT32_MAX)
    return false;
#endif
  set->numbers = malloc ((set->chunks.count ? set->chunks.count : 1)
                         * CHUNK_WORDS * sizeof *set->numbers);
  if (set->numbers == NULL)
    return false;
  uint32_t next = 0, *rank = set->numbers;
  size_t cursor = 0;
  uintptr_t key;
  uint64_t *value;
  while (common_addrmap_next (&set->chunks, &cursor, &key, &value))
    {
      struct chunk *c = (struct chunk *) (uintptr_t) *value;
      c->rank = rank;
      for (size_t w = 0; w < CHUNK_WORDS; w++)
        {
          rank[w] = next;
          next += (uint32_t) common_popcount64 (c->bits[w]);
        }
      rank += CHUNK_WORDS;
    }
  set->numbered = true;
  return true;
}

size_t
common_blockset_number_of (struct common_blockset *set, uintptr_t address)
{
  if (!set->numbered || address % COMMON_BLOCKSET_GRAIN != 0)
    return SIZE_MAX;
  const struct chunk *c = chunk_of (set, address);
  if (c == NULL)
    return SIZE_MAX;
  size_t bit = bit_of (address);
  uint64_t word = c->bits[bit / 64];
  if (!(word >> (bit % 64) & 1))
    return SIZE_MAX;
  return c->rank[bit / 64] + common_popcount64 (word & ((UINT64_C (1)
                                                          << (bit % 64)) - 1));
}

/* The highest set bit of C at or below BIT, or SIZE_MAX.  */
static size_t
highest_at_or_below (const struct chunk *c, size_t bit)
{
  size_t w = bit / 64;
  uint64_t word = c->bits[w];
  if (bit % 64 != 63)
    word &= (UINT64_C (1) << (bit % 64 + 1)) - 1;
  for (;;)
    {
      if (word)
        return w * 64 + 63 - (size_t) __builtin_clzll (word);
      if (w == 0)
        return SIZE_MAX;
      word = c->bits[--w];
    }
}

bool
common_blockset_floor (const struct common_blockset *set, uintptr_t address,
                       uintptr_t *member)
{
  bool found = false;
  size_t cursor = 0;
  uintptr_t key;
  uint64_t *value;
  while (common_addrmap_next (&set->chunks, &cursor, &key, &value))
    {
      if (key > chunk_key (address))
        continue;
      size_t last = key == chunk_key (address) ? bit_of (address)
                                               : CHUNK_BITS - 1;
      size_t bit = highest_at_or_below ((const struct chunk *) (uintptr_t)
                                        *value, last);
      if (bit == SIZE_MAX)
        continue;
      uintptr_t start = ((key - 1) << COMMON_BLOCKSET_CHUNK_SHIFT)
                        + (uintptr_t) bit * COMMON_BLOCKSET_GRAIN;
      if (!found || start > *member)
        *member = start;
      found = true;
    }
  return found;
}

void
common_blockset_each (const struct common_blockset *set,
                      void (*fn) (uintptr_t member, void *ctx), void *ctx)
{
  size_t cursor = 0;
  uintptr_t key;
  uint64_t *value;
  while (common_addrmap_next (&set->chunks, &cursor, &key, &value))
    {
      const struct chunk *c = (const struct chunk *) (uintptr_t) *value;
      uintptr_t chunk_start = (key - 1) << COMMON_BLOCKSET_CHUNK_SHIFT;
      for (size_t w = 0; w < CHUNK_WORDS; w++)
        for (uint64_t bits = c->bits[w]; bits; bits &= bits - 1)
          fn (chunk_start + (uintptr_t) (w * 64 + (size_t) __builtin_ctzll
                                                    (bits))
                            * COMMON_BLOCKSET_GRAIN, ctx);
    }
}

size_t
common_blockset_bytes (const struct common_blockset *set)
{
  return set->chunks.count * sizeof (struct chunk)
         + set->chunks.capacity * sizeof *set->chunks.slots
         + (set->numbers ? set->chunks.count * CHUNK_WORDS
                           * sizeof *set->numbers : 0);
}

void
common_blockset_free (struct common_blockset *set)
{
  size_t cursor = 0;
  uintptr_t key;
  uint64_t *value;
  while (common_addrmap_next (&set->chunks, &cursor, &key, &value))
    free ((void *) (uintptr_t) *value);
  common_addrmap_free (&set->chunks);
  set->count = 0;
  drop_numbers (set);
  set->last_key = 0;
  set->last_chunk = NULL;
}
