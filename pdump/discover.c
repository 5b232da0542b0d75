/* SPDX-License-Identifier: MIT */
/* pdump/discover.c: where a start finds its image when the host named
   none (no --dump-file).

   In this order: a section of the executable itself (dumper-embed),
   then EXE.pdmp beside the executable, then IMAGE_DIR/BASENAME.pdmp
   where images are installed.  None of them is a cold start; a damaged
   embedded section, or an image beside the executable that cannot be
   looked at, is an error, never a cold start.  Must not: call into the
   bridge (the warning and the error go back as text).  */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"

/* A malloc'd "PREFIX[SEP]NAME.pdmp", or NULL.  */
static char *
image_name (const char *prefix, const char *sep, const char *name)
{
  size_t len = strlen (prefix) + strlen (sep) + strlen (name) + sizeof ".pdmp";
  char *path = malloc (len);
  if (path)
    snprintf (path, len, "%s%s%s.pdmp", prefix, sep, name);
  return path;
}

enum dumper_status
pdump_find_image (const char *exe, const char *image_dir, char **path,
                  struct pdump_embedded *embedded, char *warning,
                  size_t warning_size, char *detail, size_t detail_size)
{
  *path = NULL;
  warning[0] = '\0';
  enum dumper_status st = pdump_probe_embedded (exe, embedded, detail,
                                                detail_size);
  if (st != DUMPER_OK)
    return st;
  if (embedded->found)
    {
      *path = strdup (exe);
      if (*path != NULL)
        return DUMPER_OK;
      snprintf (detail, detail_size, "cannot copy the image path");
      return DUMPER_E_NOMEM;
    }
  if (pdump_embed_marked ())
    snprintf (warning, warning_size, "%s: dumper-embed stored an image in "
              "it, but its section headers no longer locate it; starting "
              "without it", exe);

  char *beside = image_name (exe, "", "");
  if (beside == NULL)
    goto nomem;
  struct stat sb;
  if (stat (beside, &sb) == 0)
    {
      *path = beside;
      return DUMPER_OK;
    }
  if (errno != ENOENT && errno != ENOTDIR)
    {
      snprintf (detail, detail_size, "%s: %s", beside, strerror (errno));
      free (beside);
      return DUMPER_E_IMAGE_MISSING;
    }
  free (beside);

  const char *base = strrchr (exe, '/');
  char *installed = image_name (image_dir, "/", base ? base + 1 : exe);
  if (installed == NULL)
    goto nomem;
  if (stat (installed, &sb) == 0)
    *path = installed;
  else
    free (installed);
  return DUMPER_OK;

 nomem:
  snprintf (detail, detail_size, "cannot build the image path");
  return DUMPER_E_NOMEM;
}
