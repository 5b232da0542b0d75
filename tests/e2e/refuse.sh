#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/refuse.sh: the writer refuses what it cannot represent, the
# same way in both back ends (issue 13), and the smaller contracts.
#
# Driven by tests/pdump/toyhost --bad SCENARIO, which adds one object
# breaking a rule of heap.h.  In pdumper and unexec builds alike:
#   interior pointers             96, naming type, field offset, target
#   pointers to malloc memory     90, naming field and address
#   a field reported twice        91, in six layouts
#   an undeclared code target     95; a declared one is called after a load
#   a word into the executable    95 outside DUMPER_DECLARE_OBJECTS arrays,
#                                 96 inside one of their elements
#   double dumper_free            DUMPER_E_STATE, no abort
#   a by-header raw pointer       followed: 90 for malloc memory behind it
#   a field outside its object,   91, refused by the pre-dump check
#   past its end, or unaligned
#   a declared static element     95
#   reported as another type
#   a refused registration        95 at the dump, naming the first
#                                 refusal, unless the host cleared it
# pdumper only: the lint of unreported words (warning; 91 with
# --strict), the writer's self-check (test-only fault injection), a
# stale default image in a dumping run, realloc of an image object.
# unexec only: two dumps of the same state are byte-identical.

. "$SRCDIR/tests/e2e/lib.sh"

TOY=$BUILDDIR/tests/pdump/toyhost

dump_option "refusal tests"

# The fields of toyhost's struct bad (tests/pdump/toyheap.h): an 8-byte
# header, then words a, b, pointers p and bytes, a uint64_t length and
# fn.  With 8-byte words: +8 +16 +24 +32 (+40) +48; with 4-byte words:
# +8 +12 +16 +20 (+24) +32.
W=${WORD_SIZE:-8}
AT_A=8 AT_B=$((8 + W)) AT_P=$((8 + 2 * W)) AT_BYTES=$((8 + 3 * W)) AT_FN=$((16 + 4 * W))

# refused SCENARIO STATUS WORDS... (lib.sh) runs toyhost.
REFUSING=$TOY

refused interior 96 "type \`bad'" "field at +$AT_B" "points 8 bytes into the" \
  "dumper_alloc block at 0x" "not to its start"
refused interior-ptr 96 "type \`bad'" "field at +$AT_P" "points 16 bytes into"
refused malloc 90 "type \`bad'" "field at +$AT_P" "the pointer 0x" \
  "is not memory from dumper_alloc" "malloc"
refused malloc-word 90 "field at +$AT_A" "the word 0x" "is not memory from dumper_alloc"
refused malloc-bytes 90 "field at +$AT_BYTES" "the byte block pointer 0x" \
  "is not memory from dumper_alloc"
for layout in word immediate exe ptr bytes mixed; do
  refused twice-$layout 91 "type \`bad'" "reported the same field twice"
done

refused exe-undeclared 95 "type \`bad'" "field at +$AT_A" "points into the executable" \
  "DUMPER_DECLARE_OBJECTS"
refused exe-interior 96 "type \`bad'" "field at +$AT_A" "points 8 bytes into element 1 of builtins"
# A raw pointer traced with type DUMPER_TAG_BY_HEADER is followed: the
# vec it alone reaches holds a pointer to malloc memory (issue 30).
refused by-header-malloc 90 "type \`vec'" "field at +$AT_B" "the word 0x" \
  "is not memory from dumper_alloc"
refused code-undeclared 95 "type \`bad'" "field at +$AT_FN" "not a declared code target" \
  "DUMPER_DECLARE_CODE"
refused code-library 95 "type \`bad'" "field at +$AT_FN" "abs+0x0 in " "libc.so" \
  "outside the executable" "loaded with dlopen"

# A trace breaking heap.h's field rules, refused by the pre-dump check
# (bridge/refcheck.c) itself: its message names the object's address
# ("type `bad' at 0x"), the pdump walk's names a path ("reached via"),
# so in pdumper builds a check that let the field through is caught even
# though the walk refuses it again.  SIZE is sizeof (struct bad).
SIZE=$((AT_FN + W))
refused field-outside 91 "type \`bad' at 0x" "field at +0:" \
  "trace reported a field at 0x" "outside the $SIZE-byte object"
refused field-tail 91 "type \`bad' at 0x" "field at +0:" \
  "trace reported a field at 0x" "outside the $SIZE-byte object"
refused field-unaligned 91 "type \`bad' at 0x" "field at +$((AT_A + W / 2)):" \
  "trace reported a field that is not word-aligned"
# p holds builtins[0] (declared T_BOX, type 3) and is reported as a
# T_PAIR (type 0) pointer.
refused exe-type 95 "type \`bad' at 0x" "field at +$AT_P:" "the pointer 0x" \
  "points to an element of builtins, declared with type 3 (\`box'), as type 0"

# A trace that answers differently on another call (heap.h forbids it):
# the pre-dump check's call (the first) sees a good object, the pdump
# walk's (the second) a word just past its end, which only the walk's
# guard (pdump_walk_unchecked) sees and refuses, writing nothing.
# Unexec makes no second walk.
if [ $BACKEND = pdumper ]; then
  refused field-flaky 91 "reached via registry entry" "field at +$SIZE:" \
    "trace reported a field at +$SIZE bytes, outside its $SIZE-byte object" \
    "though the pre-dump check passed this heap"
fi

# A C function pointer in a heap object, reported with dumper_trace_code
# and declared with DUMPER_DECLARE_CODE, comes back pointing at the
# function in the new process (pdump: a PIE moved by ASLR; unexec: the
# saved executable) and is called through.
begin "a declared code pointer in the heap is restored and called after a load"
if "$TOY" --bad callback $DUMP --output "$T/cb" > "$T/cb.out" 2>&1; then
  if [ $BACKEND = pdumper ]; then
    out=`"$TOY" --bad callback --dump-file="$T/cb" 2>&1`; origin=2
  else
    out=`"$T/cb" --bad callback 2>&1`; origin=1
  fi
  st=$?
  case "$st:$out" in
    0:*"callback=1 fn_is_toy_callback=1"*"origin=$origin "*) pass ;;
    *) fail "status $st: $out" ;;
  esac
else
  fail "the dump failed: `cat "$T/cb.out"`"
fi

begin "a refused registration fails the dump (95), naming the first, no file"
out=`"$TOY" --refuse-registration $DUMP --output "$T/rr" 2>&1`
st=$?
at=`echo "$out" | sed -n 's/.*&the_table=\(0x[0-9a-f]*\).*/\1/p'`
first="the first refused: dumper_remember_ptr ($at): the address is not declared as a pointer (it is inside the declared word \`the_table')"
case "$st:$out" in
  95:*"undeclared or invalid registration"*"$first"*)
    if ls "$T" | grep -q '^rr'; then fail "a file was left: `ls "$T"`"
    elif [ `echo "$out" | grep -c 'dumper_remember_ptr (0x'` -ne 1 ]; then
      fail "the detail names a later refusal: $out"
    else pass; fi ;;
  *) fail "status $st (address $at): $out" ;;
esac

begin "after dumper_clear_registration_error the dump is made and starts"
if "$TOY" --refuse-registration --clear-registration $DUMP --output "$T/rc" > "$T/rc.out" 2>&1; then
  if [ $BACKEND = pdumper ]; then
    out=`"$TOY" --dump-file="$T/rc" 2>&1`; origin=2
  else
    out=`"$T/rc" 2>&1`; origin=1
  fi
  st=$?
  case "$st:$out" in
    0:*"origin=$origin "*) pass ;;
    *) fail "status $st: $out" ;;
  esac
else
  fail "the dump failed: `cat "$T/rc.out"`"
fi

begin "a double dumper_free is a status, not an abort"
if [ $BACKEND = pdumper ]; then
  out=`"$TOY" --contract $DUMP --output "$T/c" 2>&1`
else
  out=`"$TOY" --contract 2>&1`
fi
st=$?
case "$st:$out" in
  0:*"double free: dumper_realloc("*"freed"*) pass ;;
  *) fail "status $st: $out" ;;
esac

if [ $BACKEND = unexec ]; then
  begin "two cold dumping runs of the same state give identical executables"
  MINI=$BUILDDIR/tests/unexec/minihost
  "$MINI" --temacs=dump --output "$T/m1" > /dev/null 2>&1 \
    && "$MINI" --temacs=dump --output "$T/m2" > /dev/null 2>&1 \
    && cmp "$T/m1" "$T/m2" > "$T/cmp" 2>&1 && pass \
    || fail "`cat "$T/cmp"` (`cmp -l "$T/m1" "$T/m2" 2>/dev/null | wc -l` bytes differ)"
  finish
fi

# ------------------------------------------------------------------
# pdumper only.

begin "a forgotten code pointer is reported at dump time (warning)"
out=`"$TOY" --bad code $DUMP --output "$T/code.pdmp" 2>&1`
st=$?
case "$st:$out" in
  0:*"type \`bad'"*"field at +$AT_FN"*"unreported word 0x"*"executable's code"*) pass ;;
  *) fail "status $st: $out" ;;
esac

begin "an unreported heap address is reported at dump time (warning)"
out=`"$TOY" --bad heapword $DUMP --output "$T/hw.pdmp" 2>&1`
st=$?
case "$st:$out" in
  0:*"field at +$AT_B"*"is an address in the heap"*) pass ;;
  *) fail "status $st: $out" ;;
esac

begin "with dumper_set_strict_lint, a forgotten code pointer fails the dump (91)"
out=`"$TOY" --bad code --strict $DUMP --output "$T/strict.pdmp" 2>&1`
st=$?
case "$st:$out" in
  91:*"field at +$AT_FN"*"executable's code"*"strict"*)
    [ ! -e "$T/strict.pdmp" ] && pass || fail "the image was written" ;;
  *) fail "status $st: $out" ;;
esac

begin "a clean heap gives no lint warning, even strict"
out=`"$TOY" --strict $DUMP --output "$T/clean.pdmp" 2>&1`
st=$?
[ $st -eq 0 ] && [ -z "$out" ] && pass || fail "status $st: $out"

begin "the writer checks what it wrote: a damaged image is never put in place"
if ! has_test_hooks; then
  skip "$NO_HOOKS"
else
  bad=0
  for off in 20 64 200 4100 8200; do
    rm -f "$T/sc.pdmp"
    out=`DUMPER_TEST_DAMAGE_IMAGE=$off "$TOY" $DUMP --output "$T/sc.pdmp" 2>&1`
    st=$?
    if [ $st -ne 86 ] || [ -e "$T/sc.pdmp" ] || ls "$T" | grep -q 'sc.pdmp.tmp'; then
      bad=`expr $bad + 1`; echo "    offset $off: status $st, files: `ls "$T" | grep sc`: $out"
    else
      case $out in *"fails the loader's checks"*) ;; *) bad=`expr $bad + 1`; echo "    $out" ;; esac
    fi
  done
  [ $bad -eq 0 ] && pass || fail "$bad of 5 damaged images were not refused"
fi

begin "dumper_realloc of an image object is a status, not an abort"
out=`"$TOY" --dump-file="$T/clean.pdmp" --contract 2>&1`
st=$?
case "$st:$out" in
  0:*"realloc of an image object: dumper_realloc("*"inside the loaded image"*) pass ;;
  *) fail "status $st: $out" ;;
esac

# A stale image beside the executable: the variant build finds toyhost's
# image under its own name.
cp "$BUILDDIR/tests/pdump/toyhost-variant" "$T/prog"
cp "$T/clean.pdmp" "$T/prog.pdmp"

begin "a dumping run with a stale default image starts cold with a warning"
out=`"$T/prog" $DUMP --output "$T/fresh.pdmp" 2>&1`
st=$?
case "$st:$out" in
  0:*"warning"*"prog.pdmp"*"another build"*"starts cold"*)
    d=`"$T/prog" --dump-file="$T/fresh.pdmp" | sed -n 's/.*origin=\([0-9]\).*/\1/p'`
    [ "$d" = 2 ] && pass || fail "the fresh image does not load: $d" ;;
  *) fail "status $st: $out" ;;
esac

begin "a plain run with a stale default image: 85, naming --no-dump-file"
out=`"$T/prog" 2>&1`
st=$?
case "$st:$out" in
  85:*"prog.pdmp"*"--no-dump-file"*) pass ;;
  *) fail "status $st: $out" ;;
esac

begin "an explicit stale image in a dumping run is still an error (85)"
out=`"$T/prog" --dump-file="$T/clean.pdmp" $DUMP --output "$T/x.pdmp" 2>&1`
st=$?
case "$st:$out" in
  85:*"--no-dump-file"*) pass ;;
  *) fail "status $st: $out" ;;
esac

finish
