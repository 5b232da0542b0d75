#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/unexec/bench.sh: the unexec figures for the benchmarks, measured
# with tests/unexec/minihost in an unexec build directory.
#
# Usage: sh tests/unexec/bench.sh [BUILDDIR] [SCALE] [RUNS]
# Prints one line of key=value pairs:
#   cold_ms        a cold start (init at SCALE, no dump)
#   dump_ms        unexec_write alone (the writer's own clock)
#   dump_run_ms    the whole dumping run (re-exec, init, dump)
#   exe_bytes      the dumped executable's size
#   input_bytes    the undumped executable's size
#   data_added     bytes the data segment's file part grew by
#   arena_used     arena bytes saved
#   start_ms       mean start-up time of the dumped executable over RUNS
# Not part of `make check': figures, not pass/fail.

BUILDDIR=${1:-.}
SCALE=${2:-20000}
RUNS=${3:-50}
MH=$BUILDDIR/tests/unexec/minihost
[ -x "$MH" ] || { echo "bench.sh: $MH not built (make check in an unexec build)" >&2; exit 1; }
T=`mktemp -d "${TMPDIR:-/tmp}/unexec-bench.XXXXXX"` || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

ms () { date +%s%N; }
elapsed () { echo "$1 $2" | awk '{ printf "%.3f", ($2 - $1) / 1e6 }'; }

t0=`ms`; "$MH" --scale "$SCALE" > /dev/null || exit 1; t1=`ms`
cold=`elapsed $t0 $t1`
t0=`ms`
"$MH" --scale "$SCALE" --temacs=dump --output "$T/dumped" --stats > "$T/out" || exit 1
t1=`ms`
dump_run=`elapsed $t0 $t1`
stats=`sed -n 's/^dump //p' "$T/out"`
get () { printf '%s\n' "$stats" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
t0=`ms`
i=0
while [ $i -lt "$RUNS" ]; do
  "$T/dumped" > /dev/null || exit 1
  i=`expr $i + 1`
done
t1=`ms`
start=`echo "$t0 $t1 $RUNS" | awk '{ printf "%.3f", ($2 - $1) / 1e6 / $3 }'`
echo "scale=$SCALE cold_ms=$cold dump_ms=`get seconds | awk '{ printf "%.3f", $1 * 1000 }'`" \
     "dump_run_ms=$dump_run exe_bytes=`get output` input_bytes=`get input`" \
     "data_added=`get added` arena_used=`get arena` start_ms=$start"
