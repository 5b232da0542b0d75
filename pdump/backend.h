/* SPDX-License-Identifier: MIT */
/* pdump/backend.h: what the bridge calls in the portable dumper.

   pdump/ never calls into the bridge: the heap description, the
   registry, the fingerprint and the executable's layout come in as
   arguments, errors go back as a status plus a detail string written
   into the caller's buffer.  */

#ifndef DUMPER_PDUMP_BACKEND_H
#define DUMPER_PDUMP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>
#include <dumper/pdump.h>

#include "embed.h"
#include "exe.h"
#include "common/blockset.h"
#include "common/options.h"

/* One registration, in the bridge's registration order: an index into
   the executable's declaration table (dumper.h) and, for statics, the
   word or scalar it covers (inside the declaration).  The kind is the
   declaration's: enum dumper_decl_kind, defined once, in dumper.h.  */
struct pdump_entry
{
  uint32_t decl;
  uint32_t kind;            /* enum dumper_decl_kind, the declaration's */
  void *addr;               /* NULL for hooks */
};

struct pdump_write_request
{
  const char *output;
  const struct dumper_heap *heap;
  const struct dumper_decl *decls;       /* the declaration table */
  size_t decl_count;
  const struct pdump_entry *entries;
  size_t entry_count;
  const unsigned char *fingerprint;      /* DUMPER_FINGERPRINT_SIZE */
  char *detail;                          /* out: error specifics */
  size_t detail_size;
  /* The settings (common/options.h): the object estimate
     (expected_objects), the preferred base recorded in the image
     (image_base: HOT's image pointers are stored relocated to it,
     format.h; 0 records none, UINT64_MAX PDUMP_DEFAULT_BASE), the codec
     and its level, strict_lint (below), in_memory, visited_map and the
     test hooks.  */
  const struct common_options *options;
  /* The lint of words a trace did not report that hold addresses of
     the executable or the heap: one WARN call per finding (WARN may be
     NULL), or with options->strict_lint the first finding fails the
     dump with DUMPER_E_HEAP_DESC.  */
  void (*warn) (const char *message, void *data);
  void *warn_data;
  /* For the lint: true when ADDRESS is the start of a live block of the
     host's allocator (may be NULL: then only the executable and a
     loaded image count).  */
  bool (*heap_block) (uintptr_t address, void *data);
  void *heap_block_data;
  /* The objects the pre-dump check reached (live blocks, objects of a
     loaded image, byte blocks), numbered (common_blockset_number), or
     NULL: the walk keeps what it knows of these objects in an array
     indexed by their numbers, and of any other in a hash map.  Only the
     walk's speed depends on it.  */
  struct common_blockset *reachable;
};

enum dumper_status pdump_write (const struct pdump_write_request *req);

struct pdump_load_request
{
  const char *path;                      /* the image, or an executable */
  /* Where the image lies in PATH when PATH holds it as its section
     PDUMP_EMBED_SECTION (embedded->found), as the discovery of this
     start found it (pdump_find_image): the loader does not parse the
     executable's section headers again.  NULL: PATH is an image file,
     or an executable the loader recognises and parses itself.  */
  const struct pdump_embedded *embedded;
  const unsigned char *fingerprint;      /* DUMPER_FINGERPRINT_SIZE */
  /* The running executable's declaration table: the only statics the
     load may write, hooks it may hand back and code addresses it may
     store.  The image names entries by index.  */
  const struct dumper_decl *decls;
  size_t decl_count;
  char *detail;
  size_t detail_size;
  /* Structural verification (verify.h) of every load with this
     description (DUMPER_VERIFY_STRUCTURE); NULL for none.  */
  const struct dumper_heap *verify_heap;
  /* The host's description when VERIFY_HEAP is NULL (or NULL: none),
     for the structural pass a load runs on its own account: always
     before a boot cache is written (later starts trust the cache, so
     it is verified once, there; without a description no cache is
     written), and with VERIFY_UNCACHED (DUMPER_VERIFY_AUTO) on every
     load that is not from a boot cache.  */
  const struct dumper_heap *heap;
  bool verify_uncached;
  /* The executable to check against and restore into; NULL for the
     running one.  The fuzz targets pass a stand-in whose "writable
     data" is a buffer of their own.  */
  const struct pdump_exe *exe;
  /* Verify only: return the verdict with nothing restored and the
     image unmapped (dumper-inspect --check --deep).  */
  bool check_only;
  /* enum dumper_base_mode: DUMPER_BASE_FIXED tries the image's
     preferred base first (no image relocation there), DUMPER_BASE_BOOT
     this boot's base and the boot cache (bootcache.h), both falling
     back to a relocated load anywhere.  */
  unsigned base_mode;
  /* enum dumper_cold_check: how COLD is verified.  */
  unsigned cold_check;
  /* The settings (common/options.h) for the load method, the boot
     cache's directories and the test hooks; NULL for the defaults.  */
  const struct common_options *options;
};

/* On success the image is mapped, relocated, and the remembered data
   restored into the executable; *ENTRIES (malloc'd, caller frees) holds
   the registry the image recorded, in order, for the bridge to adopt and
   whose hooks it then runs.  Every record is checked against REQ->decls
   before the first static is written: on failure nothing outside the
   image was written.  */
enum dumper_status pdump_load (const struct pdump_load_request *req,
                               struct pdump_entry **entries,
                               size_t *entry_count);

/* Forget the loaded image and unmap it (tests and fuzz targets, which
   load many images in one process; the host must hold no pointer into
   it and must have freed the entries pdump_load returned).  */
void pdump_unload (void);

/* Parse a compression specification, "none", "lz4", "lz4:LEVEL", "zstd"
   or "zstd:LEVEL", into *CODEC (enum pdump_codec) and *LEVEL (0 = the
   codec's default).  False, with a message in DETAIL, for a bad
   specification or a codec this build lacks.  */
bool pdump_codec_parse (const char *spec, unsigned *codec, int *level,
                        char *detail, size_t detail_size);

/* Whether the executable EXE holds an embedded image: DUMPER_OK with
   *FOUND filled (found, and where), or an error (a damaged or truncated section) with the
   specifics in DETAIL.  */
enum dumper_status pdump_probe_embedded (const char *exe,
                                         struct pdump_embedded *found,
                                         char *detail, size_t detail_size);

/* Whether dumper-embed marked this executable as holding an image
   (embed.h): when pdump_probe_embedded finds none, its section headers
   no longer locate it.  */
bool pdump_embed_marked (void);

/* The image of a start that named none (pdump/discover.c): the
   executable EXE itself when it holds one (EMBEDDED->found, with where
   it lies), else EXE.pdmp,
   else IMAGE_DIR/BASENAME.pdmp.  DUMPER_OK with *PATH malloc'd, or NULL
   for a cold start; else an error with DETAIL.  WARNING (empty when
   none) says why an image dumper-embed put in EXE is not used.  */
enum dumper_status pdump_find_image (const char *exe, const char *image_dir,
                                     char **path,
                                     struct pdump_embedded *embedded,
                                     char *warning, size_t warning_size,
                                     char *detail, size_t detail_size);

/* Record the hooks' time in the load statistics.  */
void pdump_note_hooks_time (double seconds);

#endif /* DUMPER_PDUMP_BACKEND_H */
