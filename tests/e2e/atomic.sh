#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/atomic.sh: every writer of the project replaces its output
# the same way (common/atomic.c): the dump of the configured back end,
# dumper-fingerprint and dumper-migrate --fix.
#
# Watched through tests/e2e/probe.so (LD_PRELOAD): no writer changes
# the process umask (a thread creating a file meanwhile would get mode
# 0666); every output descriptor is close-on-exec; the file and its
# directory are synced.  And without help from the caller (SIGXFSZ keeps
# its default action): a file-size limit is a clean error, not a process
# killed by SIGXFSZ (status 153), and no temporary file is left; nor
# when the output names an existing directory, nor when the file's
# fsync fails (the probe's PROBE_FAIL_FSYNC).

. "$SRCDIR/tests/e2e/lib.sh"

PROBE=$BUILDDIR/tests/e2e/probe.so
FP=$BUILDDIR/tools/dumper-fingerprint
MIGRATE=$BUILDDIR/tools/dumper-migrate
export PROBE_LOG="$T/probe.log"

# The dump of this build's back end: toyhost (pdumper), minihost (unexec).
case $BACKEND in
  pdumper) DUMP="$BUILDDIR/tests/pdump/toyhost --temacs=pdump --output" ;;
  unexec)  DUMP="$BUILDDIR/tests/unexec/minihost --temacs=dump --output" ;;
  *)       DUMP= ;;
esac

# probed NAME COMMAND...: run COMMAND under the probe; the log must show
# a synced close-on-exec file, a synced directory and no umask change.
probed () {
  _name=$1
  shift
  begin "$_name"
  rm -f "$PROBE_LOG"
  if ! LD_PRELOAD=$PROBE "$@" > "$T/out" 2>&1; then
    sed 's/^/    | /' "$T/out"
    fail "command failed: $*"
    return
  fi
  _bad=
  touch "$PROBE_LOG"
  grep -q '^umask' "$PROBE_LOG" && _bad="$_bad; changed the process umask"
  grep -q '^fsync-noexec' "$PROBE_LOG" && _bad="$_bad; output descriptor without O_CLOEXEC"
  grep -q '^fsync-file' "$PROBE_LOG" || _bad="$_bad; no close-on-exec output file synced"
  grep -q '^fsync-dir' "$PROBE_LOG" || _bad="$_bad; the directory was not synced after the rename"
  if [ -z "$_bad" ]; then pass; else fail "${_bad#; }"; fi
}

# leftovers DIR NAME: what DIR holds besides NAME.
leftovers () { ls -A "$1" | grep -v -x -e "$2"; }

if [ "$ENABLE_SANITIZERS" = yes ]; then
  begin "writers under the probe"
  skip "AddressSanitizer must be the first preloaded library"
else
  if [ -n "$DUMP" ]; then
    probed "$BACKEND dump: no umask, O_CLOEXEC, file and directory synced" \
      $DUMP "$T/dumped"
  fi
  # An appended byte makes the stored fingerprint stale: a rewrite.
  cp "$BUILDDIR/tests/unit/flagprobe" "$T/exe"
  printf x >> "$T/exe"
  probed "dumper-fingerprint: no umask, O_CLOEXEC, file and directory synced" \
    "$FP" -q "$T/exe"
  if [ -x "$MIGRATE" ]; then     # not in a --disable-tools build
    mkdir "$T/src"
    printf '%s\n' 'extern void f (void);' 'void g (void)' '{' \
      '#ifndef CANNOT_DUMP' '  if (initialized)' '#endif' '    f ();' '}' \
      > "$T/src/a.c"
    probed "dumper-migrate --fix: no umask, O_CLOEXEC, file and directory synced" \
      "$MIGRATE" -q --fix "$T/src/a.c"
  fi
fi

# Modes: a new image or executable gets the umask; a rewritten file
# keeps its own mode.
begin "modes: new output follows the umask, a rewritten file keeps its mode"
cp "$BUILDDIR/tests/unit/flagprobe" "$T/exe2"
printf x >> "$T/exe2"
chmod 0751 "$T/exe2"
(umask 077; "$FP" -q "$T/exe2")
m=`stat -c %a "$T/exe2"`
if [ -n "$DUMP" ]; then
  (umask 027; $DUMP "$T/masked" > /dev/null 2>&1)
  d=`stat -c %a "$T/masked" 2>/dev/null`
  case $BACKEND in pdumper) want=640 ;; *) want=750 ;; esac
else
  d=skip want=skip
fi
if [ "$m" = 751 ] && [ "$d" = "$want" ]; then pass
else fail "fingerprint left mode $m (want 751), dump made mode $d (want $want)"; fi

# A file-size limit with SIGXFSZ at its default action.
xfsz () {  # xfsz NAME LIMIT-BLOCKS DIR KEEP COMMAND...: DIR holds only KEEP after
  _name=$1 _limit=$2 _dir=$3 _keep=$4
  shift 4
  begin "$_name"
  sh -c 'ulimit -f "$0"; exec "$@"' "$_limit" "$@" > "$T/out" 2>&1
  _st=$?
  _left=`leftovers "$_dir" "$_keep"`
  if [ $_st -ne 0 ] && [ $_st -ne 153 ] && [ -z "$_left" ] \
     && grep -q 'too large' "$T/out"; then
    pass
  else
    sed 's/^/    | /' "$T/out"
    fail "status $_st (153: killed by SIGXFSZ), left behind: '$_left'"
  fi
}

if [ -n "$DUMP" ]; then
  mkdir "$T/d1"
  xfsz "$BACKEND dump under ulimit -f: an error, not SIGXFSZ" 8 "$T/d1" none \
    $DUMP "$T/d1/out"
fi
# An output naming an existing directory: the finished file cannot be
# renamed into place, and the temporary file (OUT.tmp-XXXXXX) goes with
# the failure (issue 36: a writer that kept it survived).
into_dir () {  # into_dir NAME COMMAND...: COMMAND's output is $T/into/out
  _name=$1
  shift
  begin "$_name"
  rm -rf "$T/into"
  mkdir -p "$T/into/out"
  "$@" "$T/into/out" > "$T/out" 2>&1
  _st=$?
  _left=`leftovers "$T/into" out; ls -A "$T/into/out"`
  if [ $_st -ne 0 ] && [ -z "$_left" ] && grep -q 'Is a directory' "$T/out"; then
    pass
  else
    sed 's/^/    | /' "$T/out"
    fail "status $_st, left behind: '$_left'"
  fi
}
case $BACKEND in
  pdumper) DLISP_DUMP="$BUILDDIR/host/dlisp-bare --temacs=pdump --output" ;;
  unexec)  DLISP_DUMP="$BUILDDIR/host/dlisp-bare --temacs=dump --output" ;;
  *)       DLISP_DUMP= ;;
esac
if [ -n "$DUMP" ]; then
  into_dir "$BACKEND dump to an existing directory: an error, no temporary file left" \
    $DUMP
  into_dir "dlisp $BACKEND dump to an existing directory: an error, no temporary file left" \
    $DLISP_DUMP
fi

# A sync that fails (the probe's PROBE_FAIL_FSYNC: EIO from every fsync
# of a regular file): the dump fails with the I/O error, and the
# temporary file goes with it (common_atomic_finish's abort).
if [ -n "$DUMP" ] && [ "$ENABLE_SANITIZERS" != yes ]; then
  begin "$BACKEND dump whose fsync fails: 74, the I/O error, no temporary file left"
  mkdir "$T/d3"
  rm -f "$PROBE_LOG"
  PROBE_FAIL_FSYNC=1 LD_PRELOAD=$PROBE $DUMP "$T/d3/out" > "$T/out" 2>&1
  _st=$?
  _left=`ls -A "$T/d3"`
  if [ $_st -eq 74 ] && [ -z "$_left" ] && grep -q '^fsync-failed' "$PROBE_LOG" \
     && grep -q 'Input/output error' "$T/out"; then
    pass
  else
    sed 's/^/    | /' "$T/out"
    fail "status $_st (want 74), left behind: '$_left'"
  fi
fi

mkdir "$T/d2"
cp "$BUILDDIR/tests/unit/flagprobe" "$T/d2/exe"
printf x >> "$T/d2/exe"
xfsz "dumper-fingerprint under ulimit -f: an error, not SIGXFSZ" 8 "$T/d2" exe \
  "$FP" -q "$T/d2/exe"

finish
