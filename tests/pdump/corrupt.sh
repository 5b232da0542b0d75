#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/corrupt.sh: the loader against damaged images.
#
# Each class of damage is reported with the file name and its own exit
# status: missing (80), empty or truncated (81), not an image (82),
# another format version (83), another architecture (84), another
# build (85, in pdump.sh), corrupt (86); a damaged header field is
# corrupt (86), whatever the field says, and so is a count the image
# cannot hold, however sealed; the same for damaged frames of
# compressed images and damaged or truncated embedded sections, and what
# strip does to an embedded image (section headers that lose it: a cold
# start, with a warning naming the executable).  Then a mutation loop per container
# (plain, lz4, zstd, embedded): random bytes of the image are changed
# and every start must end either in success with the cold digest or in
# one of those statuses, never a crash; dumper-inspect --check, when
# built, must agree with the loader.

. "$SRCDIR/tests/e2e/lib.sh"

TOY=$BUILDDIR/tests/pdump/toyhost
INSPECT=$BUILDDIR/tools/dumper-inspect
EMBED=$BUILDDIR/tools/dumper-embed

if [ "$BACKEND" != pdumper ]; then
  begin "corrupt image tests"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

"$TOY" --temacs=pdump --output "$T/good.pdmp" || { echo "cannot dump"; exit 1; }
cold=`"$TOY" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
size=`stat -c %s "$T/good.pdmp"`

# The binutils of the build's target: a cross build's executables are
# for another machine than /usr/bin/strip's (aarch64 under qemu-user:
# scripts/test-arch arm64).  CC is set by `make check'.
STRIP=`${CC:-cc} -print-prog-name=strip 2>/dev/null` || STRIP=strip
OBJCOPY=`${CC:-cc} -print-prog-name=objcopy 2>/dev/null` || OBJCOPY=objcopy

# patch FILE OFFSET BYTE-VALUE: overwrite one byte.
patch () {
  printf "\\`printf '%03o' $3`" | dd of="$1" bs=1 seek=$2 conv=notrunc 2>/dev/null
}

# expect_run NAME STATUS FILE COMMAND WORDS...: COMMAND (a shell
# function or program, given FILE) exits STATUS and its message names
# FILE and contains each of WORDS.
expect_run () {
  _n=$1; _s=$2; _f=$3; _cmd=$4
  shift 4
  begin "$_n"
  _out=`$_cmd "$_f" 2>&1`
  _st=$?
  if [ $_st -ne $_s ]; then fail "exit status $_st, expected $_s: $_out"; return; fi
  case $_out in *"$_f"*) ;; *) fail "message does not name the file: $_out"; return ;; esac
  for _w in "$@"; do
    case $_out in *"$_w"*) ;; *) fail "message lacks '$_w': $_out"; return ;; esac
  done
  pass
}
load_with_toy () { "$TOY" --dump-file="$1"; }
start_exe () { "$1"; }
# expect_load NAME STATUS FILE WORDS...: loading the image FILE.
expect_load () {
  _a=$1; _b=$2; _c=$3
  shift 3
  expect_run "$_a" "$_b" "$_c" load_with_toy "$@"
}
# expect_start NAME STATUS EXE WORDS...: starting EXE, which finds its
# embedded image.
expect_start () {
  _a=$1; _b=$2; _c=$3
  shift 3
  expect_run "$_a" "$_b" "$_c" start_exe "$@"
}

expect_load "a missing image" 80 "$T/none.pdmp" "No such file"
: > "$T/empty.pdmp"
expect_load "an empty image" 81 "$T/empty.pdmp" "empty"
head -c `expr $size / 2` "$T/good.pdmp" > "$T/half.pdmp"
expect_load "a half image" 81 "$T/half.pdmp" "truncated"
head -c 100 "$T/good.pdmp" > "$T/head.pdmp"
expect_load "an image cut inside its header" 81 "$T/head.pdmp" "truncated"
printf 'hello, I am a text file\n' > "$T/text.pdmp"
expect_load "a text file" 82 "$T/text.pdmp" "not a dumper image"
# A header field says "another version" or "another architecture" only
# when the header checksum holds (resealed images: tests/pdump/test_check);
# a damaged field is corruption.
cp "$T/good.pdmp" "$T/version.pdmp"; patch "$T/version.pdmp" 8 99
expect_load "a damaged version field is corruption" 86 "$T/version.pdmp" "checksum" "says 99"
# The other word size (4 in a 64-bit build, 8 in a 32-bit one).
other_words=`od -An -tu1 -j 16 -N 1 "$T/good.pdmp" | awk '{ print 12 - $1 }'`
cp "$T/good.pdmp" "$T/word.pdmp"; patch "$T/word.pdmp" 16 $other_words
expect_load "a damaged word size is corruption" 86 "$T/word.pdmp" "checksum"
cp "$T/good.pdmp" "$T/order.pdmp"; patch "$T/order.pdmp" 17 2
expect_load "a damaged byte order is corruption" 86 "$T/order.pdmp" "checksum"
# A machine other than the image's own (pdump/format.h: byte 18 holds
# the low byte of the ELF machine): aarch64 (183), or x86-64 (62) on
# aarch64.
other_machine=183
[ "`od -An -tu1 -j 18 -N 1 "$T/good.pdmp" | tr -d ' '`" = 183 ] && other_machine=62
cp "$T/good.pdmp" "$T/machine.pdmp"; patch "$T/machine.pdmp" 18 $other_machine
expect_load "a damaged machine field is corruption" 86 "$T/machine.pdmp" "checksum"
cp "$T/good.pdmp" "$T/fsize.pdmp"; patch "$T/fsize.pdmp" 25 255
expect_load "a damaged file size is corruption, not truncation" 86 "$T/fsize.pdmp" "checksum"

# Counts of the header and section table beyond what the image can hold,
# with every checksum recomputed (tests/fuzz/mutate.c, kind count): the
# header check refuses each (86), naming the file, before anything is
# sized by it.  An object count of 0xfffffff8 passed it and made dlisp
# size its digest's map by it: exit 71, "out of memory in the heap
# walk", naming no file (issue 32).
begin "counts beyond the image, resealed: corrupt (86), the file named, nothing sized by them"
bad=
cp "$BUILDDIR/host/dlisp.pdmp" "$T/dlisp.pdmp"
for seed in 0 1 2 3 4 5 6; do
  desc=`"$BUILDDIR/tests/fuzz/mutate" "$T/dlisp.pdmp" "$T/count.pdmp" count $seed` \
    || { bad="$bad
    mutate count $seed failed"; continue; }
  "$BUILDDIR/host/dlisp" --dump-file="$T/count.pdmp" --heap-digest > /dev/null 2> "$T/err"
  st=$?
  [ $st -eq 86 ] && grep -q "$T/count.pdmp: " "$T/err" && continue
  bad="$bad
    $desc: status $st: `head -c 300 "$T/err"`"
done
if [ -z "$bad" ]; then pass; else fail "$bad"; fi

# Every byte of the header and the section table (header_size at offset
# 12, section_count at 20, entries of 64 bytes: pdump/format.h), with its
# low bit flipped: 86 each time (the header checksum no longer holds).
table_end=`od -An -tu4 -j 12 -N 12 "$T/good.pdmp" | awk '{ print $1 + $3 * 64 }'`
begin "each of the $table_end header and section table bytes flipped: corrupt (86)"
off=0; wrong=0
while [ $off -lt $table_end ]; do
  cp "$T/good.pdmp" "$T/flip.pdmp"
  b=`od -An -tu1 -j $off -N1 "$T/good.pdmp" | tr -d ' '`
  patch "$T/flip.pdmp" $off `expr \( $b / 2 \) \* 2 + 1 - $b % 2`
  "$TOY" --dump-file="$T/flip.pdmp" > /dev/null 2>&1
  st=$?
  if [ $st -ne 86 ]; then
    wrong=`expr $wrong + 1`
    [ $wrong -le 5 ] && echo "    byte $off: status $st"
  fi
  off=`expr $off + 1`
done
[ $wrong -eq 0 ] && pass || fail "$wrong of $table_end flips not reported as corrupt"
cp "$T/good.pdmp" "$T/sum.pdmp"; patch "$T/sum.pdmp" 64 7
expect_load "a damaged header field" 86 "$T/sum.pdmp" "checksum"
cp "$T/good.pdmp" "$T/long.pdmp"; printf 'xx' >> "$T/long.pdmp"
expect_load "trailing garbage" 86 "$T/long.pdmp" "header says"
cp "$T/good.pdmp" "$T/hot.pdmp"; patch "$T/hot.pdmp" 4100 255
expect_load "a flipped byte in HOT" 86 "$T/hot.pdmp" "HOT"
cp "$T/good.pdmp" "$T/tail.pdmp"; patch "$T/tail.pdmp" `expr $size - 3` 255
# The last bytes are the object index, which the loader does not read
# without the structural pass (verify none: the default, auto, runs it
# at a first start, which then reads the index).
begin "damage in inspection-only tables does not stop a load"
d=`DUMPER_PDUMP_VERIFY=none DUMPER_PDUMP_BASE=random "$TOY" --dump-file="$T/tail.pdmp" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
[ "$d" = "$cold" ] && pass || fail "digest $d, cold $cold"

# The containers: compressed frames and embedded sections.
if has_codec lz4; then
  "$TOY" --temacs=pdump --compress=lz4 --output "$T/good-lz4" || exit 1
fi
if has_codec zstd; then
  "$TOY" --temacs=pdump --compress=zstd:19 --output "$T/good-zstd" || exit 1
fi
"$EMBED" "$TOY" "$T/good.pdmp" -o "$T/good-embedded" || exit 1
# stored_offset FILE KIND: where section KIND's stored bytes are
stored_offset () {
  od -An -t u8 -j `expr 136 + \( $2 - 1 \) \* 64 + 40` -N 8 "$1" | tr -d ' '
}
for c in $CODECS; do
  # Past the 8-byte frame table of a one-frame section: frame bytes.
  cp "$T/good-$c" "$T/$c-hot"; patch "$T/$c-hot" `expr \`stored_offset "$T/good-$c" 1\` + 12` 255
  expect_load "$c: a damaged HOT frame" 86 "$T/$c-hot" "HOT"
  cp "$T/good-$c" "$T/$c-cold"; patch "$T/$c-cold" `expr \`stored_offset "$T/good-$c" 2\` + 10` 255
  expect_load "$c: a damaged COLD frame" 86 "$T/$c-cold" "COLD"
  cp "$T/good-$c" "$T/$c-table"; patch "$T/$c-table" `expr \`stored_offset "$T/good-$c" 1\` + 1` 127
  expect_load "$c: a damaged frame table" 86 "$T/$c-table" "frame"
  head -c `expr \`stat -c %s "$T/good-$c"\` - 1` "$T/good-$c" > "$T/$c-cut"
  expect_load "$c: a compressed image one byte short" 81 "$T/$c-cut" "truncated"
done

# The offset of the .pdump entry in the section headers: dumper-embed
# puts .pdump last when it adds it.  ELF64 (EI_CLASS 2): e_shoff at 40,
# e_shnum at 60, 64-byte entries, sh_size at +32; ELF32: 32, 48, 40 and
# +20.
elf_class=`od -An -tu1 -j 4 -N 1 "$T/good-embedded" | tr -d ' '`
if [ "$elf_class" = 2 ]; then
  shoff_at=40 shoff_size=8 shnum_at=60 shent=64 sh_size_field=32 high=3
else
  shoff_at=32 shoff_size=4 shnum_at=48 shent=40 sh_size_field=20 high=1
fi
embed_shdr () {
  shoff=`od -An -t u$shoff_size -j $shoff_at -N $shoff_size "$1" | tr -d ' '`
  shnum=`od -An -t u2 -j $shnum_at -N 2 "$1" | tr -d ' '`
  expr $shoff + \( $shnum - 1 \) \* $shent
}
esz=`stat -c %s "$T/good-embedded"`
cp "$T/good-embedded" "$T/emb-long"
sh_size_at=`expr \`embed_shdr "$T/emb-long"\` + $sh_size_field`
# Three bytes of sh_size from byte HIGH on: past any file.
printf '\377\377\377' | dd of="$T/emb-long" bs=1 seek=`expr $sh_size_at + $high` conv=notrunc 2>/dev/null
expect_start "embedded: a section running past the end of the file" 81 "$T/emb-long" "extends past the end"
head -c `expr $esz - 100` "$T/good-embedded" > "$T/emb-cut"; chmod +x "$T/emb-cut"
expect_start "embedded: a truncated executable" 81 "$T/emb-cut" "truncated"
# Each check of the section headers that locate the image, at its edge
# (pdump/embed.c, read_sections and take_section).  put_le FILE OFFSET
# SIZE VALUE writes VALUE little-endian.
put_le () {
  _v=$4 _i=0
  while [ $_i -lt $3 ]; do
    printf "\\`printf %03o $((_v % 256))`" \
      | dd of="$1" bs=1 seek=$(($2 + _i)) conv=notrunc 2>/dev/null
    _v=$((_v / 256)) _i=$((_i + 1))
  done
}
shstrndx_at=`expr $shnum_at + 2`
e_shoff=`od -An -t u$shoff_size -j $shoff_at -N $shoff_size "$T/good-embedded" | tr -d ' '`
e_shnum=`od -An -t u2 -j $shnum_at -N 2 "$T/good-embedded" | tr -d ' '`
e_shstrndx=`od -An -t u2 -j $shstrndx_at -N 2 "$T/good-embedded" | tr -d ' '`
cp "$T/good-embedded" "$T/emb-nobits"
put_le "$T/emb-nobits" `expr \`embed_shdr "$T/emb-nobits"\` + 4` 4 8   # SHT_NOBITS
expect_start "embedded: the image's section holds no contents (SHT_NOBITS)" 86 "$T/emb-nobits" "has no contents (type 8)"
cp "$T/good-embedded" "$T/emb-shoff"
put_le "$T/emb-shoff" $shoff_at $shoff_size `expr $esz - $shent + 1`
expect_start "embedded: the section header table starts one byte too late to hold a header" 81 "$T/emb-shoff" "lies outside"
cp "$T/good-embedded" "$T/emb-shnum"
put_le "$T/emb-shnum" $shnum_at 2 `expr \( $esz - $e_shoff \) / $shent + 1`
expect_start "embedded: one section header more than the file holds" 81 "$T/emb-shnum" "runs past the end"
cp "$T/good-embedded" "$T/emb-strndx"
put_le "$T/emb-strndx" $shstrndx_at 2 $e_shnum
expect_start "embedded: the name table's index one past the last section" 93 "$T/emb-strndx" "section header table is damaged"
cp "$T/good-embedded" "$T/emb-strtype"
put_le "$T/emb-strtype" `expr $e_shoff + $e_shstrndx \* $shent + 4` 4 1   # PROGBITS
expect_start "embedded: a section name table that is not SHT_STRTAB" 93 "$T/emb-strtype" "section name table is damaged"
cp "$T/good-embedded" "$T/emb-strsize"
str_shdr=`expr $e_shoff + $e_shstrndx \* $shent`
str_offset=`od -An -t u$shoff_size -j \`expr $str_shdr + $sh_size_field - $shoff_size\` -N $shoff_size "$T/good-embedded" | tr -d ' '`
put_le "$T/emb-strsize" `expr $str_shdr + $sh_size_field` $shoff_size `expr $esz - $str_offset + 1`
expect_start "embedded: a section name table one byte past the file" 93 "$T/emb-strsize" "section name table is damaged"
cp "$T/good-embedded" "$T/emb-bad"
eoff=`readelf -SW "$T/good-embedded" | sed -n 's/.*\.pdump *PROGBITS *[0-9a-f]* \([0-9a-f]*\).*/\1/p'`
patch "$T/emb-bad" `expr \`printf '%d' 0x$eoff\` + 4100` 255
expect_start "embedded: a flipped byte in the embedded HOT" 86 "$T/emb-bad" "HOT"

begin "embedded: strip keeps the image (a non-allocated section), still page-aligned and mapped"
"$STRIP" -o "$T/emb-stripped" "$T/good-embedded"
# Base mode random: the question is whether the file can be mapped;
# boot's first start reads the image to relocate it at the boot base.
out=`DUMPER_PDUMP_BASE=random "$T/emb-stripped" --stats 2>&1`
d=`printf '%s' "$out" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
case "$d $out" in
  "$cold "*"mapped"*) pass ;;
  *) fail "after strip: $out" ;;
esac

# The other ways of stripping, on a plain and a compressed embedded
# image: each keeps the image and the start loads it.
# (the compressed one with the first codec this build has)
embedded_kinds=good-embedded
zc=${CODECS%% *}
if [ -n "$zc" ]; then
  "$EMBED" "$TOY" "$T/good-$zc" -o "$T/good-embedded-$zc"
  embedded_kinds="$embedded_kinds good-embedded-$zc"
fi
for how in "strip --strip-all" "strip --strip-debug" "strip --strip-unneeded" \
           "objcopy --strip-all"; do
  for e in $embedded_kinds; do
    begin "embedded: $how keeps the image ($e)"
    rm -f "$T/emb-s"
    case $how in
      strip*) "$STRIP" ${how#strip } -o "$T/emb-s" "$T/$e" 2> "$T/strip.err" ;;
      *) "$OBJCOPY" ${how#objcopy } "$T/$e" "$T/emb-s" 2> "$T/strip.err" ;;
    esac
    out=`"$T/emb-s" --stats 2>&1`
    d=`printf '%s' "$out" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
    o=`printf '%s' "$out" | sed -n 's/.*origin=\([0-9]*\).*/\1/p'`
    if [ "$d" = "$cold" ] && [ "$o" = 2 ]; then pass
    else fail "after $how: `cat "$T/strip.err"` $out"; fi
  done
done

begin "embedded: strip --remove-section=.pdump leaves a plain executable (a cold start, said by origin)"
"$STRIP" --remove-section=.pdump -o "$T/emb-removed" "$T/good-embedded"
o=`"$T/emb-removed" 2>&1 | sed -n 's/.*origin=\([0-9]*\).*/\1/p'`
[ "$o" = 0 ] && pass || fail "origin $o"

# Section headers that no longer locate .pdump, the image still in the
# file: the start goes on without it (0, the cold heap) but warns,
# naming the executable (issue 32: it was silent).  dumper-embed marks
# the executable (pdump/embed.h); an unmarked one never warns.  The
# section header table's offset is e_shoff, at 40 in an ELF64 header,
# 32 in an ELF32 one.
shoff_at=40; [ "$WORD_SIZE" = 4 ] && shoff_at=32
cp "$T/good-embedded" "$T/emb-noshdr"
dd if=/dev/zero of="$T/emb-noshdr" bs=1 seek=$shoff_at count=$WORD_SIZE conv=notrunc 2>/dev/null
cp "$T/good-embedded" "$T/emb-renamed"
name_at=`grep -abo '\.pdump' "$T/good-embedded" | tail -1 | cut -d: -f1`
printf 'q' | dd of="$T/emb-renamed" bs=1 seek=`expr $name_at + 5` conv=notrunc 2>/dev/null
for e in emb-noshdr emb-renamed emb-removed; do
  begin "embedded: section headers that no longer locate the image ($e): a cold start with a warning naming it"
  out=`"$T/$e" 2> "$T/err"`
  st=$?
  d=`printf '%s' "$out" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
  if [ $st -eq 0 ] && [ "$d" = "$cold" ] \
     && grep -q "$T/$e: dumper-embed stored an image in it, but its section headers no longer locate it" "$T/err"; then
    pass
  else
    fail "status $st, digest '$d': `cat "$T/err"`"
  fi
done
begin "a plain executable starts cold without that warning"
"$TOY" --no-dump-file > /dev/null 2> "$T/err"
st=$?
if [ $st -eq 0 ] && ! grep -q "dumper-embed stored an image" "$T/err"; then pass
else fail "status $st: `cat "$T/err"`"; fi

begin "embedded: --dump-file overrides the embedded image"
"$TOY" --temacs=pdump --scale 2 --output "$T/other.pdmp"
out=`"$T/good-embedded" --dump-file="$T/other.pdmp" --stats 2>&1`
case $out in *"load: $T/other.pdmp"*) pass ;; *) fail "$out" ;; esac

for c in plain $CODECS embedded; do
case $c in
  plain) img=$T/good.pdmp; lo=0; span=$size ;;
  embedded) img=$T/good-embedded; lo=`printf '%d' 0x$eoff`; span=$size ;;
  *) img=$T/good-$c; lo=0; span=`stat -c %s "$img"` ;;
esac
# 200 mutations of the plain image, 100 of each other container.
if [ $c = plain ]; then rounds=200; else rounds=100; fi
begin "$c: $rounds random mutations: each start succeeds with the cold digest or fails cleanly"
i=0; ok=0; clean=0; bad=0; disagree=0
seed=12345
while [ $i -lt $rounds ]; do
  seed=`expr \( $seed \* 1103515245 + 12345 \) % 2147483648`
  off=`expr $lo + $seed % $span`
  seed=`expr \( $seed \* 1103515245 + 12345 \) % 2147483648`
  val=`expr $seed % 256`
  cp "$img" "$T/m.pdmp"
  patch "$T/m.pdmp" $off $val
  # Verification none, as --check (the default's structural pass
  # refuses more); the default base mode, boot: the cache of the
  # image before this round's damage must not be used (its stamp holds
  # the image file's change time).
  out=`DUMPER_PDUMP_VERIFY=none "$TOY" --dump-file="$T/m.pdmp" 2>&1`
  st=$?
  d=`printf '%s' "$out" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
  if [ $st -eq 0 ] && [ "$d" = "$cold" ]; then ok=`expr $ok + 1`
  elif [ $st -ge 80 ] && [ $st -le 86 ]; then clean=`expr $clean + 1`
  else
    bad=`expr $bad + 1`
    echo "    offset $off value $val: status $st: `printf '%s' "$out" | head -2`"
  fi
  if [ -x "$INSPECT" ]; then
    "$INSPECT" --check "$T/m.pdmp" --exe "$TOY" > /dev/null 2>&1
    ist=$?
    if [ $ist -ne $st ]; then
      disagree=`expr $disagree + 1`
      echo "    offset $off value $val: loader $st, inspector $ist"
    fi
  fi
  i=`expr $i + 1`
done
echo "    $ok unaffected, $clean refused cleanly, $bad bad, $disagree inspector disagreements"
[ $bad -eq 0 ] && [ $disagree -eq 0 ] && pass || fail "$bad bad outcomes, $disagree disagreements"
done

finish
