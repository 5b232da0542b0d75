/* SPDX-License-Identifier: MIT */
/* tools/inspect/refs.c: --refs OFFSET, one object and its neighbours.

   For the object containing OFFSET: what it points to (each relocated
   word, by field), what points at it (objects and registry records),
   and why it is in the image at all: a shortest chain of references
   from a registry record to it, found breadth-first with the records in
   registration order and each object's fields in order, so the chain is
   the same on every run.  */

#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

#define VIA_RECORD (UINT64_C (1) << 63)

/* A step of the chain: the record or edge through which an object was
   first reached.  */
struct chain
{
  uint64_t *via;            /* per object: edge index, VIA_RECORD | record,
                               or INSP_NONE */
  uint64_t *steps;          /* the chain, target first */
  uint64_t step_count;
  bool found;
};

/* " (tag N)", or for an interior pointer " (interior, +N bytes into
   it)", and the line's end.  */
static void
put_edge_kind (const struct insp_ctx *ctx, const struct insp_edge *edge)
{
  if (edge->into)
    fprintf (ctx->out, " (interior, +%" PRIu64 " bytes into it)\n",
             edge->into);
  else
    fprintf (ctx->out, " (tag %u)\n", edge->tag);
}

static bool
find_chain (const struct insp_ctx *ctx, uint64_t target, struct chain *c)
{
  const struct insp_graph *g = ctx->graph;
  uint64_t n = ctx->tables->object_count;
  memset (c, 0, sizeof *c);
  c->via = malloc ((size_t) (n ? n : 1) * sizeof *c->via);
  uint64_t *queue = malloc ((size_t) (n ? n : 1) * sizeof *queue);
  c->steps = malloc ((size_t) (n ? n : 1) * sizeof *c->steps);
  if (c->via == NULL || queue == NULL || c->steps == NULL)
    {
      free (queue);
      return false;
    }
  for (uint64_t i = 0; i < n; i++)
    c->via[i] = INSP_NONE;
  uint64_t head = 0, tail = 0;
  for (uint64_t r = 0; r < g->record_count; r++)
    {
      uint64_t o = g->records[r].target;
      if (o != INSP_NONE && c->via[o] == INSP_NONE)
        {
          c->via[o] = VIA_RECORD | r;
          queue[tail++] = o;
        }
    }
  while (head < tail && c->via[target] == INSP_NONE)
    {
      uint64_t o = queue[head++];
      for (uint64_t e = g->first_edge[o]; e < g->first_edge[o + 1]; e++)
        {
          uint64_t to = g->edges[e].to;
          if (c->via[to] == INSP_NONE)
            {
              c->via[to] = e;
              queue[tail++] = to;
            }
        }
    }
  free (queue);
  c->found = c->via[target] != INSP_NONE;
  for (uint64_t o = target; c->found && c->step_count < n;)
    {
      c->steps[c->step_count++] = o;
      if (c->via[o] & VIA_RECORD)
        break;
      o = g->edges[c->via[o]].from;
    }
  return true;
}

static void
free_chain (struct chain *c)
{
  free (c->via);
  free (c->steps);
}

/* ------------------------------------------------------------------ */
/* Pieces of output.  */

static void
put_record (const struct insp_ctx *ctx, uint64_t r)
{
  const struct insp_record *rec = &ctx->graph->records[r];
  fprintf (ctx->out, "registry %" PRIu64 " (%s ", r,
           insp_record_kind_name (rec->raw.kind));
  insp_put_exe_address (ctx->out, ctx->exe, rec->raw.exe_offset);
  fputc (')', ctx->out);
}

static void
json_record (const struct insp_ctx *ctx, struct insp_json *j, uint64_t r)
{
  const struct insp_record *rec = &ctx->graph->records[r];
  insp_json_open (j, NULL, '{');
  insp_json_string (j, "kind", "registry");
  insp_json_uint (j, "index", r);
  insp_json_string (j, "record", insp_record_kind_name (rec->raw.kind));
  insp_json_exe_address (j, "static", ctx->exe, rec->raw.exe_offset);
  insp_json_uint (j, "tag", rec->tag);
  insp_json_close (j, '}');
}

/* The executable references of object INDEX, in list order (which is
   field order in a checked image).  */
static uint64_t
next_exe_ref (const struct insp_graph *g, uint64_t index, uint64_t from)
{
  while (from < g->exe_ref_count && g->exe_refs[from].from != index)
    from++;
  return from;
}

static void
points_to (const struct insp_ctx *ctx, uint64_t index, struct insp_json *j)
{
  const struct insp_graph *g = ctx->graph;
  uint64_t tag_mask = ((uint64_t) 1 << ctx->image->view.header.tag_bits) - 1;
  uint64_t e = g->first_edge[index], e_end = g->first_edge[index + 1];
  uint64_t x = next_exe_ref (g, index, 0);
  if (j)
    insp_json_open (j, "points_to", '[');
  else
    {
      uint64_t exe_count = 0;
      for (uint64_t i = x; i < g->exe_ref_count; i = next_exe_ref (g, index, i + 1))
        exe_count++;
      fprintf (ctx->out, "\nPoints to: %" PRIu64 " in the image, %" PRIu64
               " in the executable\n", e_end - e, exe_count);
    }
  while (e < e_end || x < g->exe_ref_count)
    {
      bool image = x >= g->exe_ref_count
                   || (e < e_end && g->edges[e].field <= g->exe_refs[x].field);
      if (image)
        {
          const struct insp_edge *edge = &g->edges[e++];
          if (j)
            {
              insp_json_open (j, NULL, '{');
              insp_json_uint (j, "field", edge->field);
              insp_json_string (j, "kind", "image");
              insp_json_object (ctx, j, "target", edge->to);
              insp_json_uint (j, "tag", edge->tag);
              if (edge->into)
                insp_json_uint (j, "interior", edge->into);
              insp_json_close (j, '}');
            }
          else
            {
              fprintf (ctx->out, "  %+8" PRId64 "  ", (int64_t) edge->field);
              insp_put_object (ctx, edge->to);
              put_edge_kind (ctx, edge);
            }
          continue;
        }
      const struct insp_exe_ref *ref = &g->exe_refs[x];
      x = next_exe_ref (g, index, x + 1);
      uint64_t address = ref->value & ~tag_mask;
      char hint[64];
      bool has_hint = ctx->exe && insp_symbols_hint (ctx->exe->symbols, address,
                                                     hint, sizeof hint);
      if (j)
        {
          insp_json_open (j, NULL, '{');
          insp_json_uint (j, "field", ref->field);
          insp_json_string (j, "kind", "executable");
          insp_json_exe_address (j, "target", ctx->exe, address);
          insp_json_uint (j, "tag", (uint32_t) (ref->value & tag_mask));
          if (has_hint)
            insp_json_string (j, "hint", hint);
          else
            insp_json_null (j, "hint");
          insp_json_close (j, '}');
        }
      else
        {
          fprintf (ctx->out, "  %+8" PRId64 "  ", (int64_t) ref->field);
          insp_put_exe_address (ctx->out, ctx->exe, address);
          if (has_hint)
            fprintf (ctx->out, " (\"%s\")", hint);
          fprintf (ctx->out, " (tag %u, in the executable)\n",
                   (unsigned) (ref->value & tag_mask));
        }
    }
  if (j)
    insp_json_close (j, ']');
}

static void
pointed_at_by (const struct insp_ctx *ctx, uint64_t index, struct insp_json *j)
{
  const struct insp_graph *g = ctx->graph;
  if (j)
    insp_json_open (j, "pointed_at_by", '[');
  else
    fprintf (ctx->out, "\nPointed at by\n");
  for (uint64_t r = 0; r < g->record_count; r++)
    if (g->records[r].target == index)
      {
        if (j)
          json_record (ctx, j, r);
        else
          {
            fputs ("  ", ctx->out);
            put_record (ctx, r);
            fprintf (ctx->out, " (tag %u)\n", g->records[r].tag);
          }
      }
  for (uint64_t e = 0; e < g->edge_count; e++)
    if (g->edges[e].to == index)
      {
        const struct insp_edge *edge = &g->edges[e];
        if (j)
          {
            insp_json_open (j, NULL, '{');
            insp_json_string (j, "kind", "object");
            insp_json_object (ctx, j, "object", edge->from);
            insp_json_uint (j, "field", edge->field);
            insp_json_uint (j, "tag", edge->tag);
            if (edge->into)
              insp_json_uint (j, "interior", edge->into);
            insp_json_close (j, '}');
          }
        else
          {
            fputs ("  ", ctx->out);
            insp_put_object (ctx, edge->from);
            fprintf (ctx->out, " field %+" PRId64, (int64_t) edge->field);
            put_edge_kind (ctx, edge);
          }
      }
  if (j)
    insp_json_close (j, ']');
}

static void
kept_by (const struct insp_ctx *ctx, const struct chain *c, struct insp_json *j)
{
  const struct insp_graph *g = ctx->graph;
  if (!c->found)
    {
      if (j)
        insp_json_null (j, "kept_by");
      else
        fprintf (ctx->out, "\nKept by: nothing (no registry record reaches "
                 "it)\n");
      return;
    }
  if (j)
    insp_json_open (j, "kept_by", '[');
  else
    fprintf (ctx->out, "\nKept by (a shortest chain from the registry)\n  ");
  uint64_t root = c->steps[c->step_count - 1];
  if (j)
    json_record (ctx, j, c->via[root] & ~VIA_RECORD);
  else
    put_record (ctx, c->via[root] & ~VIA_RECORD);
  for (uint64_t s = c->step_count; s-- > 0;)
    {
      uint64_t o = c->steps[s];
      bool by_record = c->via[o] & VIA_RECORD;
      if (j)
        {
          insp_json_open (j, NULL, '{');
          insp_json_string (j, "kind", "object");
          insp_json_object (ctx, j, "object", o);
          if (by_record)
            insp_json_null (j, "field");
          else
            insp_json_uint (j, "field", g->edges[c->via[o]].field);
          insp_json_close (j, '}');
        }
      else
        {
          if (by_record)
            fputs ("\n  -> ", ctx->out);
          else
            fprintf (ctx->out, "\n  -> field %+" PRId64 " -> ",
                     (int64_t) g->edges[c->via[o]].field);
          insp_put_object (ctx, o);
        }
    }
  if (j)
    insp_json_close (j, ']');
  else
    fputc ('\n', ctx->out);
}

enum dumper_status
insp_view_refs (const struct insp_ctx *ctx, uint64_t offset, char *detail,
                size_t detail_size)
{
  const struct insp_tables *t = ctx->tables;
  uint64_t index = insp_object_containing (t, 0, t->object_count, offset);
  if (index == INSP_NONE)
    return pdump_check_fail (DUMPER_E_USAGE, detail, detail_size, ctx->image->path,
                      "no object contains offset 0x%" PRIx64 " (%" PRIu64
                      "); --objects lists them", offset, offset);
  struct chain c;
  if (!find_chain (ctx, index, &c))
    {
      free_chain (&c);
      return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, ctx->image->path,
                        "out of memory");
    }
  const struct insp_object *o = &t->objects[index];
  if (ctx->json)
    {
      struct insp_json j;
      insp_json_start (&j, ctx->out);
      insp_json_open (&j, NULL, '{');
      insp_json_string (&j, "image", ctx->image->path);
      insp_json_uint (&j, "query", offset);
      insp_json_object (ctx, &j, "object", index);
      points_to (ctx, index, &j);
      pointed_at_by (ctx, index, &j);
      kept_by (ctx, &c, &j);
      insp_json_close (&j, '}');
      insp_json_finish (&j);
    }
  else
    {
      fputs ("Object ", ctx->out);
      insp_put_object (ctx, index);
      fprintf (ctx->out, ", %" PRIu64 " bytes in %s", o->size,
               index < t->hot_count ? "HOT" : "COLD (pointer-free)");
      if (offset != o->offset)
        fprintf (ctx->out, "; offset 0x%" PRIx64 " is %" PRIu64
                 " bytes into it", offset, offset - o->offset);
      fputc ('\n', ctx->out);
      points_to (ctx, index, NULL);
      pointed_at_by (ctx, index, NULL);
      kept_by (ctx, &c, NULL);
    }
  free_chain (&c);
  return DUMPER_OK;
}
