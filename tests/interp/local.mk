# SPDX-License-Identifier: MIT
# tests/interp/local.mk: the interpreter-shaped test host (issue 30),
# built like a real host in every back end (non-PIE and libdumper.a
# under unexec: HOST_LDFLAGS), and its tests.

NOINST_PROGRAMS += tests/interp/interp
CHECK_SCRIPTS += tests/interp/interp.sh tests/interp/refuse.sh

tests/interp/interp.o: config.h $(GENERATED_HEADERS) $(srcdir)/tests/interp/interp.h

tests/interp/interp: tests/interp/interp.o libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ tests/interp/interp.o libdumper.a $(LIB_DEPLIBS)
	$(FINGERPRINT) -q $@
