#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/campaign-run.sh: a resealed-mutant campaign against the
# real loader, through a real host.
#
# Usage: campaign-run.sh BUILDDIR HOST MODE COUNT [FIRST-SEED]
#   HOST   toyhost (tests/pdump/toyhost), toyhost-code (toyhost --bad
#          code-table: a code pointer to an element of a code table,
#          called after the load), dlisp (host/dlisp) or sizedhost
#          (tests/pdump/sizedhost: owner-sized blocks and interior
#          pointers, for the kinds sized-length, interior-out)
#   MODE   none or structure (DUMPER_PDUMP_VERIFY)
#   COUNT  mutants per kind (tests/fuzz/mutate.c: reloc-clear reloc-set
#          interior tag header flip record code uncode exe exe-top;
#          code-element by CAMPAIGN_KINDS only)
#
# The load method and base mode are the environment's
# (DUMPER_PDUMP_LOAD, DUMPER_PDUMP_BASE; base mode boot needs a private
# XDG_RUNTIME_DIR); CAMPAIGN_KINDS limits the kinds.
#
# Every mutant has its checksums recomputed.  Each start ends in one of:
#   right     loaded, heap digest equal to the cold start's
#   differs   loaded a different heap where the mutator says that is
#             legitimate (only data bytes changed, or a pointer now
#             leads to another object of the same type)
#   refused   a documented image status (80-89; 86 corrupt)
#   wrong     loaded, digest differs, and the mutation was structural
#   crash     any other exit status (signal, sanitizer, host error)
#   hang      no exit within 10 seconds
# Prints one line per kind, "kind mode mutants right differs refused
# refused86 wrong crash hang", then a total line; the mutants that
# crashed, hung or gave a wrong heap are listed on stderr with the
# mutator's description (re-create one with `mutate IMAGE OUT KIND
# SEED').  Exit status 0 when none crashed, hung or gave a wrong heap.

BUILDDIR=${1:?usage: campaign-run.sh BUILDDIR HOST MODE COUNT [FIRST-SEED]}
HOST=${2:?host}
MODE=${3:?mode}
COUNT=${4:?count}
SEED=${5:-1}
MUTATE=$BUILDDIR/tests/fuzz/mutate
KINDS=${CAMPAIGN_KINDS:-"reloc-clear reloc-set interior tag header flip record code uncode exe exe-top"}

W=`mktemp -d "${TMPDIR:-/tmp}/campaign.XXXXXX"` || exit 1
trap 'rm -rf "$W"' EXIT INT TERM

case $HOST in
  toyhost)
    BIN=$BUILDDIR/tests/pdump/toyhost
    "$BIN" --temacs=pdump --output "$W/good.pdmp" > /dev/null || exit 1
    digest () { sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'; }
    ARGS=
    ;;
  sizedhost)
    BIN=$BUILDDIR/tests/pdump/sizedhost
    "$BIN" --temacs=pdump --output "$W/good.pdmp" > /dev/null || exit 1
    digest () { sed -n 's/^relations: //p'; }
    ARGS=
    ;;
  toyhost-code)
    BIN=$BUILDDIR/tests/pdump/toyhost
    ARGS="--bad code-table"
    "$BIN" $ARGS --temacs=pdump --output "$W/good.pdmp" > /dev/null || exit 1
    digest () { sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'; }
    ;;
  dlisp)
    BIN=$BUILDDIR/host/dlisp
    cp "$BUILDDIR/host/dlisp.pdmp" "$W/good.pdmp" || exit 1
    digest () { cat; }
    ARGS=--heap-digest
    ;;
  *) echo "campaign-run.sh: unknown host $HOST" >&2; exit 1 ;;
esac
cold=`"$BIN" --no-dump-file $ARGS | digest`
test -n "$cold" || { echo "campaign-run.sh: no cold digest from $BIN" >&2; exit 1; }

bad_total=0
all="0 0 0 0 0 0 0 0"
for kind in $KINDS; do
  n=0 right=0 differs=0 refused=0 r86=0 wrong=0 crash=0 hang=0
  i=0
  while [ $i -lt "$COUNT" ]; do
    seed=$((SEED + i))
    i=$((i + 1))
    desc=`"$MUTATE" "$W/good.pdmp" "$W/m.pdmp" $kind $seed` || continue
    set -- $desc; cls=$3
    n=$((n + 1))
    out=`DUMPER_PDUMP_VERIFY=$MODE timeout 10 "$BIN" $ARGS --dump-file="$W/m.pdmp" 2>"$W/err"`
    st=$?
    d=`echo "$out" | digest`
    verdict=
    if [ $st -eq 0 ]; then
      if [ "$d" = "$cold" ]; then right=$((right + 1))
      elif [ "$cls" != structural ]; then differs=$((differs + 1))
      else wrong=$((wrong + 1)); verdict=wrong; fi
    elif [ $st -ge 80 ] && [ $st -le 89 ]; then
      refused=$((refused + 1))
      [ $st -eq 86 ] && r86=$((r86 + 1))
    elif [ $st -eq 124 ]; then hang=$((hang + 1)); verdict=hang
    else crash=$((crash + 1)); verdict="crash (exit $st)"; fi
    if [ -n "$verdict" ]; then
      echo "$HOST $MODE: $verdict: $desc: `head -c 300 "$W/err"`" >&2
    fi
  done
  echo "$kind $MODE $n $right $differs $refused $r86 $wrong $crash $hang"
  all=`echo "$all $n $right $differs $refused $r86 $wrong $crash $hang" | awk '{
    for (i = 1; i <= 8; i++) printf "%d ", $i + $(i + 8) }'`
  bad_total=$((bad_total + wrong + crash + hang))
done
echo "total $MODE $all"
test $bad_total -eq 0
