/* SPDX-License-Identifier: MIT */
/* pdump/walk.h: the writer's graph walk (walk.c and the files it lists),
   which turns the live heap into the image's sections in memory;
   write.c lays them out and writes the file.  */

#ifndef DUMPER_PDUMP_WALK_H
#define DUMPER_PDUMP_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "exe.h"
#include "format.h"
#include "common/addrmap.h"
#include "common/codetargets.h"
#include "common/maps.h"

/* During the walk, image offsets are section-relative; an offset into
   COLD carries this bias until write.c knows where COLD starts.  The
   walk stores these offsets (plus a tag) in the HOT copy, in words of
   PDUMP_WORD_SIZE bytes, so the bias is the word's top bit with 4-byte
   words.  */
#define PDUMP_COLD_BIAS \
  (PDUMP_WORD_SIZE == 8 ? UINT64_C (1) << 60 : UINT64_C (1) << 31)

/* Each section's objects end below this during the walk (HOT's main
   area below PDUMP_WALK_MAIN_MAX), so that a cold-biased offset plus a
   tag fits a word, and so does every file offset (a header page and
   padding of at most 1 MiB each, HOT, COLD).  Only 4-byte words come
   near it.  */
#define PDUMP_WALK_SECTION_MAX (PDUMP_COLD_BIAS - (UINT64_C (4) << 20))

/* An offset into HOT's group area (pdump_hot_area) carries this bias
   until the walk ends; the main area ends below it.  */
#define PDUMP_GROUP_BIAS (PDUMP_COLD_BIAS / 2)
#define PDUMP_WALK_MAIN_MAX (PDUMP_GROUP_BIAS - (UINT64_C (4) << 20))

struct pdump_buf
{
  unsigned char *data;
  size_t size;              /* bytes in use */
  size_t capacity;
};

struct pdump_u32vec
{
  uint32_t *data;
  size_t size, capacity;
};

/* An area of HOT: the objects, their relocations and their part of the
   object index.  The walk places a HOT object when it first meets it,
   in one of two areas: GROUP when the object holds an executable
   reference or a code pointer (the only HOT words a load at the
   preferred base writes, so they are kept on as few pages as possible),
   else the main one.  Walk offsets in GROUP carry PDUMP_GROUP_BIAS;
   when the walk ends GROUP is appended to the main area, its words,
   bits and indexes moved by group_start.  */
struct pdump_hot_area
{
  struct pdump_buf bytes;   /* [base, bytes.size) of the area */
  uint64_t base;            /* main: what lies below is in the file */
  uint64_t *image_bits;     /* one bit per word */
  uint64_t *reported_bits;  /* words a trace reported (a field reported
                               twice; the lint of unreported words) */
  size_t bits_words;        /* allocated 64-bit words, of each */
  struct pdump_u32vec exe_relocs;
  struct pdump_u32vec code_relocs;  /* words holding a code-table index */
  struct pdump_buf index;   /* OBJECTS entries, in offset order */
};

/* A pointer field reported by a trace function, queued so that the
   visited-map slots of an object's targets are fetched together.  */
struct pdump_field
{
  const void *field;
  size_t arg;               /* type (ptr) or length (bytes, sized) */
  int32_t type;             /* sized: the owner-sized type */
  unsigned char form;       /* walkint.h's enum field_form */
};

/* An interior pointer (dumper_trace_interior), resolved when the walk
   ends: the object that holds its target may not be placed when it is
   met.  Its word in HOT holds 0 (with its RELOC_IMAGE bit) until then.  */
struct pdump_interior
{
  uint64_t at;              /* walk offset of the word in HOT */
  uintptr_t address;        /* the live pointer */
  uint32_t owner;           /* the object holding it, for messages */
  uint32_t field_offset;
};

/* A resolved interior word below the HOT window (already in the file),
   for pdump_walk_overlay_late to lay over HOT when write.c reads it
   back.  */
struct pdump_patch
{
  uint64_t offset;          /* in HOT */
  uint64_t value;           /* walk-time encoding, as other image words */
};

#define PDUMP_FIELD_BATCH 32

struct pdump_work
{
  const void *src;          /* the live object */
  uint64_t offset;          /* in HOT */
  uint32_t type;
  uint32_t index;           /* object number */
  uint64_t size;
};

/* A byte block, by the order it was met in: a repeated reference
   checks its length and takes its offset from here.  */
struct pdump_block
{
  uint64_t offset;          /* walk-time offset (cold-biased) */
  uint64_t length;          /* as reached (0 for an empty one, which
                               stores 1 byte) */
};

/* A late object's copy in pdump_walk.late_log.  */
struct pdump_late
{
  uint64_t offset;          /* in HOT */
  uint64_t length;          /* bytes of it below the window */
  uint64_t position;        /* in late_log */
};

struct pdump_walk
{
  /* Callbacks first: trace functions get &walk->tracer.  */
  struct dumper_tracer tracer;

  /* Inputs.  */
  const struct dumper_heap *heap;
  const struct dumper_decl *decls;
  size_t decl_count;
  struct common_code_targets code_targets;
  const struct pdump_entry *entries;
  size_t entry_count;
  uintptr_t tag_mask;
  uint64_t object_align;    /* max (PDUMP_ALIGN, 1 << tag_bits) */
  struct pdump_exe exe;
  struct common_maps maps;
  uintptr_t image_start, image_end;   /* a loaded image, if any */

  /* Outputs.  HOT's bytes below hot.base are already in the output
     file (at hot_file_offset + their offset) when hot_fd >= 0; the
     buffer holds [hot.base, hot.bytes.size), hot.bytes.size being the
     end of HOT.  Objects that hold executable references or code
     pointers go to GROUP instead, which the end of the walk appends to
     HOT at group_start (see pdump_hot_area).  */
  struct pdump_hot_area hot, group;
  uint64_t group_start;
  int hot_fd;
  const char *output;       /* its name, for messages */
  uint64_t hot_file_offset;
  uint64_t hot_base;
  bool current_late;        /* the object being traced lies below
                               hot_base: its copy is in LATE */
  unsigned char *late;      /* the copy of a large one */
  size_t late_capacity;
  unsigned char *late_copy; /* where the current late object's copy is */
  uint64_t late_count;      /* objects filled below hot_base */
  /* The copies of smaller late objects, kept for write.c to lay over
     HOT when it reads HOT back (pdump_walk_overlay_late), instead of a
     write each: their bytes in LATE_LOG (each from an 8-aligned
     position), where each lies in LATES, sorted by HOT offset when the
     walk ends.  */
  struct pdump_buf late_log;
  struct pdump_late *lates;
  size_t late_log_count, late_log_capacity;
  /* COLD, which only grows at its end, goes to COLD_FD (a nameless
     temporary file; write.c copies it into place) when that is >= 0:
     the buffer holds [cold_base, cold.size), and cold_hash the
     checksum of what went out.  */
  struct pdump_buf cold;
  int cold_fd;
  uint64_t cold_base;
  void *cold_hash;          /* XXH3_state_t */
  uint64_t cold_checksum;   /* when the walk ends, with COLD_FD >= 0 */
  uint64_t image_reloc_count;
  /* Owner-sized blocks met: live address -> their length, which every
     later referrer must report too.  Empty without them.  */
  struct common_addrmap sized_lengths;
  struct pdump_interior *interiors;   /* into the heap: to resolve */
  size_t interior_count, interior_capacity;
  uint64_t interior_word_count;       /* all, executable ones too */
  struct pdump_patch *patches;      /* sorted by offset */
  size_t patch_count;
  struct pdump_record *records;
  size_t record_count;
  struct pdump_buf scalar_data;
  /* The object index, compact (it is per object, millions of them):
     each object's parent (the object that first referred to it, or
     UINT32_MAX for a registry root) and type, for the path in a
     message; the OBJECTS section's entries, encoded as objects are met,
     HOT ones and COLD ones apart (the section lists HOT first); the
     byte blocks.  */
  uint32_t *parents;
  uint16_t *types;
  size_t object_count, object_capacity;
  struct pdump_buf index_cold;      /* HOT's are in hot.index, group.index */
  struct pdump_block *blocks;
  size_t block_capacity;
  uint64_t hot_object_count, cold_object_count, block_count;

  /* Walk state.  */
  struct common_addrmap visited;      /* address -> object number */
  /* The objects of the pre-dump check's numbered set (the request's
     reachable): the same values as visited's, indexed by the set's
     numbers; 0 until the object is met.  */
  struct common_blockset *reachable;
  uint64_t *reached;
  size_t reached_count;
  uint64_t numbered_count;            /* objects entered in reached */
  struct pdump_work *stack;
  size_t stack_size, stack_capacity;
  const struct pdump_work *current;   /* object being traced */
  struct pdump_field fields[PDUMP_FIELD_BATCH];   /* its queued fields */
  size_t field_count;
  size_t current_root;                /* registry entry being walked */

  /* The lint of unreported words.  */
  void (*warn) (const char *message, void *data);
  void *warn_data;
  bool lint_strict;
  size_t lint_count;
  bool (*heap_block) (uintptr_t address, void *data);
  void *heap_block_data;
  /* Errors: the first one wins and stops the walk.  */
  enum dumper_status status;
  char *detail;
  size_t detail_size;
};

/* Walk everything the registry reaches.  On failure returns the status
   with WALK->detail filled in.  With HOT_FD >= 0, HOT goes to that file
   at HOT_FILE_OFFSET as the walk proceeds (its final place: the memory
   it takes stays a window of a few MiB, whatever the image's size) and
   the walk's buffer ends empty; with -1 it stays in WALK->hot.  COLD
   likewise goes to COLD_FD from its start, when that is >= 0.  */
enum dumper_status pdump_walk_run (struct pdump_walk *walk,
                                   const struct pdump_write_request *req,
                                   int hot_fd, uint64_t hot_file_offset,
                                   int cold_fd);

void pdump_walk_free (struct pdump_walk *walk);

/* The OBJECTS section of a finished walk (HOT objects' entries, then
   COLD ones'), SIZE bytes, owned by the walk; NULL when memory runs
   out.  */
const unsigned char *pdump_walk_object_index (struct pdump_walk *walk,
                                              size_t *size);

/* Lay the late objects' copies of a finished WALK over CHUNK, HOT's
   bytes [AT, AT + SIZE) as read back from the file, then the resolved
   interior words that lie there (pdump_patch).  AT and SIZE are whole
   words.  True when a copy or a word lay there.  */
bool pdump_walk_overlay_late (const struct pdump_walk *walk,
                              unsigned char *chunk, uint64_t at, size_t size);

/* Turn a walk-time offset (section-relative, cold- or group-biased)
   of a finished WALK into a file offset.  */
static inline uint64_t
pdump_walk_file_offset (const struct pdump_walk *walk, uint64_t walk_offset,
                        uint64_t hot_offset, uint64_t cold_offset)
{
  if (walk_offset >= PDUMP_COLD_BIAS)
    return walk_offset - PDUMP_COLD_BIAS + cold_offset;
  if (walk_offset >= PDUMP_GROUP_BIAS)
    return walk_offset - PDUMP_GROUP_BIAS + walk->group_start + hot_offset;
  return walk_offset + hot_offset;
}

#endif /* DUMPER_PDUMP_WALK_H */
