/* SPDX-License-Identifier: MIT */
/* tests/unit/test_registry.c: the bridge's registry (bridge/registry.c)
   and heap description checks (bridge/heap.c): registration order,
   no-op re-registration, hooks run once at registration, the root
   list, growth past the initial capacity, and rejected descriptions.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bridge/bridge.h"

static int hook_calls[3];
static int call_order[8];
static int call_count;

static void hook_a (void) { hook_calls[0]++; call_order[call_count++ % 8] = 0; }
static void hook_b (void) { hook_calls[1]++; call_order[call_count++ % 8] = 1; }

static uintptr_t root1, root2, word1;
static void *ptr1;
static int scalar_table[16];

static int
reset (void **state)
{
  bridge_registry_reset ();
  memset (hook_calls, 0, sizeof hook_calls);
  call_count = 0;
  return 0;
}

static void
test_order_is_registration_order (void **state)
{
  assert_int_equal (dumper_staticpro (&root1), DUMPER_OK);
  assert_int_equal (DUMPER_REMEMBER_SCALAR (scalar_table), DUMPER_OK);
  assert_int_equal (dumper_do_now_and_after_load (hook_a), DUMPER_OK);
  assert_int_equal (dumper_remember_ptr (&ptr1, 3), DUMPER_OK);
  assert_int_equal (dumper_remember_word (&word1), DUMPER_OK);
  assert_int_equal (dumper_staticpro (&root2), DUMPER_OK);

  size_t count;
  const struct bridge_entry *e = bridge_registry_entries (&count);
  assert_int_equal (count, 6);
  assert_int_equal (e[0].kind, BRIDGE_ENTRY_ROOT);
  assert_ptr_equal (e[0].addr, &root1);
  assert_int_equal (e[1].kind, BRIDGE_ENTRY_SCALAR);
  assert_ptr_equal (e[1].addr, scalar_table);
  assert_int_equal (e[1].size, sizeof scalar_table);
  assert_int_equal (e[2].kind, BRIDGE_ENTRY_HOOK);
  assert_ptr_equal (e[2].hook, hook_a);
  assert_int_equal (e[3].kind, BRIDGE_ENTRY_PTR);
  assert_ptr_equal (e[3].addr, &ptr1);
  assert_int_equal (e[3].size, 3);
  assert_int_equal (e[4].kind, BRIDGE_ENTRY_WORD);
  assert_int_equal (e[5].kind, BRIDGE_ENTRY_ROOT);
  assert_ptr_equal (e[5].addr, &root2);
}

static void
test_reregistration_is_noop (void **state)
{
  assert_int_equal (dumper_staticpro (&root1), DUMPER_OK);
  assert_int_equal (dumper_staticpro (&root1), DUMPER_OK);
  assert_int_equal (dumper_do_now_and_after_load (hook_a), DUMPER_OK);
  assert_int_equal (dumper_do_now_and_after_load (hook_a), DUMPER_OK);
  size_t count;
  bridge_registry_entries (&count);
  assert_int_equal (count, 2);
  /* The hook ran once: a restored hook has already run after the load.  */
  assert_int_equal (hook_calls[0], 1);
  size_t nroots;
  uintptr_t *const *roots = dumper_roots (&nroots);
  assert_int_equal (nroots, 1);
  assert_ptr_equal (roots[0], &root1);
  /* The same address under another kind is a separate entry.  */
  assert_int_equal (dumper_remember_word (&root1), DUMPER_OK);
  bridge_registry_entries (&count);
  assert_int_equal (count, 3);
}

static void
test_hooks_run_now_in_order (void **state)
{
  assert_int_equal (dumper_do_now_and_after_load (hook_b), DUMPER_OK);
  assert_int_equal (dumper_do_now_and_after_load (hook_a), DUMPER_OK);
  assert_int_equal (call_count, 2);
  assert_int_equal (call_order[0], 1);
  assert_int_equal (call_order[1], 0);
}

static void
test_growth_keeps_order_and_dedup (void **state)
{
  /* Far past the initial capacities of the arrays and the index.  */
  static uintptr_t many[5000];
  for (int i = 0; i < 5000; i++)
    assert_int_equal (dumper_staticpro (&many[i]), DUMPER_OK);
  for (int i = 0; i < 5000; i += 7)
    assert_int_equal (dumper_staticpro (&many[i]), DUMPER_OK);
  size_t count, nroots;
  const struct bridge_entry *e = bridge_registry_entries (&count);
  uintptr_t *const *roots = dumper_roots (&nroots);
  assert_int_equal (count, 5000);
  assert_int_equal (nroots, 5000);
  for (int i = 0; i < 5000; i++)
    {
      assert_ptr_equal (e[i].addr, &many[i]);
      assert_ptr_equal (roots[i], &many[i]);
    }
}

static void
test_reset_empties (void **state)
{
  dumper_staticpro (&root1);
  bridge_registry_reset ();
  size_t count, nroots;
  bridge_registry_entries (&count);
  dumper_roots (&nroots);
  assert_int_equal (count, 0);
  assert_int_equal (nroots, 0);
  assert_int_equal (dumper_staticpro (&root1), DUMPER_OK);
  bridge_registry_entries (&count);
  assert_int_equal (count, 1);
}

/* ------------------------------------------------------------------ */
/* Heap descriptions.  */

static size_t size16 (const void *obj) { return 16; }

static const struct dumper_type good_types[] = {
  { "pair", size16, NULL, NULL },
  { "boxed", size16, NULL, NULL },
};

static int header_type (const void *obj) { return 1; }

static void
test_heap_description_checks (void **state)
{
  static const int tags_ok[4] = { DUMPER_TAG_IMMEDIATE, 0, DUMPER_TAG_BY_HEADER, 1 };
  struct dumper_heap heap = { good_types, 2, 2, tags_ok, header_type };
  assert_int_equal (dumper_describe_heap (&heap), DUMPER_OK);
  assert_ptr_equal (bridge_heap (), &heap);

  assert_int_equal (dumper_describe_heap (NULL), DUMPER_E_HEAP_DESC);

  struct dumper_heap no_header = heap;
  no_header.header_type = NULL;
  assert_int_equal (dumper_describe_heap (&no_header), DUMPER_E_HEAP_DESC);
  assert_non_null (strstr (dumper_error_detail (), "header_type"));

  static const int tags_bad[4] = { DUMPER_TAG_IMMEDIATE, 0, 7, 1 };
  struct dumper_heap bad_tag = heap;
  bad_tag.tag_types = tags_bad;
  assert_int_equal (dumper_describe_heap (&bad_tag), DUMPER_E_HEAP_DESC);
  assert_non_null (strstr (dumper_error_detail (), "tag 2"));

  struct dumper_heap bad_bits = heap;
  bad_bits.tag_bits = 9;
  assert_int_equal (dumper_describe_heap (&bad_bits), DUMPER_E_HEAP_DESC);

  static const struct dumper_type unnamed[] = { { NULL, size16, NULL, NULL } };
  struct dumper_heap bad_type = heap;
  bad_type.types = unnamed;
  bad_type.type_count = 1;
  static const int tags_one[4] = { DUMPER_TAG_IMMEDIATE, 0, 0, 0 };
  bad_type.tag_types = tags_one;
  assert_int_equal (dumper_describe_heap (&bad_type), DUMPER_E_HEAP_DESC);
  assert_non_null (strstr (dumper_error_detail (), "no name"));

  /* A rejected description leaves the previous one installed.  */
  assert_ptr_equal (bridge_heap (), &heap);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup (test_order_is_registration_order, reset),
    cmocka_unit_test_setup (test_reregistration_is_noop, reset),
    cmocka_unit_test_setup (test_hooks_run_now_in_order, reset),
    cmocka_unit_test_setup (test_growth_keeps_order_and_dedup, reset),
    cmocka_unit_test_setup (test_reset_empties, reset),
    cmocka_unit_test (test_heap_description_checks),
  };
  return cmocka_run_group_tests_name ("registry and heap description", tests,
                                      NULL, NULL);
}
