# SPDX-License-Identifier: MIT
# tools/compare/local.mk: dumper-compare (issue 6), `make compare', and
# the tool's tests.
#
# The tool builds in every mode: it only runs hosts and reads what they
# print.  `make compare' runs it across this build directory and builds
# of the other two modes (doc/compare.md, "make compare"):
#   make compare                          scales 1 4 16, 7 runs
#   make compare COMPARE_SCALES=1 COMPARE_RUNS=3
#   make compare COMPARE_BASELINE=old.json
#   make compare COMPARE_NONE=DIR COMPARE_UNEXEC=DIR COMPARE_PDUMPER=DIR
# Without COMPARE_<MODE>, each mode's build is this directory, a sibling
# (build/pdumper -> build/none; test-MODE; MODE), or one configured and
# built here under compare-builds/MODE (tools/compare/builds.sh).

COMPARE_SRCS = tools/compare/baseline.c tools/compare/heapdiff.c \
	tools/compare/host.c tools/compare/json.c tools/compare/measure.c tools/compare/memory.c \
	tools/compare/options.c tools/compare/plot.c tools/compare/spawn.c \
	tools/compare/stats.c tools/compare/table.c tools/compare/util.c \
	tools/common/xalloc.c tools/common/cli.c common/clock.c
COMPARE_OBJS = $(COMPARE_SRCS:.c=.o)

BIN_PROGRAMS += tools/dumper-compare
MAN1 += doc/man/dumper-compare.1

$(COMPARE_OBJS) tools/compare/main.o: config.h

tools/dumper-compare: tools/compare/main.o $(COMPARE_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ tools/compare/main.o $(COMPARE_OBJS)

COMPARE_SCALES = 1 4 16
COMPARE_RUNS = 7
COMPARE_JSON = compare.json
COMPARE_PLOT = $(if $(GNUPLOT),compare.png)
COMPARE_BASELINE =
COMPARE_FLAGS =
COMPARE_NONE =
COMPARE_UNEXEC =
COMPARE_PDUMPER =
COMPARE_BUILDS = $(SHELL) $(srcdir)/tools/compare/builds.sh $(srcdir) .

compare: tools/dumper-compare
	@none="$(COMPARE_NONE)"; unexec="$(COMPARE_UNEXEC)"; pdumper="$(COMPARE_PDUMPER)"; \
	test -n "$$none" || none=`$(COMPARE_BUILDS) none compare-builds/none` || exit 1; \
	test -n "$$unexec" || unexec=`$(COMPARE_BUILDS) unexec compare-builds/unexec` || exit 1; \
	test -n "$$pdumper" || pdumper=`$(COMPARE_BUILDS) pdumper compare-builds/pdumper` || exit 1; \
	echo "dumper-compare --none $$none --unexec $$unexec --pdumper $$pdumper"; \
	GNUPLOT="$(GNUPLOT)" ./tools/dumper-compare --none "$$none" --unexec "$$unexec" \
	  --pdumper "$$pdumper" $(addprefix --scale ,$(COMPARE_SCALES)) \
	  --runs $(COMPARE_RUNS) $(if $(COMPARE_JSON),--json $(COMPARE_JSON)) \
	  $(if $(COMPARE_PLOT),--plot $(COMPARE_PLOT)) \
	  $(if $(COMPARE_BASELINE),--baseline $(COMPARE_BASELINE)) $(COMPARE_FLAGS)

CLEANFILES += compare.json compare.png

# ------------------------------------------------------------------
# Tests.  tests/compare/test_compare: unit tests of the heap-dump
# divergence, the JSON reader and the statistics.  The scripts run the
# tool end to end on the three modes and on a deliberately broken host:
# dlisp built with DLISP_TEST_FORGET_SCALAR (host/env.c), whose pdump
# starts run the loadup a second time.  `make check-compare' runs only
# these.

COMPARE_TEST_SCRIPTS = tests/compare/cli.sh tests/compare/compare.sh \
	tests/compare/broken.sh tests/compare/base-modes.sh
CHECK_PROGRAMS += tests/compare/test_compare
CHECK_SCRIPTS += $(COMPARE_TEST_SCRIPTS)

tests/compare/test_compare.o: config.h
tests/compare/test_compare.o: ALL_CFLAGS += $(CMOCKA_CFLAGS)
tests/compare/test_compare.o: ALL_CPPFLAGS += -I$(srcdir)/tools/compare
tests/compare/test_compare: tests/compare/test_compare.o $(COMPARE_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ tests/compare/test_compare.o $(COMPARE_OBJS) $(CMOCKA_LIBS)

# The broken host.  Its other objects are the host's own (HOST_OBJS,
# defined later, is only read when the recipe runs).
tests/compare/env-forgetful.o: host/env.c config.h $(GENERATED_HEADERS)
	@$(MKDIR_P) $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -DDLISP_TEST_FORGET_SCALAR -MMD -MP -c -o $@ $<
tests/compare/dlisp-forgetful: host/dlisp-bare tests/compare/env-forgetful.o
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ $(filter-out host/env.o,$(HOST_OBJS)) \
	  tests/compare/env-forgetful.o $(HOST_LINK_LIBS)
	$(FINGERPRINT) -q $@
CLEANFILES += tests/compare/dlisp-forgetful

ifeq ($(BACKEND),pdumper)
check: tests/compare/dlisp-forgetful
endif

check-compare: all tests/compare/test_compare
	@BUILDDIR=`pwd` SRCDIR=`cd $(srcdir) && pwd` BACKEND=$(BACKEND) \
	  ENABLE_SANITIZERS=$(ENABLE_SANITIZERS) \
	  $(SHELL) $(srcdir)/tests/run-tests tests/compare/test_compare \
	  $(addprefix $(srcdir)/,$(COMPARE_TEST_SCRIPTS))

.PHONY: compare check-compare
