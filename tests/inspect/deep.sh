#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/inspect/deep.sh: dumper-inspect --check [--deep] against the
# loader (issue 20).  `--check' must give the verdict of the loader with
# verification none, `--check --deep' that of the loader with
# verification structure, on good images and on resealed mutants of
# every kind (tests/fuzz/mutate), on compressed and embedded images and
# damaged frames; and the mode settings behave.

. "$SRCDIR/tests/e2e/lib.sh"

TOY=$BUILDDIR/tests/pdump/toyhost
INSPECT=$BUILDDIR/tools/dumper-inspect
MUTATE=$BUILDDIR/tests/fuzz/mutate

if [ "$BACKEND" != pdumper ]; then
  begin "dumper-inspect --check --deep"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

"$TOY" --temacs=pdump --output "$T/good.pdmp" > /dev/null || { echo "cannot dump"; exit 1; }

check "--check --deep accepts a good toyhost image" \
  "$INSPECT" --check --deep --exe "$TOY" "$T/good.pdmp"
check "--check --deep accepts dlisp's image" \
  "$INSPECT" --check --deep --exe "$BUILDDIR/host/dlisp" "$BUILDDIR/host/dlisp.pdmp"

begin "--deep without --exe is a usage error"
"$INSPECT" --check --deep "$T/good.pdmp" > /dev/null 2>&1
st=$?
if [ $st -eq 64 ]; then pass; else fail "exit $st, want 64"; fi

begin "DUMPER_PDUMP_VERIFY with a bad value is a usage error"
DUMPER_PDUMP_VERIFY=paranoid "$TOY" --dump-file="$T/good.pdmp" > /dev/null 2> "$T/err"
st=$?
if [ $st -eq 64 ] && grep -q DUMPER_PDUMP_VERIFY "$T/err"; then pass
else fail "exit $st: `cat "$T/err"`"; fi

begin "check-only mode restores nothing and exits with the verdict"
DUMPER_PDUMP_CHECK_ONLY=1 "$TOY" --dump-file="$T/good.pdmp" > "$T/out" 2>&1
st=$?
if [ $st -eq 0 ] && [ ! -s "$T/out" ]; then pass
else fail "exit $st, output: `cat "$T/out"`"; fi

# A compressed and an embedded image: --check, --check --deep and the
# check-only start accept them; a damaged frame is refused alike (86).
for c in $CODECS; do
  "$TOY" --temacs=pdump --compress=$c --output "$T/$c.pdmp" > /dev/null \
    || { echo "cannot dump ($c)"; exit 1; }
done
"$BUILDDIR/tools/dumper-embed" "$TOY" "$T/good.pdmp" -o "$T/embedded" \
  || { echo "cannot embed"; exit 1; }
for c in $CODECS embedded; do
  case $c in embedded) img=$T/embedded ;; *) img=$T/$c.pdmp ;; esac
  begin "$c: --check, --check --deep and check-only mode accept the image"
  "$INSPECT" --check --exe "$TOY" "$img" > "$T/out" 2>&1; a=$?
  "$INSPECT" --check --deep --exe "$TOY" "$img" >> "$T/out" 2>&1; b=$?
  DUMPER_PDUMP_CHECK_ONLY=1 "$TOY" --dump-file="$img" >> "$T/out" 2>&1; d=$?
  if [ $a -eq 0 ] && [ $b -eq 0 ] && [ $d -eq 0 ]; then pass
  else fail "--check $a, --deep $b, check-only $d: `cat "$T/out"`"; fi
done
for c in $CODECS; do
  begin "$c: a damaged frame: --check, --check --deep and the loader say 86"
  cp "$T/$c.pdmp" "$T/bad.pdmp"
  # A byte in HOT's first frame, past the frame table (section 1's
  # stored_offset is at 136 + 40).
  at=`od -An -t u8 -j 176 -N 8 "$T/bad.pdmp" | tr -d ' '`
  printf '\377\377\377\377' | dd of="$T/bad.pdmp" bs=1 seek=`expr $at + 24` conv=notrunc 2>/dev/null
  "$INSPECT" --check --exe "$TOY" "$T/bad.pdmp" > /dev/null 2>&1; a=$?
  "$INSPECT" --check --deep --exe "$TOY" "$T/bad.pdmp" > /dev/null 2>&1; b=$?
  "$TOY" --dump-file="$T/bad.pdmp" > /dev/null 2>&1; d=$?
  if [ $a -eq 86 ] && [ $b -eq 86 ] && [ $d -eq 86 ]; then pass
  else fail "--check $a, --deep $b, loader $d"; fi
done

# Both verdicts on mutants of every kind.
begin "--check and --check --deep agree with the loader on resealed mutants"
bad=
refused_deep=0
total=0
for kind in reloc-clear reloc-set interior tag header flip; do
  for seed in 1 2 3 4 5 6; do
    "$MUTATE" "$T/good.pdmp" "$T/m.pdmp" $kind $seed > /dev/null || continue
    total=$((total + 1))
    DUMPER_PDUMP_VERIFY=none "$TOY" --dump-file="$T/m.pdmp" > /dev/null 2>&1
    load_none=$?
    DUMPER_PDUMP_VERIFY=structure "$TOY" --dump-file="$T/m.pdmp" > /dev/null 2>&1
    load_structure=$?
    "$INSPECT" --check --exe "$TOY" "$T/m.pdmp" > /dev/null 2>&1
    check_plain=$?
    "$INSPECT" --check --deep --exe "$TOY" "$T/m.pdmp" > /dev/null 2>&1
    check_deep=$?
    [ $check_deep -eq 86 ] && refused_deep=$((refused_deep + 1))
    # The loader's verdict is an image status (80-89); anything else
    # means it accepted the image and the host then ran on (and may have
    # choked on the heap: toyhost exits 70, or crashed).
    want=$load_none
    if [ $load_none -lt 80 ] || [ $load_none -gt 89 ]; then want=0; fi
    if [ $want -ne $check_plain ]; then
      bad="$bad
$kind $seed: loader (none) $load_none, --check $check_plain"
    fi
    if [ $load_structure -ne $check_deep ]; then
      bad="$bad
$kind $seed: loader (structure) $load_structure, --check --deep $check_deep"
    fi
  done
done
if [ -z "$bad" ] && [ $refused_deep -gt 0 ]; then pass
else fail "$total mutants, $refused_deep refused by --deep:$bad"; fi

finish
