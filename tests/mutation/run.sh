#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/mutation/run.sh: the mutation harness (`make check-mutation').
#
# Applies each mutant of tests/mutation/catalogue (format: README in this
# folder) to a scratch copy of the source tree, rebuilds that copy's
# build of the mutant's mode incrementally, runs the mutant's tests and
# prints one table row per mutant, then a closing line
#   N killed, N survived, N equivalent, N stale, N build-failed
# The real tree is never edited: the scratch copy is made of the files
# git knows (tracked, and untracked ones that are not ignored), under
# $TMPDIR, removed at the end.
#
# Statuses: killed (a test, or the build's own dump steps, failed, or
# the timeout ran out; the tests run in the catalogue's order, one at a
# time, and stop at the first that fails), SURVIVED (every
# test passed), equivalent (survived, and the catalogue says why it
# cannot change behaviour), stale (the old text is not found exactly
# once: the source changed; fix the catalogue), build-failed (the
# mutated file does not compile: fix the mutant).
# Exit status: 0 when nothing SURVIVED, nothing is stale and every
# mutant built; 1 otherwise; 2 for a bad catalogue or a baseline (the
# unmutated tree) whose tests fail.
#
# Environment:
#   SRCDIR            the source tree (default: this script's ../..)
#   MUTANTS="id ..."  run only these mutants
#   MUTATION_MODES    run only the mutants of these modes (pdumper unexec)
#   MUTATION_JOBS     scratch copies run side by side (default 1); each
#                     has its own builds, so N copies cost N full builds
#   MUTATION_MAKE_JOBS  make -j inside each copy (default 2)
#   MUTATION_TIMEOUT  seconds for one mutant's rebuild and tests (300)
#   MUTATION_CATALOGUE  another catalogue file
#   MUTATION_LOGDIR   where each mutant's log is kept
#                     (default ./tests/tmp/mutation)
#   MUTATION_KEEP=1   keep the scratch copies (their path is printed)
#   MUTATION_DRY=1    only check that every old text is found exactly
#                     once (no build, no test; "found" or "stale")

here=`cd "\`dirname "$0"\`" && pwd`
: "${SRCDIR:=`cd "$here/../.." && pwd`}"
: "${MUTATION_CATALOGUE:=$SRCDIR/tests/mutation/catalogue}"
: "${MUTATION_JOBS:=1}"
: "${MUTATION_MAKE_JOBS:=2}"
: "${MUTATION_TIMEOUT:=300}"
: "${MUTATION_MODES:=pdumper unexec}"
: "${MUTATION_LOGDIR:=`pwd`/tests/tmp/mutation}"

# The inner makes must not see the outer make's command line or jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
unset CHECK_PROGRAMS CHECK_SCRIPTS BUILDDIR

say () { printf '%s\n' "$*" >&2; }
now () { date +%s; }

started=`now`
work=`mktemp -d "${TMPDIR:-/tmp}/dumper-mutation.XXXXXX"` || exit 2
if [ "$MUTATION_KEEP" = 1 ]; then
  say "mutation: scratch copies kept in $work"
else
  trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT TERM
mkdir -p "$work/cat" "$MUTATION_LOGDIR" || exit 2
rm -f "$MUTATION_LOGDIR"/*.log

# ------------------------------------------------------------------
# The catalogue, and the selection.

awk -v dir="$work/cat" -f "$here/parse.awk" "$MUTATION_CATALOGUE" || exit 2

: > "$work/selected"
if [ -n "$MUTANTS" ]; then
  for id in $MUTANTS; do
    awk -F '\t' -v id="$id" '$2 == id { found = 1 } END { exit !found }' \
      "$work/cat/index" || { say "mutation: no mutant '$id' in the catalogue"; exit 2; }
  done
fi
while IFS='	' read -r num id mode file; do
  if [ -n "$MUTANTS" ]; then
    case " `echo $MUTANTS` " in *" $id "*) ;; *) continue ;; esac
  fi
  case " `echo $MUTATION_MODES` " in *" $mode "*) ;; *) continue ;; esac
  printf '%s\t%s\t%s\t%s\n' "$num" "$id" "$mode" "$file" >> "$work/selected"
done < "$work/cat/index"
total=`wc -l < "$work/selected" | tr -d ' '`
if [ "$total" -eq 0 ]; then say "mutation: no mutant selected"; exit 2; fi
say "mutation: $total mutants, $MUTATION_JOBS scratch cop`[ "$MUTATION_JOBS" -eq 1 ] && echo y || echo ies`"

# ------------------------------------------------------------------
# Scratch copies.

copy_tree () {  # copy_tree DEST: the files git knows, or the whole tree
  mkdir -p "$1" || return 1
  if git -C "$SRCDIR" rev-parse --git-dir > /dev/null 2>&1; then
    (cd "$SRCDIR" && git ls-files -z --cached --others --exclude-standard |
      xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
      tar --null -T - -cf -) | (cd "$1" && tar xf -)
  else
    (cd "$SRCDIR" && tar --exclude='./build*' -cf - .) | (cd "$1" && tar xf -)
  fi
}

# split_tests TESTS: set programs, scripts, missing, and ordered (the
# present ones in their order) from a test list.
split_tests () {
  programs= scripts= missing= ordered=
  for t in $1; do
    case $t in
      *.sh) if [ -f "$src/$t" ]; then scripts="$scripts $t"; else missing="$missing $t"; fi ;;
      *)    if [ -f "$src/$t.c" ]; then programs="$programs $t"; else missing="$missing $t"; fi ;;
    esac
    case " $missing " in *" $t "*) ;; *) ordered="$ordered $t" ;; esac
  done
}

# run_check BUILD PROGRAMS SCRIPTS LOG: make check with these tests only.
run_check () {
  (cd "$1" && timeout "$MUTATION_TIMEOUT" make -j"$MUTATION_MAKE_JOBS" check \
     CHECK_PROGRAMS="$2" CHECK_SCRIPTS="$3") > "$4" 2>&1
}

# prepare MODE: configure and build the copy's MODE build (with the test
# hooks: some killers inject faults, configure --enable-test-hooks), and run every
# test its mutants name on the unmutated tree (they must pass).
prepare () {
  b=$scratch/build-$1
  [ -f "$b/.ready" ] && return 0
  mkdir -p "$b"
  say "mutation[$worker]: configuring and building $1"
  (cd "$b" && "$src/configure" --with-dumper="$1" --enable-test-hooks && make -j"$MUTATION_MAKE_JOBS") \
    > "$MUTATION_LOGDIR/baseline-$worker-$1.log" 2>&1 ||
    { say "mutation: the unmutated $1 build failed ($MUTATION_LOGDIR/baseline-$worker-$1.log)"; return 1; }
  alltests=`awk -F '\t' -v m="$1" '$3 == m { print $2 }' "$list" |
    while read -r id; do cat "$work/cat/$id.tests"; done | tr ' ' '\n' | sort -u | tr '\n' ' '`
  split_tests "$alltests"
  say "mutation[$worker]: baseline tests ($1):$programs$scripts"
  run_check "$b" "$programs" "$scripts" "$MUTATION_LOGDIR/baseline-$worker-$1.log" ||
    { say "mutation: the tests fail on the unmutated $1 tree ($MUTATION_LOGDIR/baseline-$worker-$1.log)"; return 1; }
  touch "$b/.ready"
}

# run_one NUM ID MODE FILE: apply, rebuild, test, restore; one result line.
run_one () {
  num=$1 id=$2 mode=$3 file=$4
  t0=`now`
  log=$MUTATION_LOGDIR/$id.log
  f=$src/$file
  note=
  split_tests "`cat "$work/cat/$id.tests"`"
  [ -n "$missing" ] && note="not in the tree:$missing"
  if [ ! -f "$f" ]; then
    status=stale note="no file $file"
  elif ! count=`awk -v oldfile="$work/cat/$id.old" -v newfile="$work/cat/$id.new" \
                  -v out="$scratch/mutated" -f "$here/apply.awk" "$f"`; then
    status=stale note="old text found $count times"
  else
    cp -p "$f" "$scratch/original"
    cp "$scratch/mutated" "$f"
    b=$scratch/build-$mode
    obj=`echo "$file" | sed 's/\.[cS]$/.o/'`
    if ! (cd "$b" && make "$obj") > "$log" 2>&1; then
      status=build-failed
    elif [ -z "$programs$scripts" ]; then
      status=SURVIVED note="no test to run; $note"
    else
      # One test at a time, in the catalogue's order (fastest first):
      # the first that fails kills the mutant and the rest are not run.
      status=SURVIVED
      for t in $ordered; do
        case $t in *.sh) p= s=$t ;; *) p=$t s= ;; esac
        run_check "$b" "$p" "$s" "$log.check"
        rc=$?
        cat "$log.check" >> "$log"; rm -f "$log.check"
        [ "$rc" -eq 0 ] && continue
        status=killed
        killer=`basename "$t"`
        [ "$rc" -eq 124 ] && killer="$killer, timeout ${MUTATION_TIMEOUT}s"
        note="by $killer${note:+; $note}"
        break
      done
    fi
    cp -p "$scratch/original" "$f"
    touch "$f"
    if [ "$status" = SURVIVED ] && [ -f "$work/cat/$id.equivalent" ]; then
      status=equivalent
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$num" "$id" "$file" "$status" \
    "`expr \`now\` - $t0`" "$note" >> "$results"
}

# dry_one NUM ID MODE FILE: only whether the old text is found once
# (MUTATION_DRY=1: a quick check of the catalogue, nothing built).
dry_one () {
  if count=`awk -v oldfile="$work/cat/$2.old" -v newfile="$work/cat/$2.new" \
              -v out=/dev/null -f "$here/apply.awk" "$src/$4" 2>/dev/null`; then
    status=found note=
  else
    status=stale note="old text found ${count:-0} times"
  fi
  printf '%s\t%s\t%s\t%s\t0\t%s\n' "$1" "$2" "$4" "$status" "$note" >> "$results"
}

# worker N: run the mutants of list N in scratch copy N.
worker () {
  worker=$1
  scratch=$work/copy-$1
  src=$scratch/src
  list=$work/list-$1
  results=$work/results-$1
  : > "$results"
  copy_tree "$src" || { say "mutation: cannot copy $SRCDIR"; return 2; }
  position=0
  listed=`wc -l < "$list" | tr -d ' '`
  while IFS='	' read -r num id mode file; do
    position=`expr $position + 1`
    if [ "$MUTATION_DRY" = 1 ]; then dry_one "$num" "$id" "$mode" "$file"; continue; fi
    prepare "$mode" || return 2
    run_one "$num" "$id" "$mode" "$file"
    tail -1 "$results" | awk -F '\t' -v w="$worker" -v at="$position" -v n="$listed" \
      '{ printf "mutation[%s]: %s/%s %s %s (%ss) %s\n", w, at, n, $2, $4, $5, $6 }' >&2
  done < "$list"
}

# Round-robin over the copies, each mode's mutants together in the list
# so one copy configures a mode once.
i=1
while [ "$i" -le "$MUTATION_JOBS" ]; do : > "$work/list-$i"; i=`expr $i + 1`; done
sort -t '	' -k3,3 -k1,1n "$work/selected" |
  awk -F '\t' -v jobs="$MUTATION_JOBS" -v dir="$work" \
    '{ print > (dir "/list-" ((NR - 1) % jobs + 1)) }'

pids=
i=1
while [ "$i" -le "$MUTATION_JOBS" ]; do
  worker "$i" &
  pids="$pids $!"
  i=`expr $i + 1`
done
failed_worker=0
for p in $pids; do wait "$p" || failed_worker=1; done

# ------------------------------------------------------------------
# The table.

cat "$work"/results-* | sort -t '	' -k1,1n > "$work/results"
elapsed=`expr \`now\` - $started`
awk -F '\t' -v cat="$work/cat" -v elapsed="$elapsed" -v broken="$failed_worker" -v total="$total" '
  BEGIN {
    printf "%-34s %-22s %-12s %5s  %s\n", "mutant", "file", "result", "time", "what"
  }
  {
    about = ""; f = cat "/" $2 ".about"; getline about < f; close(f)
    if ($4 == "equivalent") { f = cat "/" $2 ".equivalent"; getline why < f; close(f); about = about " [equivalent: " why "]" }
    if ($6 != "") about = about " (" $6 ")"
    printf "%-34s %-22s %-12s %4ss  %s\n", $2, $3, $4, $5, about
    n[$4]++
    done++
  }
  END {
    if (n["found"] > 0)
      printf "\n%d found, %d stale", n["found"], n["stale"]
    else
      printf "\n%d killed, %d survived, %d equivalent, %d stale, %d build-failed",
        n["killed"], n["SURVIVED"], n["equivalent"], n["stale"], n["build-failed"]
    if (done < total) printf ", %d not run", total - done
    printf " (%d s)\n", elapsed
    if (broken) exit 2
    exit (n["SURVIVED"] + n["stale"] + n["build-failed"] > 0 || done < total) ? 1 : 0
  }' "$work/results"
