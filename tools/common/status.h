/* SPDX-License-Identifier: MIT */
/* tools/common/status.h: the one table of exit statuses of the programs
   (dumper-fingerprint, dumper-inspect, dumper-migrate, dumper-compare
   and the reference host dlisp), mirrored by doc/exit-status.md.

   0 is success.  2-9 are answers, not errors: the program worked and
   the answer is "no" (a check found something); each has one meaning
   across all programs.  64-78 are errors, numbered like sysexits.h and
   equal to the library's statuses where the meaning is the same
   (dumper_exit_status: 64 usage, 71 no memory, 73 cannot create, 74 I/O
   error); 80-96 are the library's image and dump statuses, used as they
   are.  Never 1 (a generic failure: a crashing shell script), never 70
   (the library's "call made at the wrong time"), never 128 or more
   (death by a signal).  */

#ifndef DUMPER_TOOLS_STATUS_H
#define DUMPER_TOOLS_STATUS_H

enum tool_exit
{
  TOOL_EXIT_OK = 0,

  /* Answers.  */
  TOOL_EXIT_DIVERGED = 2,      /* dumper-compare: the heap digests differ */
  TOOL_EXIT_REGRESSION = 3,    /* dumper-compare --baseline: a figure got worse */
  TOOL_EXIT_MODE_FAILED = 4,   /* dumper-compare: a mode's command failed */
  TOOL_EXIT_STALE = 5,         /* dumper-fingerprint --check: fingerprint stale */
  TOOL_EXIT_SITES_REMAIN = 6,  /* dumper-migrate --check: legacy sites remain */
  TOOL_EXIT_LISP_ERROR = 7,    /* dlisp: an uncaught Lisp error */
  TOOL_EXIT_LOADUP_FAILED = 8, /* dlisp: the loadup failed */

  /* Errors.  */
  TOOL_EXIT_USAGE = 64,        /* bad command line */
  TOOL_EXIT_DATAERR = 65,      /* an input file is malformed (not ELF, bad JSON) */
  TOOL_EXIT_NOINPUT = 66,      /* an input file, program or build is missing */
  TOOL_EXIT_UNAVAILABLE = 69,  /* a helper program is missing (gnuplot) */
  TOOL_EXIT_OSERR = 71,        /* out of memory, fork failed */
  TOOL_EXIT_CANTCREAT = 73,    /* an output file cannot be written */
  TOOL_EXIT_IOERR = 74         /* read or write failure */
};

#endif
