#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/pdump.sh: the portable dumper end to end, on toyhost.
#
# A start from an image restores exactly the cold state (digest), on
# every start under ASLR, by every load method; dumps are byte-identical
# across cold starts and re-dumps; a million-long list dumps; image
# objects can be mutated and collected; an image of another build is
# refused: all of it for each container (plain, lz4, zstd, embedded in
# the executable).  The image is found beside the executable; a foreign
# pointer is refused naming type and field; the write is atomic
# (missing directory, file-size limit).

. "$SRCDIR/tests/e2e/lib.sh"

TOY=$BUILDDIR/tests/pdump/toyhost
VARIANT=$BUILDDIR/tests/pdump/toyhost-variant
EMBED=$BUILDDIR/tools/dumper-embed

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

# Every load test runs on each container: a separate image, compressed
# with lz4 and with zstd, and embedded in the executable (dumper-embed).
CONTAINERS="plain $CODECS embedded"

# dump_to CONTAINER OUTPUT TOYHOST-ARGS...: the dump, in that container
dump_to () {
  _c=$1; _out=$2; shift 2
  case $_c in
    plain) "$TOY" "$@" --temacs=pdump --output "$_out" ;;
    lz4|zstd) "$TOY" "$@" --temacs=pdump --compress=$_c --output "$_out" ;;
    embedded) "$TOY" "$@" --temacs=pdump --output "$_out.img" \
                && "$EMBED" "$TOY" "$_out.img" -o "$_out" ;;
  esac
}
# start_from CONTAINER FILE TOYHOST-ARGS...: a start from that dump
start_from () {
  _c=$1; _f=$2; shift 2
  case $_c in
    embedded) "$_f" "$@" ;;
    *) "$TOY" --dump-file="$_f" "$@" ;;
  esac
}

# A codec this build lacks (configure --without-lz4 / --without-zstd)
# is refused at dump time naming the library, and nothing is written.
for c in lz4 zstd; do
  has_codec $c && continue
  begin "--compress=$c in a build without it: refused naming the library, no file"
  "$TOY" --temacs=pdump --compress=$c --output "$T/no-$c.pdmp" > /dev/null 2> "$T/err"
  st=$?
  if [ $st = 64 ] && grep -q "lib$c" "$T/err" && [ ! -e "$T/no-$c.pdmp" ]; then pass
  else fail "status $st: `cat "$T/err"`"; fi
done

for c in $CONTAINERS; do
for scale in 1 4; do
  cold=`"$TOY" --scale $scale | digest_of`
  begin "$c: scale $scale: dump succeeds"
  if dump_to $c "$T/$c-s$scale" --scale $scale > "$T/out" 2>&1; then pass
  else cat "$T/out"; fail "dump failed"; fi

  begin "$c: scale $scale: 20 starts from the image match the cold digest"
  bad=0
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    out=`start_from $c "$T/$c-s$scale"`
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

for method in map read hybrid; do
  begin "$c: load method $method gives the cold digest"
  out=`DUMPER_PDUMP_LOAD=$method start_from $c "$T/$c-s1" --stats`
  d=`printf '%s\n' "$out" | digest_of`
  cold=`"$TOY" --scale 1 | digest_of`
  [ "$d" = "$cold" ] && pass || fail "method $method: $out"
done

begin "$c: two dumps from two cold starts are byte-identical"
dump_to $c "$T/$c-a"
dump_to $c "$T/$c-b"
cmp "$T/$c-a" "$T/$c-b" > /dev/null && pass || fail "`cmp "$T/$c-a" "$T/$c-b" | head -1`"

begin "$c: a re-dump from a loaded image is byte-identical, and loads"
case $c in
  plain) z= ;;
  embedded) z= ;;
  *) z=--compress=$c ;;
esac
start_from $c "$T/$c-a" --temacs=pdump $z --output "$T/$c-c"
"$TOY" --dump-file="$T/$c-c" --temacs=pdump $z --output "$T/$c-d"
if [ $c = embedded ]; then
  # The re-dump of an embedded start is a plain image; embedded again,
  # the executable is the same file.
  "$EMBED" "$T/$c-a" "$T/$c-d" -o "$T/$c-e" && cmp "$T/$c-a.img" "$T/$c-c" > /dev/null \
    && cmp "$T/$c-a" "$T/$c-e" > /dev/null && [ "`"$T/$c-e" | field_of origin`" = 2 ] \
    && pass || fail "re-dumps differ from the original"
elif cmp "$T/$c-a" "$T/$c-c" > /dev/null && cmp "$T/$c-a" "$T/$c-d" > /dev/null; then pass
else fail "re-dumps differ from the original"; fi

if [ $c = embedded ]; then
  # dumper-fingerprint on the embedded file: its hash is not its note by
  # design; --check asks whether the image is of the stored build, and
  # stamping (which would orphan the image) is refused, file unchanged.
  FP=$BUILDDIR/tools/dumper-fingerprint
  begin "$c: dumper-fingerprint --check says ok, and refuses to stamp it"
  cp "$T/$c-a" "$T/$c-fp"
  out=`"$FP" --check "$T/$c-fp"`; st=$?
  "$FP" "$T/$c-fp" 2> "$T/fp.err"; st2=$?
  if [ $st = 0 ] && [ "$out" = "$T/$c-fp: ok (embedded image of this build)" ] \
     && [ $st2 = 65 ] && grep -q 'embedded pdump image' "$T/fp.err" \
     && cmp "$T/$c-a" "$T/$c-fp" > /dev/null; then pass
  else fail "check $st ($out), stamp $st2 (`cat "$T/fp.err"`)"; fi
  begin "$c: dumper-fingerprint --check: an embedded image of another build is stale (5)"
  # The image's fingerprint is header bytes 48..63, in the .pdump section.
  off=`readelf -W -S "$T/$c-fp" | sed -n 's/.* \.pdump  *PROGBITS  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p'`
  if [ -n "$off" ]; then
    at=`expr $((0x$off)) + 48`
    b=`od -An -tu1 -j $at -N1 "$T/$c-fp" | tr -d ' '`
    printf "\\$(printf %o $(( (b + 1) % 256 )))" \
      | dd of="$T/$c-fp" bs=1 seek=$at conv=notrunc 2> /dev/null
    out=`"$FP" --check "$T/$c-fp"`; st=$?
    [ $st = 5 ] && [ "$out" = "$T/$c-fp: stale (the embedded image is of another build)" ] \
      && pass || fail "status $st: $out"
  else fail "no .pdump section in readelf -S"; fi
fi

begin "$c: a million-long list dumps and loads"
dump_to $c "$T/long" --long 1000000 > /dev/null 2>&1
cold=`"$TOY" --long 1000000 | digest_of`
loaded=`start_from $c "$T/long" | digest_of`
[ -n "$cold" ] && [ "$cold" = "$loaded" ] && pass || fail "cold $cold, loaded $loaded"

# The writer streams HOT and COLD of a plain image to the file through
# small windows (objects traced after the window passed them are written
# on their own); the bytes must be those of a write that keeps the whole
# image in memory (as compressed images are).  The long list's deep
# stack leaves many objects behind.
if [ $c = plain ]; then
  begin "$c: a streamed image is byte for byte the in-memory one"
  DUMPER_PDUMP_IN_MEMORY=1 "$TOY" --long 1000000 --temacs=pdump \
    --output "$T/long-mem" > /dev/null 2>&1
  "$TOY" --scale 4 --temacs=pdump --output "$T/s4-stream" > /dev/null 2>&1
  DUMPER_PDUMP_IN_MEMORY=1 "$TOY" --scale 4 --temacs=pdump \
    --output "$T/s4-mem" > /dev/null 2>&1
  if [ -s "$T/long-mem" ] && cmp "$T/long" "$T/long-mem" \
     && [ -s "$T/s4-mem" ] && cmp "$T/s4-stream" "$T/s4-mem"
  then pass; else fail "the two writes differ"; fi
  rm -f "$T/long-mem" "$T/s4-stream" "$T/s4-mem"
fi
rm -f "$T/long" "$T/long.img"

check "$c: image objects mutated after load survive collections" \
  start_from $c "$T/$c-s1" --mutate-gc

begin "$c: an image of another build is refused as such"
out=`"$VARIANT" --dump-file="$T/$c-a" 2>&1`
st=$?
case $out in
  *"different build"*"$T/$c-a"*) [ $st -eq 85 ] && pass || fail "status $st" ;;
  *) fail "status $st: $out" ;;
esac
done

begin "ASLR is on: image and executable land at new addresses each start"
if [ "`cat /proc/sys/kernel/randomize_va_space`" = 0 ]; then
  skip "ASLR is disabled on this machine"
elif [ -n "${DUMPER_TEST_EMULATOR:-}" ]; then
  skip "the programs run under $DUMPER_TEST_EMULATOR, which places the guest's mappings itself (the kernel's ASLR does not apply)"
else
  for i in 1 2 3 4 5; do
    "$TOY" --dump-file="$T/plain-s1" --stats | field_of world_at
    "$TOY" --dump-file="$T/plain-s1" --stats | field_of exe_at
  done | sort -u > "$T/addrs"
  n=`wc -l < "$T/addrs"`
  [ "$n" -ge 4 ] && pass || fail "only $n distinct addresses in 10 starts"
fi

begin "DUMPER_PDUMP_LOAD=read reads the image"
out=`DUMPER_PDUMP_LOAD=read "$TOY" --dump-file="$T/plain-s1" --stats`
case $out in *" read, "*) pass ;; *) fail "$out" ;; esac

# A value outside the list is a usage error naming the valid ones (it
# was a silent hybrid load before the options record, issue 34).
begin "DUMPER_PDUMP_LOAD=mmap: a usage error naming the valid values"
out=`DUMPER_PDUMP_LOAD=mmap "$TOY" --dump-file="$T/plain-s1" --stats 2>&1`
st=$?
case "$st:$out" in
  64:*"DUMPER_PDUMP_LOAD=mmap: valid values are \`hybrid', \`map' and \`read'"*) pass ;;
  *) fail "status $st: $out" ;;
esac

begin "the image beside the executable is found (also through a symlink)"
cp "$TOY" "$T/toy"
"$T/toy" --temacs=pdump --output "$T/toy.pdmp"
ln -s "$T/toy" "$T/link"
o1=`"$T/toy" | field_of origin`
o2=`"$T/link" | field_of origin`
o3=`"$T/toy" --no-dump-file | field_of origin`
if [ "$o1" = 2 ] && [ "$o2" = 2 ] && [ "$o3" = 0 ]; then pass
else fail "origins: direct $o1, symlink $o2, --no-dump-file $o3"; fi

begin "a pointer into libc is refused, naming type and field"
out=`"$TOY" --foreign --temacs=pdump --output "$T/f.pdmp" 2>&1`
st=$?
case $out in
  *"type \`box'"*"field at +`expr 8 + $WORD_SIZE`"*"libc"*)
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
cp "$T/plain-a" "$T/keep.pdmp"
out=`(ulimit -f 16; "$TOY" --temacs=pdump --output "$T/keep.pdmp") 2>&1`
st=$?
left=`ls "$T" | grep 'keep.pdmp.tmp'`
if [ $st -eq 74 ] && cmp -s "$T/plain-a" "$T/keep.pdmp" && [ -z "$left" ]; then pass
else fail "status $st, leftovers '$left', output: $out"; fi

finish
