/* SPDX-License-Identifier: MIT */
/* tests/inspect/test_inspect.c: dumper-inspect's decoders on images
   built here field by field: the TYPES and OBJECTS tables
   (tools/inspect/tables.c), the reference graph (graph.c) and the views
   on inputs the loader would refuse (the fuzz target runs them so).

   The image is not a whole valid file: these functions read only the
   view (header fields and section table, as pdump_check_header leaves
   them) and the section bytes, so each test sets just those and damages
   one thing.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <xxhash.h>

#include "tools/inspect/inspect.h"

#define FILE_SIZE 16384
#define HOT_AT 4096
#define COLD_AT 8192
#define RELOC_IMAGE_AT 12288
#define RELOC_EXE_AT 12352
#define REGISTRY_AT 12416
#define TYPES_AT 12800
#define OBJECTS_AT 13056
#define RELOC_CODE_AT 16384     /* empty, at the end of the file */

enum { T_PAIR, T_VEC, T_FLOAT };

struct fixture
{
  uint64_t storage[FILE_SIZE / 8];   /* aligned bytes of the image */
  unsigned char *bytes;
  struct insp_image image;
  uint64_t hot_end, cold_end, objects_end, types_end;
  uint64_t align;                    /* max (8, 1 << tag_bits) */
  char detail[INSP_DETAIL_SIZE];
};

static struct pdump_section *
section (struct fixture *f, unsigned kind)
{
  return &f->image.view.sections[kind];
}

static void
put_uleb (struct fixture *f, uint64_t value)
{
  do
    {
      unsigned char byte = value & 0x7f;
      value >>= 7;
      f->bytes[OBJECTS_AT + f->objects_end++] = byte | (value ? 0x80 : 0);
    }
  while (value);
}

static void
add_type (struct fixture *f, const char *name)
{
  uint32_t index = f->image.view.header.type_count++;
  struct pdump_type_entry e = { (uint32_t) (64 + f->types_end), (uint32_t) strlen (name) };
  memcpy (f->bytes + TYPES_AT + index * sizeof e, &e, sizeof e);
  memcpy (f->bytes + TYPES_AT + 64 + f->types_end, name, e.name_length);
  f->types_end += e.name_length;
  section (f, PDUMP_SECTION_TYPES)->count++;
  section (f, PDUMP_SECTION_TYPES)->size = 64 + f->types_end;
}

/* Append an object of TYPE and SIZE to HOT or COLD, aligned as the
   writer aligns it; returns its file offset.  */
static uint64_t
add_object (struct fixture *f, bool hot, uint32_t type, uint64_t size)
{
  uint64_t align = type == PDUMP_TYPE_BYTES ? 8 : f->align;
  uint64_t *end = hot ? &f->hot_end : &f->cold_end;
  uint64_t at = (*end + align - 1) & ~(align - 1);
  *end = at + size;
  put_uleb (f, type);
  put_uleb (f, size);
  f->image.view.header.object_count++;
  section (f, hot ? PDUMP_SECTION_HOT : PDUMP_SECTION_COLD)->count++;
  if (hot)
    section (f, PDUMP_SECTION_OBJECTS)->count++;
  section (f, hot ? PDUMP_SECTION_HOT : PDUMP_SECTION_COLD)->size = *end;
  section (f, PDUMP_SECTION_OBJECTS)->size = f->objects_end;
  return (hot ? HOT_AT : COLD_AT) + at;
}

/* HOT words have this build's word size (the inspector reads images of
   its own word size only).  The fixture's objects keep the same byte
   sizes and field offsets (multiples of 8) with either word size; only
   the word indexes differ.  */
#define WORD PDUMP_WORD_SIZE

static void
set_word (struct fixture *f, uint64_t offset, uint64_t value)
{
  memcpy (f->bytes + offset, &value, WORD);   /* little-endian hosts */
}

static void
relocate_image (struct fixture *f, uint64_t offset, uint64_t value)
{
  uint64_t w = (offset - HOT_AT) / WORD;
  set_word (f, offset, value);
  f->bytes[RELOC_IMAGE_AT + w / 8] |= (unsigned char) (1u << (w % 8));
  section (f, PDUMP_SECTION_RELOC_IMAGE)->count++;
}

static void
add_record (struct fixture *f, uint8_t kind, uint8_t value_kind, uint64_t value)
{
  struct pdump_section *s = section (f, PDUMP_SECTION_REGISTRY);
  struct pdump_record r = { kind, value_kind, 0, 0, 0x1000 + s->count * 8, 8, value };
  memcpy (f->bytes + REGISTRY_AT + s->count * sizeof r, &r, sizeof r);
  s->count++;
  s->size = s->count * sizeof r;
}

/* Forget the objects, to add others.  */
static void
reset_objects (struct fixture *f)
{
  f->hot_end = f->cold_end = f->objects_end = 0;
  f->image.view.header.object_count = 0;
  static const unsigned kinds[] = {
    PDUMP_SECTION_HOT, PDUMP_SECTION_COLD, PDUMP_SECTION_OBJECTS
  };
  for (size_t i = 0; i < 3; i++)
    section (f, kinds[i])->count = section (f, kinds[i])->size = 0;
}

/* Types pair, vec, float.  HOT: a vec of two items (a pair, an
   executable word), the pair (a float, a fixnum).  COLD: the float and
   a 5-byte block.  The registry: a root on the vec, a hook.  OBJECTS
   holds: 1 24 | 0 16 | 2 8 | ff ff 03 5.  */
static struct fixture *
image_with_tag_bits (unsigned tag_bits)
{
  struct fixture *f = calloc (1, sizeof *f);
  assert_non_null (f);
  f->bytes = (unsigned char *) f->storage;
  f->image.path = "test.pdmp";
  f->image.bytes = f->bytes;
  f->image.size = FILE_SIZE;
  struct pdump_view *v = &f->image.view;
  v->header.tag_bits = tag_bits;
  f->align = (uint64_t) 1 << tag_bits < 8 ? 8 : (uint64_t) 1 << tag_bits;
  v->header.file_size = FILE_SIZE;
  static const uint64_t offsets[PDUMP_SECTION_KIND_MAX + 1] = {
    0, HOT_AT, COLD_AT, RELOC_IMAGE_AT, RELOC_EXE_AT, REGISTRY_AT,
    REGISTRY_AT + 256, TYPES_AT, OBJECTS_AT, RELOC_CODE_AT
  };
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      v->sections[k].kind = k;
      v->sections[k].offset = offsets[k];
    }
  add_type (f, "pair");
  add_type (f, "vec");
  add_type (f, "float");

  uint64_t vec = add_object (f, true, T_VEC, 24);
  uint64_t pair = add_object (f, true, T_PAIR, 16);
  uint64_t flo = add_object (f, false, T_FLOAT, 8);
  add_object (f, false, PDUMP_TYPE_BYTES, 5);
  set_word (f, vec, 2u << 3);                 /* header: an immediate */
  relocate_image (f, vec + 8, pair + 1);
  set_word (f, vec + 16, 0x2040 + 4);         /* executable, tag 4 */
  uint32_t exe_word = (uint32_t) ((vec + 16 - HOT_AT) / WORD);
  memcpy (f->bytes + RELOC_EXE_AT, &exe_word, 4);
  section (f, PDUMP_SECTION_RELOC_EXE)->count = 1;
  section (f, PDUMP_SECTION_RELOC_EXE)->size = 4;
  relocate_image (f, pair, flo + 3);
  set_word (f, pair + 8, 7u << 3);
  section (f, PDUMP_SECTION_RELOC_IMAGE)->size = 8;
  add_record (f, DUMPER_DECL_ROOT, PDUMP_VALUE_IMAGE, vec + 2);
  add_record (f, DUMPER_DECL_HOOK, PDUMP_VALUE_NONE, 0);
  v->objects_start = HOT_AT;
  v->objects_end = COLD_AT + f->cold_end;
  return f;
}

static struct fixture *
small_image (void)
{
  return image_with_tag_bits (3);
}

static enum dumper_status
parse (struct fixture *f, struct insp_tables *t)
{
  return insp_tables_parse (&f->image, t, f->detail, sizeof f->detail);
}

/* Parsing F fails as corrupt with a message containing WORDS.  */
static void
expect_corrupt (struct fixture *f, const char *words)
{
  struct insp_tables t;
  assert_int_equal (parse (f, &t), DUMPER_E_IMAGE_CORRUPT);
  if (strstr (f->detail, words) == NULL)
    fail_msg ("message `%s' lacks `%s'", f->detail, words);
  assert_non_null (strstr (f->detail, "test.pdmp"));
  assert_non_null (strstr (f->detail, "inspection"));
  insp_tables_free (&t);
  free (f);
}

/* ------------------------------------------------------------------ */
/* TYPES and OBJECTS.  */

static void
test_valid_tables (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  struct insp_tables t;
  assert_int_equal (parse (f, &t), DUMPER_OK);
  assert_int_equal (t.type_count, 3);
  assert_int_equal (t.object_count, 4);
  assert_int_equal (t.hot_count, 2);
  assert_int_equal (t.block_count, 1);
  assert_int_equal (t.objects[0].offset, HOT_AT);
  assert_int_equal (t.objects[1].offset, HOT_AT + 24);
  assert_int_equal (t.objects[1].size, 16);
  assert_int_equal (t.objects[2].offset, COLD_AT);
  assert_int_equal (t.objects[3].offset, COLD_AT + 8);
  assert_int_equal (t.objects[3].type, PDUMP_TYPE_BYTES);
  assert_int_equal (insp_type_lookup (&t, "vec"), T_VEC);
  assert_int_equal (insp_type_lookup (&t, "(bytes)"), PDUMP_TYPE_BYTES);
  assert_int_equal (insp_type_lookup (&t, "ve"), -1);
  assert_int_equal (insp_object_containing (&t, 0, 4, HOT_AT + 23), 0);
  assert_int_equal (insp_object_containing (&t, 0, 4, HOT_AT + 40), INSP_NONE);
  assert_int_equal (insp_object_containing (&t, 0, 4, COLD_AT + 12), 3);
  assert_int_equal (insp_object_containing (&t, 0, 4, COLD_AT + 13), INSP_NONE);
  assert_int_equal (insp_object_containing (&t, 0, 4, 0), INSP_NONE);
  insp_tables_free (&t);
  free (f);
}

static void
test_checksums (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  struct insp_tables t;
  for (unsigned k = PDUMP_SECTION_TYPES; k <= PDUMP_SECTION_OBJECTS; k++)
    section (f, k)->checksum = XXH3_64bits (f->bytes + section (f, k)->offset,
                                            section (f, k)->size);
  assert_int_equal (insp_tables_decode (&f->image, &t, f->detail,
                                        sizeof f->detail), DUMPER_OK);
  insp_tables_free (&t);
  f->bytes[OBJECTS_AT] ^= 1;
  assert_int_equal (insp_tables_decode (&f->image, &t, f->detail,
                                        sizeof f->detail),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (f->detail, "checksum mismatch in section OBJECTS"));
  insp_tables_free (&t);
  free (f);
}

static void
test_leb128 (void **state)
{
  (void) state;
  /* A 200-byte vec: its size takes two bytes (0xc8 0x01).  */
  struct fixture *f = small_image ();
  reset_objects (f);
  add_object (f, true, T_VEC, 200);
  assert_int_equal (f->bytes[OBJECTS_AT + 2], 0x01);
  struct insp_tables t;
  assert_int_equal (parse (f, &t), DUMPER_OK);
  assert_int_equal (t.objects[0].size, 200);
  insp_tables_free (&t);

  /* Eleven bytes: more than 64 bits.  */
  memset (f->bytes + OBJECTS_AT + 1, 0x80, 10);
  f->bytes[OBJECTS_AT + 11] = 0;
  section (f, PDUMP_SECTION_OBJECTS)->size = 12;
  expect_corrupt (f, "overflows");
}

static void
test_leb128_max (void **state)
{
  (void) state;
  /* Ten bytes holding 2^64 - 1 decode, then cannot fit.  */
  struct fixture *f = small_image ();
  unsigned char *p = f->bytes + OBJECTS_AT;
  memmove (p + 11, p + 2, f->objects_end - 2);
  memset (p + 1, 0xff, 9);
  p[10] = 0x01;
  section (f, PDUMP_SECTION_OBJECTS)->size = f->objects_end + 9;
  expect_corrupt (f, "does not fit");
}

static void
test_leb128_cut (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  f->bytes[OBJECTS_AT + f->objects_end - 1] |= 0x80;   /* last byte continues */
  expect_corrupt (f, "cut off");
}

static void
test_gap (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  section (f, PDUMP_SECTION_HOT)->size += 8;   /* HOT longer than its objects */
  expect_corrupt (f, "HOT objects end at");
}

static void
test_overrun (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  f->bytes[OBJECTS_AT + 3] = 17;               /* the pair: 16 -> 17 bytes */
  expect_corrupt (f, "does not fit in HOT");
}

static void
test_zero_size (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  f->bytes[OBJECTS_AT + 9] = 0;                /* the byte block: 0 bytes */
  expect_corrupt (f, "does not fit in COLD");
}

static void
test_bytes_in_hot (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  reset_objects (f);
  add_object (f, true, PDUMP_TYPE_BYTES, 8);
  expect_corrupt (f, "wrong section");
}

static void
test_type_in_both_sections (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  f->bytes[OBJECTS_AT + 4] = T_PAIR;           /* the float becomes a pair */
  expect_corrupt (f, "object 2 has type 0");
}

static void
test_unknown_type (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  f->bytes[OBJECTS_AT] = 3;                    /* type 3 of 3 */
  expect_corrupt (f, "object 0 has type 3");
}

static void
test_trailing (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  section (f, PDUMP_SECTION_OBJECTS)->size += 2;
  expect_corrupt (f, "2 bytes after");
}

static void
test_counts (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  f->image.view.header.object_count = 5;
  expect_corrupt (f, "counts 5 objects");
  f = small_image ();
  section (f, PDUMP_SECTION_OBJECTS)->count = 1;
  expect_corrupt (f, "OBJECTS counts 1 HOT");
  /* A count no section could hold is refused before allocating.  */
  f = small_image ();
  f->image.view.header.object_count = UINT64_C (1) << 40;
  section (f, PDUMP_SECTION_COLD)->count = (UINT64_C (1) << 40) - 2;
  expect_corrupt (f, "too small for");
}

static void
test_type_name_outside (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  struct pdump_type_entry e = { 0, 10 };
  e.name_offset = (uint32_t) section (f, PDUMP_SECTION_TYPES)->size - 2;
  memcpy (f->bytes + TYPES_AT + sizeof e, &e, sizeof e);
  expect_corrupt (f, "name of type 1");
}

/* ------------------------------------------------------------------ */
/* The graph.  */

static void
test_graph (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  struct insp_tables t;
  struct insp_graph g;
  assert_int_equal (parse (f, &t), DUMPER_OK);
  assert_int_equal (insp_graph_build (&f->image, &t, &g, f->detail,
                                      sizeof f->detail), DUMPER_OK);
  assert_int_equal (g.edge_count, 2);
  assert_int_equal (g.edges[0].from, 0);
  assert_int_equal (g.edges[0].field, 8);
  assert_int_equal (g.edges[0].to, 1);
  assert_int_equal (g.edges[0].tag, 1);
  assert_int_equal (g.edges[1].from, 1);
  assert_int_equal (g.edges[1].to, 2);
  assert_int_equal (g.edges[1].tag, 3);
  assert_int_equal (g.first_edge[1], 1);
  assert_int_equal (g.first_edge[4], 2);
  assert_int_equal (g.exe_ref_count, 1);
  assert_int_equal (g.exe_refs[0].from, 0);
  assert_int_equal (g.exe_refs[0].field, 16);
  assert_int_equal (g.exe_refs[0].value, 0x2044);
  assert_int_equal (g.record_count, 2);
  assert_int_equal (g.records[0].target, 0);
  assert_int_equal (g.records[0].tag, 2);
  assert_int_equal (g.records[1].target, INSP_NONE);
  insp_graph_free (&g);
  insp_tables_free (&t);
  free (f);
}

/* Building the graph of F fails as corrupt with WORDS in the message.  */
static void
expect_graph_corrupt (struct fixture *f, const char *words)
{
  struct insp_tables t;
  struct insp_graph g;
  assert_int_equal (parse (f, &t), DUMPER_OK);
  assert_int_equal (insp_graph_build (&f->image, &t, &g, f->detail,
                                      sizeof f->detail),
                    DUMPER_E_IMAGE_CORRUPT);
  if (strstr (f->detail, words) == NULL)
    fail_msg ("message `%s' lacks `%s'", f->detail, words);
  insp_graph_free (&g);
  insp_tables_free (&t);
  free (f);
}

static void
test_graph_word_outside_objects (void **state)
{
  (void) state;
  /* 16-byte alignment: padding after the 24-byte vec, HOT word 3
     (word 6 with 4-byte words).  */
  struct fixture *f = image_with_tag_bits (4);
  unsigned padding_word = (unsigned) (24 / WORD);
  f->bytes[RELOC_IMAGE_AT] |= (unsigned char) (1u << padding_word);
  char words[64];
  snprintf (words, sizeof words, "no object holds relocated HOT word %u", padding_word);
  expect_graph_corrupt (f, words);
}

static void
test_graph_target_not_an_object (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  set_word (f, HOT_AT + 8, HOT_AT + 24 + 8);   /* the middle of the pair */
  char words[64];
  snprintf (words, sizeof words, "no object is the target of HOT word %u",
            (unsigned) (8 / WORD));
  expect_graph_corrupt (f, words);
}

/* The same word, with the header counting one interior pointer
   (format version 5): an edge into the pair, 8 bytes in.  */
static void
test_graph_interior (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  set_word (f, HOT_AT + 8, HOT_AT + 24 + 8);
  f->image.view.header.interior_count = 1;
  struct insp_tables t;
  struct insp_graph g;
  assert_int_equal (parse (f, &t), DUMPER_OK);
  assert_int_equal (insp_graph_build (&f->image, &t, &g, f->detail,
                                      sizeof f->detail), DUMPER_OK);
  assert_int_equal (g.interior_edge_count, 1);
  assert_int_equal (g.edges[0].into, 8);
  assert_int_equal (g.edges[0].tag, 0);
  insp_graph_free (&g);
  insp_tables_free (&t);
  free (f);
}

static void
test_graph_record_target (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  struct pdump_record r;
  memcpy (&r, f->bytes + REGISTRY_AT, sizeof r);
  r.value = COLD_AT + 100;                     /* past every object */
  memcpy (f->bytes + REGISTRY_AT, &r, sizeof r);
  expect_graph_corrupt (f, "registry record 0");
}

/* ------------------------------------------------------------------ */
/* Views on what only the fuzz target shows them.  */

static char *
run_summary (struct fixture *f, bool json)
{
  struct insp_tables t;
  struct insp_graph g;
  assert_int_equal (parse (f, &t), DUMPER_OK);
  assert_int_equal (insp_graph_build (&f->image, &t, &g, f->detail,
                                      sizeof f->detail), DUMPER_OK);
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream (&text, &size);
  assert_non_null (out);
  struct insp_exe exe;
  memset (&exe, 0, sizeof exe);
  exe.path = "no-such-binary";
  struct insp_ctx ctx = { out, json, &f->image, &t, &g, &exe, false };
  assert_int_equal (insp_view_summary (&ctx, f->detail, sizeof f->detail),
                    DUMPER_OK);
  assert_int_equal (insp_view_refs (&ctx, HOT_AT + 30, f->detail,
                                    sizeof f->detail), DUMPER_OK);
  assert_int_equal (insp_view_refs (&ctx, 0, f->detail, sizeof f->detail),
                    DUMPER_E_USAGE);
  fclose (out);
  insp_graph_free (&g);
  insp_tables_free (&t);
  return text;
}

/* The fuzzer found this: a record of unknown kind that claims an image
   value has no target, and the registry listing must not use one.  */
static void
test_view_unknown_record_kind (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  add_record (f, 7, PDUMP_VALUE_IMAGE, HOT_AT);
  char *text = run_summary (f, false);
  assert_non_null (strstr (text, "     2  ?       exe+0x1010  = 0x1000 (immediate)"));
  assert_non_null (strstr (text, "Object 0x00001018 pair, 16 bytes in HOT; "
                           "offset 0x101e is 6 bytes into it"));
  assert_non_null (strstr (text, "registry 0 (root exe+0x1000)\n  -> "
                           "0x00001000 vec\n  -> field +8 -> 0x00001018 pair"));
  free (text);
  text = run_summary (f, true);
  assert_non_null (strstr (text, "\"kind\": \"immediate\",\n"
                           "        \"word\": 4096"));
  free (text);
  free (f);
}

static void
test_view_escapes_names (void **state)
{
  (void) state;
  struct fixture *f = small_image ();
  /* The name of type 0 ("pair") becomes "p\"i\n".  */
  memcpy (f->bytes + TYPES_AT + 64, "p\"\x01\n", 4);
  char *text = run_summary (f, false);
  assert_non_null (strstr (text, "p\"\\x01\\x0a"));
  free (text);
  text = run_summary (f, true);
  assert_non_null (strstr (text, "\"p\\\"\\u0001\\u000a\""));
  free (text);
  free (f);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_valid_tables),
    cmocka_unit_test (test_checksums),
    cmocka_unit_test (test_leb128),
    cmocka_unit_test (test_leb128_max),
    cmocka_unit_test (test_leb128_cut),
    cmocka_unit_test (test_gap),
    cmocka_unit_test (test_overrun),
    cmocka_unit_test (test_zero_size),
    cmocka_unit_test (test_bytes_in_hot),
    cmocka_unit_test (test_type_in_both_sections),
    cmocka_unit_test (test_unknown_type),
    cmocka_unit_test (test_trailing),
    cmocka_unit_test (test_counts),
    cmocka_unit_test (test_type_name_outside),
    cmocka_unit_test (test_graph),
    cmocka_unit_test (test_graph_word_outside_objects),
    cmocka_unit_test (test_graph_target_not_an_object),
    cmocka_unit_test (test_graph_interior),
    cmocka_unit_test (test_graph_record_target),
    cmocka_unit_test (test_view_unknown_record_kind),
    cmocka_unit_test (test_view_escapes_names),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
