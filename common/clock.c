/* SPDX-License-Identifier: MIT */
/* common/clock.c: the monotonic clock (see clock.h).  */

#include <config.h>

#include "common/clock.h"

#include <time.h>

double
common_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}
