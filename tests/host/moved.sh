#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/host/moved.sh: dumper_start_info ()->moved (dumper.h), which
# dlisp prints with --load-stats as `dumper-moved', in every kind of
# start (issue 30, part B):
#   cold start                                   0
#   pdump, base random                           1
#   pdump, base fixed at the preferred base      1 (objects are at their
#                                                  image addresses, not
#                                                  at the dumping heap's)
#   pdump, base fixed, range taken (fallback)    1
#   pdump, base boot, first and cached start     1
#   unexec, the dumped executable                0
# and in each, dlisp's `eq' table char-category-counts (built by the
# loadup, keyed by symbol addresses) still finds its keys.

. "$SRCDIR/tests/e2e/lib.sh"

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp
LOOKUP="(print (list (gethash 'digit char-category-counts) (gethash 'upper char-category-counts)))"
WANT="(10 26)"

# moved PROGRAM ARGS...: the run's `dumper-moved' and its lookup, as
# "MOVED [PLACEMENT] LOOKUP" in $T/got (its output in $T/out).
moved () {
  "$@" --load-stats --batch --eval "$LOOKUP" > "$T/out" 2>&1
  _m=`sed -n 's/^dumper-moved: //p' "$T/out"`
  _p=`sed -n 's/^pdump-placement: //p' "$T/out"`
  echo "$_m${_p:+ $_p} `tail -1 "$T/out"`" > "$T/got"
  sed -n 's/^dumper-origin-in-hook: //p' "$T/out" > "$T/hook"
}

# hook NAME ORIGIN: the after-load hook of the last run saw
# dumper_start_info ()->origin ORIGIN (dumper.h: 0 cold, 1 unexec,
# 2 pdump; at a cold start the hook runs at registration, before
# dumper_startup has said anything, so 0).
hook () {
  begin "$1: the after-load hook sees origin $2"
  [ "`cat "$T/hook"`" = "$2" ] && pass || fail "got `cat "$T/hook"`: `cat "$T/out"`"
}

# expect NAME MOVED [PLACEMENT]: the last run said so.
expect () {
  begin "$1: dumper-moved $2${3:+, placement $3}"
  case "`cat "$T/got"`" in
    "$2${3:+ $3} $WANT") pass ;;
    *) fail "got `cat "$T/got"`: `cat "$T/out"`" ;;
  esac
}

moved "$BARE"
expect "cold start" 0
hook "cold start" 0

case $BACKEND in
  unexec)
    "$BARE" --temacs=dump --output "$T/dl" > "$T/dump.out" 2>&1 \
      || { cat "$T/dump.out"; exit 1; }
    moved "$T/dl"
    expect "unexec: the dumped executable" 0
    hook "unexec: the dumped executable" 1
    finish ;;
  pdumper) ;;
  *) finish ;;
esac

# ASan reserves the default base's range (see tests/pdump/base.sh).
BASE_OPT=
if [ "$ENABLE_SANITIZERS" = yes ]; then BASE_OPT=--image-base=0x500000000000; fi
"$BARE" --temacs=pdump $BASE_OPT --output "$T/a.pdmp" > "$T/dump.out" 2>&1 \
  || { cat "$T/dump.out"; exit 1; }

DUMPER_PDUMP_BASE=random moved "$DLISP" --dump-file="$T/a.pdmp"
expect "pdump: base random" 1 random
hook "pdump: base random" 2
DUMPER_PDUMP_BASE=fixed moved "$DLISP" --dump-file="$T/a.pdmp"
expect "pdump: base fixed" 1 preferred
if has_test_hooks; then
  DUMPER_TEST_OCCUPY_BASE=1 DUMPER_PDUMP_BASE=fixed moved "$DLISP" --dump-file="$T/a.pdmp"
  expect "pdump: base fixed, range taken" 1 fallback
else
  begin "pdump: base fixed, range taken"
  skip "$NO_HOOKS"
fi
mkdir "$T/run" && chmod 700 "$T/run"
XDG_RUNTIME_DIR="$T/run" DUMPER_PDUMP_BASE=boot moved "$DLISP" --dump-file="$T/a.pdmp"
expect "pdump: base boot, first start" 1 boot
XDG_RUNTIME_DIR="$T/run" DUMPER_PDUMP_BASE=boot moved "$DLISP" --dump-file="$T/a.pdmp"
expect "pdump: base boot, from the cache" 1 boot-cache
hook "pdump: base boot, from the cache" 2

finish
