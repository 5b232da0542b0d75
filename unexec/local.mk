# SPDX-License-Identifier: MIT
# unexec/local.mk: the legacy back end, part of libdumper in unexec builds.

# Emacs's unexec () is declared in a public header of its own, installed
# only where it is defined.
ifeq ($(WITH_UNEXEC),1)
PUBLIC_HEADERS += include/dumper/unexec-compat.h
endif

UNEXEC_SRCS = unexec/arena.c unexec/emit.c unexec/host.c unexec/input.c \
	unexec/layout.c unexec/plan.c unexec/scan.c unexec/upper.c unexec/write.c
LIB_SRCS_unexec += $(UNEXEC_SRCS) unexec/space.S

# ------------------------------------------------------------------
# Tests.  The allocator's unit test builds arena.c with a small arena of
# its own, so it runs (fast, and under valgrind) in every build.  The
# writer's unit test links the writer into a non-PIE test program that
# dumps itself; it reports SKIPPED outside unexec builds.  The
# end-to-end script drives tests/unexec/minihost, a host linked like a
# real unexec host: non-PIE, libdumper.a, stamped fingerprint.

UNEXEC_TEST_OBJS = tests/unexec/test_arena.o tests/unexec/test_writer.o \
	tests/unexec/test_input.o tests/unexec/arena-small.o tests/unexec/minihost.o \
	tests/unexec/compat.o
UNEXEC_WRITER_OBJS = $(filter-out unexec/arena.o,$(UNEXEC_SRCS:.c=.o)) \
	$(COMMON_OBJS)

CHECK_PROGRAMS += tests/unexec/test_arena tests/unexec/test_writer \
	tests/unexec/test_input
CHECK_SCRIPTS += tests/unexec/e2e.sh tests/unexec/nobits.sh \
	tests/unexec/compat.sh
CLEANFILES += tests/unexec/minihost tests/unexec/minihost-pie \
	tests/unexec/compat

$(UNEXEC_TEST_OBJS) $(UNEXEC_SRCS:.c=.o): config.h $(GENERATED_HEADERS)
tests/unexec/test_arena.o tests/unexec/test_writer.o tests/unexec/test_input.o: \
	ALL_CPPFLAGS += $(CMOCKA_CFLAGS)

# The allocator and its storage with a 4 MiB arena.
ARENA_SMALL_OBJS = tests/unexec/arena-small.o tests/unexec/space-small.o
tests/unexec/arena-small.o: unexec/arena.c
	@$(MKDIR_P) $(@D)
	$(CC) $(ALL_CPPFLAGS) -DUNEXEC_ARENA_MIB=4 $(ALL_CFLAGS) -MMD -MP -c -o $@ $<
tests/unexec/space-small.o: unexec/space.S config.h
	@$(MKDIR_P) $(@D)
	$(CC) $(ALL_CPPFLAGS) -DUNEXEC_ARENA_MIB=4 -MMD -MP -c -o $@ $<

tests/unexec/test_arena: tests/unexec/test_arena.o $(ARENA_SMALL_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ tests/unexec/test_arena.o \
	  $(ARENA_SMALL_OBJS) $(CMOCKA_LIBS)

tests/unexec/test_writer: tests/unexec/test_writer.o \
		$(ARENA_SMALL_OBJS) $(UNEXEC_WRITER_OBJS)
	$(CC) $(ALL_LDFLAGS) -no-pie -o $@ tests/unexec/test_writer.o \
	  $(ARENA_SMALL_OBJS) $(UNEXEC_WRITER_OBJS) $(ELF_LIBS) \
	  $(XXHASH_LIBS) $(CMOCKA_LIBS)

# The writer's refusals of damaged input executables (copies of itself).
tests/unexec/test_input: tests/unexec/test_input.o \
		$(ARENA_SMALL_OBJS) $(UNEXEC_WRITER_OBJS)
	$(CC) $(ALL_LDFLAGS) -no-pie -o $@ tests/unexec/test_input.o \
	  $(ARENA_SMALL_OBJS) $(UNEXEC_WRITER_OBJS) $(ELF_LIBS) \
	  $(XXHASH_LIBS) $(CMOCKA_LIBS)

# The test hosts exist only in unexec builds; `make check' builds them.
ifeq ($(WITH_UNEXEC),1)
check: tests/unexec/minihost tests/unexec/minihost-pie tests/unexec/compat
endif

tests/unexec/minihost: tests/unexec/minihost.o libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ tests/unexec/minihost.o \
	  libdumper.a $(LIB_DEPLIBS)
	$(FINGERPRINT) -q $@

# The same host linked as a PIE: the writer must refuse it.
tests/unexec/minihost-pie: tests/unexec/minihost.o libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) -pie -o $@ tests/unexec/minihost.o \
	  libdumper.a $(LIB_DEPLIBS)
	$(FINGERPRINT) -q $@

# A program that is not a libdumper host, dumped with Emacs's unexec ():
# linked as Emacs links it (non-PIE, libdumper.a), no fingerprint.
tests/unexec/compat: tests/unexec/compat.o libdumper.a
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ tests/unexec/compat.o \
	  libdumper.a $(LIB_DEPLIBS)
