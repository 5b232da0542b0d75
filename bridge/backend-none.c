/* SPDX-License-Identifier: MIT */
/* bridge/backend-none.c: bridge_backend (backend.h) of a
   --with-dumper=none build: every start is cold, no dump.  */

#include <config.h>

#include "backend.h"

static enum dumper_status
start_cold (const struct bridge_start *s)
{
  (void) s;
  return DUMPER_OK;
}

const struct bridge_backend bridge_backend = {
  .configure = "--with-dumper=none", .temacs = NULL,
  .loads_files = false, .start = start_cold, .dump = NULL
};
