#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/inspect/views.sh: dumper-inspect on real images (pdumper builds).
#
# Images of the pdump test host at two scales: the counts the inspector
# finds agree with what the writer reported (toyhost --stats) and add up;
# the growth between the scales is what toyhost's code adds; the
# built-in function table is named by symbol; the registry's statics are
# named; --objects, --refs and the chain that keeps an object; --check
# agrees with the loader on every class of damage, and a damaged
# inspection-only table is refused by the views but not by --check (the
# loader ignores it); JSON is valid and the output is the same on every
# run.  Then the same on the reference host's image, when it dumps.

. "$SRCDIR/tests/e2e/lib.sh"

INSPECT=$BUILDDIR/tools/dumper-inspect
TOY=$BUILDDIR/tests/pdump/toyhost
VARIANT=$BUILDDIR/tests/pdump/toyhost-variant

if [ "$BACKEND" != pdumper ]; then
  begin "dumper-inspect on images"
  skip "this build is --with-dumper=$BACKEND: no images"
  finish
fi

# json_ok FILE: 0 valid, 1 invalid, 2 no validator
if command -v jq > /dev/null 2>&1; then
  json_ok () { jq -e . "$1" > /dev/null 2>&1; }
elif command -v python3 > /dev/null 2>&1; then
  json_ok () { python3 -m json.tool "$1" > /dev/null 2>&1; }
else
  json_ok () { return 2; }
fi

# has_lines FILE REGEX...: FILE has a line matching each REGEX (grep);
# the missing ones are listed.
has_lines () {
  _file=$1
  shift
  _ok=0
  for _re in "$@"; do
    grep -q "$_re" "$_file" || { _ok=1; echo "    no line matching $_re"; }
  done
  return $_ok
}

# Figures from the text views.
file_size_of () { sed -n 's/^  file size *\([0-9]*\) bytes.*/\1/p' "$1"; }
typed_of () { sed -n 's/^Objects: [0-9]* (\([0-9]*\) typed.*/\1/p' "$1"; }
objects_of () { sed -n 's/^Objects: \([0-9]*\) (.*/\1/p' "$1"; }
relocs_of () { sed -n "s/^  $2 *\\([0-9]*\\)  HOT words.*/\\1/p" "$1"; }
type_count_of () { awk -v t="$2" '$1 == t && ($2 == "HOT" || $2 == "COLD") { print $3 }' "$1"; }

# ------------------------------------------------------------------
# The test host at scales 1 and 4.

for scale in 1 4; do
  img=$T/s$scale.pdmp
  "$TOY" --scale $scale --temacs=pdump --stats --output "$img" > "$T/stats$scale" 2>&1
  "$INSPECT" "$img" > "$T/sum$scale" 2> "$T/err$scale"
  st=$?

  begin "scale $scale: the summary succeeds"
  if [ $st -eq 0 ] && [ ! -s "$T/err$scale" ]; then pass
  else fail "status $st: `cat "$T/stats$scale" "$T/err$scale"`"; fi

  begin "scale $scale: file size, objects and relocations agree with the writer"
  # "dump: 99776 bytes, 4035 objects, 5039 image relocs, 1004 exe relocs"
  want=`sed -n 's/^dump: \([0-9]*\) bytes, \([0-9]*\) objects, \([0-9]*\) image relocs, \([0-9]*\) exe relocs$/\1 \2 \3 \4/p' "$T/stats$scale"`
  got="`file_size_of "$T/sum$scale"` `typed_of "$T/sum$scale"` `relocs_of "$T/sum$scale" image` `relocs_of "$T/sum$scale" executable`"
  if [ -n "$want" ] && [ "$want" = "$got" ]; then pass
  else fail "writer: '$want', inspector: '$got'"; fi

  begin "scale $scale: per-type objects add up to the total"
  sum=`awk '($2 == "HOT" || $2 == "COLD") && NF == 5 { s += $3 } END { print s }' "$T/sum$scale"`
  total=`objects_of "$T/sum$scale"`
  [ -n "$total" ] && [ "$sum" = "$total" ] && pass || fail "types add to $sum, total $total"

  begin "scale $scale: the section shares add up to 100%"
  pct=`awk '/^Sections/ { on = 1; next } on && /^$/ { on = 0 } on && $NF != "purpose" { for (i = 1; i <= NF; i++) if ($i ~ /%$/) { sub(/%/, "", $i); s += $i } } END { printf "%.0f", s }' "$T/sum$scale"`
  [ "$pct" = 100 ] && pass || fail "shares add to $pct%"

  begin "scale $scale: ten largest objects, largest first"
  sizes=`sed -n '/^Largest objects/,$p' "$T/sum$scale" | awk 'NR > 2 { print $3 }'`
  n=`printf '%s\n' "$sizes" | wc -l`
  if [ "$n" -eq 10 ] && [ "`printf '%s\n' "$sizes" | sort -rn`" = "$sizes" ]; then pass
  else fail "$n rows: $sizes"; fi
done

begin "scale 4 has 3000 more vecs, pairs and floats than scale 1 (toyhost's scaled part)"
ok=yes
for t in vec pair float; do
  a=`type_count_of "$T/sum1" $t`; b=`type_count_of "$T/sum4" $t`
  [ -n "$a" ] && [ -n "$b" ] && [ `expr $b - $a` -eq 3000 ] || { ok=no; echo "    $t: $a -> $b"; }
done
[ $ok = yes ] && pass || fail "growth differs"

# ------------------------------------------------------------------
# --exe: symbols and fingerprint.

"$INSPECT" --exe "$TOY" "$T/s1.pdmp" > "$T/exe1" 2>&1
"$INSPECT" --exe "$TOY" "$T/s4.pdmp" > "$T/exe4" 2>&1

begin "--exe: the fingerprint matches the binary that wrote the image"
grep -q "^  executable   $TOY: [0-9a-f]* (dumper note), matches the image" "$T/exe1" \
  && pass || fail "`sed -n 5p "$T/exe1"`"

begin "--exe: references to the built-in table are named by symbol and entry"
# toyhost: vec item 2 of scaled entry s is builtins[s % 4] (tag 4), the
# world vector's item 4 is builtins[1], three boxes point at builtins 0,
# 2 and 3 (raw pointers); 16-byte entries.
ok=yes
has_lines "$T/exe1" "^  builtins  1004 references$" \
    '^ *1  builtins+0x0 ("car")  tag 0  from box$' \
    '^ *250  builtins+0x0 ("car")  tag 4  from vec$' \
    '^ *251  builtins+0x10 ("cdr")  tag 4  from vec$' \
    '^ *250  builtins+0x20 ("cons")  tag 4  from vec$' \
    '^ *1  builtins+0x30 ("list")  tag 0  from box$' \
    '0 on no symbol$' || ok=no
has_lines "$T/exe4" '^ *1001  builtins+0x10 ("cdr")  tag 4  from vec$' || ok=no
[ $ok = yes ] && pass || fail "`sed -n '/^Executable references/,/^$/p' "$T/exe1"`"

# (The registry ends at the blank line before the code pointers.)
begin "--exe: the registry's statics are named, in registration order"
got=`sed -n '/^Registry: 6 records, in/,/^$/p' "$T/exe1" | awk 'NR > 1 && NF { print $2, $3 }' | tr '\n' ' '`
want="scalar squares+0x0 root world+0x0 root long_list+0x0 word the_table+0x0 ptr first_box+0x0 hook after_load_hook+0x0 "
[ "$got" = "$want" ] && pass || fail "got: $got"

begin "--exe of a stripped copy: same fingerprint, every target on no symbol"
if cp "$TOY" "$T/toy-stripped" && strip "$T/toy-stripped" 2> /dev/null; then
  "$INSPECT" --exe "$T/toy-stripped" "$T/s1.pdmp" > "$T/stripped" 2>&1
  "$T/toy-stripped" --dump-file="$T/s1.pdmp" > /dev/null 2>&1
  lst=$?
  "$INSPECT" --check --exe "$T/toy-stripped" "$T/s1.pdmp" > /dev/null 2>&1
  ist=$?
  if has_lines "$T/stripped" ', matches the image$' \
      '0 symbols, 7 on no symbol$' '^  (no symbol)  1004 references$' \
      '^ *251  exe+0x[0-9a-f]* ("cdr")  tag 4  from vec$' \
      '^ *1  root    exe+0x[0-9a-f]*  -> 0x[0-9a-f]* vec (tag 2)$' \
      && [ $lst -eq 0 ] && [ $ist -eq 0 ]; then pass
  else fail "loader $lst, --check $ist: `sed -n '5p;/^Executable/,/^$/p' "$T/stripped"`"; fi
else
  skip "no strip"
fi

begin "--exe of another build: the mismatch is reported, the view still works"
out=`"$INSPECT" --exe "$VARIANT" "$T/s1.pdmp" 2>&1`
st=$?
case $out in
  *"DOES NOT MATCH the image (another build)"*"builtins"*) [ $st -eq 0 ] && pass || fail "status $st" ;;
  *) fail "status $st: `printf '%s' "$out" | head -8`" ;;
esac

begin "--check --exe of another build: 85, as the loader"
"$VARIANT" --dump-file="$T/s1.pdmp" > /dev/null 2>&1
lst=$?
"$INSPECT" --check --exe "$VARIANT" "$T/s1.pdmp" > /dev/null 2>&1
ist=$?
[ $lst -eq 85 ] && [ $ist -eq 85 ] && pass || fail "loader $lst, inspector $ist"

check "--check: a good image is ok" "$INSPECT" --check "$T/s1.pdmp"
check "--check --exe: a good image is ok for its binary" "$INSPECT" --check --exe "$TOY" "$T/s4.pdmp"

# ------------------------------------------------------------------
# --objects and --refs.

begin "--objects lists every object once, in offset order"
"$INSPECT" --objects "$T/s1.pdmp" > "$T/objects"
rows=`awk 'NR > 2' "$T/objects" | wc -l`
offsets=`awk 'NR > 2 { print $1 }' "$T/objects"`
sorted=`printf '%s\n' "$offsets" | sort -u`
if [ "$rows" -eq "`objects_of "$T/sum1"`" ] && [ "$offsets" = "$sorted" ]; then pass
else fail "$rows rows, `objects_of "$T/sum1"` objects, or offsets out of order"; fi

begin "--objects --type vec lists as many vecs as the summary counts"
n=`"$INSPECT" --objects --type vec "$T/s1.pdmp" | awk 'NR > 2 && $3 == "vec"' | wc -l`
[ "$n" -eq "`type_count_of "$T/sum1" vec`" ] && pass || fail "$n listed"

check "--objects --type '(bytes)' lists the byte blocks" sh -c \
  "\"$INSPECT\" --objects --type '(bytes)' \"$T/s1.pdmp\" | grep -q 'COLD     (bytes)'"
expect_status "--objects --type with an unknown type: 64" 64 \
  "$INSPECT" --objects --type nosuch "$T/s1.pdmp"

world=`sed -n 's/.* root    world+0x0  -> \(0x[0-9a-f]*\) vec (tag 2)$/\1/p' "$T/exe1"`
"$INSPECT" --exe "$TOY" --refs "$world" "$T/s1.pdmp" > "$T/refs-world" 2>&1

begin "--refs on the world vector: its five pointers, its root"
# toyhost's world: floats, scaled list, cycle, table, builtins[1], fixnum:
# an 8-byte header and six words (56 bytes with 8-byte words, items at
# +8 +16 +24 +32 +40; 32 bytes with 4-byte words, at +8 +12 ... +28).
# builtins[1] is at +0x10 with either word size (16-byte elements).
W=${WORD_SIZE:-8}
has_lines "$T/refs-world" "^Object $world vec, $((8 + 6 * W)) bytes in HOT$" \
    '^Points to: 4 in the image, 1 in the executable$' \
    '^ *+8  0x[0-9a-f]* vec (tag 2)$' \
    "^ *+$((8 + W))  0x[0-9a-f]* pair (tag 1)$" \
    "^ *+$((8 + 3 * W))  0x[0-9a-f]* table (tag 2)$" \
    "^ *+$((8 + 4 * W))  builtins+0x10 (\"cdr\") (tag 4, in the executable)$" \
    '^  registry 1 (root world+0x0) (tag 2)$' && ok=yes || ok=no
[ $ok = yes ] && pass || fail "`cat "$T/refs-world"`"

begin "--refs on a float: the chain from the root through the floats vector"
floats=`sed -n 's/^ *+8  \(0x[0-9a-f]*\) vec (tag 2)$/\1/p' "$T/refs-world"`
"$INSPECT" --refs "$floats" "$T/s1.pdmp" > "$T/refs-floats"
nan=`sed -n 's/^ *+8  \(0x[0-9a-f]*\) float (tag 3)$/\1/p' "$T/refs-floats"`
"$INSPECT" --exe "$TOY" --refs "$nan" "$T/s1.pdmp" > "$T/refs-nan"
chain=`sed -n '/^Kept by/,$p' "$T/refs-nan" | tr -s ' ' | tr '\n' '|'`
want="Kept by (a shortest chain from the registry)| registry 1 (root world+0x0)| -> $world vec| -> field +8 -> $floats vec| -> field +8 -> $nan float|"
[ -n "$nan" ] && [ "$chain" = "$want" ] && pass || fail "got: $chain"

expect_status "--refs outside every object: 64" 64 "$INSPECT" --refs 0x10 "$T/s1.pdmp"

# ------------------------------------------------------------------
# JSON and stability.

begin "--json: every view prints valid JSON"
bad=
for view in "" "--exe $TOY" "--objects" "--objects --type float" "--refs $world --exe $TOY" "--check" "--check --exe $VARIANT"; do
  "$INSPECT" --json $view "$T/s1.pdmp" > "$T/out.json" 2> /dev/null
  json_ok "$T/out.json"
  case $? in 0) ;; 2) bad=skip; break ;; *) bad="$bad [$view]" ;; esac
done
case $bad in
  skip) skip "neither jq nor python3 is installed" ;;
  "") pass ;;
  *) fail "invalid JSON from:$bad" ;;
esac

begin "--json: the figures are those of the text view"
"$INSPECT" --json --exe "$TOY" "$T/s1.pdmp" > "$T/s1.json"
ok=yes
for pair in "\"file_size\": `file_size_of "$T/sum1"`" "\"typed\": `typed_of "$T/sum1"`" \
    "\"image\": `relocs_of "$T/sum1" image`" "\"executable\": `relocs_of "$T/sum1" executable`" \
    '"symbol": "builtins"' '"hint": "cdr"' '"fingerprint_matches": true'; do
  grep -qF "$pair" "$T/s1.json" || { ok=no; echo "    no $pair"; }
done
[ $ok = yes ] && pass || fail "JSON and text differ"

begin "the output is the same on every run and for an identical image"
"$TOY" --scale 1 --temacs=pdump --output "$T/again.pdmp" > /dev/null 2>&1
"$INSPECT" --exe "$TOY" "$T/s1.pdmp" > "$T/run1"
"$INSPECT" --exe "$TOY" "$T/s1.pdmp" > "$T/run2"
"$INSPECT" --exe "$TOY" "$T/again.pdmp" | sed "s#$T/again.pdmp#$T/s1.pdmp#" > "$T/run3"
"$INSPECT" --json --refs "$world" "$T/s1.pdmp" > "$T/json1"
"$INSPECT" --json --refs "$world" "$T/s1.pdmp" > "$T/json2"
if cmp -s "$T/run1" "$T/run2" && cmp -s "$T/run1" "$T/run3" && cmp -s "$T/json1" "$T/json2"; then pass
else fail "outputs differ"; fi

begin "an output that cannot be written: 74"
if [ -w /dev/full ]; then
  "$INSPECT" "$T/s1.pdmp" > /dev/full 2> /dev/null
  st=$?
  [ $st -eq 74 ] && pass || fail "status $st"
else
  skip "no /dev/full"
fi

# ------------------------------------------------------------------
# --check against the loader, class by class.

patch () {   # patch FILE OFFSET BYTE-VALUE
  printf "\\`printf '%03o' $3`" | dd of="$1" bs=1 seek=$2 conv=notrunc 2>/dev/null
}
section_offset () {   # section_offset FILE KIND
  od -An -t u8 -j `expr 136 + \( $2 - 1 \) \* 64 + 8` -N 8 "$1" | tr -d ' '
}
good=$T/s1.pdmp
size=`stat -c %s "$good"`
: > "$T/c-empty.pdmp"
head -c `expr $size / 2` "$good" > "$T/c-half.pdmp"
head -c 100 "$good" > "$T/c-head.pdmp"
printf 'not an image\n' > "$T/c-text.pdmp"
for spec in version:8:99 word:16:4 order:17:2 machine:18:183 header:64:7; do
  name=${spec%%:*}; rest=${spec#*:}
  cp "$good" "$T/c-$name.pdmp"; patch "$T/c-$name.pdmp" ${rest%%:*} ${rest#*:}
done
cp "$good" "$T/c-long.pdmp"; printf 'xx' >> "$T/c-long.pdmp"
for kind in 1 2 3 4 5 6 7 8; do
  cp "$good" "$T/c-section$kind.pdmp"
  patch "$T/c-section$kind.pdmp" `expr \`section_offset "$good" $kind\` + 1` 255
done

# The compressed containers: a damaged frame table, HOT frame, COLD
# frame (past the 8-byte table of a one-frame section).
stored_offset () {   # stored_offset FILE KIND
  od -An -t u8 -j `expr 136 + \( $2 - 1 \) \* 64 + 40` -N 8 "$1" | tr -d ' '
}
for codec in $CODECS; do
  "$TOY" --scale 1 --temacs=pdump --compress=$codec --output "$T/z-$codec.pdmp" > /dev/null
  cp "$T/z-$codec.pdmp" "$T/c-$codec-ok.pdmp"
  for spec in table:1:1 hot:1:13 cold:2:11; do
    name=${spec%%:*}; rest=${spec#*:}
    f=$T/c-$codec-$name.pdmp
    cp "$T/z-$codec.pdmp" "$f"
    patch "$f" `expr \`stored_offset "$f" ${rest%%:*}\` + ${rest#*:}` 255
  done
  head -c `expr \`stat -c %s "$T/z-$codec.pdmp"\` - 10` "$T/z-$codec.pdmp" > "$T/c-$codec-cut.pdmp"
done

begin "--check exits as the loader on every class of damage"
bad=0
for f in "$T/c-none.pdmp" "$T"/c-*.pdmp; do
  "$TOY" --dump-file="$f" > /dev/null 2>&1
  lst=$?
  "$INSPECT" --check --exe "$TOY" "$f" > /dev/null 2>&1
  ist=$?
  [ $lst -eq $ist ] || { bad=`expr $bad + 1`; echo "    `basename "$f"`: loader $lst, inspector $ist"; }
done
classes=`for f in "$T"/c-*.pdmp; do "$INSPECT" --check "$f" > /dev/null 2>&1; echo $?; done | sort -u | tr '\n' ' '`
# Patched version and architecture fields break the header checksum, so
# they are corrupt (86); 83 and 84 need a resealed header (test_check).
[ $bad -eq 0 ] && [ "$classes" = "0 81 82 86 " ] && pass \
  || fail "$bad disagreements; classes seen: $classes"

begin "damaged OBJECTS: --check ok with a warning, the views refuse it naming the table"
out=`"$INSPECT" --check "$T/c-section8.pdmp" 2>&1`
st=$?
vout=`"$INSPECT" "$T/c-section8.pdmp" 2>&1`
vst=$?
case "$st $out" in
  "0 "*"warning: $T/c-section8.pdmp: checksum mismatch in section OBJECTS"*)
    case "$vst $vout" in
      "86 "*"image is corrupt: $T/c-section8.pdmp: checksum mismatch in section OBJECTS (an inspection-only table"*) pass ;;
      *) fail "view: $vst $vout" ;;
    esac ;;
  *) fail "check: $st $out" ;;
esac

# ------------------------------------------------------------------
# The reference host, when it dumps.

DLISP=$BUILDDIR/host/dlisp-bare
begin "dlisp: the image's counts agree with the loader's"
if [ ! -x "$DLISP" ]; then
  skip "no host/dlisp-bare in this build"
elif ! "$DLISP" --temacs=pdump --output "$T/dlisp.pdmp" > "$T/dlisp.log" 2>&1; then
  skip "host/dlisp-bare cannot dump yet: `tail -1 "$T/dlisp.log"`"
else
  "$DLISP" --dump-file="$T/dlisp.pdmp" --stats --batch > "$T/dlisp.stats" 2>&1
  "$INSPECT" --exe "$DLISP" "$T/dlisp.pdmp" > "$T/dlisp.sum" 2>&1
  stat_of () { sed -n "s/^pdump-$1: //p" "$T/dlisp.stats"; }
  want="`stat_of file-size` `stat_of objects` `stat_of image-relocs` `stat_of exe-relocs`"
  got="`file_size_of "$T/dlisp.sum"` `objects_of "$T/dlisp.sum"` `relocs_of "$T/dlisp.sum" image` `relocs_of "$T/dlisp.sum" executable`"
  if [ -n "`stat_of objects`" ] && [ "$want" = "$got" ]; then pass
  else fail "loader: '$want', inspector: '$got'"; fi
fi

begin "dlisp: built-in functions are named by symbol, with their Lisp names"
if [ ! -s "$T/dlisp.sum" ]; then
  skip "no dlisp image"
elif grep -q '^ *[0-9]*  [a-z_]*builtins+0x[0-9a-f]* ("car")  tag [0-9]*  from ' "$T/dlisp.sum" \
    && grep -q ', matches the image$' "$T/dlisp.sum" && grep -q ' 0 on no symbol$' "$T/dlisp.sum"; then
  pass
else
  fail "`sed -n '1,6p;/^Executable references/,/^$/p' "$T/dlisp.sum" | head -30`"
fi

begin "dlisp: --check agrees with the loader, and the JSON is valid"
if [ ! -s "$T/dlisp.sum" ]; then
  skip "no dlisp image"
else
  "$INSPECT" --check --exe "$DLISP" "$T/dlisp.pdmp" > /dev/null 2>&1
  st=$?
  "$INSPECT" --json --exe "$DLISP" "$T/dlisp.pdmp" > "$T/dlisp.json"
  json_ok "$T/dlisp.json"
  jst=$?
  if [ $st -eq 0 ] && [ $jst -ne 1 ]; then pass; else fail "check $st, json $jst"; fi
fi

begin "dlisp: the default image host/dlisp.pdmp checks ok for host/dlisp, counts as its loader's"
if [ ! -f "$BUILDDIR/host/dlisp.pdmp" ] || [ ! -x "$BUILDDIR/host/dlisp" ]; then
  skip "no host/dlisp.pdmp in this build"
else
  "$BUILDDIR/host/dlisp" --stats --batch > "$T/default.stats" 2>&1
  "$INSPECT" --exe "$BUILDDIR/host/dlisp" "$BUILDDIR/host/dlisp.pdmp" > "$T/default.sum" 2>&1
  sst=$?
  "$INSPECT" --check --exe "$BUILDDIR/host/dlisp" "$BUILDDIR/host/dlisp.pdmp" > /dev/null 2>&1
  cst=$?
  want="`sed -n 's/^pdump-objects: //p' "$T/default.stats"` `sed -n 's/^pdump-image-relocs: //p' "$T/default.stats"`"
  got="`objects_of "$T/default.sum"` `relocs_of "$T/default.sum" image`"
  if [ $sst -eq 0 ] && [ $cst -eq 0 ] && [ "$want" = "$got" ] \
      && grep -q ', matches the image$' "$T/default.sum"; then pass
  else fail "summary $sst, check $cst, loader '$want', inspector '$got'"; fi
fi

finish
