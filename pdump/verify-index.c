/* SPDX-License-Identifier: MIT */
/* pdump/verify-index.c: the structural pass's first step (pass 1) and
   the tables it builds: the object index (OBJECTS) read once, checked
   to tile HOT and COLD exactly, into an object-start bitmap with its
   rank, the type and size of every object, and (hosts with fewer than
   255 types) a type per 8-byte granule; and the lookups of an object by
   offset that the field checks (verify-structure.c) make.

   Pass 1 runs at every verified start over every object (1.3 million
   in dlisp's image at loadup scale 16), so it is built for speed: each
   table written once, in order; the common entries (a one-byte type,
   or a byte block's, and a size of one or two bytes) taken by a fast
   path that only accepts, leaving every other entry, and every
   refusal, to the one general reader (index_next), so that an image
   gets the same verdict and message either way; the scratch mapping
   in huge pages where they come cheap.

   Must not: allocate (one scratch mapping, sized from the header), nor
   read the index past OBJECTS' end.  */

#include <config.h>

#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

#include "common/bits.h"
#include "common/os.h"
#include "common/zmem.h"
#include "internal.h"
#include "verify-pass.h"

struct index_cursor
{
  const unsigned char *p, *end;
  uint64_t number;               /* objects read */
  uint64_t at;                   /* end of the previous object */
};

/* Whether objects of type T have pointers (and so belong in HOT).  */
static inline bool
type_traced (const struct dumper_heap *heap, uint64_t t)
{
  return heap->types[t].size == NULL ? heap->types[t].trace_sized != NULL
                                     : heap->types[t].trace != NULL;
}

/* The next object of the index: its type, size and file offset,
   checked against the section it falls in.  Every entry the fast paths
   below do not take comes here, and so does every refusal: the
   messages are this function's alone.  */
static bool __attribute__ ((noinline))
index_next (struct verifier *v, struct index_cursor *c, unsigned *type,
            uint64_t *size, uint64_t *start)
{
  bool hot = c->number < v->hot_count;
  uint64_t end = hot ? v->hot_end : v->cold_end;
  uint64_t t, s;
  if (!pdump_read_uleb (&c->p, c->end, &t)
      || !pdump_read_uleb (&c->p, c->end, &s))
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
  bool traced = !bytes && type_traced (v->heap, t);
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

/* Where pass 1 writes, copied out of the verifier so that the compiler
   keeps them in registers (a byte stored through TYPES8 may alias any
   field of the verifier, which it would otherwise load again after
   every object), and the word of the start bitmap being filled: every
   word of STARTS and RANK is written once, in order, instead of a bit
   at a time and a counting pass at the end.  Objects start in
   increasing order, HOT's before COLD's: the fit check makes each end
   inside its section before the next starts, and pdump_check_header
   refused sections out of order or overlapping.  */
struct index_tables
{
  uint64_t *starts;
  uint32_t *rank;
  uint8_t *types8;
  uint16_t *types16;
  uint8_t *granule_types;
  uint32_t *sizes32;
  uint64_t *sizes64;
  uint64_t hot_offset;
  uint64_t word;                 /* the STARTS word being filled */
  uint64_t bits;                 /* its starts so far */
};

/* Object NUMBER starts at GRANULE (from HOT's start).  */
static inline __attribute__ ((always_inline)) void
mark_start (struct index_tables *x, uint64_t granule, uint64_t number)
{
  if (granule / 64 != x->word)
    {
      /* The word is complete; the ones up to this object's start
         before it.  */
      x->starts[x->word] = x->bits;
      for (uint64_t w = x->word + 1; w <= granule / 64; w++)
        x->rank[w] = (uint32_t) number;
      x->word = granule / 64;
      x->bits = 0;
    }
  x->bits |= UINT64_C (1) << (granule % 64);
}

/* Record object NUMBER, of TYPE and SIZE at file offset START.  */
static void
record (struct index_tables *x, uint64_t number, unsigned type,
        uint64_t size, uint64_t start)
{
  uint64_t granule = (start - x->hot_offset) / PDUMP_GRANULE;
  mark_start (x, granule, number);
  if (x->types16)
    x->types16[number] = (uint16_t) type;
  else
    x->types8[number] = (uint8_t) (type == PDUMP_TYPE_BYTES ? NARROW_BYTES
                                   : type);
  if (x->granule_types)
    x->granule_types[granule] = type == PDUMP_TYPE_BYTES ? NARROW_BYTES
                                : (uint8_t) (type + 1);
  if (x->sizes32)
    x->sizes32[number] = (uint32_t) size;
  else
    x->sizes64[number] = size;
}

/* By the first byte of an index entry: whether it is a whole type (a
   one-byte LEB128 number) that may be in HOT (FAST_HOT: a valid type
   with pointers) or in COLD (FAST_COLD: a valid type without).  */
#define FAST_HOT 1
#define FAST_COLD 2

static void
classify_types (const struct dumper_heap *heap, unsigned char kind[256])
{
  memset (kind, 0, 256);
  for (int t = 0; t < 0x80 && t < heap->type_count; t++)
    kind[t] = type_traced (heap, (uint64_t) t) ? FAST_HOT : FAST_COLD;
}

/* The one- or two-byte LEB128 size at P (two bytes readable), into
   *SIZE: the byte after it, or NULL for a longer number.  */
static inline __attribute__ ((always_inline)) const unsigned char *
fast_size (const unsigned char *p, uint64_t *size)
{
  if (p[0] < 0x80)
    {
      *size = p[0];
      return p + 1;
    }
  if (p[1] >= 0x80)
    return NULL;
  *size = (uint64_t) (p[0] & 0x7f) | (uint64_t) p[1] << 7;
  return p + 2;
}

/* Four HOT entries at once, where all four are of the commonest kind
   (a one-byte type with pointers, a one-byte size that is a multiple
   of the alignment, which each next object then starts right after the
   last): fast_run's checks for each, the section's end checked against
   the last object's, which ends after the others.  False, having
   changed nothing, where any of the four is of another kind.  */
static inline __attribute__ ((always_inline)) bool
fast_four (struct index_tables *x, const unsigned char **cursor,
           const unsigned char *end, uint64_t *at, uint64_t *number,
           uint64_t limit, uint64_t mask, uint64_t section_end,
           const unsigned char kind[256])
{
  const unsigned char *p = *cursor;
  if (limit - *number < 4 || end - p < 8)
    return false;
  unsigned t0 = p[0], s0 = p[1], t1 = p[2], s1 = p[3];
  unsigned t2 = p[4], s2 = p[5], t3 = p[6], s3 = p[7];
  /* A type byte with the high bit set has no kind; a size of 0, and no
     other below 0x80, sets bit 8 when 1 is taken from it.  */
  if (!(kind[t0] & kind[t1] & kind[t2] & kind[t3] & FAST_HOT)
      || ((s0 | s1 | s2 | s3) & (0x80 | mask)) != 0
      || (((s0 - 1) | (s1 - 1) | (s2 - 1) | (s3 - 1)) & 0x100) != 0)
    return false;
  uint64_t start = (*at + mask) & ~mask;
  uint64_t after = start + s0 + s1 + s2 + s3;
  if (after > section_end)
    return false;
  uint64_t n = *number;
  uint64_t g0 = start / PDUMP_GRANULE, g1 = g0 + s0 / PDUMP_GRANULE;
  uint64_t g2 = g1 + s1 / PDUMP_GRANULE, g3 = g2 + s2 / PDUMP_GRANULE;
  mark_start (x, g0, n);
  mark_start (x, g1, n + 1);
  mark_start (x, g2, n + 2);
  mark_start (x, g3, n + 3);
  x->types8[n] = (uint8_t) t0;
  x->types8[n + 1] = (uint8_t) t1;
  x->types8[n + 2] = (uint8_t) t2;
  x->types8[n + 3] = (uint8_t) t3;
  x->granule_types[g0] = (uint8_t) (t0 + 1);
  x->granule_types[g1] = (uint8_t) (t1 + 1);
  x->granule_types[g2] = (uint8_t) (t2 + 1);
  x->granule_types[g3] = (uint8_t) (t3 + 1);
  x->sizes32[n] = s0;
  x->sizes32[n + 1] = s1;
  x->sizes32[n + 2] = s2;
  x->sizes32[n + 3] = s3;
  *cursor = p + 8;
  *at = after;
  *number = n + 4;
  return true;
}

/* The objects of HOT (or COLD) up to LIMIT while their entries are
   the common kind, a one-byte type (or a byte block's three) and a
   size of one or two bytes, and they fit: index_next's checks in a few
   instructions, and record's writes with the table widths known
   (NARROW: TYPES8 and the granule map, else TYPES16; SIZES32).  It
   stops at the first entry it does not take, having read nothing of
   it, and index_next takes that one.  Offsets are from HOT's start
   here (the granule is one shift away), which keeps the alignment of
   each: HOT and COLD are page-aligned.  A size below 2^14 cannot wrap
   an offset.  */
static inline __attribute__ ((always_inline)) void
fast_run (struct verifier *v, struct index_cursor *c,
          struct index_tables *tables, const unsigned char kind[256],
          uint64_t limit, bool hot, bool narrow)
{
  struct index_tables x = *tables;   /* in registers: see index_tables */
  const unsigned char *p = c->p, *end = c->end;
  uint64_t at = c->at - x.hot_offset, number = c->number;
  uint64_t object_mask = v->object_align - 1;
  uint64_t section_end = (hot ? v->hot_end : v->cold_end) - x.hot_offset;
  for (;;)
    {
      if (hot && narrow)
        while (fast_four (&x, &p, end, &at, &number, limit, object_mask,
                          section_end, kind))
          continue;
      if (number == limit || end - p < (hot ? 3 : 5))
        break;
      unsigned type;
      uint64_t size, mask;
      const unsigned char *next;
      if (!hot && p[0] == 0xFF && p[1] == 0xFF && p[2] == 0x03)
        {
          type = PDUMP_TYPE_BYTES;
          mask = PDUMP_ALIGN - 1;
          next = fast_size (p + 3, &size);
        }
      else if (kind[p[0]] & (hot ? FAST_HOT : FAST_COLD))
        {
          type = p[0];
          mask = object_mask;
          next = fast_size (p + 1, &size);
        }
      else
        break;
      if (next == NULL)
        break;
      uint64_t start = (at + mask) & ~mask;
      if (size == 0 || start + size > section_end)
        break;
      uint64_t granule = start / PDUMP_GRANULE;
      mark_start (&x, granule, number);
      if (!narrow)
        x.types16[number] = (uint16_t) type;
      else if (!hot && type == PDUMP_TYPE_BYTES)
        {
          x.types8[number] = NARROW_BYTES;
          x.granule_types[granule] = NARROW_BYTES;
        }
      else
        {
          x.types8[number] = (uint8_t) type;
          x.granule_types[granule] = (uint8_t) (type + 1);
        }
      x.sizes32[number] = (uint32_t) size;
      at = start + size;
      p = next;
      number++;
    }
  *tables = x;
  c->p = p;
  c->at = at + x.hot_offset;
  c->number = number;
}

/* fast_run's four forms, each compiled with its widths fixed.  */
typedef void fast_fn (struct verifier *, struct index_cursor *,
                      struct index_tables *, const unsigned char *, uint64_t);
#define FAST_FORM(name, hot, narrow)                                    \
  static void                                                           \
  name (struct verifier *v, struct index_cursor *c,                     \
        struct index_tables *x, const unsigned char *kind,              \
        uint64_t limit)                                                 \
  {                                                                     \
    fast_run (v, c, x, kind, limit, hot, narrow);                       \
  }
FAST_FORM (fast_hot8, true, true)
FAST_FORM (fast_cold8, false, true)
FAST_FORM (fast_hot16, true, false)
FAST_FORM (fast_cold16, false, false)

/* The objects of one section, C->number up to LIMIT: FAST (NULL for
   none), and index_next for each entry it leaves.  */
static bool
map_section (struct verifier *v, struct index_cursor *c,
             struct index_tables *x, const unsigned char kind[256],
             uint64_t limit, fast_fn *fast)
{
  while (c->number < limit)
    {
      if (fast)
        {
          fast (v, c, x, kind, limit);
          if (c->number == limit)
            break;
        }
      unsigned type;
      uint64_t size, start;
      uint64_t number = c->number;
      if (!index_next (v, c, &type, &size, &start))
        return false;
      record (x, number, type, size, start);
    }
  return true;
}

/* Pass 1: the index tiles HOT and COLD exactly; record every start and
   type.  */
enum dumper_status
pdump_verify_map_objects (struct verifier *v, const unsigned char *index,
                          uint64_t index_size)
{
  struct index_cursor c = { index, index + index_size, 0, v->hot_offset };
  struct index_tables x = { v->starts, v->rank, v->types8, v->types16,
                            v->granule_types, v->sizes32, v->sizes64,
                            v->hot_offset, 0, 0 };
  unsigned char kind[256];
  classify_types (v->heap, kind);
  /* The fast path needs 4-byte sizes and HOT and COLD aligned for
     every object (they are page-aligned: pdump_check_header).  */
  bool fast = v->sizes32 && v->hot_offset % v->object_align == 0
              && v->cold_offset % v->object_align == 0;
  uint64_t hot_objects = v->hot_count < v->object_count ? v->hot_count
                                                         : v->object_count;
  if (!map_section (v, &c, &x, kind, hot_objects,
                    !fast ? NULL : v->types8 ? fast_hot8 : fast_hot16))
    return v->status;
  if (c.number == v->hot_count && v->hot_count > 0 && c.at != v->hot_end)
    return pdump_verify_fail (v, "object index: HOT objects end at "
                              "offset 0x%" PRIx64 ", HOT at 0x%" PRIx64,
                              c.at, v->hot_end);
  /* (With no COLD objects, the message below names HOT's end.)  */
  if (c.number == v->hot_count && c.number < v->object_count)
    c.at = v->cold_offset;
  if (!map_section (v, &c, &x, kind, v->object_count,
                    !fast ? NULL : v->types8 ? fast_cold8 : fast_cold16))
    return v->status;
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
  /* The last word; the words after it hold no start.  */
  if (v->object_count > 0)
    {
      x.starts[x.word] = x.bits;
      for (size_t w = (size_t) x.word + 1; w < v->start_words; w++)
        x.rank[w] = (uint32_t) v->object_count;
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

/* The first object start among granules FIRST to LAST (LAST inside
   the bitmap), or UINT64_MAX: a word of the bitmap at a time.  */
static uint64_t
next_start (const struct verifier *v, uint64_t first, uint64_t last)
{
  size_t w = (size_t) (first / 64);
  uint64_t word = v->starts[w] & (~UINT64_C (0) << (first % 64));
  while (word == 0)
    {
      if (++w > last / 64)
        return UINT64_MAX;
      word = v->starts[w];
    }
  uint64_t granule = (uint64_t) w * 64 + (uint64_t) __builtin_ctzll (word);
  return granule <= last ? granule : UINT64_MAX;
}

uint64_t
pdump_verify_room_at (const struct verifier *v, uint64_t offset)
{
  uint64_t end = offset < v->cold_offset ? v->hot_end : v->cold_end;
  if (end <= offset + PDUMP_GRANULE)
    return end - offset;
  /* The granules of OFFSET + 8, + 16, ... before END.  */
  uint64_t first = (offset - v->hot_offset) / PDUMP_GRANULE + 1;
  uint64_t last = first - 1 + (end - offset - 1) / PDUMP_GRANULE;
  /* The next start is nearly always a few granules on, and the granule
     map's line is in the cache (the caller found the block's start in
     it), where the bitmap's word was a miss a byte block.  */
  uint64_t from = first;
  if (v->granule_types)
    {
      uint64_t near = last - first < 64 ? last : first + 63;
      for (uint64_t g = first; g <= near; g++)
        if (v->granule_types[g] != 0)
          return (g - first + 1) * PDUMP_GRANULE;
      if (near == last)
        return end - offset;
      from = near + 1;
    }
  uint64_t next = next_start (v, from, last);
  return next == UINT64_MAX ? end - offset
         : (next - first + 1) * PDUMP_GRANULE;
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


#ifndef MADV_POPULATE_WRITE
# define MADV_POPULATE_WRITE 23         /* Linux 5.14 */
#endif

/* The scratch mapping of V->scratch_size bytes, every page of which the
   pass writes (the granule map, the sizes and the types nearly all
   their bytes), so each page's first touch is a fault: 3,500 of them
   for dlisp's 14 MB at loadup scale 16, 4.6 ms of a virtual machine's
   time.  Huge pages where common_huge_advice (the loader's rule for
   the image: none that would make a fault compact memory) allows
   them, the mapping rounded up to whole ones and aligned (common_zmap):
   1 ms less of the pass at scale 16 than small pages.  Else small
   pages filled in one call (MADV_POPULATE_WRITE: no exception a page,
   though real starts measured it within noise of plain faults; an
   older kernel refuses it and the writes fault).  V->scratch_size
   becomes the mapping's length.  */
static bool
map_scratch (struct verifier *v)
{
  size_t length = v->scratch_size ? v->scratch_size : 8;
  size_t huge = common_huge_page_size ();
  int advice = length >= huge / 2 && length <= SIZE_MAX - huge
               ? common_huge_advice (length, NULL, 0) : 0;
  if (advice == MADV_HUGEPAGE)
    length = (length + huge - 1) & ~(huge - 1);
  void *scratch = common_zmap (length);
  if (scratch == NULL)
    return false;
  /* Hints: they may fail.  */
  if (advice != 0)
    (void) madvise (scratch, length, advice);
  if (advice != MADV_HUGEPAGE)
    (void) madvise (scratch, length, MADV_POPULATE_WRITE);
  v->scratch = scratch;
  v->scratch_size = length;
  return true;
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
  if (!map_scratch (v))
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

