#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/host/dlisp-digest.sh: the heap digest from the command line.
# Two cold starts agree at scales 1 and 4 (whatever the directory, HOME
# and arguments), a different scale differs, a collection changes
# nothing, heap dumps of two runs are identical, and -- where the
# build's back end can dump -- a start from the dump has the digest of
# the cold start and runs a program correctly, also from a compressed
# (lz4, zstd) and an embedded image (dumper-embed).

. "$SRCDIR/tests/e2e/lib.sh"

DLISP=$BUILDDIR/host/dlisp
BARE=$BUILDDIR/host/dlisp-bare

cold () {
  "$BARE" --heap-digest "$@" 2>"$T/cold.err"
}

for scale in 1 4; do
  begin "two cold starts agree at scale $scale"
  a=`cold --loadup-scale $scale`
  b=`cd "$T" && HOME=/nonexistent cold --loadup-scale $scale -- extra args`
  if [ -n "$a" ] && [ "$a" = "$b" ] && printf '%s' "$a" | grep -Eq '^[0-9a-f]{32}$'; then
    pass
  else
    cat "$T/cold.err"
    fail "digests '$a' and '$b'"
  fi
done
d1=$a

begin "another scale gives another digest"
d2=`cold --loadup-scale 2`
if [ -n "$d2" ] && [ "$d2" != "$d1" ]; then pass; else fail "scale 2: $d2"; fi

begin "--gc before the digest changes nothing"
g=`cold --gc --loadup-scale 4`
if [ "$g" = "$d1" ]; then pass; else fail "$g != $d1"; fi

begin "heap dumps of two cold starts are identical"
"$BARE" --heap-dump "$T/a.txt" && (cd "$T" && "$BARE" --heap-dump b.txt)
if cmp -s "$T/a.txt" "$T/b.txt" && [ `wc -l < "$T/a.txt"` -gt 100000 ]; then
  pass
else
  diff "$T/a.txt" "$T/b.txt" | head -5
  fail "heap dumps differ or are short"
fi

begin "a start from a dump has the cold start's digest"
base=`cold`
case $BACKEND in
  pdumper)
    "$BARE" --temacs=pdump --output "$T/dlisp.pdmp" >"$T/dump.out" 2>&1
    st=$?
    if [ "$st" -ne 0 ]; then
      cat "$T/dump.out"; fail "the pdump dump failed with status $st"
    else
      d=`"$DLISP" --dump-file="$T/dlisp.pdmp" --heap-digest`
      if [ "$d" = "$base" ]; then pass; else fail "pdump start $d, cold $base"; fi
    fi ;;
  unexec)
    "$BARE" --temacs=dump --output "$T/dlisp-dumped" >"$T/dump.out" 2>&1
    st=$?
    if [ "$st" -ne 0 ]; then
      cat "$T/dump.out"; fail "the unexec dump failed with status $st"
    else
      d=`"$T/dlisp-dumped" --heap-digest`
      if [ "$d" = "$base" ]; then pass; else fail "unexec start $d, cold $base"; fi
    fi ;;
  *)
    skip "a none build cannot dump" ;;
esac

begin "a program runs correctly from the dump (eq tables rehashed, GC through the image)"
if [ "$BACKEND" = pdumper ] && [ -f "$T/dlisp.pdmp" ]; then
  run="$DLISP --dump-file=$T/dlisp.pdmp"
elif [ "$BACKEND" = unexec ] && [ -x "$T/dlisp-dumped" ]; then
  run="$T/dlisp-dumped"
else
  run=
fi
if [ -z "$run" ]; then
  skip "no dump in this build"
else
  out=`$run --batch --eval '(garbage-collect)' -l "$SRCDIR/tests/host/basic.lisp" 2>&1`
  st=$?
  if [ "$st" -eq 0 ] && printf '%s\n' "$out" | grep -q ' checks, 0 failed'; then
    pass
  else
    printf '%s\n' "$out" | grep -v '^PASS' | sed 's/^/    | /'
    fail "exit status $st"
  fi
fi

# The same two tests on the other pdump containers.
if [ "$BACKEND" = pdumper ] && [ -f "$T/dlisp.pdmp" ]; then
  for c in $CODECS embedded; do
    begin "$c: a start from the dump has the cold digest and runs a program correctly"
    case $c in
      embedded)
        "$BUILDDIR/tools/dumper-embed" "$BARE" "$T/dlisp.pdmp" -o "$T/dlisp-$c" \
          && run="$T/dlisp-$c" ;;
      *)
        "$BARE" --temacs=pdump --compress=$c --output "$T/dlisp-$c.pdmp" \
          > "$T/dump.out" 2>&1 && run="$DLISP --dump-file=$T/dlisp-$c.pdmp" ;;
    esac
    if [ $? -ne 0 ]; then
      cat "$T/dump.out" 2>/dev/null; fail "the $c dump failed"; continue
    fi
    d=`$run --heap-digest`
    out=`$run --batch --eval '(garbage-collect)' -l "$SRCDIR/tests/host/basic.lisp" 2>&1`
    st=$?
    if [ "$d" = "$base" ] && [ "$st" -eq 0 ] \
       && printf '%s\n' "$out" | grep -q ' checks, 0 failed'; then
      pass
    else
      printf '%s\n' "$out" | grep -v '^PASS' | sed 's/^/    | /'
      fail "digest $d (cold $base), exit status $st"
    fi
  done
fi

begin "--loadup-scale differing from the dump's world is refused"
if [ "$BACKEND" = pdumper ] && [ -f "$T/dlisp.pdmp" ]; then
  "$DLISP" --dump-file="$T/dlisp.pdmp" --loadup-scale 3 --batch >"$T/err" 2>&1
  st=$?
  if [ "$st" -eq 64 ] && grep -q 'only applies to a cold start' "$T/err"; then pass; else cat "$T/err"; fail "exit status $st"; fi
elif [ "$BACKEND" = unexec ] && [ -x "$T/dlisp-dumped" ]; then
  "$T/dlisp-dumped" --loadup-scale 3 --batch >"$T/err" 2>&1
  st=$?
  if [ "$st" -eq 64 ]; then pass; else cat "$T/err"; fail "exit status $st"; fi
else
  skip "no dump in this build"
fi

finish
