/* SPDX-License-Identifier: MIT */
/* tests/unit/test_bounds.c: the registration checks at their exact
   bounds (bridge/decls.c, bridge/registry.c), which the mutation harness
   (tests/mutation) found untested: a declaration kind one past the last,
   and a remembered pointer whose type equals the heap description's
   type count (types run from 0 to count - 1).  The bounds far away are
   in test_registry.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bridge/bridge.h"

static void *bound_ptr;
DUMPER_DECLARE_PTR (bound_ptr, 3);
static uintptr_t bound_word;

static size_t eight (const void *obj) { (void) obj; return 8; }

static void
test_kind_one_past_the_last (void **state)
{
  (void) state;
  char why[512] = "";
  const struct dumper_decl table[] = {
    { DUMPER_DECL_KIND_MAX + 1, 0, sizeof bound_word, &bound_word, NULL,
      "kind", 0 },
  };
  assert_int_equal (bridge_decls_check (table, 1, why, sizeof why),
                    DUMPER_E_REGISTRATION);
  assert_non_null (strstr (why, "not a declaration kind"));
}

/* Remembered with type 3 under a description of 5 types, then a
   description of exactly 3 types (0, 1, 2): refused.  */
static void
test_pointer_type_equal_to_the_count (void **state)
{
  (void) state;
  static const struct dumper_type types[] = {
    { "a", eight, NULL, NULL }, { "b", eight, NULL, NULL },
    { "c", eight, NULL, NULL }, { "d", eight, NULL, NULL },
    { "e", eight, NULL, NULL }
  };
  static const int tags[2] = { DUMPER_TAG_IMMEDIATE, 0 };
  static const struct dumper_heap five = { types, 5, 1, tags, NULL };
  static const struct dumper_heap three = { types, 3, 1, tags, NULL };
  bridge_registry_reset ();
  assert_int_equal (dumper_describe_heap (&five), DUMPER_OK);
  assert_int_equal (dumper_remember_ptr (&bound_ptr, 3), DUMPER_OK);
  assert_int_equal (dumper_describe_heap (&three), DUMPER_E_REGISTRATION);
  assert_non_null (strstr (dumper_error_detail (), "heap description has 3"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_kind_one_past_the_last),
    cmocka_unit_test (test_pointer_type_equal_to_the_count),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
