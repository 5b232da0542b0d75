/* SPDX-License-Identifier: MIT */
/* tests/pdump/test_check.c: the image checks and relocation
   (pdump/check.c) on images built byte by byte here.

   A small valid image is assembled with format.h, then each test
   damages one thing and checks the class and message of the refusal.  */

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

#include "pdump/check.h"
#include "pdump/format.h"

#define PAGE 4096
#define HOT_WORDS 8

static const unsigned char fingerprint[16] = "0123456789abcdef";

/* The image under test: HOT holds 8 words, words 1 and 3 point into the
   image, word 5 into the executable; COLD holds 16 bytes.  */
struct image
{
  unsigned char *bytes;
  size_t size;
  struct pdump_section *table;   /* inside bytes */
};

static uint64_t
sec_offset (const struct image *im, unsigned kind)
{
  return im->table[kind - 1].offset;
}

static void
reseal_header (struct image *im)
{
  struct pdump_header *h = (struct pdump_header *) im->bytes;
  XXH3_state_t *s = XXH3_createState ();
  XXH3_64bits_reset (s);
  XXH3_64bits_update (s, h, offsetof (struct pdump_header, header_checksum));
  XXH3_64bits_update (s, im->table, PDUMP_SECTION_KIND_MAX * sizeof *im->table);
  h->header_checksum = XXH3_64bits_digest (s);
  XXH3_freeState (s);
}

/* Recompute the section checksums and the header checksum.  */
static void
reseal (struct image *im)
{
  for (unsigned k = 0; k < PDUMP_SECTION_KIND_MAX; k++)
    im->table[k].checksum = XXH3_64bits (im->bytes + im->table[k].offset,
                                         im->table[k].size);
  reseal_header (im);
}

static void
build (struct image *im)
{
  /* Layout: header page, HOT page, COLD page, then tables.  */
  im->size = 3 * PAGE + 256;
  im->bytes = calloc (1, im->size);
  struct pdump_header *h = (struct pdump_header *) im->bytes;
  memcpy (h->magic, PDUMP_MAGIC, PDUMP_MAGIC_SIZE);
  h->format_version = PDUMP_FORMAT_VERSION;
  h->header_size = sizeof *h;
  h->word_size = (uint8_t) PDUMP_WORD_SIZE;
  h->byte_order = PDUMP_NATIVE_BYTE_ORDER;
  h->machine = (uint16_t) pdump_native_machine ();
  h->section_count = PDUMP_SECTION_KIND_MAX;
  h->file_size = im->size;
  h->page_size = PAGE;
  h->section_table_offset = sizeof *h;
  memcpy (h->fingerprint, fingerprint, 16);
  h->object_count = 3;
  h->type_count = 1;
  h->tag_bits = 3;
  im->table = (struct pdump_section *) (im->bytes + sizeof *h);

  uint64_t offsets[PDUMP_SECTION_KIND_MAX + 1] = { 0 };
  uint64_t sizes[PDUMP_SECTION_KIND_MAX + 1] = { 0 };
  uint64_t counts[PDUMP_SECTION_KIND_MAX + 1] = { 0 };
  offsets[PDUMP_SECTION_HOT] = PAGE;        sizes[PDUMP_SECTION_HOT] = HOT_WORDS * PDUMP_WORD_SIZE;
  counts[PDUMP_SECTION_HOT] = 2;
  offsets[PDUMP_SECTION_COLD] = 2 * PAGE;   sizes[PDUMP_SECTION_COLD] = 16;
  counts[PDUMP_SECTION_COLD] = 1;
  offsets[PDUMP_SECTION_RELOC_IMAGE] = 3 * PAGE; sizes[PDUMP_SECTION_RELOC_IMAGE] = 8;
  counts[PDUMP_SECTION_RELOC_IMAGE] = 2;
  offsets[PDUMP_SECTION_RELOC_EXE] = 3 * PAGE + 8; sizes[PDUMP_SECTION_RELOC_EXE] = 4;
  counts[PDUMP_SECTION_RELOC_EXE] = 1;
  offsets[PDUMP_SECTION_REGISTRY] = 3 * PAGE + 16; sizes[PDUMP_SECTION_REGISTRY] = 32;
  counts[PDUMP_SECTION_REGISTRY] = 1;
  offsets[PDUMP_SECTION_SCALAR_DATA] = 3 * PAGE + 48; sizes[PDUMP_SECTION_SCALAR_DATA] = 8;
  offsets[PDUMP_SECTION_TYPES] = 3 * PAGE + 56; sizes[PDUMP_SECTION_TYPES] = 12;
  counts[PDUMP_SECTION_TYPES] = 1;
  offsets[PDUMP_SECTION_OBJECTS] = 3 * PAGE + 72; sizes[PDUMP_SECTION_OBJECTS] = 6;
  counts[PDUMP_SECTION_OBJECTS] = 2;
  offsets[PDUMP_SECTION_RELOC_CODE] = 3 * PAGE + 80;   /* empty */
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      struct pdump_section *s = &im->table[k - 1];
      s->kind = k;
      s->offset = offsets[k];
      s->size = sizes[k];
      s->count = counts[k];
      s->stored_offset = offsets[k];
      s->stored_size = sizes[k];
    }
  im->size = 3 * PAGE + 80;
  h->file_size = im->size;
  h->image_size = im->size;

  pdump_word *hot = (pdump_word *) (im->bytes + PAGE);
  hot[0] = 42;
  hot[1] = PAGE + 16 + 1;            /* HOT byte 16, tag 1 */
  hot[3] = 2 * PAGE;                 /* COLD start */
  hot[5] = 0x1000;                   /* executable offset */
  im->bytes[3 * PAGE] = (1 << 1) | (1 << 3);
  uint32_t exe_word = 5;
  memcpy (im->bytes + 3 * PAGE + 8, &exe_word, 4);
  struct pdump_record r = { DUMPER_DECL_ROOT, PDUMP_VALUE_IMAGE, 0, 0, 0x2000,
                            PDUMP_WORD_SIZE, PAGE + 8 };
  memcpy (im->bytes + 3 * PAGE + 16, &r, sizeof r);
  struct pdump_type_entry te = { 8, 4 };
  memcpy (im->bytes + 3 * PAGE + 56, &te, sizeof te);
  memcpy (im->bytes + 3 * PAGE + 64, "pair", 4);
  reseal (im);
}

static enum dumper_status
check (struct image *im, struct pdump_view *v, char *detail, size_t n)
{
  return pdump_check_header (im->bytes, im->size < PAGE ? im->size : PAGE,
                             im->size, fingerprint, "img", v, detail, n);
}

/* The test image, built and accepted into V.  */
static void
build_checked (struct image *im, struct pdump_view *v, char *detail, size_t n)
{
  build (im);
  assert_int_equal (check (im, v, detail, n), DUMPER_OK);
}

/* pdump_relocate then pdump_relocate_exe on the test image's tables
   (RELOC_IMAGE at 3 pages, RELOC_EXE 8 bytes after it), as pdump_verify
   runs them.  */
static enum dumper_status
relocate_image (const struct pdump_view *v, unsigned char *bytes,
                uintptr_t base, uintptr_t bias, uint64_t *images,
                uint64_t *exes, char *detail, size_t n)
{
  const struct pdump_relocation r = {
    .view = v, .hot = bytes + PAGE, .reloc_image = bytes + 3 * PAGE,
    .reloc_exe = bytes + 3 * PAGE + 8, .path = "img", .detail = detail,
    .detail_size = n
  };
  enum dumper_status st = pdump_relocate (&r, NULL, NULL, base, images);
  return st != DUMPER_OK ? st : pdump_relocate_exe (&r, bias, 0x100000, exes);
}

static void
test_valid_image_passes (void **state)
{
  struct image im;
  struct pdump_view v;
  char detail[512] = "";
  build (&im);
  assert_int_equal (check (&im, &v, detail, sizeof detail), DUMPER_OK);
  assert_int_equal (v.objects_start, PAGE);
  assert_int_equal (v.objects_end, 2 * PAGE + 16);
  assert_int_equal (pdump_check_registry (&v, im.bytes + sec_offset (&im, PDUMP_SECTION_REGISTRY),
                                          NULL, NULL, 0, "img", detail, sizeof detail), DUMPER_OK);
  uint64_t images, exes;
  uintptr_t base = 0x10000000;
  uintptr_t bias = PDUMP_WORD_SIZE == 8 ? (uintptr_t) UINT64_C (0x555500000000)
                                        : (uintptr_t) 0x56550000u;
  assert_int_equal (relocate_image (&v, im.bytes, base, bias, &images, &exes,
                                    detail, sizeof detail), DUMPER_OK);
  assert_int_equal (images, 2);
  assert_int_equal (exes, 1);
  pdump_word *hot = (pdump_word *) (im.bytes + PAGE);
  assert_int_equal (hot[0], 42);
  assert_int_equal (hot[1], base + PAGE + 17);
  assert_int_equal (hot[3], base + 2 * PAGE);
  assert_int_equal (hot[5], bias + 0x1000);
  free (im.bytes);
}

/* An image stored for a preferred base: at that base its image words
   are checked and left as they are (not a byte of HOT written), and
   elsewhere they move by the difference; a value outside the object
   sections at that base is refused either way.  */
static void
test_preferred_base (void **state)
{
  const uint64_t preferred = 0x40000000;
  for (int at_preferred = 0; at_preferred < 3; at_preferred++)
    {
      struct image im;
      struct pdump_view v;
      char d[512] = "";
      build (&im);
      struct pdump_header *h = (struct pdump_header *) im.bytes;
      h->preferred_base = preferred;
      pdump_word *hot = (pdump_word *) (im.bytes + PAGE);
      hot[1] += preferred;
      hot[3] += preferred;
      if (at_preferred == 2)
        hot[3] -= preferred;          /* an offset: below the range */
      reseal (&im);
      assert_int_equal (check (&im, &v, d, sizeof d), DUMPER_OK);
      pdump_word before[HOT_WORDS];
      memcpy (before, hot, sizeof before);
      uintptr_t base = at_preferred ? preferred : 0x7000000;
      uint64_t images, exes;
      uintptr_t bias = PDUMP_WORD_SIZE == 8
                       ? (uintptr_t) UINT64_C (0x555500000000)
                       : (uintptr_t) 0x56550000u;
      enum dumper_status st = relocate_image (&v, im.bytes, base, bias,
                                              &images, &exes, d, sizeof d);
      if (at_preferred == 2)
        {
          assert_int_equal (st, DUMPER_E_IMAGE_CORRUPT);
          assert_non_null (strstr (d, "holds 0x2000, outside the object sections [0x40001000"));
          free (im.bytes);
          continue;
        }
      assert_int_equal (st, DUMPER_OK);
      /* Words relocated: at the preferred base both are only checked.  */
      assert_int_equal (images, at_preferred ? 0 : 2);
      assert_int_equal (hot[1], base + PAGE + 17);
      assert_int_equal (hot[3], base + 2 * PAGE);
      assert_int_equal (hot[5], bias + 0x1000);
      if (at_preferred)
        assert_memory_equal (hot, before, 5 * PDUMP_WORD_SIZE);
      free (im.bytes);
    }
}

/* Damage one byte at OFFSET to VALUE, optionally reseal, expect STATUS
   and WORD in the message.  */
static void
expect (size_t offset, unsigned char value, bool resealed,
        enum dumper_status status, const char *word)
{
  struct image im;
  struct pdump_view v;
  char detail[512] = "";
  build (&im);
  im.bytes[offset] = value;
  if (resealed)
    reseal (&im);
  enum dumper_status st = check (&im, &v, detail, sizeof detail);
  if (st != status || strstr (detail, word) == NULL || strncmp (detail, "img: ", 5))
    fail_msg ("byte %zu = %u: status %d (want %d), detail: %s", offset, value,
              st, status, detail);
  free (im.bytes);
}

static void
test_each_header_class (void **state)
{
  expect (0, 'X', false, DUMPER_E_IMAGE_CORRUPT, "magic number is damaged");
  expect (0, 'X', true, DUMPER_E_IMAGE_MAGIC, "not a dumper image");
  /* A field says "another version/architecture" only when the header
     checksum holds; a flipped field is corruption.  */
  char reads[64];
  snprintf (reads, sizeof reads, "this library reads version %d",
            PDUMP_FORMAT_VERSION);
  expect (8, PDUMP_FORMAT_VERSION + 1, true, DUMPER_E_IMAGE_VERSION, reads);
  /* An image of the version before (4: no owner-sized objects or
     interior pointers) gets the same refusal, not "corrupt".  */
  expect (8, PDUMP_FORMAT_VERSION - 1, true, DUMPER_E_IMAGE_VERSION, reads);
  expect (8, PDUMP_FORMAT_VERSION + 1, false, DUMPER_E_IMAGE_CORRUPT, "checksum");
  /* The other word size (4 in a 64-bit build, 8 in a 32-bit one): the
     message names both.  */
  unsigned other_words = PDUMP_WORD_SIZE == 8 ? 4 : 8;
  char both[96];
  snprintf (both, sizeof both, "image has %u-byte words; this process has "
            "%u-byte words", other_words, (unsigned) PDUMP_WORD_SIZE);
  expect (16, (unsigned char) other_words, true, DUMPER_E_IMAGE_ARCH, both);
  expect (16, (unsigned char) other_words, false, DUMPER_E_IMAGE_CORRUPT,
          "checksum");
  expect (17, 2, true, DUMPER_E_IMAGE_ARCH, "big-endian");
  expect (17, 2, false, DUMPER_E_IMAGE_CORRUPT, "checksum");
  expect (18, 40, true, DUMPER_E_IMAGE_ARCH, "arm");
  expect (18, 40, false, DUMPER_E_IMAGE_CORRUPT, "checksum");
  expect (24, 0, false, DUMPER_E_IMAGE_CORRUPT, "checksum");
  expect (48, 'X', false, DUMPER_E_IMAGE_CORRUPT, "checksum");
  expect (48, 'X', true, DUMPER_E_IMAGE_FINGERPRINT, "fingerprint");
  expect (96, 1, true, DUMPER_E_IMAGE_CORRUPT, "preferred base");
  expect (112, 1, true, DUMPER_E_IMAGE_CORRUPT, "reserved");
  /* interior_count: at most the relocations (2 image, 1 executable).  */
  expect (104, 4, true, DUMPER_E_IMAGE_CORRUPT,
          "the header counts 4 interior pointers, more than HOT's 3");
  expect (88, 1, true, DUMPER_E_IMAGE_CORRUPT, "stored layout");
  expect (76, 9, true, DUMPER_E_IMAGE_CORRUPT, "heap description");
}

/* Every bit of the header and the section table, flipped alone: the
   header checksum no longer holds, so the image is corrupt (86), never
   truncated, another version, architecture or build.  */
static void
test_every_header_bit (void **state)
{
  size_t end = sizeof (struct pdump_header)
               + PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section);
  for (size_t offset = 0; offset < end; offset++)
    for (int bit = 0; bit < 8; bit++)
      {
        struct image im;
        struct pdump_view v;
        char detail[512] = "";
        build (&im);
        im.bytes[offset] ^= (unsigned char) (1u << bit);
        enum dumper_status st = check (&im, &v, detail, sizeof detail);
        if (st != DUMPER_E_IMAGE_CORRUPT)
          fail_msg ("byte %zu bit %d: status %d, detail: %s", offset, bit, st,
                    detail);
        free (im.bytes);
      }
}

static void
test_truncation (void **state)
{
  struct image im;
  struct pdump_view v;
  char detail[512];
  build (&im);
  assert_int_equal (pdump_check_header (im.bytes, 0, 0, NULL, "img", &v, detail,
                                        sizeof detail), DUMPER_E_IMAGE_TRUNCATED);
  assert_non_null (strstr (detail, "empty"));
  assert_int_equal (pdump_check_header (im.bytes, 40, 40, NULL, "img", &v, detail,
                                        sizeof detail), DUMPER_E_IMAGE_TRUNCATED);
  assert_int_equal (pdump_check_header (im.bytes, 5, 5, NULL, "img", &v, detail,
                                        sizeof detail), DUMPER_E_IMAGE_TRUNCATED);
  assert_int_equal (pdump_check_header (im.bytes, PAGE, im.size - 1, NULL, "img",
                                        &v, detail, sizeof detail),
                    DUMPER_E_IMAGE_TRUNCATED);
  assert_non_null (strstr (detail, "header says"));
  free (im.bytes);
}

/* Change a section table field (resealed) and expect corruption.  */
static void
expect_table (unsigned kind, size_t field, uint64_t value, const char *word)
{
  struct image im;
  struct pdump_view v;
  char detail[512] = "";
  build (&im);
  memcpy ((unsigned char *) &im.table[kind - 1] + field, &value, sizeof value);
  reseal_header (&im);
  enum dumper_status st = check (&im, &v, detail, sizeof detail);
  if (st != DUMPER_E_IMAGE_CORRUPT || strstr (detail, word) == NULL)
    fail_msg ("section %u field %zu = %llu: status %d, detail: %s", kind, field,
              (unsigned long long) value, st, detail);
  free (im.bytes);
}

static void
test_section_table (void **state)
{
  size_t off = offsetof (struct pdump_section, offset);
  size_t size = offsetof (struct pdump_section, size);
  size_t count = offsetof (struct pdump_section, count);
  expect_table (PDUMP_SECTION_HOT, size, 1u << 30, "outside");
  expect_table (PDUMP_SECTION_COLD, off, 2 * PAGE + 8, "page-aligned");
  expect_table (PDUMP_SECTION_COLD, off, PAGE, "overlaps");
  expect_table (PDUMP_SECTION_HOT, size, 62, "whole number of words");
  expect_table (PDUMP_SECTION_RELOC_IMAGE, size, 0, "RELOC_IMAGE is 0 bytes");
  expect_table (PDUMP_SECTION_RELOC_EXE, count, 2, "RELOC_EXE");
  expect_table (PDUMP_SECTION_REGISTRY, count, 3, "REGISTRY");
  expect_table (PDUMP_SECTION_TYPES, count, 5, "TYPES");
  expect_table (PDUMP_SECTION_HOT, count, 9, "object counts");
  expect_table (PDUMP_SECTION_OBJECTS, offsetof (struct pdump_section, kind),
                PDUMP_SECTION_HOT, "kind");
  expect_table (PDUMP_SECTION_HOT, offsetof (struct pdump_section, offset),
                UINT64_MAX - 8, "outside");
  expect_table (PDUMP_SECTION_COLD, offsetof (struct pdump_section, stored_offset),
                2 * PAGE + 8, "stored layout");
  expect_table (PDUMP_SECTION_COLD, offsetof (struct pdump_section, codec),
                7, "codec");
}

/* The writer's layout exactly: padding before a section beyond its
   alignment, or an image size past the last section, is corruption (a
   small compressed file could otherwise name gigabytes of image that a
   loader or dumper-inspect would reserve; found by fuzz_load).  */
/* Grow the file by GROW bytes (the header's file and image size with
   it), move RELOC_CODE, the last section, by SHIFT, reseal, and expect
   corruption with WORD in the message.  */
static void
expect_layout (uint64_t grow, uint64_t shift, const char *word)
{
  struct image im;
  struct pdump_view v;
  char detail[512] = "";
  build (&im);
  struct pdump_section *code = &im.table[PDUMP_SECTION_RELOC_CODE - 1];
  code->offset += shift;
  code->stored_offset += shift;
  im.size += grow;
  struct pdump_header *h = (struct pdump_header *) im.bytes;
  h->file_size = h->image_size = im.size;
  reseal (&im);
  assert_int_equal (check (&im, &v, detail, sizeof detail),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (detail, word));
  free (im.bytes);
}

static void
test_tight_layout (void **state)
{
  expect_layout (8, 8, "RELOC_CODE starts 10 bytes after");
  expect_layout (64, 0, "is not where its last section ends");
}

/* Run relocation on an image whose HOT word WORD holds VALUE.  */
static enum dumper_status
relocate_with (uint64_t word, uint64_t value, uint64_t bitmap, uint32_t exe_word,
               char *detail, size_t n)
{
  struct image im;
  struct pdump_view v;
  build (&im);
  pdump_word *hot = (pdump_word *) (im.bytes + PAGE);
  hot[word] = (pdump_word) value;
  memcpy (im.bytes + 3 * PAGE, &bitmap, sizeof bitmap);
  memcpy (im.bytes + 3 * PAGE + 8, &exe_word, 4);
  reseal (&im);
  assert_int_equal (check (&im, &v, detail, n), DUMPER_OK);
  uint64_t a, b;
  enum dumper_status st
    = relocate_image (&v, im.bytes, 0x10000, 0x20000, &a, &b, detail, n);
  free (im.bytes);
  return st;
}

static void
test_relocation_checks (void **state)
{
  char d[512];
  /* An image value outside the object sections.  */
  assert_int_equal (relocate_with (1, 3 * PAGE + 64, 0x0a, 5, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (d, "outside the object sections"));
  /* Below the object sections (the header).  */
  assert_int_equal (relocate_with (1, 16, 0x0a, 5, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  /* A tag past the last object is allowed (end of COLD + 15).  */
  assert_int_equal (relocate_with (3, 2 * PAGE + 16 + 15, 0x0a, 5, d, sizeof d),
                    DUMPER_OK);
  /* An executable value past the executable.  */
  assert_int_equal (relocate_with (5, 0x200000, 0x0a, 5, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (d, "outside the executable"));
  /* The executable's bound exactly (relocate_image's limit 0x100000
     plus the tag range, 16): its first value outside is refused, the
     last inside (the limit with the largest tag) relocated.  */
  assert_int_equal (relocate_with (5, 0x100000 + PDUMP_MAX_TAG + 1, 0x0a, 5,
                                   d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (d, "HOT word 5 holds executable offset 0x100010, "
                              "outside the executable"));
  assert_int_equal (relocate_with (5, 0x100000 + PDUMP_MAX_TAG, 0x0a, 5,
                                   d, sizeof d),
                    DUMPER_OK);
  /* An executable relocation outside HOT.  */
  assert_int_equal (relocate_with (5, 0x1000, 0x0a, 8, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  /* A word in both tables.  */
  assert_int_equal (relocate_with (5, PAGE, 0x2a, 5, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  /* A bitmap bit beyond HOT's 8 words.  */
  assert_int_equal (relocate_with (1, PAGE, 0x0a | 0x100, 5, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (d, "beyond the end of HOT"));
  /* A bitmap that disagrees with its count.  */
  assert_int_equal (relocate_with (1, PAGE, 0x02, 5, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (d, "bits set"));
}

static void
test_relocation_checksum (void **state)
{
  struct image im;
  struct pdump_view v;
  char d[512];
  build (&im);
  assert_int_equal (check (&im, &v, d, sizeof d), DUMPER_OK);
  im.bytes[PAGE] ^= 1;    /* damage HOT after the header was checked */
  uint64_t a, b;
  assert_int_equal (relocate_image (&v, im.bytes, 0, 0, &a, &b, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (d, "checksum mismatch in section HOT"));
  free (im.bytes);
}

static void
test_registry_checks (void **state)
{
  struct image im;
  struct pdump_view v;
  char d[512];
  build (&im);
  assert_int_equal (check (&im, &v, d, sizeof d), DUMPER_OK);
  struct pdump_record *r = (struct pdump_record *) (im.bytes + 3 * PAGE + 16);
  const void *reg = r;
  r->value = 3 * PAGE;                   /* outside the object sections */
  assert_int_equal (pdump_check_registry (&v, reg, NULL, NULL, 0, "img", d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  r->value = PAGE;
  r->kind = 9;
  assert_int_equal (pdump_check_registry (&v, reg, NULL, NULL, 0, "img", d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  r->kind = DUMPER_DECL_SCALAR;
  r->value_kind = PDUMP_VALUE_NONE;
  r->value = 4;
  r->size = 8;                           /* 4 + 8 > 8 bytes of scalar data */
  assert_int_equal (pdump_check_registry (&v, reg, NULL, NULL, 0, "img", d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  r->value = 0;
  assert_int_equal (pdump_check_registry (&v, reg, NULL, NULL, 0, "img", d, sizeof d),
                    DUMPER_OK);
  /* With an executable layout, the static must be in writable data
     outside RELRO and the PLT's GOT.  */
  struct pdump_exe exe;
  memset (&exe, 0, sizeof exe);
  exe.segment_count = 2;
  exe.segments[0] = (struct pdump_exe_segment) { 0x0, 0x1000, 5 };
  exe.segments[1] = (struct pdump_exe_segment) { 0x2000, 0x3000, 6 };
  exe.hi = 0x3000;
  exe.relro_start = 0x2000;
  exe.relro_end = 0x2100;
  r->exe_offset = 0x2800;
  assert_int_equal (pdump_check_registry (&v, reg, &exe, NULL, 0, "img", d, sizeof d),
                    DUMPER_OK);
  r->exe_offset = 0x2080;                /* inside RELRO */
  assert_int_equal (pdump_check_registry (&v, reg, &exe, NULL, 0, "img", d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  r->exe_offset = 0x800;                 /* in code */
  assert_int_equal (pdump_check_registry (&v, reg, &exe, NULL, 0, "img", d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  r->kind = DUMPER_DECL_HOOK;
  r->size = 0;
  assert_int_equal (pdump_check_registry (&v, reg, &exe, NULL, 0, "img", d, sizeof d),
                    DUMPER_OK);
  r->exe_offset = 0x2800;                /* a hook in data */
  assert_int_equal (pdump_check_registry (&v, reg, &exe, NULL, 0, "img", d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  free (im.bytes);
}

/* Padding at the boundary (issue 36): a section may start at most
   align - 1 bytes after what precedes it.  OBJECTS (6 bytes at 3 pages
   + 72) cut to SIZE bytes leaves 80 - 72 - SIZE bytes before RELOC_CODE
   (8-byte alignment): 7 is the most allowed, 8 one byte too many.  */
static void
test_padding_boundary (void **state)
{
  struct image im;
  struct pdump_view v;
  char detail[512] = "";
  build (&im);
  im.table[PDUMP_SECTION_OBJECTS - 1].size = 1;
  im.table[PDUMP_SECTION_OBJECTS - 1].stored_size = 1;
  reseal (&im);
  assert_int_equal (check (&im, &v, detail, sizeof detail), DUMPER_OK);
  im.table[PDUMP_SECTION_OBJECTS - 1].size = 0;
  im.table[PDUMP_SECTION_OBJECTS - 1].stored_size = 0;
  reseal (&im);
  assert_int_equal (check (&im, &v, detail, sizeof detail),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (detail, "section RELOC_CODE starts 8 bytes after "
                           "what precedes it (at most 7 of padding)"));
  free (im.bytes);
}

/* RELOC_CODE at the end of HOT (issue 36): an entry naming HOT's last
   word (7) is relocated; one naming the word just past it (8) is
   refused by the range check itself.  HOT word 8 would read the zero
   after HOT, a valid index of the one declared code target, so no
   later check stands in for it.  */
/* RELOC_CODE listing HOT word WORD, HOT word 7 holding CODE, relocated
   against DECLS[0, COUNT): the status, and in *TARGET what word 7 got.  */
static enum dumper_status
relocate_code_against (uint32_t word, pdump_word code,
                       const struct dumper_decl *decls, size_t count,
                       pdump_word *target, char *detail, size_t n)
{
  struct image im;
  struct pdump_view v;
  build_checked (&im, &v, detail, n);
  v.sections[PDUMP_SECTION_RELOC_CODE].count = 1;
  uint32_t list[1] = { word };
  pdump_word *hot = (pdump_word *) (im.bytes + PAGE);
  hot[7] = code;
  uint64_t code_count = 0;
  enum dumper_status st
    = pdump_relocate_code (&v, im.bytes + PAGE, im.bytes + 3 * PAGE,
                           im.bytes + 3 * PAGE + 8, list, decls, count,
                           &code_count, "img", detail, n);
  if (st == DUMPER_OK)
    assert_int_equal (code_count, 1);
  *target = hot[7];
  free (im.bytes);
  return st;
}

static enum dumper_status
relocate_code (uint32_t word, pdump_word index, char *detail, size_t n)
{
  const struct dumper_decl decls[2] = {
    { .kind = DUMPER_DECL_CODE, .fn = (void (*) (void)) abort, .name = "abort" },
    { .kind = DUMPER_DECL_CODE, .fn = (void (*) (void)) abort, .name = "past" }
  };
  pdump_word target;
  enum dumper_status st = relocate_code_against (word, index, decls, 1,
                                                 &target, detail, n);
  if (st == DUMPER_OK)
    assert_true (target == (pdump_word) (uintptr_t) abort);
  return st;
}

static void
test_code_relocation_range (void **state)
{
  char d[512] = "";
  assert_int_equal (relocate_code (HOT_WORDS - 1, 0, d, sizeof d), DUMPER_OK);
  assert_int_equal (relocate_code (HOT_WORDS, 0, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (d, "RELOC_CODE entry 0 (word 8) is out of order "
                           "or outside HOT"));
}

/* A code pointer's declaration index at the end of the table (the
   mutation run's survivor check-code-index): HOT word 7 naming
   declaration INDEX of a table of one CODE entry, the array holding a
   second CODE entry just past the count, so reading decls[1] would let
   the index through.  */
static void
test_code_index_range (void **state)
{
  char d[512] = "";
  assert_int_equal (relocate_code (HOT_WORDS - 1, 0, d, sizeof d), DUMPER_OK);
  assert_int_equal (relocate_code (HOT_WORDS - 1, 1, d, sizeof d),
                    DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (d, "HOT word 7 names declaration 1, which is not "
                           "a declared code target (the executable declares "
                           "1 entries)"));
}

/* Code tables (DUMPER_DECLARE_CODE_TABLE): a code word names
   (declaration, element) (format.h, PDUMP_CODE_WORD).  Element 1 of a
   three-element table whose last member is NULL gets that member, read
   from the array; the element count itself, the largest element the
   word holds, and the NULL element are refused; a single function
   (DUMPER_DECL_CODE) with a non-zero element is refused; a code word
   naming a static declaration is refused.  */
struct code_reg { const char *name; void (*fn) (void); };
static void reg_first (void) {}
static void reg_second (void) {}
static const struct code_reg regs[] = {
  { "first", reg_first }, { "second", reg_second }, { NULL, NULL }
};

static void
test_code_table_elements (void **state)
{
  static uintptr_t word;
  const struct dumper_decl decls[] = {
    { .kind = DUMPER_DECL_CODE, .fn = (void (*) (void)) abort, .name = "abort" },
    { .kind = DUMPER_DECL_CODE_TABLE, .type = offsetof (struct code_reg, fn),
      .size = sizeof regs, .addr = (void *) regs, .name = "regs[].fn",
      .stride = sizeof regs[0] },
    { .kind = DUMPER_DECL_WORD, .size = sizeof word, .addr = &word, .name = "word" },
  };
  char d[512] = "";
  pdump_word target;
  assert_int_equal (relocate_code_against (HOT_WORDS - 1, PDUMP_CODE_WORD (1, 1),
                                           decls, 3, &target, d, sizeof d),
                    DUMPER_OK);
  assert_true (target == (pdump_word) (uintptr_t) reg_second);
  assert_int_equal (relocate_code_against (HOT_WORDS - 1, PDUMP_CODE_WORD (1, 0),
                                           decls, 3, &target, d, sizeof d),
                    DUMPER_OK);
  assert_true (target == (pdump_word) (uintptr_t) reg_first);

  struct { pdump_word code; const char *part; } bad[] = {
    { PDUMP_CODE_WORD (1, 3), "HOT word 7 names element 3 of code table "
      "regs[].fn (declaration 1), which has 3 elements" },
    { PDUMP_CODE_WORD (1, PDUMP_CODE_INDEX_LIMIT - 1), "of code table "
      "regs[].fn (declaration 1), which has 3 elements" },
    { PDUMP_CODE_WORD (1, 2), "HOT word 7 names element 2 of code table "
      "regs[].fn (declaration 1), whose function is NULL in this executable" },
    { PDUMP_CODE_WORD (0, 1), "HOT word 7 names element 1 of declaration 0 "
      "(code abort), a single function, not a code table" },
    { PDUMP_CODE_WORD (2, 0), "HOT word 7 names declaration 2, which is not "
      "a declared code target" },
    { PDUMP_CODE_WORD (3, 0), "HOT word 7 names declaration 3, which is not "
      "a declared code target (the executable declares 3 entries)" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      assert_int_equal (relocate_code_against (HOT_WORDS - 1, bad[i].code,
                                               decls, 3, &target, d, sizeof d),
                        DUMPER_E_IMAGE_CORRUPT);
      if (strstr (d, bad[i].part) == NULL)
        fail_msg ("case %zu: \"%s\" lacks \"%s\"", i, d, bad[i].part);
    }
}

/* A record's declaration index at the end of the table (issue 36):
   index DECL_COUNT - 1 is checked against its declaration; DECL_COUNT
   itself is refused before decls[DECL_COUNT] is read.  The array holds
   a matching declaration just past the count, so reading it would let
   the record through.  */
static void
test_registry_decl_range (void **state)
{
  struct image im;
  struct pdump_view v;
  char d[512] = "";
  build_checked (&im, &v, d, sizeof d);
  struct pdump_record *r = (struct pdump_record *) (im.bytes + 3 * PAGE + 16);
  const struct dumper_decl root = {
    .kind = DUMPER_DECL_ROOT, .size = PDUMP_WORD_SIZE,
    .addr = (void *) (uintptr_t) 0x2000, .name = "root"
  };
  const struct dumper_decl decls[2] = { root, root };
  r->decl = 0;
  assert_int_equal (pdump_check_registry (&v, r, NULL, decls, 1, "img", d,
                                          sizeof d), DUMPER_OK);
  r->decl = 1;
  assert_int_equal (pdump_check_registry (&v, r, NULL, decls, 1, "img", d,
                                          sizeof d), DUMPER_E_IMAGE_CORRUPT);
  assert_non_null (strstr (d, "registry record 0 names declaration 1, but the "
                           "executable declares 1"));
  free (im.bytes);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_valid_image_passes),
    cmocka_unit_test (test_preferred_base),
    cmocka_unit_test (test_each_header_class),
    cmocka_unit_test (test_truncation),
    cmocka_unit_test (test_section_table),
    cmocka_unit_test (test_tight_layout),
    cmocka_unit_test (test_relocation_checks),
    cmocka_unit_test (test_relocation_checksum),
    cmocka_unit_test (test_every_header_bit),
    cmocka_unit_test (test_registry_checks),
    cmocka_unit_test (test_padding_boundary),
    cmocka_unit_test (test_code_relocation_range),
    cmocka_unit_test (test_code_index_range),
    cmocka_unit_test (test_code_table_elements),
    cmocka_unit_test (test_registry_decl_range),
  };
  return cmocka_run_group_tests_name ("pdump checks", tests, NULL, NULL);
}
