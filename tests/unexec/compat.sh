#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/unexec/compat.sh: Emacs's unexec () (include/dumper/unexec-compat.h)
# on a program that is not a libdumper host.
#
# Drives tests/unexec/compat (.data, a large .bss buffer used in part,
# a brk heap from sbrk and malloc): a dump, 20 starts of the dumped
# program under ASLR checking every saved value and using the heap
# further, the file size (the unused .bss stays zero-fill), the saved
# heap's own PT_LOAD, readelf on the result, an explicit OLD_NAME, and
# the refusals with their exit statuses and no file left behind: the
# brk heap not after .bss (ASLR on while dumping), an output that cannot
# be created, an OLD_NAME that is not the running program, a dumped
# program dumped again.  Only unexec builds can run it.

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != unexec ]; then
  begin unexec_compat
  skip "needs a --with-dumper=unexec build (this one is $BACKEND)"
  finish
fi

C=$BUILDDIR/tests/unexec/compat

# expect_refusal NAME STATUS TEXT COMMAND...: COMMAND exits with STATUS,
# says TEXT on stderr, and leaves no file ($T/target, or a temporary).
expect_refusal () {
  _name=$1 _want=$2 _text=$3
  shift 3
  begin "$_name"
  "$@" > "$T/out" 2> "$T/err"
  _st=$?
  _left=`ls -a "$T" | grep -e '\.unexec-' -e '^target$'`
  if [ "$_st" -ne "$_want" ]; then
    sed 's/^/    | /' "$T/err"
    fail "exit status $_st, want $_want: $*"
  elif ! grep -q -e "$_text" "$T/err"; then
    sed 's/^/    | /' "$T/err"
    fail "the message does not mention '$_text'"
  elif [ -n "$_left" ]; then
    fail "left behind: $_left"
  else
    pass
  fi
}

check cold_start sh -c "\"$C\" | grep -qx cold"

begin dump
if "$C" dump "$T/dumped" > "$T/out" 2> "$T/err" && grep -qx dumped "$T/out" \
   && [ -x "$T/dumped" ] && [ ! -s "$T/err" ]; then
  pass
else
  sed 's/^/    | /' "$T/err"
  fail "the dump failed"
fi

begin restored_20_times_under_aslr
ok=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  "$T/dumped" > "$T/run" 2>&1 && grep -qx restored "$T/run" && ok=`expr $ok + 1`
done
if [ $ok -eq 20 ]; then pass
else sed 's/^/    | /' "$T/run"; fail "$ok of 20 starts restored every value"; fi

# The 8 MiB .bss buffer is used for 5000 bytes: its rest costs nothing.
begin unused_bss_costs_no_file_space
size=`wc -c < "$T/dumped"`
if [ "$size" -lt 1048576 ]; then pass
else fail "the dumped program has $size bytes"; fi

begin brk_heap_has_its_own_segment
n_in=`readelf -lW "$C" | grep -c '^ *LOAD'`
n_out=`readelf -lW "$T/dumped" | grep -c '^ *LOAD'`
if [ "$n_out" -eq `expr $n_in + 1` ] \
   && readelf -SW "$T/dumped" | grep -q '\.unexec\.heap'; then
  pass
else
  fail "PT_LOADs: $n_in before, $n_out after, or no .unexec.heap section"
fi

begin readelf_is_clean
if readelf -a -W "$T/dumped" > /dev/null 2> "$T/readelf.err" \
   && [ ! -s "$T/readelf.err" ]; then
  pass
else
  sed 's/^/    | /' "$T/readelf.err" | head -10
  fail "readelf -a reported problems"
fi

begin explicit_old_name
if "$C" dump "$T/dumped2" "$C" > /dev/null 2> "$T/err" \
   && "$T/dumped2" | grep -qx restored; then
  pass
else
  sed 's/^/    | /' "$T/err"
  fail "unexec (NEW, OLD) with OLD the running program's file failed"
fi
rm -f "$T/dumped2"

aslr=`cat /proc/sys/kernel/randomize_va_space 2>/dev/null || echo 0`
if [ "$aslr" = 2 ] && [ -z "$DUMPER_TEST_EMULATOR" ]; then
  expect_refusal refuses_brk_heap_not_after_bss 93 \
    'address space layout randomisation is on' "$C" dump-aslr "$T/target"
else
  begin refuses_brk_heap_not_after_bss
  skip "the brk heap is not randomised here (randomize_va_space=$aslr)"
fi

expect_refusal refuses_missing_directory 73 "cannot create $T/no/target" \
  "$C" dump "$T/no/target"
mkdir "$T/adir"
expect_refusal refuses_directory_as_output 73 "cannot create" \
  "$C" dump "$T/adir"
expect_refusal refuses_old_name_not_running 93 \
  'not the file of the running program' "$C" dump "$T/target" \
  "$BUILDDIR/tests/unexec/minihost"
expect_refusal refuses_pie_old_name 93 'position-independent' \
  "$C" dump "$T/target" /bin/sh
expect_refusal refuses_dumping_dumped 93 'dumping it again is not supported' \
  "$T/dumped" dump "$T/target"

finish
