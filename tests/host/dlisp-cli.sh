#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/host/dlisp-cli.sh: dlisp's command-line contract: --help,
# --version, usage errors (exit 64), the REPL on standard input, the
# dump request in a build without that back end, and arguments after
# `--'.

. "$SRCDIR/tests/e2e/lib.sh"

DLISP=$BUILDDIR/host/dlisp
BARE=$BUILDDIR/host/dlisp-bare

check "--help exits 0" "$DLISP" --help
begin "--help describes the options"
if "$DLISP" --help | grep -q -- '--loadup-scale'; then pass; else fail "no --loadup-scale in --help"; fi
check "--version exits 0" "$DLISP" --version
expect_status "unknown option exits 64" 64 "$DLISP" --no-such-option
expect_status "stray argument exits 64" 64 "$DLISP" stray
expect_status "--loadup-scale 0 exits 64" 64 "$DLISP" --loadup-scale 0 --batch
expect_status "--loadup-scale x exits 64" 64 "$DLISP" --loadup-scale=x --batch
expect_status "--loadup-scale without a value exits 64" 64 "$DLISP" --loadup-scale
expect_status "a missing lisp directory exits 8" 8 "$BARE" --lisp-dir "$T/none" --batch
expect_status "an --eval error exits 7" 7 "$DLISP" --batch --eval '(car 1)'
expect_status "a missing -l file exits 7" 7 "$DLISP" --batch -l "$T/missing.lisp"

begin "the REPL reads, evaluates and prints, and survives errors"
out=`printf '(+ 1 2)\n(car 1)\n(list "a"\n 2.5)\n(defun sq (x) (* x x)) (sq 12)\n' | "$DLISP" 2>&1`
expected='3
error: Wrong type argument: listp, 1
("a" 2.5)
sq
144'
if [ "$out" = "$expected" ]; then pass; else printf '%s\n' "$out" | sed 's/^/    | /'; fail "unexpected REPL output"; fi

begin "arguments after -- are in command-line-args"
out=`"$DLISP" --batch --eval '(princ (format "%S" (cdr command-line-args)))' -- a "b c" 2>&1`
if [ "$out" = '("a" "b c")' ]; then pass; else fail "got: $out"; fi

begin "--temacs for a back end the build lacks fails with the library's status"
case $BACKEND in
  pdumper) mode=dump ;;
  *) mode=pdump ;;
esac
"$BARE" --temacs=$mode --output "$T/out" >"$T/err" 2>&1
st=$?
if [ "$st" -eq 69 ] && grep -q 'not available' "$T/err"; then pass; else cat "$T/err"; fail "exit status $st"; fi

begin "--temacs in a none build reports the missing back end"
if [ "$BACKEND" != none ]; then
  skip "this is a $BACKEND build"
else
  "$BARE" --temacs=pdump >"$T/err" 2>&1
  st=$?
  if [ "$st" -eq 69 ]; then pass; else cat "$T/err"; fail "exit status $st"; fi
fi

finish
