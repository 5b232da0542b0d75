#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/fixed-cost.sh BUILD [TODAY-BUILD]: the fixed cost of a start from
# a tiny image (issue 33, item 4), side by side in one interleaved run.
#
# For each host of a pdumper BUILD (and of TODAY-BUILD, e.g. main before
# a change, in the same rounds):
#   lua   ports/lua/dumper-lua -e ''              (make lua first)
#         against --image=TINY -e '', TINY the state after `x = 1'
#   toy   tests/pdump/toyhost --scale 0 --long 0  (a heap of a few objects)
#         against --dump-file=TINY, TINY that heap's image
# "without" is the same executable started with no image (the cold
# init, which for these hosts is tiny too); "image" is the default
# settings (base mode boot, verify auto), from the boot cache, whose
# first start is made before timing.  Stock lua5.4 -e '' is a reference
# row where installed (another executable: Debian's, without libdumper).
#
# Every command of every build runs once per round, RUNS rounds (default
# 60), spawned and timed by a small C program (no shell or clock fork in
# the measurement): wall time and the child's CPU time (user + system,
# from wait4; less disturbed by the neighbours of a shared machine),
# medians, and minor faults.  diff = image - without, of the medians.
#
# Then the breakdown of the difference: system calls by name, counted
# with strace -f for both starts of each build (the calls only the image
# start makes, or makes more often), and toyhost's own load phases
# (--stats, medians of 21 starts).  With PERF=1 also perf's CPU samples of 200 starts of each,
# by shared object.

set -u
B=${1:?usage: bench/fixed-cost.sh BUILD [TODAY-BUILD]}
TODAY=${2:-}
RUNS=${RUNS:-60}
abs () { (cd "$1" && pwd); }
B=`abs "$B"` || exit 1
[ -n "$TODAY" ] && { TODAY=`abs "$TODAY"` || exit 1; }
T=`mktemp -d "${TMPDIR:-/tmp}/fixed-cost.XXXXXX"` || exit 1
# Base mode boot keeps its cache in $XDG_RUNTIME_DIR: a private one
# (0700, as a login session's), so each image's first start writes it.
X=`mktemp -d /dev/shm/fixed-cost-xdg.XXXXXX 2> /dev/null || mktemp -d "$T/xdg.XXXXXX"` || exit 1
chmod 700 "$X"
export XDG_RUNTIME_DIR=$X
trap 'rm -rf "$T" "$X"' EXIT INT TERM

cat > "$T/spawn.c" <<'EOF'
/* spawn RUNS NAME CMD... [-- NAME CMD...]...: every command once per
   round, RUNS rounds; prints "NAME wall_us cpu_us minflt" per start.  */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
extern char **environ;
int
main (int argc, char **argv)
{
  int runs = atoi (argv[1]), n = 0;
  char **cmds[64];
  cmds[n++] = &argv[2];
  for (int i = 2; i < argc && n < 64; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        argv[i] = NULL;
        cmds[n++] = &argv[i + 1];
      }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_addopen (&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen (&fa, 2, "/dev/null", O_WRONLY, 0);
  for (int r = 0; r < runs; r++)
    for (int c = 0; c < n; c++)
      {
        struct timespec a, b;
        struct rusage ru;
        pid_t pid;
        int status;
        clock_gettime (CLOCK_MONOTONIC, &a);
        if (posix_spawn (&pid, cmds[c][1], &fa, NULL, &cmds[c][1], environ))
          {
            perror (cmds[c][1]);
            return 1;
          }
        if (wait4 (pid, &status, 0, &ru) != pid)
          return 1;
        clock_gettime (CLOCK_MONOTONIC, &b);
        if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
          {
            fprintf (stderr, "%s: exit status %d\n", cmds[c][0], status);
            return 1;
          }
        printf ("%s %.1f %.1f %ld\n", cmds[c][0],
                (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3,
                (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6
                + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec, ru.ru_minflt);
      }
  return 0;
}
EOF
${CC:-cc} -O2 -o "$T/spawn" "$T/spawn.c" || exit 1

# Per build (new, today) and host: prepare the tiny image and its boot
# cache, and add "NAME CMD..." lines to $T/cmds.
: > "$T/cmds"
: > "$T/rows"
prepare () {
  tag=$1; d=$2
  lua=$d/ports/lua/dumper-lua
  if [ -x "$lua" ]; then
    "$lua" --dump="$T/$tag-lua.pdmp" -e 'x = 1' > /dev/null 2>&1 \
      || { echo "fixed-cost: $lua: the dump failed" >&2; exit 1; }
    "$lua" --image="$T/$tag-lua.pdmp" -e '' || exit 1
    echo "$tag-lua-without $lua -e ''" >> "$T/cmds"
    echo "$tag-lua-image $lua --image=$T/$tag-lua.pdmp -e ''" >> "$T/cmds"
    echo "$tag lua" >> "$T/rows"
  else
    echo "fixed-cost: no $lua (make lua): no lua rows for $d" >&2
  fi
  toy=$d/tests/pdump/toyhost
  if [ -x "$toy" ]; then
    "$toy" --scale 0 --long 0 --temacs=pdump --output "$T/$tag-toy.pdmp" \
      > /dev/null 2>&1 || { echo "fixed-cost: $toy: the dump failed" >&2; exit 1; }
    "$toy" --dump-file="$T/$tag-toy.pdmp" > /dev/null || exit 1
    echo "$tag-toy-without $toy --scale 0 --long 0" >> "$T/cmds"
    echo "$tag-toy-image $toy --dump-file=$T/$tag-toy.pdmp" >> "$T/cmds"
    echo "$tag toy" >> "$T/rows"
  else
    echo "fixed-cost: no $toy: no toy rows for $d" >&2
  fi
}
prepare new "$B"
[ -n "$TODAY" ] && prepare today "$TODAY"
[ -s "$T/rows" ] || { echo "fixed-cost: nothing to measure" >&2; exit 1; }
stock=`command -v lua5.4 2> /dev/null`
[ -n "$stock" ] && echo "stock-lua $stock -e ''" >> "$T/cmds"

# One spawn run, every command in every round.  The commands hold no
# spaces but the empty -e argument, written '' above.
set --
while read -r name cmd; do
  [ $# -gt 0 ] && set -- "$@" --
  set -- "$@" "$name"
  for w in $cmd; do
    [ "$w" = "''" ] && w=
    set -- "$@" "$w"
  done
done < "$T/cmds"
load=`cut -d' ' -f1-3 /proc/loadavg`
"$T/spawn" "$RUNS" "$@" > "$T/times" || exit 1
load="$load -> `cut -d' ' -f1-3 /proc/loadavg`"

# med NAME FIELD: the median of FIELD (2 wall, 3 cpu, 4 faults) in ms
# (faults as they are).
med () {
  awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$T/times" | sort -g \
    | awk -v f="$2" '{ v[NR] = $1 } END { m = v[int ((NR + 1) / 2)];
        if (f == 4) printf "%d", m; else printf "%.3f", m / 1000 }'
}
diff_ms () { echo "$1 $2" | awk '{ printf "%+.3f", $1 - $2 }'; }

echo "fixed cost of a start from a tiny image: $RUNS rounds, interleaved; load average $load"
printf '%-6s %-5s %10s %10s %9s %10s %10s %9s %8s %8s\n' build host \
  without_ms image_ms diff_ms without_cpu image_cpu diff_cpu flt_wo flt_img
while read -r tag host; do
  w=`med $tag-$host-without 2`; i=`med $tag-$host-image 2`
  wc_=`med $tag-$host-without 3`; ic=`med $tag-$host-image 3`
  printf '%-6s %-5s %10s %10s %9s %10s %10s %9s %8s %8s\n' $tag $host \
    $w $i `diff_ms $i $w` $wc_ $ic `diff_ms $ic $wc_` \
    `med $tag-$host-without 4` `med $tag-$host-image 4`
done < "$T/rows"
[ -n "$stock" ] && printf '%-6s %-5s %10s %10s %9s %10s %10s %9s %8s %8s\n' \
  stock lua `med stock-lua 2` - - `med stock-lua 3` - - `med stock-lua 4` -

# The breakdown.
if command -v strace > /dev/null 2>&1; then
  echo
  echo "system calls of one start (strace -f), without -> image; the calls that differ:"
  while read -r name cmd; do
    case $name in stock-*) continue ;; esac
    set --
    for w in $cmd; do [ "$w" = "''" ] && w=; set -- "$@" "$w"; done
    strace -f -c -o "$T/$name.strace" "$@" > /dev/null 2>&1
  done < "$T/cmds"
  while read -r tag host; do
    for k in without image; do
      awk '$NF ~ /^[a-z_0-9]+$/ && $NF != "syscall" && $NF != "total" {
             print $NF, $4 }' \
        "$T/$tag-$host-$k.strace" | sort > "$T/$tag-$host-$k.calls"
    done
    tw=`awk '{ s += $2 } END { print s }' "$T/$tag-$host-without.calls"`
    ti=`awk '{ s += $2 } END { print s }' "$T/$tag-$host-image.calls"`
    printf '%-6s %-5s total %s -> %s:' $tag $host "$tw" "$ti"
    join -a1 -a2 -e0 -o 0,1.2,2.2 "$T/$tag-$host-without.calls" \
      "$T/$tag-$host-image.calls" \
      | awk '$2 != $3 { printf " %s %d->%d", $1, $2, $3 } END { print "" }'
  done < "$T/rows"
fi
while read -r tag host; do
  [ $host = toy ] || continue
  d=$B; [ $tag = today ] && d=$TODAY
  for i in `seq 21`; do
    "$d/tests/pdump/toyhost" --dump-file="$T/$tag-toy.pdmp" --stats
  done | awk '/^load:/ { for (i = 1; i <= NF; i++) if ($i == "ms,") t[n++] = $(i - 1) }
      /^phases:/ { o[m] = $3; p[m] = $5; v[m] = $7; r[m] = $9; s[m] = $11; h[m] = $13; f[m++] = $15 }
      function med (a, k,   i, j, x) { for (i = 0; i < k; i++) for (j = i + 1; j < k; j++)
          if (a[j] + 0 < a[i] + 0) { x = a[i]; a[i] = a[j]; a[j] = x }; return a[int ((k - 1) / 2)] }
      END { printf "\n%s toyhost load from the cache, medians of %d (--stats): total %s ms: open %s, map %s, verify %s, relocate %s, restore %s, hooks %s ms; %s minor faults\n",
              tag, m, med(t, n), med(o, m), med(p, m), med(v, m), med(r, m), med(s, m), med(h, m), med(f, m) }' tag=$tag
done < "$T/rows"

if [ "${PERF:-0}" = 1 ] && command -v perf > /dev/null 2>&1; then
  while read -r name cmd; do
    case $name in stock-*) continue ;; esac
    printf 'for i in $(seq 200); do %s > /dev/null 2>&1; done\n' "$cmd" > "$T/$name.loop"
    perf record -q -F 20000 -e cpu-clock -o "$T/$name.perf" -- sh "$T/$name.loop" \
      > /dev/null 2>&1 || continue
    echo
    echo "$name: CPU samples of 200 starts by shared object (perf):"
    perf report -q -i "$T/$name.perf" --comm `basename "${cmd%% *}"` --sort dso \
      --stdio 2> /dev/null | head -8
  done < "$T/cmds"
fi
