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
#   - RELOC_IMAGE claiming more relocations than HOT has words, RELOC_CODE
#     a count its size does not hold;
#   - a frame size below the minimum, a header_size other than the
#     header's, a page size below 4096 (pdump_check_header);
#   - a file of 135 bytes (one short of a header) and one that holds the
#     header but not the section table: truncated (81), each with its
#     own message;
# and, with every section checksum recomputed too (`resum'), what only
# the registry and relocation checks catch (check.c):
#   - a SCALAR record a word shorter than its declaration; a word record
#     whose value is an executable offset far past the executable, or
#     an image offset one past the objects' end and the largest tag;
#   - a HOT word in RELOC_EXE and RELOC_IMAGE, one in RELOC_CODE and
#     RELOC_EXE; RELOC_CODE's first two entries swapped; a code
#     pointer naming a static's declaration, or the declaration one past
#     the table (dlisp's image: toyhost's has no code pointers); a
#     remembered pointer whose declared type the image has no entry for;
# and with DUMPER_PDUMP_VERIFY=structure (verify-structure.c): a tagged pointer
# taken out of RELOC_IMAGE, one byte after the last entry of the object
# index, another tag width, a damaged object index, OBJECTS and HOT
# disagreeing on the hot objects; HOT counting more objects than the
# header's total (in the default mode: the header check's own bound).  Then: a directory, or an executable
# without an embedded image, as the image (80, load.c); a second load
# in one process (toyhost --load-again: DUMPER_E_STATE, load.c); a compressed
# frame of 0 or 4 GiB stored bytes (codec.c); a file as XDG_RUNTIME_DIR
# in base mode boot (bootcache.c); a dump under a file-size limit
# (write.c: 74, the write's own error) or onto a directory (73, the
# rename's, no temporary file left).

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "lying headers"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

TOY=$BUILDDIR/tests/pdump/toyhost
DLISP=$BUILDDIR/host/dlisp
PATCH=$BUILDDIR/tests/pdump/patch-image

"$TOY" --temacs=pdump --output "$T/plain.pdmp" > /dev/null || exit 1
"$TOY" --temacs=pdump --compress=lz4 --output "$T/lz4.pdmp" > /dev/null || exit 1
cp "$BUILDDIR/host/dlisp.pdmp" "$T/dlisp.pdmp" || exit 1

. "$SRCDIR/tests/pdump/imagelib.sh"

# The loader: toyhost, or dlisp for dlisp's image.
load () {
  case $1 in
    *dlisp*) "$DLISP" --dump-file="$T/m.pdmp" --batch --eval t ;;
    *) env ${VERIFY:+DUMPER_PDUMP_VERIFY=$VERIFY} "$TOY" --dump-file="$T/m.pdmp" ;;
  esac
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
  _out=`load "$_image" 2>&1`
  judge_refusal $? "$_out" "$_words"
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
refused "RELOC_CODE count one more than its size holds" "$T/plain.pdmp" \
  "RELOC_CODE size and count disagree" s9.count+=1
refused "compressed: a frame size of 32 KiB, below the minimum" "$T/lz4.pdmp" \
  "frame size 32768 is invalid" h88=32768
refused "header_size one more than the header" "$T/plain.pdmp" \
  "layout fields are invalid" h12/4=137
refused "a page size of 2048" "$T/plain.pdmp" \
  "layout fields are invalid" h32=2048

# truncated NAME BYTES WORDS UNWANTED: the first BYTES of the image are
# refused with 81, the message holds WORDS and not UNWANTED.
truncated () {
  begin "$1"
  head -c "$2" "$T/plain.pdmp" > "$T/short.pdmp"
  _out=`"$TOY" --dump-file="$T/short.pdmp" 2>&1`
  _st=$?
  if [ "$_st" -ne 81 ]; then
    fail "status $_st, want 81: $_out"
    return
  fi
  case $_out in
    *"$4"*) fail "message says '$4': $_out" ;;
    *"$3"*) pass ;;
    *) fail "message lacks '$3': $_out" ;;
  esac
}
truncated "a file one byte short of a header" 135 \
  "shorter than an image header" "section table"
truncated "a file with the header but not the section table" 300 \
  "shorter than an image header and section table" "no-such-text"

# ------------------------------------------------------------------
# Registry records and relocation tables, every checksum recomputed.

# record_of IMAGE AWK-CONDITION: the number of the first registry record
# ($2 kind, $3 value_kind) that satisfies it.
record_of () {
  "$PATCH" --records "$1" | awk "$2"' { print $1; exit }'
}
scalar=`record_of "$T/plain.pdmp" '$2 == 4'`
word=`record_of "$T/plain.pdmp" '($2 == 1 || $2 == 2) && $3 == 2'`
refused "a SCALAR record one word shorter than its declaration" "$T/plain.pdmp" \
  "does not match declaration" "r$scalar.size-=$WORD_SIZE" resum
refused "a word record naming an executable offset far past the executable" \
  "$T/plain.pdmp" "is invalid for this executable" \
  "r$word.value_kind=3" "r$word.value=0x10000000000" resum
objects_end=`expr \`section_at "$T/plain.pdmp" 2 8\` + \`section_at "$T/plain.pdmp" 2 16\``
refused "a word record's image value one past the objects and the largest tag" \
  "$T/plain.pdmp" "is invalid for this executable" \
  "r$word.value=`expr $objects_end + 16`" resum

# into_exe IMAGE WORD: the patch-image edits that put HOT word WORD in
# RELOC_EXE (section 4) in place of an entry, the list still sorted;
# nothing when no entry can make room.
into_exe () {
  od -An -v -t u4 -j `section_at "$1" 4 8` -N `section_at "$1" 4 16` "$1" |
    tr -s ' ' '\n' | grep . |
    awk -v w="$2" '{ e[NR - 1] = $1 } END {
      for (i = 0; i < NR; i++)
        if ((i == 0 || e[i - 1] < w) && (i == NR - 1 || w < e[i + 1])) {
          printf "s4@%d/4=%d\n", i * 4, w; exit
        } }'
}
# A word in RELOC_IMAGE and RELOC_EXE: its value must be an image
# address and an executable offset, which an image dumped for base 0
# has (a small image offset); elsewhere the range checks refuse it first.
"$TOY" --temacs=pdump --image-base=0 --output "$T/base0.pdmp" > /dev/null || exit 1
image_word=`od -An -v -t u1 -j \`section_at "$T/base0.pdmp" 3 8\` -N 64 "$T/base0.pdmp" |
  tr -s ' ' '\n' | grep . |
  awk '$1 > 0 { for (b = 0; b < 8; b++) if (int($1 / 2 ^ b) % 2) { print (NR - 1) * 8 + b; exit } }'`
refused "a HOT word in RELOC_IMAGE and in RELOC_EXE" "$T/base0.pdmp" \
  "in both relocation tables" `into_exe "$T/base0.pdmp" $image_word` resum

code=`section_at "$T/dlisp.pdmp" 9 8`
code0=`u32 "$T/dlisp.pdmp" $code`
code1=`u32 "$T/dlisp.pdmp" \`expr $code + 4\``
refused "RELOC_CODE's first two entries swapped" "$T/dlisp.pdmp" \
  "is out of order" "s9@0/4=$code1" "s9@4/4=$code0" resum
refused "a HOT word in RELOC_CODE and in RELOC_EXE" "$T/dlisp.pdmp" \
  "is in RELOC_CODE and another relocation table" \
  `into_exe "$T/dlisp.pdmp" $code0` resum
static_decl=`"$PATCH" --records "$T/dlisp.pdmp" | awk '$2 != 5 { print $4; exit }'`
code_at=`expr $code0 \* $WORD_SIZE`
refused "a code pointer naming a static's declaration" "$T/dlisp.pdmp" \
  "not a declared code target" "s1@$code_at/$WORD_SIZE=$static_decl" resum
# first_bit IMAGE KIND: the first word whose bit is set in bitmap
# section KIND (3: RELOC_IMAGE).
first_bit () {
  od -An -v -t u1 -j `section_at "$1" $2 8` -N 64 "$1" | tr -s ' ' '\n' | grep . |
    awk '$1 > 0 { for (b = 0; b < 8; b++) if (int($1 / 2 ^ b) % 2) { print (NR - 1) * 8 + b; exit } }'
}
# clear_bit IMAGE WORD: the edits that take WORD out of RELOC_IMAGE.
clear_bit () {
  _byte=`expr $2 / 8`
  _old=`u8 "$1" \`expr \\\`section_at "$1" 3 8\\\` + $_byte\``
  echo "s3@$_byte/1=$((_old & ~(1 << ($2 % 8))))" "s3.count-=1"
}

# The table's size, from the message about an index far beyond it.
"$PATCH" "$T/dlisp.pdmp" "$T/m.pdmp" "s1@$code_at/$WORD_SIZE=100000" resum
decl_count=`load "$T/dlisp.pdmp" 2>&1 | sed -n 's/.*the executable declares \([0-9]*\) entries.*/\1/p'`
refused "a code pointer naming the declaration one past the table" \
  "$T/dlisp.pdmp" "not a declared code target" \
  "s1@$code_at/$WORD_SIZE=${decl_count:-0}" resum

# An image of 3 types (the header's count and TYPES' lowered together)
# for a host whose remembered pointer first_box is declared with type 3
# (T_BOX): the registry check's type bound refuses the record.  (A
# default-mode load checks nothing else against the type count.)
refused "a remembered pointer's declared type past the image's types" "$T/plain.pdmp" \
  "names pointer first_box of type 3; the image has 3 types" h72/4=3 s7.count=3

# ------------------------------------------------------------------
# Structural verification (verify-structure.c).

VERIFY=structure
refused "verify=structure: an image of 2 tag bits for a host of 3" "$T/plain.pdmp" \
  "and 2 tag bits; this executable has" h76/4=2
refused "verify=structure: a damaged object index" "$T/plain.pdmp" \
  "checksum mismatch in section OBJECTS" \
  "s8@0/1=$((`u8 "$T/plain.pdmp" \`section_at "$T/plain.pdmp" 8 8\`` ^ 1))"
# (and the header one object more, so that the cold count still agrees)
refused "verify=structure: OBJECTS counting one hot object more than HOT" \
  "$T/plain.pdmp" "object counts disagree" s8.count+=1 h64+=1 resum
VERIFY=
# HOT counting one object more than the header's total, OBJECTS agreeing
# with HOT and COLD's count the total minus HOT's wrapped (2^64 - 1): the
# rest of the counts check holds, so only its HOT bound refuses it.
objects=`u64 "$T/plain.pdmp" 64`
refused "HOT counting one object more than the image has" "$T/plain.pdmp" \
  "object counts disagree: $objects objects, $((objects + 1)) in HOT, 18446744073709551615 in COLD, $((objects + 1)) indexed in HOT" \
  "s1.count=$((objects + 1))" "s8.count=$((objects + 1))" \
  s2.count=18446744073709551615 resum
VERIFY=structure
tagged=`first_bit "$T/plain.pdmp" 3`
refused "verify=structure: a tagged pointer taken out of RELOC_IMAGE" \
  "$T/plain.pdmp" "but the word is not relocated" \
  `clear_bit "$T/plain.pdmp" $tagged` resum

# One byte more in OBJECTS (the object index), RELOC_CODE after it
# moved to the next 8-byte boundary, the file grown to match.
objects_end=`expr \`section_at "$T/plain.pdmp" 8 8\` + \`section_at "$T/plain.pdmp" 8 16\` + 1`
code_at=`expr \( $objects_end + 7 \) / 8 \* 8`
grow=`expr $code_at - \`section_at "$T/plain.pdmp" 9 8\``
cp "$T/plain.pdmp" "$T/grown.pdmp"
head -c "$grow" /dev/zero >> "$T/grown.pdmp"
refused "verify=structure: a byte after the object index's last entry" \
  "$T/grown.pdmp" "bytes after the last object" s8.size+=1 s8.stored_size+=1 \
  "s9.offset=$code_at" "s9.stored_offset=$code_at" "h24+=$grow" "h80+=$grow" resum
VERIFY=

# ------------------------------------------------------------------
# Other files.

# outcome NAME STATUS WORDS COMMAND...: COMMAND exits STATUS and its
# output holds WORDS.
outcome () {
  begin "$1"
  _want=$2 _words=$3
  shift 3
  _out=`"$@" 2>&1`
  _st=$?
  case "$_st $_out" in
    "$_want "*"$_words"*) pass ;;
    *) fail "status $_st (want $_want): $_out" ;;
  esac
}
outcome "a directory as the image: not found (80), not a read error" \
  80 "not a regular file" "$TOY" --dump-file="$T"
outcome "an executable without an embedded image as the image: not found (80)" \
  80 "no embedded image" "$TOY" --dump-file="$BUILDDIR/tests/pdump/patch-image"

# frame_size BYTES: the lz4 image with HOT's first frame table entry (4
# bytes: BYTES as printf octal escapes) changed, in $T/m.pdmp.
frame_size () {
  cp "$T/lz4.pdmp" "$T/m.pdmp"
  printf "$1" | dd of="$T/m.pdmp" bs=1 \
    seek=`section_at "$T/lz4.pdmp" 1 40` conv=notrunc 2> /dev/null
}
frame_size '\000\000\000\000'
outcome "compressed: a frame of 0 stored bytes" 86 \
  "frame 0 has an invalid stored size of 0 bytes" "$TOY" --dump-file="$T/m.pdmp"
frame_size '\377\377\377\377'
outcome "compressed: a frame of 4 GiB stored bytes" 86 \
  "frame 0 has an invalid stored size of 4294967295 bytes" "$TOY" --dump-file="$T/m.pdmp"

# The limit halfway between HOT's end and the file's: the walk writes
# HOT into the file as it goes and succeeds, the layout written after
# it (COLD and the tables) crosses the limit.  (ulimit -f counts 512-byte
# blocks in sh.)
hot_end=`expr \`section_at "$T/plain.pdmp" 1 8\` + \`section_at "$T/plain.pdmp" 1 16\``
limit=`expr \( $hot_end + \`wc -c < "$T/plain.pdmp"\` \) / 2 / 512`
begin "a dump whose layout crosses a file-size limit: an I/O error (74), not the self-check's 86"
_out=`ulimit -f $limit; "$TOY" --temacs=pdump --output "$T/limited.pdmp" 2>&1`
_st=$?
case "$_st $_out" in
  "74 "*"cannot write the image"*) [ ! -e "$T/limited.pdmp" ] && pass || fail "the image exists" ;;
  *) fail "status $_st: $_out" ;;
esac

begin "a dump onto a directory: 73, the rename's error, no temporary file left"
mkdir "$T/outdir"
_out=`"$TOY" --temacs=pdump --output "$T/outdir" 2>&1`
_st=$?
case "$_st $_out" in
  "73 "*"cannot rename the finished image into place"*)
    ls "$T" | grep -q 'outdir\.' && fail "left: `ls "$T"`" || pass ;;
  *) fail "status $_st: $_out" ;;
esac

begin "base mode boot, XDG_RUNTIME_DIR a file of ours (0600): not used, says it is no directory"
: > "$T/runfile"
chmod 600 "$T/runfile"
# TMPDIR (the other place for the user's directory) refused too, so the
# reason is the one for XDG_RUNTIME_DIR.
mkdir "$T/shared" && chmod 777 "$T/shared"
env XDG_RUNTIME_DIR="$T/runfile" TMPDIR="$T/shared" DUMPER_PDUMP_BASE=boot "$DLISP" \
  --dump-file="$T/dlisp.pdmp" --heap-digest --load-stats > "$T/out" 2> "$T/err"
_st=$?
_why=`sed -n 's/^pdump-placement-reason: //p' "$T/out"`
case "$_st $_why" in
  "0 "*"runfile is not a directory"*) pass ;;
  *) fail "status $_st, reason: $_why" ;;
esac

# load.c: the loader called again in a process that runs from an image
# is refused before it opens anything (a missing file, so a loader that
# went on would say "cannot open the image"); with no image loaded the
# same call gets that far.
outcome "a second load in one process: refused, an image is already loaded" 3 \
  "load again: call made in the wrong state: $T/absent.pdmp: an image is already loaded" \
  "$TOY" --dump-file="$T/plain.pdmp" --load-again "$T/absent.pdmp"
outcome "the same call from a cold start opens the file" 3 \
  "load again: image file not found: $T/absent.pdmp: cannot open the image" \
  "$TOY" --no-dump-file --load-again "$T/absent.pdmp"

# codec.c: a frame the file ends inside is truncation (81, "the file
# ended"), not an I/O error.  The header check refuses a file shorter
# than it says first, so the file is cut after it is placed (the test
# hook DUMPER_TEST_TRUNCATE_IMAGE, step "map"): the compressed sections
# other than HOT are decompressed by then, HOT's frames are read as it
# is relocated; the cut is 24 bytes into HOT's first frame.
if has_test_hooks; then
  cp "$T/lz4.pdmp" "$T/m.pdmp"
  cut=`expr \`section_at "$T/lz4.pdmp" 1 40\` + 8 + 24`
  outcome "compressed: the file cut inside HOT's first frame while loading: truncated (81), not an I/O error" \
    81 "image file is truncated: $T/m.pdmp: the file ended while reading a frame of section HOT" \
    env DUMPER_TEST_TRUNCATE_IMAGE=$cut "$TOY" --dump-file="$T/m.pdmp"
else
  begin "compressed: the file cut inside HOT's first frame while loading: truncated (81)"
  skip "$NO_HOOKS"
fi

finish
