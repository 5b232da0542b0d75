#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/host/dlisp-dump.sh: the reference host dumped and restarted, in
# whichever back end this build has (pdumper or unexec).
#
# For each container (pdump: plain, lz4, zstd, embedded; unexec: the
# dumped executable), at scales 1 and 4: dump, start 20 times under ASLR
# and compare every digest with the cold start's; collect after the
# start; mutate dumped objects and collect; dump again from a dumped
# process (byte-identical for pdump, working for unexec).  Then ASLR,
# image mutations and the installed-layout start (host/dlisp finds its
# image or is the dumped executable).

. "$SRCDIR/tests/e2e/lib.sh"

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp

if [ "$BACKEND" = none ]; then
  begin "dlisp dump and restart"
  skip "this build cannot dump"
  finish
fi

EMBED=$BUILDDIR/tools/dumper-embed
# The load tests run on every container of this build: pdumper images
# plain, compressed (lz4, zstd) and embedded in the executable; unexec's
# dumped executable.
if [ "$BACKEND" = pdumper ]; then CONTAINERS="plain $CODECS embedded"
else CONTAINERS=unexec; fi

# dump SCALE OUTPUT [ARGS...]: write an image or an executable, in
# container $c, from a cold start.
dump () {
  _scale=$1; _out=$2
  shift 2
  case $c in
    plain) "$BARE" --loadup-scale $_scale --temacs=pdump --output "$_out" "$@" ;;
    lz4|zstd) "$BARE" --loadup-scale $_scale --temacs=pdump --compress=$c \
                --output "$_out" "$@" ;;
    embedded) "$BARE" --loadup-scale $_scale --temacs=pdump --output "$_out.img" "$@" \
                && "$EMBED" "$BARE" "$_out.img" -o "$_out" ;;
    unexec) "$BARE" --loadup-scale $_scale --temacs=dump --output "$_out" "$@" ;;
  esac
}
# start DUMP ARGS...: start from a dump in container $c.
start () {
  _d=$1
  shift
  case $c in
    embedded|unexec) "$_d" "$@" ;;
    *) "$DLISP" --dump-file="$_d" "$@" ;;
  esac
}

for c in $CONTAINERS; do
for scale in 1 4; do
  cold=`"$BARE" --loadup-scale $scale --heap-digest`
  begin "$c: scale $scale: the dump succeeds"
  if dump $scale "$T/$c-s$scale" > "$T/dump.log" 2>&1; then pass
  else cat "$T/dump.log"; fail "dump failed"; fi

  begin "$c: scale $scale: 20 starts give the cold digest"
  bad=0
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    d=`start "$T/$c-s$scale" --heap-digest`
    if [ "$d" != "$cold" ]; then bad=`expr $bad + 1`; echo "    start $i: $d, cold $cold"; fi
  done
  [ $bad -eq 0 ] && pass || fail "$bad of 20 differ"

  begin "$c: scale $scale: a collection right after the start changes nothing"
  d=`start "$T/$c-s$scale" --gc --heap-digest`
  [ "$d" = "$cold" ] && pass || fail "after GC $d, cold $cold"
done

check "$c: dumped objects mutated and collected stay intact" \
  start "$T/$c-s1" --batch -l "$SRCDIR/tests/host/mutate.lisp"
check "$c: a Lisp program runs from the dump" \
  start "$T/$c-s1" --batch -l "$SRCDIR/tests/host/basic.lisp"

begin "$c: a dumped process dumps again, and the result works"
case $c in
  plain|lz4|zstd)
    z=; [ $c = plain ] || z=--compress=$c
    "$DLISP" --dump-file="$T/$c-s1" --temacs=pdump $z --output "$T/re1" \
      && "$DLISP" --dump-file="$T/re1" --temacs=pdump $z --output "$T/re2"
    if cmp -s "$T/$c-s1" "$T/re1" && cmp -s "$T/$c-s1" "$T/re2"; then pass
    else fail "re-dumps are not byte-identical: `cmp "$T/$c-s1" "$T/re1" | head -1`"; fi ;;
  embedded)
    # Re-dumped from the embedded start, embedded again: the same file.
    "$T/$c-s1" --temacs=pdump --output "$T/re1" \
      && "$EMBED" "$T/$c-s1" "$T/re1" -o "$T/re1.exe" \
      && "$T/re1.exe" --temacs=pdump --output "$T/re2"
    if cmp -s "$T/$c-s1.img" "$T/re1" && cmp -s "$T/$c-s1.img" "$T/re2" \
       && cmp -s "$T/$c-s1" "$T/re1.exe"; then pass
    else fail "re-dumps or re-embedding are not byte-identical"; fi ;;
  unexec)
    "$T/$c-s1" --temacs=dump --output "$T/re1" > "$T/re.log" 2>&1 \
      && "$T/re1" --temacs=dump --output "$T/re2" >> "$T/re.log" 2>&1
    d1=`"$T/re1" --heap-digest`; d2=`"$T/re2" --heap-digest`
    cold=`"$BARE" --heap-digest`
    if [ "$d1" = "$cold" ] && [ "$d2" = "$cold" ]; then pass
    else cat "$T/re.log"; fail "re-dumped digests $d1 / $d2, cold $cold"; fi ;;
esac

begin "$c: two dumps from two cold starts are identical"
if [ $c != unexec ]; then
  dump 1 "$T/again" && cmp -s "$T/$c-s1" "$T/again" && pass || fail "dumps differ"
else
  # An executable from unexec holds the dumping process's libc-visible
  # state; compare what the library saves: the digest.
  dump 1 "$T/again" > /dev/null 2>&1
  [ "`"$T/again" --heap-digest`" = "`"$T/$c-s1" --heap-digest`" ] && pass || fail "digests differ"
fi
done
if [ "$BACKEND" = pdumper ]; then c=plain; else c=unexec; fi

begin "ASLR is on while the dumped program runs: each start maps elsewhere"
if [ "`cat /proc/sys/kernel/randomize_va_space`" = 0 ]; then
  skip "ASLR is disabled on this machine"
else
  # Start the REPL on a pipe that stays open, read its memory map and
  # personality from outside once it runs the dumped program, then let
  # it go.
  if [ "$BACKEND" = pdumper ]; then prog=$DLISP; arg=--dump-file="$T/$c-s1"
  else prog=$T/$c-s1; arg=--batch; fi
  for i in 1 2 3; do
    rm -f "$T/fifo"; mkfifo "$T/fifo"
    if [ "$BACKEND" = pdumper ]; then
      "$prog" "$arg" < "$T/fifo" > /dev/null 2>&1 &
    else
      "$prog" < "$T/fifo" > /dev/null 2>&1 &
    fi
    pid=$!
    exec 3> "$T/fifo"
    n=0
    while [ $n -lt 100 ] && ! grep -q "`basename "$prog"`" /proc/$pid/maps 2>/dev/null; do
      sleep 0.05; n=`expr $n + 1`
    done
    stack=`grep -m1 '\[stack\]' /proc/$pid/maps | cut -d- -f1`
    pers=`cat /proc/$pid/personality 2>/dev/null`
    exec 3>&-
    wait $pid
    echo "$stack ${pers:-0}"
  done > "$T/aslr"
  distinct=`cut -d' ' -f1 "$T/aslr" | sort -u | wc -l`
  # ADDR_NO_RANDOMIZE is 0x0040000 in the personality.
  norand=0
  for p in `cut -d' ' -f2 "$T/aslr"`; do
    [ $(( 0x$p & 0x40000 )) -ne 0 ] && norand=`expr $norand + 1`
  done
  if [ "$distinct" -eq 3 ] && [ "$norand" -eq 0 ]; then pass
  else cat "$T/aslr"; fail "$distinct distinct stack addresses in 3 starts, $norand without randomisation"; fi
fi

begin "100 random byte mutations of the image: the right digest or a clean refusal"
if [ "$BACKEND" != pdumper ]; then
  skip "images exist only in pdumper builds"
else
  cold=`"$BARE" --heap-digest`
  size=`stat -c %s "$T/$c-s1"`
  seed=4242; ok=0; clean=0; bad=0; i=0
  while [ $i -lt 100 ]; do
    seed=`expr \( $seed \* 1103515245 + 12345 \) % 2147483648`
    off=`expr $seed % $size`
    cp "$T/$c-s1" "$T/m"
    printf '\377' | dd of="$T/m" bs=1 seek=$off conv=notrunc 2>/dev/null
    d=`"$DLISP" --dump-file="$T/m" --heap-digest 2>/dev/null`
    st=$?
    if [ $st -eq 0 ] && [ "$d" = "$cold" ]; then ok=`expr $ok + 1`
    elif [ $st -ge 80 ] && [ $st -le 86 ]; then clean=`expr $clean + 1`
    else bad=`expr $bad + 1`; echo "    offset $off: status $st digest $d"; fi
    i=`expr $i + 1`
  done
  echo "    $ok unaffected, $clean refused, $bad bad"
  [ $bad -eq 0 ] && pass || fail "$bad runs crashed or gave a wrong heap"
fi

# The pdump writer streams HOT and COLD to the file through windows of a
# few hundred KiB.  Objects traced after the window passed them (some
# straddling its edge) are kept aside and laid over HOT when the writer
# reads it back, or written on their own when large (scale 4 has a
# 1.2 MiB vector among them, and thousands of small ones: both ways
# are taken).  The bytes must be those of a write that holds the whole
# image in memory (issue 17).
begin "a streamed image is byte for byte the in-memory one (scale 4)"
if [ "$BACKEND" = pdumper ]; then
  "$BARE" --loadup-scale 4 --temacs=pdump --output "$T/stream4" --stats \
    > "$T/stream4.out" 2>&1
  DUMPER_PDUMP_IN_MEMORY=1 "$BARE" --loadup-scale 4 --temacs=pdump \
    --output "$T/mem4" > /dev/null 2>&1
  late=`sed -n 's/^pdump-late-objects: //p' "$T/stream4.out"`
  alone=`sed -n 's/^pdump-late-written: //p' "$T/stream4.out"`
  if [ -z "$late" ] || [ -z "$alone" ] || [ "$alone" -lt 1 ] \
     || [ "$late" -le "$alone" ]; then
    fail "late objects: $late, written on their own: $alone"
  else
    [ -s "$T/mem4" ] && cmp "$T/stream4" "$T/mem4" && pass || fail "images differ"
  fi
  rm -f "$T/stream4" "$T/mem4" "$T/stream4.out"
else
  skip "pdumper only"
fi

# The writer keeps what it knows of each object it visits in an array
# indexed by the pre-dump check's numbering of the objects it reached
# (issue 17): live blocks in a cold heap, the loaded image's objects in
# a re-dump.  Every object must be found there, and keeping all of them
# in the hash map instead (DUMPER_PDUMP_VISITED_MAP) must write the
# same bytes.
begin "the numbered walk writes the map's bytes, cold and re-dumped (scale 4)"
if [ "$BACKEND" = pdumper ]; then
  ok=yes
  "$BARE" --loadup-scale 4 --temacs=pdump --output "$T/num4" --stats \
    > "$T/num.out" 2>&1 || ok=no
  DUMPER_PDUMP_VISITED_MAP=1 "$BARE" --loadup-scale 4 --temacs=pdump \
    --output "$T/map4" --stats > "$T/map.out" 2>&1 || ok=no
  stat_of () { sed -n "s/^pdump-$1: //p" "$2"; }
  all=`expr "$(stat_of objects "$T/num.out")" + "$(stat_of byte-blocks "$T/num.out")"`
  [ "$(stat_of numbered-objects "$T/num.out")" = "$all" ] \
    || { echo "    numbered `stat_of numbered-objects "$T/num.out"` of $all"; ok=no; }
  [ "$(stat_of numbered-objects "$T/map.out")" = 0 ] \
    || { echo "    numbered under DUMPER_PDUMP_VISITED_MAP"; ok=no; }
  cmp "$T/num4" "$T/map4" || ok=no
  "$BARE" --dump-file="$T/num4" --temacs=pdump --output "$T/renum" --stats \
    > "$T/renum.out" 2>&1 || ok=no
  [ "$(stat_of numbered-objects "$T/renum.out")" = "$all" ] \
    || { echo "    re-dump numbered `stat_of numbered-objects "$T/renum.out"` of $all"; ok=no; }
  DUMPER_PDUMP_VISITED_MAP=1 "$BARE" --dump-file="$T/num4" --temacs=pdump \
    --output "$T/remap" > /dev/null 2>&1 || ok=no
  cmp "$T/renum" "$T/remap" || ok=no
  [ $ok = yes ] && pass || { cat "$T/num.out" "$T/renum.out"; fail "see above"; }
  rm -f "$T/num4" "$T/map4" "$T/renum" "$T/remap"
else
  skip "pdumper only"
fi

begin "host/dlisp starts from its dump without options"
origin=`"$DLISP" --stats --batch | sed -n 's/^origin: //p'`
want=pdump
[ "$BACKEND" = unexec ] && want=unexec
[ "$origin" = "$want" ] && pass || fail "origin $origin"

finish
