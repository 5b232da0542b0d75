#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/unexec/compat.sh: Emacs's unexec () (include/dumper/unexec-compat.h)
# on a program that is not a libdumper host.
#
# Drives tests/unexec/compat (.data, a large .bss buffer used in part,
# a brk heap from sbrk and malloc): a dump, 20 starts of the dumped
# program under ASLR checking every saved value and using the heap
# further, the file size (the unused part of the .bss buffer stays
# zero-fill), the upper PT_LOAD (the end of .bss and the heap), the
# debug sections compressed and gdb reading them, readelf on the result, an explicit OLD_NAME, and
# the refusals with their exit statuses and no file left behind: the
# brk heap not after .bss (ASLR on while dumping), an output that cannot
# be created, an OLD_NAME that is not the running program, a dumped
# program dumped again.  Only unexec builds can run it.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/unexec/lib.sh"

only_in_unexec_builds unexec_compat

C=$BUILDDIR/tests/unexec/compat

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

# The 8 MiB .bss buffer is used for 5000 bytes and followed by more
# data: its unused part costs no file space all the same.
begin unused_bss_costs_no_file_space
size=`wc -c < "$T/dumped"`
if [ "$size" -lt 1048576 ]; then pass
else fail "the dumped program has $size bytes"; fi

begin upper_segment_holds_bss_end_and_heap
n_in=`readelf -lW "$C" | grep -c '^ *LOAD'`
n_out=`readelf -lW "$T/dumped" | grep -c '^ *LOAD'`
if [ "$n_out" -eq `expr $n_in + 1` ] \
   && readelf -SW "$T/dumped" | grep -q '\.unexec\.data'; then
  pass
else
  fail "PT_LOADs: $n_in before, $n_out after, or no .unexec.data section"
fi

readelf_is_clean "$T/dumped"

# The debug sections are written compressed, and gdb still reads them
# (types from .debug_info, the saved value from the file).
begin debug_sections_compressed
if ! readelf -SW "$T/dumped" | grep '\.debug_info' | grep -q ' C '; then
  fail "no compressed .debug_info"
elif ! command -v gdb > /dev/null 2>&1; then
  skip "gdb not installed"
else
  gdb -batch -nx -ex 'ptype struct node' -ex 'print data_numbers[2]' \
    "$T/dumped" > "$T/gdb.out" 2>&1
  if grep -q 'const char \*label;' "$T/gdb.out" \
     && grep -q '^\$1 = 33$' "$T/gdb.out"; then
    pass
  else
    sed 's/^/    | /' "$T/gdb.out" | tail -5
    fail "gdb did not read the compressed debug information"
  fi
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
  expect_error refuses_brk_heap_not_after_bss 93 \
    'address space layout randomisation is on' "$C" dump-aslr "$T/target"
else
  begin refuses_brk_heap_not_after_bss
  skip "the brk heap is not randomised here (randomize_va_space=$aslr)"
fi

expect_error refuses_missing_directory 73 "cannot create $T/no/target" \
  "$C" dump "$T/no/target"
mkdir "$T/adir"
expect_error refuses_directory_as_output 73 "cannot create" \
  "$C" dump "$T/adir"
expect_error refuses_old_name_not_running 93 \
  'not the file of the running program' "$C" dump "$T/target" \
  "$BUILDDIR/tests/unexec/minihost"
expect_error refuses_pie_old_name 93 'position-independent' \
  "$C" dump "$T/target" /bin/sh
expect_error refuses_dumping_dumped 93 'dumping it again is not supported' \
  "$T/dumped" dump "$T/target"

finish
