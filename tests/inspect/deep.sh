#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/inspect/deep.sh: dumper-inspect --check [--deep] against the
# loader (issue 20).  `--check' must give the verdict of the loader with
# verification none, `--check --deep' that of the loader with
# verification structure, on good images and on resealed mutants of
# every kind (tests/fuzz/mutate); and the mode settings behave.

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
