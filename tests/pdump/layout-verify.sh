#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/layout-verify.sh: structural verification of objects whose
# type has a layout (heap.h, struct dumper_layout; pdump/verify-structure.c,
# check_layout_object), with dlisp, whose conses, symbols, vectors,
# closures and macros have one.  The pass checks them from the layout
# without calling the size and trace functions, so each check of that
# path gets an image only it refuses: dlisp's own image, one field of
# one object edited (tests/pdump/patch-image, every checksum
# recomputed), loaded with verify=structure, status 86 and that check's
# message:
#
#   - a cons whose header says symbol (the layout's header check);
#   - a vector one element longer than the index says, and one whose
#     count's size wraps (the layout's size);
#   - a cons's car: an immediate left in RELOC_IMAGE, a pointer taken
#     out of it (at a random base, and at the preferred base, where it
#     holds the right address all the same), a pointer 8 bytes into its
#     target, the cons tag turned
#     into the symbol tag (the target's type);
#   - a vector's element (the tail words) with the wrong tag;
#   - a symbol's function cell pointing into the executable, moved 8
#     bytes into its builtin (an executable relocation in a layout word).
#
# and the unedited image loads with the heap a load without the pass
# gives.

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "structural verification of layout types"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

DLISP=$BUILDDIR/host/dlisp
PATCH=$BUILDDIR/tests/pdump/patch-image
IMG=$T/dlisp.pdmp
cp "$BUILDDIR/host/dlisp.pdmp" "$IMG" || exit 1

. "$SRCDIR/tests/pdump/imagelib.sh"

W=$WORD_SIZE
hot=`section_at "$IMG" 1 8`
reloc_image=`section_at "$IMG" 3 8`
index "$IMG" > "$T/index"
hot_count=`section_at "$IMG" 8 24`
head -n "$hot_count" "$T/index" > "$T/hot"

# word AT: the word at HOT offset AT, decimal.
word () {
  if [ "$W" -eq 8 ]; then u64 "$IMG" `expr $hot + $1`; else u32 "$IMG" `expr $hot + $1`; fi
}
# relocated AT: whether the word at HOT offset AT is in RELOC_IMAGE.
relocated () {
  _w=`expr $1 / $W`
  _b=`u8 "$IMG" \`expr $reloc_image + $_w / 8\``
  [ $(( (_b >> (_w % 8)) & 1 )) -eq 1 ]
}
# reloc_off AT: the edits that take the word at HOT offset AT out of
# RELOC_IMAGE.
reloc_off () {
  _w=`expr $1 / $W`
  _old=`u8 "$IMG" \`expr $reloc_image + $_w / 8\``
  echo "s3@`expr $_w / 8`/1=$((_old & ~(1 << (_w % 8))))" "s3.count-=1"
}

# refused NAME WORDS EDIT...: the image with the EDITs is refused with
# verify=structure, status 86, the message matching WORDS (a shell
# pattern).
refused () {
  _name=$1 _words=$2
  shift 2
  begin "$_name"
  if ! "$PATCH" "$IMG" "$T/m.pdmp" "$@" resum; then
    fail "patch-image $*"
    return
  fi
  _out=`DUMPER_PDUMP_BASE=${BASE:-random} DUMPER_PDUMP_VERIFY=structure "$DLISP" --dump-file="$T/m.pdmp" --batch --eval t 2>&1`
  judge_refusal $? "$_out" "$_words"
}

begin "the image loads with verify=structure, the heap as without the pass"
want=`DUMPER_PDUMP_VERIFY=none "$DLISP" --dump-file="$IMG" --heap-digest 2>&1`
got=`DUMPER_PDUMP_VERIFY=structure "$DLISP" --dump-file="$IMG" --heap-digest 2>&1`
if [ $? -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then pass; else fail "want '$want', got '$got'"; fi

# The pass's figures: the index's part is measured, and a part of it.
begin "--load-stats: pdump-structure-index-seconds is a part of pdump-structure-seconds"
stats=`DUMPER_PDUMP_BASE=random DUMPER_PDUMP_VERIFY=structure "$DLISP" --dump-file="$IMG" --load-stats 2>&1`
pass=`echo "$stats" | sed -n 's/^pdump-structure-seconds: //p'`
index=`echo "$stats" | sed -n 's/^pdump-structure-index-seconds: //p'`
if [ -n "$pass" ] && [ -n "$index" ] \
   && awk -v p="$pass" -v i="$index" 'BEGIN { exit !(i > 0 && i < p) }'
then pass
else fail "structure $pass s, index $index s"; fi

# find_cons KIND [LIMIT]: "OFFSET CAR" (HOT offsets) of the first cons
# (type 0) whose car is relocated with the cons tag (1) (KIND pointer),
# or not relocated (KIND immediate), and lies below HOT word LIMIT.
find_cons () {
  while read _to _type _so _size _sb _at; do
    [ "$_type" -eq 0 ] || continue
    _car=`expr $_at + 8`
    [ -z "$2" ] || [ `expr $_car / $W` -lt "$2" ] || return
    if [ "$1" = pointer ]; then
      relocated $_car && [ $(( `word $_car` % 8 )) -eq 1 ] || continue
    elif relocated $_car; then
      continue
    fi
    echo $_at $_car
    return
  done < "$T/hot"
}
# found NAME VALUE: a test that VALUE (what a search of the image found)
# is not empty; the script ends when it is.
found () {
  begin "$1"
  if [ -z "$2" ]; then fail "none in the image"; finish; fi
  pass
}

set -- `find_cons pointer`
cons=$1 car=$2
found "a cons whose car points to a cons" "$cons"
carv=`word $car`
cons_hex=`printf %x $((hot + cons))`
size=`expr 8 + 2 \* $W`

refused "layout: a cons whose header says symbol" \
  "(\`cons' at offset 0x$cons_hex): the index says $size bytes, its contents say 0 (the type's layout finds it malformed: its header is not its type's)" \
  "s1@$cons/4=1"
refused "layout: an immediate left in RELOC_IMAGE" \
  "(\`cons' at offset 0x$cons_hex), field +8 = 0x*: an immediate (tag 0) is listed for relocation" \
  "s1@$car/$W=`expr $carv - 1`"
refused "layout: a pointer taken out of RELOC_IMAGE" \
  "(\`cons' at offset 0x$cons_hex), field +8 = 0x`printf %x $carv`: pointer tag 1 but the word is not relocated" \
  `reloc_off $car`
# At the preferred base (base mode fixed) the word left unrelocated
# holds the right address all the same: only the relocation bit tells
# that it would not at any other base.  (Where the preferred base is
# taken, as by the sanitizers' shadow memory, the image falls back to a
# random base and the value is no image address: no "(image offset)".)
BASE=fixed
refused "layout: a pointer taken out of RELOC_IMAGE, base fixed" \
  "(\`cons' at offset 0x$cons_hex), field +8 = 0x*: pointer tag 1 but the word is not relocated" \
  `reloc_off $car`
BASE=
refused "layout: a pointer 8 bytes into its target" \
  "(\`cons' at offset 0x$cons_hex), field +8 = 0x* (image offset): points inside an object or between objects, not at the start of one" \
  "s1@$car/$W=`expr $carv + 8`"
refused "layout: a cons pointer with the symbol tag" \
  "(\`cons' at offset 0x$cons_hex), field +8 = 0x* (image offset): points to object *, a \`cons', where the field says \`symbol'" \
  "s1@$car/$W=`expr $carv + 1`"

# A vector (type 4) with at least one element, and an element of it
# relocated with the cons tag.
vec= item=
while read _to _type _so _size _sb _at; do
  [ "$_type" -eq 4 ] && [ "$_size" -gt 16 ] || continue
  _i=`expr $_at + 16`
  _end=`expr $_at + $_size`
  while [ $_i -lt $_end ] && [ $_i -lt `expr $_at + 16 + 64 \* $W` ]; do
    if relocated $_i && [ $(( `word $_i` % 8 )) -eq 1 ]; then
      vec=$_at vsize=$_size item=$_i
      break
    fi
    _i=`expr $_i + $W`
  done
  [ -n "$item" ] && break
done < "$T/hot"
found "a vector holding a cons" "$vec"
vec_hex=`printf %x $((hot + vec))`
count=`u64 "$IMG" \`expr $hot + $vec + 8\``

refused "layout: a vector one element longer than the index says" \
  "(\`vector' at offset 0x$vec_hex): the index says $vsize bytes, its contents say `expr $vsize + $W`" \
  "s1@`expr $vec + 8`/8=`expr $count + 1`"
refused "layout: a vector whose count's size wraps" \
  "(\`vector' at offset 0x$vec_hex): the index says $vsize bytes, its contents say 0 (the type's layout finds it malformed: its count's size would wrap)" \
  "s1@`expr $vec + 8`/8=2305843009213693952"
# The edge of the wrap: the largest count whose size does not wrap
# (SIZE_MAX - 16) / W gives a size the index does not have; one more
# wraps.
if [ "$W" -eq 8 ]; then
  last=2305843009213693949 last_size=18446744073709551608
else
  last=1073741819 last_size=4294967292
fi
refused "layout: a vector of the largest count whose size does not wrap" \
  "(\`vector' at offset 0x$vec_hex): the index says $vsize bytes, its contents say $last_size" \
  "s1@`expr $vec + 8`/8=$last"
refused "layout: a vector of one element more: its size wraps" \
  "(\`vector' at offset 0x$vec_hex): the index says $vsize bytes, its contents say 0 (the type's layout finds it malformed: its count's size would wrap)" \
  "s1@`expr $vec + 8`/8=`expr $last + 1`"
refused "layout: a vector element with the symbol tag on a cons" \
  "(\`vector' at offset 0x$vec_hex), field +`expr $item - $vec` = 0x* (image offset): points to object *, a \`cons', where the field says \`symbol'" \
  "s1@$item/$W=`expr \`word $item\` + 1`"

# The first RELOC_EXE entry: a builtin (tag 6) in a symbol's function
# cell.
exe=`u32 "$IMG" \`section_at "$IMG" 4 8\``
exe_at=`expr $exe \* $W`
owner=`awk -v a=$exe_at '$6 <= a && a < $6 + $4 { print $2, $6; exit }' "$T/hot"`
begin "the first executable relocation lies in a symbol"
case $owner in
  "1 "*) pass ;;
  *) fail "it lies in an object of type '$owner'"; finish ;;
esac
sym_hex=`printf %x $((hot + ${owner#1 }))`
refused "layout: a builtin reference 8 bytes into its builtin" \
  "(\`symbol' at offset 0x$sym_hex), field +`expr $exe_at - ${owner#1 }` = 0x*: points 8 bytes into element" \
  "s1@$exe_at/$W=`expr \`word $exe_at\` + 8`"

# A data field listed in RELOC_CODE: the first code pointer (a hash
# table's hash function) moved into the car of a cons holding an
# immediate, RELOC_CODE's first entry naming that car instead (the
# loader stores the function there), the hash function left NULL.  Its
# word is no image relocation, and an immediate's tag may be what the
# function's address has: only the layout path's check of RELOC_CODE
# refuses it.
code=`section_at "$IMG" 9 8`
fn=`u32 "$IMG" $code`
fn_at=`expr $fn \* $W`
next=`u32 "$IMG" \`expr $code + 4\``
set -- `find_cons immediate $next`
dcons=$1 data=$2
found "a cons holding an immediate before RELOC_CODE's second entry" "$data"
refused "layout: a data field listed in RELOC_CODE" \
  "(\`cons' at offset 0x`printf %x $((hot + dcons))`), field +8 = 0x*: a data field is listed in RELOC_CODE" \
  "s1@$data/$W=`word $fn_at`" "s1@$fn_at/$W=0" "s9@0/4=`expr $data / $W`"

finish
