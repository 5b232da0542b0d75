#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/dump-scale.sh: does a dump cost the same per megabyte at every
# scale, and how much memory does the dumping run take (issue 17)?
#
# Usage: bench/dump-scale.sh [RUNS] [BUILD...]   (default 5 runs; the
# build directories default to $BUILDDIR or .)
# Environment: SCALES (default: bench/scales.sh, 1 4 16 and 64 where
# memory allows).
#
# For each build (pdumper or unexec, told apart by its Makefile) and
# scale: RUNS dumping runs of `dlisp-bare --loadup-scale N' and RUNS cold
# starts, all round-robin in one run of this script, so the builds and
# scales see the same machine (several builds side by side compare a
# change with its base).  Printed per row, medians: the file written,
# the write step (the host's write-seconds: the back end alone, without
# the collection before it; dump-seconds for a host that predates it),
# ms per MiB and its ratio to the first scale's, the dumping run's peak
# RSS, the cold start's, and the memory target of issue 17: cold RSS +
# 1.25 x the file.  Then the external anchor.

srcdir=`dirname "$0"`/..
RUNS=${1:-5}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- "${BUILDDIR:-.}"
SCALES=${SCALES:-`sh "$srcdir/bench/scales.sh"`}

tmp=`mktemp -d "${TMPDIR:-/tmp}/dump-scale.XXXXXX"` || exit 71
trap 'rm -rf "$tmp"' EXIT INT TERM

b=0
for build in "$@"; do
  b=$((b + 1))
  backend=`sed -n 's/^BACKEND *= *//p' "$build/Makefile" 2>/dev/null`
  case $backend in
    pdumper) echo "pdump" > "$tmp/mode-$b"; echo "--temacs=pdump" > "$tmp/flag-$b" ;;
    unexec) echo "unexec" > "$tmp/mode-$b"; echo "--temacs=dump" > "$tmp/flag-$b" ;;
    *) echo "dump-scale: $build is not a pdumper or unexec build" >&2; exit 64 ;;
  esac
  [ -x "$build/host/dlisp-bare" ] || { echo "dump-scale: $build/host/dlisp-bare not found; run make" >&2; exit 66; }
  echo "$build" > "$tmp/build-$b"
done
builds=$b

# One measured process: "seconds maxrss_kb" appended to FILE.
measure () {
  file=$1; shift
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" > "$tmp/out" 2>&1 || {
    echo "dump-scale: failed: $*" >&2; cat "$tmp/out" >&2; exit 70; }
  cat "$tmp/time" >> "$file"
}

i=0
while [ $i -lt "$RUNS" ]; do
  for s in $SCALES; do
    b=1
    while [ $b -le $builds ]; do
      build=`cat "$tmp/build-$b"`
      out="$tmp/image-$b-$s"
      measure "$tmp/dump-$b-$s" "$build/host/dlisp-bare" --loadup-scale "$s" \
        `cat "$tmp/flag-$b"` --output "$out" --stats
      w=`sed -n 's/^write-seconds: //p' "$tmp/out"`
      [ -n "$w" ] || w=`sed -n 's/^dump-seconds: //p' "$tmp/out"`
      echo "$w" >> "$tmp/write-$b-$s"
      wc -c < "$out" | tr -d ' ' > "$tmp/size-$b-$s"
      rm -f "$out"
      measure "$tmp/cold-$b-$s" "$build/host/dlisp-bare" --no-dump-file \
        --loadup-scale "$s" --batch
      b=$((b + 1))
    done
  done
  i=$((i + 1))
done

median () {   # column $2 of file $1
  sort -n -k "$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

printf '%-6s %5s  %9s  %9s  %7s  %7s  %11s  %11s  %9s  %s\n' mode scale "file MiB" \
  "write ms" "ms/MiB" "x first" "dump RSS MB" "cold RSS MB" "budget MB" build
b=1
while [ $b -le $builds ]; do
  first=
  for s in $SCALES; do
    size=`cat "$tmp/size-$b-$s"`
    w=`median "$tmp/write-$b-$s" 1`
    drss=`median "$tmp/dump-$b-$s" 2`
    crss=`median "$tmp/cold-$b-$s" 2`
    per=`awk -v w="$w" -v z="$size" 'BEGIN { printf "%.2f", w * 1000 / (z / 1048576) }'`
    [ -n "$first" ] || first=$per
    awk -v mode="`cat "$tmp/mode-$b"`" -v s="$s" -v z="$size" -v w="$w" -v per="$per" \
        -v first="$first" -v d="$drss" -v c="$crss" -v build="`cat "$tmp/build-$b"`" 'BEGIN {
      mib = z / 1048576; budget = c / 1024 + 1.25 * mib
      printf "%-6s %5s  %9.1f  %9.1f  %7.2f  %6.2fx  %11.0f  %11.0f  %9.0f  %s%s\n", mode, s,
        mib, w * 1000, per, per / first, d / 1024, c / 1024, budget, build,
        (d / 1024 > budget ? "  (over budget)" : "")
    }'
  done
  b=$((b + 1))
done
echo
echo "medians of $RUNS runs per row, builds and scales round-robin in one run;"
echo "write: the back end's write step (write-seconds; dump-seconds when absent);"
echo "x first: ms/MiB over the first scale's; budget: cold RSS + 1.25 x the file."
echo "targets (issue 17): pdump ms/MiB at the largest scale within 1.25x of the first"
echo "and at most 15; dump RSS within the budget."
echo "external anchor: GNU Emacs 28.2 re-dumps a 13.7 MB image in 2.0 s, about 146 ms/MB."
