#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/host/dlisp-batch.sh: run Lisp test files through `dlisp --batch'
# (the prelude, keymaps, the torture objects) and check that Lisp errors
# and failed checks give a non-zero exit status.

. "$SRCDIR/tests/e2e/lib.sh"

DLISP=$BUILDDIR/host/dlisp

begin "basic.lisp passes"
out=`"$DLISP" --batch -l "$SRCDIR/tests/host/basic.lisp" 2>&1`
st=$?
if [ "$st" -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL' \
   && printf '%s\n' "$out" | grep -q ' checks, 0 failed'; then
  pass
else
  printf '%s\n' "$out" | grep -v '^PASS' | sed 's/^/    | /'
  fail "exit status $st"
fi

cat > "$T/failing.lisp" <<'LISP'
(princ "before\n")
(car 'not-a-list)
(princ "not reached\n")
LISP
begin "an uncaught error in -l exits 7 with a message"
out=`"$DLISP" --batch -l "$T/failing.lisp" 2>&1`
st=$?
if [ "$st" -eq 7 ] && printf '%s\n' "$out" | grep -q 'Wrong type argument: listp, not-a-list' \
   && ! printf '%s\n' "$out" | grep -q 'not reached'; then
  pass
else
  printf '%s\n' "$out" | sed 's/^/    | /'
  fail "exit status $st"
fi

begin "--eval and -l run in command-line order"
printf '(setq order (cons (quote file) order))\n' > "$T/order.lisp"
out=`"$DLISP" --batch --eval '(setq order (list (quote first)))' -l "$T/order.lisp" \
  --eval '(princ (format "%S" order))' 2>&1`
if [ "$out" = "(file first)" ]; then pass; else fail "got: $out"; fi

begin "kill-emacs sets the exit status"
"$DLISP" --batch --eval '(kill-emacs 7)' >/dev/null 2>&1
st=$?
if [ "$st" -eq 7 ]; then pass; else fail "exit status $st"; fi

finish
