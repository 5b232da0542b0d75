/* SPDX-License-Identifier: MIT */
/* ports/lua/lua-main.c: lua.c, Lua's stand-alone interpreter, as it is,
   with three of its calls redirected to the port:

   - luaL_newstate: the restored state when there is one, else a new
     state whose memory comes from libdumper (lua_port_alloc);
   - luaL_openlibs: the standard libraries of a cold state; after a
     load they are in the state already, and only what is per start is
     redone (restore.c);
   - lua_close: in a dumping run, the point at which the init (options
     and script) has run: save the state, or say why not.

   Everything else, the options, messages and exit statuses, is lua.c's
   own: a cold start is lua5.4.  */

#include "port.h"
#include "lauxlib.h"
#include "lualib.h"

#define main lua_port_main
#define luaL_newstate lua_port_newstate
#define luaL_openlibs lua_port_openlibs
#define lua_close lua_port_close
#include "lua.c"
#undef main
#undef luaL_newstate
#undef luaL_openlibs
#undef lua_close

#include <dumper/gflags.h>

lua_State *lua_port_state;
DUMPER_DECLARE_PTR (lua_port_state, LUA_PORT_MAIN);
DUMPER_DECLARE_HOOK (lua_port_after_load);

/* Status of a dumping run whose state the port refuses to save
   (prepare.c printed why); Lua's own failures stay 1.  */
#define LUA_PORT_EXIT_REFUSED 2

lua_State *
lua_port_newstate (void)
{
  if (lua_port_state != NULL)
    return lua_port_state;
  lua_State *L = lua_port_newstate_cold ();
  if (L == NULL)
    return NULL;
  lua_port_state = L;
  if (dumper_remember_ptr ((void **) &lua_port_state, LUA_PORT_MAIN)
      != DUMPER_OK
      || dumper_do_now_and_after_load (lua_port_after_load) != DUMPER_OK)
    /* Sticky: a dump of this run fails naming it.  */
    l_message (progname, dumper_error_detail ());
  dumper_mark_initialized ();
  return L;
}

void
lua_port_openlibs (lua_State *L)
{
  if (!dumped_with_pdumper && !dumped_with_unexec)
    luaL_openlibs (L);
  else
    lua_port_after_args (L);
}

void
lua_port_close (lua_State *L)
{
  if (lua_port_dump_output == NULL)
    {
      /* A restored state whose close would only free memory is left to
         the process's end: freeing would touch every object of the
         image (restore.c).  A cold state closes as lua5.4's does.  */
      if ((dumped_with_pdumper || dumped_with_unexec)
          && lua_port_close_only_frees (L))
        return;
      lua_close (L);
      return;
    }
  /* lua.c's main calls this after report (): the stack holds pmain's
     result, true when the init succeeded; an error message was already
     printed and popped.  */
  if (lua_gettop (L) < 1 || !lua_toboolean (L, -1))
    {
      fprintf (stderr, "%s: the init failed; nothing written to %s\n",
               progname, lua_port_dump_output);
      lua_close (L);
      return;
    }
  lua_settop (L, 0);
  char why[1024];
  if (lua_port_prepare_dump (L, why, sizeof why) != 0)
    {
      fprintf (stderr, "%s: cannot dump the state: %s; nothing written to %s\n",
               progname, why, lua_port_dump_output);
      exit (LUA_PORT_EXIT_REFUSED);
    }
  /* What belongs to this process only is not saved: the pointers into
     its argument strings (an unexec'd executable keeps every static)
     and the FILEs of the standard streams (each start binds its own,
     restore.c).  */
  const char *output = lua_port_dump_output;
  const char *name = progname;
  lua_port_dump_output = NULL;
  progname = LUA_PROGNAME;
  lua_port_unbind_streams (L);
  lua_port_clear_strcache (L);
  enum dumper_status st = dumper_dump (output);
  if (st != DUMPER_OK)
    exit (dumper_report (name, st));
  /* The state is not closed: its pending finalizers belong to the
     starts from the dump, each of which runs them at its own end.  */
  fflush (NULL);
  exit (EXIT_SUCCESS);
}
