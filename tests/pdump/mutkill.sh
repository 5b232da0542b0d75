#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/mutkill.sh: the loader's checks that survived the mutation
# harness (tests/mutation, issue 36): each case is an image whose header
# lies in one way (tests/pdump/patch-image sets the field and reseals
# the header checksum), refused with 86 and the message of the check
# made for that lie -- not, later and by luck, by another check:
#
#   - a compressed section stored over its predecessor, or with no room
#     for its frames after the frame table (check.c, check_stored);
#   - a codec number one past the last (check.c, check_sections);
#   - RELOC_IMAGE claiming more relocations than HOT has words.

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "lying headers"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

TOY=$BUILDDIR/tests/pdump/toyhost
PATCH=$BUILDDIR/tests/pdump/patch-image

"$TOY" --temacs=pdump --output "$T/plain.pdmp" > /dev/null || exit 1
"$TOY" --temacs=pdump --compress=lz4 --output "$T/lz4.pdmp" > /dev/null || exit 1

# u64 FILE OFFSET: the 8-byte field at OFFSET, decimal.
u64 () {
  od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}

# refused NAME IMAGE WORDS EDIT...: IMAGE with the EDITs (patch-image's
# syntax) is refused by the loader with 86, and the message holds WORDS.
refused () {
  _name=$1 _image=$2 _words=$3
  shift 3
  begin "$_name"
  if ! "$PATCH" "$_image" "$T/m.pdmp" "$@"; then
    fail "patch-image $*"
    return
  fi
  _out=`"$TOY" --dump-file="$T/m.pdmp" 2>&1`
  _st=$?
  if [ "$_st" -ne 86 ]; then
    fail "status $_st, want 86: $_out"
    return
  fi
  case $_out in
    *"$_words"*) pass ;;
    *) fail "message lacks '$_words': $_out" ;;
  esac
}

# Section numbers (format.h): 1 HOT, 2 COLD, 3 RELOC_IMAGE.
refused "compressed: COLD stored over HOT" "$T/lz4.pdmp" \
  "section COLD is stored at" s2.stored_offset=s1.stored_offset
refused "compressed: HOT stored as its frame table alone" "$T/lz4.pdmp" \
  "section HOT is stored at" s1.stored_size=8
refused "a codec one past the last" "$T/plain.pdmp" \
  "bad offset or codec" s2.codec=3
hot_size=`u64 "$T/plain.pdmp" 152`     # section 1's size: 136 + 16
words=`expr $hot_size / $WORD_SIZE`
refused "RELOC_IMAGE claims one relocation more than HOT has words" \
  "$T/plain.pdmp" "more relocations than HOT has words" \
  "s3.count=`expr $words + 1`"

finish
