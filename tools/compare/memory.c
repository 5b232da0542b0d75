/* SPDX-License-Identifier: MIT */
/* tools/compare/memory.c: the memory section (issue 15).

   Owns: what a process of a mode costs in memory when many run at once
   from one image or one executable.  PROCS copies of a start run
   together, each kept alive in its idle state (the host contract's
   `idle': a start that waits on its standard input and answers a line
   with a line, as a REPL does); once every one has answered, its
   Private_Dirty and Pss are read from /proc/PID/smaps_rollup, then all
   get end of file and are reaped.  Private dirty is what a process
   cannot share; Pss charges each shared page 1/N to each of the N
   processes mapping it, so it is what a mode really costs per process.

   Must not: decide which modes run or print anything (measure.c and
   table.c do).  */

#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* Seconds a start may take to answer the idle line: generous, for a
   busy machine, a large scale or a sanitizer build.  */
#define IDLE_TIMEOUT 120.0

/* Private_Dirty and Pss of PID, in KiB.  */
static bool
read_rollup (int pid, double *dirty, double *pss)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/smaps_rollup", pid);
  struct compare_kv kv;
  if (!compare_kv_read (&kv, path))
    return false;
  bool ok = compare_kv_number (&kv, "Private_Dirty", dirty)
            && compare_kv_number (&kv, "Pss", pss);
  compare_kv_free (&kv);
  return ok;
}

int
compare_memory_sample (const struct compare_memory_request *req,
                       struct compare_samples *dirty, struct compare_samples *pss,
                       struct compare_memory_failure *failure)
{
  struct compare_child *children = tool_xcalloc ((size_t) req->procs, sizeof *children);
  int started = 0, st = 0;
  memset (failure, 0, sizeof *failure);
  for (; started < req->procs; started++)
    {
      snprintf (failure->err_path, sizeof failure->err_path, "%s-%d.err", req->err_prefix,
                started + 1);
      if (compare_spawn_child (req->argv, req->env_set, failure->err_path,
                               &children[started]) != 0)
        {
          snprintf (failure->why, sizeof failure->why, "cannot start process %d: %s",
                    started + 1, strerror (errno));
          st = -1;
          break;
        }
    }
  for (int k = 0; st == 0 && k < started; k++)
    if (compare_child_ask (&children[k], req->probe, IDLE_TIMEOUT) != 0)
      {
        int err = errno;
        snprintf (failure->err_path, sizeof failure->err_path, "%s-%d.err", req->err_prefix,
                  k + 1);
        if (err == ETIMEDOUT)
          snprintf (failure->why, sizeof failure->why,
                    "process %d did not answer the idle line within %.0f s", k + 1,
                    IDLE_TIMEOUT);
        else
          {
            /* It ended (or closed its output) before it answered.  */
            compare_child_finish (&children[k], true, &failure->proc);
            char how[96];
            compare_proc_describe (&failure->proc, how, sizeof how);
            snprintf (failure->why, sizeof failure->why,
                      "process %d ended before it answered the idle line (%s)", k + 1, how);
            failure->ended = true;
          }
        st = -1;
      }
  for (int k = 0; st == 0 && k < started; k++)
    {
      double d, p;
      if (!read_rollup (children[k].pid, &d, &p))
        {
          snprintf (failure->why, sizeof failure->why,
                    "cannot read Private_Dirty and Pss from /proc/%d/smaps_rollup "
                    "(Linux 4.14 or later)", children[k].pid);
          failure->err_path[0] = '\0';
          st = -1;
          break;
        }
      compare_samples_add (dirty, d);
      compare_samples_add (pss, p);
    }
  /* End them all, also after a failure: a start still waiting gets end
     of file; one that does not answer is killed.  */
  for (int k = 0; k < started; k++)
    {
      struct compare_proc p;
      bool waiting = children[k].pid != 0;
      compare_child_finish (&children[k], st != 0, &p);
      if (st == 0 && waiting && !compare_proc_ok (&p))
        {
          failure->proc = p;
          failure->ended = true;
          snprintf (failure->err_path, sizeof failure->err_path, "%s-%d.err",
                    req->err_prefix, k + 1);
          char how[96];
          compare_proc_describe (&p, how, sizeof how);
          snprintf (failure->why, sizeof failure->why,
                    "process %d failed at end of input (%s)", k + 1, how);
          st = -1;
        }
    }
  free (children);
  return st;
}
