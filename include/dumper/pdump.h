/* SPDX-License-Identifier: MIT */
/* dumper/pdump.h: what a host's collector needs from the portable dumper.

   Objects loaded from a pdump image live inside the mapped image, not
   in the host's allocator.  A collector must therefore (1) recognise
   them, (2) mark them somewhere other than in the objects themselves
   (writing a mark into an object would dirty its page, which the
   design keeps shared with the page cache where it can), and (3) never
   free them.  The calls here do that in O(1): the image is one
   contiguous range, and its mark bits are a side bitmap with one bit
   per 8-byte granule.

   In a build without the portable dumper these compile to constants
   (nothing is ever in an image), so a host's collector reads the same in
   every mode.

   Also here: statistics of the load and of the last dump.  */

#ifndef DUMPER_PDUMP_H
#define DUMPER_PDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <dumper/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Image objects are aligned to this many bytes; one mark bit each.  */
#define PDUMP_GRANULE 8

/* Private to libdumper: the loaded image's object range and mark
   bitmap.  Zero when no image is loaded.  */
struct pdump_range_
{
  uintptr_t start;          /* first object byte */
  uintptr_t end;            /* one past the last object byte */
  uint64_t *mark_bits;      /* (end - start) / PDUMP_GRANULE bits */
};

#if DUMPER_WITH_PDUMPER

extern struct pdump_range_ pdump_range_;

/* True when P points inside the loaded image's object sections: any
   object, including pointer-free ones and byte blocks (string data) in
   the cold section.  */
static inline bool
pdump_object_p (const void *p)
{
  uintptr_t a = (uintptr_t) p;
  return a - pdump_range_.start < pdump_range_.end - pdump_range_.start;
}

/* Mark bits of image objects.  P must satisfy pdump_object_p.  */
static inline bool
pdump_marked_p (const void *p)
{
  size_t bit = ((uintptr_t) p - pdump_range_.start) / PDUMP_GRANULE;
  return (pdump_range_.mark_bits[bit / 64] >> (bit % 64)) & 1;
}

static inline void
pdump_set_marked (const void *p)
{
  size_t bit = ((uintptr_t) p - pdump_range_.start) / PDUMP_GRANULE;
  pdump_range_.mark_bits[bit / 64] |= (uint64_t) 1 << (bit % 64);
}

/* Clear every image mark bit (at the start or end of a collection).  */
void pdump_clear_marks (void);

#else /* !DUMPER_WITH_PDUMPER */

static inline bool pdump_object_p (const void *p) { (void) p; return false; }
static inline bool pdump_marked_p (const void *p) { (void) p; return false; }
static inline void pdump_set_marked (const void *p) { (void) p; }
static inline void pdump_clear_marks (void) { }

#endif /* DUMPER_WITH_PDUMPER */

/* How the image was brought into memory.  */
enum pdump_load_method
{
  /* HOT read into anonymous memory (transparent huge pages where the
     kernel allows), COLD mapped from the file: the default.  */
  PDUMP_LOAD_HYBRID,
  /* The whole file mapped privately; HOT pages copied on write.  */
  PDUMP_LOAD_MAP,
  /* The whole file read into anonymous memory: no file mapping.  */
  PDUMP_LOAD_READ,
  /* A compressed image: every section decompressed into anonymous
     memory, HOT frame by frame while it is relocated.  */
  PDUMP_LOAD_UNPACK
};

/* Where the image was placed (doc/format.md, "Base modes").  */
enum pdump_placement
{
  /* Base mode random: wherever mmap put it (ASLR); every image pointer
     relocated.  */
  PDUMP_PLACED_RANDOM,
  /* At the image's preferred base: no image pointer written, only
     executable and code relocations.  */
  PDUMP_PLACED_PREFERRED,
  /* Base mode fixed or boot, but the base could not be used
     (placement_reason says why): placed and relocated as random.  */
  PDUMP_PLACED_FALLBACK,
  /* Base mode boot, the first load of the image this boot: relocated
     to this boot's base, the boot cache written (placement_reason).  */
  PDUMP_PLACED_BOOT,
  /* Base mode boot: the boot cache mapped at this boot's base, only
     executable and code relocations applied.  */
  PDUMP_PLACED_BOOT_CACHE
};

/* Figures of the image load in this process (all zero when none).  */
struct pdump_stats
{
  bool loaded;
  bool mapped;                  /* COLD is a file mapping (not READ) */
  enum pdump_load_method method;
  const char *path;
  uint64_t file_size;
  uint64_t hot_size;            /* objects with pointers (relocated) */
  uint64_t cold_size;           /* pointer-free bytes (never written) */
  uint64_t discardable_size;    /* relocations and tables (released) */
  uint64_t object_count;
  uint64_t image_relocs;        /* words relocated by the image base (0
                                   at the preferred base: checked only) */
  uint64_t exe_relocs;          /* words relocated by the executable base */
  uint64_t code_relocs;         /* code pointers restored (dumper_trace_code) */
  uint64_t root_count;          /* roots, remembered words and pointers */
  uint64_t scalar_count;
  uint64_t hook_count;
  double open_seconds;          /* open, header, fingerprint */
  double map_seconds;           /* map or read, section checks */
  double verify_seconds;        /* checksums not fused with relocation */
  double relocate_seconds;      /* relocation (with the hot checksum) */
  double structure_seconds;     /* structural verification (0 when off) */
  double restore_seconds;       /* roots and scalars */
  double hooks_seconds;         /* after-load hooks (measured by the bridge) */
  double total_seconds;
  long minor_faults;            /* minor page faults during the load */
  bool embedded;                /* the image is a section of `path' */
  uint64_t image_size;          /* bytes in memory (file_size unless
                                   compressed) */
  unsigned base_mode;           /* enum dumper_base_mode asked for */
  enum pdump_placement placement;
  const char *placement_reason; /* why it was placed where it is */
  uint64_t preferred_base;      /* the image's (0: none recorded) */
  uint64_t base;                /* where image offset 0 lies */
  uint64_t exe_pages;           /* HOT pages holding executable or code
                                   relocations: at the preferred base,
                                   the only HOT pages the load writes */
  const char *huge_pages;       /* huge page advice for anonymous image
                                   memory, and the kernel's settings */
  const char *cold_check;       /* how COLD was verified: "checksum",
                                   or "skipped: " and why */
  const char *structure_check;  /* whether the structural pass ran in
                                   this load, and why ("ran: ...",
                                   "skipped: ...", "off: ...") */
  const char *boot_dir;         /* base mode boot's per-user directory
                                   and its kind ("XDG_RUNTIME_DIR: DIR",
                                   "fallback: DIR"; in another base
                                   mode that used it for the records of
                                   checks made this boot, followed by
                                   " (records only: base mode M)"), or
                                   "none: " and why (another base mode,
                                   no usable directory) */
  double structure_index_seconds;  /* of structure_seconds, the object
                                      index (reading OBJECTS); the rest
                                      is the walk over the objects */
};

/* Figures of the last dump written by this process.  */
struct pdump_dump_stats
{
  bool written;
  uint64_t file_size;
  uint64_t hot_size;
  uint64_t cold_size;
  uint64_t discardable_size;
  uint64_t object_count;
  uint64_t byte_block_count;
  uint64_t image_relocs;
  uint64_t exe_relocs;
  uint64_t code_relocs;
  uint64_t root_count;
  uint64_t scalar_count;
  uint64_t hook_count;
  double seconds;               /* the whole write, the three below */
  double walk_seconds;          /* the graph walk: copies, map, relocations */
  double layout_seconds;        /* offsets, sorting, index, checksums */
  double output_seconds;        /* writing, syncing and renaming the file */
  /* Objects (byte blocks included) the walk kept in its array indexed
     by the pre-dump check's numbering rather than its hash map (the
     rest: none but odd addresses, or all under
     DUMPER_PDUMP_VISITED_MAP).  */
  uint64_t numbered_objects;
  /* HOT objects traced after the streamed write's window had passed
     them, and how many of those were written to the file on their own
     (large ones) rather than laid over HOT when it is read back.  */
  uint64_t late_objects;
  uint64_t late_written;
};

#if DUMPER_WITH_PDUMPER
const struct pdump_stats *pdump_stats (void);
const struct pdump_dump_stats *pdump_dump_stats (void);
#else
static inline const struct pdump_stats *
pdump_stats (void)
{
  static const struct pdump_stats none;
  return &none;
}
static inline const struct pdump_dump_stats *
pdump_dump_stats (void)
{
  static const struct pdump_dump_stats none;
  return &none;
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* DUMPER_PDUMP_H */
