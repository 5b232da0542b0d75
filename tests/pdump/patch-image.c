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
   (table entry KIND - 1: the writer's order).  VALUE in C notation
   (decimal, 0x...).  Only the header checksum is
   recomputed (section checksums stay): the image reads as its producer
   wrote it, with a header that lies.  Prints nothing; exit 1 on errors.
   A test tool: the loader must refuse each such image with the message
   of the check that exists for it (tests/mutation's catalogue).  */

#include <config.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static unsigned char *image;
static size_t image_size;

static void
die (const char *what, const char *arg)
{
  fprintf (stderr, "patch-image: %s: %s\n", what, arg);
  exit (1);
}

/* The byte address and width of "sKIND.FIELD" or "hOFFSET" in the
   image; *END after it: an operator, or (WHOLE) the end of SPEC.  */
static unsigned char *
locate (const char *spec, bool whole, size_t *width, const char **end)
{
  char *after;
  unsigned long n = strtoul (spec + 1, &after, 10);
  if (spec[0] == 'h' && n + 8 <= offsetof (struct pdump_header, header_checksum))
    {
      *width = 8;
      *end = after;
      return image + n;
    }
  if (spec[0] != 's' || n < 1 || n > PDUMP_SECTION_KIND_MAX || *after != '.')
    die ("not sKIND.FIELD or hOFFSET", spec);
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
  if (width == 4)
    {
      uint32_t w;
      memcpy (&w, at, 4);
      return w;
    }
  uint64_t v;
  memcpy (&v, at, 8);
  return v;
}

static void
put (unsigned char *at, size_t width, uint64_t v)
{
  if (width == 4)
    {
      uint32_t w = (uint32_t) v;
      memcpy (at, &w, 4);
    }
  else
    memcpy (at, &v, 8);
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
  if (argc < 4)
    {
      fprintf (stderr, "usage: patch-image IN OUT EDIT...\n");
      return 1;
    }
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
  for (int i = 3; i < argc; i++)
    edit (argv[i]);
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
