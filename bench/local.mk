# SPDX-License-Identifier: MIT
# bench/local.mk: benchmarks.  `make bench' runs them all; each prints
# medians measured side by side in one run.
#
# bench-compare: every mode side by side -- cold start, unexec, pdump
# (a row per base mode: random, fixed): start-up with its p99, dumps,
# sizes, memory, faults, the pdump loader's split and its physical
# floor, the cost of the heap digest, and at scales 1 and 4 private dirty
# and PSS per process with 16 processes of a mode at once -- by
# dumper-compare through `make compare' (doc/compare.md), at scales 1,
# 4, 16 and 64 where memory allows (bench/scales.sh).  Results also in
# bench-compare.json and, with gnuplot, bench-compare.png.
# bench-verify: the cost of structural verification of an image against
# the load itself at the same scales (bench/verify-cost.sh, issue 20);
# pdumper builds.
# bench-dump-scale: this build's dump at scales 1, 4, 16 and 64 where
# memory allows: write ms per MiB with its ratio to scale 1, the dumping
# run's peak RSS against cold RSS + 1.25 x the file, and the external
# anchor (bench/dump-scale.sh, issue 17); pdumper and unexec builds.
# bench-cold-start: cold start of dlisp at loadup scales 1, 4 and 16,
# with heap size and object count (bench/cold-start.sh); needs only this
# build.
# bench-compress: compressed and plain pdump images side by side (size,
# dump time, warm and slow-storage load) at scales 1, 4 and 16 with
# none, lz4 (LZ4HC level 3), lz4:1 and zstd levels 1, 3 and 19, then the
# warm loads' phases (bench/compress.sh, the tables in doc/format.md);
# pdumper builds.
# bench-relocate: base mode random's relocation at scales 1, 4 and 16:
# ns per relocated word, p50, p99 and p99/p50 of the start and of the
# relocate phase (bench/relocate-cost.sh, issue 33 item 3); pdumper
# builds.  RELOCATE_BEFORE=DIR adds another build's rows, interleaved.

BENCH_RUNS = 7

bench: bench-compare bench-cold-start \
	$(if $(filter pdumper,$(BACKEND)),bench-verify bench-compress bench-relocate) \
	$(if $(filter none,$(BACKEND)),,bench-dump-scale)

bench-compress: host/dlisp
	@RUNS=$(BENCH_RUNS) CC="$(CC)" $(SHELL) $(srcdir)/bench/compress.sh `pwd`

bench-compare: tools/dumper-compare
	@$(MAKE) --no-print-directory compare COMPARE_RUNS=$(BENCH_RUNS) \
	  COMPARE_SCALES="`$(SHELL) $(srcdir)/bench/scales.sh`" \
	  COMPARE_JSON=bench-compare.json \
	  COMPARE_PLOT=$(if $(GNUPLOT),bench-compare.png)

bench-cold-start: host/dlisp
	@BUILDDIR=`pwd` $(SHELL) $(srcdir)/bench/cold-start.sh $(BENCH_RUNS)

bench-dump-scale: host/dlisp-bare
	@$(SHELL) $(srcdir)/bench/dump-scale.sh $(BENCH_RUNS) .

bench-relocate: host/dlisp
	@RUNS=50 bash $(srcdir)/bench/relocate-cost.sh . $(RELOCATE_BEFORE)

bench-verify: host/dlisp
	@BUILDDIR=`pwd` $(SHELL) $(srcdir)/bench/verify-cost.sh $(BENCH_RUNS)

CLEANFILES += bench-compare.json bench-compare.png

.PHONY: bench bench-compare bench-cold-start bench-dump-scale bench-verify \
	bench-compress bench-relocate
