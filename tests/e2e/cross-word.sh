#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/cross-word.sh: an image written by a build with the other
# word size (a 32-bit build for a 64-bit one, and the reverse) is refused
# with status 84 and a message naming both word sizes, by the host and
# by dumper-inspect, in both directions (issue 19).
#
# Needs a second pdumper build of the other word size: DUMPER_OTHER_BUILD
# names its build directory (`make check-cross-word
# DUMPER_OTHER_BUILD=DIR'; scripts/test-arch sets it).  Without one the
# case is skipped, saying so; scripts/test-arch i386 always runs it.
# Both builds' programs must run on this machine (natively or through
# binfmt_misc: scripts/test-arch).

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "images of the other word size"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi
OTHER=${DUMPER_OTHER_BUILD:-}
if [ -z "$OTHER" ] || [ ! -x "$OTHER/host/dlisp" ] || [ ! -f "$OTHER/host/dlisp.pdmp" ]; then
  begin "images of the other word size"
  if [ -n "${DUMPER_CROSS_WORD_REQUIRED:-}" ]; then
    fail "DUMPER_OTHER_BUILD=\`$OTHER' is not a built pdumper build directory (host/dlisp, host/dlisp.pdmp)"
  else
    skip "no build of the other word size (set DUMPER_OTHER_BUILD to a pdumper build directory; scripts/test-arch i386 does)"
  fi
  finish
fi

# The word size an image records: header byte 16 (pdump/format.h).
word_size () { od -An -tu1 -j 16 -N 1 "$1" | tr -d ' '; }

ours=$BUILDDIR/host/dlisp.pdmp
theirs=$OTHER/host/dlisp.pdmp
our_words=`word_size "$ours"`
their_words=`word_size "$theirs"`

begin "the two builds have different word sizes ($our_words and $their_words)"
if [ "$our_words" != 4 ] && [ "$our_words" != 8 ]; then
  fail "this build's image records $our_words-byte words"
elif [ "$their_words" != 4 ] && [ "$their_words" != 8 ]; then
  fail "the other build's image records $their_words-byte words"
elif [ "$our_words" = "$their_words" ]; then
  fail "both builds have $our_words-byte words: $OTHER is not of the other word size"
else
  pass
fi

# refused NAME PROGRAM IMAGE IMAGE-WORDS PROGRAM-WORDS ARGS...: PROGRAM
# exits 84 on IMAGE, naming both word sizes and the file.
refused () {
  _name=$1 _prog=$2 _img=$3 _iw=$4 _pw=$5
  shift 5
  begin "$_name"
  _out=`"$_prog" "$@" 2>&1`
  _st=$?
  _want="image has $_iw-byte words; this process has $_pw-byte words"
  if [ $_st -ne 84 ]; then
    fail "exit status $_st, expected 84: $_out"
  else
    case $_out in
      *"$_want"*)
        case $_out in
          *"$_img"*) pass ;;
          *) fail "the message does not name $_img: $_out" ;;
        esac ;;
      *) fail "the message lacks '$_want': $_out" ;;
    esac
  fi
}

refused "this build's host refuses the other build's $their_words-byte image: 84" \
  "$BUILDDIR/host/dlisp" "$theirs" $their_words $our_words --dump-file="$theirs" --batch
refused "the other build's host refuses this build's $our_words-byte image: 84" \
  "$OTHER/host/dlisp" "$ours" $our_words $their_words --dump-file="$ours" --batch
if [ -x "$BUILDDIR/tools/dumper-inspect" ]; then
  refused "this build's dumper-inspect refuses the $their_words-byte image: 84" \
    "$BUILDDIR/tools/dumper-inspect" "$theirs" $their_words $our_words "$theirs"
fi
if [ -x "$OTHER/tools/dumper-inspect" ]; then
  refused "the other build's dumper-inspect refuses the $our_words-byte image: 84" \
    "$OTHER/tools/dumper-inspect" "$ours" $our_words $their_words "$ours"
fi

# Each image still loads in its own build (the refusal is about the
# word size, not a broken image).
check "this build loads its own image" "$BUILDDIR/host/dlisp" --dump-file="$ours" --batch
check "the other build loads its own image" "$OTHER/host/dlisp" --dump-file="$theirs" --batch

finish
