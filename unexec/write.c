/* SPDX-License-Identifier: MIT */
/* unexec/write.c: unexec_write, the unexec back end's one entry point
   for dumping.

   Owns the order of the steps and the statistics: scrub the arena
   (freed memory is saved as zeros), open the running executable, plan
   the new layout from the current memory, warn about pointers that
   cannot survive, and write the file.  Everything the steps need comes
   from the request and from the arena; nothing here calls the bridge.  */

#include <config.h>

#include <string.h>
#include <time.h>

#include "arena.h"
#include "common/clock.h"
#include "internal.h"

/* Cleared before each dump, so the saved copy of it is all zero.  */
static struct unexec_stats last_stats;

enum dumper_status
unexec_write_from (const char *input, const struct unexec_request *req)
{
  struct unexec_detail detail = { req->detail, req->detail_size };
  if (detail.text && detail.size)
    detail.text[0] = '\0';
  memset (&last_stats, 0, sizeof last_stats);
  if (req->output == NULL || req->output[0] == '\0')
    return unexec_fail (&detail, DUMPER_E_OUTPUT, "no output file given");
  double t0 = common_now ();

  unexec_arena_scrub ();
  void *base;
  struct unexec_arena_view arena;
  unexec_arena_bounds (&base, &arena.used, &arena.capacity);
  arena.base = (uintptr_t) base;

  struct unexec_input in;
  enum dumper_status status = unexec_input_open (&in, input, &detail);
  if (status != DUMPER_OK)
    return status;
  struct unexec_plan plan;
  status = unexec_plan_make (&plan, &in, &arena, &detail);
  if (status == DUMPER_OK)
    {
      size_t suspicious = unexec_scan_pointers (&in, &plan, req->warn,
                                                req->warn_data);
      status = unexec_emit (&in, &plan, req->output, &detail);
      if (status == DUMPER_OK)
        {
          const GElf_Phdr *seg = &in.phdrs[plan.segment];
          struct unexec_stats stats = {
            .written = true,
            .seconds = common_now () - t0,
            .input_size = in.file_size,
            .output_size = plan.file_size,
            .segment_file_size = plan.phdrs[plan.segment].p_filesz,
            .segment_added = (int64_t) plan.phdrs[plan.segment].p_filesz
                             - (int64_t) seg->p_filesz,
            .arena_used = arena.used,
            .suspicious_words = suspicious,
          };
          last_stats = stats;
        }
      unexec_plan_free (&plan);
    }
  unexec_input_close (&in);
  return status;
}

enum dumper_status
unexec_write (const struct unexec_request *req)
{
  return unexec_write_from ("/proc/self/exe", req);
}

const struct unexec_stats *
unexec_last_stats (void)
{
  return &last_stats;
}
