#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/migrate/cocci.sh: the Coccinelle semantic patches in tools/cocci
# agree with dumper-migrate on the fixtures (skipped without spatch).
#
#  1. tools/cocci/dumper-migrate.cocci followed by `dumper-migrate --fix'
#     gives exactly what `dumper-migrate --fix' alone gives: every
#     rewrite Coccinelle makes is one of the tool's certain rewrites, and
#     what it leaves (guard lines, includes, flag parameters) is what the
#     tool finishes.
#  2. After the semantic patch alone, none of the patterns it claims to
#     cover has a certain site left, and the only CANNOT_DUMP guards
#     still testing a legacy flag are the two shapes it documents as not
#     covered.
#  3. tools/cocci/review.cocci marks every purify-flag and
#     flag-parameter review site of the tool.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/migrate/common.sh"

COCCI=$SRCDIR/tools/cocci

if [ -z "$SPATCH" ] || [ ! -x "$SPATCH" ]; then
  begin "semantic patches agree with dumper-migrate"
  skip "spatch not found by configure"
  finish
fi

# spatch works on temporary copies of the files in TMPDIR and names them
# to the patch's Python; a file there that is not UTF-8 (any program's)
# must not matter: the patch reads only the tree it was given (issue 34).
mkdir "$T/tmp"
printf '/* \375 */\nint stray_latin1 (void) { return 0; }\n' > "$T/tmp/stray-latin1.c"

spatch_fix () {
  TMPDIR=$T/tmp "$SPATCH" --very-quiet --smpl-spacing --in-place --include-headers \
    --sp-file "$COCCI/dumper-migrate.cocci" --dir "$1" > "$T/spatch.log" 2>&1
}

copy_fixtures "$T/cocci"
copy_fixtures "$T/tool"
# A header that is not UTF-8 (a Latin-1 comment) in the tree: the
# patch's machinery walk reads it (issue 34: a UnicodeDecodeError there
# stopped every rewrite).  Its function holds unexec machinery (sbrk),
# so it counts as such for the fixtures that call it.
for d in "$T/cocci" "$T/tool"; do
  printf '/* Latin-1: d\351j\340 vu, \375 */\nstatic inline void *latin1_grow (long n) { return sbrk (n); }\n' \
    > "$d/fixtures/latin1.h"
done
check "spatch applies dumper-migrate.cocci" spatch_fix "$T/cocci/fixtures"
begin "the semantic patch read every file without a Python error"
if grep -q "Traceback\|Error" "$T/spatch.log"; then
  sed 's/^/    | /' "$T/spatch.log" | tail -20
  fail "spatch's Python failed"
else
  pass
fi
cp -R "$T/cocci/fixtures" "$T/after-spatch"

begin "spatch changed the fixtures"
changed=0
for f in "$M/fixtures/"*; do
  cmp -s "$f" "$T/after-spatch/`basename "$f"`" || changed=`expr $changed + 1`
done
if [ "$changed" -ge 5 ]; then pass; else fail "only $changed files changed"; fi

(cd "$T/cocci" && "$MIGRATE" -q --fix --no-backup fixtures > /dev/null)
(cd "$T/tool" && "$MIGRATE" -q --fix --no-backup fixtures > /dev/null)
check "spatch + dumper-migrate --fix = dumper-migrate --fix" \
  diff -r "$T/cocci/fixtures" "$T/tool/fixtures"

covered="initialized-decl initialized-set might-dump-set might-dump-use dumping-use"
for p in $covered; do
  check "no certain $p site left after spatch" \
    sh -c 'cd "$1" && ! "$0" -q --rules="$2" fixtures | grep -q "(certain)$"' \
    "$MIGRATE" "$T/after-spatch/.." "$p"
done

# Not covered by the semantic patch (see its header): the expr-else shape
# and a guard whose test is a flag parameter that only the tool's
# cross-file rule can drop.
begin "guards left with a legacy test are the documented ones"
(cd "$T" && "$MIGRATE" -q --rules=cannot-dump-guard after-spatch) > "$T/guards.txt"
left=`grep '(certain)$' "$T/guards.txt" | grep -E ': cannot-dump-guard: [^;]*(initialized|dumping|might_dump)' | cut -d: -f1-2 | tr '\n' ' '`
if [ "$left" = "after-spatch/doc.c:56 after-spatch/editfns.c:16 " ]; then pass; else fail "left: $left"; fi

begin "review.cocci marks the tool's purify-flag and flag-parameter sites"
"$SPATCH" --very-quiet --include-headers --sp-file "$COCCI/review.cocci" --dir "$M/fixtures" > "$T/review.out" 2> "$T/review.err"
(cd "$M" && "$MIGRATE" -q --rules=purify-flag,flag-parameter fixtures) | grep '(review)$' > "$T/review-sites.txt"
missing=
count=0
while IFS=: read -r file line rest; do
  count=`expr $count + 1`
  text=`sed -n "${line}p" "$M/$file" | sed 's/^[ \t]*//'`
  grep -F -- "$text" "$T/review.out" | grep -q '^-' || missing="$missing $file:$line"
done < "$T/review-sites.txt"
if [ "$count" -ge 3 ] && [ -z "$missing" ]; then pass; else fail "$count sites, not marked:$missing"; fi

finish
