#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/by-header.sh: raw pointers traced with type
# DUMPER_TAG_BY_HEADER (heap.h), and a NULL tagged word whose tag is
# DUMPER_TAG_BY_HEADER, survive a dump (issue 30, part C).
#
# toyhost --bad by-header plants an object whose field a is a raw
# pointer to a vec and p a NULL, both reported as by-header pointers;
# b is the same vec as a tagged word, and bytes is NULL plus the header
# tag, reported as a word.  After a start from the dump, a must be the
# object b names, with its contents, and the NULLs must still be NULL:
#   pdumper: base modes random and fixed (at the preferred base), each
#            with verify=none and verify=structure;
#   unexec:  the dumped executable.

. "$SRCDIR/tests/e2e/lib.sh"

TOY=$BUILDDIR/tests/pdump/toyhost
WANT="by-header: same=1 type=1 length=4 sum=34 p=(nil) null_word=0x2"

dump_option "by-header pointers"

begin "a cold start has the by-header fields as planted"
out=`"$TOY" --bad by-header 2>&1`
case "$?:$out" in
  0:*"$WANT image=0"*"origin=0 "*) pass ;;
  *) fail "$out" ;;
esac

begin "the dump with by-header pointers is made ($BACKEND)"
if "$TOY" --bad by-header $DUMP --output "$T/bh" > "$T/dump.out" 2>&1; then
  pass
else
  fail "`cat "$T/dump.out"`"
  finish
fi

if [ $BACKEND = unexec ]; then
  begin "the dumped executable restores them"
  out=`"$T/bh" --bad by-header 2>&1`
  case "$?:$out" in
    0:*"$WANT image=0"*"origin=1 "*) pass ;;
    *) fail "$out" ;;
  esac
  finish
fi

# The placements of pdump_stats: 1 preferred.
for base in random fixed; do
  for verify in none structure; do
    begin "base $base, verify=$verify: restored to the right object"
    out=`DUMPER_PDUMP_BASE=$base DUMPER_PDUMP_VERIFY=$verify \
      "$TOY" --bad by-header --stats --dump-file="$T/bh" 2>&1`
    st=$?
    placement=`echo "$out" | sed -n 's/^placement=//p'`
    case "$st:$out" in
      0:*"$WANT image=1"*"origin=2 "*)
        if [ $base = fixed ] && [ "$ENABLE_SANITIZERS" != yes ] \
             && [ "$placement" != 1 ]; then
          fail "placement $placement, not the preferred base: $out"
        elif [ $base = random ] && [ "$placement" != 0 ]; then
          fail "placement $placement, not random: $out"
        else pass; fi ;;
      *) fail "status $st: $out" ;;
    esac
  done
done


finish
