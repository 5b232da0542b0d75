# SPDX-License-Identifier: MIT
# tools/local.mk: the user-facing tools.

BIN_PROGRAMS += tools/dumper-fingerprint
MAN1 += doc/man/dumper-fingerprint.1

# The command line every tool shares (tools/common/cli.h).
TOOL_CLI_OBJS = tools/common/cli.o
$(TOOL_CLI_OBJS): config.h

tools/dumper-fingerprint: tools/fingerprint.o $(COMMON_OBJS) $(TOOL_CLI_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ tools/fingerprint.o $(COMMON_OBJS) \
	  $(TOOL_CLI_OBJS) $(ELF_LIBS) $(XXHASH_LIBS)
tools/fingerprint.o: config.h $(GENERATED_HEADERS)

# Link a host executable and stamp its build fingerprint.  Used by
# host/local.mk and the tests: $(call link_host,OBJECTS).
FINGERPRINT = tools/dumper-fingerprint
