/* SPDX-License-Identifier: MIT */
/* tests/unit/test_registry.c: the bridge's registry (bridge/registry.c),
   the declaration table (bridge/decls.c) and heap description checks
   (bridge/heap.c): registration order, no-op re-registration, hooks run
   once at registration, the root list, growth past the initial
   capacity, bad registrations refused when they are made (undeclared,
   NULL, zero size, negative or out-of-range type, wrong kind), a
   refusal kept until dumper_clear_registration_error so that
   dumper_dump refuses to write without it, bad declaration tables (overlaps, invalid entries), and rejected
   descriptions.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bridge/bridge.h"
#include "common/codetargets.h"

static int hook_calls[3];
static int call_order[8];
static int call_count;

static void hook_a (void) { hook_calls[0]++; call_order[call_count++ % 8] = 0; }
static void hook_b (void) { hook_calls[1]++; call_order[call_count++ % 8] = 1; }

static uintptr_t root1, root2, word1;
static void *ptr1;
static int scalar_table[16];
static uintptr_t undeclared_word;
static int undeclared_scalar;
static void undeclared_hook (void) { hook_calls[2]++; }

/* The declarations, as a host makes them beside its variables.  */
DUMPER_DECLARE_ROOT (root1);
DUMPER_DECLARE_ROOT (root2);
DUMPER_DECLARE_WORD (word1);
DUMPER_DECLARE_PTR (ptr1, 3);
DUMPER_DECLARE_HOOK (hook_a);
DUMPER_DECLARE_HOOK (hook_b);
/* The same declaration twice (an inline function's two copies) is
   allowed; the table checks only refuse conflicting ones.  */
DUMPER_DECLARE_WORD (word1);

static int
reset (void **state)
{
  bridge_registry_reset ();
  dumper_clear_registration_error ();
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

  size_t count, decl_count;
  const struct dumper_decl *decls;
  assert_int_equal (bridge_decls (&decls, &decl_count), DUMPER_OK);
  const struct bridge_entry *e = bridge_registry_entries (&count);
  assert_int_equal (count, 6);
  assert_int_equal (e[0].kind, DUMPER_DECL_ROOT);
  assert_ptr_equal (e[0].addr, &root1);
  assert_int_equal (e[1].kind, DUMPER_DECL_SCALAR);
  assert_ptr_equal (e[1].addr, scalar_table);
  assert_int_equal (decls[e[1].decl].size, sizeof scalar_table);
  assert_int_equal (e[2].kind, DUMPER_DECL_HOOK);
  assert_ptr_equal (decls[e[2].decl].fn, hook_a);
  assert_int_equal (e[3].kind, DUMPER_DECL_PTR);
  assert_ptr_equal (e[3].addr, &ptr1);
  assert_int_equal (decls[e[3].decl].type, 3);
  assert_int_equal (e[4].kind, DUMPER_DECL_WORD);
  assert_int_equal (e[5].kind, DUMPER_DECL_ROOT);
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
  /* The same address under another kind is refused: it is declared a
     root, not a remembered word.  */
  assert_int_equal (dumper_remember_word (&root1), DUMPER_E_REGISTRATION);
  bridge_registry_entries (&count);
  assert_int_equal (count, 2);
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
  DUMPER_DECLARE_ROOT (many);
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
/* Bad registrations: refused when made, with a status and a detail
   naming the problem, and nothing registered or called.  */

static void
assert_refused (enum dumper_status st, const char *detail_part)
{
  assert_int_equal (st, DUMPER_E_REGISTRATION);
  assert_int_equal (dumper_exit_status (st), 95);
  if (strstr (dumper_error_detail (), detail_part) == NULL)
    fail_msg ("detail \"%s\" lacks \"%s\"", dumper_error_detail (),
              detail_part);
}

static void
test_bad_registrations_refused (void **state)
{
  assert_refused (dumper_remember_ptr (&ptr1, -1), "negative type");
  assert_refused (dumper_remember_ptr (&ptr1, 4), "declared with type 3");
  assert_refused (dumper_remember_ptr (NULL, 3), "NULL address");
  assert_refused (dumper_staticpro (NULL), "NULL address");
  assert_refused (dumper_remember_scalar (scalar_table, 0), "zero size");
  /* Part of a declared scalar, or more than it.  */
  assert_refused (dumper_remember_scalar (scalar_table, 8), "register it whole");
  assert_refused (dumper_remember_scalar (scalar_table + 1, 8), "register it whole");
  assert_refused (dumper_remember_scalar (&undeclared_scalar, sizeof (int)),
                  "not declared");
  assert_refused (dumper_remember_word (&undeclared_word), "not declared");
  assert_refused (dumper_staticpro (&word1), "not declared as a root");
  /* Inside a word, not at its start.  */
  assert_refused (dumper_staticpro ((uintptr_t *) ((char *) &root1 + 1)),
                  "not a word");
  assert_refused (dumper_do_now_and_after_load (undeclared_hook),
                  "not declared as a hook");
  assert_refused (dumper_do_now_and_after_load (NULL), "NULL function");
  assert_int_equal (hook_calls[2], 0);
  /* A declaration object made outside the table.  */
  static const struct dumper_decl forged = {
    DUMPER_DECL_WORD, 0, sizeof undeclared_word, &undeclared_word, NULL, "x", 0
  };
  assert_refused (dumper_register (&forged), "not in the executable's");
  size_t count;
  bridge_registry_entries (&count);
  assert_int_equal (count, 0);
}

/* The detail of the last call contains PART.  */
static void
assert_detail (const char *part)
{
  if (strstr (dumper_error_detail (), part) == NULL)
    fail_msg ("detail \"%s\" lacks \"%s\"", dumper_error_detail (), part);
}

/* A refused registration makes dumper_dump fail (before it looks at
   its state or writes anything) naming the first refusal, until the
   host clears it.  */
static void
test_refusal_is_sticky (void **state)
{
  if (!DUMPER_WITH_PDUMPER && !DUMPER_WITH_UNEXEC)
    skip ();
  /* Not a dumping run: without a refusal, the state is what fails.  */
  assert_int_equal (dumper_dump ("unused-output"), DUMPER_E_STATE);
  char address[64];
  snprintf (address, sizeof address, "(%p)", (void *) &undeclared_word);
  assert_refused (dumper_remember_word (&undeclared_word), "not declared");
  /* A later success and a later refusal change nothing.  */
  assert_int_equal (dumper_staticpro (&root1), DUMPER_OK);
  assert_refused (dumper_staticpro (&word1), "inside the declared word `word1'");
  for (int i = 0; i < 2; i++)
    {
      assert_int_equal (dumper_dump ("unused-output"), DUMPER_E_REGISTRATION);
      assert_detail ("the first refused: dumper_remember_word ");
      assert_detail (address);
      assert_detail ("not declared as a word");
      if (strstr (dumper_error_detail (), "word1") != NULL)
        fail_msg ("the detail names a later refusal: %s",
                  dumper_error_detail ());
    }
  dumper_clear_registration_error ();
  assert_int_equal (dumper_dump ("unused-output"), DUMPER_E_STATE);
  /* Recorded again after a clear: a root named by the registry, and a
     declaration made outside the table, by its name.  */
  assert_refused (dumper_staticpro (&word1), "not declared as a root");
  assert_int_equal (dumper_dump ("unused-output"), DUMPER_E_REGISTRATION);
  assert_detail ("the first refused: dumper_staticpro ");
  assert_detail ("inside the declared word `word1'");
  dumper_clear_registration_error ();
  static const struct dumper_decl forged = {
    DUMPER_DECL_WORD, 0, sizeof undeclared_word, &undeclared_word, NULL,
    "forged_word", 0
  };
  assert_refused (dumper_register (&forged), "not in the executable's");
  assert_int_equal (dumper_dump ("unused-output"), DUMPER_E_REGISTRATION);
  assert_detail ("the registration of forged_word: the declaration at");
  assert_refused (dumper_do_now_and_after_load (undeclared_hook),
                  "not declared as a hook");
  dumper_clear_registration_error ();
  assert_int_equal (dumper_dump ("unused-output"), DUMPER_E_STATE);
}

static size_t size8 (const void *obj) { (void) obj; return 8; }

/* A type outside the heap description: refused at registration once
   the description is installed, and a description that a registered
   pointer's type does not fit is refused.  */
static void
test_pointer_type_against_heap (void **state)
{
  static const struct dumper_type two[] = {
    { "a", size8, NULL, NULL }, { "b", size8, NULL, NULL }
  };
  static const int tags[2] = { DUMPER_TAG_IMMEDIATE, 0 };
  static const struct dumper_heap heap2 = { two, 2, 1, tags, NULL };
  assert_int_equal (dumper_describe_heap (&heap2), DUMPER_OK);
  /* ptr1 is declared with type 3; this heap has 2 types.  */
  assert_refused (dumper_remember_ptr (&ptr1, 3), "heap description has 2");
  static const struct dumper_type five[] = {
    { "a", size8, NULL, NULL }, { "b", size8, NULL, NULL },
    { "c", size8, NULL, NULL }, { "d", size8, NULL, NULL },
    { "e", size8, NULL, NULL }
  };
  static const struct dumper_heap heap5 = { five, 5, 1, tags, NULL };
  assert_int_equal (dumper_describe_heap (&heap5), DUMPER_OK);
  assert_int_equal (dumper_remember_ptr (&ptr1, 3), DUMPER_OK);
  /* Now a description with too few types is refused.  */
  assert_refused (dumper_describe_heap (&heap2), "heap description has 2");
}

/* Declaration tables, checked as a whole (bridge_decls_check is what
   bridge_decls runs on the linked table on first use).  */
static void
test_bad_tables_refused (void **state)
{
  static uintptr_t words[4];
  static char bytes[16];
  static struct { void *p; int n; } objs[3];
  char why[512];
  const struct dumper_decl ok[] = {
    { DUMPER_DECL_WORD, 0, sizeof words, words, NULL, "words", 0 },
    { DUMPER_DECL_SCALAR, 0, sizeof bytes, bytes, NULL, "bytes", 0 },
    { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "hook_a", 0 },
    { DUMPER_DECL_CODE, 0, 0, NULL, hook_a, "hook_a", 0 },
    { DUMPER_DECL_WORD, 0, sizeof words, words, NULL, "words again", 0 },
    { DUMPER_DECL_OBJECTS, 1, sizeof objs, objs, NULL, "objs", sizeof objs[0] },
  };
  assert_int_equal (bridge_decls_check (ok, 6, why, sizeof why), DUMPER_OK);

  struct { struct dumper_decl d[2]; const char *part; } bad[] = {
    { { { DUMPER_DECL_WORD, 0, 16, words, NULL, "w", 0 },
        { DUMPER_DECL_ROOT, 0, 8, &words[1], NULL, "r", 0 } }, "overlap" },
    { { { DUMPER_DECL_SCALAR, 0, 16, bytes, NULL, "s", 0 },
        { DUMPER_DECL_SCALAR, 0, 4, bytes + 12, NULL, "t", 0 } }, "overlap" },
    { { { DUMPER_DECL_SCALAR, 0, 16, bytes, NULL, "s", 0 },
        { DUMPER_DECL_SCALAR, 0, 8, bytes, NULL, "s8", 0 } }, "overlap" },
    { { { DUMPER_DECL_WORD, 0, 8, NULL, NULL, "null", 0 },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "NULL address" },
    { { { DUMPER_DECL_SCALAR, 0, 0, bytes, NULL, "empty", 0 },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "size 0" },
    { { { DUMPER_DECL_PTR, -2, 8, words, NULL, "p", 0 },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "negative type" },
    { { { DUMPER_DECL_WORD, 0, sizeof (uintptr_t) + 2, words, NULL, "odd", 0 },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "whole number" },
    { { { 9, 0, 8, words, NULL, "kind", 0 },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "not a declaration kind" },
    { { { DUMPER_DECL_HOOK, 0, 0, NULL, NULL, "nofn", 0 },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "NULL function" },
    { { { DUMPER_DECL_OBJECTS, 1, sizeof objs, objs, NULL, "o", 0 },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "in elements of 0" },
    { { { DUMPER_DECL_OBJECTS, 1, sizeof objs, objs, NULL, "o", 7 },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "in elements of 7" },
    { { { DUMPER_DECL_OBJECTS, -1, sizeof objs, objs, NULL, "o", sizeof objs[0] },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "negative type" },
    { { { DUMPER_DECL_WORD, 0, 8, words, NULL, "w", 8 },
        { DUMPER_DECL_HOOK, 0, 0, NULL, hook_a, "h", 0 } }, "not an array of static objects" },
    { { { DUMPER_DECL_OBJECTS, 1, sizeof objs, objs, NULL, "o", sizeof objs[0] },
        { DUMPER_DECL_SCALAR, 0, 8, (char *) objs + 8, NULL, "s", 0 } }, "overlap" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      assert_int_equal (bridge_decls_check (bad[i].d, 2, why, sizeof why),
                        DUMPER_E_REGISTRATION);
      if (strstr (why, bad[i].part) == NULL)
        fail_msg ("case %zu: \"%s\" lacks \"%s\"", i, why, bad[i].part);
    }
}

/* Code tables (DUMPER_DECLARE_CODE_TABLE): the layout rules of
   bridge/decls.c, and the target the writer stores a function by
   (common/codetargets.c).  */
struct reg { const char *name; void (*func) (void); };
static void fn_x (void) {}
static void fn_y (void) {}
static const struct reg reg_one[] = { { "a", hook_a }, { "x", fn_x }, { NULL, NULL } };
static const struct reg reg_two[] = { { "y", fn_y }, { "x", fn_x }, { "a", hook_a } };
#define REG_TABLE(array, text) \
  { DUMPER_DECL_CODE_TABLE, (int32_t) offsetof (struct reg, func), \
    sizeof (array), (void *) (array), NULL, text, sizeof (array)[0] }

/* FN is stored as (DECL, ELEMENT).  */
static void
expect_target (const struct common_code_targets *set, void (*fn) (void),
               uint32_t decl, uint32_t element)
{
  const struct common_code_target *t
    = common_code_targets_find (set, (uintptr_t) fn);
  assert_non_null (t);
  assert_int_equal (t->decl, decl);
  assert_int_equal (t->element, element);
}

static void
test_code_tables (void **state)
{
  char why[512];
  /* The macro's own entry (at block scope here), found in the linked
     table: kind, member offset, size and stride.  */
  DUMPER_DECLARE_CODE_TABLE (reg_two, func);
  const struct dumper_decl *linked;
  size_t linked_count, found = 0;
  assert_int_equal (bridge_decls (&linked, &linked_count), DUMPER_OK);
  for (size_t i = 0; i < linked_count; i++)
    if (linked[i].name && strcmp (linked[i].name, "reg_two[].func") == 0)
      {
        assert_int_equal (linked[i].kind, DUMPER_DECL_CODE_TABLE);
        assert_int_equal (linked[i].type, offsetof (struct reg, func));
        assert_int_equal (linked[i].size, sizeof reg_two);
        assert_int_equal (linked[i].stride, sizeof reg_two[0]);
        assert_ptr_equal (linked[i].addr, reg_two);
        assert_null (linked[i].fn);
        found++;
      }
  assert_int_equal (found, 1);
  const struct dumper_decl ok[] = {
    REG_TABLE (reg_one, "reg_one"),
    { DUMPER_DECL_CODE, 0, 0, NULL, hook_a, "hook_a", 0 },
    REG_TABLE (reg_two, "reg_two"),
    /* A table may also be an array of static objects.  */
    { DUMPER_DECL_OBJECTS, 1, sizeof reg_two, (void *) reg_two, NULL,
      "reg_two objects", sizeof reg_two[0] },
  };
  assert_int_equal (bridge_decls_check (ok, 4, why, sizeof why), DUMPER_OK);

  struct reg local[2];   /* on the stack: not the executable's data */
  struct { struct dumper_decl d; const char *part; } bad[] = {
    { { DUMPER_DECL_CODE_TABLE, (int32_t) sizeof (struct reg), sizeof reg_one,
        (void *) reg_one, NULL, "past", sizeof reg_one[0] }, "member is at byte" },
    { { DUMPER_DECL_CODE_TABLE, -8, sizeof reg_one, (void *) reg_one, NULL,
        "negative", sizeof reg_one[0] }, "member is at byte -8" },
    { { DUMPER_DECL_CODE_TABLE, 1, sizeof reg_one, (void *) reg_one, NULL,
        "unaligned", sizeof reg_one[0] }, "member is at byte 1" },
    { { DUMPER_DECL_CODE_TABLE, 0, sizeof reg_one, (void *) reg_one, NULL,
        "stride 0", 0 }, "in elements of 0" },
    { { DUMPER_DECL_CODE_TABLE, 0, sizeof reg_one, (void *) reg_one, NULL,
        "stride odd", sizeof reg_one[0] + 1 }, "elements must tile it" },
    { { DUMPER_DECL_CODE_TABLE, 0, 0, (void *) reg_one, NULL, "empty",
        sizeof reg_one[0] }, "non-empty array" },
    { { DUMPER_DECL_CODE_TABLE, 0, sizeof reg_one, NULL, NULL, "null",
        sizeof reg_one[0] }, "non-empty array" },
    { { DUMPER_DECL_CODE_TABLE, (int32_t) offsetof (struct reg, func),
        sizeof reg_one, (void *) reg_one, hook_a, "with fn", sizeof reg_one[0] },
      "names a function" },
    { { DUMPER_DECL_CODE_TABLE, (int32_t) offsetof (struct reg, func),
        sizeof local, local, NULL, "local", sizeof local[0] },
      "outside the executable's data" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      assert_int_equal (bridge_decls_check (&bad[i].d, 1, why, sizeof why),
                        DUMPER_E_REGISTRATION);
      if (strstr (why, bad[i].part) == NULL)
        fail_msg ("case %zu: \"%s\" lacks \"%s\"", i, why, bad[i].part);
    }

  /* Which declaration a function is stored by: hook_a is in both tables
     and declared by DUMPER_DECLARE_CODE (entry 1 wins); fn_x is in
     both tables (the first, entry 0, at its index 1); fn_y only in
     reg_two (entry 2, index 0); the NULL terminator is no target.  */
  struct common_code_targets set;
  assert_true (common_code_targets_build (&set, ok, 4));
  assert_int_equal (set.count, 1 + 2 + 3);
  expect_target (&set, hook_a, 1, 0);
  expect_target (&set, fn_x, 0, 1);
  expect_target (&set, fn_y, 2, 0);
  assert_null (common_code_targets_find (&set, 0));
  assert_null (common_code_targets_find (&set, (uintptr_t) test_code_tables));
  /* Without the CODE entry, among tables the declaration table's order
     decides, not the element's: reg_two first stores hook_a as
     (reg_two, 2), not (reg_one, 0).  */
  const struct dumper_decl swapped[] = { ok[2], ok[0] };
  common_code_targets_free (&set);
  assert_true (common_code_targets_build (&set, swapped, 2));
  expect_target (&set, hook_a, 0, 2);
  expect_target (&set, fn_x, 0, 1);
  common_code_targets_free (&set);
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
    cmocka_unit_test_setup (test_bad_registrations_refused, reset),
    cmocka_unit_test_setup (test_refusal_is_sticky, reset),
    cmocka_unit_test_setup (test_pointer_type_against_heap, reset),
    cmocka_unit_test (test_bad_tables_refused),
    cmocka_unit_test (test_code_tables),
    cmocka_unit_test_setup (test_heap_description_checks, reset),
  };
  return cmocka_run_group_tests_name ("registry and heap description", tests,
                                      NULL, NULL);
}
