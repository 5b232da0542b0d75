/* SPDX-License-Identifier: MIT */
/* ports/lua/main.c: dumper-lua's command line and start-up sequence.

   Owns: the options of ours (--dump=OUT, --image=IMG, --compress=SPEC
   for the images --dump writes), which come before Lua's, and the order of dumper.h's start-up sequence around
   lua.c's own main (compiled as lua_port_main, lua-main.c):

     dumper-lua [lua options] [script [args]]        a cold start: lua5.4
     dumper-lua --dump=OUT [lua options] [script]    the init, then save
     dumper-lua --image=IMG [lua options] [script]   (pdumper) from IMG
     OUT [lua options] [script]                      (unexec) from OUT

   Everything after our options goes to lua.c untouched: the bridge
   (dumper_startup) gets a private argument vector holding only its own
   options and `--', so a script argument that looks like a bridge
   option stays the script's.  An unexec dump re-executes the program
   once with ASLR disabled, with that private vector followed by the
   original arguments (bridge/startup.c execs the vector it was given):
   `--temacs=dump --' as arguments 1 and 2 is how main recognises the
   re-executed process.

   This file is the only one of the executable with
   DUMPER_DEFINE_FINGERPRINT.  Exit statuses: Lua's (0, 1), 64 for a bad
   option of ours, the library's (dumper_exit_status) for start-up and
   dump errors.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port.h"

DUMPER_DEFINE_FINGERPRINT;

#define LUA_PORT_EXIT_USAGE 64

const char *lua_port_dump_output;

static int
usage_error (const char *progname, const char *what)
{
  fprintf (stderr, "%s: %s\n"
           "usage: %s [--dump=OUT] %s[lua5.4 options] [script [args]]\n",
           progname, what, progname,
           DUMPER_WITH_PDUMPER ? "[--image=IMG] [--compress=SPEC] " : "");
  return LUA_PORT_EXIT_USAGE;
}

/* The value of `--NAME=VALUE' at ARG, or NULL when ARG is not it.  */
static const char *
option_value (const char *arg, const char *name)
{
  size_t n = strlen (name);
  return strncmp (arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

int
main (int argc, char **argv)
{
  const char *progname = argv[0] ? argv[0] : "dumper-lua";
  int first = 1;                /* first argument that is not the bridge's */
  if (argc > 2 && strcmp (argv[1], "--temacs=dump") == 0
      && strcmp (argv[2], "--") == 0)
    first = 3;                  /* the unexec dump's re-executed process */

  /* An unexec'd executable starts with the dumping run's statics: the
     output of that run is not this one's.  */
  lua_port_dump_output = NULL;
  const char *image = NULL;
  char *compress = NULL;
  for (; first < argc; first++)
    {
      const char *v;
      if ((v = option_value (argv[first], "--dump")) != NULL)
        {
          if (*v == '\0')
            return usage_error (progname, "--dump needs a file name");
          lua_port_dump_output = v;
        }
      else if ((v = option_value (argv[first], "--image")) != NULL
               /* The bridge's name for it, which `dumper-inspect --check
                  --deep' passes to run this program's loader.  */
               || (v = option_value (argv[first], "--dump-file")) != NULL)
        {
          if (!DUMPER_WITH_PDUMPER)
            return usage_error (progname, "--image needs a pdumper build; "
                                "an unexec build starts from the executable "
                                "--dump wrote");
          if (*v == '\0')
            return usage_error (progname, "--image needs a file name");
          image = v;
        }
      else if (option_value (argv[first], "--compress") != NULL)
        {
          if (!DUMPER_WITH_PDUMPER)
            return usage_error (progname, "--compress needs a pdumper build");
          compress = argv[first];       /* the bridge's own option */
        }
      else
        break;
    }

  /* The bridge's vector: program, its options, `--', then (for the
     unexec re-exec) the original arguments.  */
  char **bridge_argv = calloc ((size_t) argc + 5, sizeof *bridge_argv);
  char image_option[4096];
  if (bridge_argv == NULL)
    {
      fprintf (stderr, "%s: out of memory\n", progname);
      return EXIT_FAILURE;
    }
  int bridge_argc = 0;
  bridge_argv[bridge_argc++] = argv[0];
  if (lua_port_dump_output)
    bridge_argv[bridge_argc++] = DUMPER_WITH_PDUMPER ? "--temacs=pdump"
                                                     : "--temacs=dump";
  if (compress)
    bridge_argv[bridge_argc++] = compress;
  if (DUMPER_WITH_PDUMPER)
    {
      if (image)
        {
          if ((size_t) snprintf (image_option, sizeof image_option,
                                 "--dump-file=%s", image)
              >= sizeof image_option)
            return usage_error (progname, "--image: file name too long");
          bridge_argv[bridge_argc++] = image_option;
        }
      else
        /* A cold start is lua5.4's: no image found beside the program
           is loaded behind the user's back.  */
        bridge_argv[bridge_argc++] = "--no-dump-file";
    }
  bridge_argv[bridge_argc++] = "--";
  for (int i = first == 3 ? 3 : 1; i < argc; i++)
    bridge_argv[bridge_argc++] = argv[i];
  bridge_argv[bridge_argc] = NULL;

  enum dumper_status st = dumper_describe_heap (&lua_port_heap);
  char **bridge_vector = bridge_argv;   /* dumper_startup moves bridge_argv */
  if (st == DUMPER_OK)
    st = dumper_startup (&bridge_argc, &bridge_argv);
  /* The bridge keeps neither the vector nor (the image name aside, in
     image_option, which lives as long as main) its strings.  */
  free (bridge_vector);
  if (st != DUMPER_OK)
    return dumper_report (progname, st);

  /* lua.c sees the program name and Lua's arguments only.  */
  argv[first - 1] = argv[0];
  return lua_port_main (argc - (first - 1), argv + (first - 1));
}
