#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/cold.sh: COLD verification (issue 15, doc/format.md "COLD
# verification", dumper.h enum dumper_cold_check).
#
#   - full (the default): a damaged COLD byte is refused (86) at every
#     start;
#   - boot: the checksum at the first start of the file in this boot,
#     skipped later while the file is unchanged; a byte changed in place
#     or the file replaced is checked again, and refused when damaged;
#     at the preferred base (base mode fixed) HOT's pass is skipped as
#     well, and a HOT byte changed in place is refused;
#     without XDG_RUNTIME_DIR, a checksum at every start;
#   - size: no checksum; a damaged COLD byte loads as it is (what the
#     mode gives up), a truncated image is still refused;
#   - a bad DUMPER_PDUMP_COLD is a usage error (64) naming the values.

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "COLD verification"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp
RUN=$T/run
mkdir "$RUN" && chmod 700 "$RUN"

cold=`"$BARE" --heap-digest`
"$BARE" --temacs=pdump --output "$T/good.pdmp" > "$T/dump.out" 2>&1 \
  || { cat "$T/dump.out"; exit 1; }
cp "$T/good.pdmp" "$T/a.pdmp"

stat () {
  sed -n "s/^$2: //p" "$1"
}

# start MODE [VAR=VALUE...]: one start with COLD verification MODE; its
# status in $st, output in $T/out, stderr in $T/err
# Base mode random unless the assignments say otherwise: a start from
# the boot cache (the default base mode) checks no COLD of the file.
start () {
  _mode=$1
  shift
  env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=random DUMPER_PDUMP_COLD=$_mode "$@" "$DLISP" \
    --dump-file="$T/a.pdmp" --heap-digest --load-stats > "$T/out" 2> "$T/err"
  st=$?
}

# good HOW: the last start exited 0 with the cold digest, and COLD was
# verified as HOW says (a prefix of pdump-cold-check)
good () {
  [ $st -eq 0 ] && [ "`head -1 "$T/out"`" = "$cold" ] \
    && stat "$T/out" pdump-cold-check | grep -q "^$1"
}

# refused: the last start exited 86 naming COLD's checksum
refused () {
  [ $st -eq 86 ] && grep -q "checksum mismatch in section COLD" "$T/err"
}

verdict () {
  if [ "$1" = yes ]; then
    pass
  else
    echo "    status $st"; cat "$T/err"; grep "cold-check" "$T/out"
    fail "$2"
  fi
}

# COLD's file offset: entry 2 of the section table (at 136 + 64), its
# offset field 8 bytes in.
cold_at=`od -A n -t u8 -j 208 -N 8 "$T/good.pdmp" | tr -d ' '`
# damage FILE: change a COLD byte in place
damage () {
  _old=`od -A n -t u1 -j $((cold_at + 100)) -N 1 "$1" | tr -d ' '`
  printf "\\$(printf '%03o' $(( (_old + 1) % 256 )))" \
    | dd of="$1" bs=1 seek=$((cold_at + 100)) conv=notrunc 2>/dev/null
}

begin "full (default): every start checks COLD; a damaged byte is refused (86)"
ok=no
env -u DUMPER_PDUMP_COLD "$DLISP" --dump-file="$T/a.pdmp" --heap-digest \
  --load-stats > "$T/out" 2> "$T/err"
st=$?
if good checksum; then
  damage "$T/a.pdmp"
  env -u DUMPER_PDUMP_COLD "$DLISP" --dump-file="$T/a.pdmp" --batch --eval t \
    > "$T/out" 2> "$T/err"
  st=$?
  refused && start full && refused && ok=yes
fi
verdict $ok "full"

begin "boot: checked at the first start of the file this boot, skipped later"
cp "$T/good.pdmp" "$T/a.pdmp"
ok=no
start boot && good "checksum (first this boot)" \
  && start boot && good "skipped: checked earlier this boot" \
  && start boot && good "skipped: checked earlier this boot" && ok=yes
verdict $ok "boot"

begin "boot: a COLD byte changed in place is checked again and refused"
damage "$T/a.pdmp"
start boot
ok=no
refused && start boot && refused && ok=yes
verdict $ok "changed in place"

begin "boot: a file replaced by rename is checked again"
cp "$T/good.pdmp" "$T/new.pdmp" && mv "$T/new.pdmp" "$T/a.pdmp"
ok=no
start boot && good "checksum (first this boot)" \
  && start boot && good "skipped" && ok=yes
verdict $ok "replaced"

begin "boot: a replacement with the same size, damaged, is refused"
cp "$T/good.pdmp" "$T/new.pdmp" && damage "$T/new.pdmp" && mv "$T/new.pdmp" "$T/a.pdmp"
start boot
ok=no
refused && ok=yes
verdict $ok "replaced, damaged"

begin "boot at the preferred base: HOT's pass skipped too; a HOT byte changed is refused"
cp "$T/good.pdmp" "$T/new.pdmp" && mv "$T/new.pdmp" "$T/a.pdmp"
hot_at=`od -A n -t u8 -j 144 -N 8 "$T/good.pdmp" | tr -d ' '`
ok=no
if [ "$ENABLE_SANITIZERS" = yes ]; then
  # The default preferred base lies in ASan's shadow gap (base.sh).
  ok=yes
elif start boot DUMPER_PDUMP_BASE=fixed && good "checksum (first this boot)" \
     && start boot DUMPER_PDUMP_BASE=fixed && good "skipped, and HOT's pass" \
     && [ "`stat "$T/out" pdump-image-relocs`" = 0 ] \
     && [ "`stat "$T/out" pdump-placement`" = preferred ]; then
  cold_at=$hot_at damage "$T/a.pdmp"
  start boot DUMPER_PDUMP_BASE=fixed
  [ $st -eq 86 ] && grep -q "section HOT\|HOT word" "$T/err" && ok=yes
fi
verdict $ok "boot, fixed"

begin "boot without a per-user directory: a checksum at every start"
cp "$T/good.pdmp" "$T/a.pdmp"
mkdir "$T/shared" "$T/tmpu" && chmod 777 "$T/shared" && chmod 755 "$T/tmpu"
ok=no
start boot XDG_RUNTIME_DIR= TMPDIR="$T/shared" && good "checksum (no per-user directory: XDG_RUNTIME_DIR" \
  && start boot XDG_RUNTIME_DIR= TMPDIR="$T/shared" && good "checksum (no per-user directory" && ok=yes
verdict $ok "no runtime dir"

begin "boot without XDG_RUNTIME_DIR: the record in \$TMPDIR/dumper-UID (issue 33)"
ok=no
start boot XDG_RUNTIME_DIR= TMPDIR="$T/tmpu" && good "checksum (first this boot)" \
  && start boot XDG_RUNTIME_DIR= TMPDIR="$T/tmpu" && good "skipped: checked earlier" \
  && ls "$T/tmpu/dumper-`id -u`" | grep -q '\.cold$' && ok=yes
verdict $ok "TMPDIR record"

begin "size: no checksum; a damaged COLD byte is loaded as it is"
cp "$T/good.pdmp" "$T/a.pdmp"
ok=no
if start size && good "skipped: size and fingerprint only"; then
  damage "$T/a.pdmp"
  start size
  [ $st -eq 0 ] && stat "$T/out" pdump-cold-check | grep -q "^skipped" && ok=yes
fi
verdict $ok "size"

begin "size: a truncated image is still refused"
cp "$T/good.pdmp" "$T/a.pdmp"
truncate -s $((cold_at + 4096)) "$T/a.pdmp"
start size
if [ $st -ne 0 ] && grep -q "a.pdmp" "$T/err"; then
  pass
else
  cat "$T/err"; fail "status $st"
fi

begin "a bad DUMPER_PDUMP_COLD is a usage error (64) naming the values"
DUMPER_PDUMP_COLD=sometimes "$DLISP" --dump-file="$T/good.pdmp" --batch --eval t \
  > "$T/out" 2>&1
st=$?
if [ $st -eq 64 ] && grep -q "\`full', \`boot' and \`size'" "$T/out"; then
  pass
else
  cat "$T/out"; fail "status $st"
fi

finish
