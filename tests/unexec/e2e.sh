# SPDX-License-Identifier: MIT
# tests/unexec/e2e.sh: end-to-end tests of the unexec back end.
#
# Drives tests/unexec/minihost (a host linked the way unexec hosts are:
# non-PIE, libdumper.a, stamped fingerprint): a cold start, a dump, 20
# starts of the dumped executable under ASLR with the state compared to
# the cold start's, GC-like churn after start, dumping a dumped
# executable again, the ELF tools on the result, the pointer warnings,
# and every error class with its exit status and no file left behind.
# Only unexec builds can run it; other builds report it SKIPPED.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/unexec/lib.sh"

only_in_unexec_builds unexec_e2e

MH=$BUILDDIR/tests/unexec/minihost
MH_PIE=$BUILDDIR/tests/unexec/minihost-pie
SCALE=3000

# The state line of a run ("origin=... checksum=... hooks=..."), and
# one field of it.
state () { "$@" 2>"$T/stderr" | sed -n 's/^origin=/origin=/p'; }
field () { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

COLD=`state "$MH" --scale $SCALE`
COLD_SUM=`field "$COLD" checksum`

check cold_start test -n "$COLD_SUM"

begin dump
if "$MH" --scale $SCALE --temacs=dump --output "$T/mh1" --stats \
     > "$T/dump.out" 2> "$T/dump.err" \
   && [ -x "$T/mh1" ] && no_leftovers none \
   && grep -q '^dump seconds=' "$T/dump.out"; then
  pass
else
  sed 's/^/    | /' "$T/dump.out" "$T/dump.err"
  fail "dumping failed"
fi
# No warnings for a host that keeps no stray pointers.
check dump_without_warnings test ! -s "$T/dump.err"

begin dumped_runs_match_cold_start_under_aslr
aslr=`cat /proc/sys/kernel/randomize_va_space 2>/dev/null || echo 0`
ok=yes
: > "$T/stacks"
i=0
while [ $i -lt 20 ]; do
  line=`state "$T/mh1"`
  if [ "`field "$line" origin`" != unexec ] \
     || [ "`field "$line" checksum`" != "$COLD_SUM" ] \
     || [ "`field "$line" hooks`" != 2 ]; then
    echo "    run $i: '$line' (cold: $COLD)"
    sed 's/^/    | /' "$T/stderr" | head -5
    ok=no
  fi
  "$T/mh1" 2> /dev/null | sed -n 's/^addresses stack=\([^ ]*\).*/\1/p' >> "$T/stacks"
  i=`expr $i + 1`
done
distinct=`sort -u "$T/stacks" | wc -l`
if [ $ok != yes ]; then
  fail "a dumped run differs from the cold start"
elif [ "$aslr" != 0 ] && [ "$distinct" -lt 2 ]; then
  fail "ASLR is on (randomize_va_space=$aslr) but all 20 runs had the same stack"
else
  pass
fi

begin only_the_used_arena_costs_file_size
in_size=`sed -n 's/.* input=\([0-9]*\).*/\1/p' "$T/dump.out"`
out_size=`stat -c %s "$T/mh1"`
used=`sed -n 's/.* arena=\([0-9]*\).*/\1/p' "$T/dump.out"`
memsz=`readelf -lW "$T/mh1" | awk '$1 == "LOAD" && $7 ~ /W/ { print $6 }'`
if [ -n "$used" ] && [ "$used" -gt 0 ] \
   && [ "$out_size" -le `expr $in_size + $used + 65536` ] \
   && [ `printf '%d' "$memsz"` -gt 1000000 ]; then
  pass
else
  fail "input $in_size, output $out_size, arena used $used, segment memsz $memsz"
fi

readelf_is_clean "$T/mh1"

check nm_lists_the_host_symbols sh -c \
  "nm '$T/mh1' | grep -q ' list_head\$' && nm '$T/mh1' | grep -q ' main\$'"

begin gdb_reads_the_saved_data_from_the_file
if command -v gdb > /dev/null 2>&1; then
  gdb -batch -nx -ex 'print hook_runs' \
      -ex 'print dumper_gflags.dumped_with_unexec_' "$T/mh1" \
      > "$T/gdb.out" 2>&1
  if grep -q '^\$1 = 1$' "$T/gdb.out" && grep -q '^\$2 = true$' "$T/gdb.out"; then
    pass
  else
    sed 's/^/    | /' "$T/gdb.out" | tail -5
    fail "gdb did not show the saved values"
  fi
else
  skip "gdb not installed"
fi

begin churn_after_start_matches_cold_churn
want=`field "\`state "$MH" --scale $SCALE --mutate 3\`" checksum`
got=`state "$T/mh1" --mutate 3`
if [ -n "$want" ] && [ "`field "$got" checksum`" = "$want" ]; then
  pass
else
  fail "after 3 rounds: dumped '$got', cold checksum $want"
fi

begin redump_of_a_dumped_executable
want2=`field "\`state "$MH" --scale $SCALE --mutate 2\`" checksum`
want3=`field "\`state "$MH" --scale $SCALE --mutate 3\`" checksum`
"$T/mh1" --mutate 2 --temacs=dump --output "$T/mh2" > /dev/null 2> "$T/err2"
st=$?
line2=`state "$T/mh2"`
line3=`state "$T/mh2" --mutate 1`
if [ $st -eq 0 ] && [ "`field "$line2" checksum`" = "$want2" ] \
   && [ "`field "$line2" hooks`" = 3 ] \
   && [ "`field "$line3" checksum`" = "$want3" ] \
   && readelf -a -W "$T/mh2" 2>&1 > /dev/null | wc -c | grep -qx 0; then
  pass
else
  sed 's/^/    | /' "$T/err2"
  fail "status $st; mh2: '$line2' (want $want2), after 1 more: '$line3' (want $want3)"
fi

begin redump_over_the_running_file
cp "$T/mh1" "$T/self"
if "$T/self" --temacs=dump --output "$T/self" > /dev/null 2> "$T/err3" \
   && [ "`field "\`state "$T/self"\`" checksum`" = "$COLD_SUM" ]; then
  pass
else
  sed 's/^/    | /' "$T/err3"
  fail "dumping over the running executable's own file failed"
fi

begin pointer_warnings_name_the_variables
"$MH" --scale 10 --stray --temacs=dump --output "$T/stray" > /dev/null 2> "$T/stray.err"
st=$?
if [ $st -eq 0 ] \
   && grep -q 'stray_heap).*malloc heap' "$T/stray.err" \
   && grep -q 'stray_lib).*shared library .*libc' "$T/stray.err" \
   && grep -q 'stray_stack).*the stack' "$T/stray.err" \
   && [ `grep -c 'warning:' "$T/stray.err"` -eq 3 ]; then
  pass
else
  sed 's/^/    | /' "$T/stray.err"
  fail "status $st; expected three warnings naming the stray pointers"
fi

# Errors: each a distinct status and a message naming the file.
expect_error error_missing_directory 73 "$T/missing/target" \
  "$MH" --temacs=dump --output "$T/missing/target"
: > "$T/plain"
expect_error error_path_through_a_file 73 "$T/plain/target" \
  "$MH" --temacs=dump --output "$T/plain/target"
expect_error error_unwritable_directory 73 "/proc/target" \
  "$MH" --temacs=dump --output /proc/target
mkdir "$T/target"
TARGET_NAME=none expect_error error_output_is_a_directory 73 "$T/target" \
  "$MH" --temacs=dump --output "$T/target"
rmdir "$T/target"
expect_error error_file_size_limit 74 "$T/target" \
  sh -c "ulimit -f 64; exec '$MH' --temacs=dump --output '$T/target'"
expect_error error_arena_full 92 "with-arena-size" \
  "$MH" --fill-arena --temacs=dump --output "$T/target"
expect_error error_pie_refused 93 "position-independent" \
  "$MH_PIE" --temacs=dump --output "$T/target"

begin error_disk_full
mkdir "$T/small"
if mount -t tmpfs -o size=64k tmpfs "$T/small" 2> /dev/null; then
  "$MH" --temacs=dump --output "$T/small/target" > /dev/null 2> "$T/err"
  st=$?
  left=`ls -A "$T/small"`
  umount "$T/small"
  if [ $st -eq 74 ] && [ -z "$left" ] && grep -q 'No space left' "$T/err"; then
    pass
  else
    sed 's/^/    | /' "$T/err"
    fail "status $st (want 74), left behind: '$left'"
  fi
else
  skip "cannot mount a small tmpfs here (not root?); the file size limit case covers the I/O path"
fi
rmdir "$T/small"

finish
