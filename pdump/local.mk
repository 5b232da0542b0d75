# pdump/local.mk: the portable dumper, part of libdumper in pdumper builds.

LIB_SRCS_pdumper += pdump/gc.c pdump/load.c pdump/stats.c pdump/write.c
