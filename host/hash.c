/* SPDX-License-Identifier: MIT */
/* host/hash.c: insertion-ordered hash tables with `eq' and `equal' tests.

   Owns: the table operations and the two hash functions.  Layout (see
   struct dl_hash): an entries vector of (key, value) pairs appended in
   insertion order, deleted pairs keeping key DL_UNBOUND until the next
   compaction, and an open-addressing index of entry numbers.

   `eq' hashes the word itself, so for heap keys it depends on addresses:
   it must be rebuilt exactly when dumper_start_info ()->moved is true
   (dumper.h), that is after every pdump load, in every base mode (even
   at the preferred base no object is at the address the dumping
   process hashed), and never in a dumped unexec executable (its arena
   keeps every address, so the saved index is used as it is).  The
   rebuild is lazy: a pdump image drops the index (the type's fixup in
   host/types.c: it would also make images differ under ASLR) and the
   table is rehashed on its first access after the load.
   `dlisp --load-stats' prints `dumper-moved' (tests/host/moved.sh).
   `equal' hashes contents only (dl_sxhash: strings and symbol names by
   their bytes, floats by their bits, lists and vectors by their first
   elements), so its index stays valid in an image and is saved.

   Tables never resize in place: a grown index or entries vector is a
   fresh object and the old one is garbage, because it may be inside a
   loaded image (which cannot be realloc'd).  An index inside the image
   is never written either (pointer-free objects are in the image's cold
   section, which stays shared with the page cache): the first
   insertion builds a fresh one.  */

#include <config.h>

#include <string.h>

#include <xxhash.h>

#include <dumper/pdump.h>

#include "lisp.h"

static uint64_t
mix (uint64_t x)
{
  x ^= x >> 33;
  x *= UINT64_C (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= UINT64_C (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return x;
}

static uint64_t
sxhash_depth (dl_obj x, int depth)
{
  switch (dl_tag (x))
    {
    case DL_TAG_FIXNUM:
    case DL_TAG_MISC:
      return mix (x);
    case DL_TAG_STRING:
      return XXH3_64bits (dl_sdata (x), dl_slen (x));
    case DL_TAG_SYMBOL:
      {
        dl_obj name = dl_xsym (x)->name;
        return mix (XXH3_64bits (dl_sdata (name), dl_slen (name)) + 1);
      }
    case DL_TAG_FLOAT:
      {
        uint64_t bits;
        double v = dl_float_value (x);
        memcpy (&bits, &v, sizeof bits);
        return mix (bits + 2);
      }
    case DL_TAG_BUILTIN:
      return XXH3_64bits (dl_xbuiltin (x)->name, strlen (dl_xbuiltin (x)->name));
    case DL_TAG_CONS:
      {
        uint64_t h = 3;
        if (depth > 3)
          return h;
        int n = 0;
        for (; dl_consp (x) && n < 7; x = dl_cdr_unsafe (x), n++)
          h = mix (h * 31 + sxhash_depth (dl_car_unsafe (x), depth + 1));
        if (!dl_consp (x) && n < 7)
          h = mix (h * 31 + sxhash_depth (x, depth + 1));
        return h;
      }
    case DL_TAG_VECTORLIKE:
      if (dl_vectorp (x))
        {
          struct dl_vector *v = dl_xvec (x);
          uint64_t h = mix (v->size + 4);
          if (depth > 3)
            return h;
          for (uint64_t i = 0; i < v->size && i < 7; i++)
            h = mix (h * 31 + sxhash_depth (v->items[i], depth + 1));
          return h;
        }
      /* Other vectorlikes are `equal' only when `eq': a constant hash is
         correct, and address-free.  */
      return mix (dl_header_type (x) + 5);
    }
  return 0;
}

uint64_t
dl_sxhash (dl_obj x)
{
  return sxhash_depth (x, 0);
}

static uint64_t
eq_hash (dl_obj key)
{
  return mix (key);
}

/* The code addresses a hash table may hold (its hash_fn): a dump
   stores them as indexes into the declaration table, a load puts the
   addresses back wherever the executable landed.  */
DUMPER_DECLARE_CODE (eq_hash);
DUMPER_DECLARE_CODE (dl_sxhash);

static uint64_t
key_hash (const struct dl_hash *h, dl_obj key)
{
  return h->hash_fn (key);
}

static bool
key_equal (const struct dl_hash *h, dl_obj a, dl_obj b)
{
  return a == b || (h->test == DL_HASH_EQUAL && dl_equal (a, b));
}

static size_t
capacity (const struct dl_hash *h)
{
  return (size_t) dl_xvec (h->entries)->size / 2;
}

/* Build a fresh index for the current entries.  */
static void
rebuild_index (struct dl_hash *h)
{
  size_t size = 8;
  while (size < capacity (h) * 2)
    size *= 2;
  struct dl_hash_index *index
    = dl_alloc_object (DL_T_HASH_INDEX, sizeof *index + size * sizeof index->slots[0]);
  index->size = size;
  struct dl_vector *e = dl_xvec (h->entries);
  for (uint64_t i = 0; i < h->used; i++)
    {
      dl_obj key = e->items[2 * i];
      if (key == DL_UNBOUND)
        continue;
      size_t slot = key_hash (h, key) & (size - 1);
      while (index->slots[slot] != 0)
        slot = (slot + 1) & (size - 1);
      index->slots[slot] = (uint32_t) i + 1;
    }
  h->index = index;
  h->h.flags &= ~(uint32_t) DL_F_NEEDS_REHASH;
}

void
dl_hash_ensure_index (struct dl_hash *h)
{
  if (h->index == NULL || (h->h.flags & DL_F_NEEDS_REHASH))
    rebuild_index (h);
}

dl_obj
dl_make_hash (enum dl_hash_test test, size_t size_hint)
{
  struct dl_hash *h = dl_alloc_object (DL_T_HASH, sizeof *h);
  h->test = test;
  h->hash_fn = test == DL_HASH_EQ ? eq_hash : dl_sxhash;
  size_t cap = size_hint < 4 ? 4 : size_hint;
  h->entries = dl_make_vector (2 * cap, DL_UNBOUND);
  rebuild_index (h);
  return dl_make (h, DL_TAG_VECTORLIKE);
}

/* The entry number of KEY, or -1.  */
static int64_t
find (struct dl_hash *h, dl_obj key)
{
  dl_hash_ensure_index (h);
  struct dl_vector *e = dl_xvec (h->entries);
  const uint32_t *slots = h->index->slots;
  size_t mask = (size_t) h->index->size - 1;
  for (size_t slot = key_hash (h, key) & mask; slots[slot] != 0;
       slot = (slot + 1) & mask)
    {
      uint32_t i = slots[slot] - 1;
      dl_obj k = e->items[2 * i];
      if (k != DL_UNBOUND && key_equal (h, k, key))
        return i;
    }
  return -1;
}

dl_obj
dl_hash_get (dl_obj table, dl_obj key, dl_obj dflt)
{
  struct dl_hash *h = dl_xhash (table);
  int64_t i = find (h, key);
  return i < 0 ? dflt : dl_xvec (h->entries)->items[2 * i + 1];
}

/* Make room for one more entry: compact when many entries are deleted,
   else grow into a fresh entries vector.  */
static void
make_room (struct dl_hash *h)
{
  size_t cap = capacity (h);
  if (h->used < cap)
    return;
  size_t new_cap = h->count * 2 < cap ? cap : cap * 2;
  dl_obj fresh = dl_make_vector (2 * new_cap, DL_UNBOUND);
  struct dl_vector *from = dl_xvec (h->entries), *to = dl_xvec (fresh);
  uint64_t n = 0;
  for (uint64_t i = 0; i < h->used; i++)
    if (from->items[2 * i] != DL_UNBOUND)
      {
        to->items[2 * n] = from->items[2 * i];
        to->items[2 * n + 1] = from->items[2 * i + 1];
        n++;
      }
  h->entries = fresh;
  h->used = n;
  rebuild_index (h);
}

void
dl_hash_put (dl_obj table, dl_obj key, dl_obj value)
{
  struct dl_hash *h = dl_xhash (table);
  int64_t i = find (h, key);
  if (i >= 0)
    {
      dl_xvec (h->entries)->items[2 * i + 1] = value;
      return;
    }
  make_room (h);
  /* An index inside a loaded image is read-only for us.  */
  if (pdump_object_p (h->index))
    rebuild_index (h);
  struct dl_vector *e = dl_xvec (h->entries);
  uint64_t n = h->used++;
  e->items[2 * n] = key;
  e->items[2 * n + 1] = value;
  h->count++;
  uint32_t *slots = h->index->slots;
  size_t mask = (size_t) h->index->size - 1;
  size_t slot = key_hash (h, key) & mask;
  while (slots[slot] != 0)
    slot = (slot + 1) & mask;
  slots[slot] = (uint32_t) n + 1;
}

bool
dl_hash_remove (dl_obj table, dl_obj key)
{
  struct dl_hash *h = dl_xhash (table);
  int64_t i = find (h, key);
  if (i < 0)
    return false;
  /* The index keeps pointing at the dead entry, which lookups skip; it
     goes away at the next compaction.  */
  struct dl_vector *e = dl_xvec (h->entries);
  e->items[2 * i] = DL_UNBOUND;
  e->items[2 * i + 1] = DL_UNBOUND;
  h->count--;
  return true;
}

void
dl_hash_clear (dl_obj table)
{
  struct dl_hash *h = dl_xhash (table);
  h->entries = dl_make_vector (2 * capacity (h), DL_UNBOUND);
  h->used = 0;
  h->count = 0;
  rebuild_index (h);
}
