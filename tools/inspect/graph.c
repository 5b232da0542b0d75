/* SPDX-License-Identifier: MIT */
/* tools/inspect/graph.c: who points at whom.

   The image records no fields, only words: RELOC_IMAGE marks the HOT
   words that hold an image value (a target's file offset plus its tag),
   RELOC_EXE lists those that hold an executable offset, and REGISTRY
   holds the statics' values.  With the object index (tables.c) each
   such word becomes an edge from an object and a field offset to a
   target object and a tag.  The edges come out sorted by source object
   and field, because the bitmap and the list are in HOT order and the
   objects are too; first_edge indexes them by source (CSR).

   Every word must lie inside a HOT object, and every image value must
   be an object's offset plus a tag below 1 << tag_bits, or (an interior
   pointer, format version 5, as many as the header's interior_count
   at most) lie further inside an object or one past its end: otherwise the OBJECTS table does not describe this image,
   and the views that need it refuse it as corrupt.  The loader proves the same words point into
   the object sections; this is the finer, per-object test it does not
   need.  */

#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "inspect.h"

static enum dumper_status
disagree (const struct insp_image *image, char *detail, size_t detail_size,
          const char *what, uint64_t where, uint64_t value)
{
  return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, image->path,
                    "the OBJECTS table (inspection only; the loader does not "
                    "read it) disagrees with the image: %s %" PRIu64 " (value "
                    "0x%" PRIx64 ")", what, where, value);
}

/* The object whose offset plus a tag is VALUE, or INSP_NONE.  With
   INTO, also an object that VALUE lies further inside of, or one past
   the end of (an interior pointer: *INTO says how far).  */
static uint64_t
resolve (const struct insp_image *image, const struct insp_tables *t,
         uint64_t value, uint32_t *tag, uint64_t *into)
{
  uint64_t i = insp_object_before (t, 0, t->object_count, value);
  if (i == INSP_NONE)
    return INSP_NONE;
  uint64_t delta = value - t->objects[i].offset;
  *tag = 0;
  if (delta < ((uint64_t) 1 << image->view.header.tag_bits))
    *tag = (uint32_t) delta;
  else if (into && delta <= t->objects[i].size)
    *into = delta;
  else
    return INSP_NONE;
  return i;
}

/* The HOT object holding HOT word WORD, or INSP_NONE.  */
static uint64_t
source_of (const struct insp_image *image, const struct insp_tables *t,
           uint64_t word, uint64_t *field)
{
  uint64_t at = image->view.sections[PDUMP_SECTION_HOT].offset
                + word * PDUMP_WORD_SIZE;
  uint64_t i = insp_object_containing (t, 0, t->hot_count, at);
  if (i == INSP_NONE || t->objects[i].size - (at - t->objects[i].offset) < PDUMP_WORD_SIZE)
    return INSP_NONE;
  *field = at - t->objects[i].offset;
  return i;
}

/* COUNT zeroed elements of SIZE bytes (at least one), or NULL with the
   failure in DETAIL.  */
static void *
allocate (const struct insp_image *image, uint64_t count, size_t size,
          const char *what, char *detail, size_t detail_size)
{
  void *p = calloc ((size_t) (count ? count : 1), size);
  if (p == NULL)
    pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, image->path,
               "out of memory for %" PRIu64 " %s", count, what);
  return p;
}

static uint64_t
hot_word (const struct insp_image *image, uint64_t word)
{
  pdump_word value;
  memcpy (&value, insp_section_bytes (image, PDUMP_SECTION_HOT)
                  + word * PDUMP_WORD_SIZE, sizeof value);
  return value;
}

static enum dumper_status
build_edges (const struct insp_image *image, const struct insp_tables *t,
             struct insp_graph *g, char *detail, size_t detail_size)
{
  const unsigned char *bitmap = insp_section_bytes (image, PDUMP_SECTION_RELOC_IMAGE);
  uint64_t hot_words = image->view.sections[PDUMP_SECTION_HOT].size
                       / PDUMP_WORD_SIZE;
  /* pdump_check_header: the bitmap has exactly this many words.  */
  uint64_t bitmap_words = (hot_words + 63) / 64;
  uint64_t count = 0;
  for (uint64_t b = 0; b < bitmap_words; b++)
    {
      uint64_t bits;
      memcpy (&bits, bitmap + b * 8, 8);
      count += (uint64_t) common_popcount64 (bits);
    }
  g->edges = allocate (image, count, sizeof *g->edges, "references", detail,
                       detail_size);
  g->first_edge = allocate (image, t->object_count + 1, sizeof *g->first_edge,
                            "objects", detail, detail_size);
  if (g->edges == NULL || g->first_edge == NULL)
    return DUMPER_E_NOMEM;
  uint64_t interior_count = image->view.header.interior_count;
  for (uint64_t b = 0; b < bitmap_words; b++)
    {
      uint64_t bits;
      memcpy (&bits, bitmap + b * 8, 8);
      for (; bits; bits &= bits - 1)
        {
          uint64_t w = b * 64 + (uint64_t) __builtin_ctzll (bits);
          struct insp_edge *e = &g->edges[g->edge_count];
          uint64_t value = w < hot_words ? hot_word (image, w) : 0;
          if (w >= hot_words
              || (e->from = source_of (image, t, w, &e->field)) == INSP_NONE)
            return disagree (image, detail, detail_size,
                             "no object holds relocated HOT word", w, value);
          /* HOT words hold addresses at the preferred base.  */
          e->into = 0;
          e->to = resolve (image, t, value - image->view.header.preferred_base,
                           &e->tag,
                           g->interior_edge_count < interior_count
                           ? &e->into : NULL);
          if (e->to == INSP_NONE)
            return disagree (image, detail, detail_size,
                             "no object is the target of HOT word", w, value);
          g->interior_edge_count += e->into > 0;
          g->first_edge[e->from + 1]++;
          g->edge_count++;
        }
    }
  for (uint64_t i = 0; i < t->object_count; i++)
    g->first_edge[i + 1] += g->first_edge[i];
  return DUMPER_OK;
}

static enum dumper_status
build_exe_refs (const struct insp_image *image, const struct insp_tables *t,
                struct insp_graph *g, char *detail, size_t detail_size)
{
  const struct pdump_section *s = &image->view.sections[PDUMP_SECTION_RELOC_EXE];
  const unsigned char *list = insp_section_bytes (image, PDUMP_SECTION_RELOC_EXE);
  uint64_t hot_words = image->view.sections[PDUMP_SECTION_HOT].size
                       / PDUMP_WORD_SIZE;
  /* pdump_check_header: size == count * 4, count <= HOT words.  */
  g->exe_refs = allocate (image, s->count, sizeof *g->exe_refs,
                          "executable references", detail, detail_size);
  if (g->exe_refs == NULL)
    return DUMPER_E_NOMEM;
  for (uint64_t i = 0; i < s->count; i++)
    {
      uint32_t w;
      memcpy (&w, list + i * 4, 4);
      struct insp_exe_ref *r = &g->exe_refs[i];
      if (w >= hot_words
          || (r->from = source_of (image, t, w, &r->field)) == INSP_NONE)
        return disagree (image, detail, detail_size,
                         "no object holds executable-relocated HOT word", w,
                         w < hot_words ? hot_word (image, w) : 0);
      r->value = hot_word (image, w);
      g->exe_ref_count++;
    }
  return DUMPER_OK;
}

static enum dumper_status
build_records (const struct insp_image *image, const struct insp_tables *t,
               struct insp_graph *g, char *detail, size_t detail_size)
{
  const struct pdump_section *s = &image->view.sections[PDUMP_SECTION_REGISTRY];
  const unsigned char *bytes = insp_section_bytes (image, PDUMP_SECTION_REGISTRY);
  /* pdump_check_header: size == count * sizeof (struct pdump_record).  */
  g->records = allocate (image, s->count, sizeof *g->records,
                         "registry records", detail, detail_size);
  if (g->records == NULL)
    return DUMPER_E_NOMEM;
  for (uint64_t i = 0; i < s->count; i++)
    {
      struct insp_record *r = &g->records[i];
      memcpy (&r->raw, bytes + i * sizeof r->raw, sizeof r->raw);
      r->target = INSP_NONE;
      bool word = r->raw.kind == DUMPER_DECL_ROOT || r->raw.kind == DUMPER_DECL_WORD
                  || r->raw.kind == DUMPER_DECL_PTR;
      if (word && r->raw.value_kind == PDUMP_VALUE_IMAGE)
        {
          r->target = resolve (image, t, r->raw.value, &r->tag, NULL);
          if (r->target == INSP_NONE)
            return disagree (image, detail, detail_size,
                             "no object is the target of registry record", i,
                             r->raw.value);
        }
      g->record_count++;
    }
  return DUMPER_OK;
}

enum dumper_status
insp_graph_build (const struct insp_image *image,
                  const struct insp_tables *tables, struct insp_graph *graph,
                  char *detail, size_t detail_size)
{
  memset (graph, 0, sizeof *graph);
  enum dumper_status status = build_edges (image, tables, graph, detail,
                                           detail_size);
  if (status == DUMPER_OK)
    status = build_exe_refs (image, tables, graph, detail, detail_size);
  if (status == DUMPER_OK)
    status = build_records (image, tables, graph, detail, detail_size);
  return status;
}

void
insp_graph_free (struct insp_graph *graph)
{
  free (graph->edges);
  free (graph->first_edge);
  free (graph->exe_refs);
  free (graph->records);
  memset (graph, 0, sizeof *graph);
}
