/* SPDX-License-Identifier: MIT */
/* tests/unit/test_addrmap.c: the one address hash map (common/addrmap.c)
   and the zeroed memory under it (common/zmem.c).

   Checked against a plain array as the model: inserts of clustered and
   scattered keys, growth, removals in every position of a probe run
   (backward shift must keep every other key findable), iteration, the
   load it keeps, a presized map that never grows, and a caller's
   allocator.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/addrmap.h"
#include "common/zmem.h"

/* A deterministic key stream: clustered like malloc (16-byte steps with
   gaps) or scattered.  */
static uintptr_t
key_of (size_t i, bool scattered)
{
  if (scattered)
    return (uintptr_t) ((i + 1) * UINT64_C (0xD1B54A32D192ED03)) | 1;
  /* Where a 64-bit (or a 32-bit) process's heap might lie.  */
  uintptr_t base = sizeof (uintptr_t) == 8 ? (uintptr_t) UINT64_C (0x7f0000000000)
                                           : (uintptr_t) 0x7f000000u;
  return base + (uintptr_t) i * 16 + (i / 7) * 4096;
}

static void
insert_all (struct common_addrmap *map, size_t n, bool scattered)
{
  for (size_t i = 0; i < n; i++)
    {
      bool added;
      uint64_t *v = common_addrmap_insert (map, key_of (i, scattered), &added);
      assert_non_null (v);
      assert_true (added);
      assert_int_equal (*v, 0);
      *v = (uint64_t) i;
    }
  assert_int_equal (map->count, n);
}

static void
check_all (const struct common_addrmap *map, size_t n, bool scattered)
{
  for (size_t i = 0; i < n; i++)
    {
      uint64_t *v = common_addrmap_get (map, key_of (i, scattered));
      assert_non_null (v);
      assert_int_equal (*v, i);
    }
}

static void
test_insert_get_grow (void **state)
{
  (void) state;
  for (int scattered = 0; scattered < 2; scattered++)
    {
      struct common_addrmap map;
      assert_true (common_addrmap_init (&map, 4, NULL));
      size_t first_capacity = map.capacity;
      insert_all (&map, 200000, scattered);
      assert_true (map.capacity > first_capacity);
      check_all (&map, 200000, scattered);
      assert_null (common_addrmap_get (&map, key_of (200000, scattered)));
      assert_null (common_addrmap_get (&map, 8));
      assert_null (common_addrmap_get (&map, 0));
      /* Never fuller than 4/5.  */
      assert_true (map.count * 5 <= map.capacity * 4);
      /* A second insert finds the key, it does not add it.  */
      bool added;
      uint64_t *v = common_addrmap_insert (&map, key_of (123, scattered), &added);
      assert_false (added);
      assert_int_equal (*v, 123);
      assert_int_equal (map.count, 200000);
      common_addrmap_free (&map);
      assert_null (map.slots);
    }
}

static void
test_presized_does_not_grow (void **state)
{
  (void) state;
  struct common_addrmap map;
  assert_true (common_addrmap_init (&map, 100000, NULL));
  size_t capacity = map.capacity;
  /* Sized for the load it promises: at least 3/4 full when the
     estimate was right.  */
  assert_true (100000 * 4 >= capacity * 3);
  assert_true (common_addrmap_bytes (100000)
               <= capacity * sizeof (struct common_addrmap_slot));
  insert_all (&map, 100000, false);
  assert_int_equal (map.capacity, capacity);
  check_all (&map, 100000, false);
  common_addrmap_free (&map);
}

static void
test_zero_key_refused (void **state)
{
  (void) state;
  struct common_addrmap map;
  assert_true (common_addrmap_init (&map, 0, NULL));
  bool added = true;
  assert_null (common_addrmap_insert (&map, 0, &added));
  assert_false (added);
  assert_false (common_addrmap_remove (&map, 0));
  assert_int_equal (map.count, 0);
  common_addrmap_free (&map);
}

/* A map in static storage, never initialised: the first insert
   allocates; put replaces; a freed map can be used again (the bridge's
   table of live dumper_alloc blocks works this way).  */
static struct common_addrmap static_map;

static void
test_zero_initialised (void **state)
{
  (void) state;
  assert_null (common_addrmap_get (&static_map, 64));
  assert_false (common_addrmap_remove (&static_map, 64));
  for (int round = 0; round < 2; round++)
    {
      for (uintptr_t k = 1; k <= 3000; k++)
        assert_true (common_addrmap_put (&static_map, k * 16, k));
      assert_true (common_addrmap_put (&static_map, 16, 77));
      assert_int_equal (static_map.count, 3000);
      assert_int_equal (*common_addrmap_get (&static_map, 16), 77);
      assert_int_equal (*common_addrmap_get (&static_map, 3000 * 16), 3000);
      assert_false (common_addrmap_put (&static_map, 0, 1));
      common_addrmap_free (&static_map);
      assert_null (common_addrmap_get (&static_map, 16));
      assert_int_equal (static_map.count, 0);
    }
}

/* Remove every third key, then check all: the survivors are found, the
   removed are not, and re-inserting them works.  Keys in a small table
   so probe runs are long and wrap around the end.  */
static void
test_remove_backward_shift (void **state)
{
  (void) state;
  for (int scattered = 0; scattered < 2; scattered++)
    {
      struct common_addrmap map;
      assert_true (common_addrmap_init (&map, 0, NULL));
      size_t n = 5000;
      insert_all (&map, n, scattered);
      for (size_t i = 0; i < n; i += 3)
        assert_true (common_addrmap_remove (&map, key_of (i, scattered)));
      assert_false (common_addrmap_remove (&map, key_of (0, scattered)));
      for (size_t i = 0; i < n; i++)
        {
          uint64_t *v = common_addrmap_get (&map, key_of (i, scattered));
          if (i % 3 == 0)
            assert_null (v);
          else
            {
              assert_non_null (v);
              assert_int_equal (*v, i);
            }
        }
      assert_int_equal (map.count, n - (n + 2) / 3);
      for (size_t i = 0; i < n; i += 3)
        {
          bool added;
          uint64_t *v = common_addrmap_insert (&map, key_of (i, scattered),
                                               &added);
          assert_true (added);
          *v = (uint64_t) i;
        }
      check_all (&map, n, scattered);
      /* Remove everything: the table ends empty.  */
      for (size_t i = 0; i < n; i++)
        assert_true (common_addrmap_remove (&map, key_of (i, scattered)));
      assert_int_equal (map.count, 0);
      for (size_t i = 0; i < map.capacity; i++)
        assert_int_equal (map.slots[i].key, 0);
      common_addrmap_free (&map);
    }
}

/* Removal where the run wraps: a full-ish tiny table, all orders.  */
static void
test_remove_wrapping_runs (void **state)
{
  (void) state;
  for (size_t skip = 0; skip < 12; skip++)
    {
      struct common_addrmap map;
      assert_true (common_addrmap_init (&map, 12, NULL));
      size_t capacity = map.capacity;
      insert_all (&map, 12, true);
      assert_int_equal (map.capacity, capacity);
      assert_true (common_addrmap_remove (&map, key_of (skip, true)));
      for (size_t i = 0; i < 12; i++)
        if (i != skip)
          {
            uint64_t *v = common_addrmap_get (&map, key_of (i, true));
            assert_non_null (v);
            assert_int_equal (*v, i);
          }
      common_addrmap_free (&map);
    }
}

static void
test_iteration (void **state)
{
  (void) state;
  struct common_addrmap map;
  assert_true (common_addrmap_init (&map, 0, NULL));
  size_t n = 3000;
  insert_all (&map, n, false);
  unsigned char *seen = calloc (n, 1);
  assert_non_null (seen);
  size_t cursor = 0, visited = 0;
  uintptr_t key;
  uint64_t *value;
  while (common_addrmap_next (&map, &cursor, &key, &value))
    {
      assert_true (*value < n);
      assert_int_equal (key, key_of (*value, false));
      assert_false (seen[*value]);
      seen[*value] = 1;
      visited++;
    }
  assert_int_equal (visited, n);
  assert_false (common_addrmap_next (&map, &cursor, &key, &value));
  free (seen);
  common_addrmap_free (&map);
}

/* A caller's allocator is used for every table, and each is freed with
   the size it was allocated with.  */
static size_t live_blocks, live_bytes;

static void *
counting_alloc (size_t size)
{
  live_blocks++;
  live_bytes += size;
  return calloc (1, size);
}

static void
counting_free (void *block, size_t size)
{
  live_blocks--;
  live_bytes -= size;
  free (block);
}

static void
test_allocator (void **state)
{
  (void) state;
  static const struct common_addrmap_allocator counting = {
    counting_alloc, counting_free
  };
  struct common_addrmap map;
  assert_true (common_addrmap_init (&map, 0, &counting));
  insert_all (&map, 1000, true);
  assert_int_equal (live_blocks, 1);
  assert_int_equal (live_bytes, map.capacity * sizeof (struct common_addrmap_slot));
  common_addrmap_free (&map);
  assert_int_equal (live_blocks, 0);
  assert_int_equal (live_bytes, 0);
}

/* zmem: zeroed at first, zeroed past the old size after growth (across
   the calloc/mmap threshold and within each), contents kept.  */
static void
test_zmem (void **state)
{
  (void) state;
  size_t sizes[] = { 100, 4096, 200000, 300000, 5000000, 20000000, 1000 };
  size_t old = 0;
  unsigned char *block = NULL;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    {
      size_t size = sizes[s];
      block = common_zrealloc (block, old, size, s % 2 == 0);
      assert_non_null (block);
      size_t kept = old < size ? old : size;
      for (size_t i = 0; i < kept; i += 97)
        assert_int_equal (block[i], (unsigned char) (i * 7 + 1));
      for (size_t i = kept; i < size; i += 97)
        assert_int_equal (block[i], 0);
      for (size_t i = 0; i < size; i += 97)
        block[i] = (unsigned char) (i * 7 + 1);
      old = size;
    }
  common_zfree (block, old);
  unsigned char *fresh = common_zalloc (10000000, true);
  assert_non_null (fresh);
  for (size_t i = 0; i < 10000000; i += 4096)
    assert_int_equal (fresh[i], 0);
  common_zfree (fresh, 10000000);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_insert_get_grow),
    cmocka_unit_test (test_presized_does_not_grow),
    cmocka_unit_test (test_zero_key_refused),
    cmocka_unit_test (test_zero_initialised),
    cmocka_unit_test (test_remove_backward_shift),
    cmocka_unit_test (test_remove_wrapping_runs),
    cmocka_unit_test (test_iteration),
    cmocka_unit_test (test_allocator),
    cmocka_unit_test (test_zmem),
  };
  return cmocka_run_group_tests_name ("common address map", tests, NULL, NULL);
}
