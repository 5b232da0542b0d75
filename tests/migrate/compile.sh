#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/migrate/compile.sh: the fixtures are real C, before and after
# dumper-migrate --fix.  The originals compile with and without
# CANNOT_DUMP; the rewritten ones compile against include/dumper/gflags.h
# with backend.h saying each mode (pdumper, unexec, none); and in a
# `none' build the code behind a rewritten will_dump test is gone.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/migrate/common.sh"

: "${CC:=cc}"

# backend_h MODE PDUMPER UNEXEC: $T/MODE/dumper/backend.h for one mode.
backend_h () {
  mkdir -p "$T/$1/dumper"
  printf '#define DUMPER_WITH_PDUMPER %s\n#define DUMPER_WITH_UNEXEC %s\n#define DUMPER_BACKEND "%s"\n' \
    "$2" "$3" "$1" > "$T/$1/dumper/backend.h"
}
backend_h pdumper 1 0
backend_h unexec 0 1
backend_h none 0 0

# compile_all DIR LABEL FLAGS...: every fixture in DIR compiles.
compile_all () {
  _dir=$1
  _label=$2
  shift 2
  begin "$_label"
  _bad=
  for _f in "$_dir"/*.c; do
    if ! $CC -std=gnu11 -Wall -c -o "$T/out.o" "$@" "$_f" > "$T/cc.log" 2>&1; then
      sed 's/^/    | /' "$T/cc.log" | head -20
      _bad="$_bad `basename "$_f"`"
    fi
  done
  if [ -z "$_bad" ]; then pass; else fail "did not compile:$_bad"; fi
}

compile_all "$M/fixtures" "original fixtures compile (build can dump)"
compile_all "$M/fixtures" "original fixtures compile (-DCANNOT_DUMP)" -DCANNOT_DUMP

copy_fixtures "$T/work"
(cd "$T/work" && "$MIGRATE" -q --fix --no-backup fixtures > /dev/null)
for mode in pdumper unexec none; do
  compile_all "$T/work/fixtures" "rewritten fixtures compile ($mode)" \
    -I"$T/$mode" -I"$SRCDIR/include"
done

# filelock.c calls lock_cache_reset () only `if (will_dump)' now.
for mode in pdumper none; do
  $CC -std=gnu11 -O2 -c -o "$T/filelock-$mode.o" -I"$T/$mode" -I"$SRCDIR/include" \
    "$T/work/fixtures/filelock.c" 2> /dev/null
done
begin "will_dump code is compiled out of a none build only"
if ! command -v nm > /dev/null; then
  skip "nm not installed"
elif nm "$T/filelock-pdumper.o" | grep -q 'U lock_cache_reset' \
     && ! nm "$T/filelock-none.o" | grep -q 'lock_cache_reset'; then
  pass
else
  fail "lock_cache_reset: pdumper `nm "$T/filelock-pdumper.o" | grep -c lock_cache_reset`, none `nm "$T/filelock-none.o" | grep -c lock_cache_reset`"
fi

finish
