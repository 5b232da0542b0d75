/* SPDX-License-Identifier: MIT */
/* common/addrmap.c: open addressing with linear probing (addrmap.h).

   Layout: one array of 16-byte slots, key beside value, four to a
   cache line: a hit is one miss, and a probe run of a few slots stays
   in the line it started in.

   Home slot: the key is multiplied by 2^64/phi (Fibonacci hashing, so
   every key bit reaches the top bits of the product; malloc addresses
   differ in their middle bits and share their low zeros) and the top
   bits pick the slot by a multiply-shift range reduction, so the
   capacity need not be a power of two and a presized map really is
   4/5 full rather than anywhere between 3/8 and 3/4.

   Invariant: every key sits at its home slot or after it (cyclically),
   with no empty slot between the two.  Insertion keeps it by taking the
   first empty slot; removal keeps it by moving later keys of the run
   back into the hole (backward-shift deletion).  */

#include <config.h>

#include <string.h>

#include "addrmap.h"
#include "zmem.h"

#define SLOT_BYTES (sizeof (struct common_addrmap_slot))

static size_t
home (size_t capacity, uintptr_t key)
{
  return common_addrmap_home (capacity, key);
}

static size_t
next_slot (size_t slot, size_t capacity)
{
  return slot + 1 == capacity ? 0 : slot + 1;
}

static size_t
limit_of (size_t capacity)
{
  return capacity / COMMON_ADDRMAP_LOAD_DEN * COMMON_ADDRMAP_LOAD_NUM
         + capacity % COMMON_ADDRMAP_LOAD_DEN * COMMON_ADDRMAP_LOAD_NUM
           / COMMON_ADDRMAP_LOAD_DEN;
}

/* Slots for EXPECTED keys at the highest load; at least 16.  */
static size_t
capacity_for (size_t expected)
{
  size_t capacity = expected / COMMON_ADDRMAP_LOAD_NUM
                    * COMMON_ADDRMAP_LOAD_DEN + COMMON_ADDRMAP_LOAD_DEN;
  return capacity < 16 ? 16 : capacity;
}

size_t
common_addrmap_bytes (size_t expected)
{
  return capacity_for (expected) * SLOT_BYTES;
}

static void *
default_alloc (size_t size)
{
  return common_zalloc (size, true);
}

static const struct common_addrmap_allocator default_allocator = {
  default_alloc, common_zfree
};

/* Point MAP at a fresh zeroed table of CAPACITY slots.  */
static bool
new_table (struct common_addrmap *map, size_t capacity)
{
  if (capacity > SIZE_MAX / SLOT_BYTES)
    return false;
  struct common_addrmap_slot *slots = map->allocator->alloc (capacity
                                                             * SLOT_BYTES);
  if (slots == NULL)
    return false;
  map->slots = slots;
  map->capacity = capacity;
  map->limit = limit_of (capacity);
  return true;
}

bool
common_addrmap_init (struct common_addrmap *map, size_t expected,
                     const struct common_addrmap_allocator *allocator)
{
  memset (map, 0, sizeof *map);
  map->allocator = allocator ? allocator : &default_allocator;
  return new_table (map, capacity_for (expected));
}

void
common_addrmap_free (struct common_addrmap *map)
{
  if (map->slots)
    map->allocator->free (map->slots, map->capacity * SLOT_BYTES);
  map->slots = NULL;
  map->capacity = map->count = map->limit = 0;
}

uint64_t *
common_addrmap_get (const struct common_addrmap *map, uintptr_t key)
{
  if (map->capacity == 0 || key == 0)
    return NULL;
  for (size_t i = home (map->capacity, key);; i = next_slot (i, map->capacity))
    {
      struct common_addrmap_slot *s = &map->slots[i];
      if (s->key == key)
        return &s->value;
      if (s->key == 0)
        return NULL;
    }
}

/* Double the table.  The old one is freed only after every key has
   moved, so for a moment both exist: presize to avoid it.  */
static bool
grow (struct common_addrmap *map)
{
  struct common_addrmap old = *map;
  if (!new_table (map, old.capacity * 2))
    {
      *map = old;
      return false;
    }
  for (size_t i = 0; i < old.capacity; i++)
    if (old.slots[i].key != 0)
      {
        size_t j = home (map->capacity, old.slots[i].key);
        while (map->slots[j].key != 0)
          j = next_slot (j, map->capacity);
        map->slots[j] = old.slots[i];
      }
  old.allocator->free (old.slots, old.capacity * SLOT_BYTES);
  return true;
}

uint64_t *
common_addrmap_insert (struct common_addrmap *map, uintptr_t key, bool *added)
{
  *added = false;
  if (key == 0)
    return NULL;
  if (map->capacity == 0)
    {
      /* Zero-initialised (or freed): start small.  */
      if (map->allocator == NULL)
        map->allocator = &default_allocator;
      if (!new_table (map, capacity_for (0)))
        return NULL;
    }
  size_t i = home (map->capacity, key);
  for (; map->slots[i].key != 0; i = next_slot (i, map->capacity))
    if (map->slots[i].key == key)
      return &map->slots[i].value;
  if (map->count + 1 > map->limit)
    {
      if (!grow (map))
        return NULL;
      for (i = home (map->capacity, key); map->slots[i].key != 0;
           i = next_slot (i, map->capacity))
        ;
    }
  map->slots[i] = (struct common_addrmap_slot) { key, 0 };
  map->count++;
  *added = true;
  return &map->slots[i].value;
}

bool
common_addrmap_put (struct common_addrmap *map, uintptr_t key, uint64_t value)
{
  bool added;
  uint64_t *slot = common_addrmap_insert (map, key, &added);
  if (slot == NULL)
    return false;
  *slot = value;
  return true;
}

bool
common_addrmap_remove (struct common_addrmap *map, uintptr_t key)
{
  if (map->capacity == 0 || key == 0)
    return false;
  size_t hole = home (map->capacity, key);
  while (map->slots[hole].key != key)
    {
      if (map->slots[hole].key == 0)
        return false;
      hole = next_slot (hole, map->capacity);
    }
  /* Move back each later key of the run whose home is not cyclically
     in (hole, k]: it could not be found past the hole otherwise.  */
  for (size_t k = next_slot (hole, map->capacity); map->slots[k].key != 0;
       k = next_slot (k, map->capacity))
    {
      size_t h = home (map->capacity, map->slots[k].key);
      bool stays = hole <= k ? hole < h && h <= k : hole < h || h <= k;
      if (!stays)
        {
          map->slots[hole] = map->slots[k];
          hole = k;
        }
    }
  map->slots[hole] = (struct common_addrmap_slot) { 0, 0 };
  map->count--;
  return true;
}

bool
common_addrmap_next (const struct common_addrmap *map, size_t *cursor,
                     uintptr_t *key, uint64_t **value)
{
  for (size_t i = *cursor; i < map->capacity; i++)
    if (map->slots[i].key != 0)
      {
        *key = map->slots[i].key;
        *value = &map->slots[i].value;
        *cursor = i + 1;
        return true;
      }
  *cursor = map->capacity;
  return false;
}
