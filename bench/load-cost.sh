#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/load-cost.sh OLD-BUILD NEW-BUILD [RUNS]: what a library change
# costs dlisp's start from its own image, side by side in one run.
#
# Each build's dlisp-bare dumps an image; then RUNS (default 40) starts
# of each build's dlisp from its own image, interleaved, in base mode
# random with verify none (the relocating load, without the structural
# pass, so that only the loader's own work is compared).  Prints the
# medians, their ratio, and both images' sizes.  Used for the cost of
# format 5's records on a host that does not use them (issue 30).

OLD=${1:?usage: bench/load-cost.sh OLD-BUILD NEW-BUILD [RUNS]}
NEW=${2:?usage: bench/load-cost.sh OLD-BUILD NEW-BUILD [RUNS]}
RUNS=${3:-40}
T=`mktemp -d "${TMPDIR:-/tmp}/load-cost.XXXXXX"` || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

for b in old new; do
  case $b in old) d=$OLD ;; new) d=$NEW ;; esac
  "$d/host/dlisp-bare" --temacs=pdump --output "$T/$b.pdmp" > "$T/$b.out" 2>&1 \
    || { echo "load-cost: $d: the dump failed" >&2; cat "$T/$b.out" >&2; exit 1; }
done

# ms COMMAND...: one run's wall time in microseconds.
ms () {
  _s=`date +%s%N`
  "$@" > /dev/null 2>&1
  _e=`date +%s%N`
  echo $(( (_e - _s) / 1000 ))
}
median () { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int ((NR + 1) / 2)] / 1000 }'; }

: > "$T/o"; : > "$T/n"
export DUMPER_PDUMP_BASE=random DUMPER_PDUMP_VERIFY=none
for i in `seq $RUNS`; do
  ms "$OLD/host/dlisp" --dump-file="$T/old.pdmp" --batch --eval t >> "$T/o"
  ms "$NEW/host/dlisp" --dump-file="$T/new.pdmp" --batch --eval t >> "$T/n"
done
o=`median < "$T/o"`; n=`median < "$T/n"`
echo "old p50 $o ms, new p50 $n ms, new/old `echo "$n $o" | awk '{ printf "%.3f", $1 / $2 }'`"
echo "image bytes: old `wc -c < "$T/old.pdmp"`, new `wc -c < "$T/new.pdmp"`"
