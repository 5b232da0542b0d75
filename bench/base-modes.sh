#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/base-modes.sh: start-up p50 and p99 and memory per process of
# dlisp in every way it can get its heap, side by side in one run
# (issue 15): a cold start, an unexec'd executable, and a pdump image in
# each base mode (random, fixed, boot), optionally against another pdumper
# build (TODAY, e.g. main before a change).
#
# Usage: bench/base-modes.sh PDUMPER-BUILD [UNEXEC-BUILD] [NONE-BUILD]
# Environment:
#   SCALES      loadup scales (default: bench/scales.sh: 1 4 16 [64])
#   RUNS        timed starts per mode and scale (default 50)
#   COLD_RUNS   timed cold starts per scale (default 5: a cold start runs
#               the whole loadup)
#   PROCS       concurrent processes of the memory section (default 16)
#   MEM_SCALES  scales of the memory section (default "1 4")
#   TODAY       another pdumper build directory: a row `today' (its own
#               image, its own loader, default base mode)
#   TODAY_MODES base modes of TODAY with rows of their own, `today-MODE'
#               (random, fixed, fixed-cb, boot; default none): the A/B of
#               a loader change in every mode, interleaved
#   VERIFY      DUMPER_PDUMP_VERIFY of every row (default none)
#
# Start-up: the wall time of `dlisp --batch --eval t' (measured with
# bash's $EPOCHREALTIME, no fork for the clock), every mode in turn
# inside each round so machine noise falls on all alike.  p50 is the
# median, p99 the nearest-rank 99th percentile (with 50 runs: the
# largest but none).
#
# Memory: PROCS REPLs of one mode started together from one image (or
# one executable), each waiting on a pipe once started; then private
# dirty and PSS of each from /proc/PID/smaps_rollup, averaged.  PSS
# charges a shared page 1/PROCS to each: what the mode really costs per
# process.

PD=${1:?usage: base-modes.sh PDUMPER-BUILD [UNEXEC-BUILD] [NONE-BUILD]}
UX=${2:-}
NONE=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
SCALES=${SCALES:-$(sh "$here/scales.sh")}
RUNS=${RUNS:-50}
COLD_RUNS=${COLD_RUNS:-5}
PROCS=${PROCS:-16}
MEM_SCALES=${MEM_SCALES:-"1 4"}
TODAY=${TODAY:-}
TODAY_MODES=${TODAY_MODES:-}
abs () { [ -n "$1" ] && (cd "$1" && pwd); }
PD=$(abs "$PD"); UX=$(abs "$UX"); NONE=$(abs "$NONE"); TODAY=$(abs "$TODAY")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/base-modes.XXXXXX") || exit 1
# Base mode boot keeps its cache in $XDG_RUNTIME_DIR (a tmpfs, mode
# 0700, in a login session): a private one on /dev/shm for this run, so
# its first start of each image writes the cache and the others map it.
xdg=$(mktemp -d /dev/shm/base-modes-xdg.XXXXXX) || exit 1
export XDG_RUNTIME_DIR=$xdg
trap 'rm -rf "$tmp" "$xdg"' EXIT INT TERM

cold_exe=$PD/host/dlisp-bare
[ -n "$NONE" ] && cold_exe=$NONE/host/dlisp

# prepare SCALE: the artifacts of every mode at SCALE in $tmp/SCALE
prepare () {
  local s=$1 d=$tmp/$1
  mkdir -p "$d"
  "$PD/host/dlisp-bare" --loadup-scale "$s" --temacs=pdump --output "$d/dlisp.pdmp" \
    > "$d/dump.out" 2>&1 || { cat "$d/dump.out"; return 1; }
  if [ -n "$UX" ]; then
    (cd "$d" && "$UX/host/dlisp-bare" --loadup-scale "$s" --temacs=dump \
       --output "$d/dlisp-ux" > "$d/ux.out" 2>&1) || { cat "$d/ux.out"; return 1; }
  fi
  if [ -n "$TODAY" ]; then
    "$TODAY/host/dlisp-bare" --loadup-scale "$s" --temacs=pdump \
      --output "$d/today.pdmp" > "$d/today.out" 2>&1 || { cat "$d/today.out"; return 1; }
  fi
}

# modes: the names of the modes measured
modes () {
  echo cold
  [ -n "$UX" ] && echo unexec
  if [ -n "$TODAY" ]; then
    echo today
    for t in $TODAY_MODES; do echo today-$t; done
  fi
  echo random fixed fixed-cb boot
}

# command_of MODE SCALE: the command of a start of MODE at SCALE in
# CMD, its base mode in BASE (ignored by the other builds)
command_of () {
  local m=$1 s=$2 d=$tmp/$2
  BASE=random COLD=full
  case $m in
    cold) CMD=("$cold_exe" --no-dump-file --loadup-scale "$s") ;;
    unexec) CMD=("$d/dlisp-ux") ;;
    today) CMD=("$TODAY/host/dlisp" --dump-file="$d/today.pdmp") ;;
    today-*) command_of "${m#today-}" "$s"
             CMD=("$TODAY/host/dlisp" --dump-file="$d/today.pdmp") ;;
    random|fixed|boot) CMD=("$PD/host/dlisp" --dump-file="$d/dlisp.pdmp"); BASE=$m ;;
    # fixed with COLD verification boot (doc/format.md, "COLD
    # verification"): after the first start, no HOT pass either.
    fixed-cb) CMD=("$PD/host/dlisp" --dump-file="$d/dlisp.pdmp"); BASE=fixed
              COLD=boot ;;
  esac
}

# The verification of every row: none unless VERIFY says otherwise, so
# that the rows measure placement alone, as before the default became
# auto (issue 33; bench/default.sh measures the default settings).
VERIFY=${VERIFY:-none}

# run MODE SCALE WORDS...: one start of MODE at SCALE
run () {
  command_of "$1" "$2"
  shift 2
  DUMPER_PDUMP_VERIFY=$VERIFY DUMPER_PDUMP_BASE=$BASE DUMPER_PDUMP_COLD=$COLD "${CMD[@]}" "$@"
}

# pct FILE P: nearest-rank P-th percentile of the numbers in FILE
pct () {
  sort -g "$1" | awk -v p="$2" '{ v[NR] = $1 } END {
    r = int ((p * NR + 99) / 100); if (r < 1) r = 1; printf "%.2f", v[r] }'
}

echo "dlisp start-up by mode: p50 and p99 of \`--batch --eval t' wall ms;"
echo "$RUNS starts per mode (cold: $COLD_RUNS), modes interleaved; $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-14s %5s %9s %9s %8s %10s %10s  %s\n' scale mode runs p50-ms p99-ms p99/p50 p50/unexec p50/random placement
for s in $SCALES; do
  prepare "$s" || exit 1
  for m in $(modes); do : > "$tmp/$s.$m"; done
  # Base mode boot's first start of the image in this boot relocates it
  # and writes the cache; the timed starts after it map the cache.
  # fixed-cb's first checks COLD and records that it did.  Neither is
  # timed (boot's is reported below).
  t0=$EPOCHREALTIME
  run boot "$s" --batch --eval t > /dev/null || { echo "base-modes: boot failed at scale $s" >&2; exit 1; }
  t1=$EPOCHREALTIME
  boot_first=$(echo "$t0 $t1" | awk '{ printf "%.2f", ($2 - $1) * 1000 }')
  for m in $(modes); do
    case $m in
      fixed-cb|today-boot|today-fixed-cb)
        run $m "$s" --batch --eval t > /dev/null || { echo "base-modes: $m failed at scale $s" >&2; exit 1; } ;;
    esac
  done
  i=0
  while [ $i -lt "$RUNS" ]; do
    for m in $(modes); do
      [ $m = cold ] && [ $i -ge "$COLD_RUNS" ] && continue
      t0=$EPOCHREALTIME
      run $m "$s" --batch --eval t > /dev/null || { echo "base-modes: $m failed at scale $s" >&2; exit 1; }
      t1=$EPOCHREALTIME
      echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' >> "$tmp/$s.$m"
    done
    i=$((i + 1))
  done
  ux50=; [ -n "$UX" ] && ux50=$(pct "$tmp/$s.unexec" 50)
  r50=$(pct "$tmp/$s.random" 50)
  for m in $(modes); do
    p50=$(pct "$tmp/$s.$m" 50); p99=$(pct "$tmp/$s.$m" 99)
    place=
    case $m in random|fixed|fixed-cb|boot|today*)
      place=$(run $m "$s" --load-stats | sed -n 's/^pdump-placement: //p'),$(run $m "$s" --load-stats | sed -n 's/^pdump-huge-pages: //p' | cut -d' ' -f1-3) ;;
    esac
    [ $m = boot ] && place="$place; the first start (writes the cache) $boot_first ms, not in p50/p99"
    awk -v s="$s" -v m="$m" -v n="$(wc -l < "$tmp/$s.$m")" -v a="$p50" -v b="$p99" \
        -v u="$ux50" -v r="$r50" -v pl="$place" 'BEGIN {
      printf "%-6s %-14s %5d %9.2f %9.2f %7.2fx %10s %10s  %s\n", s, m, n, a, b, b / a,
        u ? sprintf ("%.2fx", a / u) : "-", sprintf ("%.2fx", a / r), pl }'
  done
done

# memory MODE SCALE: PROCS processes of MODE at once; prints average
# private dirty KiB and PSS KiB per process
memory () {
  local m=$1 s=$2 pids= k
  for k in $(seq "$PROCS"); do
    mkfifo "$tmp/fifo.$k"
    command_of $m "$s"
    DUMPER_PDUMP_VERIFY=$VERIFY DUMPER_PDUMP_BASE=$BASE DUMPER_PDUMP_COLD=$COLD "${CMD[@]}" < "$tmp/fifo.$k" > /dev/null 2>&1 &
    pids="$pids $!"
    exec {fd}> "$tmp/fifo.$k"
    eval "fd_$k=$fd"
  done
  for p in $pids; do
    n=0
    while [ $n -lt 600 ] && ! grep -q pipe_read "/proc/$p/wchan" 2>/dev/null; do
      sleep 0.05; n=$((n + 1))
    done
  done
  for p in $pids; do
    cat "/proc/$p/smaps_rollup"
  done | awk -v n="$PROCS" '
    /^Private_Dirty:/ { d += $2 } /^Pss:/ { p += $2 }
    END { printf "%.0f %.0f\n", d / n, p / n }'
  for k in $(seq "$PROCS"); do
    eval "exec {fd_$k}>&-"
    rm -f "$tmp/fifo.$k"
  done
  wait
}

echo
echo "memory per process, $PROCS processes of one mode at once (/proc/PID/smaps_rollup)"
printf '%-6s %-14s %14s %10s %16s\n' scale mode private-dirty-KiB PSS-KiB dirty/unexec
for s in $MEM_SCALES; do
  [ -d "$tmp/$s" ] || prepare "$s" || exit 1
  uxd=
  for m in $(modes); do
    memory $m "$s" > "$tmp/memory.out"
    read -r dirty pss < "$tmp/memory.out"
    [ $m = unexec ] && uxd=$dirty
    awk -v s="$s" -v m="$m" -v d="$dirty" -v p="$pss" -v u="$uxd" 'BEGIN {
      printf "%-6s %-14s %14d %10d %16s\n", s, m, d, p, u ? sprintf ("%.2fx", d / u) : "-" }'
  done
done
