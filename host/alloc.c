/* SPDX-License-Identifier: MIT */
/* host/alloc.c: allocation of dlisp heap objects and the sweep list.

   Owns: creating objects of every type from dumper_alloc (zeroed, so
   padding never holds garbage), the blocks objects own (string data,
   hash indexes), the heap accounting, and the sweep list -- an array of
   every object this process allocated, kept outside the objects (no
   object carries a hidden "next allocated" link that the dumper would
   have to know about).

   Must not: collect.  Allocation only counts bytes; the evaluator
   decides when a collection is safe (see lisp.h).

   Across dumps: the sweep list and the counters are C statics plus a
   dumper_alloc'd array.  In an unexec'd executable they come back as
   they were; after a pdump load they start empty, because the image's
   objects belong to no allocator and are never swept.  */

#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lisp.h"

struct dl_heap_stats dl_heap_stats;

static void **objects;
static size_t object_count, object_capacity;

_Noreturn static void
out_of_memory (size_t size)
{
  fprintf (stderr, "dlisp: fatal: out of memory allocating %zu bytes: %s\n",
           size, dumper_error_detail ());
  exit (71);
}

static void
note_object (void *obj)
{
  if (object_count == object_capacity)
    {
      size_t capacity = object_capacity ? object_capacity * 2 : 4096;
      void **grown = dumper_realloc (objects, capacity * sizeof *grown);
      if (grown == NULL)
        out_of_memory (capacity * sizeof *grown);
      objects = grown;
      object_capacity = capacity;
    }
  objects[object_count++] = obj;
}

void **
dl_heap_objects (size_t *count)
{
  *count = object_count;
  return objects;
}

void
dl_heap_objects_set_count (size_t count)
{
  object_count = count;
}

static void
count_bytes (size_t size)
{
  dl_heap_stats.bytes += size;
  dl_heap_stats.bytes_since_gc += size;
}

void *
dl_alloc_object (enum dl_type type, size_t size)
{
  struct dl_header *h = dumper_alloc (size);
  if (h == NULL)
    out_of_memory (size);
  h->type = type;
  note_object (h);
  dl_heap_stats.objects++;
  count_bytes (size);
  return h;
}

void *
dl_alloc_block (size_t size)
{
  void *p = dumper_alloc (size);
  if (p == NULL)
    out_of_memory (size);
  count_bytes (size);
  dl_heap_stats.blocks++;
  return p;
}

void
dl_free_block (void *block, size_t size)
{
  if (block == NULL)
    return;
  dl_heap_stats.bytes -= size;
  dl_heap_stats.blocks--;
  dumper_free (block);
}

dl_obj
dl_cons (dl_obj car, dl_obj cdr)
{
  struct dl_cons *c = dl_alloc_object (DL_T_CONS, sizeof *c);
  c->car = car;
  c->cdr = cdr;
  return dl_make (c, DL_TAG_CONS);
}

dl_obj
dl_make_float (double value)
{
  struct dl_float *f = dl_alloc_object (DL_T_FLOAT, sizeof *f);
  f->value = value;
  return dl_make (f, DL_TAG_FLOAT);
}

size_t
dl_utf8_count (const char *bytes, size_t nbytes)
{
  size_t count = 0;
  for (size_t i = 0; i < nbytes; i++)
    if (((unsigned char) bytes[i] & 0xC0) != 0x80)
      count++;
  return count;
}

int64_t
dl_utf8_decode (const char *bytes, size_t len, size_t *pos)
{
  unsigned char c = (unsigned char) bytes[*pos];
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  int64_t code = extra == 0 ? c : c & (0x3F >> extra);
  (*pos)++;
  for (int i = 0; i < extra && *pos < len; i++)
    code = (code << 6) | ((unsigned char) bytes[(*pos)++] & 0x3F);
  return code;
}

size_t
dl_char_offset (dl_obj s, int64_t index)
{
  const char *d = dl_sdata (s);
  size_t pos = 0, len = dl_slen (s);
  for (int64_t n = 0; n < index && pos < len; n++)
    {
      pos++;
      while (pos < len && ((unsigned char) d[pos] & 0xC0) == 0x80)
        pos++;
    }
  return pos;
}

dl_obj
dl_make_string (const char *bytes, size_t nbytes)
{
  struct dl_string *s = dl_alloc_object (DL_T_STRING, sizeof *s);
  s->nbytes = nbytes;
  if (nbytes > 0)
    {
      s->data = dl_alloc_block (nbytes + 1);
      memcpy (s->data, bytes, nbytes);
      s->nchars = dl_utf8_count (bytes, nbytes);
    }
  return dl_make (s, DL_TAG_STRING);
}

dl_obj
dl_make_cstring (const char *s)
{
  return dl_make_string (s, strlen (s));
}

dl_obj
dl_make_vector (size_t size, dl_obj init)
{
  struct dl_vector *v
    = dl_alloc_object (DL_T_VECTOR, sizeof *v + size * sizeof (dl_obj));
  v->size = size;
  for (size_t i = 0; i < size; i++)
    v->items[i] = init;
  return dl_make (v, DL_TAG_VECTORLIKE);
}

dl_obj
dl_make_closure (dl_obj params, dl_obj body, dl_obj env, dl_obj name)
{
  struct dl_closure *c = dl_alloc_object (DL_T_CLOSURE, sizeof *c);
  c->params = params;
  c->body = body;
  c->env = env;
  c->name = name;
  return dl_make (c, DL_TAG_VECTORLIKE);
}

dl_obj
dl_make_macro (dl_obj expander, dl_obj name)
{
  struct dl_macro *m = dl_alloc_object (DL_T_MACRO, sizeof *m);
  m->expander = expander;
  m->name = name;
  return dl_make (m, DL_TAG_VECTORLIKE);
}

dl_obj
dl_make_symbol (dl_obj name)
{
  struct dl_symbol *s = dl_alloc_object (DL_T_SYMBOL, sizeof *s);
  s->name = name;
  s->value = DL_UNBOUND;
  s->function = DL_UNBOUND;
  s->plist = Qnil;
  return dl_make (s, DL_TAG_SYMBOL);
}

dl_obj
dl_list (size_t n, ...)
{
  dl_obj items[16];
  if (n > 16)
    abort ();
  va_list ap;
  va_start (ap, n);
  for (size_t i = 0; i < n; i++)
    items[i] = va_arg (ap, dl_obj);
  va_end (ap);
  dl_obj list = Qnil;
  while (n > 0)
    list = dl_cons (items[--n], list);
  return list;
}

dl_obj
dl_make_integer (int64_t v)
{
  if (!dl_fix_in_range (v))
    dl_signal (DL_Q (overflow_error),
               dl_list (1, dl_make_cstring ("integer out of fixnum range")));
  return dl_fix (v);
}
