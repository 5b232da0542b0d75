#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/migrate-tree.sh: how long dumper-migrate takes on a large tree.
#
# Usage: sh bench/migrate-tree.sh [BUILDDIR [LINES]]
#
# Generates a tree of about LINES (default 300000) lines of C in a
# temporary directory by replicating the fixture corpus of
# tests/migrate/fixtures (one directory per copy, the functions renamed
# per copy so the cross-file rule sees distinct functions), then times
# the report, --diff, --check and --fix on it, each run once after one
# warm-up report.  The tree is removed afterwards; nothing is written to
# the source tree.  Prints the line and file counts and the seconds.

BUILDDIR=${1:-`pwd`}
LINES=${2:-300000}
SRCDIR=`cd "\`dirname "$0"\`/.." && pwd`
MIGRATE=$BUILDDIR/tools/dumper-migrate
FIXTURES=$SRCDIR/tests/migrate/fixtures

if [ ! -x "$MIGRATE" ]; then
  echo "migrate-tree: no $MIGRATE; build it first (make tools/dumper-migrate)" >&2
  exit 2
fi
TREE=`mktemp -d "${TMPDIR:-/tmp}/migrate-tree.XXXXXX"` || exit 1
trap 'rm -rf "$TREE"' EXIT INT TERM

per_copy=`cat "$FIXTURES"/*.c "$FIXTURES"/*.h | wc -l`
copies=`expr \( $LINES + $per_copy - 1 \) / $per_copy`
i=1
while [ $i -le $copies ]; do
  dir=$TREE/src/m$i
  mkdir -p "$dir"
  for f in "$FIXTURES"/*.c "$FIXTURES"/*.h; do
    sed -e "s/\\binit_\\([a-z_]*\\) (/init_\\1_m$i (/g" \
        -e "s/\\bsyms_of_\\([a-z_]*\\) (/syms_of_\\1_m$i (/g" \
        -e "s/^main (/main_m$i (/" "$f" > "$dir/`basename "$f"`"
  done
  i=`expr $i + 1`
done
lines=`find "$TREE/src" -name '*.[ch]' -exec cat {} + | wc -l`
files=`find "$TREE/src" -name '*.[ch]' | wc -l`
echo "tree: $lines lines in $files files ($copies copies of the fixtures)"

now () { date +%s.%N; }
elapsed () { echo "$2 - $1" | bc; }

"$MIGRATE" -q "$TREE/src" > /dev/null          # warm the page cache
for mode in report --diff --check --fix; do
  arg=$mode
  [ "$mode" = report ] && arg=
  t0=`now`
  "$MIGRATE" -q $arg "$TREE/src" > "$TREE/out.txt"
  status=$?
  t1=`now`
  printf '%-8s %6.2f s  exit %d  %s\n' "$mode" `elapsed $t0 $t1` $status \
    "`wc -l < "$TREE/out.txt" | tr -d ' '` lines of output"
done
t0=`now`
"$MIGRATE" -q --check "$TREE/src" > /dev/null
t1=`now`
left=`"$MIGRATE" -q "$TREE/src" | grep -c '(certain)$'`
printf 'after --fix: --check %.2f s, %d certain sites left\n' `elapsed $t0 $t1` "$left"
