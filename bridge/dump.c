/* SPDX-License-Identifier: MIT */
/* bridge/dump.c: dumper_dump, which hands the current state to the
   configured back end.

   Owns the checks common to both back ends (a dump was asked for at
   start-up, the heap is initialised, an output was given); the back
   end's part (the pre-dump check, the registry and flags turned into
   its request) is bridge_backend.dump's (backend.h).  */

#include <config.h>

#include "backend.h"
#include "bridge.h"

enum dumper_status
dumper_dump (const char *output)
{
  bridge_clear_detail ();
  if (bridge_backend.dump == NULL)
    return bridge_fail (DUMPER_E_NO_BACKEND,
                        "this build was configured with %s "
                        "and cannot dump; reconfigure with "
                        "--with-dumper=pdumper or --with-dumper=unexec",
                        bridge_backend.configure);
  if (output == NULL || output[0] == '\0')
    return bridge_fail (DUMPER_E_USAGE, "no output file given for the dump");
  /* Before anything is written: a refused registration means a static
     the host meant to save would be missing from the dump.  */
  if (bridge_registration_error () != DUMPER_OK)
    return DUMPER_E_REGISTRATION;
  if (!dumper_gflags.will_dump_)
    return bridge_fail (DUMPER_E_STATE,
                        "dumper_dump called in a run that was not started to "
                        "dump; start the program with --temacs=%s",
                        bridge_backend.temacs);
  if (!dumper_gflags.initialized_)
    return bridge_fail (DUMPER_E_STATE,
                        "dumper_dump called before the heap was initialised "
                        "(call dumper_mark_initialized after the cold init)");
  return bridge_backend.dump (output);
}
