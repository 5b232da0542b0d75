#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/pdump.sh: the portable dumper end to end, on toyhost.
#
# A start from an image restores exactly the cold state (digest), on
# every start under ASLR, by every load method; the image is found
# beside the executable; dumps are byte-identical across cold starts and
# re-dumps; a million-long list dumps; image objects can be mutated and
# collected; a foreign pointer is refused naming type and field; the
# write is atomic (missing directory, file-size limit); an image of
# another build is refused.

. "$SRCDIR/tests/e2e/lib.sh"

TOY=$BUILDDIR/tests/pdump/toyhost
VARIANT=$BUILDDIR/tests/pdump/toyhost-variant

if [ "$BACKEND" != pdumper ]; then
  begin "portable dumper tests"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

digest_of () {  # digest printed by a run
  sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'
}
field_of () {  # field_of NAME: value of NAME= in a run's output
  sed -n "s/.*$1=\\([^ ]*\\).*/\\1/p"
}

for scale in 1 4; do
  cold=`"$TOY" --scale $scale | digest_of`
  begin "scale $scale: dump succeeds"
  if "$TOY" --scale $scale --temacs=pdump --output "$T/s$scale.pdmp" > "$T/out" 2>&1; then pass
  else cat "$T/out"; fail "dump failed"; fi

  begin "scale $scale: 20 starts from the image match the cold digest"
  bad=0
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    out=`"$TOY" --dump-file="$T/s$scale.pdmp"`
    d=`printf '%s' "$out" | digest_of`
    o=`printf '%s' "$out" | field_of origin`
    h=`printf '%s' "$out" | field_of hooks`
    if [ "$d" != "$cold" ] || [ "$o" != 2 ] || [ "$h" != 1 ]; then
      bad=`expr $bad + 1`
      echo "    start $i: $out (cold digest $cold)"
    fi
  done
  [ $bad -eq 0 ] && pass || fail "$bad of 20 starts differ"
done

begin "ASLR is on: image and executable land at new addresses each start"
if [ "`cat /proc/sys/kernel/randomize_va_space`" = 0 ]; then
  skip "ASLR is disabled on this machine"
else
  for i in 1 2 3 4 5; do
    "$TOY" --dump-file="$T/s1.pdmp" --stats | field_of world_at
    "$TOY" --dump-file="$T/s1.pdmp" --stats | field_of exe_at
  done | sort -u > "$T/addrs"
  n=`wc -l < "$T/addrs"`
  [ "$n" -ge 4 ] && pass || fail "only $n distinct addresses in 10 starts"
fi

for method in map read hybrid; do
  begin "load method $method gives the cold digest"
  out=`DUMPER_PDUMP_LOAD=$method "$TOY" --dump-file="$T/s1.pdmp" --stats`
  d=`printf '%s\n' "$out" | digest_of`
  cold=`"$TOY" --scale 1 | digest_of`
  [ "$d" = "$cold" ] && pass || fail "method $method: $out"
done

begin "DUMPER_PDUMP_NO_MMAP reads the image"
out=`DUMPER_PDUMP_NO_MMAP=1 "$TOY" --dump-file="$T/s1.pdmp" --stats`
case $out in *" read, "*) pass ;; *) fail "$out" ;; esac

begin "the image beside the executable is found (also through a symlink)"
cp "$TOY" "$T/toy"
"$T/toy" --temacs=pdump --output "$T/toy.pdmp"
ln -s "$T/toy" "$T/link"
o1=`"$T/toy" | field_of origin`
o2=`"$T/link" | field_of origin`
o3=`"$T/toy" --no-dump-file | field_of origin`
if [ "$o1" = 2 ] && [ "$o2" = 2 ] && [ "$o3" = 0 ]; then pass
else fail "origins: direct $o1, symlink $o2, --no-dump-file $o3"; fi

begin "two dumps from two cold starts are byte-identical"
"$TOY" --temacs=pdump --output "$T/a.pdmp"
"$TOY" --temacs=pdump --output "$T/b.pdmp"
cmp "$T/a.pdmp" "$T/b.pdmp" > /dev/null && pass || fail "`cmp "$T/a.pdmp" "$T/b.pdmp" | head -1`"

begin "a re-dump from a loaded image is byte-identical"
"$TOY" --dump-file="$T/a.pdmp" --temacs=pdump --output "$T/c.pdmp"
"$TOY" --dump-file="$T/c.pdmp" --temacs=pdump --output "$T/d.pdmp"
if cmp "$T/a.pdmp" "$T/c.pdmp" > /dev/null && cmp "$T/a.pdmp" "$T/d.pdmp" > /dev/null; then pass
else fail "re-dumps differ from the original"; fi

begin "a million-long list dumps and loads"
"$TOY" --long 1000000 --temacs=pdump --output "$T/long.pdmp" > /dev/null 2>&1
cold=`"$TOY" --long 1000000 | digest_of`
loaded=`"$TOY" --dump-file="$T/long.pdmp" | digest_of`
[ -n "$cold" ] && [ "$cold" = "$loaded" ] && pass || fail "cold $cold, loaded $loaded"
rm -f "$T/long.pdmp"

check "image objects mutated after load survive collections" \
  "$TOY" --dump-file="$T/s1.pdmp" --mutate-gc

begin "a pointer into libc is refused, naming type and field"
out=`"$TOY" --foreign --temacs=pdump --output "$T/f.pdmp" 2>&1`
st=$?
case $out in
  *"type \`box'"*"field at +16"*"libc"*)
    if [ $st -eq 90 ] && [ ! -e "$T/f.pdmp" ] && [ -z "`ls "$T" | grep 'f.pdmp.tmp'`" ]; then pass
    else fail "status $st or files left"; fi ;;
  *) fail "status $st: $out" ;;
esac

begin "a missing output directory is a clear error, nothing written"
out=`"$TOY" --temacs=pdump --output "$T/no/such/dir/x.pdmp" 2>&1`
st=$?
case $out in
  *"$T/no/such/dir/x.pdmp"*) [ $st -eq 73 ] && pass || fail "status $st" ;;
  *) fail "status $st: $out" ;;
esac

begin "a file-size limit fails the dump and leaves nothing behind"
cp "$T/a.pdmp" "$T/keep.pdmp"
out=`(ulimit -f 16; "$TOY" --temacs=pdump --output "$T/keep.pdmp") 2>&1`
st=$?
left=`ls "$T" | grep 'keep.pdmp.tmp'`
if [ $st -eq 74 ] && cmp -s "$T/a.pdmp" "$T/keep.pdmp" && [ -z "$left" ]; then pass
else fail "status $st, leftovers '$left', output: $out"; fi

begin "an image of another build is refused as such"
out=`"$VARIANT" --dump-file="$T/a.pdmp" 2>&1`
st=$?
case $out in
  *"different build"*"$T/a.pdmp"*) [ $st -eq 85 ] && pass || fail "status $st" ;;
  *) fail "status $st: $out" ;;
esac

finish
