/* unexec/arena.c: the static heap arena of unexec builds.

   An unexec dump writes the executable's own data segment into a new
   executable; memory from malloc lives elsewhere and is lost.  So every
   object that must survive comes from this arena: one large
   zero-initialised array in the executable, placed in the x86-64 large
   data section `.lbss', which the default linker script puts after
   `.bss' at the very end of the writable segment.  Until the arena is
   used it costs only address space; the unexec writer saves only
   [arena_base, arena_top), so only the used part costs file size.

   The allocator: boundary-tagged blocks with 16-byte alignment, exact
   free lists for small sizes and power-of-two lists above, coalescing of
   neighbouring free blocks, and a bump pointer (`top') for fresh memory.
   A free block that ends at `top' is given back to it, so the saved part
   shrinks when the end of the heap is freed.

   Block layout (all sizes are multiples of 16, headers included):

     +--------------+-----------------+------------------------+
     | prev_size    | size | flags    | payload ...            |
     +--------------+-----------------+------------------------+
       8 bytes        8 bytes           16-aligned

   prev_size is valid only when the previous block is free (flag
   PREV_FREE).  A free block keeps its list links in its payload and its
   size in the next block's prev_size field.

   Invariants: blocks tile [arena_base, top) exactly; no two free blocks
   are adjacent; every free block is on exactly one list.  */

#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "arena.h"

#define ARENA_BYTES ((size_t) DUMPER_ARENA_MIB << 20)
#define ALIGN 16
#define HEADER 16
#define MIN_BLOCK 32            /* header + two list links */
#define SMALL_LISTS 64          /* exact lists for blocks of 32 .. 1040 */
#define LARGE_LISTS 40
#define LIST_COUNT (SMALL_LISTS + LARGE_LISTS)

#define FLAG_FREE 1u
#define FLAG_PREV_FREE 2u
#define FLAG_MASK 15u

struct block
{
  size_t prev_size;
  size_t size_flags;
  /* Free blocks only: */
  struct block *next_free;
  struct block *prev_free;
};

/* The arena itself.  `.lbss' is NOBITS, so it costs nothing in the
   undumped executable's file.  */
static unsigned char arena[ARENA_BYTES]
  __attribute__ ((section (".lbss"), aligned (4096)));

/* Allocator state.  It lives in .bss, which the unexec writer saves with
   the arena, so a dumped executable continues from it.  */
static size_t top_offset;                 /* bytes of the arena in use */
static struct block *free_lists[LIST_COUNT];
static size_t live_bytes;                 /* payload bytes allocated */

static size_t
block_size (const struct block *b)
{
  return b->size_flags & ~(size_t) FLAG_MASK;
}

static struct block *
block_at (size_t offset)
{
  return (struct block *) (arena + offset);
}

static struct block *
next_block (struct block *b)
{
  return (struct block *) ((unsigned char *) b + block_size (b));
}

static bool
is_top (const struct block *b)
{
  return (const unsigned char *) b == arena + top_offset;
}

static int
list_index (size_t size)
{
  if (size < MIN_BLOCK + SMALL_LISTS * ALIGN)
    return (int) ((size - MIN_BLOCK) / ALIGN);
  /* Power-of-two classes above the exact ones.  */
  int log2 = 63 - __builtin_clzll ((unsigned long long) size);
  int index = SMALL_LISTS + log2 - 10;
  return index < LIST_COUNT ? index : LIST_COUNT - 1;
}

static void
list_push (struct block *b)
{
  int i = list_index (block_size (b));
  b->prev_free = NULL;
  b->next_free = free_lists[i];
  if (free_lists[i])
    free_lists[i]->prev_free = b;
  free_lists[i] = b;
}

static void
list_remove (struct block *b)
{
  if (b->prev_free)
    b->prev_free->next_free = b->next_free;
  else
    free_lists[list_index (block_size (b))] = b->next_free;
  if (b->next_free)
    b->next_free->prev_free = b->prev_free;
}

/* Mark B free with SIZE, tell its successor, and list it.  */
static void
make_free (struct block *b, size_t size)
{
  b->size_flags = size | FLAG_FREE | (b->size_flags & FLAG_PREV_FREE);
  struct block *next = next_block (b);
  if (!is_top (next))
    {
      next->prev_size = size;
      next->size_flags |= FLAG_PREV_FREE;
    }
  list_push (b);
}

/* Give the free block B, which ends at top, back to top.  */
static void
return_to_top (struct block *b)
{
  top_offset = (size_t) ((unsigned char *) b - arena);
}

/* Split the in-use block B so it keeps NEED bytes; free the rest.  */
static void
split (struct block *b, size_t need)
{
  size_t size = block_size (b);
  if (size - need < MIN_BLOCK)
    return;
  b->size_flags = need | (b->size_flags & FLAG_MASK);
  struct block *rest = next_block (b);
  rest->size_flags = 0;
  size_t rest_size = size - need;
  struct block *after = (struct block *) ((unsigned char *) rest + rest_size);
  if (!is_top (after) && (after->size_flags & FLAG_FREE))
    {
      /* Coalesce with a free successor.  */
      list_remove (after);
      rest_size += block_size (after);
      after = (struct block *) ((unsigned char *) rest + rest_size);
    }
  if (is_top (after))
    {
      return_to_top (rest);
      return;
    }
  rest->size_flags = rest_size;
  make_free (rest, rest_size);
}

static void
report_full (size_t size, char *detail, size_t detail_size)
{
  if (detail && detail_size)
    snprintf (detail, detail_size,
              "cannot allocate %zu bytes: the static heap arena of %zu MiB "
              "is exhausted (%zu bytes in use); reconfigure with a larger "
              "--with-arena-size=MIB", size, ARENA_BYTES >> 20, top_offset);
}

/* Block size for a request of SIZE payload bytes, or 0 on overflow.  */
static size_t
request_size (size_t size)
{
  if (size > ARENA_BYTES)
    return 0;
  size_t need = (size + HEADER + ALIGN - 1) & ~(size_t) (ALIGN - 1);
  return need < MIN_BLOCK ? MIN_BLOCK : need;
}

/* Find a free block of at least NEED bytes, remove it from its list.  */
static struct block *
take_free (size_t need)
{
  for (int i = list_index (need); i < LIST_COUNT; i++)
    {
      /* Exact lists hold one size; the others need a first-fit scan,
         bounded so a long list of slightly-too-small blocks cannot make
         every allocation slow.  */
      int budget = 32;
      for (struct block *b = free_lists[i]; b && budget-- > 0; b = b->next_free)
        if (block_size (b) >= need)
          {
            list_remove (b);
            b->size_flags &= ~(size_t) FLAG_FREE;
            struct block *next = next_block (b);
            if (!is_top (next))
              next->size_flags &= ~(size_t) FLAG_PREV_FREE;
            return b;
          }
    }
  return NULL;
}

void *
unexec_arena_alloc (size_t size, char *detail, size_t detail_size)
{
  size_t need = request_size (size);
  if (need == 0)
    {
      report_full (size, detail, detail_size);
      return NULL;
    }
  struct block *b = take_free (need);
  if (b)
    split (b, need);
  else
    {
      if (ARENA_BYTES - top_offset < need)
        {
          report_full (size, detail, detail_size);
          return NULL;
        }
      b = block_at (top_offset);
      top_offset += need;
      /* The previous block is in use, else it would have merged into top.  */
      b->size_flags = need;
    }
  live_bytes += block_size (b) - HEADER;
  void *payload = (unsigned char *) b + HEADER;
  memset (payload, 0, block_size (b) - HEADER);
  return payload;
}

static struct block *
block_of (void *ptr)
{
  return (struct block *) ((unsigned char *) ptr - HEADER);
}

void
unexec_arena_free (void *ptr)
{
  if (ptr == NULL)
    return;
  struct block *b = block_of (ptr);
  size_t size = block_size (b);
  live_bytes -= size - HEADER;
  if (b->size_flags & FLAG_PREV_FREE)
    {
      struct block *prev = (struct block *) ((unsigned char *) b - b->prev_size);
      list_remove (prev);
      size += block_size (prev);
      prev->size_flags = (prev->size_flags & FLAG_PREV_FREE);
      b = prev;
    }
  struct block *next = (struct block *) ((unsigned char *) b + size);
  if (!is_top (next) && (next->size_flags & FLAG_FREE))
    {
      list_remove (next);
      size += block_size (next);
      next = (struct block *) ((unsigned char *) b + size);
    }
  if (is_top (next))
    {
      return_to_top (b);
      return;
    }
  b->size_flags = size | (b->size_flags & FLAG_PREV_FREE);
  make_free (b, size);
}

void *
unexec_arena_realloc (void *ptr, size_t size, char *detail, size_t detail_size)
{
  if (ptr == NULL)
    return unexec_arena_alloc (size, detail, detail_size);
  if (size == 0)
    {
      unexec_arena_free (ptr);
      return NULL;
    }
  struct block *b = block_of (ptr);
  size_t old = block_size (b);
  size_t need = request_size (size);
  if (need == 0)
    {
      report_full (size, detail, detail_size);
      return NULL;
    }
  if (need <= old)
    {
      live_bytes -= old - HEADER;
      split (b, need);
      live_bytes += block_size (b) - HEADER;
      return ptr;
    }
  struct block *next = next_block (b);
  if (is_top (next) && ARENA_BYTES - top_offset >= need - old)
    {
      /* Grow in place into fresh memory.  */
      top_offset += need - old;
      b->size_flags = need | (b->size_flags & FLAG_MASK);
      live_bytes += need - old;
      return ptr;
    }
  if (!is_top (next) && (next->size_flags & FLAG_FREE)
      && old + block_size (next) >= need)
    {
      list_remove (next);
      size_t merged = old + block_size (next);
      struct block *after = (struct block *) ((unsigned char *) b + merged);
      if (!is_top (after))
        after->size_flags &= ~(size_t) FLAG_PREV_FREE;
      b->size_flags = merged | (b->size_flags & FLAG_MASK);
      live_bytes += merged - old;
      live_bytes -= block_size (b) - HEADER;
      split (b, need);
      live_bytes += block_size (b) - HEADER;
      return ptr;
    }
  void *fresh = unexec_arena_alloc (size, detail, detail_size);
  if (!fresh)
    return NULL;
  memcpy (fresh, ptr, old - HEADER);
  unexec_arena_free (ptr);
  return fresh;
}

void
unexec_arena_bounds (void **base, size_t *used, size_t *capacity)
{
  *base = arena;
  *used = top_offset;
  *capacity = ARENA_BYTES;
}

size_t
unexec_arena_live_bytes (void)
{
  return live_bytes;
}

bool
unexec_arena_check (char *detail, size_t detail_size)
{
  size_t offset = 0;
  bool prev_free = false;
  size_t free_blocks = 0;
  while (offset < top_offset)
    {
      struct block *b = block_at (offset);
      size_t size = block_size (b);
      if (size < MIN_BLOCK || size % ALIGN || offset + size > top_offset)
        {
          snprintf (detail, detail_size, "bad block size %zu at offset %zu",
                    size, offset);
          return false;
        }
      bool is_free = b->size_flags & FLAG_FREE;
      if (((b->size_flags & FLAG_PREV_FREE) != 0) != prev_free)
        {
          snprintf (detail, detail_size, "PREV_FREE flag wrong at offset %zu",
                    offset);
          return false;
        }
      if (is_free && prev_free)
        {
          snprintf (detail, detail_size, "adjacent free blocks at offset %zu",
                    offset);
          return false;
        }
      if (prev_free && b->prev_size != block_size (block_at (offset - b->prev_size)))
        {
          snprintf (detail, detail_size, "prev_size wrong at offset %zu", offset);
          return false;
        }
      free_blocks += is_free;
      prev_free = is_free;
      offset += size;
    }
  if (prev_free)
    {
      snprintf (detail, detail_size, "free block before top was not returned");
      return false;
    }
  size_t listed = 0;
  for (int i = 0; i < LIST_COUNT; i++)
    for (struct block *b = free_lists[i]; b; b = b->next_free)
      {
        if (!(b->size_flags & FLAG_FREE) || list_index (block_size (b)) != i)
          {
            snprintf (detail, detail_size, "free list %d holds a wrong block", i);
            return false;
          }
        listed++;
      }
  if (listed != free_blocks)
    {
      snprintf (detail, detail_size, "%zu free blocks but %zu listed",
                free_blocks, listed);
      return false;
    }
  return true;
}
