#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/boot.sh: base mode boot (issue 15, doc/format.md "Base
# modes", pdump/bootcache.h): a random base per boot and user, a
# per-user cache of the image relocated to it.
#
#   - the first start relocates the image to this boot's base and writes
#     the cache (mode 0600, stamped), an image dumper-inspect --check
#     accepts; later starts map it at the same base: cold digest every
#     time;
#   - the cache is not used, and a start still succeeds with the cold
#     digest, when it is: truncated, damaged in its header, changed in
#     place (its body: the stamp), readable by others, owned by another
#     user, a symbolic link, the cache of another image; nor when
#     XDG_RUNTIME_DIR is unset, or it or its dumper directory is open to
#     others or owned by another user, or a symbolic link, nor when
#     TMPDIR (XDG_RUNTIME_DIR unset) is writable by others than this
#     user, or sticky but not root's; nor when the base's range is taken;
#   - a start that finds the cache's lock held loads without writing it;
#   - a base file from another boot gives a new base and a new cache;
#   - a new dump at the same path replaces the old cache (pruned);
#   - starts racing for an empty cache all succeed and leave one cache;
#   - a FIFO in place of the cache, its .stamp, the base file or a COLD
#     record (.cold) gives a normal start, the FIFO replaced by a file,
#     and one named as the image is refused (80): no start waits (each
#     once blocked in open(2) forever, issue 32); every start here runs
#     under `timeout 20'.

. "$SRCDIR/tests/e2e/lib.sh"

. "$SRCDIR/tests/pdump/bootlib.sh"

caches () {
  ls "$DIR" 2>/dev/null | grep -c '\.pdmp$'
}

begin "first start: relocated to this boot's base, cache written 0600 and stamped"
ok=no
boot && placed boot "boot cache .* written" && [ "`caches`" -eq 1 ] \
  && ls -l "$DIR"/*.pdmp | grep -q '^-rw-------' \
  && ls "$DIR" | grep -q '\.pdmp\.stamp$' \
  && ls -ld "$DIR" | grep -q '^drwx------' && ok=yes
base=`stat "$T/out" pdump-base`
cache=`ls "$DIR"/*.pdmp 2>/dev/null | head -1`
verdict $ok "first start"

begin "the cache is an image: dumper-inspect --check accepts it, at the boot base"
ok=no
"$BUILDDIR/tools/dumper-inspect" --check "$cache" > "$T/inspect" 2>&1 \
  && "$BUILDDIR/tools/dumper-inspect" "$cache" 2>/dev/null | grep -qi "base.*$base" && ok=yes
[ $ok = yes ] || cat "$T/inspect"
verdict $ok "inspect"

begin "later starts: the cache at the same base, no image relocation, cold digest"
ok=yes
i=0
while [ $i -lt 10 ]; do
  boot && placed boot-cache "mapped from the boot cache" \
    && [ "`stat "$T/out" pdump-base`" = "$base" ] \
    && [ "`stat "$T/out" pdump-image-relocs`" = 0 ] || { ok=no; break; }
  i=`expr $i + 1`
done
verdict $ok "start $i of 10"

# A start from the cache writes only the HOT pages the executable's and
# code relocations hold (4 at scale 1, broken copy-on-write in one call)
# and reads the tables from the file: each page it faults in costs about
# 10 us on a virtual machine (issue 15).  18 to 21 faults before the
# loader stopped touching 4 KiB buffers, a 15 KiB structure and the
# tables through the mapping; 12 to 13 since.
# (Not under sanitizers: ASan's runtime faults in and reads its own
# memory and /proc files in the same process, 74 faults and 100 KiB read
# in a CI run, which says nothing of the loader.)
begin "a start from the cache faults in few pages (at most 16)"
if [ "$ENABLE_SANITIZERS" = yes ]; then
  skip "a sanitizer build: ASan's runtime faults in pages of its own"
else
boot
faults=`stat "$T/out" pdump-minor-faults`
echo "    $faults minor faults during the load"
ok=no
placed boot-cache && [ -n "$faults" ] && [ "$faults" -le 16 ] && ok=yes
verdict $ok "$faults faults"
fi

# And it reads neither HOT nor COLD from the file (the cache was checked
# when it was written): the process's read and pread bytes (/proc/PID/io
# rchar of a REPL once it waits for input) stay far below COLD's 2 MiB.
begin "a start from the cache reads at most 64 KiB (neither HOT nor COLD)"
if [ "$ENABLE_SANITIZERS" = yes ]; then
  skip "a sanitizer build: ASan's runtime reads /proc files of its own"
else
rm -f "$T/fifo"
mkfifo "$T/fifo"
XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=boot "$DLISP" --dump-file="$T/a.pdmp" \
  < "$T/fifo" > /dev/null 2>&1 &
pid=$!
exec 7> "$T/fifo"
wait_on_pipe $pid
read_bytes=`sed -n 's/^rchar: //p' "/proc/$pid/io"`
exec 7>&-
wait $pid
echo "    $read_bytes bytes read"
ok=no
[ -n "$read_bytes" ] && [ "$read_bytes" -le 65536 ] && ok=yes
verdict $ok "$read_bytes bytes read"
fi

begin "the base lies outside the image's preferred range and is in the base file"
preferred=`DUMPER_PDUMP_BASE=random "$DLISP" --dump-file="$T/a.pdmp" --load-stats \
           | sed -n 's/^pdump-preferred-base: //p'`
ok=no
[ "$base" != "$preferred" ] && grep -q " ${base#0x}\$" "$DIR/base" && ok=yes
verdict $ok "base $base, preferred $preferred, base file: `cat "$DIR/base"`"

# damaged CASE COMMAND...: after COMMAND spoils the cache, a start does
# not use it, rewrites it, and the start after that uses the new one.
damaged () {
  _case=$1
  shift
  begin "cache $_case: not used, rewritten, cold digest"
  "$@"
  ok=no
  boot && placed boot && boot && placed boot-cache && ok=yes
  verdict $ok "cache $_case"
}

damaged truncated truncate -s 4096 "$cache"
damaged "with a damaged header" \
  sh -c 'printf "\377" | dd of="$1" bs=1 seek=100 conv=notrunc 2>/dev/null' sh "$cache"
# A byte of HOT changed in place: the header still checks, the stamp
# (change time) does not.
hot=`od -A n -t u8 -j 144 -N 8 "$T/a.pdmp" | tr -d ' '`
damaged "changed in its body" \
  sh -c 'printf "\125" | dd of="$1" bs=1 seek=$(($2 + 64)) conv=notrunc 2>/dev/null' sh "$cache" "$hot"
damaged "readable by others (0644)" chmod 644 "$cache"

begin "cache owned by another user: not used"
if [ "`id -u`" != 0 ]; then
  skip "needs root to give the cache away"
else
  chown 65534 "$cache"
  ok=no
  boot && placed boot && [ "`ls -ln "$cache" | awk '{ print $3 }'`" = "`id -u`" ] && ok=yes
  verdict $ok "owned by 65534"
fi

begin "cache replaced by a symbolic link: not followed"
boot
mv "$cache" "$T/real.pdmp"
ln -s "$T/real.pdmp" "$cache"
ok=no
boot && placed boot && [ ! -h "$cache" ] && ok=yes
verdict $ok "symlink"

begin "another image's cache under this image's name: not used"
"$BARE" --temacs=pdump --loadup-scale 2 --output "$T/b.pdmp" > "$T/dump.out" 2>&1
env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=boot "$DLISP" --dump-file="$T/b.pdmp" \
  --batch --eval t > /dev/null 2>&1
other=`ls -t "$DIR"/*.pdmp | head -1`
ok=no
if [ "$other" != "$cache" ]; then
  # Its bytes copied over this cache, and the stamp made to fit, so only
  # the comparison of the two images' sections can tell.
  cat "$other" > "$cache"
  restamp
  boot && placed boot && ok=yes
fi
verdict $ok "cross-image cache"

# Without a usable XDG_RUNTIME_DIR (containers, CI jobs, cron, su and
# sudo shells), $TMPDIR/dumper-UID (issue 33): created 0700, in a
# parent of this user's that no one else may write, or a sticky one of
# root's (/tmp); a parent open to others is refused, with the reasons.
UID_=`id -u`
mkdir "$T/tmpu" "$T/shared" && chmod 755 "$T/tmpu" && chmod 777 "$T/shared"
begin "XDG_RUNTIME_DIR unset: the cache in \$TMPDIR/dumper-UID, made 0700"
ok=no
for how in "boot cache $T/tmpu/dumper-$UID_/" "mapped from the boot cache $T/tmpu/dumper-$UID_/"; do
  env -u XDG_RUNTIME_DIR TMPDIR="$T/tmpu" DUMPER_PDUMP_BASE=boot "$DLISP" \
    --dump-file="$T/a.pdmp" --heap-digest --load-stats > "$T/out" 2> "$T/err" \
    && [ "`head -1 "$T/out"`" = "$cold" ] \
    && stat "$T/out" pdump-placement-reason | grep -qF "$how" && ok=yes || { ok=no; break; }
done
[ $ok = yes ] && [ "`ls -ld "$T/tmpu/dumper-$UID_" | cut -c1-10`" = drwx------ ] || ok=no
verdict $ok "unset, TMPDIR"

begin "XDG_RUNTIME_DIR unset, TMPDIR open to others: a relocated load, says why"
env -u XDG_RUNTIME_DIR TMPDIR="$T/shared" DUMPER_PDUMP_BASE=boot "$DLISP" --dump-file="$T/a.pdmp" \
  --heap-digest --load-stats > "$T/out" 2> "$T/err"
ok=no
[ "`head -1 "$T/out"`" = "$cold" ] && placed fallback "XDG_RUNTIME_DIR is not set" \
  && placed fallback "$T/shared is not a directory of this user" \
  && [ ! -e "$T/shared/dumper-$UID_" ] && ok=yes
verdict $ok "unset"

# Paths in the directory are at most PDUMP_BOOT_PATH_MAX (512) bytes
# (pdump/bootcache.h): a longer XDG_RUNTIME_DIR is a reason, not an
# error, whether the directory's name or only a cache's is too long.
for len in 500 460; do
  begin "XDG_RUNTIME_DIR of $len bytes: not used, says why, cold digest"
  long=$T/long
  while [ ${#long} -lt $len ]; do long=$long/dddddddddddddddddddddddddddddd; done
  long=`printf '%s' "$long" | cut -c1-$len`
  mkdir -p "$long" && chmod 700 "$long"
  ok=no
  env XDG_RUNTIME_DIR="$long" TMPDIR="$T/shared" DUMPER_PDUMP_BASE=boot "$DLISP" --dump-file="$T/a.pdmp" \
    --heap-digest --load-stats > "$T/out" 2> "$T/err" \
    && [ "`head -1 "$T/out"`" = "$cold" ] \
    && placed fallback "XDG_RUNTIME_DIR is too long" && ok=yes
  verdict $ok "long runtime dir ($len)"
done

begin "XDG_RUNTIME_DIR open to others: not used, nothing written"
mkdir "$T/open" && chmod 755 "$T/open"
ok=no
env XDG_RUNTIME_DIR="$T/open" TMPDIR="$T/shared" DUMPER_PDUMP_BASE=boot "$DLISP" --dump-file="$T/a.pdmp" \
  --heap-digest --load-stats > "$T/out" 2> "$T/err" \
  && [ "`head -1 "$T/out"`" = "$cold" ] && placed fallback "mode 755" \
  && [ ! -e "$T/open/dumper" ] && ok=yes
verdict $ok "open runtime dir"

# Open to others (755), or writable by its group only (730).
for mode in 755 730; do
  begin "the dumper directory of mode $mode: not used"
  chmod $mode "$DIR"
  ok=no
  boot TMPDIR="$T/shared" && placed fallback "mode $mode" && ok=yes
  chmod 700 "$DIR"
  verdict $ok "dumper dir of mode $mode"
done

begin "the dumper directory owned by another user: not used"
if [ "`id -u`" != 0 ]; then
  skip "needs root"
else
  chown 65534 "$DIR"
  ok=no
  boot TMPDIR="$T/shared" && placed fallback "owned by uid 65534" && ok=yes
  chown "`id -u`" "$DIR"
  verdict $ok "foreign dumper dir"
fi

# The directory checks (common_private_dir, common_shared_parent_dir in
# common/os.c) one at a time: each case refuses the directory with its
# own reason, and TMPDIR ($T/shared, open to all) is refused too.
begin "the dumper directory a symbolic link to a private directory: not used"
mv "$DIR" "$T/real-dir" && ln -s "$T/real-dir" "$DIR"
ok=no
boot TMPDIR="$T/shared" && placed fallback "$DIR is not a directory" \
  && [ -h "$DIR" ] && ok=yes
rm -f "$DIR" && mv "$T/real-dir" "$DIR"
verdict $ok "symlinked dumper dir"

begin "XDG_RUNTIME_DIR unset, TMPDIR this user's but writable by its group (0770): refused"
mkdir "$T/groupw" && chmod 770 "$T/groupw"
ok=no
env -u XDG_RUNTIME_DIR TMPDIR="$T/groupw" DUMPER_PDUMP_BASE=boot "$DLISP" --dump-file="$T/a.pdmp" \
  --heap-digest --load-stats > "$T/out" 2> "$T/err" \
  && [ "`head -1 "$T/out"`" = "$cold" ] \
  && placed fallback "$T/groupw is not a directory of this user" \
  && [ ! -e "$T/groupw/dumper-$UID_" ] && ok=yes
verdict $ok "group-writable TMPDIR"

# A sticky directory protects what a user makes there only if its owner
# is trusted: root's (/tmp) is, another user's is not (that user may
# remove or rename anything in it).
begin "XDG_RUNTIME_DIR unset, TMPDIR sticky but another user's: refused; root's: used"
if [ "`id -u`" != 0 ]; then
  skip "needs root to give the directory away"
else
  mkdir "$T/sticky" && chmod 1777 "$T/sticky" && chown 65534 "$T/sticky"
  ok=no
  sticky_start () {
    env -u XDG_RUNTIME_DIR TMPDIR="$T/sticky" DUMPER_PDUMP_BASE=boot "$DLISP" \
      --dump-file="$T/a.pdmp" --heap-digest --load-stats > "$T/out" 2> "$T/err" \
      && [ "`head -1 "$T/out"`" = "$cold" ]
  }
  if sticky_start && placed fallback "$T/sticky is not a directory of this user, nor a sticky" \
      && [ ! -e "$T/sticky/dumper-$UID_" ]; then
    chown 0 "$T/sticky"
    sticky_start && placed boot "boot cache $T/sticky/dumper-$UID_/" && ok=yes
  fi
  verdict $ok "sticky TMPDIR of uid 65534"
fi

# One writer of the cache at a time (DIR/lock, common_try_lock): a start
# that finds the lock held by another process relocates to this boot's
# base and loads, but writes no cache; once the lock is free, the next
# start writes it.  The lock is held here by this shell (fd 8), the way
# a writer holds it, through a file description of its own.
begin "the cache lock held by another process: loaded, no cache written; then written"
boot
rm -f "$DIR"/*.pdmp "$DIR"/*.pdmp.stamp
exec 8>> "$DIR/lock"
ok=no
if flock -n 8; then
  boot && placed boot "another process is writing the boot cache" \
    && [ "`caches`" -eq 0 ] && ok=yes
else
  echo "    flock(1) could not take $DIR/lock"
fi
exec 8>&-
[ $ok = yes ] && boot && placed boot "written" && [ "`caches`" -eq 1 ] \
  && boot && placed boot-cache || ok=no
verdict $ok "lock held"

begin "the boot base's range taken: a relocated load, says why"
if ! has_test_hooks; then
  skip "$NO_HOOKS"
else
  boot
  ok=no
  boot DUMPER_TEST_OCCUPY_BASE=1 && placed fallback "range is taken" \
    && [ "`stat "$T/out" pdump-base`" != "$base" ] && ok=yes
  verdict $ok "occupied"
fi

begin "a base file from another boot: a new base, a new cache, the old one pruned"
sed "s/^[^ ]*/00000000-0000-0000-0000-000000000000/" "$DIR/base" > "$T/stale"
cp "$T/stale" "$DIR/base"
ok=no
boot && placed boot && [ "`stat "$T/out" pdump-base`" != "$base" ] \
  && ! grep -q '^00000000-' "$DIR/base" && [ ! -e "$cache" ] \
  && boot && placed boot-cache && ok=yes
verdict $ok "stale base"

# New bases are multiples of the huge page size (common_huge_page_size:
# the kernel's, 2 MiB where it does not say); one read back from the
# base file need only be a multiple of the page, and one that is not is
# damage: a new base.
begin "the base a multiple of the huge page size; one off the page in the base file: a new base"
huge=`cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null || echo 2097152`
boot
now=`stat "$T/out" pdump-base`
ok=no
if [ -n "$now" ] && [ $((now % huge)) -eq 0 ]; then
  sed "s/ .*/ `printf '%x' $((now + 2048))`/" "$DIR/base" > "$T/odd"
  cp "$T/odd" "$DIR/base"
  boot && placed boot && [ "`stat "$T/out" pdump-base`" != "`printf '0x%x' $((now + 2048))`" ] \
    && ! cmp -s "$T/odd" "$DIR/base" && ok=yes
else
  echo "    base $now is not a multiple of $huge"
fi
verdict $ok "base alignment"

begin "a new dump at the same path: a new cache, the old one pruned"
prefix=`basename "$cache" | cut -c1-17`
old=`ls "$DIR"/$prefix*.pdmp`
"$BARE" --temacs=pdump --loadup-scale 3 --output "$T/a.pdmp" > "$T/dump.out" 2>&1
cold=`"$BARE" --loadup-scale 3 --heap-digest`
ok=no
boot && placed boot && [ "`ls "$DIR"/$prefix*.pdmp | wc -l`" -eq 1 ] \
  && [ ! -e "$old" ] && [ ! -e "$old.stamp" ] \
  && boot && placed boot-cache && ok=yes
verdict $ok "re-dump"

begin "8 starts racing for an empty cache: all succeed, one cache left"
rm -rf "$DIR"
pids=
for k in 1 2 3 4 5 6 7 8; do
  env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=boot "$DLISP" --dump-file="$T/a.pdmp" \
    --heap-digest > "$T/race.$k" 2>&1 &
  pids="$pids $!"
done
ok=yes
for p in $pids; do wait $p || ok=no; done
for k in 1 2 3 4 5 6 7 8; do
  [ "`head -1 "$T/race.$k"`" = "$cold" ] || ok=no
done
# Two .pdmp: this image's and b.pdmp's are gone with the directory, so
# exactly one; no temporary file left behind.
[ "`caches`" -eq 1 ] && [ -z "`ls "$DIR" | grep -v '\.pdmp$\|\.pdmp\.stamp$\|^base$\|^lock$'`" ] || ok=no
boot && placed boot-cache || ok=no
verdict $ok "race: `ls "$DIR"`"

# fifo_at WHAT GLOB [VAR=VALUE...]: after a start (with the
# assignments) has made the file DIR/GLOB, replace it by a FIFO; the
# next start loads the cold heap and leaves a regular file there.
fifo_at () {
  _what=$1 _glob=$2
  shift 2
  begin "a FIFO in place of $_what: a normal start, no hang, the file rewritten"
  ok=no
  boot "$@"
  file=`ls "$DIR"/$_glob 2>/dev/null | head -1`
  if [ -f "$file" ]; then
    rm -f "$file" && mkfifo "$file"
    boot "$@" && [ -f "$file" ] && [ ! -p "$file" ] && ok=yes
  fi
  verdict $ok "$_what ($file)"
}

fifo_at "the boot cache" '*.pdmp'
fifo_at "the boot cache's stamp" '*.pdmp.stamp'
fifo_at "the base file" base
fifo_at "the COLD record" '*.cold' DUMPER_PDUMP_BASE=random DUMPER_PDUMP_COLD=boot

begin "a FIFO named as the image: refused (80), no hang"
mkfifo "$T/image.fifo"
timeout 20 "$DLISP" --dump-file="$T/image.fifo" --batch --eval t > /dev/null 2> "$T/err"
st=$?
if [ $st -eq 80 ] && grep -q "image.fifo: not a regular file" "$T/err"; then
  pass
else
  fail "status $st: `head -c 300 "$T/err"`"
fi
finish
