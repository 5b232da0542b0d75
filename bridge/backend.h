/* SPDX-License-Identifier: MIT */
/* bridge/backend.h: the one interface between the bridge's shared
   sequences (startup.c, dump.c) and the back end this build has.

   Each build links exactly one of backend-pdump.c, backend-unexec.c and
   backend-none.c, which defines bridge_backend: the shared code holds
   no `#if DUMPER_WITH_...' and calls no back end directly, and a back
   end's glue calls the shared parts (registry, flags, errors) but never
   startup.c or dump.c.  */

#ifndef DUMPER_BRIDGE_BACKEND_H
#define DUMPER_BRIDGE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>

#include "bridge.h"

struct common_options;

/* What dumper_startup hands the back end, once the options are parsed
   and the flags of this start set.  */
struct bridge_start
{
  const struct bridge_args *args;
  /* Every setting, resolved once (bridge_options), and that
     resolution's status: an invalid loader setting fails only a start
     that loads an image.  */
  struct common_options *options;
  enum dumper_status options_status;
  const char *progname;               /* for a check-only report */
};

struct bridge_backend
{
  /* The configure option of this build, for messages.  */
  const char *configure;
  /* The --temacs value that dumps with this back end ("pdump",
     "dump"), or NULL when it cannot dump.  */
  const char *temacs;
  /* Whether it loads image files (--dump-file, check-only).  */
  bool loads_files;
  /* Bring in the state this process starts from, if any, and run the
     after-load hooks: a pdump image found or named, the data of a
     dumped unexec executable; nothing is a cold start (DUMPER_OK).  */
  enum dumper_status (*start) (const struct bridge_start *start);
  /* Write OUTPUT from the current state, after dumper_dump's common
     checks (asked for at start-up, initialised, an output named);
     includes the pre-dump reference check.  NULL: cannot dump.  */
  enum dumper_status (*dump) (const char *output);
  /* Parse a compression specification (pdump_codec_parse), or NULL
     when this back end writes no compressed images.  */
  bool (*parse_codec) (const char *spec, unsigned *codec, int *level,
                       char *detail, size_t detail_size);
  /* For an ADDRESS inside a loaded image object: true, with the bytes
     from it to the end of the image in *ROOM (the loader knows no finer
     extent).  NULL when no image is ever loaded.  */
  bool (*image_room) (uintptr_t address, size_t *room);
};

extern const struct bridge_backend bridge_backend;

#endif /* DUMPER_BRIDGE_BACKEND_H */
