/* SPDX-License-Identifier: MIT */
/* tests/unexec/compat.c: a program that is not a libdumper host, dumped
   with Emacs's unexec () (include/dumper/unexec-compat.h).

   It has what Emacs has: initialised data, .bss (a large static buffer
   used only in part and followed by more data, like Emacs's
   bss_sbrk_buffer), and a brk heap
   filled both by sbrk and by malloc, with pointers from .data and .bss
   into the heap and from the heap into .data.  tests/unexec/compat.sh
   drives it:

     compat dump OUT [OLD]   build the state and unexec (OUT, OLD); the
                             run re-executes itself with address
                             randomisation off first, as Emacs does
     compat dump-aslr OUT    the same without that re-exec (the brk heap
                             then does not follow .bss: a refusal)
     compat                  a plain run: "cold" or, in a dumped
                             program, check every saved value, use the
                             heap further, print "restored" and exit 0

   A mismatch prints what differs and exits 1.  */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#include <dumper/unexec-compat.h>

#define BUFFER_SIZE (8u << 20)      /* the "static heap": 8 MiB of .bss */
#define BUFFER_USED 5000u
#define SBRK_SIZE 40000u
#define LIST_LENGTH 100

struct node
{
  struct node *next;
  int value;
  const char *label;               /* points into .data */
};

/* .data */
int dumped = 0;
const char *data_label = "compat-data";
long data_numbers[4] = { 1, -2, 3, -4 };

/* .bss: the buffer, then words that are not zero after build_state,
   so that the buffer's unused part is not at the end of .bss.  */
static struct
{
  char buffer[BUFFER_SIZE];
  long after[4];
} static_area;
#define static_heap static_area.buffer
static long bss_numbers[64];
static char *sbrk_block;           /* the block from sbrk */
static struct node *list;          /* malloc'd nodes */
static char *heap_text;            /* a malloc'd string */

static int failures;

static void
expect (int ok, const char *what)
{
  if (!ok)
    {
      printf ("MISMATCH: %s\n", what);
      failures++;
    }
}

static unsigned char
pattern (size_t i)
{
  return (unsigned char) (i * 7 + 1);
}

static void
build_state (void)
{
  for (size_t i = 0; i < BUFFER_USED; i++)
    static_heap[i] = (char) pattern (i);
  for (int i = 0; i < 64; i++)
    bss_numbers[i] = 1000 + i;
  for (int i = 0; i < 4; i++)
    static_area.after[i] = -1 - i;
  data_numbers[2] = 33;
  sbrk_block = sbrk (SBRK_SIZE);
  if (sbrk_block == (void *) -1)
    {
      perror ("compat: sbrk");
      exit (2);
    }
  for (size_t i = 0; i < SBRK_SIZE; i++)
    sbrk_block[i] = (char) pattern (i + 3);
  for (int i = 0; i < LIST_LENGTH; i++)
    {
      struct node *n = malloc (sizeof *n);
      n->next = list;
      n->value = i * i;
      n->label = data_label;
      list = n;
    }
  heap_text = strdup ("a string in the brk heap");
  dumped = 1;
}

static void
check_state (void)
{
  int ok = 1;
  for (size_t i = 0; i < BUFFER_USED; i++)
    ok &= static_heap[i] == (char) pattern (i);
  expect (ok, "the used part of the static buffer");
  ok = 1;
  for (size_t i = BUFFER_USED; i < BUFFER_SIZE; i += 4096)
    ok &= static_heap[i] == 0;
  expect (ok, "the unused part of the static buffer is zero");
  ok = 1;
  for (int i = 0; i < 64; i++)
    ok &= bss_numbers[i] == 1000 + i;
  expect (ok, "the .bss numbers");
  expect (static_area.after[0] == -1 && static_area.after[3] == -4,
          "the words after the static buffer");
  expect (data_numbers[0] == 1 && data_numbers[1] == -2
          && data_numbers[2] == 33 && data_numbers[3] == -4,
          "the .data numbers");
  expect (strcmp (data_label, "compat-data") == 0, "the .data string");
  ok = sbrk_block != NULL;
  for (size_t i = 0; ok && i < SBRK_SIZE; i++)
    ok &= sbrk_block[i] == (char) pattern (i + 3);
  expect (ok, "the sbrk block");
  int count = 0;
  ok = 1;
  for (struct node *n = list; n; n = n->next, count++)
    ok &= n->value == (LIST_LENGTH - 1 - count) * (LIST_LENGTH - 1 - count)
          && n->label == data_label;
  expect (ok && count == LIST_LENGTH, "the malloc'd list");
  expect (heap_text && strcmp (heap_text, "a string in the brk heap") == 0,
          "the malloc'd string");
}

/* The dumped program's own heap must not overlap the saved one.  */
static void
use_heap_after_start (void)
{
  for (int round = 0; round < 1000; round++)
    {
      size_t size = 16 + (size_t) round * 37 % 5000;
      char *p = malloc (size);
      memset (p, 0xa5, size);
      if (round % 3)
        free (p);
    }
  char *more = sbrk (100000);
  if (more != (void *) -1)
    memset (more, 0x5a, 100000);
  check_state ();
}

/* Re-execute with address randomisation off unless it already is.  */
static void
no_randomisation (char **argv)
{
  int persona = personality (0xffffffff);
  if (persona == -1 || (persona & ADDR_NO_RANDOMIZE))
    return;
  if (personality ((unsigned long) persona | ADDR_NO_RANDOMIZE) == -1)
    return;
  execv ("/proc/self/exe", argv);
  perror ("compat: execv");
  exit (2);
}

int
main (int argc, char **argv)
{
  if (argc >= 3 && strcmp (argv[1], "dump") == 0)
    {
      no_randomisation (argv);
      build_state ();
      unexec (argv[2], argc >= 4 ? argv[3] : NULL);
      printf ("dumped\n");
      return 0;
    }
  if (argc >= 3 && strcmp (argv[1], "dump-aslr") == 0)
    {
      build_state ();
      unexec (argv[2], NULL);
      printf ("dumped\n");
      return 0;
    }
  if (!dumped)
    {
      printf ("cold\n");
      return 0;
    }
  check_state ();
  use_heap_after_start ();
  if (failures)
    return 1;
  printf ("restored\n");
  return 0;
}
