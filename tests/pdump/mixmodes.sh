#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/mixmodes.sh: starts in different base modes and COLD
# modes sharing one runtime directory (issue 32, item 2).
#
# Base mode boot keeps its cache and base there, and COLD mode boot its
# record of a checked image file: one start's record must never make a
# start of another mode skip work it needs.  The defect this pins: a
# start in base mode fixed with COLD boot recorded the file as checked;
# a later start in base mode boot (also COLD boot) took this boot's base
# for the preferred one, skipped HOT's pass (which relocates the image
# words) and returned success with a heap of unrelocated pointers
# (SIGSEGV in the digest walk), and wrote that heap as the boot cache.
#
# For every ordered pair (A, B) of (base mode, COLD mode), in a fresh
# runtime directory: a start in A, then two in B (the second may use
# what the first of B left: the boot cache); each must exit 0 with the
# cold heap digest.

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "base and COLD modes sharing a runtime directory"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp
cold=`"$BARE" --heap-digest`
"$BARE" --temacs=pdump --output "$T/a.pdmp" > "$T/dump.out" 2>&1 \
  || { cat "$T/dump.out"; exit 1; }

COMBOS="random,full random,boot random,size fixed,full fixed,boot fixed,size
boot,full boot,boot boot,size"

# start RUNDIR BASE,COLD: one start; its status, or 1 when it exited 0
# with another digest.
start () {
  timeout 60 env XDG_RUNTIME_DIR="$1" DUMPER_PDUMP_BASE="${2%,*}" \
    DUMPER_PDUMP_COLD="${2#*,}" "$DLISP" --dump-file="$T/a.pdmp" \
    --heap-digest --load-stats > "$T/out" 2> "$T/err" \
    || return $?
  [ "`head -1 "$T/out"`" = "$cold" ]
}

pair=0
for a in $COMBOS; do
  begin "after a start in $a (base,COLD), starts in each mode"
  bad=
  for b in $COMBOS; do
    pair=`expr $pair + 1`
    run=$T/run$pair
    mkdir "$run" && chmod 700 "$run"
    for which in "$a" "$b" "$b"; do
      start "$run" "$which"
      st=$?
      if [ $st -ne 0 ]; then
        bad="$bad $a>$b (the start in $which: status $st, `head -c 200 "$T/err"`)"
        break
      fi
    done
    rm -rf "$run"
  done
  if [ -z "$bad" ]; then
    pass
  else
    fail "wrong heap or failed start:$bad"
  fi
done

finish
