#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/default.sh: the out-of-the-box start (no DUMPER_* setting at
# all) against unexec, with and without XDG_RUNTIME_DIR, side by side
# in one interleaved run (issue 33, item 1: within 1.25x of unexec at
# every scale, goal 1.05x).
#
# Usage: bench/default.sh PDUMPER-BUILD UNEXEC-BUILD [BEFORE-BUILD]
# Environment:
#   SCALES  loadup scales (default 1 4 16)
#   RUNS    timed starts per row and scale (default 30)
#
# Rows, each `dlisp --batch --eval t' timed with bash's $EPOCHREALTIME:
#   unexec        the unexec'd executable
#   before-xdg    BEFORE-BUILD's dlisp (e.g. main before the change),
#   before-noxdg  its own image, no setting, with XDG_RUNTIME_DIR set
#                 to a private directory and unset
#   before-boot   BEFORE-BUILD with DUMPER_PDUMP_BASE=boot (its boot cache
#                 path: what the default adds to it, if anything)
#   default-xdg   PDUMPER-BUILD's dlisp, no setting, the same two ways
#   default-noxdg
#   random        PDUMPER-BUILD with DUMPER_PDUMP_BASE=random, the
#                 per-process randomisation one setting away (its
#                 verification is the default's)
# Every row in turn inside each round, so machine noise falls on all
# alike; p50 is the median, p99 the nearest-rank 99th percentile, min
# the fastest (on a shared, loaded machine the closest estimate of an
# uncontended start; the ratio to unexec is given for p50 and min).  The
# first start of each default row (it relocates the image, runs the
# structural pass and writes the boot cache) is not timed with the
# rest: it is printed on its own, with what --load-stats says of it.
# Without XDG_RUNTIME_DIR the loader uses $TMPDIR/dumper-UID: TMPDIR
# is a private directory of this run there, so no earlier cache counts.

PD=${1:?usage: default.sh PDUMPER-BUILD UNEXEC-BUILD [BEFORE-BUILD]}
UX=${2:?usage: default.sh PDUMPER-BUILD UNEXEC-BUILD [BEFORE-BUILD]}
BEFORE=${3:-}
SCALES=${SCALES:-"1 4 16"}
RUNS=${RUNS:-30}
abs () { [ -n "$1" ] && (cd "$1" && pwd); }
PD=$(abs "$PD"); UX=$(abs "$UX"); BEFORE=$(abs "$BEFORE")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/default-bench.XXXXXX") || exit 1
xdg=$(mktemp -d /dev/shm/default-bench-xdg.XXXXXX) || exit 1
chmod 700 "$xdg"
mkdir -m 700 "$tmp/tmpdir"
trap 'rm -rf "$tmp" "$xdg"' EXIT INT TERM

rows () {
  echo unexec
  [ -n "$BEFORE" ] && echo before-xdg before-noxdg before-boot
  echo default-xdg default-noxdg random
}

# run ROW SCALE WORDS...: one start of ROW at SCALE, no DUMPER_* setting
# but the row's own
run () {
  local r=$1 d=$tmp/$2
  shift 2
  local -a clean=(env -u DUMPER_PDUMP_BASE -u DUMPER_PDUMP_VERIFY
                  -u DUMPER_PDUMP_COLD -u DUMPER_PDUMP_LOAD
                  -u DUMPER_PDUMP_NO_MMAP)
  case $r in
    unexec) "${clean[@]}" "$d/dlisp-ux" "$@" ;;
    before-xdg) "${clean[@]}" XDG_RUNTIME_DIR="$xdg" \
                  "$BEFORE/host/dlisp" --dump-file="$d/before.pdmp" "$@" ;;
    before-noxdg) "${clean[@]}" -u XDG_RUNTIME_DIR TMPDIR="$tmp/tmpdir" \
                    "$BEFORE/host/dlisp" --dump-file="$d/before.pdmp" "$@" ;;
    before-boot) "${clean[@]}" DUMPER_PDUMP_BASE=boot XDG_RUNTIME_DIR="$xdg" \
                   "$BEFORE/host/dlisp" --dump-file="$d/before.pdmp" "$@" ;;
    default-xdg) "${clean[@]}" XDG_RUNTIME_DIR="$xdg" \
                   "$PD/host/dlisp" --dump-file="$d/dlisp.pdmp" "$@" ;;
    default-noxdg) "${clean[@]}" -u XDG_RUNTIME_DIR TMPDIR="$tmp/tmpdir" \
                     "$PD/host/dlisp" --dump-file="$d/dlisp.pdmp" "$@" ;;
    random) "${clean[@]}" DUMPER_PDUMP_BASE=random XDG_RUNTIME_DIR="$xdg" \
              "$PD/host/dlisp" --dump-file="$d/dlisp.pdmp" "$@" ;;
  esac
}

prepare () {
  local s=$1 d=$tmp/$1
  mkdir -p "$d"
  "$PD/host/dlisp-bare" --loadup-scale "$s" --temacs=pdump \
    --output "$d/dlisp.pdmp" > "$d/dump.out" 2>&1 || { cat "$d/dump.out"; return 1; }
  (cd "$d" && "$UX/host/dlisp-bare" --loadup-scale "$s" --temacs=dump \
     --output "$d/dlisp-ux" > "$d/ux.out" 2>&1) || { cat "$d/ux.out"; return 1; }
  if [ -n "$BEFORE" ]; then
    "$BEFORE/host/dlisp-bare" --loadup-scale "$s" --temacs=pdump \
      --output "$d/before.pdmp" > "$d/before.out" 2>&1 || { cat "$d/before.out"; return 1; }
  fi
}

ms () { echo "$1 $2" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }'; }

pct () {
  sort -g "$1" | awk -v p="$2" '{ v[NR] = $1 } END {
    r = int ((p * NR + 99) / 100); if (r < 1) r = 1; printf "%.2f", v[r] }'
}

echo "dlisp start-up with no setting: p50 and p99 of \`--batch --eval t' wall ms;"
echo "$RUNS starts per row, rows interleaved; $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-14s %5s %8s %8s %8s %10s %10s  %s\n' scale row runs min-ms p50-ms p99-ms p50/unexec min/unexec "placement; structural pass"
for s in $SCALES; do
  prepare "$s" || exit 1
  firsts=
  for r in $(rows); do
    : > "$tmp/$s.$r"
    case $r in
      default-*|before-*)
        t0=$EPOCHREALTIME
        run $r "$s" --batch --eval t > /dev/null || { echo "default.sh: $r failed at scale $s" >&2; exit 1; }
        t1=$EPOCHREALTIME
        firsts="$firsts $r=$(ms $t0 $t1)" ;;
    esac
  done
  i=0
  while [ $i -lt "$RUNS" ]; do
    for r in $(rows); do
      t0=$EPOCHREALTIME
      run $r "$s" --batch --eval t > /dev/null || { echo "default.sh: $r failed at scale $s" >&2; exit 1; }
      t1=$EPOCHREALTIME
      ms $t0 $t1 >> "$tmp/$s.$r"
    done
    i=$((i + 1))
  done
  ux50=$(pct "$tmp/$s.unexec" 50); ux0=$(pct "$tmp/$s.unexec" 0)
  for r in $(rows); do
    p0=$(pct "$tmp/$s.$r" 0); p50=$(pct "$tmp/$s.$r" 50); p99=$(pct "$tmp/$s.$r" 99)
    note=-
    if [ $r != unexec ]; then
      stats=$(run $r "$s" --load-stats)
      note="$(echo "$stats" | sed -n 's/^pdump-placement: //p'); $(echo "$stats" | sed -n 's/^pdump-structure-check: //p')"
      [ -z "$(echo "$stats" | sed -n 's/^pdump-structure-check: //p')" ] && note="$(echo "$stats" | sed -n 's/^pdump-placement: //p'); (no such line: $(echo "$stats" | sed -n 's/^pdump-structure-seconds: //p') s structural)"
    fi
    awk -v s="$s" -v r="$r" -v n="$(wc -l < "$tmp/$s.$r")" -v a="$p50" -v b="$p99" \
        -v m="$p0" -v u="$ux50" -v u0="$ux0" -v pl="$note" 'BEGIN {
      printf "%-6s %-14s %5d %8.2f %8.2f %8.2f %9.2fx %9.2fx  %s\n", s, r, n, m, a, b, a / u, m / u0, pl }'
  done
  echo "$s first starts (not timed above), ms:$firsts"
done
