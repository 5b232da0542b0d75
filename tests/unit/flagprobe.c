/* SPDX-License-Identifier: MIT */
/* tests/unit/flagprobe.c: a minimal host for test_startup.

   Calls dumper_startup on its arguments and prints, one per line, the
   status, the flags, the ASLR personality bit and the arguments left
   for the host, so the test can check each argument form in a fresh
   process (dumper_startup runs once per process, and an unexec dump
   request re-executes the process).  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#ifdef HAVE_SYS_PERSONALITY_H
# include <sys/personality.h>
#endif

#include <dumper/dumper.h>

DUMPER_DEFINE_FINGERPRINT;

int
main (int argc, char **argv)
{
  enum dumper_status st = dumper_startup (&argc, &argv);
  printf ("status=%d\n", (int) st);
  if (st != DUMPER_OK)
    {
      printf ("detail=%s\n", dumper_error_detail ());
      return dumper_exit_status (st);
    }
  printf ("initialized=%d\n", initialized);
  printf ("will_dump=%d\n", will_dump);
  printf ("will_dump_with_unexec=%d\n", will_dump_with_unexec);
  printf ("will_dump_with_pdumper=%d\n", will_dump_with_pdumper);
  printf ("dumped_with_unexec=%d\n", dumped_with_unexec);
  printf ("dumped_with_pdumper=%d\n", dumped_with_pdumper);
  printf ("origin=%d\n", (int) dumper_start_info ()->origin);
#ifdef HAVE_SYS_PERSONALITY_H
  printf ("aslr_off=%d\n", (personality (0xffffffff) & ADDR_NO_RANDOMIZE) != 0);
#endif
  printf ("reexec_env=%s\n", getenv ("DUMPER_ASLR_REEXEC") ? "set" : "unset");
  for (int i = 0; i < argc; i++)
    printf ("arg=%s\n", argv[i]);
  dumper_mark_initialized ();
  printf ("initialized_after_mark=%d\n", initialized);
  return 0;
}
