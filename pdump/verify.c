/* SPDX-License-Identifier: MIT */
/* pdump/verify.c: the verification sequence of an image in memory.

   Owns pdump_verify, the one sequence the loader, dumper-inspect --check
   and the fuzz targets run (checksums, relocation, registry, structure),
   so they can never disagree about an image.  The structural pass it
   ends with lives in verify-structure.c.

   Must not: call into the bridge, or use a table of the image before
   its checksum is checked.  */

#include <config.h>

#include "format.h"
#include "internal.h"
#include "verify.h"

/* When there is no executable to check against (dumper-inspect without
   --exe), executable values may be anything a relocation can hold.  */
#define UNBOUNDED_EXE_LIMIT (UINT64_MAX - PDUMP_MAX_TAG - 1)

enum dumper_status
pdump_verify (struct pdump_verify_request *r)
{
  const struct pdump_view *view = r->view;
  const struct pdump_section *s = view->sections;
  double t0 = pdump_now ();
  const unsigned char *registry = r->registry ? r->registry
                                   : r->bytes + s[PDUMP_SECTION_REGISTRY].offset;
  const unsigned char *scalars = r->scalars ? r->scalars
                                 : r->bytes + s[PDUMP_SECTION_SCALAR_DATA].offset;
  const unsigned char *code = r->code_relocs ? r->code_relocs
                              : r->bytes + s[PDUMP_SECTION_RELOC_CODE].offset;
  const struct { enum pdump_section_kind kind; const unsigned char *at; } summed[] = {
    { PDUMP_SECTION_RELOC_IMAGE, r->bytes + s[PDUMP_SECTION_RELOC_IMAGE].offset },
    { PDUMP_SECTION_RELOC_EXE, r->bytes + s[PDUMP_SECTION_RELOC_EXE].offset },
    { PDUMP_SECTION_REGISTRY, registry },
    { PDUMP_SECTION_SCALAR_DATA, scalars },
    { PDUMP_SECTION_RELOC_CODE, code },
    { PDUMP_SECTION_COLD, r->bytes + s[PDUMP_SECTION_COLD].offset }
  };
  enum dumper_status status = DUMPER_OK;
  /* Trusted: all but COLD (the last entry).  HOT still to be read
     (FILL) is never trusted: relocate is what reads it.  */
  bool trusted = r->trusted && r->fill == NULL;
  size_t sum_count = sizeof summed / sizeof summed[0]
                     - (trusted || r->skip_cold ? 1 : 0);
  for (size_t i = 0; i < sum_count && status == DUMPER_OK; i++)
    status = pdump_check_section_sum (view, summed[i].kind, summed[i].at,
                                      r->path, r->detail, r->detail_size);
  double t1 = pdump_now ();
  r->sums_seconds = t1 - t0;
  if (status != DUMPER_OK)
    return status;

  unsigned char *hot = r->hot ? r->hot : r->bytes + s[PDUMP_SECTION_HOT].offset;
  const struct pdump_relocation relocation = {
    .view = view, .hot = hot,
    .reloc_image = r->bytes + s[PDUMP_SECTION_RELOC_IMAGE].offset,
    .reloc_exe = r->bytes + s[PDUMP_SECTION_RELOC_EXE].offset,
    .path = r->path, .detail = r->detail, .detail_size = r->detail_size
  };
  r->image_relocs = 0;
  if (!trusted)
    status = pdump_relocate (&relocation, r->fill, r->fill_ctx, r->image_base,
                             &r->image_relocs);
  if (status == DUMPER_OK && r->relocated)
    r->relocated (r->relocated_ctx, hot);
  if (status == DUMPER_OK)
    status = pdump_relocate_exe (&relocation, r->exe ? r->exe->bias : 0,
                                 r->exe ? r->exe->hi : UNBOUNDED_EXE_LIMIT,
                                 &r->exe_relocs);
  r->code_reloc_count = 0;
  if (status == DUMPER_OK && r->decls != NULL)
    status = pdump_relocate_code (view, hot,
                                  r->bytes + s[PDUMP_SECTION_RELOC_IMAGE].offset,
                                  r->bytes + s[PDUMP_SECTION_RELOC_EXE].offset,
                                  code, r->decls, r->decl_count, &r->code_reloc_count,
                                  r->path, r->detail, r->detail_size);
  if (status == DUMPER_OK)
    status = pdump_check_registry (view, registry, r->exe, r->decls,
                                   r->decl_count, r->path, r->detail,
                                   r->detail_size);
  double t2 = pdump_now ();
  r->relocate_seconds = t2 - t1;
  if (status != DUMPER_OK || r->heap == NULL)
    return status;

  if ((r->hot && r->hot != r->bytes + s[PDUMP_SECTION_HOT].offset)
      || r->image_base != (uintptr_t) r->bytes || r->exe == NULL)
    return pdump_check_fail (DUMPER_E_STATE, r->detail, r->detail_size, r->path,
                             "structural verification needs the heap relocated "
                             "in place against an executable");
  status = pdump_verify_structure (view, r->bytes, code, r->exe, r->heap, r->decls,
                                   r->decl_count, r->path,
                                   r->detail, r->detail_size,
                                   &r->structure_index_seconds);
  r->structure_seconds = pdump_now () - t2;
  return status;
}
