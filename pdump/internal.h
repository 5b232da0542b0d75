/* SPDX-License-Identifier: MIT */
/* pdump/internal.h: state shared between the files of pdump/.  */

#ifndef DUMPER_PDUMP_INTERNAL_H
#define DUMPER_PDUMP_INTERNAL_H

#include <dumper/pdump.h>

extern struct pdump_stats pdump_load_stats_;
extern struct pdump_dump_stats pdump_dump_stats_;

/* Seconds from a monotonic clock, for the statistics.  */
#include "common/clock.h"
#define pdump_now common_now   /* one monotonic clock: common/clock.c */

#endif /* DUMPER_PDUMP_INTERNAL_H */
