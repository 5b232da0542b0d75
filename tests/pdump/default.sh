#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/default.sh: the out-of-the-box settings (issue 33): with no
# DUMPER_PDUMP_* setting at all, base mode boot and verification auto.
#   - the first start of an image relocates it, runs the structural
#     pass, and only then writes the boot cache; later starts map the
#     cache and run no pass; --load-stats says which, and which
#     directory (XDG_RUNTIME_DIR, or the $TMPDIR fallback without it);
#   - a crafted image (checksums resealed, a structural mutation) is
#     refused at every start and never cached; with verify none it
#     loads, as asked, but is not cached either;
#   - an image changed in place after its cache was written is loaded
#     from the file again (its damage refused), not from the cache;
#   - base mode random, one setting away, runs the pass at the first
#     start of an image file this boot and skips it at the next while the
#     file is unchanged (verify structure always runs it); a file
#     changed (its change time) is passed again, a crafted one copied
#     over it refused.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/pdump/imagelib.sh"
# The skips, $RUN (a private XDG_RUNTIME_DIR), $T/a.pdmp, $cold, verdict.
. "$SRCDIR/tests/pdump/bootlib.sh"

MUTATE=$BUILDDIR/tests/fuzz/mutate
mkdir -m 700 "$T/tmpu"

# start IMAGE [VAR=VALUE...]: a start with no DUMPER_PDUMP_* setting (but
# the assignments given) and XDG_RUNTIME_DIR $RUN; output in $T/out,
# stderr in $T/err, the status in $st.
start () {
  _image=$1
  shift
  env -u DUMPER_PDUMP_BASE -u DUMPER_PDUMP_VERIFY -u DUMPER_PDUMP_COLD \
    XDG_RUNTIME_DIR="$RUN" "$@" timeout 20 "$DLISP" --dump-file="$_image" \
    --heap-digest --load-stats > "$T/out" 2> "$T/err"
  st=$?
}

# has FIELD PATTERN: the last start's --load-stats FIELD matches PATTERN
has () {
  sed -n "s/^pdump-$1: //p" "$T/out" | grep -q -- "$2"
}

good () {
  [ $st -eq 0 ] && [ "`head -1 "$T/out"`" = "$cold" ]
}

caches () {
  ls "$1" 2>/dev/null | grep -c '\.pdmp$'
}

begin "no setting: boot; the first start verifies, then writes the cache; the next maps it, no pass"
ok=no
start "$T/a.pdmp" && good && has base-mode '^boot$' && has placement '^boot$' \
  && has structure-check '^ran: before the boot cache is written$' \
  && has boot-dir "^XDG_RUNTIME_DIR: $RUN/dumper$" \
  && [ "`caches "$RUN/dumper"`" = 1 ] \
  && start "$T/a.pdmp" && good && has placement '^boot-cache$' \
  && has structure-check '^skipped: the boot cache, verified when it was written$' \
  && has structure-seconds '^0\.000000$' && ok=yes
verdict $ok "default start"

begin "no setting, no XDG_RUNTIME_DIR: the cache in \$TMPDIR/dumper-UID, and --load-stats says so"
ok=no
dir=$T/tmpu/dumper-`id -u`
# XDG_RUNTIME_DIR empty: unset for the library (not an absolute path).
start "$T/a.pdmp" XDG_RUNTIME_DIR= TMPDIR="$T/tmpu" && good \
  && has placement '^boot$' && has boot-dir "^fallback: $dir$" \
  && start "$T/a.pdmp" XDG_RUNTIME_DIR= TMPDIR="$T/tmpu" && good \
  && has placement '^boot-cache$' && has boot-dir "^fallback: $dir$" && ok=yes
verdict $ok "fallback directory"

begin "base mode random, one setting away: the structural pass at the first start, not the next (the same file, this boot)"
ok=no
cp "$T/a.pdmp" "$T/r.pdmp"
start "$T/r.pdmp" DUMPER_PDUMP_BASE=random && good && has placement '^random$' \
  && has structure-check '^ran: loaded from the image file' \
  && has boot-dir "^XDG_RUNTIME_DIR: $RUN/dumper (records only: base mode random)$" \
  && start "$T/r.pdmp" DUMPER_PDUMP_BASE=random && good \
  && has structure-check '^skipped: the structural pass passed on this file earlier this boot' \
  && has structure-seconds '^0\.000000$' && ok=yes
verdict $ok "random"

begin "base mode random: the pass runs again once the file changes (its change time), and always with verify structure"
ok=no
sleep 0.01; touch "$T/r.pdmp"
start "$T/r.pdmp" DUMPER_PDUMP_BASE=random && good \
  && has structure-check '^ran: loaded from the image file' \
  && start "$T/r.pdmp" DUMPER_PDUMP_BASE=random DUMPER_PDUMP_VERIFY=structure \
  && good && has structure-check '^ran: verify structure$' && ok=yes
verdict $ok "random, changed"

# A resealed mutant whose damage only the structural pass sees: a
# pointer into the middle of an object (tests/fuzz/mutate.c).
"$MUTATE" "$T/a.pdmp" "$T/crafted.pdmp" interior 1 > "$T/mutant" || exit 1
crafted_dir=$T/crafted-run
mkdir -m 700 "$crafted_dir"

begin "a crafted image: refused (86) at every start, never cached"
ok=no
RUN=$crafted_dir
start "$T/crafted.pdmp"; first=$st
start "$T/crafted.pdmp"
[ $first -eq 86 ] && [ $st -eq 86 ] && grep -q 'is corrupt' "$T/err" \
  && [ "`caches "$RUN/dumper"`" = 0 ] && ok=yes
verdict $ok "crafted: statuses $first $st, `cat "$T/mutant"`"

begin "a crafted image with verify none: loaded as asked, but not cached"
ok=no
# --load-stats alone: the crafted heap is not walked.
env -u DUMPER_PDUMP_BASE XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_VERIFY=none \
  timeout 20 "$DLISP" --dump-file="$T/crafted.pdmp" --load-stats > "$T/out" 2> "$T/err"
st=$?
[ $st -eq 0 ] && has placement '^boot$' \
  && has placement-reason 'no boot cache written: the structural pass refused' \
  && has structure-check 'refused the image: no cache written' \
  && [ "`caches "$RUN/dumper"`" = 0 ] && ok=yes
verdict $ok "crafted, verify none: status $st"
RUN=$T/run

begin "base mode random: a crafted image copied over a file the pass passed is refused (86)"
ok=no
start "$T/r.pdmp" DUMPER_PDUMP_BASE=random && good \
  && has structure-check '^skipped: the structural pass passed' || st=fail
cp "$T/crafted.pdmp" "$T/r.pdmp"
[ "$st" = 0 ] && start "$T/r.pdmp" DUMPER_PDUMP_BASE=random
[ "$st" = 86 ] && grep -q 'is corrupt' "$T/err" && ok=yes
verdict $ok "crafted over a passed file: status $st"

begin "a host without a heap description at start-up: no structural pass, no boot cache"
TOY=$BUILDDIR/tests/pdump/toyhost
"$TOY" --temacs=pdump --output "$T/toy.pdmp" > /dev/null || exit 1
toy_cold=`"$TOY" --no-dump-file | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p'`
mkdir -m 700 "$T/toy-run"
ok=no
out=`env -u DUMPER_PDUMP_BASE -u DUMPER_PDUMP_VERIFY XDG_RUNTIME_DIR="$T/toy-run" \
       "$TOY" --late-heap-description --dump-file="$T/toy.pdmp" --stats 2>&1`
# placement 2: PDUMP_PLACED_FALLBACK (pdump.h), relocated anywhere.
case $out in
  *"digest=$toy_cold"*"placement=2"*"structure: off: no heap description"*)
    [ "`caches "$T/toy-run/dumper"`" = 0 ] && ok=yes ;;
esac
[ $ok = yes ] && pass || fail "$out"

begin "an image changed in place after its cache was written: loaded from the file, its damage refused"
ok=no
cp "$T/a.pdmp" "$T/b.pdmp"
start "$T/b.pdmp" && good && start "$T/b.pdmp" && good && has placement '^boot-cache$' || st=fail
# One COLD byte changed in place: the header (and so the cache's name)
# is the same, the section's checksum no longer holds.
cold_at=`section_at "$T/b.pdmp" 2 8`
old=`u8 "$T/b.pdmp" $((cold_at + 100))`
printf "\\$(printf '%03o' $(( (old + 1) % 256 )))" \
  | dd of="$T/b.pdmp" bs=1 seek=$((cold_at + 100)) conv=notrunc 2>/dev/null
[ "$st" = 0 ] && start "$T/b.pdmp"
[ "$st" = 86 ] && grep -q 'checksum mismatch in section COLD' "$T/err" \
  && ok=yes
verdict $ok "changed in place: status $st"

finish
