# SPDX-License-Identifier: MIT
# host/local.mk: the reference host (dlisp) and its tests.
#
# host/dlisp-bare is the undumped program; host/dlisp is what users run:
#   pdumper  a copy of dlisp-bare, with the image host/dlisp.pdmp beside
#            it, written by `dlisp-bare --temacs=pdump'
#   unexec   the executable written by `dlisp-bare --temacs=dump'
#   none     a copy of dlisp-bare: every start is a cold start
# Both link libdumper.a statically with $(HOST_LDFLAGS) (-no-pie in
# unexec builds) and are stamped with their build fingerprint.
# DLISP_DUMP_FLAGS may add host options to the dump step, for example
# DLISP_DUMP_FLAGS='--loadup-scale 4'.

HOST_LIB_SRCS = host/alloc.c host/builtins.c host/data.c host/digest.c \
	host/env.c host/eval.c host/gc.c host/hash.c host/io.c host/list.c \
	host/print.c host/read.c host/runtime.c host/string.c host/symbol.c \
	host/types.c
HOST_LIB_OBJS = $(HOST_LIB_SRCS:.c=.o)
HOST_OBJS = $(HOST_LIB_OBJS) host/main.o
HOST_LINK_LIBS = libdumper.a $(LIB_DEPLIBS) -lm

NOINST_PROGRAMS += host/dlisp-bare host/dlisp
MAN1 += doc/man/dlisp.1

# The lisp directory: the source tree's by default, the installed one
# when the source tree is gone.  Neither ever enters the heap.
host/main.o: ALL_CPPFLAGS += \
	-DDLISP_SRC_LISPDIR='"$(abspath $(srcdir))/host/lisp"' \
	-DDLISP_INSTALLED_LISPDIR='"$(datadir)/dumper/lisp"'

$(HOST_OBJS): config.h $(GENERATED_HEADERS)

host/dlisp-bare: $(HOST_OBJS) libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ $(HOST_OBJS) $(HOST_LINK_LIBS)
	$(FINGERPRINT) -q $@

DLISP_DUMP_FLAGS =

ifeq ($(BACKEND),pdumper)
host/dlisp.pdmp: host/dlisp-bare
	./host/dlisp-bare $(DLISP_DUMP_FLAGS) --temacs=pdump --output $@
host/dlisp: host/dlisp-bare host/dlisp.pdmp
	cp host/dlisp-bare $@
CLEANFILES += host/dlisp.pdmp
else ifeq ($(BACKEND),unexec)
host/dlisp: host/dlisp-bare
	./host/dlisp-bare $(DLISP_DUMP_FLAGS) --temacs=dump --output $@
else
host/dlisp: host/dlisp-bare
	cp host/dlisp-bare $@
endif

# ------------------------------------------------------------------
# Tests: cmocka programs linked with every host object except main.

HOST_TESTS = tests/host/test_reader tests/host/test_eval tests/host/test_gc \
	tests/host/test_hash tests/host/test_digest
CHECK_PROGRAMS += $(HOST_TESTS)
CHECK_SCRIPTS += tests/host/dlisp-cli.sh tests/host/dlisp-batch.sh \
	tests/host/dlisp-digest.sh tests/host/dlisp-dump.sh tests/host/moved.sh

tests/host/%.o: ALL_CFLAGS += $(CMOCKA_CFLAGS)
tests/host/%.o: ALL_CPPFLAGS += -I$(srcdir)/host
$(HOST_TESTS:=.o) tests/host/harness.o: config.h $(GENERATED_HEADERS)

$(HOST_TESTS): %: %.o tests/host/harness.o $(HOST_LIB_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ $< tests/host/harness.o \
	  $(HOST_LIB_OBJS) $(CMOCKA_LIBS) $(HOST_LINK_LIBS)

# ------------------------------------------------------------------
# Installation: the program, its image when one was made, and the lisp
# directory (a cold start needs it: every start in a `none' build, a
# pdumper build without its image).

install-host:
	$(MKDIR_P) $(DESTDIR)$(bindir) $(DESTDIR)$(datadir)/dumper/lisp
	$(INSTALL_PROGRAM) host/dlisp $(DESTDIR)$(bindir)/dlisp
	if test -f host/dlisp.pdmp; then \
	  $(MKDIR_P) $(DESTDIR)$(imagedir) && \
	  $(INSTALL_DATA) host/dlisp.pdmp $(DESTDIR)$(imagedir)/dlisp.pdmp; fi
	for f in $(srcdir)/host/lisp/*.lisp; do \
	  $(INSTALL_DATA) $$f $(DESTDIR)$(datadir)/dumper/lisp/ || exit 1; done

uninstall-host:
	rm -f $(DESTDIR)$(bindir)/dlisp $(DESTDIR)$(imagedir)/dlisp.pdmp
	rm -f $(DESTDIR)$(datadir)/dumper/lisp/*.lisp
	-rmdir $(DESTDIR)$(datadir)/dumper/lisp $(DESTDIR)$(datadir)/dumper
