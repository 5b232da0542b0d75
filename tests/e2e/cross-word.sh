#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/cross-word.sh: an image written by a build for another
# architecture is refused with status 84 and a message naming both, by
# the host and by dumper-inspect, in both directions (issue 19): with
# the other word size (a 32-bit build for a 64-bit one, and the reverse)
# the message names both word sizes; with the same word size and another
# machine (aarch64 and x86_64) it names both machines.
#
# Needs a second pdumper build for another architecture:
# DUMPER_OTHER_BUILD names its build directory (`make check-cross-word
# DUMPER_OTHER_BUILD=DIR'; scripts/test-arch sets it).  Without one the
# case is skipped, saying so; scripts/test-arch always runs it.  Both
# builds' programs must run on this machine (natively or through
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
    skip "no build for another architecture (set DUMPER_OTHER_BUILD to a pdumper build directory; scripts/test-arch does)"
  fi
  finish
fi

# The word size and the ELF machine an image records: header bytes 16
# and 18-19 (pdump/format.h, little-endian).
word_size () { od -An -tu1 -j 16 -N 1 "$1" | tr -d ' '; }
machine () { od -An -tu2 -j 18 -N 2 "$1" | tr -d ' '; }

ours=$BUILDDIR/host/dlisp.pdmp
theirs=$OTHER/host/dlisp.pdmp
our_words=`word_size "$ours"`
their_words=`word_size "$theirs"`
our_machine=`machine "$ours"`
their_machine=`machine "$theirs"`

if [ "$our_words" != "$their_words" ]; then
  what="$their_words-byte image"
  our_what="$our_words-byte image"
else
  what="image of ELF machine $their_machine"
  our_what="image of ELF machine $our_machine"
fi

begin "the two builds are for different architectures ($our_words-byte words, machine $our_machine; $their_words-byte words, machine $their_machine)"
if [ "$our_words" != 4 ] && [ "$our_words" != 8 ]; then
  fail "this build's image records $our_words-byte words"
elif [ "$their_words" != 4 ] && [ "$their_words" != 8 ]; then
  fail "the other build's image records $their_words-byte words"
elif [ "$our_words" = "$their_words" ] && [ "$our_machine" = "$their_machine" ]; then
  fail "both builds have $our_words-byte words and ELF machine $our_machine: $OTHER is not for another architecture"
else
  pass
fi

# expected IMAGE-WORDS IMAGE-MACHINE PROGRAM-WORDS: what the refusal says
# (pdump/check.c checks the word size before the machine)
expected () {
  if [ "$1" != "$3" ]; then
    echo "image has $1-byte words; this process has $3-byte words"
  else
    echo "(ELF machine $2); this is "
  fi
}

# refused NAME PROGRAM IMAGE WANT ARGS...: PROGRAM exits 84 on IMAGE,
# saying WANT and naming the file.
refused () {
  _name=$1 _prog=$2 _img=$3 _want=$4
  shift 4
  begin "$_name"
  _out=`"$_prog" "$@" 2>&1`
  _st=$?
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

want_theirs=`expected $their_words $their_machine $our_words`
want_ours=`expected $our_words $our_machine $their_words`
refused "this build's host refuses the other build's $what: 84" \
  "$BUILDDIR/host/dlisp" "$theirs" "$want_theirs" --dump-file="$theirs" --batch
refused "the other build's host refuses this build's $our_what: 84" \
  "$OTHER/host/dlisp" "$ours" "$want_ours" --dump-file="$ours" --batch
if [ -x "$BUILDDIR/tools/dumper-inspect" ]; then
  refused "this build's dumper-inspect refuses the $what: 84" \
    "$BUILDDIR/tools/dumper-inspect" "$theirs" "$want_theirs" "$theirs"
fi
if [ -x "$OTHER/tools/dumper-inspect" ]; then
  refused "the other build's dumper-inspect refuses the $our_what: 84" \
    "$OTHER/tools/dumper-inspect" "$ours" "$want_ours" "$ours"
fi

# Each image still loads in its own build (the refusal is about the
# architecture, not a broken image).
check "this build loads its own image" "$BUILDDIR/host/dlisp" --dump-file="$ours" --batch
check "the other build loads its own image" "$OTHER/host/dlisp" --dump-file="$theirs" --batch

finish
