/* SPDX-License-Identifier: MIT */
/* tests/pdump/test_verify_index.c: pass 1 of the structural pass
   (pdump/verify-index.c) on object indexes written byte by byte here,
   at the edges of its fast path.

   pdump_verify_map_objects takes the common entries (a one-byte type,
   or a byte block's three bytes, and a size of one or two bytes) on a
   fast path and leaves every other entry to its general reader.  Each
   test here places entries on both sides of a boundary of that path
   (a size of 127 or 128 bytes, 16383 or 16384; a type of 127 or 128;
   a host of 254 types or 255, where the type table widens; an object
   ending at its section's end or a byte past it, with entries after
   it; four entries at once, and each of the four changed) and checks where every object was placed, with what type and
   size, or the exact refusal.  A fast path that decoded one of them
   wrongly would place every later object elsewhere.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include <dumper/pdump.h>

#include "pdump/verify-pass.h"

#define PAGE 4096
#define BYTES PDUMP_TYPE_BYTES

/* The host: even types have pointers (HOT), odd ones none (COLD).
   Pass 1 calls neither function.  */
static size_t
any_size (const void *obj)
{
  (void) obj;
  return 0;
}

static void
any_trace (const void *obj, struct dumper_tracer *t)
{
  (void) obj, (void) t;
}

static struct dumper_type types[300];
static int tag_types[16];
static struct dumper_heap heap;

static void
use_types (int count, unsigned tag_bits)
{
  for (int t = 0; t < count; t++)
    {
      types[t].name = t % 2 ? "leaf" : "node";
      types[t].size = any_size;
      types[t].trace = t % 2 ? NULL : any_trace;
    }
  for (int tag = 0; tag < 16; tag++)
    tag_types[tag] = DUMPER_TAG_IMMEDIATE;
  heap = (struct dumper_heap) { types, count, tag_bits, tag_types, NULL };
}

/* The index being written.  */
static unsigned char index_bytes[4096];
static size_t index_size;

static void
put_byte (unsigned byte)
{
  index_bytes[index_size++] = (unsigned char) byte;
}

static void
put_number (uint64_t n)
{
  do
    {
      unsigned byte = n & 0x7f;
      n >>= 7;
      put_byte (byte | (n ? 0x80 : 0));
    }
  while (n);
}

static void
put (uint64_t type, uint64_t size)
{
  put_number (type);
  put_number (size);
}

struct pass
{
  struct verifier v;
  enum dumper_status status;
  char detail[512];
};

/* Pass 1 over the index written, for HOT of HOT_SIZE bytes at PAGE and
   COLD of COLD_SIZE on the next page after it, HOT_COUNT of OBJECTS
   objects in HOT.  */
static void
run (struct pass *r, uint64_t hot_size, uint64_t cold_size,
     uint64_t hot_count, uint64_t objects)
{
  struct verifier *v = &r->v;
  memset (r, 0, sizeof *r);
  v->heap = &heap;
  v->path = "t.pdmp";
  v->detail = r->detail;
  v->detail_size = sizeof r->detail;
  v->status = DUMPER_OK;
  v->tag_mask = ((uintptr_t) 1 << heap.tag_bits) - 1;
  v->object_align = (uint64_t) 1 << heap.tag_bits;
  if (v->object_align < PDUMP_ALIGN)
    v->object_align = PDUMP_ALIGN;
  v->hot_offset = PAGE;
  v->hot_end = PAGE + hot_size;
  v->cold_offset = (v->hot_end + PAGE - 1) / PAGE * PAGE;
  v->cold_end = v->cold_offset + cold_size;
  v->object_count = objects;
  v->hot_count = hot_count;
  v->start_words = (size_t) (((v->cold_end - v->hot_offset + 7) / 8 + 63)
                             / 64);
  v->hot_words = hot_size / 8;
  v->hot_bitmap_words = (size_t) ((v->hot_words + 63) / 64);
  assert_true (pdump_verify_reserve (v));
  r->status = pdump_verify_map_objects (v, index_bytes, index_size);
}

static void
done (struct pass *r)
{
  munmap (r->v.scratch, r->v.scratch_size ? r->v.scratch_size : 8);
  index_size = 0;
}

static void
expect_ok (struct pass *r)
{
  if (r->status != DUMPER_OK)
    fail_msg ("refused: %s", r->detail);
}

static void
expect_refused (struct pass *r, const char *message)
{
  char want[512];
  snprintf (want, sizeof want, "t.pdmp: %s", message);
  assert_int_equal (r->status, DUMPER_E_IMAGE_CORRUPT);
  assert_string_equal (r->detail, want);
}

/* Object NUMBER starts at OFFSET from its section (COLD when COLD is
   true), of TYPE and SIZE: in the start bitmap and its rank, the type
   and size tables and the granule map.  */
static void
expect_object (struct pass *r, uint64_t number, bool cold, uint64_t offset,
               unsigned type, uint64_t size)
{
  const struct verifier *v = &r->v;
  uint64_t at = (cold ? v->cold_offset : v->hot_offset) + offset;
  uint64_t found = UINT64_MAX;
  if (!pdump_verify_object_at (v, at, &found))
    fail_msg ("object %" PRIu64 ": no object starts at 0x%" PRIx64, number,
              at);
  assert_int_equal (found, number);
  assert_int_equal (type_of (v, number), type);
  assert_int_equal (size_of (v, number), size);
  if (v->granule_types)
    assert_int_equal (v->granule_types[(at - v->hot_offset) / PDUMP_GRANULE],
                      type == BYTES ? NARROW_BYTES : type + 1);
  uint64_t start = 0;
  assert_true (pdump_verify_object_containing (v, at + size - 1, &found,
                                               &start));
  assert_int_equal (found, number);
  assert_int_equal (start, at);
}

/* ------------------------------------------------------------------ */

/* Sizes of one LEB128 byte and two (127 | 128, 16383 | 16384, three),
   in HOT and in COLD, each object placed after the previous one.  */
static void
test_size_boundaries (void **state)
{
  (void) state;
  use_types (10, 3);
  struct pass r;
  /* HOT: 0, 128, 256, 16640, 33024, 33032 (8-byte alignment).  */
  put (0, 127);
  put (2, 128);
  put (4, 16383);
  put (6, 16384);
  put (8, 8);
  put (0, 8);
  /* COLD: byte blocks (8-byte alignment), a leaf of type 1.  */
  put (BYTES, 127);
  put (BYTES, 128);
  put (1, 16383);
  put (BYTES, 16384);
  put (3, 8);
  put (BYTES, 1);
  run (&r, 33040, 33033, 6, 12);
  expect_ok (&r);
  expect_object (&r, 0, false, 0, 0, 127);
  expect_object (&r, 1, false, 128, 2, 128);
  expect_object (&r, 2, false, 256, 4, 16383);
  expect_object (&r, 3, false, 16640, 6, 16384);
  expect_object (&r, 4, false, 33024, 8, 8);
  expect_object (&r, 5, false, 33032, 0, 8);
  expect_object (&r, 6, true, 0, BYTES, 127);
  expect_object (&r, 7, true, 128, BYTES, 128);
  expect_object (&r, 8, true, 256, 1, 16383);
  expect_object (&r, 9, true, 16640, BYTES, 16384);
  expect_object (&r, 10, true, 33024, 3, 8);
  expect_object (&r, 11, true, 33032, BYTES, 1);
  /* The room of a byte block: to the next start, or COLD's end.  */
  assert_int_equal (pdump_verify_room_at (&r.v, r.v.cold_offset), 128);
  assert_int_equal (pdump_verify_room_at (&r.v, r.v.cold_offset + 16640),
                    16384);
  assert_int_equal (pdump_verify_room_at (&r.v, r.v.cold_offset + 33032), 1);
  done (&r);
}

/* Longer encodings of the same numbers (a size 1 as 0x81 0x00, a byte
   block's type in four bytes) are read as the numbers they are.  */
static void
test_long_encodings (void **state)
{
  (void) state;
  use_types (10, 3);
  struct pass r;
  /* The last byte block's size: 0 in three bytes, then 128 in three.  */
  for (unsigned last = 0x80; last <= 0x81; last++)
    {
      put (0, 8);
      put_byte (2), put_byte (0x81), put_byte (0x00);   /* size 1 */
      put (4, 8);
      put_byte (0xFF), put_byte (0xFF), put_byte (0x83), put_byte (0x00);
      put_number (8);
      put (1, 8);
      put_byte (0xFF), put_byte (0xFF), put_byte (0x03);
      put_byte (0x80), put_byte (last), put_byte (0x00);
      run (&r, 24, last == 0x80 ? 16 : 144, 3, 6);
      if (last == 0x80)
        expect_refused (&r, "object index: object 5 (`byte block', 0 bytes "
                        "at offset 0x2010) does not fit in COLD");
      else
        {
          expect_ok (&r);
          expect_object (&r, 1, false, 8, 2, 1);
          expect_object (&r, 2, false, 16, 4, 8);
          expect_object (&r, 3, true, 0, BYTES, 8);
          expect_object (&r, 4, true, 8, 1, 8);
          expect_object (&r, 5, true, 16, BYTES, 128);
        }
      done (&r);
    }
}

/* Types of one LEB128 byte and two (127 | 128), and the host's type
   count at the narrow table's limit: 254 types keep one byte an object
   and the granule map, 255 take two bytes and none.  */
static void
test_type_boundaries (void **state)
{
  (void) state;
  for (int count = 254; count <= 255; count++)
    {
      use_types (count, 3);
      struct pass r;
      put (126, 8);
      put (128, 16);
      put (252, 8);
      put (count == 254 ? 252 : 254, 8);
      put (127, 8);
      put (129, 24);
      put (BYTES, 8);
      put (253, 8);
      run (&r, 40, 48, 4, 8);
      expect_ok (&r);
      if (count == 254)
        assert_non_null (r.v.granule_types);
      else
        assert_null (r.v.granule_types);
      expect_object (&r, 0, false, 0, 126, 8);
      expect_object (&r, 1, false, 8, 128, 16);
      expect_object (&r, 2, false, 24, 252, 8);
      expect_object (&r, 3, false, 32, count == 254 ? 252 : 254, 8);
      expect_object (&r, 4, true, 0, 127, 8);
      expect_object (&r, 5, true, 8, 129, 24);
      expect_object (&r, 6, true, 32, BYTES, 8);
      expect_object (&r, 7, true, 40, 253, 8);
      /* By the granule map, or (255 types) by the start bitmap.  */
      assert_int_equal (pdump_verify_room_at (&r.v, r.v.cold_offset + 32),
                        8);
      done (&r);
    }
}

/* The last HOT object ending at HOT's end, then a byte past it; a
   COLD object a byte past COLD's end with entries after it, and the
   last one; objects past their section's end in the middle of it.  */
static void
test_section_ends (void **state)
{
  (void) state;
  use_types (10, 3);
  struct pass r;
  for (int past = 0; past <= 1; past++)
    {
      put (0, 16);
      put (2, 20);
      put (BYTES, 5);
      put (1, 8);
      run (&r, 36 - (uint64_t) past, 16, 2, 4);
      if (past)
        expect_refused (&r, "object index: object 1 (`node', 20 bytes at "
                        "offset 0x1010) does not fit in HOT");
      else
        {
          expect_ok (&r);
          expect_object (&r, 1, false, 16, 2, 20);
          expect_object (&r, 3, true, 8, 1, 8);
        }
      done (&r);
    }
  /* COLD: the first object past the end, with two entries after it.  */
  put (0, 8);
  put (BYTES, 17);
  put (BYTES, 8);
  put (1, 8);
  run (&r, 8, 16, 1, 4);
  expect_refused (&r, "object index: object 1 (`byte block', 17 bytes at "
                  "offset 0x2000) does not fit in COLD");
  done (&r);
  /* The last COLD object at the end, and a byte past it.  */
  for (int past = 0; past <= 1; past++)
    {
      put (0, 8);
      put (BYTES, 3);
      put (BYTES, 12);
      run (&r, 8, 20 - (uint64_t) past, 1, 3);
      if (past)
        expect_refused (&r, "object index: object 2 (`byte block', 12 bytes "
                        "at offset 0x2008) does not fit in COLD");
      else
        {
          expect_ok (&r);
          expect_object (&r, 2, true, 8, BYTES, 12);
        }
      done (&r);
    }
  /* HOT's objects ending before HOT; COLD with no objects, not empty
     (the message names where HOT's objects end).  */
  put (0, 8);
  put (2, 8);
  put (BYTES, 8);
  run (&r, 24, 8, 2, 3);
  expect_refused (&r, "object index: HOT objects end at offset 0x1010, HOT "
                  "at 0x1018");
  done (&r);
  put (0, 8);
  put (2, 8);
  run (&r, 16, 8, 2, 2);
  expect_refused (&r, "object index: COLD objects end at offset 0x1010, "
                  "COLD at 0x2008");
  done (&r);
}

/* Entries the fast path leaves to the general reader, each in the
   middle of a section with entries after it: the same refusals.  */
static void
test_refusals_mid_section (void **state)
{
  (void) state;
  use_types (10, 3);
  struct pass r;
  static const struct
  {
    uint64_t type, size;
    const char *message;
  } cases[] = {
    { 0, 0, "object index: object 1 (`node', 0 bytes at offset 0x1008) "
      "does not fit in HOT" },
    { 1, 8, "object index: object 1 (`leaf') is in HOT, but its type has "
      "no pointers" },
    { BYTES, 8, "object index: object 1 (`byte block') is in HOT, but its "
      "type has no pointers" },
    { 10, 8, "object index: object 1 has type 10; this executable has 10 "
      "types" },
    { 127, 8, "object index: object 1 has type 127; this executable has 10 "
      "types" },
    { 0, 1000, "object index: object 1 (`node', 1000 bytes at offset "
      "0x1008) does not fit in HOT" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      put (0, 8);
      put (cases[i].type, cases[i].size);
      put (2, 8);
      put (4, 8);
      put (BYTES, 8);
      run (&r, 32, 8, 4, 5);
      expect_refused (&r, cases[i].message);
      done (&r);
    }
  static const struct
  {
    uint64_t type, size;
    const char *message;
  } cold_cases[] = {
    { BYTES, 0, "object index: object 2 (`byte block', 0 bytes at offset "
      "0x2008) does not fit in COLD" },
    { 2, 8, "object index: object 2 (`node') is in COLD, but its type has "
      "pointers" },
    { 11, 8, "object index: object 2 has type 11; this executable has 10 "
      "types" },
  };
  for (size_t i = 0; i < sizeof cold_cases / sizeof cold_cases[0]; i++)
    {
      put (0, 8);
      put (BYTES, 8);
      put (cold_cases[i].type, cold_cases[i].size);
      put (1, 8);
      put (BYTES, 8);
      run (&r, 8, 32, 1, 5);
      expect_refused (&r, cold_cases[i].message);
      done (&r);
    }
  /* Cut inside a two-byte size; bytes after the last entry.  */
  put (0, 8);
  put (2, 8);
  put_byte (4), put_byte (0x81);
  run (&r, 24, 0, 3, 3);
  expect_refused (&r, "object index: entry 2 is cut short");
  done (&r);
  put (0, 8);
  put (BYTES, 8);
  put_byte (0);
  run (&r, 8, 8, 1, 2);
  expect_refused (&r, "object index: 1 bytes after the last object");
  done (&r);
}

/* Runs of four HOT entries of one-byte types and sizes that are
   multiples of 8, which the fast path takes four at a time: eight
   objects at 0, 16, 24, 48 | 168, 176, 192, 200, ending at 232; then
   each run with one entry changed.  */
static void
put_eight (int change)
{
  put (0, 16);
  put (2, 8);
  put (4, 24);
  put (6, 120);
  put (8, 8);
  put (0, change == 1 ? 0 : change == 4 ? 12 : 16);
  put (change == 2 ? 1 : 2, 8);
  put (change == 3 ? 12 : 4, 32);
  put (BYTES, 8);
  put (1, 8);
}

static void
test_four_at_once (void **state)
{
  (void) state;
  use_types (10, 3);
  struct pass r;
  static const uint64_t at[] = { 0, 16, 24, 48, 168, 176, 192, 200 };
  static const unsigned type[] = { 0, 2, 4, 6, 8, 0, 2, 4 };
  static const uint64_t size[] = { 16, 8, 24, 120, 8, 16, 8, 32 };
  put_eight (0);
  run (&r, 232, 16, 8, 10);
  expect_ok (&r);
  for (int i = 0; i < 8; i++)
    expect_object (&r, (uint64_t) i, false, at[i], type[i], size[i]);
  expect_object (&r, 9, true, 8, 1, 8);
  done (&r);
  /* The last of the second four a byte past HOT's end; one entry of
     the second four changed.  */
  static const struct
  {
    int change;
    uint64_t hot_size;
    const char *message;
  } refusals[] = {
    { 0, 231, "object index: object 7 (`node', 32 bytes at offset 0x10c8) "
      "does not fit in HOT" },
    { 1, 232, "object index: object 5 (`node', 0 bytes at offset 0x10b0) "
      "does not fit in HOT" },
    { 2, 232, "object index: object 6 (`leaf') is in HOT, but its type has "
      "no pointers" },
    { 3, 232, "object index: object 7 has type 12; this executable has 10 "
      "types" },
  };
  for (size_t k = 0; k < sizeof refusals / sizeof refusals[0]; k++)
    {
      put_eight (refusals[k].change);
      run (&r, refusals[k].hot_size, 16, 8, 10);
      expect_refused (&r, refusals[k].message);
      done (&r);
    }
  /* A size of 12: the next object is aligned to 192 all the same.  */
  put_eight (4);
  run (&r, 232, 16, 8, 10);
  expect_ok (&r);
  expect_object (&r, 5, false, 176, 0, 12);
  expect_object (&r, 6, false, 192, 2, 8);
  expect_object (&r, 7, false, 200, 4, 32);
  done (&r);
}

/* Objects that leave words of the start bitmap without a start (a
   large object, the gap between HOT and COLD): the object numbers
   after them (the rank) and the object holding an interior offset.  */
static void
test_empty_words (void **state)
{
  (void) state;
  use_types (10, 4);             /* objects 16-byte aligned */
  struct pass r;
  put (0, 8);
  put (2, 3000);                 /* at 16: words 0 to 5 */
  put (4, 8);                    /* at 3024 */
  put (6, 24);                   /* at 3040 */
  put (BYTES, 1);                /* COLD 0 */
  put (BYTES, 9);                /* COLD 8 */
  put (1, 8);                    /* COLD 32: 16-byte aligned */
  run (&r, 3064, 40, 4, 7);
  expect_ok (&r);
  expect_object (&r, 1, false, 16, 2, 3000);
  expect_object (&r, 2, false, 3024, 4, 8);
  expect_object (&r, 3, false, 3040, 6, 24);
  expect_object (&r, 4, true, 0, BYTES, 1);
  expect_object (&r, 5, true, 8, BYTES, 9);
  expect_object (&r, 6, true, 32, 1, 8);
  uint64_t number, start;
  assert_true (pdump_verify_object_containing (&r.v, PAGE + 2000, &number,
                                               &start));
  assert_int_equal (number, 1);
  assert_int_equal (start, PAGE + 16);
  assert_false (pdump_verify_object_at (&r.v, PAGE + 1024, &number));
  assert_int_equal (pdump_verify_room_at (&r.v, r.v.cold_offset + 8), 24);
  done (&r);
}

/* ------------------------------------------------------------------ */
/* The fast path against the general reader: random indexes, valid or
   with one entry changed, written once with the shortest encoding of
   each number (nearly every entry the fast path's) and once with every
   number a byte longer (the same numbers, every entry the general
   reader's): the same verdict, the same message, the same tables.  */

static uint64_t seed = 0x9E3779B97F4A7C15u;

static uint64_t
random_below (uint64_t n)
{
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return n ? seed % n : 0;
}

/* N, in a byte more than it needs when LONG.  */
static void
put_number_as (uint64_t n, bool long_form)
{
  if (!long_form)
    {
      put_number (n);
      return;
    }
  while (n >= 0x80)
    {
      put_byte ((n & 0x7f) | 0x80);
      n >>= 7;
    }
  put_byte ((unsigned) n | 0x80);
  put_byte (0);
}

struct entry
{
  uint64_t type, size;
};

/* A type of the host's for HOT (traced) or COLD, or a byte block.  */
static uint64_t
random_type (bool hot)
{
  if (!hot && random_below (3) != 0)
    return BYTES;
  uint64_t t = random_below ((uint64_t) heap.type_count);
  return hot ? t & ~(uint64_t) 1 : t | 1;
}

static void
compare_tables (const struct verifier *a, const struct verifier *b)
{
  assert_memory_equal (a->starts, b->starts, a->start_words * 8);
  assert_memory_equal (a->rank, b->rank, a->start_words * 4);
  if (a->types8)
    assert_memory_equal (a->types8, b->types8, a->object_count);
  else
    assert_memory_equal (a->types16, b->types16, a->object_count * 2);
  if (a->granule_types)
    assert_memory_equal (a->granule_types, b->granule_types,
                         a->start_words * 64);
  assert_memory_equal (a->sizes32, b->sizes32, a->object_count * 4);
}

static void
test_fast_matches_general (void **state)
{
  (void) state;
  static struct entry entries[300];
  int refused = 0, accepted = 0;
  for (int round = 0; round < 3000; round++)
    {
      static const int counts[] = { 10, 130, 254, 255, 300 };
      use_types (counts[random_below (5)], 1 + (unsigned) random_below (4));
      uint64_t align = (uint64_t) 1 << heap.tag_bits;
      align = align < 8 ? 8 : align;
      size_t hot = (size_t) random_below (150), cold = (size_t) random_below (150);
      uint64_t hot_size = 0, cold_size = 0;
      bool aligned = random_below (2);
      for (size_t i = 0; i < hot + cold; i++)
        {
          struct entry *e = &entries[i];
          e->type = random_type (i < hot);
          e->size = aligned && random_below (8) ? align * (1 + random_below (20))
                    : 1 + random_below (random_below (8) ? 140 : 20000);
          uint64_t *at = i < hot ? &hot_size : &cold_size;
          uint64_t a = e->type == BYTES ? 8 : align;
          *at = (*at + a - 1) / a * a + e->size;
        }
      /* One change, half the time: a size, a type, a section's end.  */
      size_t pick = hot + cold ? (size_t) random_below (hot + cold) : 0;
      switch (hot + cold ? random_below (10) : 9)
        {
        case 0: entries[pick].size += 1; break;
        case 1: entries[pick].size -= 1; break;
        case 2: entries[pick].size = 0; break;
        case 3: entries[pick].type = random_type (pick >= hot); break;
        case 4: entries[pick].type = (uint64_t) heap.type_count
                                     + random_below (3); break;
        case 5: hot_size += random_below (2) ? 8 : -(uint64_t) 8; break;
        default: break;
        }
      if (hot_size > UINT32_MAX)
        hot_size = 0;
      struct pass form[2];
      for (int f = 0; f < 2; f++)
        {
          for (size_t i = 0; i < hot + cold; i++)
            {
              put_number_as (entries[i].type, f == 1);
              put_number_as (entries[i].size, f == 1);
            }
          run (&form[f], hot_size, cold_size, hot, hot + cold);
          index_size = 0;
        }
      assert_int_equal (form[0].status, form[1].status);
      if (form[0].status != DUMPER_OK)
        {
          assert_string_equal (form[0].detail, form[1].detail);
          refused++;
        }
      else
        {
          compare_tables (&form[0].v, &form[1].v);
          accepted++;
        }
      done (&form[0]);
      done (&form[1]);
    }
  /* Both kinds of index came up often.  */
  assert_true (refused > 300 && accepted > 300);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_size_boundaries),
    cmocka_unit_test (test_long_encodings),
    cmocka_unit_test (test_type_boundaries),
    cmocka_unit_test (test_section_ends),
    cmocka_unit_test (test_refusals_mid_section),
    cmocka_unit_test (test_four_at_once),
    cmocka_unit_test (test_empty_words),
    cmocka_unit_test (test_fast_matches_general),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
