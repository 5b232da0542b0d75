#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/interp/interp.sh: the interpreter-shaped host (tests/interp/
# interp.c, Lua's heap shape) dumps and starts again with no rewriting
# of its heap (issue 30).  Every start runs the host's after-load check
# (each relation: stack pointers, frames, open and closed upvalues,
# lastfree, savedpc, the shared LG block, strings, the C functions
# called through the registry), resumes the suspended frames, grows the
# stack by reallocating the restored block and prints a digest, which
# must be the cold run's.
#   pdumper: base modes random, fixed and boot (cache written, then
#            used) with load methods map, read and hybrid, each with
#            verify=none and verify=structure; compressed images
#            (unpack) with each codec the build has, and embedded in
#            the executable (dumper-embed); address-keyed
#            tables are rehashed (moved=1); a start from the image
#            dumps again and that image restores the same; two dumps
#            are identical.
#   unexec:  the dumped executable (moved=0, nothing rehashed), and
#            the one it dumps in turn; two dumps are identical.
# Neither back end warns while dumping.

. "$SRCDIR/tests/e2e/lib.sh"

INTERP=$BUILDDIR/tests/interp/interp

dump_option "interp dump and restore"

# ASan reserves the default preferred base (tests/pdump/base.sh).
BASE_OPT=
if [ "$ENABLE_SANITIZERS" = yes ] && [ $BACKEND = pdumper ]; then
  BASE_OPT=--image-base=0x500000000000
fi

begin "a cold run checks its state and runs the program"
"$INTERP" > "$T/cold.out" 2>&1
st=$?
cold=`tail -n 1 "$T/cold.out"`
case "$st:`cat "$T/cold.out"`" in
  "0:origin=0 moved=0 rehashed=0 reseeded=0"*"check: "*"open upvalues 1, closed 1"*"result=2886 "*)
    pass ;;
  *) fail "status $st: `cat "$T/cold.out"`"; finish ;;
esac

# No warning either: the pdump writer's lint finds no unreported
# address in the heap, unexec's scan none in the saved data.
begin "the dump is made ($BACKEND), with no warning"
if "$INTERP" $BASE_OPT --dump="$T/a" > "$T/dump.out" 2>&1 && [ -s "$T/a" ]; then
  if grep -q warning "$T/dump.out"; then fail "`cat "$T/dump.out"`"; else pass; fi
else
  fail "`cat "$T/dump.out"`"
  finish
fi

# restored NAME WANT COMMAND...: COMMAND starts from the dump, passes
# both checks, prints the first line WANT and the cold run's last line.
restored () {
  _name=$1
  _want=$2
  shift 2
  begin "$_name"
  "$@" > "$T/start.out" 2>&1
  _st=$?
  _last=`tail -n 1 "$T/start.out"`
  _checks=`grep -c '^check: .* relations hold' "$T/start.out"`
  if [ $_st -ne 0 ]; then
    fail "status $_st: `cat "$T/start.out"`"
  elif [ "`head -n 1 "$T/start.out"`" != "$_want" ]; then
    fail "first line, want '$_want': `cat "$T/start.out"`"
  elif [ "$_checks" -ne 2 ]; then
    fail "the checks did not both run: `cat "$T/start.out"`"
  elif [ "$_last" != "$cold" ]; then
    fail "want '$cold', got '$_last'"
  else
    pass
  fi
}

# identical NAME DUMP-ARGS...: two dumps of the same state are byte for
# byte the same.  The host hashes tables by address (Lua's rule), so
# its node parts depend on where malloc put the objects: both dumps run
# with ASLR off (setarch -R), as unexec's dumping run always does.
identical () {
  begin "$1"
  if ! setarch "`uname -m`" -R true 2> /dev/null; then
    skip "setarch -R is not permitted here"
    return
  fi
  rm -f "$T/x1" "$T/x2"
  setarch "`uname -m`" -R "$INTERP" $BASE_OPT --dump="$T/x1" > /dev/null 2>&1
  setarch "`uname -m`" -R "$INTERP" $BASE_OPT --dump="$T/x2" > /dev/null 2>&1
  if [ -s "$T/x1" ] && cmp -s "$T/x1" "$T/x2"; then
    pass
  else
    fail "`cmp "$T/x1" "$T/x2" 2>&1`"
  fi
}

if [ $BACKEND = unexec ]; then
  restored "unexec: the dumped executable restores the state" \
    "origin=1 moved=0 rehashed=0 reseeded=1" "$T/a"
  begin "unexec: the dumped executable dumps again"
  if "$T/a" --dump="$T/a2" > "$T/dump2.out" 2>&1 && [ -s "$T/a2" ] \
       && ! grep -q warning "$T/dump2.out"; then
    pass
  else
    fail "`cat "$T/dump2.out"`"
  fi
  restored "unexec: the executable dumped by the dumped one restores the state" \
    "origin=1 moved=0 rehashed=0 reseeded=1" "$T/a2"
  identical "unexec: two dumped executables are identical"
  finish
fi

# Every table (3) is rehashed after a pdump load (moved), whatever the base.
want="origin=2 moved=1 rehashed=3 reseeded=1"
RUN=$T/run
mkdir -m 700 "$RUN"
for base in random fixed; do
  for method in map read hybrid; do
    for verify in none structure; do
      restored "base $base, load $method, verify=$verify" "$want" \
        env DUMPER_PDUMP_BASE=$base DUMPER_PDUMP_LOAD=$method \
        DUMPER_PDUMP_VERIFY=$verify "$INTERP" --image="$T/a"
    done
  done
done
for verify in none structure; do
  rm -rf "$RUN"/*
  restored "base boot, verify=$verify: the start that writes the cache" "$want" \
    env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=boot \
    DUMPER_PDUMP_VERIFY=$verify "$INTERP" --image="$T/a"
  restored "base boot, verify=$verify: a start from the cache" "$want" \
    env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=boot \
    DUMPER_PDUMP_VERIFY=$verify "$INTERP" --image="$T/a"
done

for codec in $CODECS; do
  "$INTERP" $BASE_OPT --compress=$codec --dump="$T/c-$codec" > "$T/dump.out" 2>&1
  for verify in none structure; do
    restored "a $codec image (unpack), verify=$verify" "$want" \
      env DUMPER_PDUMP_VERIFY=$verify "$INTERP" --image="$T/c-$codec"
  done
done

# The image embedded in a copy of the executable (dumper-embed): found
# without --image, at every start.
begin "an embedded image: dumper-embed makes the executable"
if "$BUILDDIR/tools/dumper-embed" "$INTERP" "$T/a" -o "$T/interp-embedded" \
     > "$T/embed.out" 2>&1; then
  pass
  for verify in none structure; do
    restored "an embedded image, verify=$verify" "$want" \
      env DUMPER_PDUMP_VERIFY=$verify "$T/interp-embedded"
  done
else
  fail "`cat "$T/embed.out"`"
fi

# A start from the image dumps again: its stack is an image object
# (packed between others), its tables' node parts fresh blocks.
begin "a start from the image dumps again"
if "$INTERP" --image="$T/a" $BASE_OPT --dump="$T/a2" > "$T/dump2.out" 2>&1 \
     && [ -s "$T/a2" ] && ! grep -q warning "$T/dump2.out"; then
  pass
else
  fail "`cat "$T/dump2.out"`"
fi
for verify in none structure; do
  restored "the image dumped from an image, verify=$verify" "$want" \
    env DUMPER_PDUMP_VERIFY=$verify "$INTERP" --image="$T/a2"
done

identical "pdumper: two images of the same state are identical"

finish
