/* SPDX-License-Identifier: MIT */
/* unexec/write.c: the steps of a dump in order, and the statistics.

   The one writer behind both entry points: unexec_write (host.c, a
   libdumper host whose heap is the static arena) and unexec ()
   (bridge/compat.c, an existing program such as Emacs, whose heap is
   the brk heap).  Open the running executable, plan the new layout from
   the current memory, warn about pointers that cannot survive, write
   the file.  Nothing here knows the arena's allocator or calls the
   bridge: what to save comes in as a struct unexec_memory.  */

#include <config.h>

#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/maps.h"
#include "internal.h"

/* Cleared before each dump, so the saved copy of it is all zero.  */
static struct unexec_stats last_stats;

/* The upper segment (the end of .bss and the brk heap) is read from
   memory while the file is written.  The writer's own allocations come
   from the brk heap; if freeing them made malloc give memory back below
   what the plan saves, the read would fault: fail instead.  */
static enum dumper_status
check_heap_still_there (const struct unexec_plan *plan,
                        const struct unexec_detail *detail)
{
  if (plan->upper_phdr == UNEXEC_NO_PHDR)
    return DUMPER_OK;
  const GElf_Phdr *ph = &plan->phdrs[plan->upper_phdr];
  uintptr_t start, end;
  if (common_brk_range (&start, &end) && end >= ph->p_vaddr + ph->p_filesz)
    return DUMPER_OK;
  return unexec_fail (detail, DUMPER_E_EXE, "the brk heap shrank while "
                      "it was being saved");
}

static void
record_stats (const struct unexec_input *in, const struct unexec_plan *plan,
              const struct unexec_memory *mem, double t0, size_t suspicious)
{
  const GElf_Phdr *seg = &in->phdrs[plan->segment];
  struct unexec_stats stats = {
    .written = true,
    .seconds = common_now () - t0,
    .input_size = in->file_size,
    .output_size = plan->file_size,
    .segment_file_size = plan->phdrs[plan->segment].p_filesz,
    .segment_added = (int64_t) plan->phdrs[plan->segment].p_filesz
                     - (int64_t) seg->p_filesz,
    .arena_used = mem->arena.used,
    .upper_saved = plan->upper_phdr == UNEXEC_NO_PHDR
                      ? 0 : plan->phdrs[plan->upper_phdr].p_filesz,
    .suspicious_words = suspicious,
  };
  last_stats = stats;
}

enum dumper_status
unexec_write_memory (const char *input, const struct unexec_request *req,
                     const struct unexec_memory *mem)
{
  struct unexec_detail detail = { req->detail, req->detail_size };
  if (detail.text && detail.size)
    detail.text[0] = '\0';
  memset (&last_stats, 0, sizeof last_stats);
  if (req->output == NULL || req->output[0] == '\0')
    return unexec_fail (&detail, DUMPER_E_OUTPUT, "no output file given");
  double t0 = common_now ();

  struct unexec_input in;
  enum dumper_status status = unexec_input_open (&in, input, &detail);
  if (status != DUMPER_OK)
    return status;
  if (mem->compress_debug)
    unexec_input_compress_debug (&in);
  struct unexec_plan plan;
  status = unexec_plan_make (&plan, &in, mem, &detail);
  if (status == DUMPER_OK)
    {
      size_t suspicious = unexec_scan_pointers (&in, &plan, req->warn,
                                                req->warn_data);
      status = check_heap_still_there (&plan, &detail);
      if (status == DUMPER_OK)
        status = unexec_emit (&in, &plan, req->output, &detail);
      if (status == DUMPER_OK)
        record_stats (&in, &plan, mem, t0, suspicious);
      unexec_plan_free (&plan);
    }
  unexec_input_close (&in);
  return status;
}

const struct unexec_stats *
unexec_last_stats (void)
{
  return &last_stats;
}
