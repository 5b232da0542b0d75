/* SPDX-License-Identifier: MIT */
/* tests/pdump/toyhost.c: a small host that exercises every feature of
   the portable dumper, for the pdump tests.

   Its heap has what breaks dumpers: conses (tagged words), vectors and
   an address-hashed table (typed by header), boxes with raw pointers
   and shared byte blocks, pointer-free floats (NaN, infinities, -0.0),
   pointers into the executable (a static table of "builtins"), C
   function pointers (declared one by one and by a code table), cycles,
   shared substructure, a long list, static roots, a remembered raw
   pointer, a remembered scalar table computed at init and an after-load
   hook.  It prints a digest of everything reachable, computed by a walk
   that numbers objects in first-visit order and never hashes an
   address, so a cold start and a start from an image can be compared.

   Usage: toyhost [--scale N] [--long N] [--foreign] [--mutate-gc]
                  [--refuse-registration [--clear-registration]]
                  [--output FILE] [bridge options]
     --temacs=pdump --output FILE   build the heap and dump it
     --foreign      plant a pointer into libc (the dump must refuse it)
     --refuse-registration  make two registrations the library refuses
                    and carry on, as a host ignoring the status would
                    (the dump must then fail, naming the first)
     --clear-registration   then clear the refusal: the dump is made
     --mutate-gc    after start-up, mutate image objects to point at new
                    objects, collect, and check what survives
     --no-layouts   describe the heap without its layouts (the same
                    image bytes; tests/e2e/layout.sh)
     --load-again FILE  after start-up, call the loader (pdump_load) on
                    FILE and print its status and detail (pdumper
                    builds): a second load in one process is refused  */

#include <config.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/dumper.h>
#include <dumper/pdump.h>
#include <xxhash.h>

#include "pdump/backend.h"

DUMPER_DEFINE_FINGERPRINT;

/* --load-again: the loader called a second time (only in pdumper
   builds, whose library has it: weak, so unexec builds link).  */
#pragma weak pdump_load

#ifndef TOY_VARIANT
# define TOY_VARIANT 1
#endif

#include "toyheap.h"

static const char *const bad_names[] = {
  "none", "interior", "interior-ptr", "malloc", "malloc-word",
  "malloc-bytes", "twice-word", "twice-immediate", "twice-exe",
  "twice-ptr", "twice-bytes", "twice-mixed", "code", "heapword",
  "callback", "code-undeclared", "exe-undeclared", "exe-interior",
  "by-header", "by-header-malloc", "fields", "field-before",
  "field-outside", "field-tail", "field-unaligned", "exe-type", "code-table",
  "code-library", "field-flaky", "layout-ok", "layout-missing",
  "layout-extra", "layout-ptr", "layout-bytes", "layout-code",
  "layout-sized", "layout-interior", "layout-fixed-small",
  "layout-fixed-big", "layout-count", "layout-header", "layout-wrap",
  "layout-tail-missing", "layout-big", "layout-big-missing",
  "layout-vec-tail"
};

static const struct builtin builtins[] = {
  { "car", 1 }, { "cdr", 1 }, { "cons", 2 }, { "list", -1 }
};
/* Heap words (tag 4) and box pointers point to these; the tag's type is
   T_BOX, and builtins are never traced or copied.  */
DUMPER_DECLARE_OBJECTS (builtins, T_BOX);
/* --bad exe-undeclared: a builtin outside the declared array.  */
static const struct builtin undeclared_builtin = { "undeclared", 0 };

static word make_fix (intptr_t n) { return (word) n << 3; }
static word tag (const void *p, int t) { return (word) p + (word) t; }
static void *untag (word w) { return (void *) (w & ~(word) 7); }

/* ------------------------------------------------------------------ */
/* Allocation: every object is dumper_alloc'd and listed for the
   sanitizers' leak check (which cannot follow tagged words).  The list
   is dumper_alloc'd too: nothing in this host is malloc'd before a
   dump, so it also runs as an unexec'd executable (whose malloc heap is
   new).  */

static void **all_objects;
static size_t all_count, all_capacity;

static void *
alloc (size_t size)
{
  void *p = dumper_alloc (size);
  if (p == NULL)
    {
      fprintf (stderr, "toyhost: out of memory\n");
      exit (71);
    }
  if (all_count == all_capacity)
    {
      all_capacity = all_capacity ? all_capacity * 2 : 1024;
      all_objects = dumper_realloc (all_objects,
                                    all_capacity * sizeof *all_objects);
      if (all_objects == NULL)
        exit (71);
    }
  all_objects[all_count++] = p;
  return p;
}

static word
cons (word car, word cdr)
{
  struct pair *p = alloc (sizeof *p);
  p->car = car;
  p->cdr = cdr;
  return tag (p, TAG_PAIR);
}

static word
make_vec (uint32_t length)
{
  struct vec *v = alloc (sizeof *v + length * sizeof (word));
  v->h.type = T_VEC;
  v->h.length = length;
  return tag (v, TAG_HDR);
}

static word
make_float (double d)
{
  struct flonum *f = alloc (sizeof *f);
  f->value = d;
  return tag (f, TAG_FLOAT);
}

static struct vec *vec_of (word w) { return untag (w); }

/* ------------------------------------------------------------------ */
/* The table's address index, rebuilt lazily.  */

static size_t
hash_address (word w, size_t size)
{
  return (size_t) ((w * UINT64_C (0x9E3779B97F4A7C15)) >> 20) % size;
}

static void
table_rebuild (struct table *tb)
{
  struct vec *keys = vec_of (tb->keys);
  size_t size = keys->h.length * 2 + 1;
  tb->index = calloc (size, sizeof *tb->index);   /* not heap: never dumped */
  tb->index_size = size;
  for (uint32_t i = 0; i < keys->h.length; i++)
    {
      size_t j = hash_address (keys->items[i], size);
      while (tb->index[j] != 0)
        j = (j + 1) % size;
      tb->index[j] = (int32_t) i + 1;
    }
}

static word
table_get (struct table *tb, word key)
{
  if (tb->index == NULL)
    table_rebuild (tb);
  for (size_t j = hash_address (key, tb->index_size); tb->index[j];
       j = (j + 1) % tb->index_size)
    if (vec_of (tb->keys)->items[tb->index[j] - 1] == key)
      return vec_of (tb->values)->items[tb->index[j] - 1];
  return make_fix (-1);
}

/* ------------------------------------------------------------------ */
/* State.  */

static word world;                  /* GC root: everything */
static word long_list;              /* GC root */
static word the_table;              /* remembered word (not a root) */
DUMPER_DECLARE_WORD (the_table);
static struct box *first_box;       /* remembered raw pointer */
static uint32_t squares[64];        /* a table computed at init */
static int hook_runs;               /* after-load hook count this process */
static int variant = TOY_VARIANT;   /* differs between builds */
static word bad_root;               /* GC root in a --bad run */

/* The code pointer of --bad callback: declared, so an image may hold it
   (the loader stores this process's address of it).  */
static int callback_runs;
static void
toy_callback (void)
{
  callback_runs++;
}
DUMPER_DECLARE_CODE (toy_callback);

/* --bad code-table: the functions of a table in the shape of Lua's
   luaL_Reg arrays (a name and a function each, a NULL terminator),
   declared by one DUMPER_DECLARE_CODE_TABLE line at the end of this
   file (after the functions it names).  toy_callback is in it too, and
   keeps being stored by its DUMPER_DECLARE_CODE entry.  An image names
   toy_op_scale as (toy_ops, 2); element 3 is the NULL terminator.  */
static void
toy_op_add (void)
{
  callback_runs += 10;
}

static void
toy_op_scale (void)
{
  callback_runs = callback_runs * 3 + 7;
}

struct toy_op
{
  const char *name;
  void (*fn) (void);
};

static const struct toy_op toy_ops[] = {
  { "add", toy_op_add }, { "callback", toy_callback },
  { "scale", toy_op_scale }, { NULL, NULL }
};

/* --bad code-undeclared: reported as a code pointer, never declared.  */
static void
toy_undeclared (void)
{
  callback_runs += 100;
}

/* --refuse-registration: a static never declared, registered anyway.  */
static struct box *undeclared_box;

/* Registrations a careless host makes and ignores the status of: a
   declared word registered as a pointer, then an undeclared static.  */
static void
refuse_registrations (bool clear)
{
  enum dumper_status first = dumper_remember_ptr ((void **) &the_table, T_BOX);
  enum dumper_status second
    = dumper_remember_ptr ((void **) &undeclared_box, T_BOX);
  printf ("refused: %d %d &the_table=%p\n", (int) first, (int) second,
          (void *) &the_table);
  if (clear)
    dumper_clear_registration_error ();
}

/* A registration the test host cannot go on without.  */
static void
registered (enum dumper_status status, const char *what)
{
  if (status != DUMPER_OK)
    {
      fprintf (stderr, "toyhost: cannot register %s\n", what);
      exit (dumper_report ("toyhost", status));
    }
}

static void
after_load_hook (void)
{
  hook_runs++;
  /* The table's address index is malloc'd: not in a pdump image (the
     fixup drops it), and stale in an unexec'd executable, whose malloc
     heap is new.  Rebuilt on the next lookup.  */
  struct table *tb = the_table ? untag (the_table) : NULL;
  if (tb != NULL)
    tb->index = NULL;
}

static struct box *
make_box (const char *name, struct box *next, const struct builtin *fn)
{
  struct box *b = alloc (sizeof *b);
  b->h.type = T_BOX;
  b->name_length = strlen (name);
  b->name = alloc (b->name_length + 1);
  memcpy (b->name, name, b->name_length);
  b->next = next;
  b->fn = fn;
  return b;
}

/* --wide-types: a heap description of WIDE_TYPES types, the usual ones
   first, then unused padding, and a vector type T_WIDE at the last
   index (beyond a byte), of which one object hangs from the world: the
   structural pass keeps two bytes per object type with 255 or more
   types (pdump/verify-index.c), a path no other host takes
   (tests/pdump/mutkill-verify.sh).  */
enum { WIDE_TYPES = 300, T_WIDE = WIDE_TYPES - 1 };
static bool wide;
/* --no-layouts: the description without its layouts, whose images
   must be the same bytes (tests/e2e/layout.sh): a layout changes what
   is checked, never what is saved.  */
static bool no_layouts;
static struct dumper_type toy_types[WIDE_TYPES];
static struct dumper_heap toy_heap;

/* --bad layout-*: the layout of `bad' (its trace reports a and b),
   right or wrong in the way the scenario names.  */
static struct dumper_layout bad_layout;

static void
set_bad_layout (void)
{
  const unsigned a = offsetof (struct bad, a) / sizeof (word);
  const unsigned b = offsetof (struct bad, b) / sizeof (word);
  const unsigned p = offsetof (struct bad, p) / sizeof (word);
  /* The header's length field is 0 in every `bad', so a count of
     words there agrees with bad_size.  */
  bad_layout = (struct dumper_layout) {
    .fixed = sizeof (struct bad), .element = sizeof (word),
    .header_at = offsetof (struct header, type),
    .header_bytes = sizeof (uint32_t), .header_value = T_BAD,
    .count_at = offsetof (struct header, length),
    .count_bytes = sizeof (uint32_t), .element_words = true,
    .words = UINT64_C (1) << a | UINT64_C (1) << b
  };
  if (bad_mode == BAD_LAYOUT_MISSING)
    bad_layout.words = UINT64_C (1) << a;
  else if (bad_mode == BAD_LAYOUT_EXTRA)
    bad_layout.words |= UINT64_C (1) << p;
  else if (bad_mode == BAD_LAYOUT_FIXED_SMALL)
    bad_layout.fixed -= sizeof (word);
  else if (bad_mode == BAD_LAYOUT_FIXED_BIG)
    bad_layout.fixed += sizeof (word);
  else if (bad_mode == BAD_LAYOUT_COUNT)
    bad_layout.count_at = offsetof (struct header, type);   /* T_BAD */
  else if (bad_mode == BAD_LAYOUT_HEADER)
    bad_layout.header_value = T_BAD + 1;
  else if (bad_mode == BAD_LAYOUT_WRAP)
    {
      bad_layout.count_at = offsetof (struct bad, bytes_length);
      bad_layout.count_bytes = sizeof (uint64_t);
    }
  else if (bad_mode == BAD_LAYOUT_TAIL_MISSING)
    bad_layout.fixed -= sizeof (word);   /* with a length of 1 */
}

/* --bad layout-vec-tail: vec's layout without element_words.  */
static struct dumper_layout vec_layout_no_tail;

static const struct dumper_heap *
heap_description (void)
{
  if (!wide && !no_layouts && !bad_layout_mode ())
    return &heap;
  int count = wide ? WIDE_TYPES : T_COUNT;
  for (int i = 0; i < count; i++)
    toy_types[i] = i < T_COUNT ? types[i]
                   : (struct dumper_type) { .name = "padding",
                                            .size = float_size };
  if (wide)
    toy_types[T_WIDE] = (struct dumper_type) { .name = "wide-vec",
                                               .size = vec_size,
                                               .trace = vec_trace };
  if (no_layouts)
    for (int i = 0; i < count; i++)
      toy_types[i].layout = NULL;
  if (bad_layout_mode ())
    {
      set_bad_layout ();
      toy_types[T_BAD].layout = &bad_layout;
    }
  if (bad_mode == BAD_LAYOUT_VEC_TAIL)
    {
      vec_layout_no_tail = vec_layout;
      vec_layout_no_tail.element_words = false;
      toy_types[T_VEC].layout = &vec_layout_no_tail;
    }
  toy_heap = heap;
  toy_heap.types = toy_types;
  toy_heap.type_count = count;
  return &toy_heap;
}

static void
init_once (int scale, long long_length, bool foreign)
{
  for (int i = 0; i < 64; i++)
    squares[i] = (uint32_t) (i * i + variant);
  registered (DUMPER_REMEMBER_SCALAR (squares), "squares");
  registered (DUMPER_STATICPRO (world), "world");
  registered (DUMPER_STATICPRO (long_list), "long_list");
  registered (dumper_remember_word (&the_table), "the_table"); /* declared beside it */
  registered (DUMPER_REMEMBER_PTR (first_box, T_BOX), "first_box");
  registered (DUMPER_DO_NOW_AND_AFTER_LOAD (after_load_hook), "after_load_hook");

  /* Boxes sharing one name block, a chain of raw pointers.  */
  first_box = make_box ("alpha", NULL, &builtins[0]);
  struct box *b2 = make_box ("beta", first_box, &builtins[2]);
  struct box *b3 = make_box ("", b2, NULL);
  b3->name_length = 0;
  b2->next = first_box;
  struct box *shared = make_box ("shared-name", b3, &builtins[3]);
  shared->next = b3;
  b3->name = first_box->name;      /* shared block, shorter use */
  b3->name_length = 3;

  word floats = make_vec (6);
  vec_of (floats)->items[0] = make_float (NAN);
  vec_of (floats)->items[1] = make_float (INFINITY);
  vec_of (floats)->items[2] = make_float (-INFINITY);
  vec_of (floats)->items[3] = make_float (-0.0);
  vec_of (floats)->items[4] = make_float (1.0 / 3.0);
  vec_of (floats)->items[5] = vec_of (floats)->items[4];   /* shared */

  /* Scaled part: lists of vectors with shared tails.  */
  word scaled = make_fix (0);
  word shared_tail = cons (make_fix (7), cons (make_fix (8), make_fix (0)));
  for (int s = 0; s < scale * 1000; s++)
    {
      word v = make_vec (4);
      vec_of (v)->items[0] = make_fix (s);
      vec_of (v)->items[1] = shared_tail;
      vec_of (v)->items[2] = tag (&builtins[s % 4], TAG_BUILTIN);
      vec_of (v)->items[3] = make_float ((double) s * 0.5);
      scaled = cons (v, scaled);
    }

  /* A cycle.  */
  word c1 = cons (make_fix (1), make_fix (0));
  word c2 = cons (make_fix (2), c1);
  ((struct pair *) untag (c1))->cdr = c2;

  /* The table: keys are objects (identity), values fixnums.  */
  struct table *tb = alloc (sizeof *tb);
  tb->h.type = T_TABLE;
  tb->keys = make_vec (16);
  tb->values = make_vec (16);
  for (int i = 0; i < 16; i++)
    {
      vec_of (tb->keys)->items[i] = cons (make_fix (i), make_fix (0));
      vec_of (tb->values)->items[i] = make_fix (i * 10);
    }
  table_rebuild (tb);
  the_table = tag (tb, TAG_HDR);

  word w = make_vec (6);
  vec_of (w)->items[0] = floats;
  vec_of (w)->items[1] = scaled;
  vec_of (w)->items[2] = c2;
  vec_of (w)->items[3] = the_table;
  vec_of (w)->items[4] = tag (&builtins[1], TAG_BUILTIN);
  vec_of (w)->items[5] = make_fix (0);
  world = w;

  long_list = make_fix (0);
  for (long i = 0; i < long_length; i++)
    long_list = cons (make_fix (i), long_list);

  if (foreign)
    {
      /* A raw pointer into libc's data: must be refused at dump.  */
      shared->name = (char *) stdout;
      shared->name_length = 8;
    }
  struct box *holder = make_box ("holder", shared, NULL);
  vec_of (w)->items[5] = make_fix (0);
  if (wide)
    {
      word v = make_vec (2);
      vec_of (v)->h.type = T_WIDE;
      vec_of (v)->items[0] = make_fix (T_WIDE);
      vec_of (v)->items[1] = floats;
      vec_of (w)->items[5] = v;
    }
  first_box->next = holder;
}

/* Plant the object of a --bad run under the root bad_root.  */
static void
init_bad (void)
{
  struct bad *b = alloc (sizeof *b);
  b->h.type = T_BAD;
  b->a = make_fix (1);
  b->b = make_fix (2);
  registered (DUMPER_STATICPRO (bad_root), "bad_root");
  bad_root = tag (b, TAG_HDR);
  word vec = make_vec (4);
  switch (bad_mode)
    {
    case BAD_NONE:
      break;
    case BAD_INTERIOR:
      /* The minimal case: a = object A, b = A + 8 bytes.  */
      b->a = vec;
      b->b = tag ((char *) untag (vec) + 8, TAG_PAIR);
      break;
    case BAD_INTERIOR_PTR:
      b->p = make_box ("outer", NULL, NULL);
      b->p = (struct box *) ((char *) b->p + 16);
      break;
    case BAD_MALLOC:
      b->p = calloc (1, sizeof *b->p);
      b->p->h.type = T_BOX;
      break;
    case BAD_MALLOC_WORD:
      b->a = tag (calloc (1, sizeof (struct pair)), TAG_PAIR);
      break;
    case BAD_MALLOC_BYTES:
      b->bytes = strdup ("from malloc");
      b->bytes_length = 11;
      break;
    case BAD_TWICE_WORD:
    case BAD_TWICE_MIXED:
      b->a = cons (make_fix (3), make_fix (4));
      break;
    case BAD_TWICE_IMMEDIATE:
      b->a = make_fix (5);
      break;
    case BAD_TWICE_EXE:
      b->a = tag (&builtins[1], TAG_BUILTIN);
      break;
    case BAD_TWICE_PTR:
      b->p = make_box ("twice", NULL, NULL);
      break;
    case BAD_TWICE_BYTES:
      b->bytes = alloc (6);
      memcpy (b->bytes, "twice", 6);
      b->bytes_length = 6;
      break;
    case BAD_CODE:
      b->fn = after_load_hook;
      break;
    case BAD_CALLBACK:
    case BAD_FIELD_BEFORE:
      b->fn = toy_callback;
      break;
    case BAD_FIELDS:
      b->p = make_box ("fields", NULL, NULL);
      b->bytes = alloc (6);
      memcpy (b->bytes, "field", 6);
      b->bytes_length = 6;
      b->fn = toy_callback;
      break;
    case BAD_CODE_UNDECLARED:
      b->fn = toy_undeclared;
      break;
    case BAD_CODE_TABLE:
      b->fn = toy_op_scale;
      break;
    case BAD_CODE_LIBRARY:
      {
        void *fn = dlsym (RTLD_DEFAULT, "abs");
        memcpy (&b->fn, &fn, sizeof fn);
      }
      break;
    case BAD_EXE_UNDECLARED:
      b->a = tag (&undeclared_builtin, TAG_BUILTIN);
      break;
    case BAD_EXE_INTERIOR:
      b->a = tag ((const char *) &builtins[1] + 8, TAG_BUILTIN);
      break;
    case BAD_HEAPWORD:
      b->b = (word) untag (vec);
      break;
    case BAD_BY_HEADER:
      for (uint32_t i = 0; i < 4; i++)
        vec_of (vec)->items[i] = make_fix (7 + i);
      b->a = (word) untag (vec);
      b->b = vec;
      b->bytes = (char *) (uintptr_t) TAG_HDR;
      break;
    case BAD_FIELD_OUTSIDE:
      b->a = vec;
      vec_of (vec)->items[0] = make_fix (9);
      break;
    case BAD_FIELD_TAIL:
    case BAD_FIELD_UNALIGNED:
    case BAD_FIELD_FLAKY:
      break;
    case BAD_EXE_TYPE:
      b->p = (struct box *) &builtins[0];
      break;
    default:
      /* The layout scenarios: b a pair; in layout-ptr a raw pointer to
         it, which a trace may report with dumper_trace_ptr (only the
         layout makes that wrong).  */
      b->b = cons (make_fix (3), make_fix (4));
      if (bad_mode == BAD_LAYOUT_PTR)
        b->b = (word) untag (b->b);
      else if (bad_mode == BAD_LAYOUT_WRAP)
        b->bytes_length = UINT64_MAX;
      else if (bad_mode == BAD_LAYOUT_TAIL_MISSING)
        b->h.length = 1;
      else if (bad_mode == BAD_LAYOUT_BIG
               || bad_mode == BAD_LAYOUT_BIG_MISSING)
        {
          b->b = make_vec (100);
          for (uint32_t i = 0; i < 100; i++)
            vec_of (b->b)->items[i] = make_fix (i);
        }
      break;
    case BAD_BY_HEADER_MALLOC:
      vec_of (vec)->items[1] = tag (calloc (1, sizeof (struct pair)), TAG_PAIR);
      b->a = (word) untag (vec);
      b->bytes = (char *) (uintptr_t) TAG_HDR;
      break;
    }
}

/* --bad by-header after a start: the raw by-header pointer is the
   object the tagged word names, with its contents; the NULLs stayed
   NULL.  */
static int
check_by_header (void)
{
  const struct bad *b = untag (bad_root);
  const struct vec *v = (const struct vec *) b->a;
  uint64_t sum = 0;
  for (uint32_t i = 0; v && i < v->h.length; i++)
    sum += v->items[i] >> 3;
  printf ("by-header: same=%d type=%u length=%u sum=%llu p=%p "
          "null_word=%#lx image=%d\n", v == untag (b->b),
          v ? v->h.type : 0, v ? v->h.length : 0, (unsigned long long) sum,
          (void *) b->p, (unsigned long) (uintptr_t) b->bytes,
          v && pdump_object_p (v));
  return v == untag (b->b) && v->h.type == T_VEC && v->h.length == 4
         && sum == 34 && b->p == NULL && (uintptr_t) b->bytes == TAG_HDR
         ? 0 : 2;
}

/* ------------------------------------------------------------------ */
/* The digest: a walk in first-visit order; objects are numbered, never
   addressed.  */

struct seen { const void *key; uint64_t number; };
static struct seen *seen;
static size_t seen_capacity, seen_count;

static uint64_t *
seen_slot (const void *key, bool *fresh)
{
  if ((seen_count + 1) * 2 > seen_capacity)
    {
      size_t old = seen_capacity;
      struct seen *prev = seen;
      seen_capacity = seen_capacity ? seen_capacity * 2 : 1 << 16;
      seen = calloc (seen_capacity, sizeof *seen);
      for (size_t i = 0; i < old; i++)
        if (prev[i].key)
          {
            size_t j = hash_address ((word) prev[i].key, seen_capacity);
            while (seen[j].key)
              j = (j + 1) % seen_capacity;
            seen[j] = prev[i];
          }
      free (prev);
    }
  size_t j = hash_address ((word) key, seen_capacity);
  while (seen[j].key && seen[j].key != key)
    j = (j + 1) % seen_capacity;
  *fresh = seen[j].key == NULL;
  if (*fresh)
    {
      seen[j].key = key;
      seen[j].number = seen_count++;
    }
  return &seen[j].number;
}

static XXH3_state_t *digest_state;
static word *work;
static size_t work_size, work_capacity;

static void
put (uint64_t x)
{
  XXH3_64bits_update (digest_state, &x, sizeof x);
}

static void
push_work (word w)
{
  if (work_size == work_capacity)
    {
      work_capacity = work_capacity ? work_capacity * 2 : 4096;
      work = realloc (work, work_capacity * sizeof *work);
    }
  work[work_size++] = w;
}

/* Hash a reference; queue the object the first time it is seen.  */
static void
digest_ref (word w)
{
  int t = (int) (w & 7);
  if (t == TAG_FIX || t > TAG_BUILTIN)
    {
      put (1);
      put (w);
      return;
    }
  if (t == TAG_BUILTIN)
    {
      const struct builtin *b = untag (w);
      put (2);
      XXH3_64bits_update (digest_state, b->name, strlen (b->name));
      return;
    }
  bool fresh;
  uint64_t number = *seen_slot (untag (w), &fresh);
  put (fresh ? 3 : 4);
  put (number);
  if (fresh)
    push_work (w);
}

static void
digest_box (const struct box *b)
{
  put (T_BOX);
  put (b->name_length);
  XXH3_64bits_update (digest_state, b->name, b->name_length);
  put (b->fn ? (uint64_t) (b->fn - builtins) + 1 : 0);
  if (b->next)
    {
      bool fresh;
      uint64_t number = *seen_slot (b->next, &fresh);
      put (fresh ? 3 : 4);
      put (number);
      if (fresh)
        push_work (tag (b->next, TAG_HDR));
    }
}

static void
digest_object (word w)
{
  void *o = untag (w);
  switch (w & 7)
    {
    case TAG_PAIR:
      put (T_PAIR);
      digest_ref (((struct pair *) o)->car);
      digest_ref (((struct pair *) o)->cdr);
      return;
    case TAG_FLOAT:
      {
        uint64_t bits;
        memcpy (&bits, &((struct flonum *) o)->value, sizeof bits);
        put (T_FLOAT);
        put (bits);
        return;
      }
    }
  const struct header *h = o;
  switch (h->type)
    {
    case T_VEC:
    case T_WIDE:
      put (h->type);
      put (h->length);
      for (uint32_t i = 0; i < h->length; i++)
        digest_ref (((struct vec *) o)->items[i]);
      return;
    case T_TABLE:
      {
        struct table *tb = o;
        put (T_TABLE);
        digest_ref (tb->keys);
        digest_ref (tb->values);
        /* Lookups through the address index must work.  */
        for (uint32_t i = 0; i < vec_of (tb->keys)->h.length; i++)
          put (table_get (tb, vec_of (tb->keys)->items[i]));
        return;
      }
    case T_BOX:
      digest_box (o);
      return;
    }
  fprintf (stderr, "toyhost: corrupt heap: header type %u\n", h->type);
  exit (70);
}

static uint64_t
digest (void)
{
  digest_state = XXH3_createState ();
  XXH3_64bits_reset (digest_state);
  seen_count = 0;
  if (seen)
    memset (seen, 0, seen_capacity * sizeof *seen);
  word roots[3] = { world, long_list, the_table };
  for (int r = 0; r < 3; r++)
    {
      digest_ref (roots[r]);
      while (work_size > 0)
        digest_object (work[--work_size]);
    }
  digest_box (first_box);
  while (work_size > 0)
    digest_object (work[--work_size]);
  for (int i = 0; i < 64; i++)
    put (squares[i]);
  uint64_t d = XXH3_64bits_digest (digest_state);
  XXH3_freeState (digest_state);
  return d;
}

/* ------------------------------------------------------------------ */
/* A mark phase with image objects: mutate image objects to point at
   fresh objects, mark from the roots using the side bitmap for image
   objects and a set for the others, and check every fresh object is
   found and no image object carries a mark afterwards.  */

static struct seen *marks_heap;

static size_t marked_fresh;

static void gc_mark (word w);

static void
gc_mark_object (void *o, word w)
{
  if (pdump_object_p (o))
    {
      if (pdump_marked_p (o))
        return;
      pdump_set_marked (o);
    }
  else
    {
      bool fresh;
      seen_slot (o, &fresh);
      if (!fresh)
        return;
      marked_fresh++;
    }
  switch (w & 7)
    {
    case TAG_PAIR:
      gc_mark (((struct pair *) o)->car);
      gc_mark (((struct pair *) o)->cdr);
      return;
    case TAG_FLOAT:
      return;
    }
  const struct header *h = o;
  if (h->type == T_VEC || h->type == T_WIDE)
    for (uint32_t i = 0; i < h->length; i++)
      gc_mark (((struct vec *) o)->items[i]);
  else if (h->type == T_TABLE)
    {
      gc_mark (((struct table *) o)->keys);
      gc_mark (((struct table *) o)->values);
    }
}

static void
gc_mark (word w)
{
  int t = (int) (w & 7);
  if (t == TAG_PAIR || t == TAG_HDR || t == TAG_FLOAT)
    gc_mark_object (untag (w), w);
}

static int
mutate_and_collect (void)
{
  if (!dumped_with_pdumper)
    {
      fprintf (stderr, "toyhost: --mutate-gc needs a start from an image\n");
      return 2;
    }
  /* The world vector is in the image; make it point at fresh objects.  */
  struct vec *w = vec_of (world);
  if (!pdump_object_p (w))
    return 3;
  word fresh = cons (make_float (2.5), cons (make_fix (9), make_fix (0)));
  w->items[5] = fresh;
  for (int round = 0; round < 3; round++)
    {
      seen_count = 0;
      if (seen)
        memset (seen, 0, seen_capacity * sizeof *seen);
      marked_fresh = 0;
      gc_mark (world);
      gc_mark (long_list);
      gc_mark (the_table);
      if (!pdump_marked_p (w) || marked_fresh != 3)
        {
          fprintf (stderr, "toyhost: mark found %zu fresh objects, want 3\n",
                   marked_fresh);
          return 4;
        }
      pdump_clear_marks ();
      if (pdump_marked_p (w))
        return 5;
    }
  (void) marks_heap;
  return 0;
}

/* --contract: host bugs the allocator can see are statuses, not aborts
   (dumper.h).  Returns 0 when every call behaved as documented.  */
static int
check_contract (void)
{
  int bad = 0;
  if (dumped_with_pdumper)
    {
      void *obj = untag (world);
      if (dumper_realloc (obj, 64) != NULL
          || dumper_last_status () != DUMPER_E_STATE)
        {
          fprintf (stderr, "toyhost: dumper_realloc of an image object did "
                   "not fail with DUMPER_E_STATE\n");
          bad = 1;
        }
      else
        printf ("realloc of an image object: %s\n", dumper_error_detail ());
    }
  /* The allocator knows its live blocks in unexec builds, and in a
     dumping run of the others.  */
  if (DUMPER_WITH_UNEXEC || will_dump)
    {
      void *p = dumper_alloc (32);
      enum dumper_status first = dumper_free (p);
      enum dumper_status second = dumper_free (p);
      void *q = dumper_realloc (p, 64);
      if (first != DUMPER_OK || second != DUMPER_E_STATE || q != NULL
          || dumper_last_status () != DUMPER_E_STATE)
        {
          fprintf (stderr, "toyhost: double free gave %d then %d, realloc "
                   "of the freed block %p\n", first, second, q);
          bad = 1;
        }
      else
        printf ("double free: %s\n", dumper_error_detail ());
    }
  return bad;
}

/* ------------------------------------------------------------------ */

/* Set bad_mode from the --bad argument NAME; false when unknown.  */
static bool
parse_bad (const char *name)
{
  size_t k = 1;
  while (k < sizeof bad_names / sizeof bad_names[0]
         && strcmp (bad_names[k], name) != 0)
    k++;
  if (k == sizeof bad_names / sizeof bad_names[0])
    {
      fprintf (stderr, "toyhost: unknown --bad scenario %s\n", name);
      return false;
    }
  bad_mode = (enum bad_mode) k;
  return true;
}

int
main (int argc, char **argv)
{
  /* The trace of `bad' depends on the scenario, and the loader's
     structural pass (verify=structure) traces inside dumper_startup.  */
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp (argv[i], "--bad") == 0 && !parse_bad (argv[i + 1]))
      return 64;
  /* --late-heap-description: a host that describes its heap only after
     dumper_startup (for its dumps), so the loader has none: no
     structural pass, and no boot cache written (tests/pdump/default.sh).  */
  bool late_description = false;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--late-heap-description") == 0)
      late_description = true;
    else if (strcmp (argv[i], "--wide-types") == 0)
      wide = true;
    else if (strcmp (argv[i], "--no-layouts") == 0)
      no_layouts = true;
  if (!late_description)
    dumper_describe_heap (heap_description ());
  enum dumper_status st = dumper_startup (&argc, &argv);
  if (st != DUMPER_OK)
    return dumper_report ("toyhost", st);
  if (late_description)
    dumper_describe_heap (heap_description ());

  int scale = 1;
  long long_length = 1000;
  bool foreign = false, mutate = false, stats = false, contract = false;
  bool refuse = false, clear = false;
  const char *output = NULL, *load_again = NULL;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--scale") == 0 && i + 1 < argc)
        scale = atoi (argv[++i]);
      else if (strcmp (argv[i], "--long") == 0 && i + 1 < argc)
        long_length = atol (argv[++i]);
      else if (strcmp (argv[i], "--output") == 0 && i + 1 < argc)
        output = argv[++i];
      else if (strcmp (argv[i], "--load-again") == 0 && i + 1 < argc)
        load_again = argv[++i];
      else if (strcmp (argv[i], "--foreign") == 0)
        foreign = true;
      else if (strcmp (argv[i], "--mutate-gc") == 0)
        mutate = true;
      else if (strcmp (argv[i], "--stats") == 0)
        stats = true;
      else if (strcmp (argv[i], "--contract") == 0)
        contract = true;
      else if (strcmp (argv[i], "--refuse-registration") == 0)
        refuse = true;
      else if (strcmp (argv[i], "--clear-registration") == 0)
        clear = true;
      else if (strcmp (argv[i], "--strict") == 0)
        dumper_set_strict_lint (true);
      else if (strcmp (argv[i], "--late-heap-description") == 0
               || strcmp (argv[i], "--wide-types") == 0
               || strcmp (argv[i], "--no-layouts") == 0)
        ;   /* above */
      else if (strcmp (argv[i], "--bad") == 0 && i + 1 < argc)
        {
          if (!parse_bad (argv[++i]))
            return 64;
        }
      else
        {
          fprintf (stderr, "toyhost: unknown argument %s\n", argv[i]);
          return 64;
        }
    }

  if (!initialized)
    {
      init_once (scale, long_length, foreign);
      if (bad_mode != BAD_NONE)
        init_bad ();
      if (refuse)
        refuse_registrations (clear);
      dumper_mark_initialized ();
    }
  if (contract)
    return check_contract ();
  if (load_again)
    {
      if (pdump_load == NULL)
        {
          fprintf (stderr, "toyhost: --load-again needs a pdumper build\n");
          return 64;
        }
      char detail[512] = "";
      unsigned char fp[DUMPER_FINGERPRINT_SIZE];
      st = dumper_fingerprint (fp);
      if (st != DUMPER_OK)
        return dumper_report ("toyhost", st);
      struct pdump_load_request req = {
        .path = load_again, .fingerprint = fp,
        .detail = detail, .detail_size = sizeof detail
      };
      struct pdump_entry *entries = NULL;
      size_t count = 0;
      st = pdump_load (&req, &entries, &count);
      printf ("load again: %s: %s\n", dumper_strerror (st), detail);
      free (entries);
      return st == DUMPER_OK ? 0 : 3;
    }
  if (will_dump)
    {
      st = dumper_dump (output);
      if (st != DUMPER_OK)
        return dumper_report ("toyhost", st);
      if (stats)
        {
          const struct pdump_dump_stats *s = pdump_dump_stats ();
          printf ("dump: %llu bytes, %llu objects, %llu image relocs, %llu exe relocs\n",
                  (unsigned long long) s->file_size,
                  (unsigned long long) s->object_count,
                  (unsigned long long) s->image_relocs,
                  (unsigned long long) s->exe_relocs);
        }
      return 0;
    }
  if (bad_mode == BAD_CALLBACK || bad_mode == BAD_CODE_TABLE)
    {
      /* Call through the heap's code pointer: in a start from a dump it
         is the loader's (pdump: a declared function's address, or a
         code table's member read from toy_ops) or the saved
         executable's (unexec).  */
      const struct bad *b = untag (bad_root);
      if (b == NULL || b->fn == NULL)
        {
          fprintf (stderr, "toyhost: no callback in the heap\n");
          return 2;
        }
      b->fn ();
      if (bad_mode == BAD_CALLBACK)
        printf ("callback=%d fn_is_toy_callback=%d\n", callback_runs,
                b->fn == toy_callback);
      else
        printf ("code-table: runs=%d fn_is_toy_op_scale=%d\n", callback_runs,
                b->fn == toy_op_scale);
    }
  if (bad_mode == BAD_BY_HEADER && check_by_header () != 0)
    return 2;
  printf ("origin=%d hooks=%d digest=%016llx\n",
          (int) dumper_start_info ()->origin, hook_runs,
          (unsigned long long) digest ());
  if (stats && dumped_with_pdumper)
    {
      const struct pdump_stats *s = pdump_stats ();
      printf ("load: %s %s, %.3f ms, %llu image relocs, %llu exe relocs\n",
              s->path, s->mapped ? "mapped" : "read", s->total_seconds * 1e3,
              (unsigned long long) s->image_relocs,
              (unsigned long long) s->exe_relocs);
      printf ("world_at=%p exe_at=%p\n", untag (world), (void *) &variant);
      printf ("placement=%d\n", (int) s->placement);
      printf ("structure: %s\n", s->structure_check);
      printf ("phases: open %.3f map %.3f verify %.3f relocate %.3f restore "
              "%.3f hooks %.3f ms; %ld minor faults\n", s->open_seconds * 1e3,
              s->map_seconds * 1e3, s->verify_seconds * 1e3,
              s->relocate_seconds * 1e3, s->restore_seconds * 1e3,
              s->hooks_seconds * 1e3, s->minor_faults);
    }
  int status = mutate ? mutate_and_collect () : 0;
  /* The index is malloc'd and may hang off a table inside the image,
     where leak checkers do not look.  */
  struct table *tb = untag (the_table);
  free (tb->index);
  tb->index = NULL;
  return status;
}

/* See toy_ops.  */
DUMPER_DECLARE_CODE_TABLE (toy_ops, fn);
