#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/unexec/nobits.sh: the unexec arena costs no file size, with any
# compiler.  Its section `.lbss' is NOBITS in libdumper.a and in an
# undumped unexec executable, and neither file is anywhere near the
# arena's size (with clang's PROGBITS `.lbss' both were over 1 GiB).

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != unexec ]; then
  begin "unexec arena is NOBITS"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

READELF=${READELF:-readelf}
MH=$BUILDDIR/tests/unexec/minihost

# lbss_types FILE: the type of every .lbss section in FILE (one a line).
lbss_types () {
  "$READELF" -S -W "$1" 2>/dev/null \
    | awk '{ for (i = 1; i < NF; i++) if ($i == ".lbss") print $(i + 1) }'
}

for f in "$BUILDDIR/libdumper.a" "$MH"; do
  name=`basename "$f"`
  begin "$name: .lbss is NOBITS"
  types=`lbss_types "$f" | sort -u | tr '\n' ' '`
  if [ "$types" = "NOBITS " ]; then pass; else fail ".lbss types: '$types'"; fi
  begin "$name: smaller than 64 MiB"
  size=`wc -c < "$f"`
  if [ "$size" -lt 67108864 ]; then pass; else fail "$size bytes"; fi
done

finish
