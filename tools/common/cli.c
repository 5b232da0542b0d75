/* SPDX-License-Identifier: MIT */
/* tools/common/cli.c: the command line every tool shares (see cli.h).  */

#include <config.h>

#include "tools/common/cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* "NAME: MESSAGE" and END on stderr.  */
static void
report (const struct tool_cli *cli, const char *end, const char *fmt, va_list ap)
  __attribute__ ((format (printf, 3, 0)));

static void
report (const struct tool_cli *cli, const char *end, const char *fmt, va_list ap)
{
  fprintf (stderr, "%s: ", cli->name);
  vfprintf (stderr, fmt, ap);
  fputs (end, stderr);
}

int
tool_usage_error (const struct tool_cli *cli, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  report (cli, "; try --help\n", fmt, ap);
  va_end (ap);
  return TOOL_EXIT_USAGE;
}

int
tool_error (const struct tool_cli *cli, int status, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  report (cli, "\n", fmt, ap);
  va_end (ap);
  return status;
}

int
tool_version (const struct tool_cli *cli)
{
  printf ("%s (dumper) %s\n", cli->name, PACKAGE_VERSION);
  return TOOL_EXIT_OK;
}

int
tool_cli_help_or_version (struct tool_cli *cli, const char *arg)
{
  if (strcmp (arg, "-h") == 0 || strcmp (arg, "--help") == 0)
    {
      cli->usage (stdout);
      cli->status = TOOL_EXIT_OK;
      return 1;
    }
  if (strcmp (arg, "-V") == 0 || strcmp (arg, "--version") == 0)
    {
      cli->status = tool_version (cli);
      return 1;
    }
  return 0;
}

/* The option getopt stopped at, as the user wrote it: "--name" (without
   a value) or "-x".  */
static void
option_text (const char *arg, char *out, size_t size)
{
  if (optopt != 0 && strncmp (arg, "--", 2) != 0)
    snprintf (out, size, "-%c", optopt);
  else
    snprintf (out, size, "%.*s", (int) strcspn (arg, "="), arg);
}

int
tool_cli_getopt (struct tool_cli *cli, int argc, char **argv,
                 const char *shortopts, const struct option *longopts)
{
  /* ':' first: a missing argument is ':', not '?'; plus h and V.  */
  char shorts[128];
  snprintf (shorts, sizeof shorts, ":%shV", shortopts);
  size_t count = 0;
  while (longopts && longopts[count].name)
    count++;
  struct option *all = calloc (count + 3, sizeof *all);
  if (all == NULL)
    {
      fprintf (stderr, "%s: out of memory\n", cli->name);
      cli->status = TOOL_EXIT_OSERR;
      return TOOL_CLI_EXIT;
    }
  if (count)
    memcpy (all, longopts, count * sizeof *all);
  all[count] = (struct option) { "help", no_argument, NULL, 'h' };
  all[count + 1] = (struct option) { "version", no_argument, NULL, 'V' };
  opterr = 0;
  int c = getopt_long (argc, argv, shorts, all, NULL);
  free (all);
  char text[64];
  switch (c)
    {
    case 'h':
      cli->usage (stdout);
      cli->status = TOOL_EXIT_OK;
      return TOOL_CLI_EXIT;
    case 'V':
      cli->status = tool_version (cli);
      return TOOL_CLI_EXIT;
    case ':':
      option_text (argv[optind - 1], text, sizeof text);
      cli->status = tool_usage_error (cli, "option `%s' needs an argument", text);
      return TOOL_CLI_EXIT;
    case '?':
      option_text (argv[optind - 1], text, sizeof text);
      cli->status = tool_usage_error (cli, "unknown option `%s'", text);
      return TOOL_CLI_EXIT;
    default:
      return c;
    }
}
