#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/mutkill-verify.sh: the checks of structural verification
# (pdump/verify-structure.c, DUMPER_PDUMP_VERIFY=structure) whose mutants survived
# the mutation harness (tests/mutation): other tests get these images
# refused, but by another check.  Each case is an image that only the
# check under test refuses, loaded by toyhost, and asserts status 86 and
# that check's message:
#
#   - the object index (OBJECTS) of toyhost's image, one entry edited
#     (tests/pdump/patch-image, every checksum recomputed): the first
#     object, traced, given an untraced type; the last HOT object one
#     byte longer (it leaves HOT) or shorter (HOT's objects end before
#     HOT does); the last COLD object one byte shorter;
#   - the image of `toyhost --bad fields', whose object `bad' has every
#     kind of field set, one field or relocation edited: its raw pointer
#     p taken out of RELOC_IMAGE; its byte block pointer set to p (a
#     box, not a byte block); its byte length made 1000000; its word a
#     listed in RELOC_CODE in place of its code pointer fn; fn listed in
#     RELOC_IMAGE (RELOC_CODE emptied); the length word, which no trace
#     reports, listed in RELOC_IMAGE;
#   - the same image, unedited, loaded by a toyhost whose trace of `bad'
#     misbehaves: it reports the word before the object (--bad
#     field-before), or a twice (--bad twice-word).

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "structural verification, one check at a time"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

TOY=$BUILDDIR/tests/pdump/toyhost
PATCH=$BUILDDIR/tests/pdump/patch-image

"$TOY" --temacs=pdump --output "$T/plain.pdmp" > /dev/null || exit 1
"$TOY" --bad fields --temacs=pdump --output "$T/fields.pdmp" > /dev/null || exit 1

. "$SRCDIR/tests/pdump/imagelib.sh"

# refused NAME IMAGE BAD WORDS EDIT...: IMAGE with the EDITs
# (patch-image's syntax) is refused by `toyhost --bad BAD' (none: no
# --bad; wide: toyhost --wide-types) with verify=structure, status 86, the message matching WORDS
# (a shell pattern: `*' stands for any text, as addresses).
refused () {
  _name=$1 _image=$2 _bad=$3 _words=$4
  shift 4
  begin "$_name"
  if ! "$PATCH" "$_image" "$T/m.pdmp" "$@"; then
    fail "patch-image $*"
    return
  fi
  case $_bad in
    none) set -- ;;
    wide) set -- --wide-types ;;
    *) set -- --bad "$_bad" ;;
  esac
  _out=`DUMPER_PDUMP_VERIFY=structure "$TOY" "$@" --dump-file="$T/m.pdmp" 2>&1`
  judge_refusal $? "$_out" "$_words"
}

index "$T/plain.pdmp" > "$T/index"
index_entry () {
  sed -n "`expr $1 + 1`p" "$T/index"
}
hot_count=`section_at "$T/plain.pdmp" 8 24`
object_count=`u64 "$T/plain.pdmp" 64`

# The first object is traced (a vec); float (type 4) has no trace.
set -- `index_entry 0`
refused "verify=structure: a traced object (the first) indexed as a float, in HOT" \
  "$T/plain.pdmp" none \
  "object index: object 0 (\`float') is in HOT, but its type has no pointers" \
  "s8@$1/1=4" resum

# One byte more or less on the last HOT object, one less on the last
# COLD object (sizes of one LEB128 byte, 2 to 126: the index keeps its
# length).
last_hot=`expr $hot_count - 1`
set -- `index_entry $last_hot`
if [ "$5" -eq 1 ] && [ "$4" -ge 2 ] && [ "$4" -le 126 ]; then
  refused "verify=structure: the last HOT object one byte longer than HOT holds" \
    "$T/plain.pdmp" none \
    "object index: object $last_hot (\`*', `expr $4 + 1` bytes at offset 0x*) does not fit in HOT" \
    "s8@$3/1=`expr $4 + 1`" resum
  refused "verify=structure: the last HOT object one byte shorter: HOT's objects end before HOT" \
    "$T/plain.pdmp" none \
    "object index: HOT objects end at offset" "s8@$3/1=`expr $4 - 1`" resum
else
  begin "the last HOT object one byte longer or shorter"
  fail "its index entry is not a one-byte size: $*"
fi
last=`expr $object_count - 1`
set -- `index_entry $last`
if [ "$5" -eq 1 ] && [ "$4" -ge 2 ] && [ "$4" -le 126 ]; then
  refused "verify=structure: the last COLD object one byte shorter: COLD's objects end before COLD" \
    "$T/plain.pdmp" none \
    "object index: COLD objects end at offset" "s8@$3/1=`expr $4 - 1`" resum
else
  begin "the last COLD object one byte shorter"
  fail "its index entry is not a one-byte size: $*"
fi

# ------------------------------------------------------------------
# A host of 300 types (toyhost --wide-types): the pass keeps two bytes
# an object's type and finds a pointer's target by the start bitmap
# (pdump/verify-index.c), not the per-granule byte map of hosts with
# fewer than 255 types.  Its object of type 299 (T_WIDE, a vector)
# holds a fixnum and a pointer to the floats' vector.
"$TOY" --wide-types --temacs=pdump --output "$T/wide.pdmp" > /dev/null || exit 1
cold_wide=`"$TOY" --wide-types | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
begin "300 types: the image loads with verify=structure, the heap as a cold start's"
_out=`DUMPER_PDUMP_VERIFY=structure "$TOY" --wide-types --dump-file="$T/wide.pdmp" 2>&1`
case "$? $_out" in
  "0 "*"digest=$cold_wide"*) pass ;;
  *) fail "want digest $cold_wide: $_out" ;;
esac
set -- `index "$T/wide.pdmp" | awk '$2 == 299'`
wide_at=$6
if [ -z "$wide_at" ]; then
  begin "300 types: the object of type 299"
  fail "not in the object index"
else
  wide_item1=`expr $wide_at + 8 + $WORD_SIZE`
  wide_hot=`section_at "$T/wide.pdmp" 1 8`
  if [ "$WORD_SIZE" -eq 8 ]; then
    floats=`u64 "$T/wide.pdmp" \`expr $wide_hot + $wide_item1\``
  else
    floats=`u32 "$T/wide.pdmp" \`expr $wide_hot + $wide_item1\``
  fi
  refused "300 types: a pointer 8 bytes into its object" "$T/wide.pdmp" wide \
    "points inside an object or between objects, not at the start of one" \
    "s1@$wide_item1/$WORD_SIZE=`expr $floats + 8`" resum
  refused "300 types: type 299's header edited to 298" "$T/wide.pdmp" wide \
    "is a \`wide-vec' in the index but its header says type 298" \
    "s1@$wide_at/4=298" resum
fi
# ------------------------------------------------------------------
# The fields of `bad' (toyheap.h): header, a, b, p, bytes, bytes_length,
# fn, a word each in a 64-bit build.  fn is the image's one code
# pointer: RELOC_CODE's only entry names its HOT word.  A table's words
# index and index_size (the 4th and 5th) are reported by no trace and
# read by none.

if [ "$WORD_SIZE" -ne 8 ]; then
  begin "the fields of toyhost's object bad"
  skip "the field offsets are those of a 64-bit build"
  finish
fi
hot=`section_at "$T/fields.pdmp" 1 8`
reloc_image=`section_at "$T/fields.pdmp" 3 8`
fn=`u32 "$T/fields.pdmp" \`section_at "$T/fields.pdmp" 9 8\``
a=`expr $fn - 5`
p=`expr $fn - 3`
bytes=`expr $fn - 2`
length=`expr $fn - 1`
table=`index "$T/fields.pdmp" | awk '$2 == 2 { print $6 / 8; exit }'`
table_index=`expr $table + 3`
table_size=`expr $table + 4`
# value WORD: the HOT word's value; at WORD: its patch-image address.
value () {
  u64 "$T/fields.pdmp" `expr $hot + $1 \* 8`
}
at () {
  echo "s1@`expr $1 \* 8`/8"
}
# reloc_bit WORD on|off: the edits that put WORD in RELOC_IMAGE or take
# it out.
reloc_bit () {
  _byte=`expr $1 / 8`
  _old=`u8 "$T/fields.pdmp" \`expr $reloc_image + $_byte\``
  if [ $2 = on ]; then
    echo "s3@$_byte/1=$((_old | (1 << ($1 % 8))))" "s3.count+=1"
  else
    echo "s3@$_byte/1=$((_old & ~(1 << ($1 % 8))))" "s3.count-=1"
  fi
}

begin "the image of --bad fields loads with verify=structure"
_out=`DUMPER_PDUMP_VERIFY=structure "$TOY" --bad fields --dump-file="$T/fields.pdmp" 2>&1`
case "$? $_out" in
  "0 "*digest=*) pass ;;
  *) fail "$_out" ;;
esac

refused "verify=structure: a trace reporting the word before its object" \
  "$T/fields.pdmp" field-before \
  "the trace function reported a field at +-8, outside the 56-byte object" resum
refused "verify=structure: a trace reporting a field twice" \
  "$T/fields.pdmp" twice-word \
  "(\`bad' at offset 0x`printf %x $((hot + (fn - 6) * 8))`), field +8 = 0x0: the trace function reported this field twice" resum

refused "verify=structure: a raw pointer taken out of RELOC_IMAGE" \
  "$T/fields.pdmp" fields \
  "field +24 = 0x`printf %x \`value $p\``: a raw pointer that is not relocated" \
  `reloc_bit $p off` resum
refused "verify=structure: a byte block pointer to a box" \
  "$T/fields.pdmp" fields \
  "field +32 = 0x* (image offset): not the start of a byte block" \
  "`at $bytes`=`value $p`" resum
refused "verify=structure: a byte block of 1000000 bytes" \
  "$T/fields.pdmp" fields \
  "field +32 = 0x* (image offset): a block of 1000000 bytes does not fit in byte block" \
  "`at $length`=1000000" resum
refused "verify=structure: a data field in RELOC_CODE" \
  "$T/fields.pdmp" fields \
  "field +8 = 0x*: a data field is listed in RELOC_CODE" \
  "`at $a`=`value $fn`" "`at $fn`=0" "s9@0/4=$a" resum
# RELOC_CODE's entry moved to the table's index (which then holds fn's
# declaration index): fn, a code pointer, is reported first.
refused "verify=structure: a code pointer in RELOC_IMAGE, not RELOC_CODE" \
  "$T/fields.pdmp" fields \
  "field +48 = 0x* (image offset): a code pointer field is listed as an image or executable relocation, not in RELOC_CODE" \
  "`at $fn`=`value $p`" `reloc_bit $fn on` \
  "`at $table_index`=`value $fn`" "s9@0/4=$table_index" resum
refused "verify=structure: a relocated word no trace reports" \
  "$T/fields.pdmp" fields \
  "HOT word at offset 0x`printf %x $((hot + table_size * 8))`*is relocated but no trace function reports it as a pointer field" \
  "`at $table_size`=`value $p`" `reloc_bit $table_size on` resum

finish
