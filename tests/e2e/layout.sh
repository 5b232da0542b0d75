#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/layout.sh: type layouts (heap.h, struct dumper_layout) at
# dump time (issue 33, item 2).
#
# toyhost gives layouts to pair and vec (tests/pdump/toyheap.h); with
# --bad layout-*, also to `bad', whose trace then reports its words a
# and b (toyhost.c, set_bad_layout).  In pdumper and unexec builds alike:
#   - the pre-dump check (bridge/refcheck.c) refuses a layout that
#     disagrees with the size or trace function, 91 naming the type, the
#     object and the word, and no file is left: a traced word the layout
#     lacks (below its fixed size, or a tail word of a layout without
#     element_words), a layout word not traced (below the fixed size, or
#     a tail word), a layout word traced with dumper_trace_ptr, a field
#     traced with dumper_trace_bytes, _code, _sized or _interior, a
#     fixed size a word short or long, the count read at the wrong
#     offset, a count whose size wraps, a header value not the type's;
#   - a right layout dumps, and a start from the dump has the cold
#     start's digest (toyhost's own layouts, bad's, a vec of 100 words);
#   - a word missing from the trace past the first 64 of an object.
# pdumper only: the image is the same bytes with and without layouts
# (--no-layouts), and a start from it has the cold digest with
# verify=none and verify=structure.  (An unexec image holds toyhost's
# static data, which --no-layouts changes.)

. "$SRCDIR/tests/e2e/lib.sh"

TOY=$BUILDDIR/tests/pdump/toyhost

dump_option "layout tests"

# struct bad (tests/pdump/toyheap.h): an 8-byte header (type at +0,
# length at +4), then words a, b, pointers p and bytes, a uint64_t
# length and fn; SIZE is sizeof (struct bad), T_BAD is 5.
W=${WORD_SIZE:-8}
AT_A=8 AT_B=$((8 + W)) AT_P=$((8 + 2 * W)) AT_BYTES=$((8 + 3 * W))
AT_FN=$((16 + 4 * W)) AT_LENGTH=$((8 + 4 * W))
SIZE=$((AT_FN + W))

REFUSING=$TOY
# Every message says what it is about and what the rule is.
RULE="the type's layout must say what its size and trace functions say"

refused layout-missing 91 "type \`bad' at 0x" "field at +$AT_B:" \
  "its trace reported this tagged word, but its layout does not name it" \
  "$RULE"
refused layout-extra 91 "type \`bad' at 0x" "field at +$AT_P:" \
  "its layout names this tagged word, but its trace did not report it" \
  "$RULE"
refused layout-ptr 91 "type \`bad' at 0x" "field at +$AT_B:" \
  "reported this field with dumper_trace_ptr" \
  "a type with a layout has only tagged words" "$RULE"
refused layout-tail-missing 91 "type \`bad' at 0x" "field at +$AT_FN:" \
  "its layout names this tagged word, but its trace did not report it"
# Item 90 of a 100-word vec: past the first 64 words of the object.
refused layout-big-missing 91 "type \`vec' at 0x" "field at +$((8 + 90 * W)):" \
  "its layout names this tagged word, but its trace did not report it"
refused layout-vec-tail 91 "type \`vec' at 0x" "field at +8:" \
  "its trace reported this tagged word, but its layout does not name it"
for kind in bytes:$AT_BYTES code:$AT_FN sized:$AT_P interior:$AT_P; do
  refused layout-${kind%:*} 91 "type \`bad' at 0x" "field at +${kind#*:}:" \
    "reported this field with dumper_trace_${kind%:*}" \
    "a type with a layout has only tagged words" "$RULE"
done
refused layout-fixed-small 91 "type \`bad' at 0x" \
  "its size function gives $SIZE bytes, its layout $((SIZE - W)) (fixed $((SIZE - W)) + count 0 (the field at +4) * element $W)" \
  "$RULE"
refused layout-fixed-big 91 "type \`bad' at 0x" \
  "its size function gives $SIZE bytes, less than its layout's fixed size ($((SIZE + W)))" \
  "$RULE"
refused layout-count 91 "type \`bad' at 0x" \
  "its size function gives $SIZE bytes, its layout $((SIZE + 5 * W)) (fixed $SIZE + count 5 (the field at +0) * element $W)" \
  "$RULE"
refused layout-wrap 91 "type \`bad' at 0x" "field at +$AT_LENGTH:" \
  "its count field holds 18446744073709551615, which with its layout's $W-byte elements makes a size that wraps" \
  "$RULE"
refused layout-header 91 "type \`bad' at 0x" "field at +0:" \
  "its 4-byte header field holds 5, its layout's header_value is 6" "$RULE"

# digest ARGS...: the digest a run of toyhost prints.
digest () {
  "$TOY" "$@" 2>&1 | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'
}

# dumps_and_starts NAME ARGS...: toyhost ARGS dumps, and a start from
# the dump has the cold start's digest (pdumper: in both verify modes).
dumps_and_starts () {
  _name=$1
  shift
  _cold=`digest "$@"`
  begin "$_name: dumped ($BACKEND)"
  rm -f "$T/img"
  if "$TOY" "$@" $DUMP --output "$T/img" > "$T/dump.out" 2>&1 \
     && [ -n "$_cold" ]; then
    pass
  else
    fail "status $?, cold digest '$_cold': `cat "$T/dump.out"`"
    return
  fi
  if [ $BACKEND = unexec ]; then
    begin "$_name: the dumped executable has the cold digest"
    _d=`"$T/img" "$@" 2>&1 | sed -n 's/.*origin=1 .*digest=\([0-9a-f]*\).*/\1/p'`
    if [ "$_d" = "$_cold" ]; then pass; else fail "digest '$_d', cold $_cold"; fi
    return
  fi
  for _verify in none structure; do
    begin "$_name: a start with verify=$_verify has the cold digest"
    _d=`DUMPER_PDUMP_VERIFY=$_verify "$TOY" "$@" --dump-file="$T/img" 2>&1 \
        | sed -n 's/.*origin=2 .*digest=\([0-9a-f]*\).*/\1/p'`
    if [ "$_d" = "$_cold" ]; then pass; else fail "digest '$_d', cold $_cold"; fi
  done
}

dumps_and_starts "toyhost's layouts (pair, vec)"
dumps_and_starts "a right layout for bad" --bad layout-ok
dumps_and_starts "a vec of 100 words" --bad layout-big
dumps_and_starts "toyhost at scale 4" --scale 4

if [ $BACKEND = pdumper ]; then
  for args in "" "--scale 4" "--bad layout-ok" "--bad layout-big"; do
    begin "the image is the same bytes without layouts ($args)"
    rm -f "$T/with" "$T/without"
    if "$TOY" $args $DUMP --output "$T/with" > "$T/dump.out" 2>&1 \
       && "$TOY" $args --no-layouts $DUMP --output "$T/without" \
            >> "$T/dump.out" 2>&1; then
      if cmp "$T/with" "$T/without" > "$T/cmp.out" 2>&1; then pass
      else fail "`cat "$T/cmp.out"`"; fi
    else
      fail "a dump failed: `cat "$T/dump.out"`"
    fi
  done
fi

finish
