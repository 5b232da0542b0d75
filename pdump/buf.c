/* SPDX-License-Identifier: MIT */
/* pdump/buf.c: the growable buffers and word bitmaps of the writer's
   walk (walk.c).  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/zmem.h"
#include "walkint.h"

/* ------------------------------------------------------------------ */
/* Growable buffers.  New bytes are zero: padding in the image is zero.
   They come from common/zmem.c, so the zeroes are the kernel's untouched
   pages (no memset, nothing resident before it is written) and growth
   moves page tables, not bytes.  */

bool
pdump_buf_reserve (struct pdump_buf *b, size_t size)
{
  if (size <= b->capacity)
    return true;
  size_t capacity = b->capacity ? b->capacity : 65536;
  while (capacity < size)
    capacity *= 2;
  unsigned char *data = common_zrealloc (b->data, b->capacity, capacity, true);
  if (data == NULL)
    return false;
  b->data = data;
  b->capacity = capacity;
  return true;
}

void
pdump_buf_free (struct pdump_buf *b)
{
  common_zfree (b->data, b->capacity);
}

bool
pdump_buf_append (struct pdump_buf *b, const void *bytes, size_t size)
{
  if (!pdump_buf_reserve (b, b->size + size))
    return false;
  memcpy (b->data + b->size, bytes, size);
  b->size += size;
  return true;
}

/* Make room in area A's word bitmaps for its first BYTES bytes: image
   relocations, and every word a trace reported (to catch a field
   reported twice before its encoded value is read back, and for the
   lint of unreported words).  Both are the same size.  */
bool
pdump_bits_reserve (struct pdump_hot_area *a, uint64_t area_bytes)
{
  size_t words = (size_t) ((area_bytes / PDUMP_WORD_SIZE + 63) / 64);
  if (words <= a->bits_words)
    return true;
  size_t capacity = a->bits_words ? a->bits_words : 1024;
  while (capacity < words)
    capacity *= 2;
  size_t old_bytes = a->bits_words * sizeof (uint64_t);
  size_t bytes = capacity * sizeof (uint64_t);
  uint64_t **maps[2] = { &a->image_bits, &a->reported_bits };
  for (int k = 0; k < 2; k++)
    {
      uint64_t *grown = common_zrealloc (*maps[k], old_bytes, bytes, true);
      if (grown == NULL)
        {
          /* Keep them the same size: shrink the grown ones back.  */
          for (int j = 0; j < k; j++)
            {
              uint64_t *back = common_zrealloc (*maps[j], bytes, old_bytes,
                                                true);
              if (back)
                *maps[j] = back;
            }
          return false;
        }
      *maps[k] = grown;
    }
  a->bits_words = capacity;
  return true;
}

bool
pdump_u32_push (struct pdump_u32vec *v, uint32_t x)
{
  if (v->size == v->capacity)
    {
      size_t capacity = v->capacity ? v->capacity * 2 : 4096;
      uint32_t *data = realloc (v->data, capacity * sizeof *data);
      if (data == NULL)
        return false;
      v->data = data;
      v->capacity = capacity;
    }
  v->data[v->size++] = x;
  return true;
}
