/* SPDX-License-Identifier: MIT */
/* pdump/addrmap.c: the writer's "already visited" map, from an object's
   address in this process to where it goes in the image.

   Linear probing over a power-of-two table kept at most half full; the
   hash is a multiplicative (Fibonacci) hash, which spreads the aligned,
   clustered addresses malloc returns.  No deletion: a dump only adds.
   Iteration order is never used, so addresses cannot leak into the
   image's layout.  */

#include <config.h>

#include <stdlib.h>

#include "addrmap.h"

static size_t
slot_of (uintptr_t key, size_t capacity)
{
  uint64_t h = (uint64_t) key * UINT64_C (0x9E3779B97F4A7C15);
  return (size_t) (h >> 17) & (capacity - 1);
}

bool
pdump_addrmap_init (struct pdump_addrmap *map, size_t expected)
{
  size_t capacity = 1024;
  while (capacity < expected * 2)
    capacity *= 2;
  map->slots = calloc (capacity, sizeof *map->slots);
  map->capacity = map->slots ? capacity : 0;
  map->count = 0;
  return map->slots != NULL;
}

void
pdump_addrmap_free (struct pdump_addrmap *map)
{
  free (map->slots);
  map->slots = NULL;
  map->capacity = map->count = 0;
}

struct pdump_addrmap_slot *
pdump_addrmap_get (const struct pdump_addrmap *map, uintptr_t key)
{
  size_t mask = map->capacity - 1;
  for (size_t i = slot_of (key, map->capacity);; i = (i + 1) & mask)
    {
      struct pdump_addrmap_slot *s = &map->slots[i];
      if (s->key == key)
        return s;
      if (s->key == 0)
        return NULL;
    }
}

static bool
grow (struct pdump_addrmap *map)
{
  size_t capacity = map->capacity * 2;
  struct pdump_addrmap_slot *slots = calloc (capacity, sizeof *slots);
  if (slots == NULL)
    return false;
  for (size_t i = 0; i < map->capacity; i++)
    if (map->slots[i].key != 0)
      {
        size_t j = slot_of (map->slots[i].key, capacity);
        while (slots[j].key != 0)
          j = (j + 1) & (capacity - 1);
        slots[j] = map->slots[i];
      }
  free (map->slots);
  map->slots = slots;
  map->capacity = capacity;
  return true;
}

struct pdump_addrmap_slot *
pdump_addrmap_put (struct pdump_addrmap *map, uintptr_t key)
{
  if ((map->count + 1) * 2 > map->capacity && !grow (map))
    return NULL;
  size_t mask = map->capacity - 1;
  size_t i = slot_of (key, map->capacity);
  while (map->slots[i].key != 0)
    i = (i + 1) & mask;
  map->slots[i].key = key;
  map->count++;
  return &map->slots[i];
}
