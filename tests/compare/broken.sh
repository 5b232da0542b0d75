#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/compare/broken.sh: dumper-compare on hosts that are wrong.
#
# A host that forgets to remember one scalar (tests/compare/
# dlisp-forgetful: dlisp built with DLISP_TEST_FORGET_SCALAR, whose
# pdump starts run the loadup again on top of the image) makes the tool
# fail with status 2 and name the first divergence: the line where the
# two heap dumps part (found here with cmp), both sides' records, and a
# path from the root symbol that holds it (found here by following the
# parents with awk).  The same host passes under unexec, whose dumped
# executable keeps every static whether remembered or not (and has no
# `stats' words: the tool does without).  A start that fails makes it fail with status 4 and
# show the host's error.  Both go through a host description (--host):
# the host-agnostic form of the contract.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/compare/builds.sh"

check_builds

begin "the broken host builds"
if env -u MAKEFLAGS -u MAKELEVEL make -C "$PDUMPER_DIR" tests/compare/dlisp-forgetful \
     > "$T/make.log" 2>&1; then
  pass
else
  tail -20 "$T/make.log" | sed 's/^/    | /'
  fail "make tests/compare/dlisp-forgetful failed"
  finish
fi
BROKEN=$PDUMPER_DIR/tests/compare/dlisp-forgetful

cat > "$T/broken.host" <<'HOST'
# dlisp with one remembered scalar forgotten
name        dlisp-forgetful
cold        {none}/host/dlisp --loadup-scale {scale}
pdump-dump  {pdumper}/tests/compare/dlisp-forgetful --loadup-scale {scale} --temacs=pdump --output {artifact}
pdump-start {pdumper}/tests/compare/dlisp-forgetful --dump-file={artifact}
batch       --batch
digest      --heap-digest
heap-dump   --heap-dump {file}
stats       --stats
HOST

begin "the tool fails with status 2 when the digests differ"
"$TOOL" --host "$T/broken.host" --none "$NONE_DIR" --pdumper "$PDUMPER_DIR" --runs 1 \
  --work-dir "$T/work" > "$T/out" 2> "$T/err"
st=$?
sed 's/^/    | /' "$T/out"
if [ $st -eq 2 ] && grep -q '^scale 1: the heap digests differ:' "$T/out"; then pass
else sed 's/^/    | /' "$T/err"; fail "exit status $st"; fi

# The first divergence, found independently from the hosts' own dumps.
"$NONE_DIR/host/dlisp" --heap-dump "$T/cold.txt"
"$BROKEN" --temacs=pdump --output "$T/broken.pdmp" > /dev/null
"$BROKEN" --dump-file="$T/broken.pdmp" --heap-dump "$T/pdump.txt"
line=`cmp "$T/cold.txt" "$T/pdump.txt" | sed -n 's/.* line \([0-9]*\).*/\1/p'`
cold_line=`sed -n "${line}p" "$T/cold.txt"`
pdump_line=`sed -n "${line}p" "$T/pdump.txt"`
# What a record says: after `#N LOCATION ' or `  LOCATION = '.
content () {
  printf '%s\n' "$1" | sed 's/^#[0-9]* [^ ]* //; s/^  [^ ]* = //'
}
# The root of the record at line $line: follow #PARENT back.
root=`awk -v stop="$line" '
  NR < stop && /^#[0-9]/ { id = substr($1, 2); loc[id] = $2; rest[id] = $0 }
  NR == stop {
    l = ($1 ~ /^#[0-9]/) ? $2 : $1
    while (l ~ /^#/) { split(substr(l, 2), p, "."); last = p[1]; l = loc[last] }
    r = rest[last]; sub(/^#[0-9]* [^ ]* symbol "/, "", r); sub(/".*/, "", r); print r; exit
  }' "$T/cold.txt"`

begin "it names the line where the heap dumps part"
if [ -n "$line" ] && grep -q "^first divergence of the heap dumps, at line $line " "$T/out"
then pass
else fail "expected line $line"; fi

begin "it shows both sides' records"
if grep -qxF "  cold:  `content "$cold_line"`" "$T/out" \
   && grep -qxF "  pdump: `content "$pdump_line"`" "$T/out"
then pass
else fail "expected cold \`$cold_line' and pdump \`$pdump_line'"; fi

begin "it gives the path from the root symbol"
if [ -n "$root" ] && grep -q "^  symbol \`$root' → [a-z]" "$T/out"; then pass
else fail "expected a path from symbol \`$root'"; fi

begin "the heap dumps stay in --work-dir"
if cmp -s "$T/work/scale-1/heap-cold.txt" "$T/cold.txt" \
   && [ -s "$T/work/scale-1/heap-pdump.txt" ] && grep -q "$T/work/scale-1" "$T/out"
then pass
else fail "heap dumps missing in $T/work/scale-1"; fi

begin "the same host passes under unexec: its data segment keeps every static"
if env -u MAKEFLAGS -u MAKELEVEL make -C "$UNEXEC_DIR" tests/compare/dlisp-forgetful \
     > "$T/make.log" 2>&1; then
  cat > "$T/unexec.host" <<'HOST'
cold          {none}/host/dlisp --loadup-scale {scale}
unexec-dump   {unexec}/tests/compare/dlisp-forgetful --loadup-scale {scale} --temacs=dump --output {artifact}
unexec-start  {artifact}
unexec-input  {unexec}/tests/compare/dlisp-forgetful
batch         --batch
digest        --heap-digest
heap-dump     --heap-dump {file}
HOST
  "$TOOL" --host "$T/unexec.host" --none "$NONE_DIR" --unexec "$UNEXEC_DIR" --runs 1 \
    --quiet > "$T/good.out" 2>&1
  st=$?
  if [ $st -eq 0 ] && grep -q '^    1  unexec ' "$T/good.out"; then pass
  else sed 's/^/    | /' "$T/good.out"; fail "exit status $st"; fi
else
  tail -20 "$T/make.log" | sed 's/^/    | /'
  fail "make tests/compare/dlisp-forgetful failed in $UNEXEC_DIR"
fi

begin "a start that fails gives status 4 and the host's message"
sed 's|^pdump-start.*|pdump-start {pdumper}/host/dlisp --dump-file={artifact}.missing|' \
  "$T/broken.host" > "$T/failing.host"
"$TOOL" --host "$T/failing.host" --none "$NONE_DIR" --pdumper "$PDUMPER_DIR" --runs 1 \
  --quiet > "$T/out" 2> "$T/err"
st=$?
if [ $st -eq 4 ] && grep -q 'pdump-digest failed (exit status 80)' "$T/err" \
   && grep -q 'missing' "$T/err"
then pass
else sed 's/^/    | /' "$T/err"; fail "exit status $st"; fi

finish
