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

begin "dumper.pc names the back end and where dumper-fingerprint is"
pcv="env PKG_CONFIG_PATH=$D$prefix/lib/pkgconfig pkg-config --define-variable=prefix=$D$prefix"
b=`$pcv --variable=backend dumper`
bin=`$pcv --variable=bindir dumper`
if [ "$b" = "$BACKEND" ] && [ -x "$bin/dumper-fingerprint" ]; then pass
else fail "backend '$b' (want $BACKEND), bindir '$bin'"; fi

begin "make uninstall removes what install put there"
make -s -C "$BUILDDIR" uninstall DESTDIR="$D" > "$T/uninstall.log" 2>&1
left=`find "$D" -type f | grep -v '/share/' | head -5`
if [ -z "$left" ]; then pass; else fail "left behind: $left"; fi

# A library-only build at a custom prefix: --disable-tools and
# --disable-tests need neither libbfd nor cmocka (their headers are
# made unusable here), and a program outside the tree links with nothing
# but `pkg-config --cflags --libs dumper' and starts (no LD_LIBRARY_PATH,
# no -rpath of its own).  One mode is enough: pdumper, the shared one.
if [ "$BACKEND" = pdumper ] && [ "$ENABLE_SANITIZERS" != yes ]; then
  P=$T/custom
  mkdir -p "$T/lib-only/fake" "$T/lib-only/build"
  printf '#error "no libbfd in this test"\n' > "$T/lib-only/fake/bfd.h"
  printf '#error "no cmocka in this test"\n' > "$T/lib-only/fake/cmocka.h"
  begin "configure --disable-tools --disable-tests needs only libelf and libxxhash"
  if (cd "$T/lib-only/build" && "$SRCDIR/configure" --prefix="$P" --with-dumper=pdumper \
        --disable-tools --disable-tests CC="${CC:-cc}" CPPFLAGS="-I$T/lib-only/fake" \
        LIBS= > configure.log 2>&1 \
      && make -j2 > make.log 2>&1 && make install > install.log 2>&1); then
    if [ -f "$P/lib/libdumper.a" ] && [ -f "$P/lib/libdumper.so" ] \
       && [ -x "$P/bin/dumper-fingerprint" ] && [ ! -e "$P/bin/dumper-inspect" ]; then
      pass
    else fail "installed: `ls "$P/bin" "$P/lib" | tr '\n' ' '`"; fi
  else
    tail -n 5 "$T/lib-only/build/"*.log | sed 's/^/    | /'
    fail "the library-only build failed"
  fi
  # The codecs are optional (configure --with-lz4/--with-zstd, auto by
  # default) and never linked: pdump/codec.c loads the ones configure
  # found when a compressed image first needs them (tests/pdump/
  # compress.sh), so libdumper.so needs libelf, libxxhash and the C
  # library only (a start from a plain image maps no codec).
  begin "... its libdumper.so needs only libelf, libxxhash and the C library (no codec)"
  readelf -d "$P/lib/libdumper.so" 2>/dev/null \
    | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' > "$T/needed"
  extra=`grep -v -e '^libelf' -e '^libxxhash' -e '^libc\.' -e '^ld-linux' "$T/needed" | tr '\n' ' '`
  extra=`echo $extra`
  if [ -z "$extra" ] && [ -f "$P/lib/libdumper.so" ]; then pass
  else fail "also needs: ${extra:-nothing}"; fi
  begin "a pdumper program built from a custom prefix with pkg-config alone starts"
  flags=`PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs dumper`
  if ${CC:-cc} -o "$T/ten-custom" "$T/ten.c" $flags > "$T/cc2.log" 2>&1; then
    out=`"$T/ten-custom" 2>&1`
    st=$?
    if [ $st -eq 0 ] && [ "$out" = "backend=pdumper initialized=0 will_dump=0" ]; then pass
    else fail "status $st (127: libdumper.so not found): $out"; fi
  else
    cat "$T/cc2.log"; fail "compile with: $flags"
  fi
fi

finish
