#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/campaign.sh: a bounded corruption campaign in `make check'
# (issue 20).  Resealed mutants of every kind (tests/fuzz/mutate.c)
# against the real loader with DUMPER_PDUMP_VERIFY=structure, through
# toyhost and dlisp: no crash, no hang, no wrong heap.  `make
# campaign-run' runs the long version in both modes.
#
# CAMPAIGN_CHECK_COUNT sets the mutants per kind for toyhost (default
# 12; dlisp gets a quarter, its digest walk is slower).
#
# Then sizedhost's owner-sized lengths and interior words (kinds
# sized-length and interior-out), each mutant refused.
# Then code pointers into a code table (toyhost --bad code-table).
#
# Then RELOC_EXE entries at the top of the word range (kind exe-top, its
# 6 variants) in every load method and base mode: the page count that
# runs before any checksum in method map and base mode fixed once
# looped forever on 0xffffffff (issue 32).

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "resealed mutant campaign"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

count=${CAMPAIGN_CHECK_COUNT:-12}
for host in toyhost dlisp; do
  n=$count
  [ $host = dlisp ] && n=$(( (count + 3) / 4 ))
  begin "campaign: $host, verify=structure, $n mutants per kind"
  if sh "$SRCDIR/tests/fuzz/campaign-run.sh" "$BUILDDIR" $host structure $n \
       > "$T/out" 2> "$T/err"; then
    pass
  else
    fail "`cat "$T/out" "$T/err"`"
  fi
  sed 's/^/    /' "$T/out"
done

# The records of format version 5 (issue 30): owner-sized lengths and
# interior words, in sizedhost's image, every mutant refused.
begin "campaign: sizedhost, verify=structure, owner-sized lengths and interior words"
if CAMPAIGN_KINDS="sized-length interior-out" sh "$SRCDIR/tests/fuzz/campaign-run.sh" \
     "$BUILDDIR" sizedhost structure $count > "$T/out" 2> "$T/err"; then
  if awk '$1 != "total" && ($3 == 0 || $6 != $3) { bad = 1 } END { exit bad }' "$T/out"; then
    pass
  else
    fail "a kind made no mutant, or a mutant was not refused: `cat "$T/out"`"
  fi
else
  fail "`cat "$T/out" "$T/err"`"
fi
sed 's/^/    /' "$T/out"

# Code pointers into a code table (DUMPER_DECLARE_CODE_TABLE): the
# declaration index and the element index crafted, and, with structure
# (which alone guarantees that the host calls only what the loader
# stored), the entry removed from RELOC_CODE.
for mode in none structure; do
  kinds="code code-element"
  [ $mode = structure ] && kinds="$kinds uncode"
  begin "campaign: toyhost --bad code-table, verify=$mode, $count mutants of $kinds"
  if CAMPAIGN_KINDS=$kinds sh "$SRCDIR/tests/fuzz/campaign-run.sh" "$BUILDDIR" \
       toyhost-code $mode $count > "$T/out" 2> "$T/err"; then
    pass
  else
    fail "`cat "$T/out" "$T/err"`"
  fi
  sed 's/^/    /' "$T/out"
done

RUN=$T/run
mkdir "$RUN" && chmod 700 "$RUN"
for method in map hybrid read; do
  for base in random fixed boot; do
    begin "campaign: toyhost, RELOC_EXE at the top of the range, method $method, base $base"
    if env DUMPER_PDUMP_LOAD=$method DUMPER_PDUMP_BASE=$base XDG_RUNTIME_DIR="$RUN" \
         CAMPAIGN_KINDS=exe-top sh "$SRCDIR/tests/fuzz/campaign-run.sh" "$BUILDDIR" \
         toyhost none 6 > "$T/out" 2> "$T/err"; then
      pass
    else
      fail "`cat "$T/out" "$T/err"`"
    fi
    sed 's/^/    /' "$T/out"
  done
done
finish
