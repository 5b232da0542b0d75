/* SPDX-License-Identifier: MIT */
/* tests/pdump/patch-image.c: set fields of an image's header or section
   table and reseal the header checksum, for tests/pdump/mutkill.sh.

   Usage: patch-image IN OUT EDIT...
   Each EDIT is one of
     sKIND.FIELD=VALUE   section KIND's FIELD (codec, offset, size,
                         count, stored_offset, stored_size, reserved)
     sKIND.FIELD+=VALUE  the same, added to its value (-= subtracts)
     sKIND.FIELD=sK.F    the value of another section's field
     hOFFSET=VALUE       the header's 8-byte field at byte OFFSET
     hOFFSET/W=VALUE     its W-byte field there (W: 1, 2, 4 or 8)
     rN.FIELD=VALUE      registry record N's FIELD (kind, value_kind,
                         decl, exe_offset, size, value)
     sKIND@OFFSET/W=VALUE  the W bytes at OFFSET in section KIND
     resum               recompute every section's checksum (an
                         uncompressed image): what a producer that lies
                         on purpose writes
   `patch-image --records IMAGE' prints the registry records instead,
   one a line: number, kind, value_kind, decl, exe_offset, size, value.
   (table entry KIND - 1: the writer's order).  Only the header checksum is
   recomputed (section checksums stay): the image reads as its producer
   wrote it, with a header that lies.  Prints nothing; exit 1 on errors.
   A test tool: the loader must refuse each such image with the message
   of the check that exists for it (tests/mutation's catalogue).  */

#include <config.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "pdump/check.h"
#include "pdump/format.h"

static const struct { const char *name; size_t offset, width; } fields[] = {
  { "codec", offsetof (struct pdump_section, codec), 4 },
  { "offset", offsetof (struct pdump_section, offset), 8 },
  { "size", offsetof (struct pdump_section, size), 8 },
  { "count", offsetof (struct pdump_section, count), 8 },
  { "stored_offset", offsetof (struct pdump_section, stored_offset), 8 },
  { "stored_size", offsetof (struct pdump_section, stored_size), 8 },
  { "reserved", offsetof (struct pdump_section, reserved), 8 },
};

static const struct { const char *name; size_t offset, width; } record_fields[] = {
  { "kind", offsetof (struct pdump_record, kind), 1 },
  { "value_kind", offsetof (struct pdump_record, value_kind), 1 },
  { "decl", offsetof (struct pdump_record, decl), 4 },
  { "exe_offset", offsetof (struct pdump_record, exe_offset), 8 },
  { "size", offsetof (struct pdump_record, size), 8 },
  { "value", offsetof (struct pdump_record, value), 8 },
};

static unsigned char *image;
static size_t image_size;

static void
die (const char *what, const char *arg)
{
  fprintf (stderr, "patch-image: %s: %s\n", what, arg);
  exit (1);
}

/* Field I (0: kind, 1: offset, 2: size, 3: count) of section KIND.  */
static uint64_t
section_field (unsigned kind, int i)
{
  const struct pdump_section *s
    = (const struct pdump_section *) (image + sizeof (struct pdump_header)) + (kind - 1);
  struct pdump_section copy;
  memcpy (&copy, s, sizeof copy);
  return i == 0 ? copy.kind : i == 1 ? copy.offset : i == 2 ? copy.size : copy.count;
}

/* IMAGE + AT, when WIDTH bytes there lie in the file.  */
static unsigned char *
inside (uint64_t at, size_t width, const char *spec)
{
  if (at > image_size || width > image_size - at)
    die ("outside the file", spec);
  return image + at;
}

/* Every section's checksum, of its bytes in the file.  */
static void
resum (void)
{
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      struct pdump_section *s
        = (struct pdump_section *) (image + sizeof (struct pdump_header)) + (k - 1);
      struct pdump_section copy;
      memcpy (&copy, s, sizeof copy);
      if (copy.codec != PDUMP_CODEC_NONE)
        die ("resum", "a compressed section");
      copy.checksum = XXH3_64bits (inside (copy.offset, copy.size, "resum"),
                                   (size_t) copy.size);
      memcpy (s, &copy, sizeof copy);
    }
}

static void
print_records (void)
{
  uint64_t at = section_field (PDUMP_SECTION_REGISTRY, 1);
  uint64_t count = section_field (PDUMP_SECTION_REGISTRY, 3);
  for (uint64_t i = 0; i < count; i++)
    {
      struct pdump_record r;
      memcpy (&r, inside (at + i * sizeof r, sizeof r, "records"), sizeof r);
      printf ("%" PRIu64 " %u %u %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
              i, r.kind, r.value_kind, r.decl, r.exe_offset, r.size, r.value);
    }
}

/* The byte address and width of "sKIND.FIELD" or "hOFFSET" in the
   image; *END after it: an operator, or (WHOLE) the end of SPEC.  */
static unsigned char *
locate (const char *spec, bool whole, size_t *width, const char **end)
{
  char *after;
  unsigned long n = strtoul (spec + 1, &after, 10);
  if (spec[0] == 'h')
    {
      *width = 8;
      if (*after == '/')
        *width = strtoul (after + 1, &after, 10);
      if ((*width != 1 && *width != 2 && *width != 4 && *width != 8)
          || n + *width > offsetof (struct pdump_header, header_checksum))
        die ("not a header field", spec);
      *end = after;
      return image + n;
    }
  if (spec[0] == 'r' && *after == '.')
    {
      after++;
      uint64_t at = section_field (PDUMP_SECTION_REGISTRY, 1) + n * sizeof (struct pdump_record);
      for (size_t i = 0; i < sizeof record_fields / sizeof record_fields[0]; i++)
        {
          size_t len = strlen (record_fields[i].name);
          if (strncmp (after, record_fields[i].name, len) == 0
              && after[len] != '\0' && strchr ("=+-", after[len]) != NULL)
            {
              *width = record_fields[i].width;
              *end = after + len;
              return inside (at + record_fields[i].offset, *width, spec);
            }
        }
      die ("unknown record field", spec);
    }
  if (spec[0] == 's' && n >= 1 && n <= PDUMP_SECTION_KIND_MAX && *after == '@')
    {
      uint64_t at = section_field ((unsigned) n, 1) + strtoull (after + 1, &after, 0);
      *width = *after == '/' ? strtoul (after + 1, &after, 10) : 8;
      if (*width != 1 && *width != 2 && *width != 4 && *width != 8)
        die ("not a width of 1, 2, 4 or 8", spec);
      *end = after;
      return inside (at, *width, spec);
    }
  if (spec[0] != 's' || n < 1 || n > PDUMP_SECTION_KIND_MAX || *after != '.')
    die ("not sKIND.FIELD, sKIND@OFFSET, rN.FIELD or hOFFSET", spec);
  after++;
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    {
      size_t len = strlen (fields[i].name);
      if (strncmp (after, fields[i].name, len) == 0
          && (whole ? after[len] == '\0'
                    : after[len] != '\0' && strchr ("=+-", after[len]) != NULL))
        {
          *width = fields[i].width;
          *end = after + len;
          return image + sizeof (struct pdump_header)
                 + (n - 1) * sizeof (struct pdump_section) + fields[i].offset;
        }
    }
  die ("unknown field", spec);
  return NULL;
}

static uint64_t
get (const unsigned char *at, size_t width)
{
  uint8_t b;
  uint16_t h;
  uint32_t w;
  uint64_t v;
  switch (width)
    {
    case 1: memcpy (&b, at, 1); return b;
    case 2: memcpy (&h, at, 2); return h;
    case 4: memcpy (&w, at, 4); return w;
    default: memcpy (&v, at, 8); return v;
    }
}

static void
put (unsigned char *at, size_t width, uint64_t v)
{
  uint8_t b = (uint8_t) v;
  uint16_t h = (uint16_t) v;
  uint32_t w = (uint32_t) v;
  switch (width)
    {
    case 1: memcpy (at, &b, 1); break;
    case 2: memcpy (at, &h, 2); break;
    case 4: memcpy (at, &w, 4); break;
    default: memcpy (at, &v, 8); break;
    }
}

static void
edit (const char *spec)
{
  size_t width = 0;
  const char *op;
  unsigned char *at = locate (spec, false, &width, &op);
  int sign = op[0] == '+' ? 1 : op[0] == '-' ? -1 : 0;
  const char *value = op + (sign ? 2 : 1);
  if ((sign && op[1] != '=') || (!sign && op[0] != '='))
    die ("not FIELD=VALUE, FIELD+=VALUE or FIELD-=VALUE", spec);
  uint64_t v;
  if (value[0] == 's' || value[0] == 'h')
    {
      size_t other_width = 0;
      const char *rest;
      v = get (locate (value, true, &other_width, &rest), other_width);
    }
  else
    {
      char *end;
      v = strtoull (value, &end, 0);
      if (*end != '\0' || end == value)
        die ("not a number", value);
    }
  uint64_t old = get (at, width);
  put (at, width, sign > 0 ? old + v : sign < 0 ? old - v : v);
}

int
main (int argc, char **argv)
{
  bool list = argc == 3 && strcmp (argv[1], "--records") == 0;
  if (argc < 4 && !list)
    {
      fprintf (stderr, "usage: patch-image IN OUT EDIT...\n"
               "       patch-image --records IMAGE\n");
      return 1;
    }
  if (list)
    argv++;
  FILE *in = fopen (argv[1], "rb");
  if (in == NULL)
    die ("cannot open", argv[1]);
  fseek (in, 0, SEEK_END);
  image_size = (size_t) ftell (in);
  rewind (in);
  size_t table_end = sizeof (struct pdump_header)
                     + PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section);
  if (image_size < table_end)
    die ("shorter than a header and section table", argv[1]);
  image = malloc (image_size);
  if (image == NULL || fread (image, 1, image_size, in) != image_size)
    die ("cannot read", argv[1]);
  fclose (in);
  if (list)
    {
      print_records ();
      return 0;
    }
  bool sums = false;
  for (int i = 3; i < argc; i++)
    if (strcmp (argv[i], "resum") == 0)
      sums = true;
    else
      edit (argv[i]);
  if (sums)
    resum ();
  struct pdump_header h;
  memcpy (&h, image, sizeof h);
  h.header_checksum = pdump_header_sum (&h, image + sizeof h);
  memcpy (image, &h, sizeof h);
  FILE *out = fopen (argv[2], "wb");
  if (out == NULL || fwrite (image, 1, image_size, out) != image_size
      || fclose (out) != 0)
    die ("cannot write", argv[2]);
  free (image);
  return 0;
}
