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
for kind in reloc-clear reloc-set interior tag header flip record exe; do
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

# Registry records and code pointers checked against the executable's
# declaration table (issue 32, item 5): `--check --exe' read no
# declarations and said 0 where the loader refuses.  Each mutant is
# resealed, and changes one thing only the declarations contradict;
# the loader (verification none), `--check --exe' and `--check --deep'
# must all say 86, and the loader's message shows which check fired.
# agree_86 NAME BINARY IMAGE EXPECT KIND SEED [VALUE]
agree_86 () {
  _name=$1 _bin=$2 _img=$3 _expect=$4
  shift 4
  begin "$_name"
  if ! "$MUTATE" "$_img" "$T/d.pdmp" "$@" > "$T/what" 2>&1; then
    fail "mutate $*: `cat "$T/what"`"
    return
  fi
  DUMPER_PDUMP_VERIFY=none "$_bin" --dump-file="$T/d.pdmp" < /dev/null \
    > /dev/null 2> "$T/lerr"
  _l=$?
  "$INSPECT" --check --exe "$_bin" "$T/d.pdmp" > /dev/null 2> "$T/ierr"
  _i=$?
  "$INSPECT" --check --deep --exe "$_bin" "$T/d.pdmp" > /dev/null 2>&1
  _d=$?
  if [ $_l -eq 86 ] && [ $_i -eq 86 ] && [ $_d -eq 86 ] \
     && grep -q "$_expect" "$T/lerr" && grep -q "$_expect" "$T/ierr"; then
    pass
  else
    fail "`cat "$T/what"`: loader $_l (`cat "$T/lerr"`), --check --exe $_i" \
      "(`cat "$T/ierr"`), --check --deep $_d; want 86 and \`$_expect'"
  fi
}
# The declaration count, from the loader's refusal of an index far out.
decl_count () {
  "$MUTATE" "$2" "$T/d.pdmp" record-decl 1 4294967295 > /dev/null 2>&1
  DUMPER_PDUMP_VERIFY=none "$1" --dump-file="$T/d.pdmp" < /dev/null 2>&1 \
    | sed -n 's/.*but the executable declares \([0-9]*\).*/\1/p'
}

toy_decls=`decl_count "$TOY" "$T/good.pdmp"`
agree_86 "a registry record names a declaration far out of range" \
  "$TOY" "$T/good.pdmp" "names declaration 4294967295" record-decl 1 4294967295
agree_86 "a registry record names declaration decl_count ($toy_decls)" \
  "$TOY" "$T/good.pdmp" "names declaration $toy_decls, but" \
  record-decl 2 "${toy_decls:-0}"
agree_86 "a scalar record's size differs from its declaration's" \
  "$TOY" "$T/good.pdmp" "does not match declaration" record-size 1
agree_86 "a root record's kind differs from its declaration's" \
  "$TOY" "$T/good.pdmp" "does not match declaration" record-kind 1

DLISP=$BUILDDIR/host/dlisp
DLISP_IMAGE=$BUILDDIR/host/dlisp.pdmp
if [ -f "$DLISP_IMAGE" ]; then
  dlisp_decls=`decl_count "$DLISP" "$DLISP_IMAGE"`
  agree_86 "dlisp: two RELOC_CODE entries out of order" \
    "$DLISP" "$DLISP_IMAGE" "out of order or outside HOT" code-order 1
  agree_86 "dlisp: a RELOC_CODE entry names word word_count" \
    "$DLISP" "$DLISP_IMAGE" "out of order or outside HOT" code-word 1
  agree_86 "dlisp: a code pointer names declaration decl_count ($dlisp_decls)" \
    "$DLISP" "$DLISP_IMAGE" "names declaration $dlisp_decls, which is not" \
    code-index 1 "${dlisp_decls:-0}"
  agree_86 "dlisp: a code pointer names a declaration of another kind" \
    "$DLISP" "$DLISP_IMAGE" "which is not a declared code target" code-kind 1
else
  begin "dlisp: RELOC_CODE mutants"
  skip "no host/dlisp.pdmp in this build"
fi

finish
