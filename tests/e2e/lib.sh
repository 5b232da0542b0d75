# SPDX-License-Identifier: MIT
# tests/e2e/lib.sh: helpers for end-to-end test scripts.
#
# A script sources this file, calls `check NAME COMMAND...' or
# `begin NAME; ...; pass|fail MESSAGE' for each case, and ends with
# `finish'.  The report uses cmocka's format so tests/run-tests counts
# it.  Each script gets its own temporary directory $T, removed on exit.
#
# Environment (set by `make check'): BUILDDIR, SRCDIR, BACKEND,
# WORD_SIZE (bytes per pointer of the build: 4 or 8; field offsets in
# expected messages depend on it), and, set by scripts/test-arch when the
# build's programs run under an emulator (qemu-user through
# binfmt_misc), DUMPER_TEST_EMULATOR naming it.

: "${BUILDDIR:=`pwd`}"
: "${SRCDIR:=$BUILDDIR}"
: "${BACKEND:=pdumper}"
: "${WORD_SIZE:=`expr \`getconf LONG_BIT\` / 8`}"

# words N: N words in bytes, for expected field offsets.
words () { expr "$1" \* "$WORD_SIZE"; }

# The codecs this build has (configure --with-lz4 / --with-zstd, found
# automatically by default): the tests of compressed images run for
# these; `has_codec NAME' asks.
CODECS=
if grep -q '^#define HAVE_LZ4 1' "$BUILDDIR/config.h" 2>/dev/null; then CODECS=lz4; fi
if grep -q '^#define HAVE_ZSTD 1' "$BUILDDIR/config.h" 2>/dev/null; then
  CODECS="${CODECS:+$CODECS }zstd"
fi
# has_test_hooks: the library has the test suite's fault injection
# (./configure --enable-test-hooks; scripts/test-all builds so); a
# release library has none, and the cases that need it skip.
has_test_hooks () {
  grep -q '^#define DUMPER_TEST_HOOKS 1' "$BUILDDIR/config.h" 2>/dev/null
}
NO_HOOKS="needs the test hooks (./configure --enable-test-hooks)"

has_codec () {
  case " $CODECS " in *" $1 "*) return 0 ;; esac
  return 1
}

# dump_option NAME: set DUMP to the option that makes a run dump in this
# build's back end, or, in a build that cannot dump, skip the script
# (reported as NAME) and exit.  Call it after the definitions below.
dump_option () {
  case $BACKEND in
    pdumper) DUMP=--temacs=pdump ;;
    unexec) DUMP=--temacs=dump ;;
    *)
      begin "$1"
      skip "this build is --with-dumper=$BACKEND"
      finish ;;
  esac
}

T=`mktemp -d "${TMPDIR:-/tmp}/dumper-e2e.XXXXXX"` || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

_t_pass=0
_t_fail=0
_t_skip=0
_t_failed=
_t_current=

begin () {
  _t_current=$1
  echo "[ RUN      ] $1"
}

pass () {
  echo "[       OK ] $_t_current"
  _t_pass=`expr $_t_pass + 1`
}

fail () {
  echo "    $*"
  echo "[  FAILED  ] $_t_current"
  _t_fail=`expr $_t_fail + 1`
  _t_failed="$_t_failed
$_t_current"
}

skip () {
  echo "[  SKIPPED ] $_t_current: $*"
  _t_skip=`expr $_t_skip + 1`
}

# check NAME COMMAND...: the case passes when COMMAND exits 0.
check () {
  _name=$1
  shift
  begin "$_name"
  if _out=`"$@" 2>&1`; then
    pass
  else
    _st=$?
    printf '%s\n' "$_out" | sed 's/^/    | /' | tail -20
    fail "command exited with status $_st: $*"
  fi
}

# expect_status NAME STATUS COMMAND...: passes when COMMAND exits STATUS.
expect_status () {
  _name=$1
  _want=$2
  shift 2
  begin "$_name"
  _out=`"$@" 2>&1`
  _st=$?
  if [ "$_st" -eq "$_want" ]; then
    pass
  else
    printf '%s\n' "$_out" | sed 's/^/    | /' | tail -20
    fail "expected exit status $_want, got $_st: $*"
  fi
}

# refused SCENARIO STATUS WORDS...: a dump by the test host $REFUSING
# with --bad SCENARIO (and $DUMP, see dump_option) exits STATUS, says
# each of WORDS, and leaves no file in $T.
refused () {
  _b=$1; _s=$2
  shift 2
  begin "--bad $_b: refused with $_s"
  _out=`"$REFUSING" --bad $_b $DUMP --output "$T/out" 2>&1`
  _st=$?
  if [ $_st -ne $_s ]; then fail "exit status $_st, expected $_s: $_out"; return; fi
  if ls "$T" | grep -q '^out'; then fail "a file was left: `ls "$T"`"; return; fi
  for _w in "$@"; do
    case $_out in *"$_w"*) ;; *) fail "message lacks '$_w': $_out"; return ;; esac
  done
  pass
}

# wait_on_pipe PID: wait (at most 10 s) until process PID blocks reading
# a pipe, as a REPL does once it has started and waits for input.
wait_on_pipe () {
  _n=0
  while [ $_n -lt 200 ] && ! grep -q pipe_read "/proc/$1/wchan" 2>/dev/null; do
    sleep 0.05
    _n=`expr $_n + 1`
  done
}

finish () {
  _total=`expr $_t_pass + $_t_fail`
  echo "[==========] $_total test(s) run."
  echo "[  PASSED  ] $_t_pass test(s)."
  if [ "$_t_skip" -gt 0 ]; then
    echo "[  SKIPPED ] $_t_skip test(s)."
  fi
  if [ "$_t_fail" -gt 0 ]; then
    echo "[  FAILED  ] $_t_fail test(s), listed below:"
    printf '%s\n' "$_t_failed" | sed '/^$/d; s/^/[  FAILED  ] /'
    exit 1
  fi
  exit 0
}
