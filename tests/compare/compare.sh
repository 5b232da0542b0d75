#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/compare/compare.sh: dumper-compare end to end on the modes of
# the reference host (cold, unexec, pdump and its rows per base mode,
# embedded), at scale 1 with 3 runs and 4 processes in the memory
# section (what CI can afford).
#
# The tool passes; every figure it prints for the artifacts agrees with
# the files it measured; the heap digest it reports is the one the host
# prints itself; private dirty memory, the digest cost and the pdump
# loader's split are there; each base-mode row (pdump-fixed) is there
# with the placement the host reports, and its p99 and ratios come from
# its own samples; the memory section has a row per mode with one sample
# per process; the JSON reads back to the same bytes; the chart is a
# PNG; `make compare' runs it in a build tree.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/compare/builds.sh"

check_builds

W=$T/work
begin "dumper-compare passes on the five modes (scale 1, 3 runs, 4 processes)"
plot=
[ -n "`command -v gnuplot`" ] && plot="--plot $T/chart.png"
if "$TOOL" --none "$NONE_DIR" --unexec "$UNEXEC_DIR" --pdumper "$PDUMPER_DIR" \
     --scale 1 --runs 3 --procs 4 --json "$T/r.json" --work-dir "$W" $plot \
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

# The base-mode rows the JSON lists (pdump-fixed, ...): the tests below
# hold for each.
base_rows=`sed -n 's/^  "modes": \[\(.*\)\],$/\1/p' "$T/r.json" | tr -d '",' | tr ' ' '\n' \
           | grep '^pdump-'`
base_count=`echo $base_rows | wc -w`

begin "the table has one row per mode with every column, units in the header"
# The mode column is as wide as the longest mode name (pdump-fixed).
w=`for m in cold unexec pdump $base_rows embedded; do echo $m; done | awk '
  length > w { w = length } END { print w }'`
hdr=`printf '%5s  %-*s  %22s  %22s  %9s  %8s  %7s  %9s  %9s' scale $w mode 'start-up ms' \
  'dump ms' 'size KiB' 'RSS KiB' faults 'dirty KiB' 'digest ms'`
sed -n '1,/^start-up:/p' "$T/out" > "$T/main"
rows=0
for m in cold unexec pdump $base_rows embedded; do
  grep -q "^    1  $m  " "$T/main" && rows=`expr $rows + 1`
done
# No `-' in the cold and base-mode rows but for their dump and size
# (they start from pdump's image), in the embedded row but for its dump
# (it is made, not dumped); none in the others.
dashes=`grep -E '^    1  (unexec|pdump) ' "$T/main" | grep -c ' - '`
colddash=`grep -E '^    1  cold ' "$T/main" | grep -o ' - ' | wc -l`
basedash=`grep -E '^    1  pdump-' "$T/main" | grep -o ' - ' | wc -l`
embdash=`grep -E '^    1  embedded ' "$T/main" | grep -o ' - ' | wc -l`
case " `echo $base_rows` " in *" pdump-fixed "*) fixed=yes ;; *) fixed=no ;; esac
if grep -qF "$hdr" "$T/out" && [ $rows -eq `expr 4 + $base_count` ] && [ $fixed = yes ] \
   && [ "$dashes" -eq 0 ] && [ "$colddash" -eq 2 ] \
   && [ "$basedash" -eq `expr 2 \* $base_count` ] && [ "$embdash" -eq 1 ]
then pass
else fail "header, 4 + $base_count rows (pdump-fixed: $fixed), complete columns: rows $rows, dashes $dashes, cold dashes $colddash, base-mode rows' dashes $basedash, embedded dashes $embdash"; fi

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

# `pdump' is base mode random; the line also gives the default's
# (pdump-boot) against unexec, from the medians.
begin "the ratios line names random and gives the default's (pdump-boot) against unexec"
boot=`json_figure pdump-boot start_ms`
unexec=`json_figure unexec start_ms`
want=`awk -v b="$boot" -v u="$unexec" 'BEGIN { printf "pdump-boot (the default)/unexec %.1fx", b / u }'`
case $ratios in
  *"pdump (random)/unexec "*"$want"*) pass ;;
  *) fail "ratios line \`$ratios', expected \`pdump (random)/unexec' and \`$want' (medians $boot / $unexec)" ;;
esac

begin "the digest reported is the one each host prints"
d_cold=`"$NONE_DIR/host/dlisp" --heap-digest`
d_pdump=`"$PDUMPER_DIR/host/dlisp" --dump-file="$W/scale-1/image.pdmp" --heap-digest`
d_unexec=`"$W/scale-1/dumped" --heap-digest`
short=`echo "$d_cold" | cut -c1-16`
n=`grep -o "\"$d_cold\"" "$T/r.json" | wc -l`
if [ "$d_cold" = "$d_pdump" ] && [ "$d_cold" = "$d_unexec" ] \
   && grep -q "heap digest $short in every mode" "$T/out" && [ "$n" -eq `expr 4 + $base_count` ]
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

# The p99 of start-up of MODE in the JSON.
json_p99 () {
  sed -n "/\"$1\": {\$/,/^        }/p" "$T/r.json" \
    | sed -n "s/.*\"start_ms\": {.*\"p99\": \\([0-9.]*\\),.*/\\1/p"
}

begin "a row per base mode, with the base mode and placement the host reports"
# What the loader itself says of a start in each base mode, in the run's
# runtime directory (base mode boot: its cache).  Under sanitizers the
# preferred range may be taken: then `fallback', and the row must say NO.
runtime=`ls -d "$W"/runtime.* | head -1`
place () {
  XDG_RUNTIME_DIR=$runtime DUMPER_PDUMP_BASE=$1 DUMPER_PDUMP_COLD=${2:-full} \
    "$PDUMPER_DIR/host/dlisp" \
    --dump-file="$W/scale-1/image.pdmp" --load-stats | sed -n 's/^pdump-placement: //p'
}
# row_mode ROW: the base mode and COLD verification a pdump row asks
# for, "MODE COLD" (pdump-fixed-cb: fixed, COLD verified once per boot).
row_mode () {
  case $1 in
    pdump) echo random full ;;
    pdump-fixed-cb) echo fixed boot ;;
    *) echo "${1#pdump-} full" ;;
  esac
}
sed -n '/^pdump start-up per base mode/,/^base:/p' "$T/out" > "$T/base"
bad=
awk '$1 == 1 && $2 == "unexec"' "$T/base" | grep -q . || bad="no unexec row;"
for row in pdump $base_rows; do
  mode=`row_mode $row | cut -d' ' -f1`
  p=`place \`row_mode $row\``
  ok=yes
  [ "$p" = fallback ] && ok=NO
  got=`awk -v r=$row '$1 == 1 && $2 == r { print $3, $4, $5 }' "$T/base"`
  [ "$got" = "$mode $p $ok" ] || bad="$bad $row \`$got' (loader: $p);"
  grep -q "\"$row\": {\"asked\": \"$mode\", \"reported\": \"$mode\", \"placement\": \"$p\"" \
    "$T/r.json" || bad="$bad $row not in the JSON's base_modes;"
  [ $ok = yes ] || grep -q "^ *$row: NOT AT ITS BASE" "$T/out" || bad="$bad $row: no note;"
done
[ -z "$bad" ] && pass || { sed 's/^/    | /' "$T/base"; fail "$bad"; }

begin "each base-mode row's p50, p99 and ratios are its own samples'"
u=`json_figure unexec start_ms`
p=`json_figure pdump start_ms`
bad=
for m in pdump $base_rows; do
  med=`json_figure $m start_ms`
  p99=`json_p99 $m`
  want=`awk -v m="$med" -v t="$p99" -v u="$u" -v p="$p" \
    'BEGIN { printf "%.2f %.2f %.2fx %.2fx %.2fx", m, t, t / m, m / u, m / p }'`
  got=`awk -v m=$m '$1 == 1 && $2 == m { print $6, $7, $8, $9, $10 }' "$T/base"`
  [ -n "$med" ] && [ -n "$p99" ] && [ "$got" = "$want" ] || bad="$bad $m: \`$got', want \`$want';"
done
# Each row's figures are its own: pdump-fixed's start-up samples are not
# pdump's (the same numbers in every one of 3 runs would be a copy).
[ "`json_figure pdump-fixed start_ms`" != "$p" ] || bad="$bad pdump-fixed has pdump's median;"
[ -z "$bad" ] && pass || fail "$bad"

begin "the memory section: a row per mode, one sample per process, ratios to unexec"
sed -n '/^memory per process, 4 processes/,/^private dirty:/p' "$T/out" > "$T/mem"
u_dirty=`json_figure unexec mem_private_dirty_kb`
u_pss=`json_figure unexec mem_pss_kb`
bad=
for m in cold unexec pdump $base_rows embedded; do
  d=`json_figure $m mem_private_dirty_kb`
  s=`json_figure $m mem_pss_kb`
  n=`sed -n "/\"$m\": {\$/,/^        }/p" "$T/r.json" | grep -c '"mem_\(private_dirty\|pss\)_kb": {.*"n": 4}'`
  want=`awk -v d="$d" -v s="$s" -v u="$u_dirty" -v v="$u_pss" \
    'BEGIN { printf "%.0f %.2fx %.2fx", d, d / u, s / v }'`
  got=`awk -v m=$m '$1 == 1 && $2 == m { print $3, $(NF - 1), $NF }' "$T/mem"`
  [ -n "$d" ] && [ "$n" -eq 2 ] && [ "$got" = "$want" ] || bad="$bad $m: \`$got', want \`$want' ($n figures of 4 processes);"
done
# The point of the base modes but random: the hot pages stay shared, so
# a process dirties less than a random one (when it got its base).
rd=`json_figure pdump mem_private_dirty_kb`
for m in $base_rows; do
  d=`json_figure $m mem_private_dirty_kb`
  if [ "`place \`row_mode $m\``" != fallback ] && [ -n "$d" ] && [ -n "$rd" ] && [ "$d" -ge "$rd" ]
  then bad="$bad $m dirties $d KiB, pdump $rd KiB;"; fi
done
[ -z "$bad" ] && pass || { sed 's/^/    | /' "$T/mem"; fail "$bad"; }

begin "the pdump relocation count is the loader's"
# The pdump row is base mode random (the host's default is boot).
relocs=`DUMPER_PDUMP_BASE=random "$PDUMPER_DIR/host/dlisp" --dump-file="$W/scale-1/image.pdmp" --stats --batch \
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
