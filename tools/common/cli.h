/* SPDX-License-Identifier: MIT */
/* tools/common/cli.h: the command line every tool shares.

   One behaviour for all: -h/--help prints the tool's usage on stdout and
   exits 0; -V/--version prints "NAME (dumper) VERSION" and exits 0; a
   usage error prints ONE line on stderr,
     NAME: unknown option `--x'; try --help
   and exits TOOL_EXIT_USAGE (64), never the whole usage and never
   getopt's own message.

   Typical use:
     static struct tool_cli cli = { "dumper-x", usage };
     while ((c = tool_cli_getopt (&cli, argc, argv, "pq", longopts)) != -1)
       switch (c)
         {
         case TOOL_CLI_EXIT: return cli.status;   (help, version, error)
         case 'p': ...
         }
   LONGOPTS need not list help and version: they are handled here.  */

#ifndef DUMPER_TOOLS_CLI_H
#define DUMPER_TOOLS_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "tools/common/status.h"

struct tool_cli
{
  const char *name;              /* the program's name in messages */
  void (*usage) (FILE *out);     /* prints the whole --help text */
  int status;                    /* after TOOL_CLI_EXIT: the exit status */
};

/* Returned by tool_cli_getopt when the program should exit with
   CLI->status (after --help, --version or a usage error).  */
#define TOOL_CLI_EXIT (-2)

/* getopt_long with the shared handling of -h, -V and mistakes.
   SHORTOPTS and LONGOPTS as for getopt_long, without h and V.  */
int tool_cli_getopt (struct tool_cli *cli, int argc, char **argv,
                     const char *shortopts, const struct option *longopts);

/* Print "NAME: MESSAGE; try --help" and return TOOL_EXIT_USAGE.  */
int tool_usage_error (const struct tool_cli *cli, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Print "NAME: MESSAGE" on stderr and return STATUS: any other error
   a tool reports before it exits with STATUS.  */
int tool_error (const struct tool_cli *cli, int status, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* Print "NAME (dumper) VERSION" on stdout and return TOOL_EXIT_OK.  */
int tool_version (const struct tool_cli *cli);

/* For tools that parse argv by hand: handle ARG if it is -h/--help or
   -V/--version (returns 1, CLI->status set), else return 0.  */
int tool_cli_help_or_version (struct tool_cli *cli, const char *arg);

#endif
