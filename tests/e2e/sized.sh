#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/sized.sh: owner-sized blocks (dumper_trace_sized) and
# interior pointers (dumper_trace_interior), issue 30, driven by
# tests/pdump/sizedhost.
#
# In pdumper and unexec builds alike:
#   a heap with a shared owner-sized stack, top and end (one past the
#   end) pointers into it, a pointer-free owner-sized code array in
#   COLD with a program counter into it (one past its end in the second
#   thread), self-pointers, pointers into a static string of the
#   executable and into a byte block: dumped, started, every relation
#   holds and the start prints what a cold start prints;
#   refused at the dump, no file, the pre-dump check's message:
#   referrers that disagree on a block's length (91), a length larger
#   than the block (91), a length of 0 (91), an interior pointer into
#   a block nobody reaches (96), a sized block reported as a typed pointer and a typed
#   object as a sized block (91);
#   refused at dumper_describe_heap (91): an owner-sized type with a
#   trace function, a normal one with trace_sized, a tag naming an
#   owner-sized type, static objects declared with one.
# pdumper only: the image loads with verify=structure, its mark bits
# hold the sized blocks; dumper-inspect shows them and the interior
# pointers; interior words of objects the streamed writer
# had already written out (--big) come out as when written in memory;
# crafted
# images refused by verify=structure with the check under test's
# message: the first thread's capacity edited (its sized pointer
# disagrees with the index), its stack pointer moved into its block
# (not an object's start), its program counter moved into the padding
# after its code array (in no object).

. "$SRCDIR/tests/e2e/lib.sh"

HOST=$BUILDDIR/tests/pdump/sizedhost

dump_option "owner-sized blocks and interior pointers"

# start IMAGE ARGS...: start from IMAGE (pdump: the host with
# --dump-file; unexec: the dumped executable).
start () {
  _image=$1
  shift
  if [ $BACKEND = pdumper ]; then
    "$HOST" "$@" --dump-file="$_image"
  else
    "$_image" "$@"
  fi
}

cold=`"$HOST" 2>&1`
case $cold in
  *"relations: ok "*) ;;
  *) begin "a cold start keeps the relations"; fail "$cold"; finish ;;
esac
want=`printf '%s\n' "$cold" | grep '^relations:'`

begin "dumped and started: every relation holds, as in a cold start"
if "$HOST" $DUMP --output "$T/good" > "$T/good.out" 2>&1; then
  out=`start "$T/good" 2>&1`
  st=$?
  got=`printf '%s\n' "$out" | grep '^relations:'`
  if [ $st -eq 0 ] && [ "$got" = "$want" ]; then pass
  else fail "status $st: $out (want $want)"; fi
else
  fail "the dump failed: `cat "$T/good.out"`"
fi

# refused SCENARIO STATUS WORDS... (lib.sh) runs sizedhost.
REFUSING=$HOST

W=${WORD_SIZE:-8}
STACK=`expr 16 \* $W`
refused disagree 91 "type \`thread' at 0x" "field at +$W:" \
  "of type \`slots' is reported with `expr 15 \* $W` bytes here and with $STACK bytes by another referrer"
refused overrun 91 "type \`thread' at 0x" "field at +$W:" \
  "of type \`slots' is reported with `expr 1000 \* $W` bytes, but its block has room for"
refused unreached 96 "type \`thread' at 0x" "field at +`expr 3 \* $W`:" \
  "(dumper_trace_interior) lies in no object the dump reaches by its start"
refused sized-as-ptr 91 "field at +`expr 5 \* $W`:" \
  "a typed pointer to type 3 (\`code'), an owner-sized type"
refused ptr-as-sized 91 "a sized pointer (dumper_trace_sized) to type 0 (\`thread'), which is not an owner-sized type"
refused empty 91 "type \`thread' at 0x" "field at +`expr 5 \* $W`:" \
  "of type \`code' is reported with 0 bytes; report an empty block as NULL"
refused desc-trace 91 "type 2 (slots) has no size function (an owner-sized type) but a trace function"
refused desc-sized 91 "type 1 (cell) has a size function and a trace_sized function"
refused desc-tag 91 "tag 3 maps to type 2 (slots), an owner-sized type"

begin "static objects declared with an owner-sized type: refused (91)"
out=`"$BUILDDIR/tests/pdump/sizedhost-declared" 2>&1`
st=$?
case "$st:$out" in
  91:*"static_slots is declared with type 2 (slots), an owner-sized type"*) pass ;;
  *) fail "status $st: $out" ;;
esac

if [ $BACKEND != pdumper ]; then
  finish
fi

# ------------------------------------------------------------------
# pdumper: structural verification and the mark bits.

begin "verify=structure accepts the image; the mark bits hold the sized blocks"
out=`DUMPER_PDUMP_VERIFY=structure "$HOST" --gc --dump-file="$T/good" 2>&1`
st=$?
case "$st:$out" in
  0:*"$want"*"gc: ok (5 objects marked and cleared)"*) pass ;;
  *) fail "status $st: $out" ;;
esac

# A start from the image dumps again (the pre-dump check and the walk
# meet the blocks and interior targets inside the loaded image, where
# the stack's end is also the next object's start): the same bytes.
begin "a start from the image dumps again: the same bytes"
if "$HOST" --dump-file="$T/good" --temacs=pdump --output "$T/again" > "$T/again.out" 2>&1; then
  if cmp -s "$T/good" "$T/again"; then pass
  else fail "the second image differs"; fi
else
  fail "the second dump failed: `cat "$T/again.out"`"
fi

# --big 2: two more threads, each written out before the writer
# traces it (late), so their interior words are resolved after they
# are in the file and laid over HOT when it is read back.  The same
# heap written in memory (where they are patched in place), and with
# every object in the visited map (where the writer lists the objects
# from), must give the same bytes.
begin "interior words of objects already written out (--big): same bytes three ways, verified"
if "$HOST" --big 2 $DUMP --output "$T/big" > "$T/big.out" 2>&1 \
   && DUMPER_PDUMP_IN_MEMORY=1 "$HOST" --big 2 $DUMP --output "$T/big-mem" > /dev/null 2>&1 \
   && DUMPER_PDUMP_VISITED_MAP=1 "$HOST" --big 2 $DUMP --output "$T/big-map" > /dev/null 2>&1; then
  late=`sed -n 's/^late objects: //p' "$T/big.out"`
  out=`DUMPER_PDUMP_VERIFY=structure "$HOST" --dump-file="$T/big" 2>&1`
  st=$?
  if ! cmp -s "$T/big" "$T/big-mem"; then fail "written in memory, the image differs"
  elif ! cmp -s "$T/big" "$T/big-map"; then fail "with the visited map, the image differs"
  elif [ "${late:-0}" -eq 0 ]; then fail "no late objects: `cat "$T/big.out"`"
  else
    case "$st:$out" in
      0:*"$want"*"big: ok threads=2 "*) pass ;;
      *) fail "status $st: $out" ;;
    esac
  fi
else
  fail "a dump failed: `cat "$T/big.out"`"
fi

. "$SRCDIR/tests/pdump/imagelib.sh"
PATCH=$BUILDDIR/tests/pdump/patch-image

# The first thread: the first object of HOT's group area (it holds an
# executable address, its label), found by its magic number; its fields
# at +0 (magic), +W (stack), +2W (capacity), ... +7W (pc).
hot=`section_at "$T/good" 1 8`
hot_size=`section_at "$T/good" 1 16`
thread=`od -An -v -t u$W -j $hot -N $hot_size "$T/good" | tr -s ' ' '\n' | grep . |
  awk -v magic=\`printf %d 0x54480001\` -v hot=$hot -v w=$W \
    '$1 == magic { print hot + w * (NR - 1); exit }'`
if [ -z "$thread" ]; then
  begin "the first thread is in HOT"
  fail "no thread magic in HOT"
  finish
fi

# dumper-inspect shows the owner-sized blocks and counts the interior
# pointers (12: top, end, pc, self, label and cursor of each thread).
INSPECT=$BUILDDIR/tools/dumper-inspect
begin "dumper-inspect: owner-sized types and blocks, interior pointers"
summary=`"$INSPECT" "$T/good" 2>&1`
objects=`"$INSPECT" --objects --type code "$T/good" 2>&1`
refs=`"$INSPECT" --refs \`printf 0x%x $thread\` "$T/good" 2>&1`
json=`"$INSPECT" --json --objects --type slots "$T/good" 2>&1`
if ! printf '%s\n' "$summary" | grep -q '^  slots  *HOT .*  owner-sized$'; then
  fail "summary: $summary"
elif ! printf '%s\n' "$summary" | grep -q "^  owner-sized blocks: 3 (`expr 16 \* $W + 32` bytes)"; then
  fail "summary: $summary"
elif ! printf '%s\n' "$summary" | grep -q '^  interior  *12  of them interior pointers'; then
  fail "summary: $summary"
elif [ `printf '%s\n' "$objects" | grep -c 'COLD  *code  *[0-9]*  owner-sized$'` -ne 2 ]; then
  fail "--objects: $objects"
elif ! printf '%s\n' "$refs" | grep -q "+`expr 8 \* $W`  .* thread (interior, +`expr 9 \* $W` bytes into it)"; then
  fail "--refs (the self-pointer): $refs"
else
  case $json in
    *'"owner_sized": true'*) pass ;;
    *) fail "--json: $json" ;;
  esac
fi

# crafted NAME FIELD WORDS EDIT...: the good image with EDITs
# (patch-image's syntax, checksums recomputed) is refused by
# verify=structure (86) with a message naming FIELD and holding WORDS.
crafted () {
  _name=$1 _field=$2 _words=$3
  shift 3
  begin "$_name"
  if ! "$PATCH" "$T/good" "$T/m" "$@" resum; then fail "patch-image $*"; return; fi
  _out=`DUMPER_PDUMP_VERIFY=structure "$HOST" --dump-file="$T/m" 2>&1`
  _st=$?
  if [ $_st -ne 86 ]; then fail "status $_st, want 86: $_out"; return; fi
  case $_out in
    *"$_field"*"$_words"*) pass ;;
    *) fail "message lacks '$_field' then '$_words': $_out" ;;
  esac
}

if [ "$W" = 8 ]; then
  crafted "verify=structure: a referrer's length disagrees with the index" \
    "field +8 = 0x" "the referrer says the \`slots' block has 120 bytes; the index says 128" \
    "s1@$((thread - hot + 16))/8=15"
  # The stack pointer (a sized pointer) moved one word into its block:
  # the start check of the object lookup the sized pointers use (the
  # other pointers' targets are checked in the per-granule type map).
  stack=`u64 "$T/good" \`expr $thread + 8\``
  crafted "verify=structure: a sized pointer into the middle of its block" \
    "field +8 = 0x" "a sized block pointer not at the start of an object" \
    "s1@$((thread - hot + 8))/8=$((stack + 8))"
  # pc = code + 2 words of 4; code is 20 bytes, the next object 24
  # bytes after its start: code + 22 lies in the padding between them.
  pc=`u64 "$T/good" \`expr $thread + 56\``
  crafted "verify=structure: an interior pointer moved out of its object" \
    "field +56 = 0x" "an interior pointer that lies in no object of the image" \
    "s1@$((thread - hot + 56))/8=$((pc + 14))"
  # The same word moved to the end of the code array: one past the end
  # is allowed, so the edit alone must be accepted.
  begin "verify=structure: an interior pointer one past the end of its object is accepted"
  if "$PATCH" "$T/good" "$T/e" "s1@$((thread - hot + 56))/8=$((pc + 12))" resum; then
    out=`DUMPER_PDUMP_VERIFY=structure "$HOST" --dump-file="$T/e" 2>&1`
    case "$?:$out" in
      3:*"relations: broken: pc"*) pass ;;
      *) fail "status $?: $out" ;;
    esac
  else
    fail "patch-image"
  fi
else
  begin "crafted images (their field offsets are for 8-byte words)"
  skip "a $W-byte word build"
fi

finish
