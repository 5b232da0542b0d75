#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/cold-start.sh: cold start time of dlisp at loadup scales 1, 4
# and 16, the baseline every dump back end is compared against.
#
# Usage: bench/cold-start.sh [RUNS]      (default 7 runs per scale)
# Environment: BUILDDIR (default .), DLISP (default $BUILDDIR/host/dlisp),
# SCALES (default "1 4 16").
#
# Each run is a whole process: `dlisp --no-dump-file --loadup-scale N
# --batch', timed from outside.  The scales are measured side by side,
# round-robin in one run of this script (so a busy machine slows them
# alike), and the median is printed with the spread, the reachable heap
# (bytes and objects, from `--stats', the same walk as the digest), the
# loadup time measured inside the process, the digest time, and the
# ratio of each scale's median to scale 1's.

BUILDDIR=${BUILDDIR:-.}
DLISP=${DLISP:-$BUILDDIR/host/dlisp}
RUNS=${1:-7}
SCALES=${SCALES:-"1 4 16"}

if [ ! -x "$DLISP" ]; then
  echo "cold-start: $DLISP not found; run \`make' first or set DLISP" >&2
  exit 66
fi

tmp=`mktemp -d "${TMPDIR:-/tmp}/dlisp-bench.XXXXXX"` || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

now_us () {
  # GNU date: nanoseconds since the epoch.
  echo $(( `date +%s%N` / 1000 ))
}

i=0
while [ $i -lt "$RUNS" ]; do
  for s in $SCALES; do
    t0=`now_us`
    "$DLISP" --no-dump-file --loadup-scale "$s" --batch || { echo "cold-start: dlisp failed at scale $s" >&2; exit 1; }
    t1=`now_us`
    echo $(( t1 - t0 )) >> "$tmp/wall.$s"
  done
  i=$(( i + 1 ))
done

# median / min / max of a file of numbers
summary () {
  sort -n "$1" | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf "%.1f %.1f %.1f", m / 1000, v[1] / 1000, v[NR] / 1000 }'
}

stat_value () {
  sed -n "s/^$1: //p" "$2"
}

echo "dlisp cold start (`"$DLISP" --version`), $RUNS runs per scale, median wall time"
printf '%-6s %10s %17s %12s %12s %10s %10s %7s\n' \
  scale "median-ms" "min..max-ms" "heap-MiB" objects "loadup-ms" "digest-ms" ratio
base=
for s in $SCALES; do
  "$DLISP" --no-dump-file --loadup-scale "$s" --stats > "$tmp/stats.$s"
  set -- `summary "$tmp/wall.$s"`
  median=$1 lo=$2 hi=$3
  [ -z "$base" ] && base=$median
  bytes=`stat_value heap-bytes "$tmp/stats.$s"`
  objects=`stat_value heap-objects "$tmp/stats.$s"`
  loadup=`stat_value loadup-seconds "$tmp/stats.$s"`
  digest=`stat_value digest-seconds "$tmp/stats.$s"`
  awk -v s="$s" -v m="$median" -v lo="$lo" -v hi="$hi" -v b="$bytes" -v o="$objects" \
      -v l="$loadup" -v d="$digest" -v base="$base" 'BEGIN {
    printf "%-6s %10.1f %8.1f..%-8.1f %12.2f %12d %10.1f %10.1f %6.2fx\n",
      s, m, lo, hi, b / 1048576, o, l * 1000, d * 1000, m / base }'
done
