/* SPDX-License-Identifier: MIT */
/* pdump/addrmap.h: an open-addressing hash map from addresses to the
   writer's records (addrmap.c).  */

#ifndef DUMPER_PDUMP_ADDRMAP_H
#define DUMPER_PDUMP_ADDRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pdump_addrmap_slot
{
  uintptr_t key;            /* 0: empty */
  uint32_t index;           /* the object's number in image order */
  uint32_t type;            /* host type, or PDUMP_TYPE_BYTES */
  uint64_t size;            /* bytes (the block length for byte blocks) */
  uint64_t offset;          /* section-relative, see write.c */
};

struct pdump_addrmap
{
  struct pdump_addrmap_slot *slots;
  size_t capacity;          /* power of two */
  size_t count;
};

bool pdump_addrmap_init (struct pdump_addrmap *map, size_t expected);
void pdump_addrmap_free (struct pdump_addrmap *map);

/* The slot for KEY, or NULL.  */
struct pdump_addrmap_slot *pdump_addrmap_get (const struct pdump_addrmap *map,
                                              uintptr_t key);

/* Insert KEY (absent, non-zero) and return its slot to fill in, or NULL
   when memory runs out.  The pointer is valid until the next insert.  */
struct pdump_addrmap_slot *pdump_addrmap_put (struct pdump_addrmap *map,
                                              uintptr_t key);

#endif /* DUMPER_PDUMP_ADDRMAP_H */
