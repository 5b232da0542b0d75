/* SPDX-License-Identifier: MIT */
/* common/clock.h: the one monotonic clock of the library and the tools
   (load, dump and start-up timings; dumper-compare's measurements).  */

#ifndef DUMPER_COMMON_CLOCK_H
#define DUMPER_COMMON_CLOCK_H

/* Seconds from CLOCK_MONOTONIC: only differences mean anything.  */
double common_now (void);

#endif
