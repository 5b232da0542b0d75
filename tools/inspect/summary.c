/* SPDX-License-Identifier: MIT */
/* tools/inspect/summary.c: the default view, "what is in this image".

   The header; the section table with each section's purpose and share
   of the file; objects and bytes per host type; relocation counts by
   kind; registry counts; the ten largest objects.  With --exe the
   executable references and the registry, named by symbol, follow
   (exerefs.c).  Every list has a fixed order (by size, then by name or
   offset), so two runs on the same image print the same bytes.  */

#include <config.h>

#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"
#include "pdump/codec.h"

#define LARGEST 10

static const char *const purposes[PDUMP_SECTION_KIND_MAX + 1] = {
  [PDUMP_SECTION_HOT] = "objects with pointers, relocated at load",
  [PDUMP_SECTION_COLD] = "pointer-free objects and byte blocks, never written",
  [PDUMP_SECTION_RELOC_IMAGE] = "bitmap of HOT words pointing into the image",
  [PDUMP_SECTION_RELOC_EXE] = "HOT words pointing into the executable",
  [PDUMP_SECTION_REGISTRY] = "roots, remembered statics, hooks",
  [PDUMP_SECTION_SCALAR_DATA] = "bytes of remembered scalars",
  [PDUMP_SECTION_TYPES] = "host type names (inspection only)",
  [PDUMP_SECTION_OBJECTS] = "object index (inspection only)",
  [PDUMP_SECTION_RELOC_CODE] = "HOT words holding code pointers (declared targets)",
};

static double
share (uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

/* ------------------------------------------------------------------ */
/* Figures.  */

struct type_row
{
  uint32_t type;            /* index or PDUMP_TYPE_BYTES */
  unsigned section;
  uint64_t count, bytes;
  const unsigned char *name;
  size_t name_length;
};

struct figures
{
  struct type_row *rows;    /* types with objects, sorted */
  size_t row_count;
  uint64_t object_bytes;
  uint64_t largest[LARGEST];  /* object indexes */
  size_t largest_count;
  uint64_t header_bytes, padding_bytes;
  uint64_t records[DUMPER_DECL_HOOK + 1];
  uint64_t values[PDUMP_VALUE_EXE + 1];
  uint64_t scalar_bytes;
  uint64_t sized_count, sized_bytes;   /* objects of owner-sized types */
};

static int
compare_rows (const void *a, const void *b)
{
  const struct type_row *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes < y->bytes ? 1 : -1;
  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  size_t common = x->name_length < y->name_length ? x->name_length
                                                  : y->name_length;
  int c = memcmp (x->name, y->name, common);
  if (c != 0)
    return c;
  if (x->name_length != y->name_length)
    return x->name_length < y->name_length ? -1 : 1;
  return (x->type > y->type) - (x->type < y->type);
}

/* True if object A is larger than B (ties: the earlier first).  */
static bool
larger (const struct insp_tables *t, uint64_t a, uint64_t b)
{
  if (t->objects[a].size != t->objects[b].size)
    return t->objects[a].size > t->objects[b].size;
  return a < b;
}

static void
note_largest (struct figures *f, const struct insp_tables *t, uint64_t i)
{
  if (f->largest_count == LARGEST && !larger (t, i, f->largest[LARGEST - 1]))
    return;
  size_t at = f->largest_count < LARGEST ? f->largest_count++ : LARGEST - 1;
  while (at > 0 && larger (t, i, f->largest[at - 1]))
    {
      f->largest[at] = f->largest[at - 1];
      at--;
    }
  f->largest[at] = i;
}

static bool
gather (const struct insp_ctx *ctx, struct figures *f)
{
  const struct insp_tables *t = ctx->tables;
  const struct pdump_view *v = &ctx->image->view;
  memset (f, 0, sizeof *f);
  /* One row per type index, plus byte blocks at the end.  */
  struct type_row *all = calloc ((size_t) t->type_count + 1, sizeof *all);
  if (all == NULL)
    return false;
  for (uint32_t i = 0; i <= t->type_count; i++)
    {
      all[i].type = i < t->type_count ? i : PDUMP_TYPE_BYTES;
      all[i].name = insp_type_name (t, all[i].type, &all[i].name_length);
    }
  for (uint64_t i = 0; i < t->object_count; i++)
    {
      const struct insp_object *o = &t->objects[i];
      struct type_row *r = &all[o->type == PDUMP_TYPE_BYTES ? t->type_count : o->type];
      r->section = i < t->hot_count ? PDUMP_SECTION_HOT : PDUMP_SECTION_COLD;
      r->count++;
      r->bytes += o->size;
      f->object_bytes += o->size;
      if (o->type < t->type_count && t->types[o->type].owner_sized)
        {
          f->sized_count++;
          f->sized_bytes += o->size;
        }
      note_largest (f, t, i);
    }
  for (uint32_t i = 0; i <= t->type_count; i++)
    if (all[i].count)
      all[f->row_count++] = all[i];
  qsort (all, f->row_count, sizeof *all, compare_rows);
  f->rows = all;

  f->header_bytes = sizeof (struct pdump_header)
                    + v->header.section_count * sizeof (struct pdump_section);
  uint64_t used = f->header_bytes;
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    used += v->sections[k].size;
  f->padding_bytes = ctx->image->size - used;

  const struct insp_graph *g = ctx->graph;
  for (uint64_t i = 0; i < g->record_count; i++)
    {
      const struct pdump_record *r = &g->records[i].raw;
      if (r->kind <= DUMPER_DECL_HOOK)
        f->records[r->kind]++;
      if (r->value_kind <= PDUMP_VALUE_EXE)
        f->values[r->value_kind]++;
      if (r->kind == DUMPER_DECL_SCALAR)
        f->scalar_bytes += r->size;
    }
  return true;
}

/* ------------------------------------------------------------------ */
/* Text.  */

static void
text_header (const struct insp_ctx *ctx)
{
  FILE *out = ctx->out;
  const struct pdump_header *h = &ctx->image->view.header;
  char fingerprint[2 * DUMPER_FINGERPRINT_SIZE + 1];
  insp_hex (fingerprint, h->fingerprint, sizeof h->fingerprint);
  fprintf (out, "Image %s\n", ctx->image->path);
  fprintf (out, "  format       pdump version %u, %u-byte words, %s-endian, "
           "%s (ELF machine %u)\n", h->format_version, h->word_size,
           h->byte_order == PDUMP_BYTE_ORDER_BIG ? "big" : "little",
           pdump_machine_name (h->machine), h->machine);
  fprintf (out, "  file size    %" PRIu64 " bytes, page size %" PRIu64
           ", tag bits %u\n", h->file_size, h->page_size, h->tag_bits);
  if (ctx->image->view.compressed)
    fprintf (out, "  compressed   %" PRIu64 " bytes in memory, %.3fx; "
             "frames of %" PRIu64 " bytes\n", h->image_size,
             h->image_size ? (double) h->file_size / (double) h->image_size : 0,
             h->frame_size);
  fprintf (out, "  base         preferred 0x%" PRIx64 "%s\n", h->preferred_base,
           h->preferred_base ? "" : " (none: always relocated)");
  if (ctx->image->embedded)
    fprintf (out, "  embedded     section %s at file offset %" PRIu64 "\n",
             PDUMP_EMBED_SECTION, ctx->image->embed_offset);
  fprintf (out, "  fingerprint  %s\n", fingerprint);
  if (ctx->exe)
    {
      if (ctx->exe->has_fingerprint)
        {
          insp_hex (fingerprint, ctx->exe->fingerprint, sizeof ctx->exe->fingerprint);
          fprintf (out, "  executable   %s: %s (%s), %s\n", ctx->exe->path,
                   fingerprint, ctx->exe->fingerprint_source,
                   ctx->fingerprint_matches ? "matches the image"
                   : "DOES NOT MATCH the image (another build)");
        }
      else
        fprintf (out, "  executable   %s: no fingerprint (neither a dumper "
                 "note nor a GNU build-id); cannot tell if it matches\n",
                 ctx->exe->path);
    }
}

static void
text_sections (const struct insp_ctx *ctx, const struct figures *f)
{
  FILE *out = ctx->out;
  const struct pdump_view *v = &ctx->image->view;
  uint64_t size = ctx->image->size;
  fprintf (out, "\nSections\n  %-12s %10s %10s %8s %7s  %s\n", "section",
           "offset", "size", "count", "share", "purpose");
  fprintf (out, "  %-12s %10d %10" PRIu64 " %8s %6.2f%%  %s\n", "(header)", 0,
           f->header_bytes, "-", share (f->header_bytes, size),
           "header and section table");
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      const struct pdump_section *s = &v->sections[k];
      fprintf (out, "  %-12s %10" PRIu64 " %10" PRIu64 " %8" PRIu64
               " %6.2f%%  %s\n", pdump_section_name (k), s->offset, s->size,
               s->count, share (s->size, size), purposes[k]);
    }
  fprintf (out, "  %-12s %10s %10" PRIu64 " %8s %6.2f%%  %s\n", "(padding)",
           "-", f->padding_bytes, "-", share (f->padding_bytes, size),
           "alignment to pages and words");

  fprintf (out, "\nStorage\n  %-12s %-6s %12s %12s %7s\n", "section", "codec",
           "size", "stored", "ratio");
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    {
      const struct pdump_section *s = &v->sections[k];
      fprintf (out, "  %-12s %-6s %12" PRIu64 " %12" PRIu64 " %7.3f\n",
               pdump_section_name (k), pdump_codec_name (s->codec), s->size,
               s->stored_size,
               s->size ? (double) s->stored_size / (double) s->size : 1.0);
    }
}

static void
text_types (const struct insp_ctx *ctx, const struct figures *f)
{
  FILE *out = ctx->out;
  const struct insp_tables *t = ctx->tables;
  fprintf (out, "\nObjects: %" PRIu64 " (%" PRIu64 " typed, %" PRIu64
           " byte blocks), %" PRIu64 " bytes; %" PRIu64 " in HOT, %" PRIu64
           " in COLD\n", t->object_count, t->object_count - t->block_count,
           t->block_count, f->object_bytes, t->hot_count,
           t->object_count - t->hot_count);
  fprintf (out, "  %-20s %-7s %10s %12s %7s\n", "type", "section", "objects",
           "bytes", "share");
  for (size_t i = 0; i < f->row_count; i++)
    {
      const struct type_row *r = &f->rows[i];
      fputs ("  ", out);
      insp_put_padded_name (out, r->name, r->name_length, 20);
      fprintf (out, " %-7s %10" PRIu64 " %12" PRIu64 " %6.2f%%%s\n",
               pdump_section_name (r->section), r->count, r->bytes,
               share (r->bytes, f->object_bytes),
               insp_owner_sized (t, r->type) ? "  owner-sized" : "");
    }
  /* Only for images that have them (format version 5), so the summary
     of others reads as before.  */
  if (f->sized_count)
    fprintf (out, "  owner-sized blocks: %" PRIu64 " (%" PRIu64 " bytes), "
             "each as long as its referrers say (dumper_trace_sized)\n",
             f->sized_count, f->sized_bytes);
}

static void
text_counts (const struct insp_ctx *ctx, const struct figures *f)
{
  FILE *out = ctx->out;
  const struct insp_image *image = ctx->image;
  fprintf (out, "\nRelocations\n");
  fprintf (out, "  image        %10" PRIu64 "  HOT words pointing into the "
           "image\n", image->image_relocs);
  fprintf (out, "  executable   %10" PRIu64 "  HOT words pointing into the "
           "executable\n", image->exe_relocs);
  if (image->view.header.interior_count)
    fprintf (out, "  interior     %10" PRIu64 "  of them interior pointers "
             "(inside an object or one past its end; %" PRIu64 " resolved "
             "beyond a tag's reach)\n", image->view.header.interior_count,
             ctx->graph->interior_edge_count);
  fprintf (out, "\nRegistry: %" PRIu64 " records\n", ctx->graph->record_count);
  fprintf (out, "  roots %" PRIu64 ", remembered words %" PRIu64
           ", remembered pointers %" PRIu64 ", remembered scalars %" PRIu64
           " (%" PRIu64 " bytes), after-load hooks %" PRIu64 "\n",
           f->records[DUMPER_DECL_ROOT], f->records[DUMPER_DECL_WORD],
           f->records[DUMPER_DECL_PTR], f->records[DUMPER_DECL_SCALAR],
           f->scalar_bytes, f->records[DUMPER_DECL_HOOK]);
  fprintf (out, "  values: %" PRIu64 " into the image, %" PRIu64
           " into the executable, %" PRIu64 " immediate\n",
           f->values[PDUMP_VALUE_IMAGE], f->values[PDUMP_VALUE_EXE],
           f->values[PDUMP_VALUE_IMMEDIATE]);
}

static void
text_largest (const struct insp_ctx *ctx, const struct figures *f)
{
  FILE *out = ctx->out;
  fprintf (out, "\nLargest objects\n  %10s  %-20s %12s\n", "offset", "type",
           "bytes");
  for (size_t i = 0; i < f->largest_count; i++)
    insp_put_object_row (ctx, f->largest[i], false);
}


/* ------------------------------------------------------------------ */
/* JSON.  */

static void
json_header (const struct insp_ctx *ctx, struct insp_json *j)
{
  const struct pdump_header *h = &ctx->image->view.header;
  char hex[2 * DUMPER_FINGERPRINT_SIZE + 1];
  insp_json_open (j, "header", '{');
  insp_hex (hex, h->magic, sizeof h->magic);
  insp_json_string (j, "magic", hex);
  insp_json_uint (j, "format_version", h->format_version);
  insp_json_uint (j, "word_size", h->word_size);
  insp_json_string (j, "byte_order",
                    h->byte_order == PDUMP_BYTE_ORDER_BIG ? "big" : "little");
  insp_json_string (j, "machine", pdump_machine_name (h->machine));
  insp_json_uint (j, "machine_code", h->machine);
  insp_json_uint (j, "file_size", h->file_size);
  insp_json_uint (j, "page_size", h->page_size);
  insp_json_uint (j, "image_size", h->image_size);
  insp_json_uint (j, "frame_size", h->frame_size);
  insp_json_uint (j, "preferred_base", h->preferred_base);
  insp_json_bool (j, "embedded", ctx->image->embedded);
  insp_json_uint (j, "tag_bits", h->tag_bits);
  insp_json_uint (j, "type_count", h->type_count);
  insp_json_uint (j, "object_count", h->object_count);
  insp_hex (hex, h->fingerprint, sizeof h->fingerprint);
  insp_json_string (j, "fingerprint", hex);
  insp_json_close (j, '}');
  if (ctx->exe)
    {
      insp_json_open (j, "executable", '{');
      insp_json_string (j, "path", ctx->exe->path);
      if (ctx->exe->has_fingerprint)
        {
          insp_hex (hex, ctx->exe->fingerprint, sizeof ctx->exe->fingerprint);
          insp_json_string (j, "fingerprint", hex);
          insp_json_string (j, "fingerprint_source", ctx->exe->fingerprint_source);
          insp_json_bool (j, "fingerprint_matches", ctx->fingerprint_matches);
        }
      else
        {
          insp_json_null (j, "fingerprint");
          insp_json_null (j, "fingerprint_source");
          insp_json_null (j, "fingerprint_matches");
        }
      insp_json_uint (j, "symbols", insp_symbols_count (ctx->exe->symbols));
      insp_json_close (j, '}');
    }
}

static void
json_section (struct insp_json *j, const char *name, uint64_t offset,
              uint64_t size, const uint64_t *count, uint64_t file_size,
              const char *purpose, const struct pdump_section *stored)
{
  insp_json_open (j, NULL, '{');
  insp_json_string (j, "name", name);
  insp_json_uint (j, "offset", offset);
  insp_json_uint (j, "size", size);
  if (count)
    insp_json_uint (j, "count", *count);
  else
    insp_json_null (j, "count");
  insp_json_percent (j, "share", share (size, file_size));
  insp_json_string (j, "purpose", purpose);
  if (stored)
    {
      insp_json_string (j, "codec", pdump_codec_name (stored->codec));
      insp_json_uint (j, "stored_size", stored->stored_size);
    }
  insp_json_close (j, '}');
}

static void
json_sections (const struct insp_ctx *ctx, const struct figures *f,
               struct insp_json *j)
{
  const struct pdump_view *v = &ctx->image->view;
  uint64_t size = ctx->image->size;
  insp_json_open (j, "sections", '[');
  json_section (j, "(header)", 0, f->header_bytes, NULL, size,
                "header and section table", NULL);
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    json_section (j, pdump_section_name (k), v->sections[k].offset,
                  v->sections[k].size, &v->sections[k].count, size, purposes[k],
                  &v->sections[k]);
  json_section (j, "(padding)", 0, f->padding_bytes, NULL, size,
                "alignment to pages and words", NULL);
  insp_json_close (j, ']');
}

static void
json_objects (const struct insp_ctx *ctx, const struct figures *f,
              struct insp_json *j)
{
  const struct insp_tables *t = ctx->tables;
  insp_json_open (j, "objects", '{');
  insp_json_uint (j, "count", t->object_count);
  insp_json_uint (j, "typed", t->object_count - t->block_count);
  insp_json_uint (j, "byte_blocks", t->block_count);
  insp_json_uint (j, "hot", t->hot_count);
  insp_json_uint (j, "cold", t->object_count - t->hot_count);
  insp_json_uint (j, "bytes", f->object_bytes);
  insp_json_uint (j, "owner_sized", f->sized_count);
  insp_json_uint (j, "owner_sized_bytes", f->sized_bytes);
  insp_json_close (j, '}');
  insp_json_open (j, "types", '[');
  for (size_t i = 0; i < f->row_count; i++)
    {
      const struct type_row *r = &f->rows[i];
      insp_json_open (j, NULL, '{');
      insp_json_bytes (j, "type", r->name, r->name_length);
      if (r->type == PDUMP_TYPE_BYTES)
        insp_json_null (j, "index");
      else
        insp_json_uint (j, "index", r->type);
      insp_json_string (j, "section", pdump_section_name (r->section));
      insp_json_bool (j, "owner_sized", insp_owner_sized (t, r->type));
      insp_json_uint (j, "count", r->count);
      insp_json_uint (j, "bytes", r->bytes);
      insp_json_percent (j, "share", share (r->bytes, f->object_bytes));
      insp_json_close (j, '}');
    }
  insp_json_close (j, ']');
}

static void
json_counts (const struct insp_ctx *ctx, const struct figures *f,
             struct insp_json *j)
{
  insp_json_open (j, "relocations", '{');
  insp_json_uint (j, "image", ctx->image->image_relocs);
  insp_json_uint (j, "executable", ctx->image->exe_relocs);
  insp_json_uint (j, "interior", ctx->image->view.header.interior_count);
  insp_json_close (j, '}');
  insp_json_open (j, "registry", '{');
  insp_json_uint (j, "records", ctx->graph->record_count);
  insp_json_uint (j, "roots", f->records[DUMPER_DECL_ROOT]);
  insp_json_uint (j, "words", f->records[DUMPER_DECL_WORD]);
  insp_json_uint (j, "pointers", f->records[DUMPER_DECL_PTR]);
  insp_json_uint (j, "scalars", f->records[DUMPER_DECL_SCALAR]);
  insp_json_uint (j, "scalar_bytes", f->scalar_bytes);
  insp_json_uint (j, "hooks", f->records[DUMPER_DECL_HOOK]);
  insp_json_uint (j, "image_values", f->values[PDUMP_VALUE_IMAGE]);
  insp_json_uint (j, "executable_values", f->values[PDUMP_VALUE_EXE]);
  insp_json_uint (j, "immediate_values", f->values[PDUMP_VALUE_IMMEDIATE]);
  insp_json_close (j, '}');
  insp_json_open (j, "largest_objects", '[');
  for (size_t i = 0; i < f->largest_count; i++)
    insp_json_object (ctx, j, NULL, f->largest[i]);
  insp_json_close (j, ']');
}

/* ------------------------------------------------------------------ */

enum dumper_status
insp_view_summary (const struct insp_ctx *ctx, char *detail,
                   size_t detail_size)
{
  struct figures f;
  if (!gather (ctx, &f))
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, ctx->image->path,
                      "out of memory");
  struct insp_exerefs *exerefs = NULL;
  if (ctx->exe)
    {
      enum dumper_status status = insp_exerefs_gather (ctx, &exerefs, detail,
                                                       detail_size);
      if (status != DUMPER_OK)
        {
          insp_exerefs_free (exerefs);
          free (f.rows);
          return status;
        }
    }
  if (ctx->json)
    {
      struct insp_json j;
      insp_json_start (&j, ctx->out);
      insp_json_open (&j, NULL, '{');
      insp_json_string (&j, "image", ctx->image->path);
      json_header (ctx, &j);
      json_sections (ctx, &f, &j);
      json_objects (ctx, &f, &j);
      json_counts (ctx, &f, &j);
      if (exerefs)
        insp_exerefs_json (ctx, exerefs, &j);
      insp_json_close (&j, '}');
      insp_json_finish (&j);
    }
  else
    {
      text_header (ctx);
      text_sections (ctx, &f);
      text_types (ctx, &f);
      text_counts (ctx, &f);
      text_largest (ctx, &f);
      if (exerefs)
        insp_exerefs_text (ctx, exerefs);
    }
  insp_exerefs_free (exerefs);
  free (f.rows);
  return DUMPER_OK;
}
