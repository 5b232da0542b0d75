/* pdump/write.c: the image writer (not yet available; see issue 4).  */

#include <config.h>

#include <stdio.h>

#include "backend.h"

enum dumper_status
pdump_write (const struct pdump_write_request *req)
{
  snprintf (req->detail, req->detail_size,
            "%s: the portable dumper's image writer is not available yet",
            req->output);
  return DUMPER_E_NO_BACKEND;
}
