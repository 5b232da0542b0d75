#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/edges.sh: image checks at their edges (issue 36: mutants
# of these checks survived the other tests).  Each case is built so that
# the check under test is the one that fires, and asserts its message,
# not only the status:
#
#   - a byte flipped in each checksummed section, not resealed: corrupt
#     (86), the message naming that section's checksum (TYPES, which the
#     loader never reads, through dumper-inspect);
#   - a registry record's raw pointer 1 to 7 bytes into its target
#     (inside the object's first granule): not the start of an object;
#   - an object index entry claiming one byte more than its object;
#   - an object index entry naming the type one past the last;
#   - slack after the frames of a compressed section;
#   - a compressed section's frame replaced by another section's valid,
#     shorter one (mutate short-frame): refused by the codec's length
#     check, not later by the section checksum.
#
# The resealed cases are made by tests/fuzz/mutate (kinds unaligned,
# oversize, type-range, slack, short-frame) and loaded with verify=structure, the
# pass that reads the object index.

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "image check edges"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp
INSPECT=$BUILDDIR/tools/dumper-inspect
MUTATE=$BUILDDIR/tests/fuzz/mutate

cold=`"$BARE" --heap-digest`
"$BARE" --temacs=pdump --output "$T/good.pdmp" > "$T/dump.out" 2>&1 \
  || { cat "$T/dump.out"; exit 1; }

# load FILE [VERIFY]: start dlisp from FILE (COLD checked in full, no
# boot cache); output in $T/out, stderr in $T/err, status in $st.
load () {
  env -u XDG_RUNTIME_DIR DUMPER_PDUMP_COLD=full \
    DUMPER_PDUMP_VERIFY=${2:-none} "$DLISP" --dump-file="$1" \
    --heap-digest > "$T/out" 2> "$T/err"
  st=$?
}

# refused NAME WORDS...: the last run exited 86 and its message holds
# each of WORDS.
refused () {
  _name=$1
  shift
  begin "$_name"
  if [ $st -ne 86 ]; then
    sed 's/^/    | /' "$T/err"
    fail "status $st, expected 86"
    return
  fi
  for _w in "$@"; do
    if ! grep -q -F -- "$_w" "$T/err"; then
      sed 's/^/    | /' "$T/err"
      fail "message lacks '$_w'"
      return
    fi
  done
  pass
}

begin "the image as written loads with verify=structure, cold digest"
load "$T/good.pdmp" structure
if [ $st -eq 0 ] && [ "`head -1 "$T/out"`" = "$cold" ]; then pass
else sed 's/^/    | /' "$T/err"; fail "status $st"; fi

# section FILE KIND: the offset and size of section KIND, as the
# inspector lists them.
section () {
  "$INSPECT" "$1" | awk -v k="$2" '$1 == k { print $2, $3; exit }'
}

# flip FILE OFFSET: the low bit of the byte at OFFSET.
flip () {
  _b=`od -An -tu1 -j $2 -N1 "$1" | tr -d ' '`
  printf "\\`printf '%03o' $((_b ^ 1))`" | dd of="$1" bs=1 seek=$2 conv=notrunc 2>/dev/null
}

# Every section kind of pdump/format.h carries a checksum.  A HOT byte
# in its first word (an object header, not a relocated word, so the
# relocation's range check cannot fire first); elsewhere the middle byte.
for kind in HOT COLD RELOC_IMAGE RELOC_EXE REGISTRY SCALAR_DATA TYPES OBJECTS \
            RELOC_CODE; do
  set -- `section "$T/good.pdmp" $kind`
  if [ $# -ne 2 ] || [ "$2" -eq 0 ]; then
    begin "a byte flipped in $kind"
    fail "the image has no bytes in $kind: '$*'"
    continue
  fi
  at=$(($1 + $2 / 2))
  [ $kind = HOT ] && at=$(($1 + 4))
  cp "$T/good.pdmp" "$T/flip.pdmp"
  flip "$T/flip.pdmp" $at
  case $kind in
    TYPES)
      # Inspection only: the loader never reads it, the inspector's
      # views refuse it.
      "$INSPECT" "$T/flip.pdmp" > "$T/out" 2> "$T/err"
      st=$? ;;
    OBJECTS) load "$T/flip.pdmp" structure ;;
    *) load "$T/flip.pdmp" ;;
  esac
  refused "a byte flipped in $kind (offset $at), not resealed: corrupt (86), naming $kind" \
    "checksum mismatch in section $kind "
done

# Raw pointers are not tagged, so a value 1 to 7 bytes into an object
# lies in the granule of the object's start.
n=1
while [ $n -le 7 ]; do
  "$MUTATE" "$T/good.pdmp" "$T/m.pdmp" unaligned $n > "$T/what" || exit 1
  load "$T/m.pdmp" structure
  refused "a registry pointer $n bytes into its target: not an object start (86)" \
    "registry record" "(image offset): points inside an object or between objects, not at the start of one"
  n=`expr $n + 1`
done

"$MUTATE" "$T/good.pdmp" "$T/m.pdmp" oversize 1 > "$T/what" || exit 1
size=`sed -n 's/.*index size \([0-9]*\) -> .*/\1/p' "$T/what"`
load "$T/m.pdmp" structure
refused "an index entry one byte longer than its object (86)" \
  "object 0 (" "the index says `expr $size + 1` bytes, its contents say $size"

types=`od -An -tu4 -j 72 -N 4 "$T/good.pdmp" | tr -d ' '`
"$MUTATE" "$T/good.pdmp" "$T/m.pdmp" type-range 1 > "$T/what" || exit 1
load "$T/m.pdmp" structure
refused "an index entry of type $types, one past the last" \
  "object index: object 0 has type $types; this executable has $types types"

for c in $CODECS; do
  "$BARE" --temacs=pdump --compress=$c --output "$T/$c.pdmp" > "$T/dump.out" 2>&1 \
    || { cat "$T/dump.out"; exit 1; }
  begin "$c: the compressed image as written loads, cold digest"
  load "$T/$c.pdmp"
  if [ $st -eq 0 ] && [ "`head -1 "$T/out"`" = "$cold" ]; then pass
  else sed 's/^/    | /' "$T/err"; fail "status $st"; fi
  "$MUTATE" "$T/$c.pdmp" "$T/m.pdmp" slack 1 > "$T/what" || exit 1
  kind=`sed -n 's/.* section \([A-Z_]*\): 8 bytes after.*/\1/p' "$T/what"`
  stored=`sed -n 's/.*(stored size \([0-9]*\))/\1/p' "$T/what"`
  load "$T/m.pdmp"
  refused "$c: 8 bytes of slack after section $kind's frames (86)" \
    "section $kind: its frames take `expr $stored - 8` bytes; the section table says $stored"
  "$MUTATE" "$T/$c.pdmp" "$T/m.pdmp" short-frame 1 > "$T/what" || exit 1
  kind=`sed -n 's/.* section \([A-Z_]*\): its frame replaced.*/\1/p' "$T/what"`
  size=`sed -n 's/.* decompressing to [0-9]* of \([0-9]*\))$/\1/p' "$T/what"`
  load "$T/m.pdmp"
  refused "$c: section $kind's frame a valid one of fewer bytes: the codec's length check (86), not the checksum" \
    "section $kind frame 0 (" "does not decompress to its $size bytes with $c"
done
if [ -z "$CODECS" ]; then
  begin "slack after a compressed section's frames"
  skip "this build has no codec"
fi

finish
