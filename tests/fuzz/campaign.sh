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
#
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

# campaign TITLE HOST MODE COUNT [VAR=VALUE...]: one campaign-run.sh
# run with those settings in its environment, passed when it exits 0;
# its table follows, indented.  CHECK, when not empty, is a command the
# table ($T/out) must also satisfy.
CHECK=
campaign () {
  begin "$1"
  _host=$2 _mode=$3 _n=$4
  shift 4
  if env "$@" sh "$SRCDIR/tests/fuzz/campaign-run.sh" "$BUILDDIR" $_host $_mode $_n \
       > "$T/out" 2> "$T/err" && eval "${CHECK:-true}"; then
    pass
  else
    fail "`cat "$T/out" "$T/err"`"
  fi
  sed 's/^/    /' "$T/out"
}

# structure, and the default settings (none at all: base mode boot,
# verification auto; issue 33: no mutant may crash or hang the host
# out of the box).
for mode in structure default; do
for host in toyhost dlisp; do
  n=$count
  [ $host = dlisp ] && n=$(( (count + 3) / 4 ))
  campaign "campaign: $host, settings $mode, $n mutants per kind" $host $mode $n
done
done

# The records of format version 5 (issue 30): owner-sized lengths and
# interior words, in sizedhost's image, every mutant refused.
# A kind that made no mutant, or a mutant not refused, fails too.
CHECK='awk '"'"'$1 != "total" && ($3 == 0 || $6 != $3) { bad = 1 } END { exit bad }'"'"' "$T/out"'
campaign "campaign: sizedhost, verify=structure, owner-sized lengths and interior words" \
  sizedhost structure $count CAMPAIGN_KINDS="sized-length interior-out"
CHECK=

# Code pointers into a code table (DUMPER_DECLARE_CODE_TABLE): the
# declaration index and the element index crafted, and, with structure
# (which alone guarantees that the host calls only what the loader
# stored), the entry removed from RELOC_CODE.
for mode in none structure; do
  kinds="code code-element"
  [ $mode = structure ] && kinds="$kinds uncode"
  campaign "campaign: toyhost --bad code-table, verify=$mode, $count mutants of $kinds" \
    toyhost-code $mode $count CAMPAIGN_KINDS="$kinds"
done

RUN=$T/run
mkdir "$RUN" && chmod 700 "$RUN"
for method in map hybrid read; do
  for base in random fixed boot; do
    campaign "campaign: toyhost, RELOC_EXE at the top of the range, method $method, base $base" \
      toyhost none 6 DUMPER_PDUMP_LOAD=$method DUMPER_PDUMP_BASE=$base \
      XDG_RUNTIME_DIR="$RUN" CAMPAIGN_KINDS=exe-top
  done
done
finish
