#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/compress.sh: LZ4 levels and the checks of compressed
# frames, on dlisp (whose COLD spans several 1 MiB frames).
#
#   - lz4 takes a level, 1 to 12 (1-2 LZ4's fast compressor, 3-12
#     LZ4HC); a bad level is a usage error (64) naming the ranges;
#   - plain `lz4' is level 3 (byte-identical to lz4:3), LZ4HC, smaller
#     than lz4:1; every level loads with the cold heap digest, and two
#     dumps at one level are byte-identical;
#   - at every level, a frame that does not decode is corruption (86)
#     naming the section; a frame that decodes to other bytes (one
#     literal byte flipped) is caught by COLD's checksum over the
#     uncompressed bytes (86), at every start with the default COLD
#     verification and while decompressing (pdump-cold-check says so);
#     DUMPER_PDUMP_COLD=size skips that checksum (and loads the damaged
#     byte, what that mode gives up), as for a plain image.

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ] || ! has_codec lz4; then
  begin "LZ4 levels and compressed frames"
  skip "needs --with-dumper=pdumper and liblz4 (this build: $BACKEND, codecs: ${CODECS:-none})"
  finish
fi

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp

cold=`"$BARE" --heap-digest`

# dump SPEC FILE: dlisp-bare's dump with --compress=SPEC
dump () {
  "$BARE" --temacs=pdump --compress=$1 --output "$2" > "$T/dump.out" 2>&1
}

# load FILE [VAR=VALUE...]: one start; status in $st, stdout in
# $T/out, stderr in $T/err
load () {
  _f=$1
  shift
  env "$@" "$DLISP" --dump-file="$_f" --heap-digest --load-stats \
    > "$T/out" 2> "$T/err"
  st=$?
}
stat_of () {
  sed -n "s/^$1: //p" "$T/out"
}

# patch FILE OFFSET BYTE-VALUE: overwrite one byte.
patch () {
  printf "\\`printf '%03o' $3`" | dd of="$1" bs=1 seek=$2 conv=notrunc 2>/dev/null
}
byte_at () {  # byte_at FILE OFFSET: its value, decimal
  od -An -t u1 -j $2 -N 1 "$1" | tr -d ' '
}
# section FILE KIND FIELD-OFFSET: a u64 field of section KIND's entry
section () {
  od -An -t u8 -j `expr 136 + \( $2 - 1 \) \* 64 + $3` -N 8 "$1" | tr -d ' '
}
# first_frame FILE KIND: file offset of section KIND's first frame (past
# its frame table: one uint32_t per 1 MiB frame, padded to 8 bytes)
first_frame () {
  _size=`section "$1" $2 16`
  _frames=`expr \( $_size + 1048575 \) / 1048576`
  _stored=`section "$1" $2 40`
  expr $_stored + \( $_frames \* 4 + 7 \) / 8 \* 8
}
# first_literal FILE KIND: file offset of the first literal byte of
# section KIND's first LZ4 frame.  An LZ4 block starts with a token
# whose high nibble is the literal count (15: more in the bytes after
# it, each 255 meaning more still), then the literals.
first_literal () {
  _at=`first_frame "$1" $2`
  _token=`byte_at "$1" $_at`
  _at=`expr $_at + 1`
  if [ `expr $_token / 16` -eq 15 ]; then
    while [ `byte_at "$1" $_at` -eq 255 ]; do _at=`expr $_at + 1`; done
    _at=`expr $_at + 1`
  fi
  [ `expr $_token / 16` -gt 0 ] && echo $_at
}

for spec in lz4:0 lz4:13 lz4:x lz4: none:1; do
  begin "--compress=$spec is a usage error naming the levels"
  "$BARE" --temacs=pdump --compress=$spec --output "$T/bad.pdmp" > "$T/out" 2>&1
  st=$?
  if [ $st -eq 64 ] && grep -q "lz4 takes a level from 1 to 12" "$T/out" \
     && [ ! -e "$T/bad.pdmp" ]; then pass
  else fail "status $st: `cat "$T/out"`"; fi
done

for spec in lz4:1 lz4 lz4:3 lz4:12; do
  begin "$spec: dumps, and loads with the cold digest, COLD checked while decompressing"
  if dump $spec "$T/$spec.pdmp"; then
    load "$T/$spec.pdmp"
    how=`stat_of pdump-cold-check`
    if [ $st -eq 0 ] && [ "`head -1 "$T/out"`" = "$cold" ] \
       && [ "`stat_of pdump-method`" = unpack ] \
       && [ "$how" = "checksum, while decompressing" ]; then pass
    else fail "status $st, digest `head -1 "$T/out"` (cold $cold), COLD check '$how': `cat "$T/err"`"; fi
  else
    fail "dump failed: `cat "$T/dump.out"`"
  fi
done

begin "lz4 is lz4:3 byte for byte, and dumps again identically"
dump lz4 "$T/again.pdmp"
if cmp -s "$T/lz4.pdmp" "$T/lz4:3.pdmp" && cmp -s "$T/lz4.pdmp" "$T/again.pdmp"
then pass; else fail "`cmp "$T/lz4.pdmp" "$T/lz4:3.pdmp"; cmp "$T/lz4.pdmp" "$T/again.pdmp"`"; fi

begin "LZ4HC is smaller than the fast compressor (lz4:12 < lz4 < lz4:1)"
s1=`stat -c %s "$T/lz4:1.pdmp"`; s3=`stat -c %s "$T/lz4.pdmp"`
s12=`stat -c %s "$T/lz4:12.pdmp"`
[ $s12 -lt $s3 ] && [ $s3 -lt $s1 ] && pass || fail "sizes: lz4:12 $s12, lz4 $s3, lz4:1 $s1"

for spec in lz4:1 lz4 lz4:12; do
  # COLD (kind 2): a run of 0xff over the first frame's start makes
  # literal counts run past the frame.
  cp "$T/$spec.pdmp" "$T/junk.pdmp"
  at=`first_frame "$T/junk.pdmp" 2`
  printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' \
    | dd of="$T/junk.pdmp" bs=1 seek=$at conv=notrunc 2>/dev/null
  begin "$spec: a COLD frame that does not decode is corrupt (86)"
  load "$T/junk.pdmp"
  if [ $st -eq 86 ] && grep -q "section COLD frame 0.*does not decompress" "$T/err"
  then pass; else fail "status $st: `cat "$T/err"`"; fi

  cp "$T/$spec.pdmp" "$T/lit.pdmp"
  at=`first_literal "$T/lit.pdmp" 2`
  begin "$spec: a COLD frame that decodes to other bytes fails COLD's checksum (86)"
  if [ -z "$at" ]; then fail "the first COLD frame starts with no literal"; continue; fi
  patch "$T/lit.pdmp" $at `expr \( \`byte_at "$T/lit.pdmp" $at\` + 1 \) % 256`
  load "$T/lit.pdmp"
  if [ $st -eq 86 ] && grep -q "checksum mismatch in section COLD" "$T/err"
  then pass; else fail "status $st: `cat "$T/err"`"; fi

  begin "$spec: DUMPER_PDUMP_COLD=size loads it (no COLD checksum), as for a plain image"
  load "$T/lit.pdmp" DUMPER_PDUMP_COLD=size
  if [ $st -eq 0 ] && stat_of pdump-cold-check | grep -q "^skipped: size"
  then pass; else fail "status $st: `cat "$T/err"`"; fi
done


# The codecs are loaded when first needed (pdump/codec.c, dlopen), not
# linked: a start from a plain image maps neither library (LD_DEBUG=files
# names every object the dynamic loader maps), one from an LZ4 image maps
# liblz4 then.  A codec library that cannot be used fails only what needs
# it, naming it: a stand-in liblz4.so.1 without liblz4's functions, found
# first through LD_LIBRARY_PATH.
dump none "$T/plain.pdmp" || { cat "$T/dump.out"; exit 1; }
begin "a start from a plain image maps no codec library"
load "$T/plain.pdmp" LD_DEBUG=files
if [ $st -eq 0 ] && ! grep -q 'file=lib\(lz4\|zstd\)' "$T/err"
then pass; else fail "status $st: `grep 'file=lib' "$T/err" | head -5`"; fi
begin "a start from an LZ4 image loads liblz4 then, and only it"
load "$T/lz4.pdmp" LD_DEBUG=files
if [ $st -eq 0 ] && grep -q 'file=liblz4.so.1 .*dynamically loaded' "$T/err" \
   && ! grep -q 'file=libzstd' "$T/err"
then pass; else fail "status $st: `grep 'file=lib' "$T/err" | head -5`"; fi

mkdir -p "$T/fakelib"
echo 'int not_lz4 = 1;' > "$T/fake.c"
if ${CC:-cc} -shared -fPIC -Wl,-soname,liblz4.so.1 -o "$T/fakelib/liblz4.so.1" \
     "$T/fake.c" 2> "$T/cc.err"; then
  begin "liblz4 unusable at run time: an LZ4 image is refused naming it (83)"
  load "$T/lz4.pdmp" LD_LIBRARY_PATH="$T/fakelib"
  if [ $st -eq 83 ] && grep -q "compressed with lz4; liblz4 (liblz4-dev) cannot be loaded: liblz4.so.1: no LZ4_decompress_safe" "$T/err"
  then pass; else fail "status $st: `cat "$T/err"`"; fi
  begin "... a plain image still loads"
  load "$T/plain.pdmp" LD_LIBRARY_PATH="$T/fakelib"
  if [ $st -eq 0 ] && [ "`head -1 "$T/out"`" = "$cold" ]
  then pass; else fail "status $st: `cat "$T/err"`"; fi
  begin "... and --compress=lz4 is a usage error naming it, nothing written"
  env LD_LIBRARY_PATH="$T/fakelib" "$BARE" --temacs=pdump --compress=lz4 \
    --output "$T/nolib.pdmp" > "$T/out" 2> "$T/err"
  st=$?
  if [ $st -eq 64 ] && grep -q "compression \`lz4' needs liblz4 (liblz4-dev), which cannot be loaded" "$T/err" \
     && [ ! -e "$T/nolib.pdmp" ]
  then pass; else fail "status $st: `cat "$T/err"`"; fi
else
  begin "liblz4 unusable at run time"
  skip "cannot build a stand-in shared object: `cat "$T/cc.err"`"
fi

finish
