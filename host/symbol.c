/* SPDX-License-Identifier: MIT */
/* host/symbol.c: the symbol table (obarray), interning and the
   well-known symbols.

   Owns: the obarray -- a heap vector [COUNT BUCKETS] whose BUCKETS
   vector holds one list of symbols per bucket, indexed by a hash of the
   name's bytes (never an address, so the table is valid after a pdump
   load without rehashing) -- and the C statics that name heap symbols.

   Registrations (once-only init): the obarray is a raw pointer
   remembered with dumper_remember_ptr, and marked by the GC as the
   symbol table root; each well-known symbol is a tagged word
   remembered with dumper_remember_word.  The intern cache is a C-side
   cache of heap addresses: it is not dumped, and
   dumper_do_now_and_after_load empties it at init and after every
   start from a dump.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "lisp.h"

dl_obj dl_syms[DL_SYM_COUNT];
DUMPER_DECLARE_WORD (dl_syms);

static const char *const well_known_names[DL_SYM_COUNT] = {
#define DL_SYM_NAME(c, l) l,
  DL_WELL_KNOWN_SYMBOLS (DL_SYM_NAME)
#undef DL_SYM_NAME
};

/* [count buckets]; a raw pointer to a vector.  */
static struct dl_vector *obarray;

enum { OBARRAY_COUNT, OBARRAY_BUCKETS };

/* Direct-mapped cache from name hash to symbol, in front of the bucket
   lists.  Holds addresses, so it is never dumped (see the top).  */
#define INTERN_CACHE_SIZE 4096
static struct
{
  uint64_t hash;
  dl_obj sym;
} intern_cache[INTERN_CACHE_SIZE];

void
dl_intern_cache_clear (void)
{
  memset (intern_cache, 0, sizeof intern_cache);
}

/* What dumper_start_info ()->origin said when the after-load hook last
   ran (-1: never); dlisp --load-stats prints it, so that
   tests/host/moved.sh sees what a hook sees.  */
int dl_hook_origin = -1;

/* This file's hook, at the init and after every load: the cache holds
   addresses of the process that filled it.  */
static void
after_load (void)
{
  dl_hook_origin = (int) dumper_start_info ()->origin;
  dl_intern_cache_clear ();
}

static uint64_t
name_hash (const char *name, size_t len)
{
  return XXH3_64bits (name, len);
}

dl_obj
dl_obarray (void)
{
  return obarray ? dl_make (obarray, DL_TAG_VECTORLIKE) : 0;
}

static struct dl_vector *
buckets (void)
{
  return dl_xvec (obarray->items[OBARRAY_BUCKETS]);
}

static bool
name_is (dl_obj sym, const char *name, size_t len)
{
  dl_obj s = dl_xsym (sym)->name;
  return dl_slen (s) == len && memcmp (dl_sdata (s), name, len) == 0;
}

static dl_obj
lookup (const char *name, size_t len, uint64_t hash)
{
  dl_obj cached = intern_cache[hash % INTERN_CACHE_SIZE].sym;
  if (cached && intern_cache[hash % INTERN_CACHE_SIZE].hash == hash
      && name_is (cached, name, len))
    return cached;
  struct dl_vector *b = buckets ();
  for (dl_obj l = b->items[hash & (b->size - 1)]; dl_consp (l);
       l = dl_cdr_unsafe (l))
    {
      dl_obj sym = dl_car_unsafe (l);
      if (name_is (sym, name, len))
        {
          intern_cache[hash % INTERN_CACHE_SIZE].hash = hash;
          intern_cache[hash % INTERN_CACHE_SIZE].sym = sym;
          return sym;
        }
    }
  return 0;
}

static void
grow_buckets (void)
{
  struct dl_vector *old = buckets ();
  size_t size = (size_t) old->size * 2;
  dl_obj fresh = dl_make_vector (size, Qnil);
  struct dl_vector *b = dl_xvec (fresh);
  for (uint64_t i = 0; i < old->size; i++)
    for (dl_obj l = old->items[i]; dl_consp (l); l = dl_cdr_unsafe (l))
      {
        dl_obj sym = dl_car_unsafe (l);
        dl_obj name = dl_xsym (sym)->name;
        uint64_t h = name_hash (dl_sdata (name), dl_slen (name));
        b->items[h & (size - 1)] = dl_cons (sym, b->items[h & (size - 1)]);
      }
  obarray->items[OBARRAY_BUCKETS] = fresh;
}

/* Put the existing symbol SYM into the obarray.  */
static void
insert (dl_obj sym, uint64_t hash)
{
  int64_t count = dl_fixval (obarray->items[OBARRAY_COUNT]) + 1;
  obarray->items[OBARRAY_COUNT] = dl_fix (count);
  struct dl_vector *b = buckets ();
  size_t i = hash & (b->size - 1);
  b->items[i] = dl_cons (sym, b->items[i]);
  dl_xsym (sym)->h.flags |= DL_F_INTERNED;
  const char *name = dl_sdata (dl_xsym (sym)->name);
  if (name[0] == ':')
    {
      /* Keywords evaluate to themselves.  */
      dl_xsym (sym)->value = sym;
      dl_xsym (sym)->h.flags |= DL_F_CONSTANT | DL_F_SPECIAL;
    }
  if ((uint64_t) count > 2 * b->size)
    grow_buckets ();
}

dl_obj
dl_intern (const char *name, size_t len)
{
  uint64_t hash = name_hash (name, len);
  dl_obj sym = lookup (name, len, hash);
  if (sym)
    return sym;
  sym = dl_make_symbol (dl_make_string (name, len));
  insert (sym, hash);
  return sym;
}

dl_obj
dl_intern_c (const char *name)
{
  return dl_intern (name, strlen (name));
}

dl_obj
dl_intern_soft (const char *name, size_t len)
{
  dl_obj sym = lookup (name, len, name_hash (name, len));
  return sym ? sym : Qnil;
}

bool
dl_unintern (dl_obj sym)
{
  dl_obj name = dl_xsym (sym)->name;
  uint64_t hash = name_hash (dl_sdata (name), dl_slen (name));
  struct dl_vector *b = buckets ();
  dl_obj *link = &b->items[hash & (b->size - 1)];
  for (; dl_consp (*link); link = &dl_xcons (*link)->cdr)
    if (dl_car_unsafe (*link) == sym)
      {
        *link = dl_cdr_unsafe (*link);
        dl_xsym (sym)->h.flags &= ~(uint32_t) DL_F_INTERNED;
        obarray->items[OBARRAY_COUNT]
          = dl_fix (dl_fixval (obarray->items[OBARRAY_COUNT]) - 1);
        dl_intern_cache_clear ();
        return true;
      }
  return false;
}

void
dl_map_symbols (void (*fn) (dl_obj sym, void *data), void *data)
{
  struct dl_vector *b = buckets ();
  for (uint64_t i = 0; i < b->size; i++)
    for (dl_obj l = b->items[i]; dl_consp (l); l = dl_cdr_unsafe (l))
      fn (dl_car_unsafe (l), data);
}

size_t
dl_symbol_count (void)
{
  return (size_t) dl_fixval (obarray->items[OBARRAY_COUNT]);
}

static void
check (enum dumper_status st)
{
  if (st != DUMPER_OK)
    {
      fprintf (stderr, "dlisp: fatal: cannot register with libdumper: %s: %s\n",
               dumper_strerror (st), dumper_error_detail ());
      exit (dumper_exit_status (st));
    }
}

void
dl_symbols_init (void)
{
  /* nil first: every other object refers to it.  */
  dl_obj nil = dl_make_symbol (dl_make_cstring ("nil"));
  dl_syms[DL_SYM_nil] = nil;
  dl_xsym (nil)->plist = nil;
  dl_xsym (nil)->value = nil;
  dl_xsym (nil)->h.flags |= DL_F_CONSTANT | DL_F_SPECIAL;

  dl_obj b = dl_make_vector (1024, nil);
  obarray = dl_xvec (dl_make_vector (2, nil));
  obarray->items[OBARRAY_COUNT] = dl_fix (0);
  obarray->items[OBARRAY_BUCKETS] = b;
  insert (nil, name_hash ("nil", 3));

  for (int i = 1; i < DL_SYM_COUNT; i++)
    dl_syms[i] = dl_intern_c (well_known_names[i]);
  dl_xsym (Qt)->value = Qt;
  dl_xsym (Qt)->h.flags |= DL_F_CONSTANT | DL_F_SPECIAL;

  check (DUMPER_REMEMBER_PTR (obarray, DL_T_VECTOR));
  /* The function form, one word at a time, checked against the
     declaration of the whole array beside its definition.  */
  for (int i = 0; i < DL_SYM_COUNT; i++)
    check (dumper_remember_word (&dl_syms[i]));
  check (DUMPER_DO_NOW_AND_AFTER_LOAD (after_load));
}
