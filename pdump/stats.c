/* SPDX-License-Identifier: MIT */
/* pdump/stats.c: the figures of the image load and of the last dump.

   The loader and writer fill these as they go; dumper-compare, the
   benchmarks and `dlisp --stats' read them.  */

#include <config.h>

#include "backend.h"
#include "internal.h"

struct pdump_stats pdump_load_stats_;
struct pdump_dump_stats pdump_dump_stats_;

const struct pdump_stats *
pdump_stats (void)
{
  return &pdump_load_stats_;
}

const struct pdump_dump_stats *
pdump_dump_stats (void)
{
  return &pdump_dump_stats_;
}

void
pdump_note_hooks_time (double seconds)
{
  pdump_load_stats_.hooks_seconds = seconds;
  pdump_load_stats_.total_seconds += seconds;
}
