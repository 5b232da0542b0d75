# SPDX-License-Identifier: MIT
# tools/embed/local.mk: dumper-embed (issue 16), an executable holding its
# pdump image as an ELF section.  Builds in every mode, like the
# inspector: it needs only the format checks and libelf.

BIN_PROGRAMS += tools/dumper-embed
MAN1 += doc/man/dumper-embed.1

tools/embed/embed.o: config.h $(GENERATED_HEADERS)
tools/dumper-embed: tools/embed/embed.o $(PDUMP_FORMAT_OBJS) $(COMMON_OBJS) \
	$(TOOL_CLI_OBJS) libdumper.a
	$(CC) $(ALL_LDFLAGS) -o $@ tools/embed/embed.o $(PDUMP_FORMAT_OBJS) \
	  $(COMMON_OBJS) $(TOOL_CLI_OBJS) libdumper.a $(ELF_LIBS) $(CODEC_LIBS) $(LIB_DEPLIBS)
