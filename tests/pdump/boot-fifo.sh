#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/boot-fifo.sh: a FIFO where a file is expected (issue 32,
# item 4).
#
# The boot cache never fails a start (pdump/bootcache.h): a FIFO made
# in its directory in place of the cache, its .stamp, the base file or
# a COLD record (.cold) once blocked the start forever in open(2).  Each
# start here runs under `timeout 20' and must load the cold heap
# (status 0), the FIFO replaced by a regular file.  A FIFO named as the
# image itself is refused (80, not a regular file), without a hang.

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "FIFOs in the boot cache's directory"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi
if [ -n "$DUMPER_TEST_EMULATOR" ]; then
  # As in boot.sh: base mode boot always falls back there.
  begin "FIFOs in the boot cache's directory"
  skip "under $DUMPER_TEST_EMULATOR, which places mappings itself"
  finish
fi

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp
RUN=$T/run
DIR=$RUN/dumper
mkdir "$RUN" && chmod 700 "$RUN"

cold=`"$BARE" --heap-digest`
"$BARE" --temacs=pdump --output "$T/a.pdmp" > "$T/dump.out" 2>&1 \
  || { cat "$T/dump.out"; exit 1; }

# start BASE COLD: one start in base mode BASE with COLD verification
# COLD; true when it exited 0 with the cold digest within 20 s (the
# status in $st).
start () {
  env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=$1 DUMPER_PDUMP_COLD=$2 \
    timeout 20 "$DLISP" --dump-file="$T/a.pdmp" --heap-digest --load-stats \
    > "$T/out" 2> "$T/err"
  st=$?
  [ $st -eq 0 ] && [ "`head -1 "$T/out"`" = "$cold" ]
}

# fifo_at WHAT BASE COLD GLOB: after a start in BASE/COLD has made the
# file DIR/GLOB, replace it by a FIFO; the next start loads the cold
# heap and leaves a regular file there.
fifo_at () {
  begin "a FIFO in place of $1: a normal start, no hang, the file rewritten"
  ok=no
  start $2 $3
  file=`ls "$DIR"/$4 2>/dev/null | head -1`
  if [ -f "$file" ]; then
    rm -f "$file" && mkfifo "$file"
    start $2 $3 && [ -f "$file" ] && [ ! -p "$file" ] && ok=yes
  fi
  if [ $ok = yes ]; then
    pass
  else
    [ $st -eq 124 ] && st="124 (no exit within 20 s)"
    grep "placement\|cold-check" "$T/out"; ls -la "$DIR" 2>&1
    fail "$1 ($file): status $st: `head -c 300 "$T/err"`"
  fi
}

fifo_at "the boot cache" boot full '*.pdmp'
fifo_at "the boot cache's stamp" boot full '*.pdmp.stamp'
fifo_at "the base file" boot full base
fifo_at "the COLD record" random boot '*.cold'

begin "a FIFO named as the image: refused (80), no hang"
mkfifo "$T/image.fifo"
timeout 20 "$DLISP" --dump-file="$T/image.fifo" --batch --eval t > /dev/null 2> "$T/err"
st=$?
if [ $st -eq 80 ] && grep -q "image.fifo: not a regular file" "$T/err"; then
  pass
else
  fail "status $st: `head -c 300 "$T/err"`"
fi
finish
