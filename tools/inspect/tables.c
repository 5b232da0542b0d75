/* SPDX-License-Identifier: MIT */
/* tools/inspect/tables.c: the inspection-only tables, TYPES and OBJECTS.

   The loader never reads these two sections (load.c ignores them and
   unmaps them unread), so damage in them does not stop a host from
   starting, and `dumper-inspect --check' does not look at them either:
   it must agree with the loader.  The views need them, so here they are
   checked as strictly as the loader checks its own tables: their
   checksums, every name inside TYPES, every LEB128 number inside
   OBJECTS, the counts against the header and section table, and the
   object sizes against the sections they must tile exactly, with the
   alignment format.h gives (objects max (8, 1 << tag_bits), byte blocks
   8).  */

#include <config.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

static const unsigned char bytes_name[] = "(bytes)";

static enum dumper_status
corrupt (const struct insp_image *image, char *detail, size_t detail_size,
         const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));

static enum dumper_status
corrupt (const struct insp_image *image, char *detail, size_t detail_size,
         const char *fmt, ...)
{
  char message[320];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (message, sizeof message, fmt, ap);
  va_end (ap);
  return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, image->path,
                    "%s (an inspection-only table, which the loader does "
                    "not read)", message);
}

static enum dumper_status
parse_types (const struct insp_image *image, struct insp_tables *t,
             char *detail, size_t detail_size)
{
  const struct pdump_section *s = &image->view.sections[PDUMP_SECTION_TYPES];
  const unsigned char *bytes = insp_section_bytes (image, PDUMP_SECTION_TYPES);
  /* pdump_check_header: count == type_count, and the entries fit.  */
  t->type_count = image->view.header.type_count;
  t->types = calloc (t->type_count ? t->type_count : 1, sizeof *t->types);
  if (t->types == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, image->path,
                      "out of memory for %u types", t->type_count);
  for (uint32_t i = 0; i < t->type_count; i++)
    {
      struct pdump_type_entry e;
      memcpy (&e, bytes + (size_t) i * sizeof e, sizeof e);
      t->types[i].owner_sized = (e.name_length & PDUMP_TYPE_OWNER_SIZED) != 0;
      e.name_length &= ~PDUMP_TYPE_OWNER_SIZED;
      if (e.name_offset > s->size || e.name_length > s->size - e.name_offset)
        return corrupt (image, detail, detail_size,
                        "TYPES: the name of type %u lies outside "
                        "the %" PRIu64 "-byte section", i, s->size);
      t->types[i].name = bytes + e.name_offset;
      t->types[i].name_length = e.name_length;
    }
  return DUMPER_OK;
}

/* Record that an object of TYPE lies in SECTION; false when its type is
   unknown or has objects in the other section too (a type has a trace
   function or not: HOT or COLD, never both; byte blocks are COLD).  */
static bool
type_section_ok (struct insp_tables *t, uint32_t type, uint8_t section)
{
  if (type == PDUMP_TYPE_BYTES)
    return section == PDUMP_SECTION_COLD;
  if (type >= t->type_count)
    return false;
  if (t->types[type].section == 0)
    t->types[type].section = section;
  return t->types[type].section == section;
}

static enum dumper_status
parse_objects (const struct insp_image *image, struct insp_tables *t,
               char *detail, size_t detail_size)
{
  const struct pdump_view *v = &image->view;
  const struct pdump_section *index = &v->sections[PDUMP_SECTION_OBJECTS];
  const struct pdump_section *hot = &v->sections[PDUMP_SECTION_HOT];
  const struct pdump_section *cold = &v->sections[PDUMP_SECTION_COLD];
  uint64_t total = v->header.object_count;

  /* pdump_check_header: hot->count <= total.  */
  if (index->count != hot->count)
    return corrupt (image, detail, detail_size, "OBJECTS counts %" PRIu64
                    " HOT objects, the section table %" PRIu64,
                    index->count, hot->count);
  if (total - hot->count != cold->count)
    return corrupt (image, detail, detail_size, "the header counts %" PRIu64
                    " objects, HOT and COLD %" PRIu64,
                    total, hot->count + cold->count);
  /* Each entry takes at least two bytes: a bound before allocating.  */
  if (total > index->size / 2)
    return corrupt (image, detail, detail_size, "OBJECTS is %" PRIu64
                    " bytes, too small for %" PRIu64 " objects",
                    index->size, total);
  t->hot_count = hot->count;
  t->object_count = total;
  t->objects = malloc ((size_t) (total ? total : 1) * sizeof *t->objects);
  if (t->objects == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, image->path,
                      "out of memory for %" PRIu64 " objects", total);

  const unsigned char *p = insp_section_bytes (image, PDUMP_SECTION_OBJECTS);
  const unsigned char *end = p + index->size;
  const struct pdump_section *in[2] = { hot, cold };
  uint64_t i = 0;
  for (int pass = 0; pass < 2; pass++)
    {
      const struct pdump_section *s = in[pass];
      uint64_t section_end = s->offset + s->size;
      uint64_t position = s->offset;
      for (uint64_t last = i + s->count; i < last; i++)
        {
          uint64_t type, size;
          if (!pdump_read_uleb (&p, end, &type)
              || !pdump_read_uleb (&p, end, &size))
            return corrupt (image, detail, detail_size, "OBJECTS: entry %"
                            PRIu64 " of %" PRIu64 " is cut off or overflows",
                            i, total);
          if (type > PDUMP_TYPE_BYTES
              || !type_section_ok (t, (uint32_t) type, (uint8_t) s->kind))
            return corrupt (image, detail, detail_size, "OBJECTS: object %"
                            PRIu64 " has type %" PRIu64 ", unknown or in the "
                            "wrong section", i, type);
          uint64_t align = type == PDUMP_TYPE_BYTES ? PDUMP_ALIGN : t->align;
          uint64_t offset = (position + align - 1) & ~(align - 1);
          if (size == 0 || offset > section_end || size > section_end - offset)
            return corrupt (image, detail, detail_size, "OBJECTS: object %"
                            PRIu64 " (%" PRIu64 " bytes) does not fit in %s",
                            i, size, pdump_section_name (s->kind));
          t->objects[i] = (struct insp_object) { offset, size, (uint32_t) type };
          if (type == PDUMP_TYPE_BYTES)
            t->block_count++;
          position = offset + size;
        }
      if (position != section_end)
        return corrupt (image, detail, detail_size, "the %s objects end at "
                        "offset %" PRIu64 ", the section at %" PRIu64,
                        pdump_section_name (s->kind), position, section_end);
    }
  if (p != end)
    return corrupt (image, detail, detail_size, "OBJECTS has %zu bytes after "
                    "its %" PRIu64 " entries", (size_t) (end - p), total);
  return DUMPER_OK;
}

enum dumper_status
insp_tables_parse (const struct insp_image *image, struct insp_tables *t,
                   char *detail, size_t detail_size)
{
  memset (t, 0, sizeof *t);
  t->align = (uint64_t) 1 << image->view.header.tag_bits;
  if (t->align < PDUMP_ALIGN)
    t->align = PDUMP_ALIGN;
  enum dumper_status status = parse_types (image, t, detail, detail_size);
  if (status == DUMPER_OK)
    status = parse_objects (image, t, detail, detail_size);
  return status;
}

enum dumper_status
insp_tables_decode (const struct insp_image *image, struct insp_tables *t,
                    char *detail, size_t detail_size)
{
  memset (t, 0, sizeof *t);
  static const enum pdump_section_kind kinds[] = {
    PDUMP_SECTION_TYPES, PDUMP_SECTION_OBJECTS
  };
  for (size_t i = 0; i < 2; i++)
    {
      char message[INSP_DETAIL_SIZE];
      if (pdump_check_section_sum (&image->view, kinds[i],
                                   insp_section_bytes (image, kinds[i]),
                                   image->path, message, sizeof message)
          != DUMPER_OK)
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size,
                          image->path, "checksum mismatch in section %s "
                          "(an inspection-only table, which the loader does "
                          "not read)", pdump_section_name (kinds[i]));
    }
  return insp_tables_parse (image, t, detail, detail_size);
}

void
insp_tables_free (struct insp_tables *t)
{
  free (t->types);
  free (t->objects);
  memset (t, 0, sizeof *t);
}

size_t
insp_upper_bound (const void *array, size_t stride, size_t lo, size_t hi,
                  uint64_t key)
{
  const unsigned char *base = array;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      uint64_t mid_key;
      memcpy (&mid_key, base + mid * stride, sizeof mid_key);
      if (mid_key <= key)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

_Static_assert (offsetof (struct insp_object, offset) == 0,
                "insp_upper_bound keys on the first member");

uint64_t
insp_object_before (const struct insp_tables *t, uint64_t first,
                    uint64_t limit, uint64_t offset)
{
  size_t after = insp_upper_bound (t->objects, sizeof *t->objects,
                                   (size_t) first, (size_t) limit, offset);
  return after == first ? INSP_NONE : after - 1;
}

uint64_t
insp_object_containing (const struct insp_tables *t, uint64_t first,
                        uint64_t limit, uint64_t offset)
{
  uint64_t i = insp_object_before (t, first, limit, offset);
  if (i == INSP_NONE || offset - t->objects[i].offset >= t->objects[i].size)
    return INSP_NONE;
  return i;
}

const unsigned char *
insp_type_name (const struct insp_tables *t, uint32_t type, size_t *length)
{
  static const unsigned char unknown[] = "(?)";
  if (type == PDUMP_TYPE_BYTES)
    {
      *length = sizeof bytes_name - 1;
      return bytes_name;
    }
  if (type >= t->type_count)
    {
      *length = sizeof unknown - 1;
      return unknown;
    }
  *length = t->types[type].name_length;
  return t->types[type].name;
}

int64_t
insp_type_lookup (const struct insp_tables *t, const char *name)
{
  size_t length = strlen (name);
  if (length == sizeof bytes_name - 1 && memcmp (name, bytes_name, length) == 0)
    return PDUMP_TYPE_BYTES;
  for (uint32_t i = 0; i < t->type_count; i++)
    if (t->types[i].name_length == length
        && memcmp (t->types[i].name, name, length) == 0)
      return i;
  return -1;
}
