/* SPDX-License-Identifier: MIT */
/* tools/inspect/exerefs.c: the image's references into the executable,
   named by the --exe binary's symbols, and the registry.

   Two kinds of words hold executable offsets: the HOT words RELOC_EXE
   lists, and registry values of kind PDUMP_VALUE_EXE.  Each stored value
   is the target's offset from the load bias plus the host's tag; the low
   tag_bits bits are shown as the tag, because objects that tagged words
   point at are aligned to 1 << tag_bits (a raw pointer to unaligned data,
   a string say, shows its low bits as a "tag").  References are grouped
   by target symbol, then by exact target and tag, with the types of the
   objects they come from; targets on no symbol are listed apart.  All
   in address order.

   Then the code pointers (RELOC_CODE): each HOT word's object and the
   declaration its code word names in the --exe binary's declaration
   table (format.h, PDUMP_CODE_WORD): a DUMPER_DECLARE_CODE function,
   or a code table and element index, and the function's symbol.  */

#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

#define FROM_REGISTRY UINT32_MAX     /* a registry record, not an object */
#define HINT_SIZE 64

struct ref
{
  uint64_t address;         /* untagged */
  uint32_t tag;
  uint32_t from_type;       /* type index, PDUMP_TYPE_BYTES or FROM_REGISTRY */
};

/* One distinct target: [first, first + count) of the sorted refs.  */
struct target
{
  uint64_t address;
  uint32_t tag;
  uint64_t first, count;
  struct insp_symbol_ref symbol;
  char hint[HINT_SIZE];     /* "" when none */
};

struct insp_exerefs
{
  struct ref *refs;
  uint64_t ref_count, from_hot, from_registry;
  struct target *targets;
  uint64_t target_count;
  uint64_t symbol_count;    /* distinct symbols among the targets */
  uint64_t unnamed_count;   /* targets on no symbol */
};

static int
compare_refs (const void *a, const void *b)
{
  const struct ref *x = a, *y = b;
  if (x->address != y->address)
    return (x->address > y->address) - (x->address < y->address);
  if (x->tag != y->tag)
    return (x->tag > y->tag) - (x->tag < y->tag);
  return (x->from_type > y->from_type) - (x->from_type < y->from_type);
}

static bool
same_symbol (const struct insp_symbol_ref *a, const struct insp_symbol_ref *b)
{
  return a->name && b->name && a->start == b->start && strcmp (a->name, b->name) == 0;
}

/* Targets listed under one heading: one symbol's, or all adjacent ones
   on no symbol.  */
static bool
same_group (const struct insp_symbol_ref *a, const struct insp_symbol_ref *b)
{
  return (a->name == NULL && b->name == NULL) || same_symbol (a, b);
}

enum dumper_status
insp_exerefs_gather (const struct insp_ctx *ctx, struct insp_exerefs **out,
                     char *detail, size_t detail_size)
{
  const struct insp_graph *g = ctx->graph;
  uint64_t tag_mask = ((uint64_t) 1 << ctx->image->view.header.tag_bits) - 1;
  struct insp_exerefs *x = calloc (1, sizeof *x);
  *out = x;
  if (x == NULL
      || !(x->refs = malloc ((size_t) (g->exe_ref_count + g->record_count + 1)
                             * sizeof *x->refs)))
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, ctx->image->path,
                      "out of memory for the executable references");
  for (uint64_t i = 0; i < g->exe_ref_count; i++)
    {
      uint64_t value = g->exe_refs[i].value;
      x->refs[x->ref_count++] = (struct ref) {
        value & ~tag_mask, (uint32_t) (value & tag_mask),
        ctx->tables->objects[g->exe_refs[i].from].type
      };
    }
  x->from_hot = x->ref_count;
  for (uint64_t i = 0; i < g->record_count; i++)
    if (g->records[i].raw.value_kind == PDUMP_VALUE_EXE
        && g->records[i].raw.kind != DUMPER_DECL_SCALAR
        && g->records[i].raw.kind != DUMPER_DECL_HOOK)
      {
        uint64_t value = g->records[i].raw.value;
        x->refs[x->ref_count++] = (struct ref) {
          value & ~tag_mask, (uint32_t) (value & tag_mask), FROM_REGISTRY
        };
      }
  x->from_registry = x->ref_count - x->from_hot;
  qsort (x->refs, x->ref_count, sizeof *x->refs, compare_refs);

  x->targets = malloc ((size_t) (x->ref_count + 1) * sizeof *x->targets);
  if (x->targets == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, ctx->image->path,
                      "out of memory for the executable references");
  for (uint64_t i = 0; i < x->ref_count; i++)
    {
      const struct ref *r = &x->refs[i];
      struct target *last = x->target_count ? &x->targets[x->target_count - 1] : NULL;
      if (last && last->address == r->address && last->tag == r->tag)
        {
          last->count++;
          continue;
        }
      struct target *t = &x->targets[x->target_count++];
      memset (t, 0, sizeof *t);
      t->address = r->address;
      t->tag = r->tag;
      t->first = i;
      t->count = 1;
      t->symbol = insp_symbols_lookup (ctx->exe->symbols, r->address);
      if (!insp_symbols_hint (ctx->exe->symbols, r->address, t->hint, sizeof t->hint))
        t->hint[0] = '\0';
      if (t->symbol.name == NULL)
        x->unnamed_count++;
      else if (!last || !same_symbol (&last->symbol, &t->symbol))
        x->symbol_count++;
    }
  return DUMPER_OK;
}

void
insp_exerefs_free (struct insp_exerefs *x)
{
  if (x == NULL)
    return;
  free (x->refs);
  free (x->targets);
  free (x);
}

/* ------------------------------------------------------------------ */
/* Names.  */

void
insp_put_exe_address (FILE *out, const struct insp_exe *exe, uint64_t address)
{
  struct insp_symbol_ref s = insp_symbols_lookup (exe ? exe->symbols : NULL,
                                                  address);
  if (s.name)
    fprintf (out, "%s+0x%" PRIx64, s.name, address - s.start);
  else
    fprintf (out, "exe+0x%" PRIx64, address);
}

void
insp_json_exe_address (struct insp_json *json, const char *key,
                       const struct insp_exe *exe, uint64_t address)
{
  struct insp_symbol_ref s = insp_symbols_lookup (exe ? exe->symbols : NULL,
                                                  address);
  insp_json_open (json, key, '{');
  insp_json_uint (json, "address", address);
  if (s.name)
    {
      insp_json_string (json, "symbol", s.name);
      insp_json_uint (json, "offset", address - s.start);
    }
  else
    {
      insp_json_null (json, "symbol");
      insp_json_null (json, "offset");
    }
  insp_json_close (json, '}');
}

const char *
insp_record_kind_name (unsigned kind)
{
  switch (kind)
    {
    case DUMPER_DECL_ROOT: return "root";
    case DUMPER_DECL_WORD: return "word";
    case DUMPER_DECL_PTR: return "ptr";
    case DUMPER_DECL_SCALAR: return "scalar";
    case DUMPER_DECL_HOOK: return "hook";
    default: return "?";
    }
}

/* The types the references of target T come from, each once, in type
   order (the refs are sorted by type within a target).  */
static void
put_from_types (const struct insp_ctx *ctx, const struct insp_exerefs *x,
                const struct target *t, struct insp_json *json)
{
  uint32_t previous = 0;
  bool first = true;
  for (uint64_t i = t->first; i < t->first + t->count; i++)
    {
      uint32_t type = x->refs[i].from_type;
      if (!first && type == previous)
        continue;
      size_t length = sizeof "(registry)" - 1;
      const unsigned char *name = (const unsigned char *) "(registry)";
      if (type != FROM_REGISTRY)
        name = insp_type_name (ctx->tables, type, &length);
      if (json)
        insp_json_bytes (json, NULL, name, length);
      else
        {
          fputs (first ? "" : ", ", ctx->out);
          insp_put_name (ctx->out, name, length);
        }
      previous = type;
      first = false;
    }
}

/* ------------------------------------------------------------------ */
/* Text.  */

static void
text_target (const struct insp_ctx *ctx, const struct insp_exerefs *x,
             const struct target *t)
{
  FILE *out = ctx->out;
  fprintf (out, "    %8" PRIu64 "  ", t->count);
  insp_put_exe_address (out, ctx->exe, t->address);
  if (t->hint[0])
    fprintf (out, " (\"%s\")", t->hint);
  fprintf (out, "  tag %u  from ", t->tag);
  put_from_types (ctx, x, t, NULL);
  fputc ('\n', out);
}

static void
text_registry (const struct insp_ctx *ctx)
{
  FILE *out = ctx->out;
  const struct insp_graph *g = ctx->graph;
  fprintf (out, "\nRegistry: %" PRIu64 " records, in registration order\n",
           g->record_count);
  for (uint64_t i = 0; i < g->record_count; i++)
    {
      const struct insp_record *r = &g->records[i];
      fprintf (out, "  %6" PRIu64 "  %-6s  ", i, insp_record_kind_name (r->raw.kind));
      insp_put_exe_address (out, ctx->exe, r->raw.exe_offset);
      if (r->raw.kind == DUMPER_DECL_SCALAR)
        fprintf (out, "  %" PRIu64 " bytes", r->raw.size);
      else if (r->raw.kind != DUMPER_DECL_HOOK)
        switch (r->target != INSP_NONE ? PDUMP_VALUE_IMAGE
                : r->raw.value_kind == PDUMP_VALUE_EXE ? PDUMP_VALUE_EXE
                : PDUMP_VALUE_IMMEDIATE)
          {
          case PDUMP_VALUE_IMAGE:
            fputs ("  -> ", out);
            insp_put_object (ctx, r->target);
            fprintf (out, " (tag %u)", r->tag);
            break;
          case PDUMP_VALUE_EXE:
            fputs ("  -> ", out);
            insp_put_exe_address (out, ctx->exe, r->raw.value);
            break;
          default:
            fprintf (out, "  = 0x%" PRIx64 " (immediate)", r->raw.value);
          }
      fputc ('\n', out);
    }
}

/* ------------------------------------------------------------------ */
/* Code pointers.  */

/* What RELOC_CODE entry I names: its HOT word, the object holding it,
   and the target in --exe's declaration table.  */
struct code_ref
{
  uint32_t word;
  uint64_t offset;          /* file offset of the word */
  uint64_t object;          /* INSP_NONE when outside every object */
  uint64_t decl, element;   /* as the code word says */
  const struct dumper_decl *d;   /* NULL: not a code target of --exe */
  uint64_t function;        /* link-time address; 0 when unknown */
};

static uint64_t
code_count (const struct insp_ctx *ctx)
{
  const struct pdump_section *cs
    = &ctx->image->view.sections[PDUMP_SECTION_RELOC_CODE];
  return cs->count < cs->size / 4 ? cs->count : cs->size / 4;
}

/* False when the entry's word lies outside HOT (a damaged image).  */
static bool
code_ref_at (const struct insp_ctx *ctx, uint64_t i, struct code_ref *c)
{
  const struct pdump_view *v = &ctx->image->view;
  const struct pdump_section *hs = &v->sections[PDUMP_SECTION_HOT];
  memset (c, 0, sizeof *c);
  memcpy (&c->word, insp_section_bytes (ctx->image, PDUMP_SECTION_RELOC_CODE)
                    + i * 4, 4);
  if (c->word >= hs->size / PDUMP_WORD_SIZE)
    return false;
  pdump_word code;
  memcpy (&code, insp_section_bytes (ctx->image, PDUMP_SECTION_HOT)
                 + c->word * PDUMP_WORD_SIZE, sizeof code);
  c->offset = hs->offset + c->word * PDUMP_WORD_SIZE;
  c->object = insp_object_containing (ctx->tables, 0, ctx->tables->hot_count,
                                      c->offset);
  c->decl = PDUMP_CODE_DECL (code);
  c->element = PDUMP_CODE_ELEMENT (code);
  const struct insp_exe *exe = ctx->exe;
  if (exe == NULL || exe->decls == NULL || c->decl >= exe->decl_count)
    return true;
  const struct dumper_decl *d = &exe->decls[c->decl];
  if (d->kind == DUMPER_DECL_CODE && c->element == 0)
    {
      c->d = d;
      c->function = (uintptr_t) d->fn;
    }
  else if (d->kind == DUMPER_DECL_CODE_TABLE && d->stride
           && c->element < d->size / d->stride)
    {
      /* d->addr is exefile.c's copy of the array.  */
      void (*fn) (void);
      memcpy (&fn, (const unsigned char *) d->addr + c->element * d->stride
                   + (size_t) d->type, sizeof fn);
      c->d = d;
      c->function = (uintptr_t) fn;
    }
  return true;
}

static void
text_code (const struct insp_ctx *ctx)
{
  FILE *out = ctx->out;
  uint64_t count = code_count (ctx);
  fprintf (out, "\nCode pointers: %" PRIu64 " (RELOC_CODE), in HOT order\n",
           count);
  for (uint64_t i = 0; i < count; i++)
    {
      struct code_ref c;
      if (!code_ref_at (ctx, i, &c))
        {
          fprintf (out, "  word %u: outside HOT\n", c.word);
          continue;
        }
      fprintf (out, "  0x%08" PRIx64 "  in ", c.offset);
      if (c.object != INSP_NONE)
        insp_put_object (ctx, c.object);
      else
        fputs ("(no object)", out);
      const char *name = c.d && c.d->name ? c.d->name : "?";
      if (c.d == NULL)
        fprintf (out, "  declaration %" PRIu64 " element %" PRIu64 ": not a "
                 "code target of %s\n", c.decl, c.element, ctx->exe->path);
      else
        {
          if (c.d->kind == DUMPER_DECL_CODE)
            fprintf (out, "  code %s (declaration %" PRIu64 ")", name, c.decl);
          else
            fprintf (out, "  code table %s (declaration %" PRIu64 ") element %"
                     PRIu64, name, c.decl, c.element);
          fputs (" -> ", out);
          if (c.function)
            insp_put_exe_address (out, ctx->exe, c.function);
          else
            fputs ("NULL", out);
          fputc ('\n', out);
        }
    }
}

static void
json_code (const struct insp_ctx *ctx, struct insp_json *j)
{
  insp_json_open (j, "code_pointers", '[');
  for (uint64_t i = 0, count = code_count (ctx); i < count; i++)
    {
      struct code_ref c;
      bool in_hot = code_ref_at (ctx, i, &c);
      insp_json_open (j, NULL, '{');
      insp_json_uint (j, "word", c.word);
      if (in_hot)
        {
          insp_json_uint (j, "offset", c.offset);
          if (c.object != INSP_NONE)
            insp_json_object (ctx, j, "object", c.object);
          else
            insp_json_null (j, "object");
          insp_json_uint (j, "declaration", c.decl);
          insp_json_uint (j, "element", c.element);
          if (c.d == NULL)
            insp_json_null (j, "kind");
          else
            insp_json_string (j, "kind", c.d->kind == DUMPER_DECL_CODE
                                         ? "code" : "code table");
          if (c.d && c.d->name)
            insp_json_string (j, "name", c.d->name);
          else
            insp_json_null (j, "name");
          if (c.function)
            insp_json_exe_address (j, "function", ctx->exe, c.function);
          else
            insp_json_null (j, "function");
        }
      insp_json_close (j, '}');
    }
  insp_json_close (j, ']');
}

void
insp_exerefs_text (const struct insp_ctx *ctx, const struct insp_exerefs *x)
{
  FILE *out = ctx->out;
  fprintf (out, "\nExecutable references: %" PRIu64 " (%" PRIu64 " from HOT, %"
           PRIu64 " from the registry), %" PRIu64 " targets in %" PRIu64
           " symbol%s, %" PRIu64 " on no symbol\n", x->ref_count, x->from_hot,
           x->from_registry, x->target_count, x->symbol_count,
           x->symbol_count == 1 ? "" : "s", x->unnamed_count);
  if (insp_symbols_count (ctx->exe->symbols) == 0)
    fprintf (out, "  (%s has no symbols: every target is on no symbol)\n",
             ctx->exe->path);
  for (uint64_t i = 0; i < x->target_count;)
    {
      const struct target *t = &x->targets[i];
      uint64_t end = i + 1, total = t->count;
      while (end < x->target_count
             && same_group (&t->symbol, &x->targets[end].symbol))
        total += x->targets[end++].count;
      if (t->symbol.name)
        fprintf (out, "  %s  %" PRIu64 " references\n", t->symbol.name, total);
      else
        fprintf (out, "  (no symbol)  %" PRIu64 " references\n", total);
      for (; i < end; i++)
        text_target (ctx, x, &x->targets[i]);
    }
  text_registry (ctx);
  text_code (ctx);
}

/* ------------------------------------------------------------------ */
/* JSON.  */

static void
json_target (const struct insp_ctx *ctx, const struct insp_exerefs *x,
             const struct target *t, struct insp_json *j)
{
  insp_json_open (j, NULL, '{');
  insp_json_exe_address (j, "target", ctx->exe, t->address);
  insp_json_uint (j, "tag", t->tag);
  insp_json_uint (j, "references", t->count);
  if (t->hint[0])
    insp_json_string (j, "hint", t->hint);
  else
    insp_json_null (j, "hint");
  insp_json_open (j, "from", '[');
  put_from_types (ctx, x, t, j);
  insp_json_close (j, ']');
  insp_json_close (j, '}');
}

static void
json_registry (const struct insp_ctx *ctx, struct insp_json *j)
{
  const struct insp_graph *g = ctx->graph;
  insp_json_open (j, "registry_records", '[');
  for (uint64_t i = 0; i < g->record_count; i++)
    {
      const struct insp_record *r = &g->records[i];
      insp_json_open (j, NULL, '{');
      insp_json_uint (j, "index", i);
      insp_json_string (j, "kind", insp_record_kind_name (r->raw.kind));
      insp_json_exe_address (j, "static", ctx->exe, r->raw.exe_offset);
      insp_json_uint (j, "size", r->raw.size);
      if (r->raw.kind == DUMPER_DECL_SCALAR || r->raw.kind == DUMPER_DECL_HOOK)
        insp_json_null (j, "value");
      else if (r->target != INSP_NONE)
        {
          insp_json_open (j, "value", '{');
          insp_json_string (j, "kind", "image");
          insp_json_object (ctx, j, "target", r->target);
          insp_json_uint (j, "tag", r->tag);
          insp_json_close (j, '}');
        }
      else if (r->raw.value_kind == PDUMP_VALUE_EXE)
        {
          insp_json_open (j, "value", '{');
          insp_json_string (j, "kind", "executable");
          insp_json_exe_address (j, "target", ctx->exe, r->raw.value);
          insp_json_close (j, '}');
        }
      else
        {
          insp_json_open (j, "value", '{');
          insp_json_string (j, "kind", "immediate");
          insp_json_uint (j, "word", r->raw.value);
          insp_json_close (j, '}');
        }
      insp_json_close (j, '}');
    }
  insp_json_close (j, ']');
}

void
insp_exerefs_json (const struct insp_ctx *ctx, const struct insp_exerefs *x,
                   struct insp_json *j)
{
  insp_json_open (j, "executable_references", '{');
  insp_json_uint (j, "total", x->ref_count);
  insp_json_uint (j, "from_hot", x->from_hot);
  insp_json_uint (j, "from_registry", x->from_registry);
  insp_json_open (j, "symbols", '[');
  for (uint64_t i = 0; i < x->target_count;)
    {
      const struct target *t = &x->targets[i];
      if (t->symbol.name == NULL)
        {
          i++;
          continue;
        }
      uint64_t end = i + 1, total = t->count;
      while (end < x->target_count && same_symbol (&t->symbol, &x->targets[end].symbol))
        total += x->targets[end++].count;
      insp_json_open (j, NULL, '{');
      insp_json_string (j, "symbol", t->symbol.name);
      insp_json_uint (j, "address", t->symbol.start);
      insp_json_uint (j, "references", total);
      insp_json_open (j, "targets", '[');
      for (; i < end; i++)
        json_target (ctx, x, &x->targets[i], j);
      insp_json_close (j, ']');
      insp_json_close (j, '}');
    }
  insp_json_close (j, ']');
  insp_json_open (j, "no_symbol", '[');
  for (uint64_t i = 0; i < x->target_count; i++)
    if (x->targets[i].symbol.name == NULL)
      json_target (ctx, x, &x->targets[i], j);
  insp_json_close (j, ']');
  insp_json_close (j, '}');
  json_registry (ctx, j);
  json_code (ctx, j);
}
