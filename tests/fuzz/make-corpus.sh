#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/make-corpus.sh: regenerate the image fuzz seed corpus.
#
# Usage: sh tests/fuzz/make-corpus.sh BUILDDIR
#   BUILDDIR is a --with-dumper=pdumper build with tests/pdump/toyhost.
#
# Writes tests/fuzz/corpus/ beside this script: one small valid image
# from the pdump test host and damaged copies of it, about 90 KB in all.
# Each file is named C-T-what: C is the exit status the loader itself
# gives it (checked here by starting toyhost from it), T the one the
# inspection tables give (0 where the damage is elsewhere, 86 in OBJECTS,
# C when the header check already fails).  tests/fuzz/replay checks both
# on every `make check'.  The files are not named *.pdmp (.gitignore).

set -e
BUILDDIR=${1:?usage: make-corpus.sh BUILDDIR}
TOY=$BUILDDIR/tests/pdump/toyhost
OUT=`cd "\`dirname "$0"\`" && pwd`/corpus
test -x "$TOY" || { echo "make-corpus.sh: no $TOY (build --with-dumper=pdumper)" >&2; exit 1; }

TMP=`mktemp -d "${TMPDIR:-/tmp}/corpus.XXXXXX"`
trap 'rm -rf "$TMP"' EXIT INT TERM

# patch FILE OFFSET BYTE-VALUE
patch () {
  printf "\\`printf '%03o' $3`" | dd of="$1" bs=1 seek=$2 conv=notrunc 2>/dev/null
}
# section_field FILE KIND FIELD-OFFSET: a uint64 of section table entry
# KIND - 1 (entries of 64 bytes after the 136-byte header)
section_field () {
  od -An -t u8 -j `expr 136 + \( $2 - 1 \) \* 64 + $3` -N 8 "$1" | tr -d ' '
}
# section_offset FILE KIND: where the section lies in the image
section_offset () {
  section_field "$1" $2 8
}
# stored_offset FILE KIND: where its stored bytes are in the file
stored_offset () {
  section_field "$1" $2 40
}
# keep NAME EXPECTED-LOADER-STATUS: check the loader's verdict, keep it
keep () {
  set +e
  "$TOY" --dump-file="$TMP/case" > /dev/null 2>&1
  st=$?
  set -e
  if [ "$st" -ne "$2" ]; then
    echo "make-corpus.sh: $1: the loader exits $st, expected $2" >&2
    exit 1
  fi
  cp "$TMP/case" "$OUT/$1.img"
}

"$TOY" --scale 0 --long 4 --temacs=pdump --output "$TMP/good.pdmp"
size=`stat -c %s "$TMP/good.pdmp"`
rm -rf "$OUT"
mkdir -p "$OUT"

cp "$TMP/good.pdmp" "$TMP/case"
keep 0-0-valid 0

cp "$TMP/good.pdmp" "$TMP/case"; patch "$TMP/case" `section_offset "$TMP/case" 1` 127
keep 86-0-hot-damaged 86

cp "$TMP/good.pdmp" "$TMP/case"; patch "$TMP/case" `section_offset "$TMP/case" 3` 255
keep 86-0-reloc-image-damaged 86

cp "$TMP/good.pdmp" "$TMP/case"; patch "$TMP/case" `expr \`section_offset "$TMP/case" 5\` + 8` 1
keep 86-0-registry-damaged 86

cp "$TMP/good.pdmp" "$TMP/case"; patch "$TMP/case" `expr \`section_offset "$TMP/case" 8\` + 1` 200
keep 0-86-objects-damaged 0

cp "$TMP/good.pdmp" "$TMP/case"; patch "$TMP/case" 64 7
keep 86-86-header-damaged 86

head -c `expr $size / 2` "$TMP/good.pdmp" > "$TMP/case"
keep 81-81-half 81

head -c 100 "$TMP/good.pdmp" > "$TMP/case"
keep 81-81-header-cut 81

: > "$TMP/case"
keep 81-81-empty 81

printf 'hello, I am a text file\n' > "$TMP/case"
keep 82-82-text 82

# A version or word-size field changed without resealing the header
# checksum is damage (86), not another version or architecture: those
# are believed only from an intact header (tests/pdump/test_check
# covers resealed ones).
table_end=`od -An -tu4 -j 12 -N 12 "$TMP/good.pdmp" | awk '{ print $1 + $3 * 64 }'`
head -c $table_end "$TMP/good.pdmp" > "$TMP/case"; patch "$TMP/case" 8 99
keep 86-86-version-field-damaged 86

head -c $table_end "$TMP/good.pdmp" > "$TMP/case"; patch "$TMP/case" 16 4
keep 86-86-word-size-field-damaged 86

# Compressed containers: valid ones, a damaged frame of HOT and of COLD
# (past the one-frame table of 8 bytes), a damaged frame table.
for codec in lz4 zstd; do
  "$TOY" --scale 0 --long 4 --temacs=pdump --compress=$codec --output "$TMP/$codec.pdmp"
  cp "$TMP/$codec.pdmp" "$TMP/case"
  keep 0-0-valid-$codec 0
  cp "$TMP/$codec.pdmp" "$TMP/case"
  patch "$TMP/case" `expr \`stored_offset "$TMP/case" 1\` + 8 + 5` 255
  # A damaged literal in an LZ4 block still decodes (to other bytes,
  # which HOT's checksum catches); zstd's entropy coding fails outright.
  if [ $codec = lz4 ]; then t=0; else t=86; fi
  keep 86-$t-hot-frame-$codec 86
  cp "$TMP/$codec.pdmp" "$TMP/case"
  patch "$TMP/case" `expr \`stored_offset "$TMP/case" 2\` + 8 + 3` 255
  keep 86-86-cold-frame-$codec 86
  cp "$TMP/$codec.pdmp" "$TMP/case"
  patch "$TMP/case" `expr \`stored_offset "$TMP/case" 1\` + 1` 127
  keep 86-86-frame-table-$codec 86
done

echo "make-corpus.sh: `ls "$OUT" | wc -l` files, `du -cb "$OUT"/* | tail -1 | cut -f1` bytes in $OUT"
