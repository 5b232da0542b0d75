/* SPDX-License-Identifier: MIT */
/* pdump/verify.h: the one verification sequence of an image in memory
   (verify.c; its structural pass in verify-structure.c), shared by the
   loader (load.c), dumper-inspect --check and the fuzz targets, so they
   accept and refuse exactly the same images with the same status.

   The sequence: checksums of COLD and the discardable tables; HOT
   relocated in place with its checksum; the registry against the
   executable; then, in mode PDUMP_VERIFY_STRUCTURE, the structural pass
   over the relocated heap with the host's own size and trace functions
   (see pdump_verify_structure).  */

#ifndef DUMPER_PDUMP_VERIFY_H
#define DUMPER_PDUMP_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>
#include <dumper/heap.h>

#include "check.h"
#include "exe.h"

struct pdump_verify_request
{
  const struct pdump_view *view;   /* from pdump_check_header */
  unsigned char *bytes;            /* file offset 0 in memory */
  /* HOT, relocated in place: NULL for BYTES + the HOT offset; a private
     copy when the caller wants BYTES unchanged (the inspector).  */
  unsigned char *hot;
  pdump_fill_fn fill;              /* reads HOT just in time; may be NULL */
  void *fill_ctx;
  uintptr_t image_base;            /* added to image values */
  const struct pdump_exe *exe;     /* NULL: no executable to check against */
  /* Non-NULL: run the structural pass with this description.  It needs
     the heap at the address it was relocated for: HOT == NULL,
     IMAGE_BASE == (uintptr_t) BYTES, and EXE.  */
  const struct dumper_heap *heap;
  /* The executable's declaration table: with it, code pointers are
     restored (RELOC_CODE) and registry records checked against it.
     The inspector passes the one of --exe (read from the file); NULL
     (no executable: the fuzz targets, the inspector without --exe)
     skips both checks.  */
  const struct dumper_decl *decls;
  size_t decl_count;
  /* Private copies of REGISTRY, SCALAR_DATA and RELOC_CODE (the loader
     copies them out of the file mapping); NULL: use BYTES.  */
  const unsigned char *registry, *scalars, *code_relocs;
  /* A boot cache that passed its owner and header checks
     (bootcache.h): COLD's checksum and the relocation pass over HOT
     (its hash and the check of every image word) are skipped; the
     tables, executable and code relocations and the registry are
     checked as always.  */
  bool trusted;
  /* COLD's checksum skipped (COLD verification boot or size).  */
  bool skip_cold;
  /* Called once HOT is relocated to IMAGE_BASE and checked, before the
     executable and code relocations change it (the boot cache is
     written from there); may be NULL.  */
  void (*relocated) (void *ctx, const unsigned char *hot);
  void *relocated_ctx;
  const char *path;
  char *detail;
  size_t detail_size;

  /* Out.  */
  uint64_t image_relocs, exe_relocs, code_reloc_count;
  double sums_seconds;             /* section checksums */
  double relocate_seconds;         /* relocation and the registry */
  double structure_seconds;        /* the structural pass */
  double structure_index_seconds;  /* of which the object index */
};

/* Run the sequence; DUMPER_OK or the first failure's status with the
   message in REQ->detail.  On failure HOT may be partly relocated; the
   caller discards it.  */
enum dumper_status pdump_verify (struct pdump_verify_request *req);

/* The structural pass alone, over an image already relocated at BYTES
   (file offset 0) against EXE, with RELOC_CODE the private copy of
   that section:

   - the object index (OBJECTS, checksum first) must tile HOT and COLD
     exactly: each object at the previous end rounded up to its
     alignment, HOT objects of types with a trace function, COLD ones
     pointer-free or byte blocks, sizes equal to what the host's size
     functions say;
   - every field a trace function reports must be an immediate, a
     pointer into the executable (relocated by RELOC_EXE) or a pointer
     (relocated by RELOC_IMAGE) to the start of an image object whose
     type is the one the tag or the field says; a byte block must start
     a byte block of the image and fit in it;
   - a code pointer field (dumper_trace_code) must be NULL or listed in
     RELOC_CODE, and
     no data field may be listed there;
   - every relocated word must be a reported field, and no field the
     trace reports as a pointer may have been left unrelocated;
   - registry values obey the same rules.

   Needs no allocation but one scratch mapping sized from the header
   (about 1.5 bytes per 8 bytes of objects plus 5 bytes per object:
   verify-pass.h).  Any
   violation is DUMPER_E_IMAGE_CORRUPT naming the object, its type, the
   field and the value.  Host contract (heap.h): size functions read at
   most the first 64 bytes of an object, trace functions read only the
   object they trace, header_type only the first 64 bytes.  DECLS (may
   be NULL) gives the types of remembered pointers.  *INDEX_SECONDS
   (when not NULL) is set to the time the object index took (reading
   OBJECTS into the pass's tables), the rest being the walk over the
   objects.  */
enum dumper_status pdump_verify_structure (const struct pdump_view *view,
                                           unsigned char *bytes,
                                           const void *reloc_code,
                                           const struct pdump_exe *exe,
                                           const struct dumper_heap *heap,
                                           const struct dumper_decl *decls,
                                           size_t decl_count,
                                           const char *path, char *detail,
                                           size_t detail_size,
                                           double *index_seconds);

#endif /* DUMPER_PDUMP_VERIFY_H */
