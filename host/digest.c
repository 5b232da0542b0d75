/* SPDX-License-Identifier: MIT */
/* host/digest.c: the canonical heap walk, the heap digest and the
   heap dump.

   Owns: one deterministic walk of everything reachable, used three
   ways: the digest (XXH3-128 of the walk's records), the heap dump (one
   text line per record) and the reachable-heap figures of --stats.  The
   walk never looks at an address except as a key of its own visited
   map, so two processes holding the same object graph produce the same
   records, whatever their addresses, allocator or dump back end.

   Order: first every interned symbol, sorted by name (bytes, then
   length); then each registered GC root (dumper_roots) in registration
   order.  From each root, depth-first pre-order; the first visit of an
   object gives it the next number, a later visit records a reference
   to that number, so sharing and cycles are part of the digest.
   Children, per type: cons car, cdr; symbol name, value, function,
   plist; vector elements; hash table live (key, value) pairs in
   insertion order; closure params, body, env, name; macro expander,
   name.  Contents: string bytes, float bits, vector size, table test
   and count, symbol flags.  Builtins are recorded by name.  The value
   of a per-start symbol (DL_F_PER_START) is recorded as a fixed marker.

   The format is documented in doc/digest.md; change both together.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include <dumper/pdump.h>

#include "lisp.h"

/* A pending edge of the walk: WORD found in field FIELD of object
   PARENT (0 for a root, then ROOT names it).  */
struct item
{
  dl_obj word;
  dl_obj parent_word;      /* for naming the field in the heap dump */
  uint32_t parent;
  uint32_t field;
  bool per_start;          /* the value of a per-start symbol */
  const char *root;        /* root kind, for parent 0 */
};

enum record_kind { REC_OBJECT, REC_IMMEDIATE, REC_REF, REC_PER_START };

/* One slot of the visited map: an object's address and its number
   (0: empty).  Key and number share a cache line.  */
struct visited
{
  uintptr_t key;
  uint64_t id;
};

struct walker
{
  /* Visited map: object address -> number, open addressing.  */
  struct visited *slots;
  size_t capacity, count;
  struct item *stack;
  size_t depth, stack_capacity;
  /* The consumer.  */
  void (*record) (struct walker *w, enum record_kind kind, const struct item *from,
                  uint32_t id);
  void *data;
  size_t objects, bytes;
};

static void
fatal_oom (void)
{
  fprintf (stderr, "dlisp: fatal: out of memory in the heap walk\n");
  exit (71);
}

static size_t
slot_of (uintptr_t key, size_t mask)
{
  uint64_t h = (uint64_t) key * UINT64_C (0x9E3779B97F4A7C15);
  return (size_t) (h >> 29) & mask;
}

static void
map_resize (struct walker *w, size_t capacity)
{
  struct visited *slots = calloc (capacity, sizeof *slots);
  if (slots == NULL)
    fatal_oom ();
  for (size_t i = 0; i < w->capacity; i++)
    if (w->slots[i].key)
      {
        size_t s = slot_of (w->slots[i].key, capacity - 1);
        while (slots[s].key)
          s = (s + 1) & (capacity - 1);
        slots[s] = w->slots[i];
      }
  free (w->slots);
  w->slots = slots;
  w->capacity = capacity;
}

/* The number of OBJ, or 0 after inserting it as number NEXT.  */
static uint32_t
map_visit (struct walker *w, const void *obj, uint32_t next)
{
  if ((w->count + 1) * 2 > w->capacity)
    map_resize (w, w->capacity * 2);
  uintptr_t key = (uintptr_t) obj;
  size_t mask = w->capacity - 1;
  size_t s = slot_of (key, mask);
  for (; w->slots[s].key; s = (s + 1) & mask)
    if (w->slots[s].key == key)
      return (uint32_t) w->slots[s].id;
  w->slots[s].key = key;
  w->slots[s].id = next;
  w->count++;
  return 0;
}

static void
push (struct walker *w, struct item it)
{
  /* The walk is bound by cache misses on the visited map and on the
     objects; start both loads now, the item is popped later.  */
  if (dl_pointer_p (it.word) && w->capacity)
    {
      __builtin_prefetch (&w->slots[slot_of ((uintptr_t) dl_ptr (it.word),
                                             w->capacity - 1)]);
      __builtin_prefetch (dl_ptr (it.word));
    }
  if (w->depth == w->stack_capacity)
    {
      size_t capacity = w->stack_capacity ? w->stack_capacity * 2 : 4096;
      struct item *grown = realloc (w->stack, capacity * sizeof *grown);
      if (grown == NULL)
        fatal_oom ();
      w->stack = grown;
      w->stack_capacity = capacity;
    }
  w->stack[w->depth++] = it;
}

/* Push OBJ's children in reverse, so they pop in field order.  */
static void
push_children (struct walker *w, dl_obj x, uint32_t id)
{
#define push_child(w, word, parent, field) \
  push (w, (struct item) { word, x, parent, field, false, NULL })
  switch (dl_tag (x))
    {
    case DL_TAG_CONS:
      push_child (w, dl_cdr_unsafe (x), id, 1);
      push_child (w, dl_car_unsafe (x), id, 0);
      return;
    case DL_TAG_SYMBOL:
      {
        struct dl_symbol *s = dl_xsym (x);
        push_child (w, s->plist, id, 3);
        push_child (w, s->function, id, 2);
        push (w, (struct item) { s->value, x, id, 1,
                                 (s->h.flags & DL_F_PER_START) != 0, NULL });
        push_child (w, s->name, id, 0);
        return;
      }
    case DL_TAG_VECTORLIKE:
      break;
    default:
      return;
    }
  switch (dl_header_type (x))
    {
    case DL_T_VECTOR:
      {
        struct dl_vector *v = dl_xvec (x);
        for (uint64_t i = v->size; i > 0; i--)
          push_child (w, v->items[i - 1], id, (uint32_t) (i - 1));
        return;
      }
    case DL_T_HASH:
      {
        struct dl_hash *h = dl_xhash (x);
        struct dl_vector *e = dl_xvec (h->entries);
        for (uint64_t i = h->used; i > 0; i--)
          if (e->items[2 * (i - 1)] != DL_UNBOUND)
            {
              push_child (w, e->items[2 * (i - 1) + 1], id, (uint32_t) (2 * (i - 1) + 1));
              push_child (w, e->items[2 * (i - 1)], id, (uint32_t) (2 * (i - 1)));
            }
        return;
      }
    case DL_T_CLOSURE:
      {
        struct dl_closure *c = dl_xclosure (x);
        push_child (w, c->name, id, 3);
        push_child (w, c->env, id, 2);
        push_child (w, c->body, id, 1);
        push_child (w, c->params, id, 0);
        return;
      }
    case DL_T_MACRO:
      push_child (w, dl_xmacro (x)->name, id, 1);
      push_child (w, dl_xmacro (x)->expander, id, 0);
      return;
    }
#undef push_child
}

/* String data counts with its string.  A hash index does not: an `eq'
   table has none right after a pdump load, and the figures must not
   depend on how the state was obtained.  */
static size_t
owned_bytes (dl_obj x)
{
  if (dl_stringp (x))
    return dl_string_block_bytes (dl_xstr (x));
  return 0;
}

static void
run (struct walker *w)
{
  while (w->depth > 0)
    {
      struct item it = w->stack[--w->depth];
      if (it.per_start)
        {
          w->record (w, REC_PER_START, &it, 0);
          continue;
        }
      if (!dl_pointer_p (it.word) || dl_builtinp (it.word))
        {
          w->record (w, REC_IMMEDIATE, &it, 0);
          continue;
        }
      uint32_t next = (uint32_t) w->objects + 1;
      uint32_t seen = map_visit (w, dl_ptr (it.word), next);
      if (seen)
        {
          w->record (w, REC_REF, &it, seen);
          continue;
        }
      w->objects++;
      w->bytes += dl_object_size (dl_ptr (it.word)) + owned_bytes (it.word);
      w->record (w, REC_OBJECT, &it, next);
      push_children (w, it.word, next);
    }
}

static int
compare_names (const void *a, const void *b)
{
  dl_obj x = dl_xsym (*(const dl_obj *) a)->name;
  dl_obj y = dl_xsym (*(const dl_obj *) b)->name;
  size_t lx = dl_slen (x), ly = dl_slen (y);
  int c = memcmp (dl_sdata (x), dl_sdata (y), lx < ly ? lx : ly);
  return c ? c : (lx > ly) - (lx < ly);
}

struct symbol_list
{
  dl_obj *items;
  size_t count;
};

static void
collect_symbol (dl_obj sym, void *data)
{
  struct symbol_list *l = data;
  l->items[l->count++] = sym;
}

/* Walk everything, feeding W->record.  */
static void
walk_heap (struct walker *w)
{
  struct symbol_list symbols = { malloc ((dl_symbol_count () + 1) * sizeof (dl_obj)), 0 };
  if (symbols.items == NULL)
    fatal_oom ();
  dl_map_symbols (collect_symbol, &symbols);
  qsort (symbols.items, symbols.count, sizeof (dl_obj), compare_names);

  size_t root_count;
  uintptr_t *const *roots = dumper_roots (&root_count);
  /* Roots go on the stack last-first, so they are walked in order.  */
  for (size_t i = root_count; i > 0; i--)
    push (w, (struct item) { *roots[i - 1], 0, 0, (uint32_t) (i - 1), false, "staticpro" });
  for (size_t i = symbols.count; i > 0; i--)
    push (w, (struct item) { symbols.items[i - 1], 0, 0, (uint32_t) (i - 1), false, "symbol" });
  free (symbols.items);
  /* Size the map for the heap up front: growing it is most of the cost
     of a walk otherwise.  */
  size_t expected = dl_heap_stats.objects + (size_t) pdump_stats ()->object_count;
  size_t capacity = 1 << 12;
  while (capacity < 2 * expected + 2)
    capacity *= 2;
  map_resize (w, capacity);
  run (w);
  free (w->slots);
  free (w->stack);
}

/* ------------------------------------------------------------------ */
/* The digest.  Records are serialised into a buffer hashed in chunks.  */

struct hasher
{
  XXH3_state_t *state;
  unsigned char buf[8192];
  size_t len;
};

static void
hash_bytes (struct hasher *h, const void *p, size_t n)
{
  if (h->len + n > sizeof h->buf)
    {
      XXH3_128bits_update (h->state, h->buf, h->len);
      h->len = 0;
      if (n > sizeof h->buf)
        {
          XXH3_128bits_update (h->state, p, n);
          return;
        }
    }
  memcpy (h->buf + h->len, p, n);
  h->len += n;
}

static void
hash_u64 (struct hasher *h, uint64_t v)
{
  unsigned char b[8];
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy (b, &v, 8);
#else
  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char) (v >> (8 * i));       /* little-endian always */
#endif
  hash_bytes (h, b, 8);
}

static void
hash_byte (struct hasher *h, unsigned char c)
{
  hash_bytes (h, &c, 1);
}

/* Symbol flags that are part of the state (not the GC mark).  */
#define SYMBOL_STATE_FLAGS (DL_F_SPECIAL | DL_F_CONSTANT | DL_F_INTERNED | DL_F_PER_START)

static void
hash_record (struct walker *w, enum record_kind kind, const struct item *from,
             uint32_t id)
{
  struct hasher *h = w->data;
  dl_obj x = from->word;
  switch (kind)
    {
    case REC_PER_START:
      hash_byte (h, 'P');
      return;
    case REC_REF:
      hash_byte (h, 'R');
      hash_u64 (h, id);
      return;
    case REC_IMMEDIATE:
      if (dl_builtinp (x))
        {
          const char *name = dl_xbuiltin (x)->name;
          hash_byte (h, 'B');
          hash_u64 (h, strlen (name));
          hash_bytes (h, name, strlen (name));
        }
      else
        {
          hash_byte (h, 'I');
          hash_u64 (h, x);                    /* fixnum or marker: no address */
        }
      return;
    case REC_OBJECT:
      break;
    }
  switch (dl_tag (x))
    {
    case DL_TAG_CONS:
      hash_byte (h, 'C');
      return;
    case DL_TAG_SYMBOL:
      hash_byte (h, 'S');
      hash_u64 (h, dl_xsym (x)->h.flags & SYMBOL_STATE_FLAGS);
      return;
    case DL_TAG_STRING:
      hash_byte (h, 's');
      hash_u64 (h, dl_slen (x));
      hash_bytes (h, dl_sdata (x), dl_slen (x));
      return;
    case DL_TAG_FLOAT:
      {
        uint64_t bits;
        double v = dl_float_value (x);
        memcpy (&bits, &v, sizeof bits);
        hash_byte (h, 'F');
        hash_u64 (h, bits);
        return;
      }
    default:
      break;
    }
  switch (dl_header_type (x))
    {
    case DL_T_VECTOR:
      hash_byte (h, 'V');
      hash_u64 (h, dl_xvec (x)->size);
      return;
    case DL_T_HASH:
      hash_byte (h, 'H');
      hash_u64 (h, dl_xhash (x)->test);
      hash_u64 (h, dl_xhash (x)->count);
      return;
    case DL_T_CLOSURE:
      hash_byte (h, 'L');
      return;
    case DL_T_MACRO:
      hash_byte (h, 'M');
      return;
    }
}

void
dl_heap_digest (struct dl_digest *out)
{
  struct hasher *h = malloc (sizeof *h);
  if (h == NULL || (h->state = XXH3_createState ()) == NULL)
    fatal_oom ();
  XXH3_128bits_reset (h->state);
  h->len = 0;
  struct walker w = { 0 };
  w.record = hash_record;
  w.data = h;
  walk_heap (&w);
  XXH3_128bits_update (h->state, h->buf, h->len);
  XXH128_canonical_t c;
  XXH128_canonicalFromHash (&c, XXH3_128bits_digest (h->state));
  memcpy (out->bytes, c.digest, sizeof out->bytes);
  out->objects = w.objects;
  out->heap_bytes = w.bytes;
  XXH3_freeState (h->state);
  free (h);
}

void
dl_digest_hex (const struct dl_digest *d, char hex[33])
{
  for (int i = 0; i < 16; i++)
    snprintf (hex + 2 * i, 3, "%02x", d->bytes[i]);
}

/* ------------------------------------------------------------------ */
/* The heap dump: one line per record.  */

struct dumper_out
{
  FILE *out;
  struct dl_buf line;
  bool ok;
};

static const char *
field_name (dl_obj parent_word, uint32_t field, char *buf, size_t size)
{
  static const char *const cons_fields[] = { "car", "cdr" };
  static const char *const symbol_fields[] = { "name", "value", "function", "plist" };
  static const char *const closure_fields[] = { "params", "body", "env", "name" };
  static const char *const macro_fields[] = { "expander", "name" };
  switch (dl_tag (parent_word))
    {
    case DL_TAG_CONS: return cons_fields[field & 1];
    case DL_TAG_SYMBOL: return symbol_fields[field & 3];
    default: break;
    }
  switch (dl_header_type (parent_word))
    {
    case DL_T_CLOSURE: return closure_fields[field & 3];
    case DL_T_MACRO: return macro_fields[field & 1];
    case DL_T_HASH:
      snprintf (buf, size, "%s[%u]", field % 2 ? "value" : "key", field / 2);
      return buf;
    default:
      snprintf (buf, size, "[%u]", field);
      return buf;
    }
}

/* Text printed for a string's bytes: escaped, long ones abbreviated
   with their length and hash.  */
static void
dump_string (struct dl_buf *line, dl_obj s)
{
  size_t len = dl_slen (s);
  const char *d = dl_sdata (s);
  size_t shown = len <= 200 ? len : 60;
  dl_buf_addc (line, '"');
  for (size_t i = 0; i < shown; i++)
    {
      unsigned char c = (unsigned char) d[i];
      if (c == '"' || c == '\\')
        dl_buf_addf (line, "\\%c", c);
      else if (c < 0x20 || c == 0x7F)
        dl_buf_addf (line, "\\%03o", c);
      else
        dl_buf_addc (line, (char) c);
    }
  dl_buf_addc (line, '"');
  if (shown < len)
    dl_buf_addf (line, "... (%zu bytes, xxh64 %016llx)", len,
                 (unsigned long long) XXH3_64bits (d, len));
}

static void
dump_record (struct walker *w, enum record_kind kind, const struct item *from,
             uint32_t id)
{
  struct dumper_out *o = w->data;
  struct dl_buf *line = &o->line;
  dl_obj x = from->word;
  char buf[64];
  line->len = 0;
  if (kind == REC_OBJECT)
    dl_buf_addf (line, "#%u ", id);
  else
    dl_buf_add (line, "  ", 2);
  if (from->parent == 0)
    dl_buf_addf (line, "%s[%u]", from->root, from->field);
  else
    dl_buf_addf (line, "#%u.%s", from->parent,
                 field_name (from->parent_word, from->field, buf, sizeof buf));
  switch (kind)
    {
    case REC_PER_START:
      dl_buf_add (line, " = <per-start>", 14);
      break;
    case REC_REF:
      dl_buf_addf (line, " = #%u", id);
      break;
    case REC_IMMEDIATE:
      dl_buf_add (line, " = ", 3);
      dl_print (line, x, true);
      break;
    case REC_OBJECT:
      dl_buf_addf (line, " %s", dl_type_name (x));
      if (dl_symbolp (x))
        {
          dl_buf_addc (line, ' ');
          dump_string (line, dl_xsym (x)->name);
          dl_buf_addf (line, " flags=%u", dl_xsym (x)->h.flags & SYMBOL_STATE_FLAGS);
        }
      else if (dl_stringp (x))
        {
          dl_buf_addc (line, ' ');
          dump_string (line, x);
        }
      else if (dl_floatp (x))
        {
          uint64_t bits;
          double v = dl_float_value (x);
          memcpy (&bits, &v, sizeof bits);
          dl_format_float (buf, sizeof buf, v);
          dl_buf_addf (line, " %s (%016llx)", buf, (unsigned long long) bits);
        }
      else if (dl_vectorp (x))
        dl_buf_addf (line, " size=%llu", (unsigned long long) dl_xvec (x)->size);
      else if (dl_hashp (x))
        dl_buf_addf (line, " test=%s count=%llu",
                     dl_xhash (x)->test == DL_HASH_EQ ? "eq" : "equal",
                     (unsigned long long) dl_xhash (x)->count);
      break;
    }
  dl_buf_addc (line, '\n');
  if (fwrite (line->data, 1, line->len, o->out) != line->len)
    o->ok = false;
}

bool
dl_heap_dump (FILE *out)
{
  struct dumper_out o = { out, { 0 }, true };
  struct walker w = { 0 };
  w.record = dump_record;
  w.data = &o;
  walk_heap (&w);
  dl_buf_free (&o.line);
  fprintf (out, "# %zu objects, %zu bytes\n", w.objects, w.bytes);
  return o.ok && fflush (out) == 0 && !ferror (out);
}
