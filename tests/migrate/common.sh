# SPDX-License-Identifier: MIT
# tests/migrate/common.sh: shared set-up for the dumper-migrate scripts.
# Sourced after tests/e2e/lib.sh: defines $MIGRATE (the tool), $M (this
# directory in the source tree) and helpers.

MIGRATE=$BUILDDIR/tools/dumper-migrate
M=$SRCDIR/tests/migrate

# copy_fixtures DIR: a private copy of the fixtures as DIR/fixtures.
copy_fixtures () {
  rm -rf "$1/fixtures"
  mkdir -p "$1"
  cp -R "$M/fixtures" "$1/fixtures"
}

# same_files A B: the two files are byte-identical (shows a diff if not).
same_files () {
  if cmp -s "$1" "$2"; then
    return 0
  fi
  diff -u "$1" "$2" | head -40
  return 1
}
