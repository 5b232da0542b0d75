/* SPDX-License-Identifier: MIT */
/* host/types.c: the description of dlisp's heap for libdumper (heap.h).

   Owns: the type table (name, size, trace, fixup per type), the tag
   table, and freeing the blocks an object owns.  The trace functions
   here are the only place that knows where an object's pointers are;
   the GC's mark phase (host/gc.c), the digest walk (host/digest.c) and
   the pdump writer all call them, so they can never disagree.

   Invariants: each trace function reports every pointer field of its
   type exactly once; a field it does not report never holds an address
   in an image (the hash table fixup clears the `eq' index).  Floats,
   hash indexes and builtins hold no heap pointers (trace NULL);
   builtins live in the executable and are never allocated.  */

#include <config.h>

#include <stdlib.h>

#include "lisp.h"

/* Every size function first checks the object's header: a header whose
   type disagrees with the type the object is described as (a damaged or
   crafted image) gives size 0, which no object has, so the loader's
   structural verification refuses the image (86) rather than handing
   the collector and the digest an object they would abort on.  */
static size_t
checked (const void *obj, enum dl_type type, size_t size)
{
  return ((const struct dl_header *) obj)->type == (uint32_t) type ? size : 0;
}

/* HEAD bytes and COUNT elements of ELEMENT bytes each, or 0 (refused,
   as above) when a crafted COUNT would make the product or the sum wrap
   around to a small size that the object index could then match.  */
static size_t
checked_array (const void *obj, enum dl_type type, size_t head,
               uint64_t count, size_t element)
{
  if (count > (SIZE_MAX - head) / element)
    return 0;
  return checked (obj, type, head + (size_t) count * element);
}

static size_t
cons_size (const void *obj)
{
  return checked (obj, DL_T_CONS, sizeof (struct dl_cons));
}

static void
cons_trace (const void *obj, struct dumper_tracer *t)
{
  const struct dl_cons *c = obj;
  dumper_trace_word (t, &c->car);
  dumper_trace_word (t, &c->cdr);
}

static size_t
symbol_size (const void *obj)
{
  return checked (obj, DL_T_SYMBOL, sizeof (struct dl_symbol));
}

static void
symbol_trace (const void *obj, struct dumper_tracer *t)
{
  const struct dl_symbol *s = obj;
  dumper_trace_word (t, &s->name);
  dumper_trace_word (t, &s->value);
  dumper_trace_word (t, &s->function);
  dumper_trace_word (t, &s->plist);
}

/* A string without data has no bytes: NULL data with a nonzero length
   is malformed (the digest and the printer would read the length's
   worth of bytes from "").  Refused like a bad header.  */
static size_t
string_size (const void *obj)
{
  const struct dl_string *s = obj;
  if (s->data == NULL && s->nbytes != 0)
    return 0;
  return checked (obj, DL_T_STRING, sizeof (struct dl_string));
}

/* Data blocks are NUL-terminated, nbytes + 1 bytes; an empty string has
   none.  A length with no room for the NUL (a crafted nbytes of 2^64-1,
   whose + 1 would wrap to 0, an empty block) is reported as SIZE_MAX,
   which no block has room for: the verifier refuses it.  */
size_t
dl_string_block_bytes (const struct dl_string *s)
{
  if (s->data == NULL)
    return 0;
  return s->nbytes < SIZE_MAX ? (size_t) s->nbytes + 1 : SIZE_MAX;
}

static void
string_trace (const void *obj, struct dumper_tracer *t)
{
  const struct dl_string *s = obj;
  dumper_trace_bytes (t, (void *const *) &s->data, dl_string_block_bytes (s));
}

static size_t
float_size (const void *obj)
{
  return checked (obj, DL_T_FLOAT, sizeof (struct dl_float));
}

static size_t
vector_size (const void *obj)
{
  const struct dl_vector *v = obj;
  return checked_array (obj, DL_T_VECTOR, sizeof *v, v->size, sizeof (dl_obj));
}

static void
vector_trace (const void *obj, struct dumper_tracer *t)
{
  const struct dl_vector *v = obj;
  for (uint64_t i = 0; i < v->size; i++)
    dumper_trace_word (t, &v->items[i]);
}

static size_t
hash_size (const void *obj)
{
  return checked (obj, DL_T_HASH, sizeof (struct dl_hash));
}

/* The `equal' index is a pure function of the keys' contents, so it is
   saved.  The `eq' index hashes addresses: it is not reported, and
   hash_fixup removes it from the image copy.  */
static void
hash_trace (const void *obj, struct dumper_tracer *t)
{
  const struct dl_hash *h = obj;
  dumper_trace_word (t, &h->entries);
  dumper_trace_code (t, &h->hash_fn);
  if (h->test == DL_HASH_EQUAL)
    dumper_trace_ptr (t, (void *const *) &h->index, DL_T_HASH_INDEX);
}

static void
hash_fixup (const void *obj, void *copy)
{
  const struct dl_hash *h = obj;
  struct dl_hash *c = copy;
  c->h.flags &= ~(uint32_t) DL_F_MARK;
  if (h->test == DL_HASH_EQ)
    {
      c->index = NULL;
      c->h.flags |= DL_F_NEEDS_REHASH;
    }
}

static size_t
hash_index_size (const void *obj)
{
  const struct dl_hash_index *x = obj;
  return checked_array (obj, DL_T_HASH_INDEX, sizeof *x, x->size,
                        sizeof x->slots[0]);
}

static size_t
closure_size (const void *obj)
{
  return checked (obj, DL_T_CLOSURE, sizeof (struct dl_closure));
}

static void
closure_trace (const void *obj, struct dumper_tracer *t)
{
  const struct dl_closure *c = obj;
  dumper_trace_word (t, &c->params);
  dumper_trace_word (t, &c->body);
  dumper_trace_word (t, &c->env);
  dumper_trace_word (t, &c->name);
}

static size_t
macro_size (const void *obj)
{
  return checked (obj, DL_T_MACRO, sizeof (struct dl_macro));
}

static void
macro_trace (const void *obj, struct dumper_tracer *t)
{
  const struct dl_macro *m = obj;
  dumper_trace_word (t, &m->expander);
  dumper_trace_word (t, &m->name);
}

static size_t
builtin_size (const void *obj)
{
  return checked (obj, DL_T_BUILTIN, sizeof (struct dl_builtin));
}

/* Layouts (heap.h): the types whose every object has one shape, so
   that the loader's structural pass checks them without calling the
   functions above for each object.  They say what those functions say:
   the header's type, the size (a vector's from its count), the tagged
   words; the pre-dump check compares them on every object a dump saves.
   Strings (a NULL data pointer with a length is malformed) and hash
   tables (a code pointer, a raw pointer for `equal' tables) have none.  */
#define WORD(type, member) (UINT64_C (1) << (offsetof (type, member) \
                                              / sizeof (dl_obj)))
#define HEADER(t) .header_at = offsetof (struct dl_header, type), \
  .header_bytes = sizeof (uint32_t), .header_value = (t)

static const struct dumper_layout cons_layout = {
  .fixed = sizeof (struct dl_cons), HEADER (DL_T_CONS),
  .words = WORD (struct dl_cons, car) | WORD (struct dl_cons, cdr),
};

static const struct dumper_layout symbol_layout = {
  .fixed = sizeof (struct dl_symbol), HEADER (DL_T_SYMBOL),
  .words = WORD (struct dl_symbol, name) | WORD (struct dl_symbol, value)
           | WORD (struct dl_symbol, function)
           | WORD (struct dl_symbol, plist),
};

static const struct dumper_layout vector_layout = {
  .fixed = sizeof (struct dl_vector), HEADER (DL_T_VECTOR),
  .count_at = offsetof (struct dl_vector, size),
  .count_bytes = sizeof (uint64_t), .element = sizeof (dl_obj),
  .element_words = true,
};

static const struct dumper_layout closure_layout = {
  .fixed = sizeof (struct dl_closure), HEADER (DL_T_CLOSURE),
  .words = WORD (struct dl_closure, params) | WORD (struct dl_closure, body)
           | WORD (struct dl_closure, env) | WORD (struct dl_closure, name),
};

static const struct dumper_layout macro_layout = {
  .fixed = sizeof (struct dl_macro), HEADER (DL_T_MACRO),
  .words = WORD (struct dl_macro, expander) | WORD (struct dl_macro, name),
};

static const struct dumper_type dl_types[DL_T_COUNT] = {
  [DL_T_CONS] = { .name = "cons", .size = cons_size, .trace = cons_trace,
                  .layout = &cons_layout },
  [DL_T_SYMBOL] = { .name = "symbol", .size = symbol_size,
                    .trace = symbol_trace, .layout = &symbol_layout },
  [DL_T_STRING] = { .name = "string", .size = string_size,
                    .trace = string_trace },
  [DL_T_FLOAT] = { .name = "float", .size = float_size },
  [DL_T_VECTOR] = { .name = "vector", .size = vector_size,
                    .trace = vector_trace, .layout = &vector_layout },
  [DL_T_HASH] = { .name = "hash-table", .size = hash_size, .trace = hash_trace,
                  .fixup = hash_fixup },
  [DL_T_CLOSURE] = { .name = "closure", .size = closure_size,
                     .trace = closure_trace, .layout = &closure_layout },
  [DL_T_MACRO] = { .name = "macro", .size = macro_size,
                   .trace = macro_trace, .layout = &macro_layout },
  [DL_T_HASH_INDEX] = { .name = "hash-index", .size = hash_index_size },
  [DL_T_BUILTIN] = { .name = "builtin", .size = builtin_size },
};

static const int dl_tag_types[1 << DL_TAG_BITS] = {
  [DL_TAG_FIXNUM] = DUMPER_TAG_IMMEDIATE,
  [DL_TAG_CONS] = DL_T_CONS,
  [DL_TAG_SYMBOL] = DL_T_SYMBOL,
  [DL_TAG_STRING] = DL_T_STRING,
  [DL_TAG_FLOAT] = DL_T_FLOAT,
  [DL_TAG_VECTORLIKE] = DUMPER_TAG_BY_HEADER,
  [DL_TAG_BUILTIN] = DL_T_BUILTIN,
  [DL_TAG_MISC] = DUMPER_TAG_IMMEDIATE,
};

static int
header_type (const void *obj)
{
  return (int) ((const struct dl_header *) obj)->type;
}

const struct dumper_heap dl_heap_description = {
  dl_types, DL_T_COUNT, DL_TAG_BITS, dl_tag_types, header_type
};

size_t
dl_object_size (const void *obj)
{
  unsigned type = ((const struct dl_header *) obj)->type;
  if (type >= DL_T_COUNT)
    abort ();
  return dl_types[type].size (obj);
}

/* Free the blocks OBJ owns (not OBJ itself).  OBJ is a heap object being
   swept, never an image object, so its string data is its own.  */
void
dl_release_owned (void *obj)
{
  struct dl_header *h = obj;
  if (h->type == DL_T_STRING)
    {
      struct dl_string *s = obj;
      if (s->data)
        dl_free_block (s->data, dl_string_block_bytes (s));
      s->data = NULL;
    }
}
