#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/pagesize.sh: an image and a loader whose page sizes differ
# (issue 19; doc/format.md, "Memory methods" and "Porting").
#
# aarch64 kernels run with 4, 16 or 64 KiB pages.  The header records
# the page size the writer aligned the sections to (page_size); a loader
# maps the file only when its own page size divides that, and reads the
# image into memory otherwise.  So, with dlisp:
#
#   - an image dumped with 4 KiB pages, loaded with 16 and 64 KiB pages:
#     read (not mapped), the cold digest; the same embedded in the
#     executable and compressed; in base mode fixed at its preferred
#     base (a multiple of 2 MiB, so of every page size up to that);
#   - an image dumped with 64 KiB pages records 65536, aligns its
#     sections to it, and is mapped by loaders with 4, 16 and 64 KiB
#     pages; a 16 KiB image is mapped with 16 KiB pages and read with
#     64 KiB pages.
#
# The page size is faked by qemu-user: qemu-aarch64 honours
# QEMU_PAGESIZE (sysconf and AT_PAGESZ say it, anonymous mappings are
# aligned to it).  So this runs where the build's programs are aarch64
# under an emulator (scripts/test-arch arm64, in CI too); elsewhere it
# is skipped, saying so: natively, and for other machines, whose kernels
# have 4 KiB pages only.  qemu-i386 7.2 with QEMU_PAGESIZE=65536 is no
# machine at all: it aligns anonymous mappings to 64 KiB but tells
# sysconf 4096, and under it glibc's malloc loses memory (a dumping run
# of dlisp found one of its own objects in unmapped memory).  Under the emulator a file mapping at a 4 KiB
# offset still works, so the method the loader chose is what is checked:
# a loader that mapped the 4 KiB image with 64 KiB pages would fail here
# (on a real 64 KiB kernel its mmap would fail with EINVAL).

. "$SRCDIR/tests/e2e/lib.sh"

if [ "$BACKEND" != pdumper ]; then
  begin "images and loaders of different page sizes"
  skip "this build is --with-dumper=$BACKEND"
  finish
fi

BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp
EMBED=$BUILDDIR/tools/dumper-embed

# A field of an image's header (pdump/format.h), little-endian.
page_size_of () { od -An -tu8 -j 32 -N 8 "$1" | tr -d ' '; }
stat () { sed -n "s/^$2: //p" "$1"; }

# dump PAGE OUTPUT ARGS...: dlisp-bare dumps with PAGE-byte pages
dump () {
  _page=$1 _out=$2
  shift 2
  QEMU_PAGESIZE=$_page "$BARE" --temacs=pdump "$@" --output "$_out" > "$T/dump.out" 2>&1
}

# start PAGE ARGS...: dlisp's digest and load statistics with PAGE-byte
# pages, in $T/out ($T/err).  Base mode random and no structural pass
# unless the caller says otherwise: the placements below are random's
# (the default is boot since issue 33), and the methods are the point.
start () {
  _page=$1
  shift
  QEMU_PAGESIZE=$_page DUMPER_PDUMP_BASE=${DUMPER_PDUMP_BASE:-random} \
    DUMPER_PDUMP_VERIFY=${DUMPER_PDUMP_VERIFY:-none} \
    "$@" --heap-digest --load-stats > "$T/out" 2> "$T/err"
}

# loads WHAT METHOD PLACEMENT: the last start printed the cold digest,
# loaded by METHOD (read, hybrid, unpack) and placed PLACEMENT
loads () {
  _d=`head -1 "$T/out"`
  _m=`stat "$T/out" pdump-method`
  _p=`stat "$T/out" pdump-placement`
  if [ "$_d" = "$cold" ] && [ "$_m" = "$2" ] && [ "$_p" = "$3" ]; then
    pass
  else
    cat "$T/err"
    fail "$1: digest $_d (cold $cold), method $_m (want $2), placement $_p (want $3): `stat "$T/out" pdump-placement-reason`"
  fi
}

begin "the emulator fakes the page size (QEMU_PAGESIZE=65536)"
if [ -z "${DUMPER_TEST_EMULATOR:-}" ]; then
  skip "the programs run natively: no way to change the page size (scripts/test-arch arm64 runs this under qemu-aarch64)"
  finish
fi
# e_machine of the build's programs (ELF header offset 18,
# little-endian): 183 is aarch64.
machine=`od -An -tu2 -j 18 -N 2 "$BARE" | tr -d ' '`
if [ "$machine" != 183 ]; then
  skip "the programs are for ELF machine $machine under $DUMPER_TEST_EMULATOR, whose kernels have 4 KiB pages; only aarch64 has others (scripts/test-arch arm64)"
  finish
fi
if ! dump 65536 "$T/p64k.pdmp"; then
  cat "$T/dump.out"
  fail "the dump with 64 KiB pages failed"
  finish
fi
if [ "`page_size_of "$T/p64k.pdmp"`" != 65536 ]; then
  skip "$DUMPER_TEST_EMULATOR ignores QEMU_PAGESIZE (the image records `page_size_of "$T/p64k.pdmp"`); qemu-aarch64 honours it"
  finish
fi
pass

cold=`"$BARE" --heap-digest`

begin "an image dumped with 4 KiB pages records page size 4096"
if dump 4096 "$T/p4k.pdmp" && [ "`page_size_of "$T/p4k.pdmp"`" = 4096 ]; then pass
else cat "$T/dump.out"; fail "page size `page_size_of "$T/p4k.pdmp"`"; fi

for page in 16384 65536; do
  begin "4 KiB image, loader with $page-byte pages: read, not mapped; cold digest"
  start $page "$DLISP" --dump-file="$T/p4k.pdmp"
  loads "plain" read random
done

begin "4 KiB image embedded in the executable, loader with 64 KiB pages: read; cold digest"
if "$EMBED" "$DLISP" "$T/p4k.pdmp" -o "$T/dlisp-embedded" > "$T/embed.out" 2>&1; then
  start 65536 "$T/dlisp-embedded"
  loads embedded read random
else
  cat "$T/embed.out"; fail "dumper-embed failed"
fi

zc=${CODECS%% *}
begin "4 KiB image compressed ($zc), loader with 64 KiB pages: unpacked; cold digest"
if [ -z "$zc" ]; then
  skip "this build has no codec"
elif dump 4096 "$T/z4k.pdmp" --compress=$zc; then
  start 65536 "$DLISP" --dump-file="$T/z4k.pdmp"
  loads compressed unpack random
else
  cat "$T/dump.out"; fail "the compressed dump failed"
fi

begin "4 KiB image, 64 KiB pages, base mode fixed: read at the preferred base; cold digest"
DUMPER_PDUMP_BASE=fixed start 65536 "$DLISP" --dump-file="$T/p4k.pdmp"
preferred=`stat "$T/out" pdump-preferred-base`
if [ "`stat "$T/out" pdump-base`" = "$preferred" ]; then
  loads fixed read preferred
else
  fail "placed at `stat "$T/out" pdump-base`, preferred $preferred: `cat "$T/out"`"
fi

begin "an image dumped with 64 KiB pages aligns its sections to 64 KiB"
bad=`"$BUILDDIR/tools/dumper-inspect" "$T/p64k.pdmp" 2> "$T/err" \
     | awk '/^Sections/ { s = 1 } /^Storage/ { s = 0 }
            s && ($1 == "HOT" || $1 == "COLD" || $1 == "RELOC_IMAGE") {
              n++; if ($2 % 65536) print $1 " at " $2 }
            END { if (n != 3) print n " of HOT, COLD, RELOC_IMAGE listed" }'`
[ -z "$bad" ] && pass || { cat "$T/err"; fail "$bad"; }

for page in 4096 16384 65536; do
  begin "64 KiB image, loader with $page-byte pages: mapped; cold digest"
  start $page "$DLISP" --dump-file="$T/p64k.pdmp"
  loads "64 KiB image" hybrid random
done

begin "a 16 KiB image: mapped with 16 KiB pages, read with 64 KiB pages"
if dump 16384 "$T/p16k.pdmp" && [ "`page_size_of "$T/p16k.pdmp"`" = 16384 ]; then
  start 16384 "$DLISP" --dump-file="$T/p16k.pdmp"
  m16=`stat "$T/out" pdump-method` d16=`head -1 "$T/out"`
  start 65536 "$DLISP" --dump-file="$T/p16k.pdmp"
  m64=`stat "$T/out" pdump-method` d64=`head -1 "$T/out"`
  if [ "$m16 $m64" = "hybrid read" ] && [ "$d16" = "$cold" ] && [ "$d64" = "$cold" ]; then pass
  else fail "methods $m16 (16 KiB), $m64 (64 KiB); digests $d16 $d64 (cold $cold)"; fi
else
  cat "$T/dump.out"; fail "page size `page_size_of "$T/p16k.pdmp"`"
fi

finish
