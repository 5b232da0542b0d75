#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/scales.sh: the loadup scales `make bench' measures, on one line:
# 1 4 16, and 64 where memory allows, so the growth of each cost shows.
#
# At scale 64 the pdump dumping run peaks near 1.4 GiB and the unexec one
# near 0.5 GiB (a cold start about 0.35 GiB), one process at a time; 64
# is added when /proc/meminfo's MemAvailable is at least BENCH_64_MIN_KB
# (default 4 GiB, room for that and the page cache of the artifacts).

min=${BENCH_64_MIN_KB:-4194304}
avail=`sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo 2>/dev/null`
if [ -n "$avail" ] && [ "$avail" -ge "$min" ]; then
  echo "1 4 16 64"
else
  echo "1 4 16"
fi
