# SPDX-License-Identifier: MIT
# pdump/local.mk: the portable dumper, part of libdumper in pdumper builds.

LIB_SRCS_pdumper += pdump/bootcache.c pdump/check.c pdump/codec.c pdump/discover.c \
	pdump/embed.c pdump/exe.c \
	pdump/gc.c pdump/load.c pdump/loadcheck.c pdump/place.c pdump/restore.c pdump/stats.c pdump/testhooks.c pdump/verify.c pdump/verify-index.c pdump/verify-structure.c pdump/walk.c \
	pdump/write.c
# The writer's walk (walk.c), one concern a file (walkint.h).
LIB_SRCS_pdumper += pdump/buf.c pdump/encode.c pdump/interior.c pdump/lint.c \
	pdump/stream.c pdump/trace.c pdump/visit.c

# The format checks, for tools that read images in any build.
PDUMP_FORMAT_OBJS = pdump/check.o pdump/codec.o pdump/embed.o pdump/exe.o \
	pdump/verify.o pdump/verify-index.o pdump/verify-structure.o

# Tests of the portable dumper.
NOINST_PROGRAMS += tests/pdump/toyhost tests/pdump/toyhost-variant
CHECK_PROGRAMS += tests/pdump/test_check tests/pdump/test_hash tests/pdump/test_verify_index
CHECK_SCRIPTS += tests/pdump/pdump.sh tests/pdump/corrupt.sh tests/pdump/trust.sh \
  tests/pdump/base.sh tests/pdump/pagesize.sh tests/pdump/boot.sh tests/pdump/cold.sh \
  tests/pdump/compress.sh tests/pdump/mixmodes.sh tests/pdump/mutkill.sh
CHECK_SCRIPTS += tests/pdump/mutkill-verify.sh tests/pdump/layout-verify.sh

tests/pdump/toyhost.o tests/pdump/test_check.o tests/pdump/test_hash.o tests/pdump/test_verify_index.o: config.h $(GENERATED_HEADERS)
tests/pdump/test_check.o tests/pdump/test_hash.o tests/pdump/test_verify_index.o: ALL_CFLAGS += $(CMOCKA_CFLAGS)

tests/pdump/toyhost: tests/pdump/toyhost.o libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ tests/pdump/toyhost.o libdumper.a $(LIB_DEPLIBS) -lm
	$(FINGERPRINT) -q $@

# The same program built differently: its images must be refused by
# toyhost (another fingerprint) and vice versa.
tests/pdump/toyhost-variant.o: tests/pdump/toyhost.c config.h $(GENERATED_HEADERS)
	@$(MKDIR_P) $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -DTOY_VARIANT=2 -MMD -MP -c -o $@ $<
tests/pdump/toyhost-variant: tests/pdump/toyhost-variant.o libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ tests/pdump/toyhost-variant.o libdumper.a $(LIB_DEPLIBS) -lm
	$(FINGERPRINT) -q $@

# Headers that lie, for tests/pdump/mutkill.sh (the checks the mutation
# harness found untested).
check: tests/pdump/patch-image
CLEANFILES += tests/pdump/patch-image
tests/pdump/patch-image.o: config.h $(GENERATED_HEADERS)
tests/pdump/patch-image: tests/pdump/patch-image.o $(PDUMP_FORMAT_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ tests/pdump/patch-image.o $(PDUMP_FORMAT_OBJS) libdumper.a $(CODEC_LIBS) $(LIB_DEPLIBS)

tests/pdump/test_check: tests/pdump/test_check.o $(PDUMP_FORMAT_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ tests/pdump/test_check.o $(PDUMP_FORMAT_OBJS) libdumper.a $(CMOCKA_LIBS) $(CODEC_LIBS) $(LIB_DEPLIBS)

# Pass 1 of the structural pass at the edges of its fast path.
tests/pdump/test_verify_index: tests/pdump/test_verify_index.o $(PDUMP_FORMAT_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ tests/pdump/test_verify_index.o $(PDUMP_FORMAT_OBJS) libdumper.a $(CMOCKA_LIBS) $(CODEC_LIBS) $(LIB_DEPLIBS)

# pdump/hash.h's baseline or dispatched XXH3 (issue 33).
tests/pdump/test_hash: tests/pdump/test_hash.o
	$(CC) $(ALL_LDFLAGS) -o $@ tests/pdump/test_hash.o $(CMOCKA_LIBS) $(XXHASH_LIBS)

# The image checks at their edges, and the boot cache's checks one at a
# time (issue 36).
CHECK_SCRIPTS += tests/pdump/edges.sh tests/pdump/bootchecks.sh tests/pdump/default.sh

# The physical floor of a load, for the benchmarks.
NOINST_PROGRAMS += bench/pdump-floor
bench/pdump-floor.o: config.h $(GENERATED_HEADERS)
bench/pdump-floor: bench/pdump-floor.o $(PDUMP_FORMAT_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ bench/pdump-floor.o $(PDUMP_FORMAT_OBJS) libdumper.a $(CODEC_LIBS) $(LIB_DEPLIBS)

# Owner-sized blocks and interior pointers (issue 30), in every back
# end: tests/e2e/sized.sh.  sizedhost-declared declares static objects
# of an owner-sized type, which its heap description must refuse.
NOINST_PROGRAMS += tests/pdump/sizedhost tests/pdump/sizedhost-declared
tests/pdump/sizedhost.o: config.h $(GENERATED_HEADERS)
tests/pdump/sizedhost: tests/pdump/sizedhost.o libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ tests/pdump/sizedhost.o libdumper.a $(LIB_DEPLIBS)
	$(FINGERPRINT) -q $@
tests/pdump/sizedhost-declared.o: tests/pdump/sizedhost.c config.h $(GENERATED_HEADERS)
	@$(MKDIR_P) $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -DSIZED_DECLARE_SLOTS -MMD -MP -c -o $@ $<
tests/pdump/sizedhost-declared: tests/pdump/sizedhost-declared.o libdumper.a $(FINGERPRINT)
	$(CC) $(ALL_LDFLAGS) $(HOST_LDFLAGS) -o $@ tests/pdump/sizedhost-declared.o libdumper.a $(LIB_DEPLIBS)
	$(FINGERPRINT) -q $@
