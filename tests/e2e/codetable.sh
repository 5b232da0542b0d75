#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/codetable.sh: code pointers declared by a code table
# (DUMPER_DECLARE_CODE_TABLE, issue 30).
#
# tests/pdump/toyhost --bad code-table puts into its heap a pointer to
# toy_op_scale, a static function declared only as element 2 of the
# luaL_Reg-shaped table toy_ops (element 3 is the NULL terminator;
# element 1 is toy_callback, which also has a DUMPER_DECLARE_CODE line).
# In pdumper and unexec builds alike the dump is made (the pre-dump
# check counts table elements as declared) and a start from it calls the
# function through the heap and gets the cold start's digest.  pdumper
# only:
#   - every load method at a random base (so the code really moves),
#     verify none and structure; base modes fixed and boot (twice: the
#     second start from the boot cache);
#   - the same state gives the same image (the writer's choice of
#     declaration is deterministic);
#   - toy_callback, in the table and declared by DUMPER_DECLARE_CODE, is
#     stored by the latter (element 0 of its code word);
#   - crafted images (tests/fuzz/mutate code-element, checksums
#     recomputed): an element index one past the table, or the largest
#     the word holds, and the NULL terminator's index, are refused (86)
#     with a message naming the table, in both verify modes, before the
#     host runs, and by dumper-inspect --check --exe;
#   - dumper-inspect --exe lists the code pointer as the table's element
#     and names the function.

. "$SRCDIR/tests/e2e/lib.sh"

TOY=$BUILDDIR/tests/pdump/toyhost
MUTATE=$BUILDDIR/tests/fuzz/mutate
INSPECT=$BUILDDIR/tools/dumper-inspect

dump_option "code table tests"

cold=`"$TOY" --bad code-table 2>&1 | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
want="code-table: runs=7 fn_is_toy_op_scale=1"

begin "a code pointer declared by a code table is dumped"
if "$TOY" --bad code-table $DUMP --output "$T/ct" > "$T/ct.out" 2>&1; then
  pass
else
  fail "the dump failed: `cat "$T/ct.out"`"
fi

# started CASE OUTPUT STATUS: the start exited 0, called the table's
# function through the heap and has the cold digest.
started () {
  begin "$1"
  case "$3:$2" in
    0:*"$want"*"digest=$cold"*) pass ;;
    *) fail "status $3 (cold digest $cold): $2" ;;
  esac
}

if [ $BACKEND = unexec ]; then
  out=`"$T/ct" --bad code-table 2>&1`
  started "unexec: the saved executable calls the table's function" "$out" $?
  finish
fi

for method in map hybrid read; do
  for verify in none structure; do
    out=`DUMPER_PDUMP_BASE=random DUMPER_PDUMP_LOAD=$method \
         DUMPER_PDUMP_VERIFY=$verify "$TOY" --bad code-table --dump-file="$T/ct" 2>&1`
    started "pdumper: load $method, random base, verify=$verify: the table's function is called" \
      "$out" $?
  done
done

# The other base modes: fixed (no image relocation; code words are
# still replaced), boot (the second start uses the per-boot relocated
# copy, written before code relocation, and replaces them again).
RUN=$T/run
mkdir "$RUN" && chmod 700 "$RUN"
for base in fixed boot boot; do
  out=`XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=$base DUMPER_PDUMP_VERIFY=structure \
       "$TOY" --bad code-table --dump-file="$T/ct" 2>&1`
  started "pdumper: base $base, verify=structure: the table's function is called" \
    "$out" $?
done

begin "pdumper: the same state gives the same image"
if "$TOY" --bad code-table $DUMP --output "$T/ct2" > "$T/ct2.out" 2>&1 \
   && cmp -s "$T/ct" "$T/ct2"; then
  pass
else
  fail "the second image differs or failed: `cat "$T/ct2.out"`"
fi

# The rest reads and crafts images with the test mutator and the
# inspector, which a build configured --disable-tools lacks.
if [ ! -x "$MUTATE" ] || [ ! -x "$INSPECT" ]; then
  begin "pdumper: code words in the image, crafted element indexes"
  skip "needs tests/fuzz/mutate and tools/dumper-inspect (a build without --disable-tools)"
  finish
fi

# The element half of a code word, as the mutator reads it ("was
# element N").
element_of () {
  "$MUTATE" "$1" "$T/probe" code-element 1 1 | sed -n 's/.*(was element \([0-9]*\)).*/\1/p'
}

begin "pdumper: a function in a table and in DUMPER_DECLARE_CODE is stored by the latter"
if "$TOY" --bad callback $DUMP --output "$T/cb" > "$T/cb.out" 2>&1; then
  e_cb=`element_of "$T/cb"`; e_ct=`element_of "$T/ct"`
  if [ "$e_cb" = 0 ] && [ "$e_ct" = 2 ]; then pass
  else fail "elements: callback '$e_cb' (want 0), code-table '$e_ct' (want 2)"; fi
else
  fail "the dump failed: `cat "$T/cb.out"`"
fi

# refused_element VALUE WORDS: the code word's element set to VALUE (at
# most the largest the half word holds: 4294967295 is that, with either
# word size) is refused with 86, saying WORDS, in both verify modes, and
# the host's code never runs.
refused_element () {
  "$MUTATE" "$T/ct" "$T/bad" code-element 1 $1 > /dev/null || {
    begin "pdumper: element $1"; fail "the mutator failed"; return; }
  _which=$1
  [ "$1" = 4294967295 ] && _which="the largest"
  for verify in none structure; do
    begin "pdumper: a crafted element index ($_which) is refused (86), verify=$verify"
    out=`DUMPER_PDUMP_BASE=random DUMPER_PDUMP_VERIFY=$verify \
         "$TOY" --bad code-table --dump-file="$T/bad" 2>&1`
    st=$?
    case "$st:$out" in
      *code-table:*) fail "the host ran: $out" ;;
      86:*"of code table toy_ops[].fn"*"$2"*) pass ;;
      *) fail "status $st: $out" ;;
    esac
  done
  begin "pdumper: dumper-inspect --check --exe refuses the element index ($_which) too (86)"
  out=`"$INSPECT" --check --exe "$TOY" "$T/bad" 2>&1`
  st=$?
  case "$st:$out" in
    86:*"of code table toy_ops[].fn"*"$2"*) pass ;;
    *) fail "status $st: $out" ;;
  esac
}
begin "pdumper: dumper-inspect --exe shows the code pointer as (table, element) and names the function"
out=`"$INSPECT" --exe "$TOY" "$T/ct" 2>&1`
case "$out" in
  *"Code pointers: 1 (RELOC_CODE)"*" bad  code table toy_ops[].fn (declaration "*") element 2 -> toy_op_scale+0x0"*) pass ;;
  *) fail "`echo "$out" | tail -4`" ;;
esac
begin "pdumper: dumper-inspect --exe names a DUMPER_DECLARE_CODE target by its declaration"
out=`"$INSPECT" --exe "$TOY" "$T/cb" 2>&1`
case "$out" in
  *" bad  code toy_callback (declaration "*") -> toy_callback+0x0"*) pass ;;
  *) fail "`echo "$out" | tail -4`" ;;
esac

refused_element 4 "which has 4 elements"
refused_element 4294967295 "which has 4 elements"
refused_element 3 "whose function is NULL in this executable"

finish
