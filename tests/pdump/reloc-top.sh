#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/reloc-top.sh: RELOC_EXE entries at the top of the word
# range (issue 32, item 1).
#
# An entry of 0xffffffff once made the loader loop forever in load
# method map and base mode fixed: the page count over RELOC_EXE and
# RELOC_CODE (pdump/load.c, exe_pages) runs before any checksum, and
# took 0xffffffff for its exhausted list's stand-in.  Here every load
# method (map, hybrid, read) in every base mode (random, fixed, boot)
# gets the variants of `mutate ... exe-top' (tests/fuzz/mutate.c: the
# last entry 0xffffffff, 0xfffffffe, HOT's word count, 0x80000000; the
# first 0xffffffff or HOT's last word), each with its checksums
# recomputed and as damage leaves them: every start is refused (86)
# within 20 s (a hang is a failure, not a stuck suite), and the intact
# image still loads with the cold digest in that mode.

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "RELOC_EXE at the top of the range"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

MUTATE=$BUILDDIR/tests/fuzz/mutate
DLISP=$BUILDDIR/host/dlisp
RUN=$T/run
mkdir "$RUN" && chmod 700 "$RUN"

cp "$BUILDDIR/host/dlisp.pdmp" "$T/good.pdmp" || exit 1
cold=`"$BUILDDIR/host/dlisp-bare" --heap-digest`

# start METHOD BASE IMAGE: one start, output in $T/out, stderr in $T/err.
start () {
  env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_LOAD=$1 DUMPER_PDUMP_BASE=$2 \
    timeout 20 "$DLISP" --dump-file="$3" --heap-digest > "$T/out" 2> "$T/err"
}

variants=0
for seed in 0 1 2 3 4 5; do
  for how in sealed raw; do
    opt=; [ $how = sealed ] || opt=--no-reseal
    "$MUTATE" "$T/good.pdmp" "$T/m$seed$how.pdmp" exe-top $seed $opt \
      > "$T/m$seed$how.desc" || exit 1
    variants=$((variants + 1))
  done
done

for method in map hybrid read; do
  for base in random fixed boot; do
    begin "RELOC_EXE at the top of the range ($method, base $base): $variants variants refused (86), none hangs"
    bad=
    start $method $base "$T/good.pdmp"
    st=$?
    if [ $st -ne 0 ] || [ "`cat "$T/out"`" != "$cold" ]; then
      bad="
    the intact image: status $st: `head -c 300 "$T/err"`"
    fi
    for seed in 0 1 2 3 4 5; do
      for how in sealed raw; do
        start $method $base "$T/m$seed$how.pdmp"
        st=$?
        [ $st -eq 86 ] && grep -q "m$seed$how.pdmp" "$T/err" && continue
        [ $st -eq 124 ] && st="124 (no exit within 20 s)"
        bad="$bad
    `cat "$T/m$seed$how.desc"` ($how): status $st: `head -c 300 "$T/err"`"
      done
    done
    if [ -z "$bad" ]; then pass; else fail "$bad"; fi
  done
done
finish
