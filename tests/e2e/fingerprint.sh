#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/fingerprint.sh: the build fingerprint, end to end.
#
# The same sources linked the same way get the same fingerprint; any
# change gets another; stamping is idempotent; the running program sees
# what the tool stamped; the tool's errors are clear with distinct exit
# statuses; an executable without the note falls back to its build-id.

. "$SRCDIR/tests/e2e/lib.sh"

FP=$BUILDDIR/tools/dumper-fingerprint
CC=${CC:-cc}
CFLAGS_T="-I$BUILDDIR/include -I$SRCDIR/include -O2"
LIBS_T="$BUILDDIR/libdumper.a -lxxhash -lelf $TEST_LDFLAGS"

cat > "$T/prog.c" <<'C'
#include <stdio.h>
#include <dumper/dumper.h>
#ifndef NO_NOTE
DUMPER_DEFINE_FINGERPRINT;
#endif
#ifndef VARIANT
# define VARIANT 1
#endif
int
main (void)
{
  unsigned char fp[DUMPER_FINGERPRINT_SIZE];
  enum dumper_status st = dumper_fingerprint (fp);
  if (st != DUMPER_OK)
    return dumper_report ("prog", st);
  for (int i = 0; i < DUMPER_FINGERPRINT_SIZE; i++)
    printf ("%02x", fp[i]);
  printf ("\n%d\n", VARIANT);
  return 0;
}
C

build () {  # build OUTPUT EXTRA-FLAGS...
  out=$1
  shift
  (cd "$T" && $CC $CFLAGS_T "$@" -o "$out" prog.c $LIBS_T)
}

stored () {  # the fingerprint the tool reports as stored
  "$FP" --print "$1" | sed 's/^.*: //'
}

begin "unstamped executable prints unset"
build a
if [ "`stored "$T/a"`" = unset ]; then pass; else fail "expected unset, got `stored "$T/a"`"; fi

begin "same sources give the same fingerprint"
"$FP" -q "$T/a"
f1=`stored "$T/a"`
build a2
"$FP" -q "$T/a2"
f2=`stored "$T/a2"`
# The output name is not part of the linked file.
if [ -n "$f1" ] && [ "$f1" != unset ] && [ "$f1" = "$f2" ]; then pass
else fail "rebuild gave $f2, first build $f1"; fi

begin "a different build gives another fingerprint"
build b -DVARIANT=2
"$FP" -q "$T/b"
f3=`stored "$T/b"`
if [ "$f3" != "$f1" ] && [ "$f3" != unset ]; then pass; else fail "variant build got $f3 = $f1"; fi

begin "stamping is idempotent"
cp "$T/a" "$T/a.copy"
"$FP" -q "$T/a"
if cmp -s "$T/a" "$T/a.copy" && [ "`stored "$T/a"`" = "$f1" ]; then pass
else fail "second stamp changed the file"; fi

begin "the running program sees the stamped fingerprint"
run=`"$T/a" | head -1`
if [ "$run" = "$f1" ]; then pass; else fail "program reports $run, tool stamped $f1"; fi

begin "--check accepts a fresh stamp and rejects a stale one"
"$FP" --check "$T/a" > /dev/null
st_ok=$?
printf 'x' >> "$T/a.copy"      # any change to the file makes the stamp stale
"$FP" --check "$T/a.copy" > /dev/null
st_stale=$?
if [ $st_ok -eq 0 ] && [ $st_stale -eq 5 ]; then pass
else fail "check statuses: fresh $st_ok (want 0), stale $st_stale (want 5)"; fi

begin "stamping keeps the file mode"
chmod 750 "$T/b"
build b -DVARIANT=3
chmod 750 "$T/b"
"$FP" -q "$T/b"
mode=`stat -c %a "$T/b"`
if [ "$mode" = 750 ]; then pass; else fail "mode became $mode"; fi

expect_status "missing file exits 66" 66 "$FP" "$T/does-not-exist"
printf 'not an executable\n' > "$T/text"
expect_status "a text file exits 65" 65 "$FP" "$T/text"
build nonote -DNO_NOTE
expect_status "an ELF file without the note exits 65" 65 "$FP" "$T/nonote"
expect_status "no arguments exits 64" 64 "$FP"
expect_status "an unknown option exits 64" 64 "$FP" --bogus "$T/a"
begin "a usage error is one line naming the option, not getopt's text and the usage"
msg=`"$FP" --bogus "$T/a" 2>&1 >/dev/null`
if [ "$msg" = "dumper-fingerprint: unknown option \`--bogus'; try --help" ]; then pass
else fail "got: $msg"; fi
check "--help exits 0" "$FP" --help

begin "error messages name the file"
msg=`"$FP" "$T/text" 2>&1`
case $msg in
  *"$T/text"*"not an ELF file"*) pass ;;
  *) fail "message was: $msg" ;;
esac

begin "without the note the build-id is the fingerprint"
out=`"$T/nonote" 2>&1`
st=$?
fp_nonote=`printf '%s\n' "$out" | head -1`
if [ $st -eq 0 ] && [ ${#fp_nonote} -eq 32 ]; then pass; else fail "status $st, output $out"; fi

begin "without note or build-id the program gets a clear error"
build bare -DNO_NOTE -Wl,--build-id=none
out=`"$T/bare" 2>&1`
st=$?
case $out in
  *"no build fingerprint"*) [ $st -eq 94 ] && pass || fail "status $st" ;;
  *) fail "status $st, output $out" ;;
esac

finish
