/* SPDX-License-Identifier: MIT */
/* bridge/error.c: status codes, their messages and exit statuses, the
   per-thread error detail, and the warning handler.

   Library code never prints an error or exits: it records the detail
   here and returns a status; programs decide what to print (usually via
   dumper_report).  Warnings are not failures and go to a handler the
   host may replace.  */

#include <config.h>

#include <stdio.h>
#include <string.h>

#include "bridge.h"

/* One row per status: message and exit status.  The exit statuses are
   part of the documented interface (doc/exit-status.md); never renumber
   them.  */
static const struct
{
  const char *message;
  int exit_status;
} status_table[DUMPER_STATUS_COUNT] = {
  [DUMPER_OK] = { "success", 0 },
  [DUMPER_E_USAGE] = { "invalid command-line argument", 64 },
  [DUMPER_E_NO_BACKEND] = { "dump back end not available in this build", 69 },
  [DUMPER_E_NOMEM] = { "out of memory", 71 },
  [DUMPER_E_IO] = { "input/output error", 74 },
  [DUMPER_E_OUTPUT] = { "cannot create output file", 73 },
  [DUMPER_E_STATE] = { "call made in the wrong state", 70 },
  [DUMPER_E_IMAGE_MISSING] = { "image file not found", 80 },
  [DUMPER_E_IMAGE_TRUNCATED] = { "image file is truncated", 81 },
  [DUMPER_E_IMAGE_MAGIC] = { "not a dumper image", 82 },
  [DUMPER_E_IMAGE_VERSION] = { "unsupported image format version", 83 },
  [DUMPER_E_IMAGE_ARCH] = { "image is for another architecture", 84 },
  [DUMPER_E_IMAGE_FINGERPRINT] = { "image was written by a different build", 85 },
  [DUMPER_E_IMAGE_CORRUPT] = { "image is corrupt", 86 },
  [DUMPER_E_FOREIGN_POINTER] = { "heap holds a pointer outside the heap and the executable", 90 },
  [DUMPER_E_HEAP_DESC] = { "invalid or missing heap description", 91 },
  [DUMPER_E_ARENA_FULL] = { "static heap arena exhausted", 92 },
  [DUMPER_E_EXE] = { "executable cannot be used for dumping", 93 },
  [DUMPER_E_NO_FINGERPRINT] = { "executable has no build fingerprint", 94 },
  [DUMPER_E_REGISTRATION] = { "undeclared or invalid registration", 95 },
  [DUMPER_E_INTERIOR_POINTER] = { "heap holds a pointer into the middle of an object", 96 },
};

static _Thread_local char detail[1024];
static _Thread_local enum dumper_status last_status;

static dumper_warning_fn warning_fn;
static void *warning_data;

const char *
dumper_strerror (enum dumper_status status)
{
  if ((unsigned) status >= DUMPER_STATUS_COUNT)
    return "unknown dumper status";
  return status_table[status].message;
}

int
dumper_exit_status (enum dumper_status status)
{
  if ((unsigned) status >= DUMPER_STATUS_COUNT)
    return 70;
  return status_table[status].exit_status;
}

const char *
dumper_error_detail (void)
{
  return detail;
}

enum dumper_status
dumper_last_status (void)
{
  return last_status;
}

int
dumper_report (const char *progname, enum dumper_status status)
{
  if (status != DUMPER_OK)
    {
      if (detail[0])
        fprintf (stderr, "%s: %s: %s\n", progname ? progname : "dumper",
                 dumper_strerror (status), detail);
      else
        fprintf (stderr, "%s: %s\n", progname ? progname : "dumper",
                 dumper_strerror (status));
    }
  return dumper_exit_status (status);
}

void
bridge_clear_detail (void)
{
  detail[0] = '\0';
  last_status = DUMPER_OK;
}

enum dumper_status
bridge_fail (enum dumper_status status, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (detail, sizeof detail, fmt, ap);
  va_end (ap);
  last_status = status;
  return status;
}

enum dumper_status
bridge_fail_detail (enum dumper_status status, const char *text)
{
  snprintf (detail, sizeof detail, "%s", text ? text : "");
  last_status = status;
  return status;
}

void
dumper_set_warning_handler (dumper_warning_fn fn, void *data)
{
  warning_fn = fn;
  warning_data = data;
}

void
bridge_warning_sink (const char *message, void *data)
{
  (void) data;
  if (warning_fn)
    warning_fn (message, warning_data);
  else
    fprintf (stderr, "dumper: warning: %s\n", message);
}

void
bridge_warn (const char *fmt, ...)
{
  char message[1024];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (message, sizeof message, fmt, ap);
  va_end (ap);
  bridge_warning_sink (message, NULL);
}
