#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/relocate-cost.sh: what base mode random's relocation costs per
# relocated word at each scale, and how steady a start is (issue 33,
# item 3: ns per relocation at scale 16 within 1.25x of scale 4, p99/p50
# at most 1.5 with 50 starts).
#
# Usage: bench/relocate-cost.sh PDUMPER-BUILD [BEFORE-BUILD]
# Environment:
#   SCALES  loadup scales (default "1 4 16")
#   RUNS    starts per build and scale (default 50)
#   BASE    DUMPER_PDUMP_BASE of every start (default random)
#   VERIFY  DUMPER_PDUMP_VERIFY of every start (default none: the
#           relocation alone, as bench/base-modes.sh's rows)
#
# Each build's dlisp-bare dumps its own image per scale; then RUNS
# rounds, each one start of each build (`dlisp --load-stats', so the
# loader's own phase times come with the wall time), interleaved so that
# machine noise falls on both alike.  Per build and scale: the wall time
# of the start and the relocate phase's time (pdump-relocate-seconds:
# HOT read, hashed and relocated), p50, p99 (nearest rank: with 50 runs
# the largest but none) and p99/p50; ns per relocation is the relocate
# phase's p50 over pdump-image-relocs; `x scale 4' is that against
# the same build's scale 4 (the cliff the issue names).

PD=${1:?usage: bench/relocate-cost.sh PDUMPER-BUILD [BEFORE-BUILD]}
BEFORE=${2:-}
SCALES=${SCALES:-"1 4 16"}
RUNS=${RUNS:-50}
BASE=${BASE:-random}
VERIFY=${VERIFY:-none}
abs () { [ -n "$1" ] && (cd "$1" && pwd); }
PD=$(abs "$PD") || exit 2
BEFORE=$(abs "$BEFORE")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/relocate-cost.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

builds="after"
[ -n "$BEFORE" ] && builds="before after"
dir_of () { case $1 in before) echo "$BEFORE" ;; after) echo "$PD" ;; esac; }

# pct FILE P: nearest-rank P-th percentile of the numbers in FILE
pct () {
  sort -g "$1" | awk -v p="$2" '{ v[NR] = $1 } END {
    r = int ((p * NR + 99) / 100); if (r < 1) r = 1; printf "%.3f", v[r] }'
}

echo "relocation cost: $RUNS starts per build and scale, interleaved;" \
     "base $BASE, verify $VERIFY; $(date -u '+%Y-%m-%d %H:%M UTC')," \
     "load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-5s %-6s %8s %8s %7s %9s %9s %7s %9s %8s %9s\n' scale build \
  wall-p50 wall-p99 p99/p50 reloc-p50 reloc-p99 p99/p50 relocs ns/reloc "x scale 4"
declare -A ns4
for s in $SCALES; do
  for b in $builds; do
    d=$(dir_of $b)
    "$d/host/dlisp-bare" --loadup-scale "$s" --temacs=pdump \
      --output "$tmp/$b.$s.pdmp" > "$tmp/$b.$s.out" 2>&1 \
      || { echo "relocate-cost: $d: the dump at scale $s failed" >&2
           cat "$tmp/$b.$s.out" >&2; exit 1; }
    : > "$tmp/$b.$s.wall"; : > "$tmp/$b.$s.reloc"
  done
  for i in $(seq "$RUNS"); do
    for b in $builds; do
      d=$(dir_of $b)
      t0=$EPOCHREALTIME
      DUMPER_PDUMP_BASE=$BASE DUMPER_PDUMP_VERIFY=$VERIFY \
        "$d/host/dlisp" --dump-file="$tmp/$b.$s.pdmp" --load-stats \
        > "$tmp/stats" 2>&1 \
        || { echo "relocate-cost: $d: a start at scale $s failed" >&2
             cat "$tmp/stats" >&2; exit 1; }
      t1=$EPOCHREALTIME
      echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' >> "$tmp/$b.$s.wall"
      sed -n 's/^pdump-relocate-seconds: //p' "$tmp/stats" \
        | awk '{ printf "%.3f\n", $1 * 1000 }' >> "$tmp/$b.$s.reloc"
      sed -n 's/^pdump-image-relocs: //p' "$tmp/stats" > "$tmp/$b.$s.count"
    done
  done
  for b in $builds; do
    w50=$(pct "$tmp/$b.$s.wall" 50); w99=$(pct "$tmp/$b.$s.wall" 99)
    r50=$(pct "$tmp/$b.$s.reloc" 50); r99=$(pct "$tmp/$b.$s.reloc" 99)
    n=$(cat "$tmp/$b.$s.count")
    ns=$(awk -v r="$r50" -v n="$n" 'BEGIN { printf "%.2f", n ? r * 1e6 / n : 0 }')
    [ "$s" = 4 ] && ns4[$b]=$ns
    awk -v s="$s" -v b="$b" -v w50="$w50" -v w99="$w99" -v r50="$r50" \
        -v r99="$r99" -v n="$n" -v ns="$ns" -v ns4="${ns4[$b]}" 'BEGIN {
      printf "%-5s %-6s %8.2f %8.2f %6.2fx %9.2f %9.2f %6.2fx %9d %8.2f %9s\n",
        s, b, w50, w99, w99 / w50, r50, r99, (r50 > 0 ? r99 / r50 : 0), n, ns,
        (ns4 > 0 ? sprintf ("%.2fx", ns / ns4) : "-") }'
  done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
