# unexec/local.mk: the legacy back end, part of libdumper in unexec builds.

LIB_SRCS_unexec += unexec/arena.c unexec/write.c
