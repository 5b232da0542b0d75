# SPDX-License-Identifier: MIT
# tools/inspect/local.mk: dumper-inspect (issue 8) and the image fuzz targets.
#
# The inspector builds in every mode: it links the image format checks
# ($(PDUMP_FORMAT_OBJS), which compile in any build) and takes
# dumper_strerror and dumper_exit_status from libdumper.a.  Everything
# but main.c also goes into the fuzz targets (tests/fuzz/).

INSPECT_CORE_SRCS = tools/inspect/image.c tools/inspect/tables.c \
	tools/inspect/graph.c tools/inspect/out.c tools/inspect/summary.c \
	tools/inspect/exerefs.c tools/inspect/objects.c tools/inspect/refs.c \
	tools/inspect/exefile.c tools/inspect/symbols.c
INSPECT_CORE_OBJS = $(INSPECT_CORE_SRCS:.c=.o)
INSPECT_LIBS = $(BFD_LIBS) $(ELF_LIBS) $(XXHASH_LIBS) $(CODEC_LIBS)

BIN_PROGRAMS += tools/dumper-inspect
INSPECT_MAIN_OBJS = tools/inspect/main.o tools/inspect/deep.o
MAN1 += doc/man/dumper-inspect.1

$(INSPECT_CORE_OBJS) $(INSPECT_MAIN_OBJS) $(PDUMP_FORMAT_OBJS): config.h \
	$(GENERATED_HEADERS)

tools/dumper-inspect: $(INSPECT_MAIN_OBJS) $(INSPECT_CORE_OBJS) $(PDUMP_FORMAT_OBJS) $(TOOL_CLI_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(INSPECT_MAIN_OBJS) $(INSPECT_CORE_OBJS) $(TOOL_CLI_OBJS) \
	  $(PDUMP_FORMAT_OBJS) libdumper.a $(INSPECT_LIBS) $(LIB_DEPLIBS)

# ------------------------------------------------------------------
# Tests.  tests/fuzz/replay runs the fuzz target over the committed
# seed corpus (a CHECK_PROGRAM, so check-valgrind runs it too).

CHECK_PROGRAMS += tests/inspect/test_inspect tests/fuzz/replay
CHECK_SCRIPTS += tests/inspect/inspect.sh tests/inspect/views.sh tests/inspect/deep.sh

tests/inspect/test_inspect.o tests/fuzz/replay.o tests/fuzz/fuzz_image.o: \
	config.h $(GENERATED_HEADERS)
tests/inspect/test_inspect.o: ALL_CFLAGS += $(CMOCKA_CFLAGS)
tests/fuzz/replay.o: ALL_CPPFLAGS += \
	-DFUZZ_CORPUS_DIR='"$(abspath $(srcdir))/tests/fuzz/corpus"'

tests/inspect/test_inspect: tests/inspect/test_inspect.o $(INSPECT_CORE_OBJS) \
	  $(PDUMP_FORMAT_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ tests/inspect/test_inspect.o $(INSPECT_CORE_OBJS) \
	  $(PDUMP_FORMAT_OBJS) libdumper.a $(CMOCKA_LIBS) $(INSPECT_LIBS) $(LIB_DEPLIBS)

# In pdumper builds the replay also drives the real loader (fuzz_load.c).
ifeq ($(BACKEND),pdumper)
REPLAY_LOADER_OBJS = tests/fuzz/fuzz_load.o
tests/fuzz/replay.o: ALL_CPPFLAGS += -DFUZZ_WITH_LOADER=1
endif
tests/fuzz/fuzz_load.o: config.h $(GENERATED_HEADERS)

tests/fuzz/replay: tests/fuzz/replay.o tests/fuzz/fuzz_image.o \
	  tests/fuzz/reseal.o $(REPLAY_LOADER_OBJS) $(INSPECT_CORE_OBJS) \
	  $(PDUMP_FORMAT_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ tests/fuzz/replay.o tests/fuzz/fuzz_image.o \
	  tests/fuzz/reseal.o $(REPLAY_LOADER_OBJS) $(INSPECT_CORE_OBJS) \
	  $(PDUMP_FORMAT_OBJS) libdumper.a $(INSPECT_LIBS) $(LIB_DEPLIBS)

# The resealing mutator and the corruption campaign (issue 20): a short
# run in `make check' (tests/fuzz/campaign.sh), a long one in
# `make campaign-run' (also part of `make fuzz-run').
NOINST_PROGRAMS += tests/fuzz/mutate
CHECK_SCRIPTS += tests/fuzz/campaign.sh
tests/fuzz/mutate.o tests/fuzz/reseal.o: config.h $(GENERATED_HEADERS)
tests/fuzz/mutate: tests/fuzz/mutate.o tests/fuzz/reseal.o pdump/codec.o pdump/exe.o \
	pdump/check.o common/codetargets.o common/os.o
	$(CC) $(ALL_LDFLAGS) -o $@ tests/fuzz/mutate.o tests/fuzz/reseal.o \
	  pdump/codec.o pdump/check.o pdump/exe.o common/codetargets.o common/os.o \
	  $(XXHASH_LIBS) $(CODEC_LIBS)

CAMPAIGN_COUNT = 300
CAMPAIGN_MODES = none structure default
campaign-run: tests/fuzz/mutate tests/pdump/toyhost host/dlisp
	@for host in toyhost dlisp; do for mode in $(CAMPAIGN_MODES); do \
	  echo "== $$host, verify=$$mode, $(CAMPAIGN_COUNT) mutants per kind"; \
	  echo "kind mode mutants right differs refused refused86 wrong crash hang"; \
	  $(SHELL) $(srcdir)/tests/fuzz/campaign-run.sh `pwd` $$host $$mode \
	    $(CAMPAIGN_COUNT) 1000; \
	done; done

# The e2e scripts run the inspector and the pdump test host.
check: tools/dumper-inspect

# ------------------------------------------------------------------
# libFuzzer (doc/inspect.md, "Fuzzing").  Not part of `all' or `check':
# it needs clang and its fuzzer runtime (Debian: clang-14 and
# libclang-rt-14-dev).  The objects get their own directory, built with
# the fuzzer's instrumentation and the address and undefined-behaviour
# sanitizers.
#   make fuzz                       build tests/fuzz/fuzz_image
#   make fuzz-run FUZZ_SECONDS=300  fuzz a scratch copy of the seed
#                                   corpus; crashes land in
#                                   tests/fuzz/work/crashes/

FUZZ_CC = clang
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SECONDS = 300
FUZZ_SRCS = $(INSPECT_CORE_SRCS) common/atomic.c common/clock.c common/codetargets.c common/elfnote.c common/os.c common/zmem.c pdump/check.c pdump/codec.c pdump/embed.c pdump/exe.c pdump/verify.c \
	tests/fuzz/fuzz_image.c tests/fuzz/reseal.c
FUZZ_OBJS = $(addprefix tests/fuzz/build/,$(FUZZ_SRCS:.c=.o))
FUZZ_TARGETS = tests/fuzz/fuzz_image
# The real loader's target needs the loader: pdumper builds only.
FUZZ_LOAD_SRCS = pdump/load.c pdump/loadcheck.c pdump/place.c pdump/restore.c \
	pdump/testhooks.c pdump/gc.c pdump/stats.c tests/fuzz/fuzz_load.c \
	tests/fuzz/target_load.c
FUZZ_LOAD_OBJS = $(addprefix tests/fuzz/build/,$(FUZZ_LOAD_SRCS:.c=.o))
ifeq ($(BACKEND),pdumper)
FUZZ_TARGETS += tests/fuzz/fuzz_load
endif
CLEANFILES += tests/fuzz/fuzz_image tests/fuzz/fuzz_load

tests/fuzz/build/%.o: %.c config.h $(GENERATED_HEADERS)
	@$(MKDIR_P) $(@D)
	$(FUZZ_CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN_CFLAGS) -g -O1 \
	  -fsanitize=fuzzer-no-link $(FUZZ_SANITIZE) -MMD -MP -c -o $@ $<

tests/fuzz/fuzz_image: $(FUZZ_OBJS) tests/fuzz/build/tests/fuzz/target_image.o
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SANITIZE) -o $@ $(FUZZ_OBJS) \
	  tests/fuzz/build/tests/fuzz/target_image.o $(INSPECT_LIBS) $(LIB_DEPLIBS)

tests/fuzz/fuzz_load: $(FUZZ_OBJS) $(FUZZ_LOAD_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SANITIZE) -o $@ $(FUZZ_OBJS) \
	  $(FUZZ_LOAD_OBJS) libdumper.a $(INSPECT_LIBS) $(LIB_DEPLIBS)

fuzz: $(FUZZ_TARGETS)

# Each target fuzzes a scratch copy of the seed corpus for FUZZ_SECONDS;
# then the resealed-mutant campaign runs in both modes.
fuzz-run: $(FUZZ_TARGETS)
	rm -rf tests/fuzz/work
	for t in $(notdir $(FUZZ_TARGETS)); do \
	  $(MKDIR_P) tests/fuzz/work/$$t/corpus tests/fuzz/work/$$t/crashes || exit 1; \
	  cp $(srcdir)/tests/fuzz/corpus/* tests/fuzz/work/$$t/corpus/ || exit 1; \
	  ./tests/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -artifact_prefix=tests/fuzz/work/$$t/crashes/ -print_final_stats=1 \
	    tests/fuzz/work/$$t/corpus || exit 1; \
	done
ifeq ($(BACKEND),pdumper)
	$(MAKE) --no-print-directory campaign-run
endif

# A bounded run for CI (scripts/test-all): each target for FUZZ_SECONDS
# (default 30 here) on a scratch copy of the seed corpus; any crash,
# leak or sanitizer report fails it.  No campaign.
fuzz-check: $(FUZZ_TARGETS)
	rm -rf tests/fuzz/work-check
	for t in $(notdir $(FUZZ_TARGETS)); do \
	  $(MKDIR_P) tests/fuzz/work-check/$$t/corpus tests/fuzz/work-check/$$t/crashes || exit 1; \
	  cp $(srcdir)/tests/fuzz/corpus/* tests/fuzz/work-check/$$t/corpus/ || exit 1; \
	  ./tests/fuzz/$$t -max_total_time=$(FUZZ_CHECK_SECONDS) -max_len=65536 \
	    -artifact_prefix=tests/fuzz/work-check/$$t/crashes/ -print_final_stats=1 \
	    tests/fuzz/work-check/$$t/corpus > tests/fuzz/work-check/$$t.log 2>&1 \
	    || { tail -60 tests/fuzz/work-check/$$t.log; exit 1; }; \
	  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)' tests/fuzz/work-check/$$t.log \
	    | sed "s/^/$$t: /"; \
	done
FUZZ_CHECK_SECONDS = 30

.PHONY: fuzz fuzz-run fuzz-check campaign-run
