/* SPDX-License-Identifier: MIT */
/* common/layout.h: what a type's layout (heap.h, struct dumper_layout)
   says of one object, its header and its size, read in one place for
   the two that need it: the pre-dump check (bridge/refcheck.c), which
   compares it with the host's size function, and the structural pass
   (pdump/verify-structure.c), which uses it instead of that function.
   So the dump and the load cannot disagree on what a layout means.
   Inline: the pass reads every object of a layout type with it.  */

#ifndef DUMPER_COMMON_LAYOUT_H
#define DUMPER_COMMON_LAYOUT_H

#include <stdint.h>
#include <string.h>

#include <dumper/heap.h>

/* The unsigned BYTES-byte (1, 2, 4 or 8) field at byte AT of OBJ, in
   native byte order.  */
static inline uint64_t
common_layout_field (const void *obj, unsigned at, unsigned bytes)
{
  const unsigned char *p = (const unsigned char *) obj + at;
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  switch (bytes)
    {
    case 1: memcpy (&u8, p, 1); return u8;
    case 2: memcpy (&u16, p, 2); return u16;
    case 4: memcpy (&u32, p, 4); return u32;
    default: memcpy (&u64, p, 8); return u64;
    }
}

enum common_layout_verdict
{
  COMMON_LAYOUT_SIZED,          /* *SIZE is the object's size */
  COMMON_LAYOUT_BAD_HEADER,     /* its header field is not the layout's */
  COMMON_LAYOUT_WRAPS           /* its count's size would pass SIZE_MAX */
};

/* What layout L says of the object at OBJ, of which the first 64 bytes
   and the first L->fixed bytes may be read (heap.h puts both fields
   there): malformed (a header field that is not L's value, a count
   whose size, FIXED + COUNT * ELEMENT, would pass SIZE_MAX: as when a
   size function returns 0), or sized, *SIZE set.  *COUNT is the count
   field's value (0 without one), for messages.  */
static inline enum common_layout_verdict
common_layout_size (const struct dumper_layout *l, const void *obj,
                    uint64_t *size, uint64_t *count)
{
  *size = 0;
  *count = 0;
  if (l->header_bytes != 0
      && common_layout_field (obj, l->header_at, l->header_bytes)
         != l->header_value)
    return COMMON_LAYOUT_BAD_HEADER;
  if (l->count_bytes != 0)
    {
      *count = common_layout_field (obj, l->count_at, l->count_bytes);
      if (l->element != 0 && *count > (SIZE_MAX - l->fixed) / l->element)
        return COMMON_LAYOUT_WRAPS;
    }
  *size = l->fixed + *count * l->element;
  return COMMON_LAYOUT_SIZED;
}

#endif /* DUMPER_COMMON_LAYOUT_H */
