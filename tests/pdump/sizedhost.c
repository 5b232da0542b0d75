/* SPDX-License-Identifier: MIT */
/* tests/pdump/sizedhost.c: a host whose heap has owner-sized blocks
   (dumper_trace_sized) and interior pointers (dumper_trace_interior),
   for tests/e2e/sized.sh, in every back end.

   Two "threads" share one value stack, an array of tagged words whose
   length only they know (capacity); each has a top pointer into it and
   an end pointer one past it, a pointer-free code array (also
   owner-sized, so in COLD) with a program counter into it (the second
   thread's one past its end), a pointer to its own `value' field, a
   label pointer into a static string of the executable and a cursor
   into a byte block (dumper_trace_bytes) of its own.
   After a start it checks every relation and prints them; a start
   from an image must print what a cold start prints.

   With --big N, the second thread's value starts a chain of N more
   threads, each with a stack of BIG_SLOTS slots, the first holding the
   next thread (a tagged word), the others fresh cells: the next thread
   is placed when its predecessor's stack is traced and traced after
   all those cells, several MiB of HOT later, so the pdump writer has
   already written it out (a late object) when it resolves its interior
   pointers, which are then laid over HOT as it is read back.

   Usage: sizedhost [--bad SCENARIO] [--gc] [--big N]
                    [--temacs=... --output FILE]
     --bad SCENARIO   break one rule of heap.h (see bad_names): the
                      dump, or the heap description, must refuse it
     --gc             after a start from a pdump image, mark the
                      owner-sized blocks with the image's mark bits and
                      check them (pdump/gc.c knows no size function)  */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/dumper.h>
#include <dumper/pdump.h>

DUMPER_DEFINE_FINGERPRINT;

typedef uintptr_t word;

enum { TAG_FIX = 0, TAG_CELL = 1, TAG_THREAD = 2 };
enum { T_THREAD, T_CELL, T_SLOTS, T_CODE, T_COUNT };

/* What tests/e2e/sized.sh finds the first thread by in an image: it is
   the first HOT object (the root), at HOT offset 0.  */
#define THREAD_MAGIC ((word) 0x54480001u)

struct cell { word car, cdr; };
/* Every field a word (uintptr_t or a pointer), so that field N lies at
   N words on every word size (sized.sh names the fields by offset).  */
struct thread
{
  word magic;
  word *stack;              /* sized: T_SLOTS, capacity words */
  word capacity;
  word *top;                /* interior: the first free slot */
  word *end;                /* interior: one past the last slot */
  uint32_t *code;           /* sized: T_CODE, code_length words of 4 */
  word code_length;
  uint32_t *pc;             /* interior into code (or one past it) */
  word *self;               /* interior: &value, into this object */
  word value;               /* tagged */
  struct thread *peer;
  const char *label;        /* interior: into labels, in the executable */
  char *text;               /* a byte block of TEXT_BYTES */
  char *cursor;             /* interior into text */
};

#define TEXT_BYTES 16
static const char labels[] = "main-thread:second-thread";

/* The --bad scenarios: each breaks one rule, refused as the test
   expects (sized.sh).  */
enum bad_mode
{
  BAD_NONE,
  BAD_DISAGREE,       /* the second thread reports a shorter stack */
  BAD_OVERRUN,        /* capacity larger than the stack's block */
  BAD_UNREACHED,      /* top points into a block nobody reaches */
  BAD_SIZED_AS_PTR,   /* code reported with dumper_trace_ptr */
  BAD_PTR_AS_SIZED,   /* peer reported with dumper_trace_sized */
  BAD_DESC_TRACE,     /* the owner-sized slots type has a trace */
  BAD_DESC_SIZED,     /* the cell type has a trace_sized */
  BAD_DESC_TAG,       /* a tag (3) maps to the owner-sized slots type */
  BAD_EMPTY           /* a code array of length 0, not NULL */
};
static const char *const bad_names[] = {
  "none", "disagree", "overrun", "unreached", "sized-as-ptr",
  "ptr-as-sized", "desc-trace", "desc-sized", "desc-tag", "empty"
};
static enum bad_mode bad_mode;

static word make_fix (intptr_t n) { return (word) n << 3; }
static intptr_t fix_value (word w) { return (intptr_t) w >> 3; }
static void *untag (word w) { return (void *) (w & ~(word) 7); }

/* ------------------------------------------------------------------ */
/* The heap description.  */

static size_t thread_size (const void *o) { (void) o; return sizeof (struct thread); }
static size_t cell_size (const void *o) { (void) o; return sizeof (struct cell); }

/* LENGTH elements of ELEMENT bytes, or SIZE_MAX when that wraps
   (heap.h: a hostile length is reported as SIZE_MAX).  */
static size_t
array_bytes (uint64_t length, size_t element)
{
  return length > SIZE_MAX / element ? SIZE_MAX : (size_t) length * element;
}

static void
thread_trace (const void *o, struct dumper_tracer *t)
{
  const struct thread *th = o;
  size_t stack_bytes = array_bytes (th->capacity, sizeof (word));
  dumper_trace_sized (t, (void *const *) &th->stack, T_SLOTS, stack_bytes);
  dumper_trace_interior (t, (void *const *) &th->top);
  dumper_trace_interior (t, (void *const *) &th->end);
  size_t code_bytes = array_bytes (th->code_length, sizeof (uint32_t));
  if (bad_mode == BAD_SIZED_AS_PTR)
    dumper_trace_ptr (t, (void *const *) &th->code, T_CODE);
  else
    dumper_trace_sized (t, (void *const *) &th->code, T_CODE, code_bytes);
  dumper_trace_interior (t, (void *const *) &th->pc);
  dumper_trace_interior (t, (void *const *) &th->self);
  dumper_trace_word (t, &th->value);
  if (bad_mode == BAD_PTR_AS_SIZED)
    dumper_trace_sized (t, (void *const *) &th->peer, T_THREAD,
                        sizeof (struct thread));
  else
    dumper_trace_ptr (t, (void *const *) &th->peer, T_THREAD);
  dumper_trace_interior (t, (void *const *) &th->label);
  dumper_trace_bytes (t, (void *const *) &th->text, TEXT_BYTES);
  dumper_trace_interior (t, (void *const *) &th->cursor);
}

static void
cell_trace (const void *o, struct dumper_tracer *t)
{
  const struct cell *c = o;
  dumper_trace_word (t, &c->car);
  dumper_trace_word (t, &c->cdr);
}

static void
slots_trace (const void *o, size_t nbytes, struct dumper_tracer *t)
{
  const word *slots = o;
  for (size_t i = 0; i < nbytes / sizeof (word); i++)
    dumper_trace_word (t, &slots[i]);
}

/* Not const: the --bad desc-* scenarios break it before describing.  */
static struct dumper_type types[T_COUNT] = {
  [T_THREAD] = { .name = "thread", .size = thread_size, .trace = thread_trace },
  [T_CELL] = { .name = "cell", .size = cell_size, .trace = cell_trace },
  [T_SLOTS] = { .name = "slots", .trace_sized = slots_trace },
  [T_CODE] = { .name = "code" },
};

static int tag_types[8] = {
  DUMPER_TAG_IMMEDIATE, T_CELL, T_THREAD, DUMPER_TAG_IMMEDIATE,
  DUMPER_TAG_IMMEDIATE, DUMPER_TAG_IMMEDIATE, DUMPER_TAG_IMMEDIATE,
  DUMPER_TAG_IMMEDIATE
};

static const struct dumper_heap heap = {
  .types = types, .type_count = T_COUNT, .tag_bits = 3,
  .tag_types = tag_types, .header_type = NULL
};

/* ------------------------------------------------------------------ */
/* State.  */

static struct thread *main_thread;     /* remembered raw pointer */

#ifdef SIZED_DECLARE_SLOTS
/* sizedhost-declared: static objects declared with an owner-sized
   type, which the heap description's check must refuse (nothing could
   tell their length).  */
static word static_slots[4];
DUMPER_DECLARE_OBJECTS (static_slots, T_SLOTS);
#endif

#define STACK_SLOTS 16

static void *
alloc (size_t size)
{
  void *p = dumper_alloc (size);
  if (p == NULL)
    {
      fprintf (stderr, "sizedhost: out of memory\n");
      exit (71);
    }
  memset (p, 0, size);
  return p;
}

static word
cons (word car, word cdr)
{
  struct cell *c = alloc (sizeof *c);
  c->car = car;
  c->cdr = cdr;
  return (word) c + TAG_CELL;
}

static uint32_t *
make_code (uint64_t length, uint32_t first)
{
  uint32_t *code = alloc (length * sizeof *code);
  for (uint64_t i = 0; i < length; i++)
    code[i] = first + 10 * (uint32_t) i;
  return code;
}

static struct thread *
make_thread (word *stack, uint64_t capacity, uint64_t used, uint32_t *code,
             uint64_t code_length, uint64_t pc)
{
  struct thread *th = alloc (sizeof *th);
  th->magic = THREAD_MAGIC;
  th->stack = stack;
  th->capacity = capacity;
  th->top = stack + used;
  th->end = stack + capacity;
  th->code = code;
  th->code_length = code_length;
  th->pc = code + pc;
  th->self = &th->value;
  th->label = labels + (used == 5 ? 0 : 12);
  th->text = alloc (TEXT_BYTES);
  memcpy (th->text, "0123456789abcdef", TEXT_BYTES);
  th->cursor = th->text + used % (TEXT_BYTES + 1);   /* up to one past */
  return th;
}

static void
init_once (void)
{
  enum dumper_status st = DUMPER_REMEMBER_PTR (main_thread, T_THREAD);
  if (st != DUMPER_OK)
    exit (dumper_report ("sizedhost", st));
  word *stack = alloc (STACK_SLOTS * sizeof *stack);
  for (int i = 0; i < STACK_SLOTS; i++)
    stack[i] = make_fix (0);
  /* Five live slots: lists of fixnums, one shared.  */
  word shared = cons (make_fix (100), make_fix (0));
  for (int i = 0; i < 5; i++)
    stack[i] = cons (make_fix (i + 1), i % 2 ? shared : make_fix (0));
  struct thread *a = make_thread (stack, STACK_SLOTS, 5, make_code (5, 10),
                                  5, 2);
  /* The second thread: the same stack, its program counter one past
     the end of its code.  */
  struct thread *b = make_thread (stack, STACK_SLOTS, 2, make_code (3, 7),
                                  3, 3);
  a->value = cons (make_fix (42), make_fix (0));
  b->value = make_fix (-1);
  a->peer = b;
  b->peer = a;
  main_thread = a;
  if (bad_mode == BAD_DISAGREE)
    b->capacity = STACK_SLOTS - 1;
  if (bad_mode == BAD_OVERRUN)
    a->capacity = b->capacity = 1000;
  if (bad_mode == BAD_UNREACHED)
    a->top = (word *) alloc (64) + 1;
  if (bad_mode == BAD_EMPTY)
    {
      b->code_length = 0;
      b->pc = b->code;
    }
}

/* --big: 2 MiB of cells in each stack, more than the writer's HOT
   window (pdump/walkint.h, HOT_WINDOW_MAX).  */
#define BIG_SLOTS ((uint64_t) 1 << 17)

/* Thread I of the --big chain: I is its value, and its top and pc
   depend on it.  */
static struct thread *
make_big (uint64_t i)
{
  word *stack = alloc (BIG_SLOTS * sizeof *stack);
  stack[0] = make_fix (0);
  for (uint64_t s = 1; s < BIG_SLOTS; s++)
    stack[s] = cons (make_fix ((intptr_t) (s % 7)), make_fix (0));
  struct thread *th = make_thread (stack, BIG_SLOTS, 1 + i % 100,
                                   make_code (4, (uint32_t) i), 4, i % 5);
  th->value = make_fix ((intptr_t) i);
  return th;
}

static void
init_big (struct thread *b, uint64_t count)
{
  word *link = &b->value;
  for (uint64_t i = 0; i < count; i++)
    {
      struct thread *th = make_big (i);
      *link = (word) th + TAG_THREAD;
      link = &th->stack[0];
    }
}

/* ------------------------------------------------------------------ */
/* The relations a start must keep.  */

/* The --big chain from the second thread B: "big: ok" and its length,
   or what broke.  */
static int
check_big (const struct thread *b)
{
  uint64_t i = 0;
  long sum = 0;
  for (word w = b->value; (w & 7) == TAG_THREAD; i++)
    {
      const struct thread *th = untag (w);
      if (th->magic != THREAD_MAGIC || th->capacity != BIG_SLOTS
          || th->top != th->stack + 1 + i % 100
          || th->end != th->stack + BIG_SLOTS
          || th->pc != th->code + i % 5 || th->self != &th->value
          || th->label != labels + 12
          || th->cursor != th->text + (1 + i % 100) % (TEXT_BYTES + 1)
          || th->value != make_fix ((intptr_t) i))
        {
          printf ("big: thread %" PRIu64 " broken\n", i);
          return 3;
        }
      for (uint64_t s = 1; s < BIG_SLOTS; s++)
        sum += fix_value (((struct cell *) untag (th->stack[s]))->car);
      w = th->stack[0];
    }
  printf ("big: ok threads=%" PRIu64 " cell-sum=%ld\n", i, sum);
  return 0;
}

static int
check_relations (void)
{
  const struct thread *a = main_thread, *b = a ? a->peer : NULL;
  const char *broken = NULL;
  if (a == NULL || b == NULL || b->peer != a)
    broken = "peers";
  else if (a->magic != THREAD_MAGIC || b->magic != THREAD_MAGIC)
    broken = "magic";
  else if (b->stack != a->stack || a->capacity != STACK_SLOTS
           || b->capacity != STACK_SLOTS)
    broken = "shared stack";
  else if (a->top != a->stack + 5 || b->top != b->stack + 2)
    broken = "top";
  else if (a->end != a->stack + STACK_SLOTS || b->end != a->end)
    broken = "end (one past the stack)";
  else if (a->pc != a->code + 2 || *a->pc != 30)
    broken = "pc";
  else if (b->pc != b->code + b->code_length)
    broken = "pc one past the code";
  else if (a->self != &a->value || b->self != &b->value)
    broken = "self";
  else if (a->label != labels || b->label != labels + 12)
    broken = "label (into the executable)";
  else if (a->cursor != a->text + 5 || *a->cursor != '5'
           || b->cursor != b->text + 2)
    broken = "cursor (into a byte block)";
  if (broken)
    {
      printf ("relations: broken: %s\n", broken);
      return 3;
    }
  long sum = 0;
  for (const word *s = a->stack; s < a->top; s++)
    for (word w = *s; (w & 7) == TAG_CELL; w = ((struct cell *) untag (w))->cdr)
      sum += fix_value (((struct cell *) untag (w))->car);
  long code = 0;
  for (uint64_t i = 0; i < a->code_length; i++)
    code += a->code[i];
  for (uint64_t i = 0; i < b->code_length; i++)
    code += b->code[i];
  long value = fix_value (((struct cell *) untag (a->value))->car);
  printf ("relations: ok stack-sum=%ld code-sum=%ld value=%ld\n", sum, code,
          value);
  return (b->value & 7) == TAG_THREAD ? check_big (b) : 0;
}

/* --gc: the image's mark bits hold owner-sized blocks like any object:
   each gets a bit of its own by its start.  */
static int
check_marks (void)
{
  if (!dumper_dumped_with_pdumper)
    {
      fprintf (stderr, "sizedhost: --gc needs a start from a pdump image\n");
      return 2;
    }
  const struct thread *a = main_thread, *b = a->peer;
  const void *objects[] = { a, b, a->stack, a->code, b->code };
  size_t count = sizeof objects / sizeof objects[0];
  pdump_clear_marks ();
  for (size_t i = 0; i < count; i++)
    {
      if (!pdump_object_p (objects[i]))
        {
          printf ("gc: object %zu is not in the image\n", i);
          return 4;
        }
      if (pdump_marked_p (objects[i]))
        {
          printf ("gc: object %zu marked before its mark\n", i);
          return 4;
        }
      pdump_set_marked (objects[i]);
    }
  for (size_t i = 0; i < count; i++)
    if (!pdump_marked_p (objects[i]))
      {
        printf ("gc: object %zu lost its mark\n", i);
        return 4;
      }
  pdump_clear_marks ();
  for (size_t i = 0; i < count; i++)
    if (pdump_marked_p (objects[i]))
      return 4;
  printf ("gc: ok (%zu objects marked and cleared)\n", count);
  return 0;
}

/* ------------------------------------------------------------------ */

static bool
parse_bad (const char *name)
{
  for (size_t k = 1; k < sizeof bad_names / sizeof bad_names[0]; k++)
    if (strcmp (bad_names[k], name) == 0)
      {
        bad_mode = (enum bad_mode) k;
        return true;
      }
  fprintf (stderr, "sizedhost: unknown --bad scenario %s\n", name);
  return false;
}

int
main (int argc, char **argv)
{
  /* The trace depends on the scenario, and verify=structure traces
     inside dumper_startup.  */
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp (argv[i], "--bad") == 0 && !parse_bad (argv[i + 1]))
      return 64;
  if (bad_mode == BAD_DESC_TRACE)
    types[T_SLOTS].trace = cell_trace;
  else if (bad_mode == BAD_DESC_SIZED)
    types[T_CELL].trace_sized = slots_trace;
  else if (bad_mode == BAD_DESC_TAG)
    tag_types[3] = T_SLOTS;
  enum dumper_status st = dumper_describe_heap (&heap);
  if (st != DUMPER_OK)
    return dumper_report ("sizedhost", st);
  st = dumper_startup (&argc, &argv);
  if (st != DUMPER_OK)
    return dumper_report ("sizedhost", st);

  bool gc = false;
  long big = 0;
  const char *output = NULL;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--output") == 0 && i + 1 < argc)
        output = argv[++i];
      else if (strcmp (argv[i], "--gc") == 0)
        gc = true;
      else if (strcmp (argv[i], "--big") == 0 && i + 1 < argc)
        big = atol (argv[++i]);
      else if (strcmp (argv[i], "--bad") == 0 && i + 1 < argc)
        i++;
      else
        {
          fprintf (stderr, "sizedhost: unknown argument %s\n", argv[i]);
          return 64;
        }
    }
  if (!initialized)
    {
      init_once ();
      if (big > 0)
        init_big (main_thread->peer, (uint64_t) big);
      dumper_mark_initialized ();
    }
  if (will_dump)
    {
      st = dumper_dump (output);
      if (st != DUMPER_OK)
        return dumper_report ("sizedhost", st);
      if (DUMPER_WITH_PDUMPER)
        printf ("late objects: %" PRIu64 "\n", pdump_dump_stats ()->late_objects);
      return 0;
    }
  printf ("origin=%d\n", (int) dumper_start_info ()->origin);
  int status = check_relations ();
  if (status == 0 && gc)
    status = check_marks ();
  return status;
}
