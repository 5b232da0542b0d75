#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/compare/compare.sh: dumper-compare end to end on the modes of
# the reference host (cold, unexec, pdump, embedded), at scale 1 with 3
# runs (what CI can afford).
#
# The tool passes; every figure it prints for the artifacts agrees with
# the files it measured; the heap digest it reports is the one the host
# prints itself; private dirty memory, the digest cost and the pdump
# loader's split are there; the JSON reads back to the same bytes; the
# chart is a PNG; `make compare' runs it in a build tree.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/compare/builds.sh"

check_builds

W=$T/work
begin "dumper-compare passes on the four modes (scale 1, 3 runs)"
plot=
[ -n "`command -v gnuplot`" ] && plot="--plot $T/chart.png"
if "$TOOL" --none "$NONE_DIR" --unexec "$UNEXEC_DIR" --pdumper "$PDUMPER_DIR" \
     --scale 1 --runs 3 --json "$T/r.json" --work-dir "$W" $plot \
     > "$T/out" 2> "$T/err"; then
  sed 's/^/    | /' "$T/out"
  pass
else
  st=$?
  sed 's/^/    | /' "$T/out" "$T/err" | tail -40
  fail "exit status $st"
  finish
fi

# The figure of FIELD (median) of MODE in the JSON.
json_figure () {
  sed -n "/\"$1\": {\$/,/^        }/p" "$T/r.json" \
    | sed -n "s/.*\"$2\": {\"median\": \\([0-9.]*\\),.*/\\1/p"
}

begin "the table has one row per mode with every column, units in the header"
# The mode column is 8 wide when the embedded mode is there.
hdr=`printf '%5s  %-8s  %22s  %22s  %9s  %8s  %7s  %9s  %9s' scale mode 'start-up ms' \
  'dump ms' 'size KiB' 'RSS KiB' faults 'dirty KiB' 'digest ms'`
sed -n '1,/^start-up:/p' "$T/out" > "$T/main"
rows=0
for m in cold unexec pdump embedded; do
  grep -q "^    1  $m  " "$T/main" && rows=`expr $rows + 1`
done
# No `-' in the cold row but for its dump and size, in the embedded row
# but for its dump (it is made, not dumped); none in the others.
dashes=`grep -E '^    1  (unexec|pdump) ' "$T/main" | grep -c ' - '`
colddash=`grep -E '^    1  cold ' "$T/main" | grep -o ' - ' | wc -l`
embdash=`grep -E '^    1  embedded ' "$T/main" | grep -o ' - ' | wc -l`
if grep -qF "$hdr" "$T/out" && [ $rows -eq 4 ] && [ "$dashes" -eq 0 ] && [ "$colddash" -eq 2 ] \
   && [ "$embdash" -eq 1 ]
then pass
else fail "header, 4 rows, complete columns: rows $rows, dashes $dashes, cold dashes $colddash, embedded dashes $embdash"; fi

begin "the embedded row: its executable's sizes and the line against pdump and unexec"
emb=`stat -c %s "$W/scale-1/embedded"`
pbare=`stat -c %s "$PDUMPER_DIR/host/dlisp-bare"`
image=`stat -c %s "$W/scale-1/image.pdmp"`
exe=`stat -c %s "$W/scale-1/dumped"`
want=`awk -v e=$emb -v b=$pbare -v i=$image -v u=$exe \
  'BEGIN { printf "files KiB: embedded %.0f, pdump exe+image %.0f (%.2fx), unexec exe %.0f (%.2fx)",
           e / 1024, (b + i) / 1024, e / (b + i), u / 1024, e / u }'`
e_start=`json_figure embedded start_ms`
p_start=`json_figure pdump start_ms`
ratio=`awk -v e="$e_start" -v p="$p_start" 'BEGIN { printf "embedded/pdump %.2fx", e / p }'`
line=`grep '^ *embedded: start-up' "$T/out"`
if [ "`json_figure embedded exe_bytes`" = "$emb" ] && [ "`json_figure embedded input_bytes`" = "$pbare" ] \
   && [ "`json_figure embedded artifact_bytes`" = "`expr $emb - $pbare`" ] \
   && case $line in *"$ratio"*"$want"*) true ;; *) false ;; esac \
   && grep -q '"embedded_pdump": ' "$T/r.json" \
   && [ "`"$W/scale-1/embedded" --heap-digest`" = "`"$NONE_DIR/host/dlisp" --heap-digest`" ]
then pass
else fail "line \`$line', want \`$ratio' and \`$want'; json exe `json_figure embedded exe_bytes`"; fi

begin "the ratios are printed and agree with the medians"
ratios=`grep 'start-up ratios:' "$T/out"`
cold=`json_figure cold start_ms`
pdump=`json_figure pdump start_ms`
want=`awk -v c="$cold" -v p="$pdump" 'BEGIN { printf "cold/pdump %.1fx", c / p }'`
case $ratios in
  *"$want"*) pass ;;
  *) fail "ratios line \`$ratios', expected \`$want' (medians $cold / $pdump)" ;;
esac

begin "the digest reported is the one each host prints"
d_cold=`"$NONE_DIR/host/dlisp" --heap-digest`
d_pdump=`"$PDUMPER_DIR/host/dlisp" --dump-file="$W/scale-1/image.pdmp" --heap-digest`
d_unexec=`"$W/scale-1/dumped" --heap-digest`
short=`echo "$d_cold" | cut -c1-16`
n=`grep -o "\"$d_cold\"" "$T/r.json" | wc -l`
if [ "$d_cold" = "$d_pdump" ] && [ "$d_cold" = "$d_unexec" ] \
   && grep -q "heap digest $short in every mode" "$T/out" && [ "$n" -eq 4 ]
then pass
else fail "cold $d_cold, pdump $d_pdump, unexec $d_unexec; in the JSON $n times"; fi

begin "artifact sizes are the files' sizes (image; executable minus undumped)"
image=`stat -c %s "$W/scale-1/image.pdmp"`
exe=`stat -c %s "$W/scale-1/dumped"`
bare=`stat -c %s "$UNEXEC_DIR/host/dlisp-bare"`
j_image=`json_figure pdump artifact_bytes`
j_added=`json_figure unexec artifact_bytes`
j_exe=`json_figure unexec exe_bytes`
kib=`awk -v b=$image 'BEGIN { printf "%.0f", b / 1024 }'`
if [ "$j_image" = "$image" ] && [ "$j_exe" = "$exe" ] \
   && [ "$j_added" = "`expr $exe - $bare`" ] \
   && grep -E "^    1  pdump " "$T/main" | grep -q " $kib "
then pass
else fail "image $image (json $j_image), exe $exe (json $j_exe), added json $j_added, bare $bare"; fi

begin "private dirty memory, the digest cost and the load split are measured"
missing=
for m in cold unexec pdump embedded; do
  for f in private_dirty_kb digest_ms peak_rss_kb minor_faults; do
    [ -n "`json_figure $m $f`" ] || missing="$missing $m.$f"
  done
done
for f in load_map_ms load_relocate_ms load_hooks_ms load_total_ms ns_per_reloc \
         load_minor_faults floor_map_touch_ms floor_read_huge_ms relocs; do
  [ -n "`json_figure pdump $f`" ] || missing="$missing pdump.$f"
done
for f in load_total_ms relocs; do
  [ -n "`json_figure embedded $f`" ] || missing="$missing embedded.$f"
done
for f in dump_ms dump_step_ms; do
  [ -n "`json_figure unexec $f`" ] || missing="$missing unexec.$f"
  [ -n "`json_figure pdump $f`" ] || missing="$missing pdump.$f"
done
grep -qE '^    1  (hybrid|map|read) ' "$T/out" || missing="$missing pdump-table-row"
[ -z "$missing" ] && pass || fail "missing:$missing"

begin "the pdump relocation count is the loader's"
relocs=`"$PDUMPER_DIR/host/dlisp" --dump-file="$W/scale-1/image.pdmp" --stats --batch \
        | awk -F': ' '$1 == "pdump-image-relocs" || $1 == "pdump-exe-relocs" { n += $2 } END { print n }'`
[ "`json_figure pdump relocs`" = "$relocs" ] && pass \
  || fail "json `json_figure pdump relocs`, loader $relocs"

begin "the JSON reads back to the same bytes"
if "$TOOL" --load "$T/r.json" --json "$T/r2.json" > "$T/out2" && cmp "$T/r.json" "$T/r2.json"
then pass
else fail "--load then --json differs"; fi

begin "the table printed from the JSON is the table printed after measuring"
sed '/^chart:/d; /^$/d' "$T/out" > "$T/t1"
sed '/^$/d' "$T/out2" > "$T/t2"
cmp -s "$T/t1" "$T/t2" && pass || { diff "$T/t1" "$T/t2" | head; fail "tables differ"; }

begin "the chart is a PNG"
if [ -z "$plot" ]; then
  skip "gnuplot is not installed"
elif [ "`od -An -c -N4 "$T/chart.png" | tr -d ' '`" = '211PNG' ]; then
  pass
else
  fail "$T/chart.png is not a PNG"
fi

begin "make compare runs the tool in a build tree"
if [ -f "$BUILDDIR/Makefile" ] \
   && env -u MAKEFLAGS -u MAKELEVEL make -s -C "$BUILDDIR" compare COMPARE_SCALES=1 COMPARE_RUNS=1 \
        COMPARE_JSON="$T/m.json" COMPARE_PLOT= COMPARE_NONE="$NONE_DIR" \
        COMPARE_UNEXEC="$UNEXEC_DIR" COMPARE_PDUMPER="$PDUMPER_DIR" COMPARE_FLAGS=--quiet \
        > "$T/make.out" 2>&1 \
   && grep -q 'start-up ratios: cold/unexec' "$T/make.out" && [ -s "$T/m.json" ]
then pass
else sed 's/^/    | /' "$T/make.out" | tail -20; fail "make compare failed"; fi

finish
