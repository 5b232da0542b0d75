#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/corrupt.sh: the loader against damaged images.
#
# Each class of damage is reported with the file name and its own exit
# status: missing (80), empty or truncated (81), not an image (82),
# another format version (83), another architecture (84), another
# build (85, in pdump.sh), corrupt (86).  Then a mutation loop: random
# bytes of an image are changed and every start must end either in
# success with the cold digest or in one of those statuses, never a
# crash; dumper-inspect --check, when built, must agree with the loader.

. "$SRCDIR/tests/e2e/lib.sh"

TOY=$BUILDDIR/tests/pdump/toyhost
INSPECT=$BUILDDIR/tools/dumper-inspect

if [ "$BACKEND" != pdumper ]; then
  begin "corrupt image tests"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

"$TOY" --temacs=pdump --output "$T/good.pdmp" || { echo "cannot dump"; exit 1; }
cold=`"$TOY" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
size=`stat -c %s "$T/good.pdmp"`

# patch FILE OFFSET BYTE-VALUE: overwrite one byte.
patch () {
  printf "\\`printf '%03o' $3`" | dd of="$1" bs=1 seek=$2 conv=notrunc 2>/dev/null
}

# expect_load NAME STATUS FILE WORDS...: loading FILE exits STATUS and
# the message names FILE and contains each of WORDS.
expect_load () {
  _n=$1; _s=$2; _f=$3
  shift 3
  begin "$_n"
  _out=`"$TOY" --dump-file="$_f" 2>&1`
  _st=$?
  if [ $_st -ne $_s ]; then fail "exit status $_st, expected $_s: $_out"; return; fi
  case $_out in *"$_f"*) ;; *) fail "message does not name the file: $_out"; return ;; esac
  for _w in "$@"; do
    case $_out in *"$_w"*) ;; *) fail "message lacks '$_w': $_out"; return ;; esac
  done
  pass
}

expect_load "a missing image" 80 "$T/none.pdmp" "No such file"
: > "$T/empty.pdmp"
expect_load "an empty image" 81 "$T/empty.pdmp" "empty"
head -c `expr $size / 2` "$T/good.pdmp" > "$T/half.pdmp"
expect_load "a half image" 81 "$T/half.pdmp" "truncated"
head -c 100 "$T/good.pdmp" > "$T/head.pdmp"
expect_load "an image cut inside its header" 81 "$T/head.pdmp" "truncated"
printf 'hello, I am a text file\n' > "$T/text.pdmp"
expect_load "a text file" 82 "$T/text.pdmp" "not a dumper image"
cp "$T/good.pdmp" "$T/version.pdmp"; patch "$T/version.pdmp" 8 99
expect_load "another format version" 83 "$T/version.pdmp" "version 99"
cp "$T/good.pdmp" "$T/word.pdmp"; patch "$T/word.pdmp" 16 4
expect_load "another word size" 84 "$T/word.pdmp" "4-byte words"
cp "$T/good.pdmp" "$T/order.pdmp"; patch "$T/order.pdmp" 17 2
expect_load "another byte order" 84 "$T/order.pdmp" "big-endian"
cp "$T/good.pdmp" "$T/machine.pdmp"; patch "$T/machine.pdmp" 18 183
expect_load "another machine" 84 "$T/machine.pdmp" "aarch64"
cp "$T/good.pdmp" "$T/sum.pdmp"; patch "$T/sum.pdmp" 64 7
expect_load "a damaged header field" 86 "$T/sum.pdmp" "checksum"
cp "$T/good.pdmp" "$T/long.pdmp"; printf 'xx' >> "$T/long.pdmp"
expect_load "trailing garbage" 86 "$T/long.pdmp" "header says"
cp "$T/good.pdmp" "$T/hot.pdmp"; patch "$T/hot.pdmp" 4100 255
expect_load "a flipped byte in HOT" 86 "$T/hot.pdmp" "HOT"
cp "$T/good.pdmp" "$T/tail.pdmp"; patch "$T/tail.pdmp" `expr $size - 3` 255
# The last bytes are the object index, which the loader does not read.
begin "damage in inspection-only tables does not stop a load"
d=`"$TOY" --dump-file="$T/tail.pdmp" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
[ "$d" = "$cold" ] && pass || fail "digest $d, cold $cold"

begin "200 random mutations: each start succeeds with the cold digest or fails cleanly"
i=0; ok=0; clean=0; bad=0; disagree=0
seed=12345
while [ $i -lt 200 ]; do
  seed=`expr \( $seed \* 1103515245 + 12345 \) % 2147483648`
  off=`expr $seed % $size`
  seed=`expr \( $seed \* 1103515245 + 12345 \) % 2147483648`
  val=`expr $seed % 256`
  cp "$T/good.pdmp" "$T/m.pdmp"
  patch "$T/m.pdmp" $off $val
  out=`"$TOY" --dump-file="$T/m.pdmp" 2>&1`
  st=$?
  d=`printf '%s' "$out" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
  if [ $st -eq 0 ] && [ "$d" = "$cold" ]; then ok=`expr $ok + 1`
  elif [ $st -ge 80 ] && [ $st -le 86 ]; then clean=`expr $clean + 1`
  else
    bad=`expr $bad + 1`
    echo "    offset $off value $val: status $st: `printf '%s' "$out" | head -2`"
  fi
  if [ -x "$INSPECT" ]; then
    "$INSPECT" --check "$T/m.pdmp" --exe "$TOY" > /dev/null 2>&1
    ist=$?
    if [ $ist -ne $st ]; then
      disagree=`expr $disagree + 1`
      echo "    offset $off value $val: loader $st, inspector $ist"
    fi
  fi
  i=`expr $i + 1`
done
echo "    $ok unaffected, $clean refused cleanly, $bad bad, $disagree inspector disagreements"
[ $bad -eq 0 ] && [ $disagree -eq 0 ] && pass || fail "$bad bad outcomes, $disagree disagreements"

finish
