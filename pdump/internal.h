/* SPDX-License-Identifier: MIT */
/* pdump/internal.h: state shared between the files of pdump/.  */

#ifndef DUMPER_PDUMP_INTERNAL_H
#define DUMPER_PDUMP_INTERNAL_H

#include <dumper/pdump.h>

extern struct pdump_stats pdump_load_stats_;
extern struct pdump_dump_stats pdump_dump_stats_;

/* Seconds from a monotonic clock, for the statistics.  */
double pdump_now (void);

#endif /* DUMPER_PDUMP_INTERNAL_H */
