/* SPDX-License-Identifier: MIT */
/* unexec/arena.c: the static heap arena of unexec builds.

   An unexec dump writes the executable's own data segment into a new
   executable; memory from malloc lives elsewhere and is lost.  So every
   object that must survive comes from this arena: one large
   zero-initialised array in the executable (unexec/space.S), placed in
   the x86-64 large data section `.lbss', which the default linker script puts after
   `.bss' at the very end of the writable segment.  Until the arena is
   used it costs only address space; the unexec writer saves only
   [arena, arena + top), so only the used part costs file size.

   This file owns the allocator and nothing else: it never prints, never
   calls into the bridge, and aborts only when the caller hands it a
   pointer that is not a live block of the arena (a double free or a
   wild pointer: continuing would corrupt every later dump).  The bridge
   asks unexec_arena_live_p first and refuses such a pointer with a
   status, so the abort is left for callers inside the library.

   The allocator: boundary-tagged blocks with 16-byte alignment, exact
   free lists for small sizes and power-of-two lists above (a bitmap of
   non-empty lists makes the search O(1) in the number of lists),
   coalescing of neighbouring free blocks, and a bump pointer (`top') for
   fresh memory.  A free block that ends at `top' is given back to it, so
   the saved part shrinks when the end of the heap is freed.

   Block layout (all sizes are multiples of 16, headers included):

     +--------------+-----------------+------------------------+
     | prev_size    | size | flags    | payload ...            |
     +--------------+-----------------+------------------------+
       8 bytes        8 bytes           16-aligned
   (with 4-byte words the two fields take 4 bytes each and 8 bytes of
   padding follow, so headers and payloads keep the same places)

   prev_size is valid only when the previous block is free (flag
   PREV_FREE).  A free block keeps its list links in its payload and its
   size in the next block's prev_size field.

   Invariants (checked by unexec_arena_check):
   - blocks tile [arena, arena + top) exactly, top <= capacity, top % 16 == 0;
   - no two free blocks are adjacent, and the last block is not free;
   - PREV_FREE is set exactly on blocks whose predecessor is free, and
     then prev_size is that predecessor's size;
   - every free block is on exactly one list, the one of its size class,
     with consistent back links, and the bitmap bit of a list is set
     exactly when the list is non-empty;
   - live_bytes is the sum of the payloads of the blocks in use;
   - every byte at an offset >= clean_offset is zero (never handed out
     since the arena was last known clean), so fresh memory above it
     need not be cleared: a huge allocation touches no pages.  */

#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "arena.h"

/* The capacity; unit tests build this file with a small one.  */
#ifndef UNEXEC_ARENA_MIB
# define UNEXEC_ARENA_MIB DUMPER_ARENA_MIB
#endif
#define ARENA_BYTES ((size_t) UNEXEC_ARENA_MIB << 20)

#define ALIGN 16
#define HEADER 16
#define MIN_BLOCK 32            /* header + two list links */
#define SMALL_LISTS 64          /* exact lists for blocks of 32 .. 1040 */
#define LARGE_LISTS 40
#define LIST_COUNT (SMALL_LISTS + LARGE_LISTS)
#define BITMAP_WORDS ((LIST_COUNT + 63) / 64)

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

/* The arena itself: ARENA_BYTES in the NOBITS section `.lbss', so it
   costs nothing in the undumped executable's file.  It is defined in
   unexec/space.S (built with the same UNEXEC_ARENA_MIB): a C section
   attribute does not make the section NOBITS with every compiler.  */
extern unsigned char unexec_arena_space[]
  __attribute__ ((visibility ("hidden"), aligned (4096)));
#define arena unexec_arena_space

/* Allocator state.  It lives in .bss, which the unexec writer saves with
   the arena, so a dumped executable continues from it.  */
static size_t top_offset;                 /* bytes of the arena in use */
static size_t clean_offset;               /* all zero from here on */
static struct block *free_lists[LIST_COUNT];
static uint64_t nonempty[BITMAP_WORDS];   /* bit i: free_lists[i] != NULL */
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

static size_t
offset_of (const struct block *b)
{
  return (size_t) ((const unsigned char *) b - arena);
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
  nonempty[i / 64] |= (uint64_t) 1 << (i % 64);
}

static void
list_remove (struct block *b)
{
  int i = list_index (block_size (b));
  if (b->prev_free)
    b->prev_free->next_free = b->next_free;
  else
    free_lists[i] = b->next_free;
  if (b->next_free)
    b->next_free->prev_free = b->prev_free;
  if (free_lists[i] == NULL)
    nonempty[i / 64] &= ~((uint64_t) 1 << (i % 64));
}

/* The first non-empty list at index FROM or above, or -1.  */
static int
next_nonempty (int from)
{
  for (int w = from / 64; w < BITMAP_WORDS; w++)
    {
      uint64_t bits = nonempty[w];
      if (w == from / 64)
        bits &= ~(uint64_t) 0 << (from % 64);
      if (bits)
        return w * 64 + __builtin_ctzll (bits);
    }
  return -1;
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

/* Give the free block B, which ends at top, back to top.  Its
   predecessor is in use (no two free blocks are adjacent).  */
static void
return_to_top (struct block *b)
{
  top_offset = offset_of (b);
}

/* Split the in-use block B so it keeps NEED bytes; free the rest,
   merging it with a free successor.  */
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
      list_remove (after);
      rest_size += block_size (after);
      after = (struct block *) ((unsigned char *) rest + rest_size);
    }
  if (is_top (after))
    {
      return_to_top (rest);
      return;
    }
  make_free (rest, rest_size);
}

static void
report_full (size_t size, char *detail, size_t detail_size)
{
  if (detail && detail_size)
    snprintf (detail, detail_size,
              "cannot allocate %zu bytes: the static heap arena of %zu MiB "
              "is exhausted (%zu bytes in use, %zu in live blocks); "
              "reconfigure with a larger --with-arena-size=MIB",
              size, ARENA_BYTES >> 20, top_offset, live_bytes);
}

/* Block size for a request of SIZE payload bytes, or 0 when no arena
   could hold it (this also rules out overflow below).  */
static size_t
request_size (size_t size)
{
  if (size > ARENA_BYTES)
    return 0;
  size_t need = (size + HEADER + ALIGN - 1) & ~(size_t) (ALIGN - 1);
  return need < MIN_BLOCK ? MIN_BLOCK : need;
}

/* Take B, a listed free block, off its list and mark it in use.  */
static void
claim (struct block *b)
{
  list_remove (b);
  b->size_flags &= ~(size_t) FLAG_FREE;
  struct block *next = next_block (b);
  if (!is_top (next))
    next->size_flags &= ~(size_t) FLAG_PREV_FREE;
}

/* Find a free block of at least NEED bytes and claim it.  Exact lists
   hold one size, so their first block fits; a power-of-two list needs a
   first-fit scan, bounded so a long list of slightly-too-small blocks
   cannot make every allocation slow (every list above it fits).  */
static struct block *
take_free (size_t need)
{
  for (int i = next_nonempty (list_index (need)); i >= 0;
       i = next_nonempty (i + 1))
    {
      int budget = 32;
      for (struct block *b = free_lists[i]; b && budget-- > 0; b = b->next_free)
        if (block_size (b) >= need)
          {
            claim (b);
            return b;
          }
    }
  return NULL;
}

/* Zero the payload of B, skipping what is known to be zero already.  */
static void
clear_payload (struct block *b)
{
  size_t start = offset_of (b) + HEADER;
  size_t end = offset_of (b) + block_size (b);
  if (end > clean_offset)
    end = clean_offset > start ? clean_offset : start;
  memset (arena + start, 0, end - start);
}

/* Extend top by NEED bytes for a new block; NULL when the arena is full.  */
static struct block *
take_top (size_t need)
{
  if (ARENA_BYTES - top_offset < need)
    return NULL;
  struct block *b = block_at (top_offset);
  top_offset += need;
  /* The previous block is in use, else it would have merged into top.  */
  b->size_flags = need;
  return b;
}

/* Note that bytes below top may now hold data.  */
static void
mark_dirty (void)
{
  if (clean_offset < top_offset)
    clean_offset = top_offset;
}

void *
unexec_arena_alloc (size_t size, char *detail, size_t detail_size)
{
  size_t need = request_size (size);
  struct block *b = NULL;
  if (need != 0)
    {
      b = take_free (need);
      if (b)
        split (b, need);
      else
        b = take_top (need);
    }
  if (b == NULL)
    {
      report_full (size, detail, detail_size);
      return NULL;
    }
  live_bytes += block_size (b) - HEADER;
  clear_payload (b);
  mark_dirty ();
  return (unsigned char *) b + HEADER;
}

/* Why PTR is not the payload of a block in use, or NULL when it is.
   Exact for a pointer freed once (its header keeps FLAG_FREE, or lies
   above top, or in a scrubbed free payload); a wild pointer into the
   middle of a payload is caught only when the bytes before it do not
   look like a header.  */
static const char *
not_live_because (const void *ptr)
{
  uintptr_t p = (uintptr_t) ptr;
  uintptr_t base = (uintptr_t) arena;
  if (p < base + HEADER || p - base > top_offset || (p - base) % ALIGN != 0)
    return "is not a block in use of the static heap arena (freed, or never "
           "allocated there)";
  const struct block *b = (const struct block *) (p - HEADER);
  if (b->size_flags & FLAG_FREE)
    return "was already freed";
  if (block_size (b) < MIN_BLOCK
      || block_size (b) > top_offset - offset_of (b))
    return "is not a block of the static heap arena (bad header)";
  return NULL;
}

const char *
unexec_arena_not_live (const void *ptr)
{
  return not_live_because (ptr);
}

size_t
unexec_arena_usable_size (const void *ptr)
{
  if (not_live_because (ptr) != NULL)
    return 0;
  return block_size ((const struct block *) ((uintptr_t) ptr - HEADER))
         - HEADER;
}

/* The block of PTR, after checking that PTR is the payload of a block in
   use.  The bridge has checked already (unexec_arena_not_live), so a
   bad pointer here is a broken invariant of the library itself.  */
static struct block *
live_block_of (void *ptr, const char *function)
{
  const char *problem = not_live_because (ptr);
  if (problem == NULL)
    return (struct block *) ((uintptr_t) ptr - HEADER);
  fprintf (stderr, "dumper: %s(%p): the pointer %s\n", function, ptr, problem);
  abort ();
}

void
unexec_arena_each_block (void (*fn) (void *payload, size_t size, void *ctx),
                         void *ctx)
{
  for (size_t offset = 0; offset < top_offset;)
    {
      struct block *b = block_at (offset);
      if (!(b->size_flags & FLAG_FREE))
        fn ((unsigned char *) b + HEADER, block_size (b) - HEADER, ctx);
      offset += block_size (b);
    }
}

void
unexec_arena_free (void *ptr)
{
  if (ptr == NULL)
    return;
  struct block *b = live_block_of (ptr, "dumper_free");
  size_t size = block_size (b);
  live_bytes -= size - HEADER;
  /* Leave the mark in this header even when it is merged away below,
     so a second free of PTR is recognised (not_live_because).  */
  b->size_flags |= FLAG_FREE;
  if (b->size_flags & FLAG_PREV_FREE)
    {
      struct block *prev = (struct block *) ((unsigned char *) b - b->prev_size);
      list_remove (prev);
      size += block_size (prev);
      /* prev's own predecessor is in use: no two free blocks touch.  */
      prev->size_flags = 0;
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
  b->size_flags = size;
  make_free (b, size);
}

/* Grow the in-use block B of OLD bytes in place to at least NEED bytes,
   into top or a free successor.  */
static bool
grow_in_place (struct block *b, size_t old, size_t need)
{
  struct block *next = next_block (b);
  if (is_top (next))
    {
      if (ARENA_BYTES - top_offset < need - old)
        return false;
      top_offset += need - old;
      b->size_flags = need | (b->size_flags & FLAG_MASK);
      mark_dirty ();
      return true;
    }
  if (!(next->size_flags & FLAG_FREE) || old + block_size (next) < need)
    return false;
  /* A free block never ends at top, so the merged block does not.  */
  claim (next);
  b->size_flags = (old + block_size (next)) | (b->size_flags & FLAG_MASK);
  split (b, need);
  return true;
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
  struct block *b = live_block_of (ptr, "dumper_realloc");
  size_t old = block_size (b);
  size_t need = request_size (size);
  if (need == 0)
    {
      report_full (size, detail, detail_size);
      return NULL;
    }
  if (need <= old || grow_in_place (b, old, need))
    {
      if (need <= old)
        split (b, need);
      live_bytes += block_size (b) - old;
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

void
unexec_arena_scrub (void)
{
  for (int i = 0; i < LIST_COUNT; i++)
    for (struct block *b = free_lists[i]; b; b = b->next_free)
      memset ((unsigned char *) b + sizeof *b, 0, block_size (b) - sizeof *b);
  if (clean_offset > top_offset)
    memset (arena + top_offset, 0, clean_offset - top_offset);
  clean_offset = top_offset;
}

void
unexec_arena_reset (void)
{
  unexec_arena_scrub ();
  memset (arena, 0, top_offset);
  top_offset = 0;
  clean_offset = 0;
  live_bytes = 0;
  memset (free_lists, 0, sizeof free_lists);
  memset (nonempty, 0, sizeof nonempty);
}

/* ------------------------------------------------------------------ */
/* The invariant check.  */

#define CHECK(cond, ...)                                \
  do {                                                  \
    if (!(cond))                                        \
      {                                                 \
        snprintf (detail, detail_size, __VA_ARGS__);    \
        return false;                                   \
      }                                                 \
  } while (0)

/* The tiling of [arena, top): sizes, flags, prev_size, no adjacent free
   blocks, payload sum.  Counts the free blocks into *FREE_BLOCKS.  */
static bool
check_blocks (size_t *free_blocks, char *detail, size_t detail_size)
{
  size_t offset = 0;
  bool prev_free = false;
  size_t live = 0;
  *free_blocks = 0;
  CHECK (top_offset <= ARENA_BYTES && top_offset % ALIGN == 0,
         "top offset %zu out of range", top_offset);
  while (offset < top_offset)
    {
      struct block *b = block_at (offset);
      size_t size = block_size (b);
      CHECK (size >= MIN_BLOCK && size % ALIGN == 0
             && size <= top_offset - offset,
             "bad block size %zu at offset %zu", size, offset);
      bool is_free = b->size_flags & FLAG_FREE;
      CHECK (((b->size_flags & FLAG_PREV_FREE) != 0) == prev_free,
             "PREV_FREE flag wrong at offset %zu", offset);
      CHECK (!(is_free && prev_free), "adjacent free blocks at offset %zu",
             offset);
      CHECK (!prev_free || (b->prev_size <= offset
                            && b->prev_size
                               == block_size (block_at (offset - b->prev_size))),
             "prev_size wrong at offset %zu", offset);
      if (is_free)
        ++*free_blocks;
      else
        live += size - HEADER;
      prev_free = is_free;
      offset += size;
    }
  CHECK (!prev_free, "free block before top was not returned");
  CHECK (live == live_bytes, "live bytes %zu, but blocks in use hold %zu",
         live_bytes, live);
  return true;
}

/* Every list: members free, in the arena, in the right class, back
   links consistent, bitmap right; at most LIMIT members in all (a cycle
   would exceed it).  */
static bool
check_lists (size_t limit, size_t *listed, char *detail, size_t detail_size)
{
  *listed = 0;
  for (int i = 0; i < LIST_COUNT; i++)
    {
      bool bit = (nonempty[i / 64] >> (i % 64)) & 1;
      CHECK (bit == (free_lists[i] != NULL), "bitmap bit %d is wrong", i);
      struct block *prev = NULL;
      for (struct block *b = free_lists[i]; b; prev = b, b = b->next_free)
        {
          uintptr_t off = (uintptr_t) b - (uintptr_t) arena;
          CHECK ((uintptr_t) b >= (uintptr_t) arena && off < top_offset
                 && off % ALIGN == 0,
                 "free list %d points outside the arena", i);
          CHECK ((b->size_flags & FLAG_FREE)
                 && list_index (block_size (b)) == i,
                 "free list %d holds a wrong block at offset %zu", i,
                 (size_t) off);
          CHECK (b->prev_free == prev, "free list %d: bad back link at "
                 "offset %zu", i, (size_t) off);
          CHECK (++*listed <= limit, "free list %d has a cycle", i);
        }
    }
  return true;
}

bool
unexec_arena_check (char *detail, size_t detail_size)
{
  size_t free_blocks, listed;
  if (!check_blocks (&free_blocks, detail, detail_size)
      || !check_lists (free_blocks, &listed, detail, detail_size))
    return false;
  CHECK (listed == free_blocks, "%zu free blocks but %zu listed",
         free_blocks, listed);
  CHECK (clean_offset <= ARENA_BYTES, "clean offset %zu out of range",
         clean_offset);
  return true;
}
