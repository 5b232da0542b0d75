#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/base.sh: base modes (issue 15, doc/format.md "Base modes").
#
#   - random and fixed each give the cold start's digest over 20 starts
#     under ASLR; random lands somewhere else each time, fixed at the
#     image's preferred base every time;
#   - fixed with the preferred range taken (DUMPER_TEST_OCCUPY_BASE maps
#     a page there first) falls back to a relocated load, says why, and
#     still gives the cold digest;
#   - at the preferred base HOT stays a file mapping that is mostly
#     clean: fewer private dirty pages than a random start has in HOT;
#   - images are byte-identical, whoever dumps them; --image-base
#     changes the recorded base (and the bytes) and fixed loads there;
#   - re-dumps from a random and a fixed start are identical and load
#     with the cold digest in both modes;
#   - a bad DUMPER_PDUMP_BASE is a usage error (64) naming the three
#     valid values (base mode boot: tests/pdump/boot.sh).

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "base modes"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp
STARTS=${BASE_STARTS:-20}

# AddressSanitizer reserves the default base's range on x86-64 (its
# shadow gap, 0x8fff7000-0x2008fff6fff): a sanitizer build would always
# fall back.  Its images are dumped for a base in ASan's high memory,
# below its allocator's space at 0x600000000000.
# With 4-byte words every base is below 4 GiB: the other base lies 256
# MiB above the default one (0x20000000), and the misaligned one 4 KiB
# above it.
BASE_OPT=
OTHER_BASE=0x5000000000
MISALIGNED_BASE=0x5000001000
if [ "${WORD_SIZE:-8}" -eq 4 ]; then
  OTHER_BASE=0x30000000
  MISALIGNED_BASE=0x30001000
fi
if [ "$ENABLE_SANITIZERS" = yes ]; then
  BASE_OPT=--image-base=0x500000000000
  OTHER_BASE=0x510000000000
fi

cold=`"$BARE" --heap-digest`
"$BARE" --temacs=pdump $BASE_OPT --output "$T/a.pdmp" > "$T/dump.out" 2>&1 \
  || { cat "$T/dump.out"; exit 1; }

# stat FILE NAME: the value of `NAME: value' in FILE
stat () {
  sed -n "s/^$2: //p" "$1"
}

# starts MODE IMAGE: STARTS starts in base mode MODE; each must print
# the cold digest; the placements, bases and image words relocated go
# to $T/MODE.placed
starts () {
  : > "$T/$1.placed"
  i=0
  while [ $i -lt $STARTS ]; do
    DUMPER_PDUMP_BASE=$1 "$DLISP" --dump-file="$2" --heap-digest --load-stats \
      > "$T/out" 2> "$T/err" || { cat "$T/err"; return 1; }
    d=`head -1 "$T/out"`
    [ "$d" = "$cold" ] || { echo "start $i: digest $d, cold $cold"; return 1; }
    echo "`stat "$T/out" pdump-placement` `stat "$T/out" pdump-base` `stat "$T/out" pdump-image-relocs`" >> "$T/$1.placed"
    i=`expr $i + 1`
  done
}

aslr=`cat /proc/sys/kernel/randomize_va_space 2>/dev/null || echo 0`

# verdict OK PATTERN MESSAGE: pass when OK is yes; else show the start's
# stderr and its stats lines matching PATTERN, and fail with MESSAGE
verdict () {
  if [ "$1" = yes ]; then
    pass
  else
    cat "$T/err"; grep "$2" "$T/out"
    fail "$3"
  fi
}

begin "random: the cold digest over $STARTS starts, a new base each time"
if [ "$aslr" = 0 ]; then
  skip "ASLR is off (randomize_va_space 0)"
elif starts random "$T/a.pdmp"; then
  places=`cut -d' ' -f1 "$T/random.placed" | sort -u`
  bases=`cut -d' ' -f2 "$T/random.placed" | sort -u | wc -l`
  # Every start relocates the image's pointer words (0.4 M at scale 1).
  unrelocated=`awk '!($3 > 0)' "$T/random.placed" | wc -l`
  if [ "$unrelocated" -ne 0 ]; then
    fail "$unrelocated random starts relocated no image word: `sort "$T/random.placed" | uniq -c`"
  elif [ "$places" = random ] && [ "$bases" -ge $((STARTS / 2)) ]; then
    pass
  elif [ "$places" = random ] && [ -n "$DUMPER_TEST_EMULATOR" ]; then
    # qemu-user places the guest's mappings itself, the same way each
    # time (as in pdump.sh's ASLR case): only the digests hold there.
    echo "    $bases distinct bases in $STARTS starts under $DUMPER_TEST_EMULATOR, which places mappings itself"
    pass
  else
    fail "placements '$places', $bases distinct bases in $STARTS starts"
  fi
else
  fail "a random start failed"
fi

begin "fixed: the cold digest over $STARTS starts, at the preferred base"
preferred=`DUMPER_PDUMP_BASE=fixed "$DLISP" --dump-file="$T/a.pdmp" --load-stats \
           | sed -n 's/^pdump-preferred-base: //p'`
if [ "$aslr" = 0 ]; then
  skip "ASLR is off (randomize_va_space 0)"
elif starts fixed "$T/a.pdmp"; then
  # At the preferred base every image word is checked and none written
  # (doc/format.md, "Base modes"): pdump-image-relocs says 0.
  places=`sort -u "$T/fixed.placed"`
  if [ "$places" = "preferred $preferred 0" ] && [ "$preferred" != 0x0 ]; then
    pass
  else
    fail "placements: `sort "$T/fixed.placed" | uniq -c`"
  fi
else
  fail "a fixed start failed"
fi

# qemu-user (7.2) takes MAP_FIXED_NOREPLACE as a hint, as kernels before
# 4.17 do: the loader then sees the image placed elsewhere and says so.
taken="preferred range is taken"
if [ -n "$DUMPER_TEST_EMULATOR" ]; then
  taken="$taken\\|preferred range \\[.*) is taken (the kernel placed the image elsewhere)"
fi

begin "fixed, preferred range taken: falls back, says why, cold digest"
if ! has_test_hooks; then
  skip "$NO_HOOKS"
else
  DUMPER_TEST_OCCUPY_BASE=1 DUMPER_PDUMP_BASE=fixed "$DLISP" --dump-file="$T/a.pdmp" \
    --heap-digest --load-stats > "$T/out" 2> "$T/err"
  st=$?
  ok=no
  [ $st -eq 0 ] && [ "`head -1 "$T/out"`" = "$cold" ] \
    && [ "`stat "$T/out" pdump-placement`" = fallback ] \
    && stat "$T/out" pdump-placement-reason | grep -q "$taken" \
    && [ "`stat "$T/out" pdump-base`" != "$preferred" ] && ok=yes
  verdict $ok placement "status $st"
fi

begin "fixed, the file read (no mmap): still at the preferred base"
DUMPER_PDUMP_LOAD=read DUMPER_PDUMP_BASE=fixed "$DLISP" --dump-file="$T/a.pdmp" \
  --heap-digest --load-stats > "$T/out" 2> "$T/err"
ok=no
[ "`head -1 "$T/out"`" = "$cold" ] && [ "`stat "$T/out" pdump-placement`" = preferred ] \
  && [ "`stat "$T/out" pdump-method`" = read ] && ok=yes
verdict $ok "placement\|method" "no-mmap fixed load"

begin "fixed: compressed, embedded, verify=structure, each at the preferred base"
zc=${CODECS%% *}     # the first codec this build has, if any
hows="embedded structure"
if [ -n "$zc" ]; then
  "$BARE" --temacs=pdump $BASE_OPT --compress=$zc --output "$T/z.pdmp" > /dev/null 2>&1
  hows="compressed $hows"
fi
"$BUILDDIR/tools/dumper-embed" "$DLISP" "$T/a.pdmp" -o "$T/dlisp-embedded" \
  > /dev/null 2>&1
ok=yes
for how in $hows; do
  case $how in
    compressed) set -- "$DLISP" --dump-file="$T/z.pdmp" ;;
    embedded) set -- "$T/dlisp-embedded" ;;
    structure) set -- env DUMPER_PDUMP_VERIFY=structure "$DLISP" --dump-file="$T/a.pdmp" ;;
  esac
  DUMPER_PDUMP_BASE=fixed "$@" --heap-digest --load-stats > "$T/out" 2> "$T/err"
  if [ "`head -1 "$T/out"`" != "$cold" ] \
     || [ "`stat "$T/out" pdump-placement`" != preferred ]; then
    echo "    $how: `head -1 "$T/out"` `grep placement "$T/out"`"; cat "$T/err"
    ok=no
  fi
done
if [ $ok = yes ]; then pass; else fail "a fixed load"; fi

# repl_probe MODE FUNCTION: start a dlisp REPL in base mode MODE and,
# once it waits for input, run FUNCTION with $pid the REPL's process;
# then end the REPL
repl_probe () {
  rm -f "$T/fifo"
  mkfifo "$T/fifo"
  DUMPER_PDUMP_BASE=$1 "$DLISP" --dump-file="$T/a.pdmp" < "$T/fifo" > /dev/null 2>&1 &
  pid=$!
  exec 7> "$T/fifo"
  wait_on_pipe $pid
  $2
  exec 7>&-
  wait $pid
}

# dirty_kb MODE: private dirty KiB (smaps_rollup) of a REPL in MODE
private_dirty () {
  sed -n 's/^Private_Dirty: *\([0-9]*\) kB/\1/p' "/proc/$pid/smaps_rollup"
}
dirty_kb () {
  repl_probe $1 private_dirty
}

# image_rss_kb MODE: resident KiB of the image's mappings (smaps) of a
# REPL in MODE
image_rss () {
  awk '/^[0-9a-f]+-[0-9a-f]+ / { image = ($NF ~ /a\.pdmp$/) }
       image && /^Rss:/ { kb += $2 } END { print kb + 0 }' "/proc/$pid/smaps"
}
image_rss_kb () {
  repl_probe $1 image_rss
}

# COLD's checksum (COLD verification full, the default) is computed from
# the file with pread, not through the mapping (issue 15): read through
# it, every 4 KiB of COLD stayed mapped in every process (and cost a
# fault per 64 KiB, 1.5-3 ms at scale 4 on a VM).
begin "fixed, COLD checked: COLD is read from the file, not mapped in"
DUMPER_PDUMP_BASE=fixed "$DLISP" --dump-file="$T/a.pdmp" --load-stats > "$T/out" 2> "$T/err"
hot_kb=`expr \`stat "$T/out" pdump-hot-size\` / 1024`
cold_kb=`expr \`stat "$T/out" pdump-cold-size\` / 1024`
rss_kb=`image_rss_kb fixed`
echo "    the image's mappings: $rss_kb KiB resident; HOT $hot_kb KiB, COLD $cold_kb KiB"
if [ "`stat "$T/out" pdump-placement`" != preferred ]; then
  skip "the preferred range was taken"
elif [ "`stat "$T/out" pdump-cold-check`" = checksum ] && [ -n "$rss_kb" ] \
     && [ "$rss_kb" -gt 0 ] && [ "$rss_kb" -lt `expr $hot_kb + $cold_kb / 2` ]; then
  pass
else
  fail "$rss_kb KiB resident, not below HOT and half of COLD"
fi

begin "fixed: HOT stays a clean file mapping but for a few pages"
hot_kb=`DUMPER_PDUMP_BASE=fixed "$DLISP" --dump-file="$T/a.pdmp" --load-stats \
        | sed -n 's/^pdump-hot-size: //p'`
hot_kb=`expr $hot_kb / 1024`
random_kb=`dirty_kb random`
fixed_kb=`dirty_kb fixed`
echo "    private dirty: random $random_kb KiB, fixed $fixed_kb KiB; HOT $hot_kb KiB"
if [ -n "$random_kb" ] && [ -n "$fixed_kb" ] \
   && [ "$fixed_kb" -lt `expr $random_kb - $hot_kb / 2` ]; then
  pass
else
  fail "fixed $fixed_kb KiB is not well below random $random_kb KiB"
fi

# The writer puts the HOT objects that hold executable references or
# code pointers together at HOT's end (pdump/walk.c, the group area), so
# the pages a fixed load writes are few: dlisp's image at scale 1 has
# 191 executable and 43 code relocations; they lie on 4 of its 1248 HOT
# pages, and were spread over 114 when objects were placed in discovery
# order.
begin "fixed: the executable and code relocations lie on a few HOT pages"
DUMPER_PDUMP_BASE=fixed "$DLISP" --dump-file="$T/a.pdmp" --load-stats \
  > "$T/out" 2> "$T/err"
pages=`stat "$T/out" pdump-exe-pages`
relocs=`stat "$T/out" pdump-exe-relocs`
echo "    $pages HOT pages hold the $relocs executable relocations and the code ones"
if [ -n "$pages" ] && [ -n "$relocs" ] && [ "$relocs" -gt 50 ] \
   && [ "$pages" -le 10 ]; then pass
else verdict no "pdump-exe" "$pages pages hold executable or code relocations (at most 10)"; fi

begin "images are byte-identical; --image-base changes the recorded base"
(cd "$T" && "$BARE" --temacs=pdump $BASE_OPT --output b.pdmp > /dev/null 2>&1)
"$BARE" --temacs=pdump --image-base=$OTHER_BASE --output "$T/c.pdmp" > /dev/null 2>&1
DUMPER_PDUMP_BASE=fixed "$DLISP" --dump-file="$T/c.pdmp" --heap-digest --load-stats \
  > "$T/out" 2> "$T/err"
ok=no
cmp -s "$T/a.pdmp" "$T/b.pdmp" && ! cmp -s "$T/a.pdmp" "$T/c.pdmp" \
  && [ "`head -1 "$T/out"`" = "$cold" ] \
  && [ "`stat "$T/out" pdump-base`" = $OTHER_BASE ] \
  && [ "`stat "$T/out" pdump-placement`" = preferred ] && ok=yes
verdict $ok "base\|placement" "identical images, or the override"

begin "a misaligned --image-base is a usage error (64)"
"$BARE" --temacs=pdump --image-base=$MISALIGNED_BASE --output "$T/d.pdmp" > "$T/out" 2>&1
st=$?
if [ $st -eq 64 ] && grep -q "2 MiB" "$T/out" && [ ! -e "$T/d.pdmp" ]; then
  pass
else
  cat "$T/out"; fail "status $st"
fi

begin "re-dumps from a random and a fixed start are identical and load"
ok=yes
for m in random fixed; do
  DUMPER_PDUMP_BASE=$m "$DLISP" --dump-file="$T/a.pdmp" --temacs=pdump \
    --output "$T/re-$m.pdmp" > "$T/re.out" 2>&1 || { cat "$T/re.out"; ok=no; }
done
for m in random fixed; do
  d=`DUMPER_PDUMP_BASE=$m "$DLISP" --dump-file="$T/re-fixed.pdmp" --heap-digest`
  [ "$d" = "$cold" ] || { echo "    $m load of the re-dump: $d"; ok=no; }
done
if [ $ok = yes ] && cmp -s "$T/re-random.pdmp" "$T/re-fixed.pdmp"; then
  pass
else
  fail "re-dumps differ or do not load"
fi

begin "a bad DUMPER_PDUMP_BASE is a usage error (64)"
DUMPER_PDUMP_BASE=sometimes "$DLISP" --dump-file="$T/a.pdmp" --batch --eval t \
  > "$T/out" 2>&1
st=$?
if [ $st -eq 64 ] && grep -q "DUMPER_PDUMP_BASE.*\`random', \`fixed' and \`boot'" "$T/out"; then
  pass
else
  cat "$T/out"; fail "status $st"
fi

finish
