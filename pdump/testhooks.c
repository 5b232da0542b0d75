/* SPDX-License-Identifier: MIT */
/* pdump/testhooks.c: the loader's fault injection, compiled only with
   --enable-test-hooks (DUMPER_TEST_HOOKS); a release library has none
   of it (tests/e2e/exports.sh checks for DUMPER_TEST_ strings).  */

#include <config.h>

#if DUMPER_TEST_HOOKS

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "load.h"

#ifndef MAP_FIXED_NOREPLACE
# define MAP_FIXED_NOREPLACE 0x100000   /* Linux 4.17 */
#endif

/* Test-only, with --enable-test-hooks: DUMPER_TEST_TRUNCATE_IMAGE=SIZE truncates the image file
   to SIZE bytes at step WHEN, to test the guard above
   (tests/pdump/trust.sh): once it is mapped ("map"), or, with
   DUMPER_TEST_TRUNCATE_WHEN=relocate, when HOT's relocation pass
   begins, after the tables' checksums (in load method map the pass then
   reads HOT through the cut mapping, its hash state live).  */
void
pdump_test_truncate (const struct pdump_load_request *req, const char *when)
{
  const char *size = pdump_options_of (req)->test_truncate_image;
  const char *at = pdump_options_of (req)->test_truncate_when;
  if (size != NULL && *size && strcmp (at ? at : "map", when) == 0)
    (void) !truncate (req->path, (off_t) strtoull (size, NULL, 0));
}

/* The relocation pass's fill for a HOT already in memory, under the
   test above: the cut as the pass begins.  */
static bool
truncate_at_relocate (void *req, unsigned char *dest, uint64_t offset,
                      uint64_t size)
{
  (void) dest, (void) size;
  if (offset == 0)
    pdump_test_truncate (req, "relocate");
  return true;
}

/* Base mode fixed or boot, DUMPER_TEST_OCCUPY_BASE set: take a page at
   BASE first, so the fallback runs (tests/pdump/base.sh); false with
   the reason when that fails.  */
bool
pdump_test_occupy (const struct pdump_load_request *req, uint64_t base)
{
  if (!pdump_options_of (req)->test_occupy_base
      || mmap ((void *) (uintptr_t) base, 4096, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0)
         != MAP_FAILED)
    return true;
  snprintf (pdump_base_reason, sizeof pdump_base_reason, "cannot occupy the preferred "
            "base for the test: %s", strerror (errno));
  return false;
}

/* The relocation pass's fill for the truncation test, when asked.  */
void
pdump_test_fill (struct pdump_verify_request *vr,
               const struct pdump_load_request *req)
{
  if (vr->fill == NULL && pdump_options_of (req)->test_truncate_when != NULL)
    vr->fill = truncate_at_relocate, vr->fill_ctx = (void *) req;
}

#else
/* ISO C wants a translation unit to declare something.  */
typedef int pdump_testhooks_empty;
#endif /* DUMPER_TEST_HOOKS */
