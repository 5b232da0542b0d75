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
INSPECT_LIBS = $(BFD_LIBS) $(ELF_LIBS) $(XXHASH_LIBS)

BIN_PROGRAMS += tools/dumper-inspect
MAN1 += doc/man/dumper-inspect.1

$(INSPECT_CORE_OBJS) tools/inspect/main.o $(PDUMP_FORMAT_OBJS): config.h \
	$(GENERATED_HEADERS)

tools/dumper-inspect: tools/inspect/main.o $(INSPECT_CORE_OBJS) $(PDUMP_FORMAT_OBJS) $(TOOL_CLI_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ tools/inspect/main.o $(INSPECT_CORE_OBJS) $(TOOL_CLI_OBJS) \
	  $(PDUMP_FORMAT_OBJS) libdumper.a $(INSPECT_LIBS) $(LIB_DEPLIBS)

# ------------------------------------------------------------------
# Tests.  tests/fuzz/replay runs the fuzz target over the committed
# seed corpus (a CHECK_PROGRAM, so check-valgrind runs it too).

CHECK_PROGRAMS += tests/inspect/test_inspect tests/fuzz/replay
CHECK_SCRIPTS += tests/inspect/inspect.sh tests/inspect/views.sh

tests/inspect/test_inspect.o tests/fuzz/replay.o tests/fuzz/fuzz_image.o: \
	config.h $(GENERATED_HEADERS)
tests/inspect/test_inspect.o: ALL_CFLAGS += $(CMOCKA_CFLAGS)
tests/fuzz/replay.o: ALL_CPPFLAGS += \
	-DFUZZ_CORPUS_DIR='"$(abspath $(srcdir))/tests/fuzz/corpus"'

tests/inspect/test_inspect: tests/inspect/test_inspect.o $(INSPECT_CORE_OBJS) \
	  $(PDUMP_FORMAT_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ tests/inspect/test_inspect.o $(INSPECT_CORE_OBJS) \
	  $(PDUMP_FORMAT_OBJS) libdumper.a $(CMOCKA_LIBS) $(INSPECT_LIBS) $(LIB_DEPLIBS)

tests/fuzz/replay: tests/fuzz/replay.o tests/fuzz/fuzz_image.o \
	  $(INSPECT_CORE_OBJS) $(PDUMP_FORMAT_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ tests/fuzz/replay.o tests/fuzz/fuzz_image.o \
	  $(INSPECT_CORE_OBJS) $(PDUMP_FORMAT_OBJS) libdumper.a $(INSPECT_LIBS) \
	  $(LIB_DEPLIBS)

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
FUZZ_SRCS = $(INSPECT_CORE_SRCS) pdump/check.c pdump/exe.c \
	tests/fuzz/fuzz_image.c
FUZZ_OBJS = $(addprefix tests/fuzz/build/,$(FUZZ_SRCS:.c=.o))
CLEANFILES += tests/fuzz/fuzz_image

tests/fuzz/build/%.o: %.c config.h $(GENERATED_HEADERS)
	@$(MKDIR_P) $(@D)
	$(FUZZ_CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN_CFLAGS) -g -O1 \
	  -fsanitize=fuzzer-no-link $(FUZZ_SANITIZE) -c -o $@ $<

tests/fuzz/fuzz_image: $(FUZZ_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SANITIZE) -o $@ $(FUZZ_OBJS) \
	  $(INSPECT_LIBS)

fuzz: tests/fuzz/fuzz_image

fuzz-run: tests/fuzz/fuzz_image
	rm -rf tests/fuzz/work
	$(MKDIR_P) tests/fuzz/work/corpus tests/fuzz/work/crashes
	cp $(srcdir)/tests/fuzz/corpus/* tests/fuzz/work/corpus/
	./tests/fuzz/fuzz_image -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	  -artifact_prefix=tests/fuzz/work/crashes/ -print_final_stats=1 \
	  tests/fuzz/work/corpus

.PHONY: fuzz fuzz-run
