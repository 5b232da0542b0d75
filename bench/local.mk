# bench/local.mk: benchmarks.  `make bench' runs them all; each prints
# medians measured side by side in one run (see the scripts).
#
# bench-cold-start: cold start of dlisp at loadup scales 1, 4 and 16,
# with heap size and object count (bench/cold-start.sh).

BENCH_RUNS = 7

bench: bench-cold-start

bench-cold-start: host/dlisp
	@BUILDDIR=`pwd` $(SHELL) $(srcdir)/bench/cold-start.sh $(BENCH_RUNS)

.PHONY: bench bench-cold-start
