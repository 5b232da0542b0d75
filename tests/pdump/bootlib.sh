# SPDX-License-Identifier: MIT
# tests/pdump/bootlib.sh: what boot.sh and bootchecks.sh share (sourced
# after tests/e2e/lib.sh): the skips, a private XDG_RUNTIME_DIR $RUN
# whose dumper directory is $DIR, the image $T/a.pdmp with the cold
# digest $cold, and starts in base mode boot.

if [ "$BACKEND" != pdumper ]; then
  begin "base mode boot"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi
if [ -n "$DUMPER_TEST_EMULATOR" ]; then
  # qemu-user takes MAP_FIXED_NOREPLACE as a hint (base.sh): every boot
  # start falls back there.
  begin "base mode boot"
  skip "under $DUMPER_TEST_EMULATOR, which places mappings itself"
  finish
fi

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp
RUN=$T/run
DIR=$RUN/dumper
mkdir "$RUN" && chmod 700 "$RUN"

cold=`"$BARE" --heap-digest`
"$BARE" --temacs=pdump --output "$T/a.pdmp" > "$T/dump.out" 2>&1 \
  || { cat "$T/dump.out"; exit 1; }

stat () {
  sed -n "s/^$2: //p" "$1"
}

# boot [VAR=VALUE...]: one start in base mode boot with XDG_RUNTIME_DIR
# $RUN (and the assignments given); its output in $T/out, stderr in
# $T/err; true when it exited 0 with the cold digest.
boot () {
  env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=boot "$@" timeout 20 "$DLISP" \
    --dump-file="$T/a.pdmp" --heap-digest --load-stats > "$T/out" 2> "$T/err" \
    && [ "`head -1 "$T/out"`" = "$cold" ]
}

# placed PLACEMENT [REASON-PATTERN]: the last start was placed so, for a
# reason matching the pattern
placed () {
  [ "`stat "$T/out" pdump-placement`" = "$1" ] \
    && { [ -z "$2" ] || stat "$T/out" pdump-placement-reason | grep -q -- "$2"; }
}

# verdict OK MESSAGE
verdict () {
  if [ "$1" = yes ]; then
    pass
  else
    cat "$T/err"; grep "placement\|pdump-base:\|cold-check" "$T/out"; ls -la "$DIR" 2>&1
    fail "$2"
  fi
}

# restamp: the stamp of the cache $cache as it is now, as the writer
# would have written it (pdump/bootcache.c, stamp_text): the cache's
# line, then the image file's ($T/a.pdmp).
restamp () {
  command stat -c '%d %i %s %.9Z' "$cache" "$T/a.pdmp" > "$cache.stamp"
}
