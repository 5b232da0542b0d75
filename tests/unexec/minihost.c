/* SPDX-License-Identifier: MIT */
/* tests/unexec/minihost.c: a small host for the unexec end-to-end tests.

   It uses libdumper the way a runtime does: the standard start-up
   sequence, a heap built by the cold init from dumper_alloc (a linked
   list of labelled cells and a chained hash table of strings that grows
   with dumper_realloc), static pointers into that heap, a static table
   computed at init, and an after-load hook that counts how often it ran.
   It prints one line describing its state with a checksum of the
   contents (not of addresses), so a test can compare a cold start with
   a start from a dumped executable.

   Usage: minihost [--temacs=dump --output FILE] [--scale N] [--mutate N]
                   [--fill-arena] [--stray] [--stats]
     --mutate N    N rounds of GC-like churn after start-up: free a third
                   of the cells and some names, allocate new ones
     --fill-arena  allocate until the arena is exhausted (an error test)
     --stray       keep pointers to the malloc heap, libc and the stack
                   in statics, for the dump's pointer warnings
     --stats       after a dump, print the writer's figures

   It must be linked non-PIE and statically against libdumper.a, and
   stamped with dumper-fingerprint (see unexec/local.mk).  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/dumper.h>

/* Test-only: the arena's invariant check and the writer's figures.  */
#include "../../unexec/arena.h"
#include "../../unexec/backend.h"

DUMPER_DEFINE_FINGERPRINT;

struct cell
{
  struct cell *next;
  uint64_t value;
  char *label;
};

struct entry
{
  struct entry *next;
  char *key;
  uint64_t value;
};

struct names
{
  size_t capacity;            /* a power of two */
  size_t count;
  struct entry **buckets;
};

/* The state a dump must carry: static pointers into the arena, a table
   computed at init, counters.  */
static struct cell *list_head;
static struct names *names;
static uint32_t crc_table[256];
static int hook_runs;
static long generation;
static long scale_used;

/* For --stray: words the dump should warn about (volatile: they are
   never read, and must not be optimised away).  */
static void *volatile stray_heap;
static void *volatile stray_lib;
static void *volatile stray_stack;

static const char *program_name = "minihost";

/* Stored numbers carry the top bit, which no user-space address has, so
   the dump's pointer scan never mistakes one for a pointer (with ASLR
   off the malloc heap starts just past the arena, and a 32-bit hash can
   fall in its range).  */
#define NOT_A_POINTER (UINT64_C (1) << 63)

static void
die_nomem (void)
{
  exit (dumper_report (program_name,
                       DUMPER_WITH_UNEXEC ? DUMPER_E_ARENA_FULL
                                          : DUMPER_E_NOMEM));
}

static void *
xalloc (size_t size)
{
  void *p = dumper_alloc (size);
  if (p == NULL)
    die_nomem ();
  return p;
}

static char *
xstrdup (const char *s)
{
  size_t n = strlen (s) + 1;
  return memcpy (xalloc (n), s, n);
}

static void
crc_init (void)
{
  for (uint32_t i = 0; i < 256; i++)
    {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      crc_table[i] = c;
    }
}

static uint32_t
crc32_of (const char *s)
{
  uint32_t c = 0xFFFFFFFFu;
  for (; *s; s++)
    c = crc_table[(c ^ (unsigned char) *s) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

static uint64_t
fnv (uint64_t h, const void *data, size_t size)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < size; i++)
    h = (h ^ p[i]) * UINT64_C (0x100000001b3);
  return h;
}

#define FNV_START UINT64_C (0xcbf29ce484222325)

/* ------------------------------------------------------------------ */
/* The hash table of names.  */

static size_t
bucket_of (const char *key, size_t capacity)
{
  return (size_t) fnv (FNV_START, key, strlen (key)) & (capacity - 1);
}

/* Double the bucket array with dumper_realloc and rehash.  */
static void
names_grow (void)
{
  struct entry *all = NULL;
  for (size_t b = 0; b < names->capacity; b++)
    while (names->buckets[b])
      {
        struct entry *e = names->buckets[b];
        names->buckets[b] = e->next;
        e->next = all;
        all = e;
      }
  size_t capacity = names->capacity * 2;
  struct entry **buckets = dumper_realloc (names->buckets,
                                           capacity * sizeof *buckets);
  if (buckets == NULL)
    die_nomem ();
  memset (buckets, 0, capacity * sizeof *buckets);
  names->buckets = buckets;
  names->capacity = capacity;
  while (all)
    {
      struct entry *e = all;
      all = e->next;
      size_t b = bucket_of (e->key, capacity);
      e->next = buckets[b];
      buckets[b] = e;
    }
}

static void
names_put (const char *key, uint64_t value)
{
  if ((names->count + 1) * 2 > names->capacity)
    names_grow ();
  size_t b = bucket_of (key, names->capacity);
  for (struct entry *e = names->buckets[b]; e; e = e->next)
    if (strcmp (e->key, key) == 0)
      {
        e->value = value;
        return;
      }
  struct entry *e = xalloc (sizeof *e);
  e->key = xstrdup (key);
  e->value = value;
  e->next = names->buckets[b];
  names->buckets[b] = e;
  names->count++;
}

static void
names_delete (const char *key)
{
  struct entry **link = &names->buckets[bucket_of (key, names->capacity)];
  for (; *link; link = &(*link)->next)
    if (strcmp ((*link)->key, key) == 0)
      {
        struct entry *e = *link;
        *link = e->next;
        dumper_free (e->key);
        dumper_free (e);
        names->count--;
        return;
      }
}

/* ------------------------------------------------------------------ */
/* The cold init, the hook, and the churn.  */

static void
count_hook (void)
{
  hook_runs++;
}

static void
append_cells (long count, const char *prefix)
{
  struct cell **tail = &list_head;
  while (*tail)
    tail = &(*tail)->next;
  for (long i = 0; i < count; i++)
    {
      char label[64];
      snprintf (label, sizeof label, "%s-%ld", prefix, i);
      struct cell *c = xalloc (sizeof *c);
      c->value = NOT_A_POINTER | ((uint64_t) i * (uint64_t) i + crc32_of (label));
      c->label = xstrdup (label);
      *tail = c;
      tail = &c->next;
    }
}

static void
init_once (long scale)
{
  crc_init ();
  DUMPER_REMEMBER_SCALAR (crc_table);
  DUMPER_REMEMBER_SCALAR (generation);
  DUMPER_REMEMBER_PTR (list_head, 0);
  DUMPER_REMEMBER_PTR (names, 1);
  names = xalloc (sizeof *names);
  names->capacity = 8;
  names->buckets = xalloc (names->capacity * sizeof *names->buckets);
  append_cells (scale, "cell");
  for (long i = 0; i < scale; i++)
    {
      char key[64];
      snprintf (key, sizeof key, "name-%ld", i);
      names_put (key, NOT_A_POINTER | crc32_of (key));
    }
  scale_used = scale;
  DUMPER_DO_NOW_AND_AFTER_LOAD (count_hook);
}

/* Free about a third of the cells and a fifth of the names, then
   allocate new ones: the pattern of a collector's sweep followed by
   more work.  */
static void
mutate (void)
{
  generation++;
  struct cell **link = &list_head;
  while (*link)
    {
      struct cell *c = *link;
      if (c->value % 3 == (uint64_t) generation % 3)
        {
          *link = c->next;
          dumper_free (c->label);
          dumper_free (c);
        }
      else
        link = &c->next;
    }
  char prefix[32];
  snprintf (prefix, sizeof prefix, "gen%ld", generation);
  append_cells (scale_used / 4 + 1, prefix);
  for (long i = generation % 5; i < scale_used; i += 5)
    {
      char key[64];
      snprintf (key, sizeof key, "name-%ld", i);
      names_delete (key);
      snprintf (key, sizeof key, "%s-name-%ld", prefix, i);
      names_put (key, NOT_A_POINTER | ((uint64_t) i * 7));
    }
}

/* A checksum of the contents, independent of addresses and of the order
   of entries inside the hash table.  */
static uint64_t
checksum (size_t *cells)
{
  uint64_t h = fnv (FNV_START, crc_table, sizeof crc_table);
  h = fnv (h, &generation, sizeof generation);
  *cells = 0;
  for (const struct cell *c = list_head; c; c = c->next)
    {
      h = fnv (h, &c->value, sizeof c->value);
      h = fnv (h, c->label, strlen (c->label));
      ++*cells;
    }
  uint64_t table = 0;
  size_t counted = 0;
  for (size_t b = 0; b < names->capacity; b++)
    for (const struct entry *e = names->buckets[b]; e; e = e->next)
      {
        uint64_t eh = fnv (FNV_START, e->key, strlen (e->key));
        table += fnv (eh, &e->value, sizeof e->value);
        counted++;
      }
  if (counted != names->count)
    {
      fprintf (stderr, "%s: name table count %zu but %zu entries\n",
               program_name, names->count, counted);
      exit (1);
    }
  h = fnv (h, &table, sizeof table);
  return fnv (h, &counted, sizeof counted);
}

static void
fill_arena (void)
{
  for (;;)
    if (dumper_alloc ((size_t) 64 << 20) == NULL)
      die_nomem ();
}

/* STACK_WORD is on the stack (the argument vector is).  */
static void
keep_stray_pointers (void *stack_word)
{
  stray_heap = malloc (64);
  stray_lib = stdout;           /* libc's FILE, not the copy-relocated word */
  stray_stack = stack_word;
}

static int
usage (void)
{
  fprintf (stderr, "usage: %s [--temacs=dump --output FILE] [--scale N] "
           "[--mutate N] [--fill-arena] [--stray] [--stats]\n", program_name);
  return 64;
}

static const char *
origin_name (void)
{
  switch (dumper_start_info ()->origin)
    {
    case DUMPER_ORIGIN_COLD: return "cold";
    case DUMPER_ORIGIN_UNEXEC: return "unexec";
    case DUMPER_ORIGIN_PDUMP: return "pdump";
    }
  return "?";
}

int
main (int argc, char **argv)
{
  enum dumper_status status = dumper_startup (&argc, &argv);
  if (status != DUMPER_OK)
    return dumper_report (program_name, status);

  const char *output = NULL;
  long scale = 1000, rounds = 0;
  bool fill = false, stray = false, stats = false;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--output") == 0 && i + 1 < argc)
        output = argv[++i];
      else if (strcmp (argv[i], "--scale") == 0 && i + 1 < argc)
        scale = strtol (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--mutate") == 0 && i + 1 < argc)
        rounds = strtol (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--fill-arena") == 0)
        fill = true;
      else if (strcmp (argv[i], "--stray") == 0)
        stray = true;
      else if (strcmp (argv[i], "--stats") == 0)
        stats = true;
      else
        return usage ();
    }
  if (scale < 1 || rounds < 0 || (will_dump && output == NULL))
    return usage ();

  if (!initialized)
    {
      init_once (scale);
      dumper_mark_initialized ();
    }
  if (fill)
    fill_arena ();
  if (stray)
    keep_stray_pointers (argv);
  for (long r = 0; r < rounds; r++)
    mutate ();

  char why[256];
  if (DUMPER_WITH_UNEXEC && !unexec_arena_check (why, sizeof why))
    {
      fprintf (stderr, "%s: arena invariant broken: %s\n", program_name, why);
      return 1;
    }
  size_t cells;
  uint64_t sum = checksum (&cells);
  int local;
  printf ("origin=%s checksum=%016" PRIx64 " hooks=%d cells=%zu names=%zu "
          "generation=%ld\n", origin_name (), sum, hook_runs, cells,
          names->count, generation);
  printf ("addresses stack=%p libc=%p\n", (void *) &local, (void *) stdout);
  fflush (stdout);

  if (will_dump)
    {
      status = dumper_dump (output);
      if (status != DUMPER_OK)
        return dumper_report (program_name, status);
      if (stats)
        {
          const struct unexec_stats *s = unexec_last_stats ();
          printf ("dump seconds=%.6f input=%" PRIu64 " output=%" PRIu64
                  " segment=%" PRIu64 " added=%" PRId64 " arena=%" PRIu64
                  " suspicious=%" PRIu64 "\n", s->seconds, s->input_size,
                  s->output_size, s->segment_file_size, s->segment_added,
                  s->arena_used, s->suspicious_words);
        }
    }
  return 0;
}
