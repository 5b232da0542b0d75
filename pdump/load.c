/* pdump/load.c: the image loader (not yet available; see issue 4).  */

#include <config.h>

#include <stdio.h>

#include "backend.h"

enum dumper_status
pdump_load (const struct pdump_load_request *req, struct pdump_entry **entries,
            size_t *entry_count)
{
  *entries = NULL;
  *entry_count = 0;
  snprintf (req->detail, req->detail_size,
            "%s: the portable dumper's image loader is not available yet",
            req->path);
  return DUMPER_E_NO_BACKEND;
}
