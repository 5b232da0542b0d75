/* main.c -- a host main already written in the gflags vocabulary (the
   shared init sequence): dumper-migrate --check must pass on it.  */

#include <dumper/dumper.h>

extern void init_once (void);
extern void init_every_start (void);
extern void loadup (void);

int
main (int argc, char **argv)
{
  enum dumper_status st = dumper_startup (&argc, &argv);
  if (st != DUMPER_OK)
    return dumper_report (argv[0], st);
  if (!initialized)
    {
      init_once ();
      dumper_mark_initialized ();
    }
  init_every_start ();
  if (will_dump)
    {
      loadup ();
      st = dumper_dump (argc > 1 ? argv[1] : "dlisp.pdmp");
      if (st != DUMPER_OK)
        return dumper_report (argv[0], st);
    }
  return 0;
}
