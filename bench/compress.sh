#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/compress.sh: compressed pdump images against plain ones, side by
# side: image size, dump time, load time with the file in the page cache,
# and load time through slow storage, for each scale and codec.
#
# Usage: sh bench/compress.sh BUILDDIR [SCALES] [CODECS]
#   BUILDDIR  a --with-dumper=pdumper build (host/dlisp-bare, host/dlisp)
#   SCALES    dlisp --loadup-scale values (default "1 4 16")
#   CODECS    --compress values (default "none lz4 lz4:1 zstd:1 zstd:3
#             zstd:19"; the first is the base of the ratios)
# Environment: RUNS (loads per cell, default 7), DUMP_RUNS (dumps per
# cell, default 3), BENCH_THROTTLE_MBPS (slow storage rate, default 100).
#
# Figures are medians, measured side by side: each round of dumps and
# of loads goes through every codec in turn.  Dump time is dlisp's dump-seconds (walk, layout,
# compression, write and fsync; not the loadup).  Load time is dlisp's
# image-load-seconds (open to hooks done).  Warm: the image was just
# written or read, so it is in the page cache.  Slow storage: the
# loader reads every byte through pread (DUMPER_PDUMP_LOAD=read for
# plain images; compressed ones are always read), and bench/throttle.so,
# preloaded, makes each pread sleep as long as reading its bytes at
# BENCH_THROTTLE_MBPS MB/s takes: a disk or network file system of that
# speed with a cold cache, without needing root to drop caches.
# Prints a Markdown table (doc/format.md has one), then a second one of
# where the warm loads spent their time: medians of the loader's phases
# (dlisp --load-stats: pdump-map-seconds, which for a compressed image
# is decompressing COLD and the tables; verify, the checksums; relocate,
# which includes reading or decompressing HOT; pdump-total-seconds) and
# of pdump-minor-faults, from the same warm runs.  The machine's load
# (uptime) is printed before and after: figures from a shared machine
# mean little without it.

set -e
BUILDDIR=${1:?usage: compress.sh BUILDDIR [SCALES] [CODECS]}
SCALES=${2:-1 4 16}
CODECS=${3:-none lz4 lz4:1 zstd:1 zstd:3 zstd:19}
RUNS=${RUNS:-7}
DUMP_RUNS=${DUMP_RUNS:-3}
SRC=`cd "\`dirname "$0"\`/.." && pwd`
BARE=$BUILDDIR/host/dlisp-bare
DLISP=$BUILDDIR/host/dlisp
test -x "$BARE" || { echo "compress.sh: no $BARE (build --with-dumper=pdumper)" >&2; exit 1; }

T=`mktemp -d "${TMPDIR:-/tmp}/compress-bench.XXXXXX"`
trap 'rm -rf "$T"' EXIT INT TERM
${CC:-cc} -O2 -shared -fPIC -o "$T/throttle.so" "$SRC/bench/throttle.c" -ldl

median () {   # the median of the numbers on standard input
  sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
field () {    # field NAME: the value of `NAME: value' lines
  sed -n "s/^$1: //p"
}

# A codec's name as a file name part.
tag () {
  echo "$1" | tr ':' '-'
}

echo "Load before: `uptime`"
echo
echo "| scale | codec | image bytes | size | dump s | warm load ms | warm | slow load ms | slow |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for scale in $SCALES; do
  # Dumps, then loads, each round going through every codec in turn, so
  # that what else the machine does slows every codec alike.
  i=0
  while [ $i -lt $DUMP_RUNS ]; do
    for codec in $CODECS; do
      c=`tag $codec`
      "$BARE" --loadup-scale $scale --temacs=pdump --compress=$codec \
        --output "$T/s$scale-$c.pdmp" --stats | field dump-seconds >> "$T/dump-$c"
    done
    i=`expr $i + 1`
  done
  for kind in warm slow; do
    i=0
    while [ $i -lt $RUNS ]; do
      for codec in $CODECS; do
        c=`tag $codec`
        if [ $kind = warm ]; then
          "$DLISP" --dump-file="$T/s$scale-$c.pdmp" --stats --load-stats \
            --batch > "$T/out"
          for phase in map verify relocate total; do
            field pdump-$phase-seconds < "$T/out" >> "$T/phase-$scale-$c-$phase"
          done
          field pdump-minor-faults < "$T/out" >> "$T/phase-$scale-$c-faults"
          field image-load-seconds < "$T/out"
        else
          LD_PRELOAD=$T/throttle.so DUMPER_PDUMP_LOAD=read \
            "$DLISP" --dump-file="$T/s$scale-$c.pdmp" --stats --batch \
            | field image-load-seconds
        fi >> "$T/$kind-$c"
      done
      i=`expr $i + 1`
    done
  done
  base_size=; base_warm=; base_slow=
  for codec in $CODECS; do
    c=`tag $codec`
    dump=`median < "$T/dump-$c"`
    warm=`median < "$T/warm-$c"`
    slow=`median < "$T/slow-$c"`
    size=`stat -c %s "$T/s$scale-$c.pdmp"`
    rm -f "$T/dump-$c" "$T/warm-$c" "$T/slow-$c" "$T/s$scale-$c.pdmp"
    [ -n "$base_size" ] || { base_size=$size; base_warm=$warm; base_slow=$slow; }
    awk -v scale=$scale -v codec=$codec -v size=$size -v bs=$base_size \
        -v dump=$dump -v warm=$warm -v bw=$base_warm -v slow=$slow -v bsl=$base_slow \
      'BEGIN { printf "| %d | %s | %d | %.2fx | %.3f | %.2f | %.2fx | %.1f | %.2fx |\n",
               scale, codec, size, size / bs, dump, warm * 1000, warm / bw,
               slow * 1000, slow / bsl }'
  done
done

echo
echo "| scale | codec | map ms | verify ms | relocate ms | total ms | minor faults |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for scale in $SCALES; do
  for codec in $CODECS; do
    c=`tag $codec`
    printf "| %d | %s" $scale $codec
    for phase in map verify relocate total; do
      median < "$T/phase-$scale-$c-$phase" | awk '{ printf " | %.2f", $1 * 1000 }'
    done
    printf " | %s |\n" `median < "$T/phase-$scale-$c-faults"`
  done
done
echo
echo "Load after: `uptime`"
