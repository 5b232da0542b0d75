# bench/local.mk: benchmarks.
