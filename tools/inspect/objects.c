/* SPDX-License-Identifier: MIT */
/* tools/inspect/objects.c: --objects [--type NAME], every object of the
   image (or of one type) in image order: file offset, section, type and
   size.  The offsets are what --refs takes.  Also how every view shows
   one object.  */

#include <config.h>

#include <inttypes.h>

#include "inspect.h"

static const char *
section_of (const struct insp_tables *t, uint64_t index)
{
  return pdump_section_name (index < t->hot_count ? PDUMP_SECTION_HOT
                                                 : PDUMP_SECTION_COLD);
}

void
insp_put_object (const struct insp_ctx *ctx, uint64_t index)
{
  const struct insp_object *o = &ctx->tables->objects[index];
  size_t length;
  const unsigned char *name = insp_type_name (ctx->tables, o->type, &length);
  fprintf (ctx->out, "0x%08" PRIx64 " ", o->offset);
  insp_put_name (ctx->out, name, length);
}

void
insp_put_object_row (const struct insp_ctx *ctx, uint64_t index,
                     bool with_section)
{
  const struct insp_object *o = &ctx->tables->objects[index];
  size_t length;
  const unsigned char *name = insp_type_name (ctx->tables, o->type, &length);
  fprintf (ctx->out, "  0x%08" PRIx64 "  ", o->offset);
  if (with_section)
    fprintf (ctx->out, "%-7s  ", section_of (ctx->tables, index));
  insp_put_padded_name (ctx->out, name, length, 20);
  /* A sized block's size is its length, which only its referrers
     knew: said so, on its rows only.  */
  fprintf (ctx->out, " %12" PRIu64 "%s\n", o->size,
           insp_owner_sized (ctx->tables, o->type) ? "  owner-sized" : "");
}

void
insp_json_object (const struct insp_ctx *ctx, struct insp_json *json,
                  const char *key, uint64_t index)
{
  const struct insp_object *o = &ctx->tables->objects[index];
  size_t length;
  const unsigned char *name = insp_type_name (ctx->tables, o->type, &length);
  insp_json_open (json, key, '{');
  insp_json_uint (json, "offset", o->offset);
  insp_json_string (json, "section", section_of (ctx->tables, index));
  insp_json_bytes (json, "type", name, length);
  insp_json_uint (json, "size", o->size);
  if (insp_owner_sized (ctx->tables, o->type))
    insp_json_bool (json, "owner_sized", true);
  insp_json_close (json, '}');
}

static bool
selected (const struct insp_object *o, int64_t type)
{
  return type < 0 || o->type == (uint64_t) type;
}

enum dumper_status
insp_view_objects (const struct insp_ctx *ctx, int64_t type)
{
  const struct insp_tables *t = ctx->tables;
  uint64_t count = 0;
  for (uint64_t i = 0; i < t->object_count; i++)
    count += selected (&t->objects[i], type);
  size_t length = 0;
  const unsigned char *name = type >= 0
    ? insp_type_name (t, (uint32_t) type, &length) : NULL;

  struct insp_json j;
  if (ctx->json)
    {
      insp_json_start (&j, ctx->out);
      insp_json_open (&j, NULL, '{');
      insp_json_string (&j, "image", ctx->image->path);
      if (name)
        insp_json_bytes (&j, "type", name, length);
      else
        insp_json_null (&j, "type");
      insp_json_uint (&j, "count", count);
      insp_json_open (&j, "objects", '[');
    }
  else
    {
      fprintf (ctx->out, "Objects of %s: %" PRIu64, ctx->image->path, count);
      if (name)
        {
          fputs (" of type ", ctx->out);
          insp_put_name (ctx->out, name, length);
        }
      fprintf (ctx->out, "\n  %10s  %-7s  %-20s %12s\n", "offset", "section",
               "type", "bytes");
    }
  for (uint64_t i = 0; i < t->object_count; i++)
    if (selected (&t->objects[i], type))
      {
        if (ctx->json)
          insp_json_object (ctx, &j, NULL, i);
        else
          insp_put_object_row (ctx, i, true);
      }
  if (ctx->json)
    {
      insp_json_close (&j, ']');
      insp_json_close (&j, '}');
      insp_json_finish (&j);
    }
  return DUMPER_OK;
}
