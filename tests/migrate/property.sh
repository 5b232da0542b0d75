#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/migrate/property.sh: --fix is idempotent (issue 18, class 1).
#
# Applies `dumper-migrate --fix' to trees made of the fixtures
# (tests/migrate/fixtures and tests/migrate/classes): every file alone,
# all of them together, and MIGRATE_PROPERTY_RUNS (default 15) random
# combinations drawn with MIGRATE_PROPERTY_SEED (default 18; printed,
# so a failure can be replayed).  After the first --fix, a second
# --fix must change nothing: --diff prints nothing and every file is
# byte for byte the same.  A review item of the first run must still be
# a review item in the second (markers hold it), and --check must still
# fail while any is left.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/migrate/common.sh"

SEED=${MIGRATE_PROPERTY_SEED:-18}
RUNS=${MIGRATE_PROPERTY_RUNS:-15}
POOL=$T/pool
mkdir -p "$POOL"
cp "$M"/fixtures/* "$M"/classes/* "$POOL"/
ls "$POOL" | sort > "$T/names"
count=`wc -l < "$T/names" | tr -d ' '`

# fix_twice DIR: 0 when a second --fix of DIR changes nothing.
fix_twice () {
  ( cd "$1" && "$MIGRATE" -q --fix --no-backup . > "$T/first.txt" ) || return 1
  rm -rf "$1.after"
  cp -R "$1" "$1.after"
  ( cd "$1" && "$MIGRATE" -q --diff . > "$T/second.diff" ) || return 1
  if [ -s "$T/second.diff" ]; then
    echo "    second --diff of `basename "$1"` (`cat "$1.files"`):"
    head -30 "$T/second.diff" | sed 's/^/    | /'
    return 1
  fi
  ( cd "$1" && "$MIGRATE" -q --fix --no-backup . > "$T/second.txt" ) || return 1

  if ! diff -r "$1" "$1.after" > "$T/changed.txt"; then
    head -30 "$T/changed.txt" | sed 's/^/    | /'
    return 1
  fi
  # Every review item of the first run is one of the second.
  first_review=`grep -c '(review)$' "$T/first.txt"`
  second_review=`grep -c '(review)$' "$T/second.txt"`
  if [ "$second_review" -lt "$first_review" ] || grep -q '(certain)$' "$T/second.txt"; then
    echo "    review items: $first_review after the first --fix, $second_review after the second"
    grep '(certain)$' "$T/second.txt" | head -5 | sed 's/^/    | /'
    return 1
  fi
  if [ "$first_review" -gt 0 ]; then
    ( cd "$1" && "$MIGRATE" -q --check . > /dev/null )
    [ $? -eq 6 ] || { echo "    --check passed with review items left"; return 1; }
  fi
  return 0
}

# tree NAME FILE...: a tree of those fixtures.
tree () {
  _d=$T/$1
  shift
  rm -rf "$_d" "$_d.after"
  mkdir -p "$_d"
  for _f in "$@"; do cp "$POOL/$_f" "$_d/"; done
  echo "$*" > "$_d.files"
}

begin "--fix twice on each fixture alone: the second run changes nothing"
bad=
while read -r name; do
  tree "one" "$name"
  fix_twice "$T/one" || bad="$bad $name"
done < "$T/names"
if [ -z "$bad" ]; then pass; else fail "not idempotent:$bad"; fi

begin "--fix twice on all $count fixtures together"
tree "all" `cat "$T/names"`
if fix_twice "$T/all"; then pass; else fail "not idempotent"; fi

begin "--fix twice on $RUNS random combinations (seed $SEED)"
awk -v seed="$SEED" -v runs="$RUNS" '
  { name[NR] = $0 }
  END {
    srand (seed)
    for (r = 1; r <= runs; r++) {
      line = ""
      for (i = 1; i <= NR; i++)
        if (rand () < 0.5) line = line " " name[i]
      if (line == "") line = " " name[1 + int (rand () * NR)]
      print substr (line, 2)
    }
  }' "$T/names" > "$T/combos"
bad=
n=0
while read -r combo; do
  n=`expr $n + 1`
  tree "combo" $combo
  fix_twice "$T/combo" || bad="$bad #$n"
done < "$T/combos"
if [ -z "$bad" ]; then pass; else fail "not idempotent: combinations$bad (MIGRATE_PROPERTY_SEED=$SEED)"; fi

finish
