/* SPDX-License-Identifier: MIT */
/* pdump/verify-index.c: the structural pass's first step (pass 1) and
   the tables it builds: the object index (OBJECTS) read once, checked
   to tile HOT and COLD exactly, into an object-start bitmap with its
   rank, the type and size of every object, and (hosts with fewer than
   255 types) a type per 8-byte granule; and the lookups of an object by
   offset that the field checks (verify-structure.c) make.

   Must not: allocate (one scratch mapping, sized from the header), nor
   read the index past OBJECTS' end.  */

#include <config.h>

#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

#include "common/bits.h"
#include "internal.h"
#include "verify-pass.h"

struct index_cursor
{
  const unsigned char *p, *end;
  uint64_t number;               /* objects read */
  uint64_t at;                   /* end of the previous object */
};

static inline bool
read_uleb (struct index_cursor *c, uint64_t *out)
{
  /* Nearly every type and size fits in one byte.  */
  if (c->p < c->end && *c->p < 0x80)
    {
      *out = *c->p++;
      return true;
    }
  uint64_t value = 0;
  for (unsigned shift = 0; shift < 64 && c->p < c->end; shift += 7)
    {
      unsigned char byte = *c->p++;
      if (shift == 63 && byte > 1)
        return false;
      value |= (uint64_t) (byte & 0x7f) << shift;
      if (!(byte & 0x80))
        {
          *out = value;
          return true;
        }
    }
  return false;
}

/* The next object of the index: its type, size and file offset,
   checked against the section it falls in.  */
static bool
index_next (struct verifier *v, struct index_cursor *c, unsigned *type,
            uint64_t *size, uint64_t *start)
{
  if (c->number == v->hot_count)
    c->at = v->cold_offset;
  bool hot = c->number < v->hot_count;
  uint64_t end = hot ? v->hot_end : v->cold_end;
  uint64_t t, s;
  if (!read_uleb (c, &t) || !read_uleb (c, &s))
    {
      pdump_verify_fail (v, "object index: entry %" PRIu64 " is cut short",
                         c->number);
      return false;
    }
  bool bytes = t == PDUMP_TYPE_BYTES;
  if (!bytes && t >= (uint64_t) v->heap->type_count)
    {
      pdump_verify_fail (v, "object index: object %" PRIu64 " has type %"
                         PRIu64 "; this executable has %d types", c->number,
                         t, v->heap->type_count);
      return false;
    }
  bool traced = !bytes && (v->heap->types[t].size == NULL
                           ? v->heap->types[t].trace_sized != NULL
                           : v->heap->types[t].trace != NULL);
  if (traced != hot)
    {
      pdump_verify_fail (v, "object index: object %" PRIu64 " (`%s') is in "
                         "%s, but its type %s pointers", c->number,
                         type_name (v, (unsigned) t), hot ? "HOT" : "COLD",
                         traced ? "has" : "has no");
      return false;
    }
  uint64_t at = align_up (c->at, bytes ? PDUMP_ALIGN : v->object_align);
  if (s == 0 || at > end || s > end - at)
    {
      pdump_verify_fail (v, "object index: object %" PRIu64 " (`%s', %" PRIu64
                         " bytes at offset 0x%" PRIx64 ") does not fit in %s",
                         c->number, type_name (v, (unsigned) t), s, at,
                         hot ? "HOT" : "COLD");
      return false;
    }
  *type = (unsigned) t;
  *size = s;
  *start = at;
  c->at = at + s;
  c->number++;
  return true;
}

/* Pass 1: the index tiles HOT and COLD exactly; record every start and
   type.  */
enum dumper_status
pdump_verify_map_objects (struct verifier *v, const unsigned char *index,
                          uint64_t index_size)
{
  struct index_cursor c = { index, index + index_size, 0, v->hot_offset };
  while (c.number < v->object_count)
    {
      unsigned type;
      uint64_t size, start;
      uint64_t number = c.number;
      if (!index_next (v, &c, &type, &size, &start))
        return v->status;
      uint64_t granule = (start - v->hot_offset) / PDUMP_GRANULE;
      v->starts[granule / 64] |= UINT64_C (1) << (granule % 64);
      set_type (v, number, type);
      if (v->granule_types)
        v->granule_types[granule] = (uint8_t) (type == PDUMP_TYPE_BYTES
                                               ? NARROW_BYTES : type + 1);
      if (v->sizes32)
        v->sizes32[number] = (uint32_t) size;
      else
        v->sizes64[number] = size;
      if (number + 1 == v->hot_count && c.at != v->hot_end)
        return pdump_verify_fail (v, "object index: HOT objects end at "
                                  "offset 0x%" PRIx64 ", HOT at 0x%" PRIx64,
                                  c.at, v->hot_end);
    }
  if (c.p != c.end)
    return pdump_verify_fail (v, "object index: %zu bytes after the last "
                              "object", (size_t) (c.end - c.p));
  if ((v->hot_count == v->object_count ? v->cold_offset : c.at) != v->cold_end)
    return pdump_verify_fail (v, "object index: COLD objects end at offset "
                              "0x%" PRIx64 ", COLD at 0x%" PRIx64, c.at,
                              v->cold_end);
  if (v->hot_count == 0 && v->hot_end != v->hot_offset)
    return pdump_verify_fail (v, "object index: HOT holds no objects but is "
                              "not empty");
  uint32_t count = 0;
  for (size_t w = 0; w < v->start_words; w++)
    {
      v->rank[w] = count;
      count += (uint32_t) common_popcount64 (v->starts[w]);
    }
  return DUMPER_OK;
}

bool
pdump_verify_object_at (const struct verifier *v, uint64_t offset,
                        uint64_t *number)
{
  if (offset < v->hot_offset || offset >= v->cold_end
      || (offset - v->hot_offset) % PDUMP_GRANULE != 0)
    return false;
  uint64_t granule = (offset - v->hot_offset) / PDUMP_GRANULE;
  uint64_t word = v->starts[granule / 64];
  uint64_t bit = UINT64_C (1) << (granule % 64);
  if (!(word & bit))
    return false;
  *number = v->rank[granule / 64]
            + (uint64_t) common_popcount64 (word & (bit - 1));
  return true;
}


uint64_t
pdump_verify_number_at (const struct verifier *v, uint64_t offset)
{
  uint64_t number = 0;
  (void) pdump_verify_object_at (v, offset, &number);
  return number;
}

uint64_t
pdump_verify_room_at (const struct verifier *v, uint64_t offset)
{
  uint64_t end = offset < v->cold_offset ? v->hot_end : v->cold_end;
  for (uint64_t next = offset + PDUMP_GRANULE; next < end; next += PDUMP_GRANULE)
    {
      uint64_t granule = (next - v->hot_offset) / PDUMP_GRANULE;
      if (bit_of (v->starts, granule))
        return next - offset;
    }
  return end - offset;
}

bool
pdump_verify_object_containing (const struct verifier *v, uint64_t offset,
                                uint64_t *number, uint64_t *start)
{
  if (offset < v->hot_offset || offset > v->cold_end)
    return false;
  uint64_t granule = (offset - v->hot_offset) / PDUMP_GRANULE;
  if (granule >= (uint64_t) v->start_words * 64)
    granule = (uint64_t) v->start_words * 64 - 1;
  size_t w = (size_t) (granule / 64);
  uint64_t word = v->starts[w];
  if (granule % 64 != 63)
    word &= (UINT64_C (2) << (granule % 64)) - 1;
  while (word == 0)
    {
      if (w == 0)
        return false;
      word = v->starts[--w];
    }
  unsigned bit = 63 - (unsigned) __builtin_clzll (word);
  *start = v->hot_offset + ((uint64_t) w * 64 + bit) * PDUMP_GRANULE;
  *number = v->rank[w] + (uint64_t) common_popcount64 (word & ((UINT64_C (1)
                                                                << bit) - 1));
  return offset - *start <= size_of (v, *number);
}


/* One mapping for all of the pass's tables, sized from the header.  */
bool
pdump_verify_reserve (struct verifier *v)
{
  bool narrow = v->heap->type_count < NARROW_BYTES;
  size_t starts = v->start_words * 8;
  size_t rank = (v->start_words * 4 + 7) / 8 * 8;
  size_t types = (size_t) ((v->object_count * (narrow ? 1 : 2) + 7) / 8 * 8);
  size_t own_tag = ((size_t) v->heap->type_count + 7) / 8 * 8;
  size_t granule_types = narrow ? v->start_words * 64 : 0;
  size_t hot = v->hot_bitmap_words * 8;
  bool small = v->cold_end - v->hot_offset <= UINT32_MAX;
  size_t sizes = (size_t) v->object_count * (small ? 4 : 8);
  sizes = (sizes + 7) / 8 * 8;
  v->scratch_size = starts + rank + types + granule_types + own_tag + 3 * hot
                    + sizes;
  v->scratch = mmap (NULL, v->scratch_size ? v->scratch_size : 8,
                     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (v->scratch == MAP_FAILED)
    return false;
  unsigned char *p = v->scratch;
  v->starts = (uint64_t *) p;
  p += starts;
  v->rank = (uint32_t *) p;
  p += rank;
  if (narrow)
    v->types8 = p;
  else
    v->types16 = (uint16_t *) p;
  p += types;
  if (narrow)
    v->granule_types = p;
  p += granule_types;
  v->own_tag = p;
  p += own_tag;
  v->reported = (uint64_t *) p;
  v->exe_bits = (uint64_t *) (p + hot);
  v->code_bits = (uint64_t *) (p + 2 * hot);
  if (small)
    v->sizes32 = (uint32_t *) (p + 3 * hot);
  else
    v->sizes64 = (uint64_t *) (p + 3 * hot);
  /* Lowest tag first, as the message names it.  */
  for (uintptr_t tag = v->tag_mask + 1; tag-- > 0;)
    if (v->heap->tag_types[tag] >= 0
        && v->heap->tag_types[tag] < v->heap->type_count)
      v->own_tag[v->heap->tag_types[tag]] = (uint8_t) (tag + 1);
  return true;
}

