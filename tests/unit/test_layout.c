/* SPDX-License-Identifier: MIT */
/* tests/unit/test_layout.c: dumper_describe_heap's checks of a type's
   layout (heap.h, struct dumper_layout; bridge/heap.c).  Each rule at
   the edge of its range: the last valid value accepted, the first
   invalid one refused with DUMPER_E_HEAP_DESC (exit status 91) and a
   message naming the type and the rule.  The pre-dump comparison of a
   layout with the size and trace functions is tests/e2e/layout.sh's.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bridge/bridge.h"

#define W ((uint32_t) sizeof (uintptr_t))

static size_t thing_size (const void *obj) { (void) obj; return 64; }
static void thing_trace (const void *obj, struct dumper_tracer *t)
{
  (void) obj;
  (void) t;
}

static const int tags[2] = { DUMPER_TAG_IMMEDIATE, 0 };

/* Describe a heap of one type, `thing', with layout L and the given
   size and trace functions.  */
static enum dumper_status
describe (const struct dumper_layout *l, size_t (*size) (const void *),
          void (*trace) (const void *, struct dumper_tracer *))
{
  static struct dumper_type type;
  static struct dumper_heap heap;
  type = (struct dumper_type) { .name = "thing", .size = size,
                                .trace = trace, .layout = l };
  heap = (struct dumper_heap) { &type, 1, 1, tags, NULL };
  return dumper_describe_heap (&heap);
}

#define accepted(...) accepted_at (__LINE__, (struct dumper_layout) { __VA_ARGS__ })
#define refused(rule, ...) \
  refused_at (__LINE__, rule, (struct dumper_layout) { __VA_ARGS__ })

static void
accepted_at (int line, struct dumper_layout l)
{
  enum dumper_status st = describe (&l, thing_size, thing_trace);
  if (st != DUMPER_OK)
    fail_msg ("line %d: layout refused: %s", line, dumper_error_detail ());
}

/* Refused with 91, naming the type and saying RULE.  */
static void
refused_at (int line, const char *rule, struct dumper_layout l)
{
  enum dumper_status st = describe (&l, thing_size, thing_trace);
  if (st != DUMPER_E_HEAP_DESC)
    fail_msg ("line %d: status %d, not DUMPER_E_HEAP_DESC", line, (int) st);
  assert_int_equal (dumper_exit_status (st), 91);
  const char *detail = dumper_error_detail ();
  if (strstr (detail, "type 0 (thing)") == NULL
      || strstr (detail, rule) == NULL)
    fail_msg ("line %d: detail \"%s\" lacks the type or \"%s\"", line,
              detail, rule);
}

static void
test_layout_needs_size_and_trace (void **state)
{
  (void) state;
  struct dumper_layout l = { .fixed = W, .words = 1 };
  assert_int_equal (describe (&l, thing_size, thing_trace), DUMPER_OK);
  /* Pointer-free: no trace to compare.  */
  assert_int_equal (describe (&l, thing_size, NULL), DUMPER_E_HEAP_DESC);
  assert_non_null (strstr (dumper_error_detail (), "no trace function"));
  /* Owner-sized: no size.  */
  assert_int_equal (describe (&l, NULL, NULL), DUMPER_E_HEAP_DESC);
  assert_non_null (strstr (dumper_error_detail (), "no size function"));
  /* No layout: as before.  */
  assert_int_equal (describe (NULL, thing_size, NULL), DUMPER_OK);
}

static void
test_fixed (void **state)
{
  (void) state;
  const char *rule = "must be a nonzero multiple of the word size";
  accepted (.fixed = W);
  accepted (.fixed = 2 * W);
  refused (rule, .fixed = 0);
  refused (rule, .fixed = W - 1);
  refused (rule, .fixed = W + 1);
  refused (rule, .fixed = 2 * W - 1);
}

static void
test_field_widths (void **state)
{
  (void) state;
  const char *rule = "wide; it must be 0, 1, 2, 4 or 8";
  for (uint8_t bytes = 1; bytes <= 8; bytes *= 2)
    {
      accepted (.fixed = 2 * W, .header_bytes = bytes);
      accepted (.fixed = 2 * W, .count_bytes = bytes);
    }
  uint8_t bad[] = { 3, 5, 7, 9, 16, 255 };
  for (size_t i = 0; i < sizeof bad; i++)
    {
      refused (rule, .fixed = 64, .header_bytes = bad[i]);
      refused (rule, .fixed = 64, .count_bytes = bad[i]);
    }
  /* Width 0 is no field: its place is not looked at.  */
  accepted (.fixed = W, .header_at = 255, .count_at = 255);
}

static void
test_field_alignment (void **state)
{
  (void) state;
  const char *rule = "is not aligned to its size";
  accepted (.fixed = 64, .header_at = 4, .header_bytes = 4);
  refused (rule, .fixed = 64, .header_at = 2, .header_bytes = 4);
  refused (rule, .fixed = 64, .header_at = 6, .header_bytes = 4);
  accepted (.fixed = 64, .count_at = 8, .count_bytes = 8);
  refused (rule, .fixed = 64, .count_at = 4, .count_bytes = 8);
  accepted (.fixed = 64, .count_at = 2, .count_bytes = 2);
  refused (rule, .fixed = 64, .count_at = 1, .count_bytes = 2);
  accepted (.fixed = 64, .header_at = 1, .header_bytes = 1);
}

static void
test_field_in_first_64_bytes (void **state)
{
  (void) state;
  const char *rule = "is not inside the first 64 bytes";
  accepted (.fixed = 128, .header_at = 56, .header_bytes = 8);
  refused (rule, .fixed = 128, .header_at = 64, .header_bytes = 8);
  accepted (.fixed = 128, .header_at = 63, .header_bytes = 1);
  refused (rule, .fixed = 128, .header_at = 64, .header_bytes = 1);
  accepted (.fixed = 128, .count_at = 60, .count_bytes = 4);
  refused (rule, .fixed = 128, .count_at = 64, .count_bytes = 4);
  refused (rule, .fixed = 128, .count_at = 248, .count_bytes = 8);
}

static void
test_field_inside_fixed (void **state)
{
  (void) state;
  const char *rule = "is not inside the fixed part";
  accepted (.fixed = 16, .header_at = 12, .header_bytes = 4);
  refused (rule, .fixed = 16, .header_at = 16, .header_bytes = 4);
  accepted (.fixed = 16, .count_at = 8, .count_bytes = 8);
  refused (rule, .fixed = 16, .count_at = 16, .count_bytes = 8);
  accepted (.fixed = W, .count_at = W - 1, .count_bytes = 1);
  refused (rule, .fixed = W, .count_at = W, .count_bytes = 1);
}

static void
test_header_value_fits (void **state)
{
  (void) state;
  const char *rule = "does not fit in its";
  accepted (.fixed = 8, .header_bytes = 1, .header_value = 255);
  refused (rule, .fixed = 8, .header_bytes = 1, .header_value = 256);
  accepted (.fixed = 8, .header_bytes = 2, .header_value = 65535);
  refused (rule, .fixed = 8, .header_bytes = 2, .header_value = 65536);
  accepted (.fixed = 8, .header_bytes = 4, .header_value = UINT32_MAX);
  refused (rule, .fixed = 8, .header_bytes = 4,
           .header_value = (uint64_t) UINT32_MAX + 1);
  accepted (.fixed = 8, .header_bytes = 8, .header_value = UINT64_MAX);
  /* No header field: only 0 fits (a value without a width is a
     forgotten header_bytes).  */
  accepted (.fixed = 8, .header_bytes = 0, .header_value = 0);
  refused (rule, .fixed = 8, .header_bytes = 0, .header_value = 1);
}

static void
test_element_needs_count (void **state)
{
  (void) state;
  const char *rule = "has no count field (count_bytes 0) but";
  accepted (.fixed = 8, .count_bytes = 4, .element = 1);
  accepted (.fixed = 8, .count_bytes = 4, .element = 0);
  refused (rule, .fixed = 8, .count_bytes = 0, .element = 1);
  refused (rule, .fixed = 8, .count_bytes = 0, .element = W,
           .element_words = true);
  refused (rule, .fixed = 8, .count_bytes = 0, .element = UINT32_MAX);
  /* element_words alone, without an element size either.  */
  refused (rule, .fixed = 8, .count_bytes = 0, .element = 0,
           .element_words = true);
}

static void
test_element_words (void **state)
{
  (void) state;
  const char *rule = "has element_words but an element of";
  accepted (.fixed = 8, .count_bytes = 4, .element = W, .element_words = true);
  accepted (.fixed = 8, .count_bytes = 4, .element = 2 * W,
            .element_words = true);
  refused (rule, .fixed = 8, .count_bytes = 4, .element = 0,
           .element_words = true);
  refused (rule, .fixed = 8, .count_bytes = 4, .element = W - 1,
           .element_words = true);
  refused (rule, .fixed = 8, .count_bytes = 4, .element = W + 1,
           .element_words = true);
  /* Without element_words, any element size.  */
  accepted (.fixed = 8, .count_bytes = 4, .element = W + 1);
}

static void
test_words_below_fixed (void **state)
{
  (void) state;
  const char *rule = "at or past the fixed size";
  accepted (.fixed = 2 * W, .words = 3);
  refused (rule, .fixed = 2 * W, .words = 4);
  refused (rule, .fixed = 2 * W, .words = 7);
  accepted (.fixed = W, .words = 1);
  refused (rule, .fixed = W, .words = 2);
  /* Word 63, the last WORDS can name.  */
  accepted (.fixed = 64 * W, .words = UINT64_C (1) << 63);
  accepted (.fixed = 64 * W, .words = UINT64_MAX);
  refused (rule, .fixed = 63 * W, .words = UINT64_C (1) << 63);
  refused (rule, .fixed = 63 * W, .words = UINT64_MAX);
}

static void
test_words_off_fields (void **state)
{
  (void) state;
  /* The header (count) field is word 1, exactly: words 0 and 2 are
     free, word 1 is not.  */
  accepted (.fixed = 3 * W, .header_at = W, .header_bytes = W, .words = 5);
  refused ("overlaps its header field", .fixed = 3 * W, .header_at = W,
           .header_bytes = W, .words = 2);
  accepted (.fixed = 3 * W, .count_at = W, .count_bytes = W, .words = 5);
  refused ("overlaps its count field", .fixed = 3 * W, .count_at = W,
           .count_bytes = W, .words = 2);
  /* A field of width 0 is none, wherever HEADER_AT says.  */
  accepted (.fixed = 2 * W, .header_at = 1, .count_at = W + 1, .words = 3);
  /* A one-byte field at the last byte of word 0, the first of word 1.  */
  accepted (.fixed = 3 * W, .header_at = W - 1, .header_bytes = 1,
            .words = 6);
  refused ("overlaps its header field", .fixed = 3 * W, .header_at = W - 1,
           .header_bytes = 1, .words = 1);
  accepted (.fixed = 3 * W, .count_at = 2 * W, .count_bytes = 1,
            .words = 3);
  refused ("overlaps its count field", .fixed = 3 * W, .count_at = 2 * W,
           .count_bytes = 1, .words = 4);
}

/* A refused layout leaves the previous description installed, as any
   refused description does.  */
static void
test_refusal_keeps_previous (void **state)
{
  (void) state;
  static const struct dumper_layout good = { .fixed = W, .words = 1 };
  static const struct dumper_type type = { .name = "thing", .size = thing_size,
                                           .trace = thing_trace,
                                           .layout = &good };
  static const struct dumper_heap heap = { &type, 1, 1, tags, NULL };
  assert_int_equal (dumper_describe_heap (&heap), DUMPER_OK);
  struct dumper_layout bad = { .fixed = W, .words = 2 };
  assert_int_equal (describe (&bad, thing_size, thing_trace),
                    DUMPER_E_HEAP_DESC);
  assert_ptr_equal (bridge_heap (), &heap);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_layout_needs_size_and_trace),
    cmocka_unit_test (test_fixed),
    cmocka_unit_test (test_field_widths),
    cmocka_unit_test (test_field_alignment),
    cmocka_unit_test (test_field_in_first_64_bytes),
    cmocka_unit_test (test_field_inside_fixed),
    cmocka_unit_test (test_header_value_fits),
    cmocka_unit_test (test_element_needs_count),
    cmocka_unit_test (test_element_words),
    cmocka_unit_test (test_words_below_fixed),
    cmocka_unit_test (test_words_off_fields),
    cmocka_unit_test (test_refusal_keeps_previous),
  };
  return cmocka_run_group_tests_name ("heap description: layouts", tests,
                                      NULL, NULL);
}
