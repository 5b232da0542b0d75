/* unexec/write.c: the unexec writer (not yet available; see issue 5).  */

#include <config.h>

#include <stdio.h>

#include "backend.h"

enum dumper_status
unexec_write (const struct unexec_request *req)
{
  snprintf (req->detail, req->detail_size,
            "%s: the unexec writer is not available yet", req->output);
  return DUMPER_E_NO_BACKEND;
}
