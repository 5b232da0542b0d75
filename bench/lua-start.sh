#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/lua-start.sh BUILDDIR: the Lua port's start-up (issue 31).
#
# For generated preloads of about 0.1, 1, 2 and 10 MB of Lua source (a
# module of small functions and tables), side by side in one run,
# interleaved, RUNS times each (default 7; 3 for 10 MB), medians:
#   stock        lua5.4 -e ''
#   preload      dumper-lua PRELOAD.lua -e ''   (the init, every start)
#   image        dumper-lua --image=PRELOAD.pdmp -e ''    (pdumper, the
#                default settings: base mode boot, verify auto since
#                issue 33; its first start writes the boot cache)
#   image boot   the same with DUMPER_PDUMP_BASE=boot
# and the ratios the issue sets targets for: image / stock (1.3x in the
# default settings, 1.1x in base mode boot, for a 2 MB preload) and
# preload / image (at least 20x).  pdumper builds; prints one table.

set -u
B=${1:?usage: lua-start.sh BUILDDIR}
B=`cd "$B" && pwd`
LUA=$B/ports/lua/dumper-lua
RUNS=${RUNS:-7}
[ -x "$LUA" ] || { echo "lua-start.sh: build $LUA first (make lua)" >&2; exit 1; }
command -v lua5.4 > /dev/null || { echo "lua-start.sh: needs lua5.4" >&2; exit 1; }
T=`mktemp -d "${TMPDIR:-/tmp}/lua-start.XXXXXX"` || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
export XDG_RUNTIME_DIR=$T

# gen BYTES FILE: a module of about BYTES bytes.
gen () {
  awk -v want="$1" 'BEGIN {
    print "M = {}"; n = 5; i = 0
    while (n < want) {
      line = sprintf ("function M.f%d (a, b) local t = { a, b, \"%d\", x = %d } return t[1] + (b or 0) * %d end", i, i, i, i)
      print line; n += length (line) + 1; i++
    }
  }' > "$2"
}

# ms COMMAND...: one run's wall time in milliseconds.
ms () {
  s=`date +%s%N`
  "$@" > /dev/null 2>&1
  e=`date +%s%N`
  echo $(( (e - s) / 1000 ))
}

median () { sort -n | awk '{ v[NR] = $1 } END { m = v[int ((NR + 1) / 2)]; printf "%.2f", m / 1000 }'; }

printf '%-8s %10s %10s %10s %12s %10s %12s %12s\n' preload image_MB \
  stock_ms preload_ms image_ms boot_ms image/stock preload/image
for size in 100000 1000000 2000000 10000000; do
  gen $size "$T/p.lua"
  runs=$RUNS
  [ $size -ge 10000000 ] && runs=3
  "$LUA" --dump="$T/p.pdmp" "$T/p.lua" > /dev/null 2>&1 || { echo "dump failed" >&2; exit 1; }
  DUMPER_PDUMP_BASE=boot "$LUA" --image="$T/p.pdmp" -e '' > /dev/null 2>&1
  : > "$T/s"; : > "$T/p"; : > "$T/i"; : > "$T/b"
  for r in `seq $runs`; do
    ms lua5.4 -e '' >> "$T/s"
    ms "$LUA" "$T/p.lua" -e '' >> "$T/p"
    ms "$LUA" --image="$T/p.pdmp" -e '' >> "$T/i"
    DUMPER_PDUMP_BASE=boot ms "$LUA" --image="$T/p.pdmp" -e '' >> "$T/b"
  done
  s=`median < "$T/s"`; p=`median < "$T/p"`; i=`median < "$T/i"`; b=`median < "$T/b"`
  mb=`ls -l "$T/p.pdmp" | awk '{ printf "%.1f", $5 / 1048576 }'`
  printf '%-8s %10s %10s %10s %12s %10s %12s %12s\n' "$((size / 1000))kB" "$mb" \
    "$s" "$p" "$i" "$b" `echo "$i $s" | awk '{ printf "%.2fx", $1 / $2 }'` \
    `echo "$p $i" | awk '{ printf "%.1fx", $1 / $2 }'`
done
