#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/build.sh: the build system as a user meets it.
#
# configure rejects a bad back end with a clear message; `make install
# DESTDIR=...' installs the library, headers and dumper.pc; a program
# outside the tree compiles and links with `pkg-config --cflags --libs
# dumper' against the installed copy and runs; uninstall removes it.

. "$SRCDIR/tests/e2e/lib.sh"

begin "configure rejects --with-dumper=bogus naming the valid values"
mkdir "$T/cfg"
out=`cd "$T/cfg" && "$SRCDIR/configure" --with-dumper=bogus 2>&1`
st=$?
case $out in
  *"--with-dumper"*"unexec, pdumper, none"*) [ $st -ne 0 ] && pass || fail "status 0" ;;
  *) fail "status $st; output: `printf '%s' "$out" | tail -3`" ;;
esac

begin "configure rejects a bad arena size"
out=`cd "$T/cfg" && "$SRCDIR/configure" --with-arena-size=lots 2>&1`
case $out in
  *"--with-arena-size"*) pass ;;
  *) fail "output: `printf '%s' "$out" | tail -3`" ;;
esac

begin "configure --help documents the options"
out=`"$SRCDIR/configure" --help`
case $out in
  *--with-dumper*--with-arena-size*) case $out in *--enable-sanitizers*) pass ;; *) fail "no --enable-sanitizers" ;; esac ;;
  *) fail "options missing from --help" ;;
esac

D=$T/dest
begin "make install honours DESTDIR"
if make -s -C "$BUILDDIR" install DESTDIR="$D" > "$T/install.log" 2>&1; then
  prefix=`sed -n 's/^prefix=//p' "$BUILDDIR/dumper.pc"`
  if [ -f "$D$prefix/lib/pkgconfig/dumper.pc" ] && [ -f "$D$prefix/include/dumper/gflags.h" ] \
     && [ -f "$D$prefix/include/dumper/backend.h" ] && [ -f "$D$prefix/lib/libdumper.a" ] \
     && [ -x "$D$prefix/bin/dumper-fingerprint" ]; then pass
  else fail "installed files missing under $D$prefix"; fi
else
  tail -5 "$T/install.log"; fail "make install failed"
fi

begin "a program outside the tree builds with pkg-config and runs"
cat > "$T/ten.c" <<'C'
#include <stdio.h>
#include <dumper/dumper.h>
DUMPER_DEFINE_FINGERPRINT;
int main (int argc, char **argv) {
  enum dumper_status st = dumper_startup (&argc, &argv);
  if (st != DUMPER_OK) return dumper_report (argv[0], st);
  printf ("backend=%s initialized=%d will_dump=%d\n", DUMPER_BACKEND, initialized, will_dump);
  if (!initialized) dumper_mark_initialized ();
  return initialized ? 0 : 1;
}
C
pc="pkg-config --define-variable=prefix=$D$prefix"
flags=`PKG_CONFIG_PATH=$D$prefix/lib/pkgconfig $pc --cflags --libs dumper`
if ${CC:-cc} -o "$T/ten" "$T/ten.c" $flags $TEST_LDFLAGS -Wl,-rpath,"$D$prefix/lib" > "$T/cc.log" 2>&1; then
  out=`"$T/ten"`
  case $out in
    "backend=$BACKEND initialized=0 will_dump=0") pass ;;
    *) fail "program printed: $out" ;;
  esac
else
  cat "$T/cc.log"; fail "compile with: $flags"
fi

begin "make uninstall removes what install put there"
make -s -C "$BUILDDIR" uninstall DESTDIR="$D" > "$T/uninstall.log" 2>&1
left=`find "$D" -type f | grep -v '/share/' | head -5`
if [ -z "$left" ]; then pass; else fail "left behind: $left"; fi

finish
