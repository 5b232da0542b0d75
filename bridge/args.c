/* SPDX-License-Identifier: MIT */
/* bridge/args.c: the bridge's command-line options.

   Owns recognising and removing --temacs=, --dump-file, --no-dump-file
   and --compress= from a host's argv.  Pure: no I/O, no global state, so
   every form is unit-tested (tests/unit/test_args.c).  Options are
   recognised anywhere before a `--', which ends the scan and is left in
   argv for the host.  */

#include <config.h>

#include <string.h>

#include "bridge.h"

static bool
has_prefix (const char *s, const char *prefix)
{
  return strncmp (s, prefix, strlen (prefix)) == 0;
}

/* Set OUT->dump from the value of --temacs.  */
static enum dumper_status
parse_temacs (const char *value, struct bridge_args *out)
{
  enum bridge_dump_request req;
  if (strcmp (value, "pdump") == 0)
    req = BRIDGE_DUMP_PDUMP;
  else if (strcmp (value, "dump") == 0)
    req = BRIDGE_DUMP_UNEXEC;
  else
    return bridge_fail (DUMPER_E_USAGE,
                        "unknown dump mode `%s' for --temacs; valid modes are "
                        "`pdump' (portable dumper) and `dump' (unexec)", value);
  if (out->dump != BRIDGE_DUMP_NONE && out->dump != req)
    return bridge_fail (DUMPER_E_USAGE,
                        "--temacs given twice with different modes");
  out->dump = req;
  return DUMPER_OK;
}

/* Set OUT->dump_file from VALUE (of --dump-file).  */
static enum dumper_status
parse_dump_file (const char *value, struct bridge_args *out)
{
  if (value == NULL || *value == '\0')
    return bridge_fail (DUMPER_E_USAGE, "--dump-file needs a file name");
  if (out->dump_file && strcmp (out->dump_file, value) != 0)
    return bridge_fail (DUMPER_E_USAGE, "--dump-file given twice (`%s' and "
                        "`%s')", out->dump_file, value);
  out->dump_file = value;
  return DUMPER_OK;
}

/* Set OUT->compress or OUT->image_base from ARG, --compress=VALUE or
   --image-base=VALUE.  */
static enum dumper_status
parse_valued (const char *arg, struct bridge_args *out)
{
  bool compress = has_prefix (arg, "--compress=");
  const char *value = strchr (arg, '=') + 1;
  if (*value == '\0')
    return bridge_fail (DUMPER_E_USAGE, "%s", compress
                        ? "--compress needs a value: none, lz4, "
                          "lz4:LEVEL, zstd or zstd:LEVEL"
                        : "--image-base needs an address, e.g. "
                          "--image-base=0x4000000000");
  *(compress ? &out->compress : &out->image_base) = value;
  return DUMPER_OK;
}

/* Parse ARGS[I] (of COUNT) into OUT: *USED is set to the number of
   arguments it takes (0: not ours, 1, or 2 with a separate value).  */
static enum dumper_status
parse_arg (char **args, int count, int i, struct bridge_args *out, int *used)
{
  const char *arg = args[i];
  const char *next = i + 1 < count ? args[i + 1] : NULL;
  *used = 1;
  if (has_prefix (arg, "--temacs="))
    return parse_temacs (arg + strlen ("--temacs="), out);
  if (strcmp (arg, "--temacs") == 0)
    {
      if (next == NULL)
        return bridge_fail (DUMPER_E_USAGE, "--temacs needs a mode: "
                            "--temacs=pdump or --temacs=dump");
      *used = 2;
      return parse_temacs (next, out);
    }
  if (has_prefix (arg, "--dump-file="))
    return parse_dump_file (arg + strlen ("--dump-file="), out);
  if (strcmp (arg, "--dump-file") == 0)
    {
      *used = 2;
      return parse_dump_file (next, out);
    }
  if (has_prefix (arg, "--compress=") || has_prefix (arg, "--image-base="))
    return parse_valued (arg, out);
  if (strcmp (arg, "--no-dump-file") == 0)
    {
      out->no_dump_file = true;
      return DUMPER_OK;
    }
  *used = 0;
  return DUMPER_OK;
}

enum dumper_status
bridge_parse_args (int *argc, char ***argv, struct bridge_args *out)
{
  int count = *argc;
  char **args = *argv;
  struct bridge_args parsed = { BRIDGE_DUMP_NONE, NULL, false, NULL, NULL };
  /* First pass: parse and validate without touching argv, so a usage
     error leaves it as it was.  KEEP marks the arguments that stay.  */
  enum { KEEP, DROP };
  unsigned char fate[count > 0 ? count : 1];
  memset (fate, KEEP, sizeof fate);

  for (int i = 1; i < count; i++)
    {
      if (args[i] == NULL || strcmp (args[i], "--") == 0)
        break;
      int used;
      enum dumper_status st = parse_arg (args, count, i, &parsed, &used);
      if (st != DUMPER_OK)
        return st;
      for (int k = 0; k < used; k++)
        fate[i + k] = DROP;
      if (used > 1)
        i += used - 1;
    }

  if (parsed.dump_file && parsed.no_dump_file)
    return bridge_fail (DUMPER_E_USAGE,
                        "--dump-file and --no-dump-file contradict each other");

  /* Second pass: compact argv in place.  */
  int kept = 0;
  for (int i = 0; i < count; i++)
    if (fate[i] == KEEP)
      args[kept++] = args[i];
  if (kept < count)
    args[kept] = NULL;
  *argc = kept;
  *out = parsed;
  return DUMPER_OK;
}
