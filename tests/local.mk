# SPDX-License-Identifier: MIT
# tests/local.mk: the bridge's unit tests and the foundation's
# end-to-end scripts.  Other parts register their own tests in their
# own local.mk.

BRIDGE_TESTS = tests/unit/test_args tests/unit/test_startup \
	tests/unit/test_registry tests/unit/test_addrmap tests/unit/test_blockset \
	tests/unit/test_zmem tests/unit/test_bounds tests/unit/test_os \
	tests/unit/test_layout
CHECK_PROGRAMS += $(BRIDGE_TESTS)
NOINST_PROGRAMS += tests/unit/flagprobe
CHECK_SCRIPTS += tests/e2e/fingerprint.sh tests/e2e/build.sh tests/e2e/exports.sh \
	tests/e2e/refuse.sh tests/e2e/by-header.sh tests/e2e/codetable.sh \
	tests/e2e/sized.sh tests/e2e/layout.sh

TEST_CFLAGS = $(CMOCKA_CFLAGS)
TEST_LIBS = libdumper.a $(CMOCKA_LIBS) $(LIB_DEPLIBS)

tests/unit/%.o: ALL_CFLAGS += $(TEST_CFLAGS)

$(BRIDGE_TESTS): %: %.o libdumper.a
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ $< $(TEST_LIBS)

tests/unit/flagprobe: tests/unit/flagprobe.o libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ tests/unit/flagprobe.o $(TEST_LIBS)
	$(FINGERPRINT) -q $@

tests/unit/test_startup: tests/unit/flagprobe

$(BRIDGE_TESTS:=.o) tests/unit/flagprobe.o: config.h $(GENERATED_HEADERS)

# Images of the other word size (issue 19): skipped in `make check'
# unless DUMPER_OTHER_BUILD names a pdumper build of the other word
# size; `make check-cross-word DUMPER_OTHER_BUILD=DIR' runs it alone and
# fails without one (scripts/test-arch i386 runs it).
CHECK_SCRIPTS += tests/e2e/cross-word.sh
check-cross-word: all
	@BUILDDIR=`pwd` SRCDIR=`cd $(srcdir) && pwd` BACKEND=$(BACKEND) \
	  DUMPER_OTHER_BUILD="$(DUMPER_OTHER_BUILD)" DUMPER_CROSS_WORD_REQUIRED=1 \
	  $(SHELL) $(srcdir)/tests/run-tests $(srcdir)/tests/e2e/cross-word.sh
.PHONY: check-cross-word

# The writers' atomic output, watched by an LD_PRELOAD probe.  The probe
# is built without the sanitizers (it must not need their runtime).
CHECK_SCRIPTS += tests/e2e/atomic.sh
check: tests/e2e/probe.so
tests/e2e/probe.so: tests/e2e/probe.c
	@$(MKDIR_P) $(@D)
	$(CC) -shared -fPIC $(WARN_CFLAGS) $(CFLAGS) -o $@ $< -ldl
CLEANFILES += tests/e2e/probe.so
