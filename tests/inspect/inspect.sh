#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/inspect/inspect.sh: dumper-inspect's command line, in every
# build mode: --help and --version, each kind of bad argument (exit 64
# and a message saying what is wrong), images that cannot be read or are
# not images (the loader's statuses 80-82, naming the file), an unusable
# --exe (93, naming it), an executable without a fingerprint under
# --check (94, before the image is opened, as the loader does), and a
# failed write of the output (74).  tests/inspect/views.sh covers what
# needs a real image.

. "$SRCDIR/tests/e2e/lib.sh"

INSPECT=$BUILDDIR/tools/dumper-inspect

# expect NAME STATUS WORDS -- ARGS...: dumper-inspect ARGS exits STATUS
# and its output (stdout and stderr) contains each of WORDS.
expect () {
  _n=$1; _s=$2
  shift 2
  _words=
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    _words="$_words
$1"
    shift
  done
  shift
  begin "$_n"
  _out=`"$INSPECT" "$@" 2>&1`
  _st=$?
  if [ $_st -ne $_s ]; then fail "exit status $_st, expected $_s: $_out"; return; fi
  _missing=`printf '%s\n' "$_words" | while IFS= read -r _w; do
    [ -z "$_w" ] && continue
    case $_out in *"$_w"*) ;; *) printf '%s ' "'$_w'" ;; esac
  done`
  if [ -n "$_missing" ]; then fail "output lacks $_missing: $_out"; return; fi
  pass
}

expect "--help shows the usage and the exit statuses" 0 \
  "Usage: dumper-inspect" "--exe BINARY" "--refs OFFSET" "Exit status" "86 corrupt" -- --help
expect "--version names the tool and the version" 0 "dumper-inspect (dumper) " -- --version
expect "no image is a usage error" 64 "no image given" "--help" --
expect "an unknown long option is a usage error" 64 "unknown option \`--bogus'" -- --bogus x.pdmp
expect "an unknown short option is a usage error" 64 "unknown option \`-x'" -- -x x.pdmp
expect "--exe without its argument is a usage error" 64 "option \`--exe' needs an argument" -- x.pdmp --exe
expect "two images are a usage error" 64 "more than one image" "\`b.pdmp'" -- a.pdmp b.pdmp
expect "two views are a usage error" 64 "give one" -- --objects --check x.pdmp
expect "--type without --objects is a usage error" 64 "--type goes with --objects" -- --type vec x.pdmp
expect "--refs with a word is a usage error" 64 "\`car' is not an offset" -- --refs car x.pdmp
expect "--refs with a negative number is a usage error" 64 "\`-8' is not an offset" -- --refs -8 x.pdmp
expect "--refs with trailing junk is a usage error" 64 "\`0x10g' is not an offset" -- --refs 0x10g x.pdmp

expect "a missing image: 80, naming it" 80 "$T/none.pdmp" "No such file" -- "$T/none.pdmp"
expect "--check on a missing image: 80 like the loader" 80 "$T/none.pdmp" -- --check "$T/none.pdmp"
mkdir "$T/dir.pdmp"
expect "a directory: 80, not a regular file" 80 "$T/dir.pdmp" "not a regular file" -- "$T/dir.pdmp"
: > "$T/empty.pdmp"
expect "an empty file: 81" 81 "$T/empty.pdmp" "truncated" "empty" -- "$T/empty.pdmp"
printf 'hello, I am a text file\n' > "$T/text.pdmp"
expect "a text file: 82, not a dumper image" 82 "$T/text.pdmp" "not a dumper image" -- "$T/text.pdmp"
expect "--json --check on a text file: the verdict in JSON too" 82 \
  '"ok": false' '"exit_status": 82' -- --json --check "$T/text.pdmp"

begin "an unreadable image: 80, naming it"
cp "$T/text.pdmp" "$T/secret.pdmp"
chmod 000 "$T/secret.pdmp"
if [ -r "$T/secret.pdmp" ]; then
  skip "running as root: every file is readable"
else
  out=`"$INSPECT" "$T/secret.pdmp" 2>&1`
  st=$?
  case $out in
    *"$T/secret.pdmp"*"Permission denied"*) [ $st -eq 80 ] && pass || fail "status $st" ;;
    *) fail "status $st: $out" ;;
  esac
fi

expect "a missing --exe: 93, naming it" 93 "$T/nobinary" "cannot open the executable" \
  "No such file" -- --exe "$T/nobinary" "$T/text.pdmp"
expect "a --exe that is not ELF: 93, naming it" 93 "$T/text.pdmp" "not an ELF executable" \
  -- --exe "$T/text.pdmp" "$T/text.pdmp"
expect "a --exe directory: 93, naming it" 93 "$T/dir.pdmp" -- --exe "$T/dir.pdmp" "$T/text.pdmp"

begin "--check --exe without a fingerprint: 94 before the image, as the loader"
printf 'int main (void) { return 0; }\n' > "$T/plain.c"
if ${CC:-cc} -o "$T/plain" "$T/plain.c" -Wl,--build-id=none 2> "$T/cc.log"; then
  out=`"$INSPECT" --check --exe "$T/plain" "$T/none.pdmp" 2>&1`
  st=$?
  case $out in
    *"$T/plain"*"neither a dumper fingerprint note nor a GNU build-id"*)
      [ $st -eq 94 ] && pass || fail "status $st: $out" ;;
    *) fail "status $st: $out" ;;
  esac
else
  skip "cannot link a test program: `cat "$T/cc.log"`"
fi

# An executable without an embedded image: the loader says 80 ("no
# embedded image"), and --check must say the same (it said 82, "bad
# magic", found by the loader fuzz target comparing the two).
begin "an executable without an embedded image: 80 from --check, as from the loader"
if [ "$BACKEND" = pdumper ]; then
  out=`"$INSPECT" --check "$BUILDDIR/tests/pdump/toyhost" 2>&1`
  st=$?
  lout=`"$BUILDDIR/tests/pdump/toyhost" --dump-file="$BUILDDIR/tests/pdump/toyhost" 2>&1`
  lst=$?
  case "$st:$lst:$out" in
    80:80:*"no embedded image"*) pass ;;
    *) fail "dumper-inspect status $st ($out), loader status $lst ($lout)" ;;
  esac
else
  skip "this build is --with-dumper=$BACKEND"
fi

begin "a failed write of the output: 74"
if [ -w /dev/full ]; then
  out=`"$INSPECT" --help 2>&1 > /dev/full`
  st=$?
  case $out in
    *"cannot write the output"*) [ $st -eq 74 ] && pass || fail "status $st" ;;
    *) fail "status $st: $out" ;;
  esac
else
  skip "no /dev/full"
fi

finish
