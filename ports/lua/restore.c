/* SPDX-License-Identifier: MIT */
/* ports/lua/restore.c: what is per start in a state restored from a
   dump (a pdump image or an unexec'd executable).

   After the load (an after-load hook, before lua.c runs):
   - tables whose keys hash by address (tables, functions, threads,
     userdata, light C functions and userdata as keys), which the dump
     listed (registry[LUA_PORT_REHASH], prepare.c), are rehashed when
     the objects moved (dumper_start_info ()->moved): luaH_resize to the
     same sizes reinserts every key at its new hash.  No other object is
     touched, so a start costs what the image's relocation costs;
   - the standard streams get this process's FILEs (lib-io.c);
   - math.random is reseeded unless the init seeded it (lib-math.c);
   - the registry's LUA_NOENV (lua5.4 -E) of the dumping run is
     forgotten: this start's options decide.
   Strings keep the hashes the dumping run computed, with its seed
   (global_State.seed): every start from one dump shares that seed.

   After this start's options are read (lua.c's luaL_openlibs call):
   package.path and package.cpath from this start's environment
   (lib-load.c), as luaopen_package sets them.  */

#include <config.h>

#include <dumper/gflags.h>

#include "port.h"

#include "lobject.h"
#include "lstate.h"
#include "ltable.h"
#include "lgc.h"
#include "lauxlib.h"

/* Rehash the tables the dump listed (prepare.c): luaH_resize to the
   same sizes reinserts every key at its hash in this process.  */
static void
rehash_listed (lua_State *L)
{
  if (lua_getfield (L, LUA_REGISTRYINDEX, LUA_PORT_REHASH) == LUA_TTABLE)
    {
      lua_Integer n = luaL_len (L, -1);
      for (lua_Integer i = 1; i <= n; i++)
        {
          if (lua_rawgeti (L, -1, i) == LUA_TTABLE)
            {
              Table *h = hvalue (s2v (L->top - 1));
              luaH_resize (L, h, luaH_realasize (h), allocsizenode (h));
            }
          lua_pop (L, 1);
        }
    }
  lua_pop (L, 1);
}

void
lua_port_after_load (void)
{
  /* Registered in the cold init, which calls it "now": nothing to do
     then.  (dumper_start_info ()->origin is set after the hooks.)  */
  if (!dumped_with_pdumper && !dumped_with_unexec)
    return;
  lua_State *L = lua_port_state;
  if (dumper_start_info ()->moved)
    rehash_listed (L);
  /* The list holds its tables strongly: it must not keep them alive
     for the rest of the run.  */
  lua_pushnil (L);
  lua_setfield (L, LUA_REGISTRYINDEX, LUA_PORT_REHASH);
  lua_port_rebind_streams (L);
  lua_port_reseed_random (L);
  lua_pushnil (L);
  lua_setfield (L, LUA_REGISTRYINDEX, "LUA_NOENV");
}

void
lua_port_after_args (lua_State *L)
{
  lua_port_reset_paths (L);
}

/* True when closing the restored state L would only free memory: no
   object waits for its finalizer (tobefnz), and the only objects with
   a finalizer are the standard streams (io's __gc leaves them open)
   and the table of loaded C libraries (whose __gc unloads them, which
   the process's end does as well).  lua_close would otherwise walk
   every object of the image to free it, which is most of the time of
   a start from a large image, for nothing the process can observe.  */
bool
lua_port_close_only_frees (lua_State *L)
{
  global_State *g = G (L);
  if (g->tobefnz != NULL)
    return false;
  lua_getfield (L, LUA_REGISTRYINDEX, "_CLIBS");
  const void *clibs = lua_topointer (L, -1);
  lua_pop (L, 1);
  for (GCObject *o = g->finobj; o != NULL; o = o->next)
    {
      if (o->tt == LUA_VUSERDATA)
        {
          Udata *u = gco2u (o);
          if (lua_port_io_udata_kind (L, getudatamem (u), u->metatable) == 1)
            continue;
        }
      else if (o == clibs)
        continue;
      return false;
    }
  return true;
}
