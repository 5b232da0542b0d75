# SPDX-License-Identifier: MIT
# bridge/local.mk: the shared layer, part of libdumper in every build.

LIB_SRCS_common += bridge/alloc.c bridge/args.c bridge/decls.c bridge/dump.c \
	bridge/error.c bridge/exe.c bridge/fingerprint.c bridge/gflags.c \
	bridge/heap.c bridge/options.c bridge/refcheck.c bridge/registry.c \
	bridge/startup.c
# The back end's side of the bridge (backend.h): one per build.
LIB_SRCS_pdumper += bridge/backend-pdump.c bridge/alloc-malloc.c
LIB_SRCS_unexec += bridge/backend-unexec.c bridge/alloc-arena.c
LIB_SRCS_none += bridge/backend-none.c bridge/alloc-malloc.c
# unexec (), Emacs's entry point (include/dumper/unexec-compat.h).
LIB_SRCS_unexec += bridge/compat.c
