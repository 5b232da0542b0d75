/* SPDX-License-Identifier: MIT */
/* ports/lua/restore.c: what is per start in a state restored from a
   dump (a pdump image or an unexec'd executable).

   After the load (an after-load hook, before lua.c runs):
   - tables whose keys hash by address (tables, functions, threads,
     userdata, light C functions and userdata as keys) are rehashed
     when the objects moved (dumper_start_info ()->moved): luaH_resize
     to the same sizes reinserts every key at its new hash;
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

/* True when a key of H hashes by its address.  */
static bool
keyed_by_address (const Table *h)
{
  if (isdummy (h))
    return false;
  for (unsigned i = 0; i < (unsigned) sizenode (h); i++)
    {
      const Node *n = gnode (h, i);
      lu_byte tt = n->u.key_tt;
      if (tt == LUA_VLCF || tt == LUA_VLIGHTUSERDATA
          || ((tt & BIT_ISCOLLECTABLE) && novariant (tt) != LUA_TSTRING))
        return true;
    }
  return false;
}

static void
rehash_list (lua_State *L, GCObject *o)
{
  for (; o != NULL; o = o->next)
    if (o->tt == LUA_VTABLE && keyed_by_address (gco2t (o)))
      {
        Table *h = gco2t (o);
        luaH_resize (L, h, luaH_realasize (h), allocsizenode (h));
      }
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
    {
      global_State *g = G (L);
      GCObject *lists[] = { g->allgc, g->finobj, g->tobefnz, g->fixedgc };
      for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        rehash_list (L, lists[i]);
    }
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
