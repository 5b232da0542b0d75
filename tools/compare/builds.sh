#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/compare/builds.sh: find, or make, the build directory of one mode
# for dumper-compare (`make compare' and tests/compare/).
#
# Usage: builds.sh SRCDIR HERE MODE [NEWDIR]
#   SRCDIR  the source tree
#   HERE    a build directory of that tree (the one `make compare' runs in)
#   MODE    none, unexec or pdumper
#   NEWDIR  where to configure and build MODE when no build of it exists
#
# Prints the directory of a build of MODE from SRCDIR: HERE when it is
# one; else a sibling of HERE -- HERE's name with its mode swapped
# (build/pdumper -> build/none, build/test-pdumper -> build/test-none),
# then test-MODE, then MODE; else NEWDIR, configured --with-dumper=MODE.
# A directory counts only when its Makefile says BACKEND = MODE, its
# srcdir is SRCDIR and its MACHINE is HERE's (an i386 build never pairs
# with an x86_64 one).  A cross build (HERE configured with --host) gets
# no NEWDIR: configure there would build for this machine; scripts/
# test-arch builds every mode for the other target instead.  The programs dumper-compare runs there (host/dlisp,
# host/dlisp-bare, and bench/pdump-floor and tools/dumper-embed for
# pdumper) are brought up to date; their build log is
# MODE-compare-build.log in the directory.
# Exit status: 0; 2 when no build of MODE can exist for HERE's machine
# here (unexec on a machine but x86_64; a cross build without a sibling
# of MODE for its target); 1 otherwise; the reason on stderr.

SRCDIR=`cd "$1" && pwd` || exit 1
HERE=`cd "$2" && pwd` || exit 1
MODE=$3
NEWDIR=$4

case $MODE in
  none|unexec|pdumper) ;;
  *) echo "builds.sh: unknown mode \`$MODE'" >&2; exit 1 ;;
esac

# is_build DIR: DIR is a build of MODE configured from SRCDIR.
is_build () {
  [ -f "$1/Makefile" ] || return 1
  backend=`sed -n 's/^BACKEND = //p' "$1/Makefile"`
  src=`sed -n 's/^srcdir = //p' "$1/Makefile"`
  [ "$backend" = "$MODE" ] || return 1
  # MACHINE is new in Makefile.in: a Makefile not yet regenerated has
  # none, and then its word size decides.
  machine=`sed -n 's/^MACHINE = //p' "$1/Makefile"`
  [ -z "$machine" ] || [ -z "$here_machine" ] || [ "$machine" = "$here_machine" ] \
    || return 1
  [ "`sed -n 's/^WORD_SIZE = //p' "$1/Makefile"`" = "$here_word_size" ] || return 1
  src=`cd "$1" && cd "$src" 2>/dev/null && pwd`
  [ "$src" = "$SRCDIR" ]
}

found=
parent=`dirname "$HERE"`
here_mode=`sed -n 's/^BACKEND = //p' "$HERE/Makefile" 2>/dev/null`
here_machine=`sed -n 's/^MACHINE = //p' "$HERE/Makefile" 2>/dev/null`
here_word_size=`sed -n 's/^WORD_SIZE = //p' "$HERE/Makefile" 2>/dev/null`
swapped=
case `basename "$HERE"` in
  *"$here_mode"*)
    [ -n "$here_mode" ] && swapped=$parent/`basename "$HERE" | sed "s/$here_mode/$MODE/"` ;;
esac
for dir in "$HERE" $swapped "$parent/test-$MODE" "$parent/$MODE"; do
  if is_build "$dir"; then
    found=$dir
    break
  fi
done

if [ -z "$found" ]; then
  if [ -z "$NEWDIR" ]; then
    echo "builds.sh: no build --with-dumper=$MODE beside $HERE" >&2
    exit 1
  fi
  if [ "$MODE" = unexec ] && [ -n "$here_machine" ] && [ "$here_machine" != x86_64 ]; then
    echo "builds.sh: no unexec build for $here_machine: configure offers unexec" \
      "on x86_64 only (doc/unexec.md, \"Machines\")" >&2
    exit 2
  fi
  if "$HERE/config.status" --config 2>/dev/null | grep -q -- "--host="; then
    echo "builds.sh: no build --with-dumper=$MODE for $here_machine beside $HERE," \
      "and $HERE is a cross build (configure --host): build that mode for" \
      "the same target first (sh scripts/test-arch ARCH none pdumper)" >&2
    exit 2
  fi
  echo "builds.sh: configuring $NEWDIR --with-dumper=$MODE" >&2
  mkdir -p "$NEWDIR" || exit 1
  found=`cd "$NEWDIR" && pwd`
  (cd "$found" && "$SRCDIR/configure" --with-dumper=$MODE > configure.log 2>&1) || {
    tail -20 "$found/configure.log" >&2
    echo "builds.sh: configure failed in $found" >&2
    exit 1
  }
fi

targets="host/dlisp host/dlisp-bare"
[ "$MODE" = pdumper ] && targets="$targets bench/pdump-floor tools/dumper-embed"
# A make that runs this script must not hand its job server or flags down.
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j"${JOBS:-2}" -C "$found" $targets \
     > "$found/$MODE-compare-build.log" 2>&1; then
  tail -30 "$found/$MODE-compare-build.log" >&2
  echo "builds.sh: building $targets in $found failed" >&2
  exit 1
fi
echo "$found"
