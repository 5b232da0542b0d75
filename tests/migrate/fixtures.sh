#!/bin/sh
# tests/migrate/fixtures.sh: dumper-migrate on the fixture corpus:
# the report, the JSON report and the diff match the reviewed expected
# files; --fix gives exactly what the diff says; a second --fix changes
# nothing; --check fails while review sites remain.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/migrate/common.sh"

cd "$M" || exit 1

check "report matches expected/report.txt" \
  sh -c '"$0" -q fixtures > "$1/report.txt" && cmp -s "$1/report.txt" expected/report.txt || { diff -u expected/report.txt "$1/report.txt" | head -40; exit 1; }' "$MIGRATE" "$T"

check "JSON report matches expected/report.json" \
  sh -c '"$0" -q --json fixtures > "$1/report.json" && cmp -s "$1/report.json" expected/report.json || { diff -u expected/report.json "$1/report.json" | head -40; exit 1; }' "$MIGRATE" "$T"

begin "JSON report parses and counts the sites"
if command -v python3 > /dev/null; then
  n=`python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["sites"]), d["summary"]["certain"]+d["summary"]["review"])' "$T/report.json"`
  lines=`wc -l < expected/report.txt | tr -d ' '`
  if [ "$n" = "$lines $lines" ]; then pass; else fail "sites/summary $n, report lines $lines"; fi
else
  skip "python3 not installed"
fi

check "diff matches expected/fix.diff" \
  sh -c '"$0" -q --diff fixtures > "$1/fix.diff" && cmp -s "$1/fix.diff" expected/fix.diff || { diff -u expected/fix.diff "$1/fix.diff" | head -40; exit 1; }' "$MIGRATE" "$T"

check "output is stable across runs" \
  sh -c '"$0" -q fixtures > "$1/again.txt" && cmp -s "$1/again.txt" "$1/report.txt"' "$MIGRATE" "$T"

begin "report names every certain site of the diff"
certain=`grep -c '(certain)$' expected/report.txt`
if [ "$certain" -ge 20 ] && grep -q '(review)$' expected/report.txt; then pass; else fail "only $certain certain sites"; fi

# --fix on one copy, patch(1) with the expected diff on another.
copy_fixtures "$T/fix"
copy_fixtures "$T/patch"
expect_status "--fix exits 0" 0 sh -c 'cd "$1" && "$0" -q --fix fixtures > /dev/null' "$MIGRATE" "$T/fix"

begin "--fix writes what --diff shows"
if ! command -v patch > /dev/null; then
  skip "patch not installed"
elif (cd "$T/patch" && patch -s -p0 < "$M/expected/fix.diff") > "$T/patch.log" 2>&1; then
  bad=
  for f in "$T/patch/fixtures/"*; do
    b=`basename "$f"`
    same_files "$f" "$T/fix/fixtures/$b" || bad="$bad $b"
  done
  if [ -z "$bad" ]; then pass; else fail "differs:$bad"; fi
else
  cat "$T/patch.log"
  fail "patch did not apply"
fi

begin "--fix keeps FILE.orig with the old text"
bad=
for f in "$M/fixtures/"*; do
  b=`basename "$f"`
  if grep -q "^+++ fixtures/$b\$" "$M/expected/fix.diff"; then
    same_files "$f" "$T/fix/fixtures/$b.orig" || bad="$bad $b"
  elif [ -e "$T/fix/fixtures/$b.orig" ]; then
    bad="$bad $b(unchanged-but-backed-up)"
  fi
done
if [ -z "$bad" ]; then pass; else fail "backups wrong:$bad"; fi

begin "--fix is idempotent"
rm -f "$T/fix/fixtures/"*.orig
cp -R "$T/fix/fixtures" "$T/first"
(cd "$T/fix" && "$MIGRATE" -q --fix fixtures > "$T/second.txt")
bad=
for f in "$T/first/"*; do
  same_files "$f" "$T/fix/fixtures/`basename "$f"`" || bad="$bad `basename "$f"`"
done
backups=`ls "$T/fix/fixtures/" | grep -c '\.orig$'`
if [ -z "$bad" ] && [ "$backups" -eq 0 ]; then pass; else fail "changed:$bad, backups $backups"; fi

check "--diff after --fix is empty" \
  sh -c 'cd "$1" && out=`"$0" -q --diff fixtures` && test -z "$out"' "$MIGRATE" "$T/fix"

begin "after --fix only review sites remain"
if grep -q '(certain)$' "$T/second.txt"; then
  fail "certain sites left: `grep '(certain)$' "$T/second.txt" | head -3`"
elif grep -q '(review)$' "$T/second.txt"; then
  pass
else
  fail "no review sites left either"
fi

expect_status "--check fails while review sites remain" 6 \
  sh -c 'cd "$1" && "$0" -q --check fixtures' "$MIGRATE" "$T/fix"

expect_status "--check passes on a migrated main" 0 \
  "$MIGRATE" -q --check "$M/clean"

finish
