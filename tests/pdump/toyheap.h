/* SPDX-License-Identifier: MIT */
/* tests/pdump/toyheap.h: toyhost's objects and heap description, shared
   by toyhost.c and the loader fuzz target (tests/fuzz/fuzz_load.c),
   which verifies toyhost images with the same trace functions.  Only
   definitions a user of the description needs: everything here is
   static and included by one file per program.  */

#ifndef DUMPER_TOYHEAP_H
#define DUMPER_TOYHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/heap.h>

/* ------------------------------------------------------------------ */
/* Objects.  Tags: 0 fixnum, 1 pair, 2 by header, 3 float, 4 builtin.  */

typedef uintptr_t word;

enum { TAG_FIX = 0, TAG_PAIR = 1, TAG_HDR = 2, TAG_FLOAT = 3, TAG_BUILTIN = 4 };
enum { T_PAIR, T_VEC, T_TABLE, T_BOX, T_FLOAT, T_BAD, T_COUNT };

struct pair { word car, cdr; };
struct header { uint32_t type; uint32_t length; };
struct vec { struct header h; word items[]; };
/* An address-hashed table: keys are compared by identity, so its index
   depends on addresses and is dropped from the image (fixup) and
   rebuilt on first use.  */
struct table
{
  struct header h;
  word keys;            /* a vec */
  word values;          /* a vec */
  int32_t *index;       /* NULL until built; not in the image */
  uint64_t index_size;
};
struct box
{
  struct header h;
  struct box *next;     /* raw pointer to a box */
  char *name;           /* raw pointer to bytes */
  uint64_t name_length;
  const struct builtin *fn;   /* raw pointer into the executable */
};
struct flonum { double value; };
/* Only in a --bad run: an object whose fields or trace break a rule of
   heap.h in the way the --bad argument names.  */
struct bad
{
  struct header h;
  word a;
  word b;
  struct box *p;
  char *bytes;
  uint64_t bytes_length;
  void (*fn) (void);
};

/* 16 bytes with either word size (the alignment pads i386's 8), so a
   tagged word (3 tag bits) can point 8 bytes into an element, keeping
   its tag: refuse.sh's --bad exe-interior and the mutator's `exe' kind
   (trust.sh) need an inside that is not the next element.  */
struct builtin { _Alignas (16) const char *name; int arity; };
/* ------------------------------------------------------------------ */
/* The heap description.  */

/* The --bad scenarios (see init_bad).  */
enum bad_mode
{
  BAD_NONE, BAD_INTERIOR, BAD_INTERIOR_PTR, BAD_MALLOC, BAD_MALLOC_WORD,
  BAD_MALLOC_BYTES, BAD_TWICE_WORD, BAD_TWICE_IMMEDIATE, BAD_TWICE_EXE,
  BAD_TWICE_PTR, BAD_TWICE_BYTES, BAD_TWICE_MIXED, BAD_CODE, BAD_HEAPWORD,
  /* Not bad: fn reported with dumper_trace_code, a declared target.  */
  BAD_CALLBACK,
  /* fn reported with dumper_trace_code, a target not declared.  */
  BAD_CODE_UNDECLARED,
  /* a points into the executable: outside the declared static objects,
     or into the middle of one.  */
  BAD_EXE_UNDECLARED, BAD_EXE_INTERIOR,
  /* Not bad: a is a raw pointer to a vec and p a NULL, both reported
     with type DUMPER_TAG_BY_HEADER; b the same vec tagged; bytes a
     NULL with the header tag, reported as a word.  */
  BAD_BY_HEADER,
  /* As BAD_BY_HEADER, but the vec is reached only through a, and holds
     a pointer to malloc memory: the check must follow a into it.  */
  BAD_BY_HEADER_MALLOC,
  /* Not bad: every field set (p a box, bytes a block of its own, fn
     toy_callback) and reported as in BAD_CALLBACK: the image that
     tests/pdump/mutkill-verify.sh edits one field of.  */
  BAD_FIELDS,
  /* Loading only: the trace reports the word before the object first
     (then as BAD_CALLBACK).  */
  BAD_FIELD_BEFORE,
  /* The trace breaks heap.h for the pre-dump check (bridge/refcheck.c)
     alone to refuse: a field in another object (a's vec); the word
     just past the object's end; a field half a word into a; p, holding
     builtins[0] (declared T_BOX), reported as a T_PAIR pointer.  */
  BAD_FIELD_OUTSIDE, BAD_FIELD_TAIL, BAD_FIELD_UNALIGNED, BAD_EXE_TYPE,
  /* Not bad: fn a function declared only as an element of a code table
     (DUMPER_DECLARE_CODE_TABLE), reported as in BAD_CALLBACK.  */
  BAD_CODE_TABLE,
  /* fn a function of a shared library (the C library's abs, found with
     dlsym as a module's would be), reported as in BAD_CALLBACK.  */
  BAD_CODE_LIBRARY,
  /* A trace that answers differently on another call: the word just
     past the object's end, reported from its second call on.  The
     pre-dump check's call (the first) sees a good object, so only the
     pdump walk's guard (pdump_walk_unchecked) can refuse it.  */
  BAD_FIELD_FLAKY,
  /* Layouts (heap.h, struct dumper_layout): `bad' gets one (toyhost.c,
     bad_layout) and its trace reports a and b, both words.  Not bad:
     the layout says what size and trace say.  */
  BAD_LAYOUT_OK,
  /* The layout disagrees, for the pre-dump check to refuse: its words
     lack b; name p too; the trace reports b (a raw pointer to a pair)
     with dumper_trace_ptr; the trace also reports bytes, fn, p (NULLs)
     with dumper_trace_bytes, _code, _sized, _interior; its fixed size
     is a word short; a word long; its count is read at the wrong
     offset; its header_value is not T_BAD; its count is bytes_length
     (2^64-1), whose size wraps; the header's length is 1 and the
     layout's fixed part a word short, so fn is a tail word the trace
     does not report; vec's layout lacks element_words, so the tail
     words vec_trace reports are not layout words.  BAD_LAYOUT_BIG: b
     is a vec of 100 words (its bitmap is more than one word of the
     pre-dump check's), not bad; BAD_LAYOUT_BIG_MISSING: vec_trace
     leaves out item 90 of such a vec.  */
  BAD_LAYOUT_MISSING, BAD_LAYOUT_EXTRA, BAD_LAYOUT_PTR, BAD_LAYOUT_BYTES,
  BAD_LAYOUT_CODE, BAD_LAYOUT_SIZED, BAD_LAYOUT_INTERIOR,
  BAD_LAYOUT_FIXED_SMALL, BAD_LAYOUT_FIXED_BIG, BAD_LAYOUT_COUNT,
  BAD_LAYOUT_HEADER, BAD_LAYOUT_WRAP, BAD_LAYOUT_TAIL_MISSING,
  BAD_LAYOUT_BIG, BAD_LAYOUT_BIG_MISSING, BAD_LAYOUT_VEC_TAIL
};
static enum bad_mode bad_mode;

/* Whether `bad' has a layout (the --bad layout-* scenarios).  */
static bool
bad_layout_mode (void)
{
  return bad_mode >= BAD_LAYOUT_OK && bad_mode <= BAD_LAYOUT_VEC_TAIL;
}


static size_t pair_size (const void *o) { (void) o; return sizeof (struct pair); }
static size_t float_size (const void *o) { (void) o; return sizeof (struct flonum); }
static size_t table_size (const void *o) { (void) o; return sizeof (struct table); }
static size_t box_size (const void *o) { (void) o; return sizeof (struct box); }
static size_t bad_size (const void *o) { (void) o; return sizeof (struct bad); }
static size_t
vec_size (const void *o)
{
  return sizeof (struct vec) + ((const struct vec *) o)->h.length * sizeof (word);
}

static void
pair_trace (const void *o, struct dumper_tracer *t)
{
  const struct pair *p = o;
  dumper_trace_word (t, &p->car);
  dumper_trace_word (t, &p->cdr);
}

static void
vec_trace (const void *o, struct dumper_tracer *t)
{
  const struct vec *v = o;
  for (uint32_t i = 0; i < v->h.length; i++)
    if (!(i == 90 && bad_mode == BAD_LAYOUT_BIG_MISSING))
      dumper_trace_word (t, &v->items[i]);
}

static void
table_trace (const void *o, struct dumper_tracer *t)
{
  const struct table *tb = o;
  dumper_trace_word (t, &tb->keys);
  dumper_trace_word (t, &tb->values);
}

static void
table_fixup (const void *o, void *copy)
{
  (void) o;
  struct table *c = copy;
  c->index = NULL;
  c->index_size = 0;
}

static void
box_trace (const void *o, struct dumper_tracer *t)
{
  const struct box *b = o;
  dumper_trace_ptr (t, (void *const *) &b->next, T_BOX);
  dumper_trace_bytes (t, (void *const *) &b->name, b->name_length);
  dumper_trace_ptr (t, (void *const *) &b->fn, T_BOX);
}

static void
bad_trace (const void *o, struct dumper_tracer *t)
{
  const struct bad *b = o;
  switch (bad_mode)
    {
    case BAD_TWICE_WORD: case BAD_TWICE_IMMEDIATE: case BAD_TWICE_EXE:
      dumper_trace_word (t, &b->a);
      dumper_trace_word (t, &b->a);
      return;
    case BAD_TWICE_PTR:
      dumper_trace_ptr (t, (void *const *) &b->p, T_BOX);
      dumper_trace_ptr (t, (void *const *) &b->p, T_BOX);
      return;
    case BAD_TWICE_BYTES:
      dumper_trace_bytes (t, (void *const *) &b->bytes, b->bytes_length);
      dumper_trace_bytes (t, (void *const *) &b->bytes, b->bytes_length);
      return;
    case BAD_TWICE_MIXED:
      dumper_trace_word (t, &b->a);
      dumper_trace_ptr (t, (void *const *) &b->a, T_PAIR);
      return;
    case BAD_BY_HEADER:
    case BAD_BY_HEADER_MALLOC:
      dumper_trace_ptr (t, (void *const *) &b->a, DUMPER_TAG_BY_HEADER);
      dumper_trace_word (t, &b->b);
      dumper_trace_ptr (t, (void *const *) &b->p, DUMPER_TAG_BY_HEADER);
      dumper_trace_word (t, (const uintptr_t *) &b->bytes);
      return;
    case BAD_HEAPWORD:
      /* b holds a heap address and is not reported.  */
      dumper_trace_word (t, &b->a);
      dumper_trace_ptr (t, (void *const *) &b->p, T_BOX);
      return;
    case BAD_FIELD_OUTSIDE:
      /* The first item of the vec a points to: valid memory, holding a
         fixnum, but another object's.  */
      dumper_trace_word (t, &((const struct vec *) (b->a & ~(word) 7))->items[0]);
      return;
    case BAD_FIELD_TAIL:
      /* Aligned, at offset == size: the word would overrun the end.  */
      dumper_trace_word (t, (const uintptr_t *) (b + 1));
      return;
    case BAD_FIELD_UNALIGNED:
      dumper_trace_word (t, (const uintptr_t *) ((const char *) &b->a
                                                 + sizeof (word) / 2));
      return;
    case BAD_EXE_TYPE:
      dumper_trace_word (t, &b->a);
      dumper_trace_ptr (t, (void *const *) &b->p, T_PAIR);
      return;
    case BAD_FIELD_FLAKY:
      {
        static int calls;
        if (++calls >= 2)
          dumper_trace_word (t, (const uintptr_t *) (b + 1));
        dumper_trace_word (t, &b->a);
        return;
      }
    case BAD_LAYOUT_PTR:
      dumper_trace_word (t, &b->a);
      dumper_trace_ptr (t, (void *const *) &b->b, T_PAIR);
      return;
    default:
      if (!bad_layout_mode ())
        break;
      dumper_trace_word (t, &b->a);
      dumper_trace_word (t, &b->b);
      if (bad_mode == BAD_LAYOUT_BYTES)
        dumper_trace_bytes (t, (void *const *) &b->bytes, 0);
      else if (bad_mode == BAD_LAYOUT_CODE)
        dumper_trace_code (t, &b->fn);
      else if (bad_mode == BAD_LAYOUT_SIZED)
        dumper_trace_sized (t, (void *const *) &b->p, T_BOX, 0);
      else if (bad_mode == BAD_LAYOUT_INTERIOR)
        dumper_trace_interior (t, (void *const *) &b->p);
      return;
    case BAD_FIELD_BEFORE:
      dumper_trace_word (t, (const uintptr_t *) o - 1);
      /* FALLTHROUGH */
    case BAD_CALLBACK:
    case BAD_CODE_UNDECLARED:
    case BAD_FIELDS:
    case BAD_CODE_TABLE:
    case BAD_CODE_LIBRARY:
      dumper_trace_word (t, &b->a);
      dumper_trace_word (t, &b->b);
      dumper_trace_ptr (t, (void *const *) &b->p, T_BOX);
      dumper_trace_bytes (t, (void *const *) &b->bytes, b->bytes_length);
      dumper_trace_code (t, &b->fn);
      return;
    }
  /* fn (a code pointer) is never reported: BAD_CODE.  */
  dumper_trace_word (t, &b->a);
  dumper_trace_word (t, &b->b);
  dumper_trace_ptr (t, (void *const *) &b->p, T_BOX);
  dumper_trace_bytes (t, (void *const *) &b->bytes, b->bytes_length);
}

/* Layouts (heap.h): a pair is two tagged words; a vec a header whose
   type field is T_VEC, then LENGTH tagged words.  They say what
   pair_size/pair_trace and vec_size/vec_trace say (the pre-dump check
   compares them for every object).  */
static const struct dumper_layout pair_layout = {
  .fixed = sizeof (struct pair), .words = 3
};
static const struct dumper_layout vec_layout = {
  .fixed = sizeof (struct vec), .element = sizeof (word),
  .header_at = offsetof (struct header, type),
  .header_bytes = sizeof (uint32_t), .header_value = T_VEC,
  .count_at = offsetof (struct header, length),
  .count_bytes = sizeof (uint32_t), .element_words = true
};

static const struct dumper_type types[T_COUNT] = {
  [T_PAIR] = { .name = "pair", .size = pair_size, .trace = pair_trace,
               .layout = &pair_layout },
  [T_VEC] = { .name = "vec", .size = vec_size, .trace = vec_trace,
              .layout = &vec_layout },
  [T_TABLE] = { .name = "table", .size = table_size, .trace = table_trace,
                .fixup = table_fixup },
  [T_BOX] = { .name = "box", .size = box_size, .trace = box_trace },
  [T_FLOAT] = { .name = "float", .size = float_size },
  [T_BAD] = { .name = "bad", .size = bad_size, .trace = bad_trace },
};

static const int tag_types[8] = {
  DUMPER_TAG_IMMEDIATE, T_PAIR, DUMPER_TAG_BY_HEADER, T_FLOAT,
  T_BOX /* builtins live in the executable; never copied */,
  DUMPER_TAG_IMMEDIATE, DUMPER_TAG_IMMEDIATE, DUMPER_TAG_IMMEDIATE
};

static int
header_type (const void *o)
{
  return (int) ((const struct header *) o)->type;
}

static const struct dumper_heap heap = {
  types, T_COUNT, 3, tag_types, header_type
};

#endif /* DUMPER_TOYHEAP_H */
