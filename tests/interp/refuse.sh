#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/interp/refuse.sh: the interpreter-shaped host (tests/interp/
# interp.c) breaking one rule of owner-sized blocks, interior pointers
# or registration just before its dump (issue 30).  In pdumper and
# unexec builds alike the pre-dump check refuses, with the status and
# the message of the check that must fire, and no file is written:
#   orphan-interior  a frame's savedpc into a code array no Proto holds:
#                    96, "lies in no object the dump reaches by its start"
#   oversize         the thread's stacksize grown without its block:
#                    91, "reported with N bytes, but its block has room"
#   disagree         two tables sharing one array part with different
#                    lengths: 91, "every referrer of a sized block must
#                    report the same length"
#   registration     a refused registration the host ignores: 95,
#                    naming the first refused call

. "$SRCDIR/tests/e2e/lib.sh"

INTERP=$BUILDDIR/tests/interp/interp

dump_option "interp refusals"

# refused SCENARIO STATUS MESSAGE: the dump with --bad SCENARIO exits
# STATUS, its stderr has MESSAGE (a grep pattern), and no output file
# exists.
refused () {
  begin "$BACKEND: --bad $1 is refused with $2, the right message, no file"
  rm -f "$T/out"
  "$INTERP" --dump="$T/out" --bad "$1" > "$T/stdout" 2> "$T/stderr"
  st=$?
  if [ $st -ne "$2" ]; then
    fail "status $st, want $2: `cat "$T/stderr"`"
  elif ! grep -q "$3" "$T/stderr"; then
    fail "the message lacks '$3': `cat "$T/stderr"`"
  elif [ -e "$T/out" ] || ls "$T" | grep -q '^out\.'; then
    fail "a file was written: `ls "$T"`"
  else
    pass
  fi
}

refused orphan-interior 96 "field at +`words 4`: the interior pointer .* lies in no object the dump reaches by its start"
refused oversize 91 "type \`StackValue\[\]' is reported with [0-9]* bytes, but its block has room for"
refused disagree 91 "every referrer of a sized block must report the same length"
refused registration 95 "the first refused: dumper_remember_ptr"

begin "$BACKEND: the same host without --bad dumps"
if "$INTERP" --dump="$T/out" > "$T/stdout" 2> "$T/stderr" && [ -s "$T/out" ]; then
  pass
else
  fail "`cat "$T/stderr"`"
fi

begin "--bad without --dump is a usage error (64)"
"$INTERP" --bad oversize > /dev/null 2> "$T/stderr"
st=$?
if [ $st -eq 64 ] && grep -q "needs --dump" "$T/stderr"; then pass
else fail "status $st: `cat "$T/stderr"`"; fi

finish
