/* SPDX-License-Identifier: MIT */
/* common/options.c: the settings of a process that set nothing (the
   configured defaults), for back-end callers that pass no record.  */

#include <config.h>

#include <dumper/dumper.h>

#include "options.h"

#ifndef DUMPER_LIBEXECDIR
# define DUMPER_LIBEXECDIR "/usr/local/libexec"
#endif

const struct common_options common_default_options = {
  .verify = DUMPER_DEFAULT_VERIFY, .base_mode = DUMPER_DEFAULT_BASE_MODE,
  .cold_check = DUMPER_DEFAULT_COLD_CHECK, .load_choice = COMMON_LOAD_HYBRID,
  .image_dir = DUMPER_LIBEXECDIR "/dumper", .image_base = UINT64_MAX
};
