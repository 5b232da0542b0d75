#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/migrate/classes.sh: the fixtures of issue 18's eight failure
# classes (tests/migrate/classes: cN-*.c minimal shapes, real-*.c and
# real-*.m realistic files).  The report, the JSON report and the diff
# match the reviewed expected files; --fix gives the reviewed post-fix
# tree (expected/classes-fixed); the post-fix tree compiles with
# -Wall -Werror in every mode (unused variables included); and each
# class has its own check of the fixed behaviour.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/migrate/common.sh"

: "${CC:=cc}"
E=$M/expected

cd "$M" || exit 1

check "report matches expected/classes.txt" \
  sh -c '"$0" -q classes > "$1/report.txt"; cmp -s "$1/report.txt" expected/classes.txt || { diff -u expected/classes.txt "$1/report.txt" | head -40; exit 1; }' "$MIGRATE" "$T"
check "JSON report matches expected/classes.json" \
  sh -c '"$0" -q --json classes > "$1/report.json"; cmp -s "$1/report.json" expected/classes.json || { diff -u expected/classes.json "$1/report.json" | head -40; exit 1; }' "$MIGRATE" "$T"
check "diff matches expected/classes.diff" \
  sh -c '"$0" -q --diff classes > "$1/fix.diff" && cmp -s "$1/fix.diff" expected/classes.diff || { diff -u expected/classes.diff "$1/fix.diff" | head -40; exit 1; }' "$MIGRATE" "$T"

rm -rf "$T/work"
mkdir -p "$T/work"
cp -R classes "$T/work/classes"
(cd "$T/work" && "$MIGRATE" -q --fix --no-backup classes > "$T/fix.txt")
check "--fix gives the post-fix tree expected/classes-fixed" \
  diff -r "$E/classes-fixed" "$T/work/classes"

# --- the compile check: every mode, -Wall -Werror ---------------------
for mode in pdumper:1:0 unexec:0:1 none:0:0; do
  name=${mode%%:*}
  rest=${mode#*:}
  mkdir -p "$T/$name/dumper"
  printf '#define DUMPER_WITH_PDUMPER %s\n#define DUMPER_WITH_UNEXEC %s\n#define DUMPER_BACKEND "%s"\n' \
    "${rest%%:*}" "${rest#*:}" "$name" > "$T/$name/dumper/backend.h"
  begin "post-fix tree compiles with -Wall -Werror ($name)"
  bad=
  for f in "$T/work/classes/"*.c "$T/work/classes/"c*.m; do
    if ! $CC -std=gnu11 -Wall -Werror -x c -c -o "$T/out.o" -I"$T/$name" \
         -I"$SRCDIR/include" "$f" > "$T/cc.log" 2>&1; then
      sed 's/^/    | /' "$T/cc.log" | head -12
      bad="$bad `basename "$f"`"
    fi
  done
  if [ -z "$bad" ]; then pass; else fail "did not compile:$bad"; fi
done
begin "legacy fixtures compile, with and without CANNOT_DUMP"
bad=
for f in classes/*.c classes/c*.m; do
  for def in -UCANNOT_DUMP -DCANNOT_DUMP; do
    $CC -std=gnu11 -Wall -x c -c -o "$T/out.o" $def "$f" > "$T/cc.log" 2>&1 \
      || { sed 's/^/    | /' "$T/cc.log" | head -6; bad="$bad `basename "$f"`$def"; }
  done
done
if [ -z "$bad" ]; then pass; else fail "did not compile:$bad"; fi

# --- one check per class, on the fixed behaviour ----------------------
R=$T/report.txt
# 1: the guard around unexec-only code stays review, and a second --fix
#    changes nothing (tests/migrate/property.sh does this for every
#    combination).
check "class 1: the nested guard is review, its marker written" \
  sh -c 'grep -q "^classes/c1-nested-guard.c:27:1: cannot-dump-guard: .*(review)$" "$0" && grep -q "dumper-migrate: review cannot-dump-guard" "$1/work/classes/c1-nested-guard.c"' "$R" "$T"
check "class 1: a second --fix changes nothing" \
  sh -c 'cd "$1/work" && out=`"$0" -q --diff classes` && test -z "$out"' "$MIGRATE" "$T"
# 2: the read of the dropped parameter is review, offering dumped_with_unexec.
check "class 2: the read of a dropped \`initialized' is review with dumped_with_unexec" \
  sh -c 'grep "^classes/c2-flag-param.c:24:7: flag-parameter: " "$0" | grep -q "dumped_with_unexec.*(review)$"' "$R"
# 3: ASLR and re-exec work is will_dump_with_unexec, from the call graph.
check "class 3: a dropped \`dumping' over a re-exec helper becomes will_dump_with_unexec" \
  sh -c 'grep -q "^  if (will_dump_with_unexec)\$" "$0/work/classes/c3-aslr.c" && grep "^classes/c3-aslr.c:43:7: dumping-use: " "$0/report.txt" | grep -q "will_dump_with_unexec.*c3_reexec.*(certain)\$"' "$T"
check "class 3: disable_aslr_somehow (dumping) is offered will_dump_with_unexec" \
  sh -c 'grep "^classes/c3-aslr.c:53:25: dumping-use: " "$0" | grep -q "will_dump_with_unexec.*disable_aslr_somehow"' "$R"
check "class 3: the personality/execve block is offered will_dump_with_unexec" \
  sh -c 'grep "^classes/c3-aslr.c:54:7: dumping-use: " "$0" | grep -q "will_dump_with_unexec"' "$R"
# 4: unexec machinery under #ifndef CANNOT_DUMP is offered #if DUMPER_WITH_UNEXEC only.
check "class 4: malloc redirection and sbrk are offered #if DUMPER_WITH_UNEXEC" \
  sh -c 'test `grep "^classes/c4-unexec-alloc.c:" "$0" | grep -c "#if DUMPER_WITH_UNEXEC'"'"'"` -eq 2 && ! grep "^classes/c4-unexec-alloc.c:" "$0" | grep -q "UNEXEC || DUMPER_WITH_PDUMPER"' "$R"
# 5: the review item survives --fix and --check keeps failing.
check "class 5: after --fix the initialized test is still a review item" \
  sh -c 'cd "$1/work" && "$0" -q classes/c5-review-persists.c | grep -q "^classes/c5-review-persists.c:[0-9]*:[0-9]*: initialized-test: .*(review)$"' "$MIGRATE" "$T"
expect_status "class 5: --check fails (6) after --fix while it is unresolved" 6 \
  "$MIGRATE" -q --check "$T/work/classes/c5-review-persists.c"
sed 's/dumper-migrate: review initialized-test/dumper-migrate: keep (faces of a dumped editor)/' \
  "$T/work/classes/c5-review-persists.c" > "$T/c5-kept.c"
expect_status "class 5: --check passes once a person marks it keep" 0 \
  "$MIGRATE" -q --check "$T/c5-kept.c"
check "class 5: --json flags the held item" \
  sh -c 'cd "$1/work" && "$0" -q --json classes/c5-review-persists.c | grep -q "\"marker\": true"' "$MIGRATE" "$T"
# 6: only the real dump test suggests will_dump.
check "class 6: value and purecopy uses are not reported" \
  sh -c 'test `grep -c "^classes/c6-purify.c:.*purify-flag" "$0"` -eq 2' "$R"
check "class 6: the autoload guard names the bootstrap exception, no predicate" \
  sh -c 'grep "^classes/c6-purify.c:35:7: purify-flag: " "$0" | grep -q "no predicate: .*bootstrap exception"' "$R"
check "class 6: the dump-cache test suggests will_dump" \
  sh -c 'grep "^classes/c6-purify.c:42:7: purify-flag: " "$0" | grep -q "; .will_dump.: it gates"' "$R"
# 7: the Objective-C file is read, the grammar listed as skipped.
check "class 7: static bool initialized in a .m file is reported and deleted" \
  sh -c 'grep -q "^classes/c7-objc.m:8:13: initialized-decl: .*(certain)$" "$0" && ! grep -q "static bool initialized" "$1/work/classes/c7-objc.m"' "$R" "$T"
check "class 7: the .y file is listed as skipped, with the reason" \
  sh -c 'grep -q "^classes/c7-parse.y: skipped: yacc grammar" "$0" && grep -q "\"skipped\": \[" "$1/report.json"' "$R" "$T"
# 8: no leftovers: no empty conditional, no stale comment, no unused local.
check "class 8: no empty conditional or stale comment is left" \
  sh -c '! grep -n -A1 "^# *if" "$0/work/classes/c8-leftovers.c" | grep -q "^[0-9]*-# *endif" && ! grep -q "might_dump\|CANNOT_DUMP" "$0/work/classes/c8-leftovers.c"' "$T"
# Issue 14: the gflags short names are macros; members and parameters
# named like them are reported (declarations and uses), and no include
# is added on behalf of a parameter that only shadows the name.
check "issue 14: members and parameters named like gflags macros are reported" \
  sh -c 'test `grep -c "^classes/c14-collision.c:.*name-collision: \(member\|parameter\) " "$0"` -eq 6' "$R"
check "issue 14: a parameter named will_dump does not pull in gflags.h" \
  sh -c '! grep -q "^#include <dumper/gflags.h>" "$0/work/classes/c14-collision.c"' "$T"

finish
