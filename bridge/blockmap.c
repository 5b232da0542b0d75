/* SPDX-License-Identifier: MIT */
/* bridge/blockmap.c: a hash map from addresses to sizes.

   Two users: the live blocks of dumper_alloc in a dumping run of a
   pdumper or none build (alloc.c), and the objects the pre-dump check
   has visited (refcheck.c).  Open addressing with linear probing and
   backward-shift deletion, so there are no tombstones and a map that
   sees as many frees as allocations (a collector's sweep) stays fast.
   Key 0 marks an empty slot: NULL is never a block.

   Invariant: every key sits at or after its home slot with no empty
   slot in between (what backward-shift deletion preserves).  */

#include <config.h>

#include <stdlib.h>

#include "bridge.h"

static size_t
home (const struct bridge_blockmap *m, uintptr_t key)
{
  /* Fibonacci hashing: the product's top bits depend on every bit of
     the key, the alignment zeros included.  */
  return (size_t) ((key * UINT64_C (0x9E3779B97F4A7C15)) >> m->shift);
}

static bool
grow (struct bridge_blockmap *m)
{
  size_t capacity = m->slots ? (m->mask + 1) * 2 : 1024;
  struct bridge_block *slots = calloc (capacity, sizeof *slots);
  if (slots == NULL)
    return false;
  struct bridge_block *old = m->slots;
  size_t old_capacity = old ? m->mask + 1 : 0;
  m->slots = slots;
  m->mask = capacity - 1;
  m->shift = 64 - (unsigned) __builtin_ctzll (capacity);
  for (size_t i = 0; i < old_capacity; i++)
    if (old[i].start)
      {
        size_t j = home (m, old[i].start);
        while (slots[j].start)
          j = (j + 1) & m->mask;
        slots[j] = old[i];
      }
  free (old);
  return true;
}

bool
bridge_blockmap_put (struct bridge_blockmap *m, uintptr_t start, size_t size)
{
  if (m->slots == NULL || (m->count + 1) * 4 > (m->mask + 1) * 3)
    if (!grow (m))
      return false;
  size_t j = home (m, start);
  while (m->slots[j].start && m->slots[j].start != start)
    j = (j + 1) & m->mask;
  if (m->slots[j].start == 0)
    m->count++;
  m->slots[j] = (struct bridge_block) { start, size };
  return true;
}

struct bridge_block *
bridge_blockmap_get (const struct bridge_blockmap *m, uintptr_t start)
{
  if (m->slots == NULL || start == 0)
    return NULL;
  for (size_t j = home (m, start); m->slots[j].start; j = (j + 1) & m->mask)
    if (m->slots[j].start == start)
      return &m->slots[j];
  return NULL;
}

bool
bridge_blockmap_remove (struct bridge_blockmap *m, uintptr_t start)
{
  if (m->slots == NULL || start == 0)
    return false;
  size_t j = home (m, start);
  while (m->slots[j].start != start)
    {
      if (m->slots[j].start == 0)
        return false;
      j = (j + 1) & m->mask;
    }
  /* Backward shift: pull later members of the run into the hole when
     their home slot does not lie cyclically in (hole, k].  */
  size_t hole = j;
  for (size_t k = (j + 1) & m->mask; m->slots[k].start; k = (k + 1) & m->mask)
    {
      size_t h = home (m, m->slots[k].start);
      bool stays = hole <= k ? (hole < h && h <= k) : (hole < h || h <= k);
      if (!stays)
        {
          m->slots[hole] = m->slots[k];
          hole = k;
        }
    }
  m->slots[hole] = (struct bridge_block) { 0, 0 };
  m->count--;
  return true;
}

const struct bridge_block *
bridge_blockmap_containing (const struct bridge_blockmap *m, uintptr_t address)
{
  if (m->slots == NULL)
    return NULL;
  for (size_t j = 0; j <= m->mask; j++)
    {
      const struct bridge_block *b = &m->slots[j];
      if (b->start && address >= b->start
          && address - b->start < (b->size & ~BRIDGE_BLOCK_SEEN))
        return b;
    }
  return NULL;
}

void
bridge_blockmap_clear_seen (struct bridge_blockmap *m)
{
  if (m->slots)
    for (size_t j = 0; j <= m->mask; j++)
      m->slots[j].size &= ~BRIDGE_BLOCK_SEEN;
}

void
bridge_blockmap_free (struct bridge_blockmap *m)
{
  free (m->slots);
  m->slots = NULL;
  m->mask = 0;
  m->count = 0;
}
