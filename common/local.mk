# SPDX-License-Identifier: MIT
# common/local.mk: the private OS helpers below every other part of
# libdumper (atomic file output, ...).  Part of libdumper in every
# build; the tools link the objects they need directly.

COMMON_SRCS = common/addrmap.c common/atomic.c common/blockset.c common/clock.c common/codetargets.c common/elfnote.c \
	common/maps.c common/options.c common/os.c common/zmem.c
LIB_SRCS_common += $(COMMON_SRCS)
COMMON_OBJS = $(COMMON_SRCS:.c=.o)
$(COMMON_OBJS): config.h
