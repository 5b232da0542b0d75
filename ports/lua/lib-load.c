/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-load.c: Lua's loadlib.c (the package library) as it
   is, the declarations of the C functions it stores in the heap, and
   the port's two needs of it: the C libraries a state loaded with
   dlopen (which no dump can save: their code and data are not the
   executable's), and package.path and cpath computed again at each
   start, from that start's environment, exactly as luaopen_package
   computes them.  */

#include "loadlib.c"
#include "port.h"

DUMPER_DECLARE_CODE_TABLE (pk_funcs, func);
DUMPER_DECLARE_CODE_TABLE (ll_funcs, func);
DUMPER_DECLARE_CODE (searcher_preload); /* package.searchers' closures */
DUMPER_DECLARE_CODE (searcher_Lua);
DUMPER_DECLARE_CODE (searcher_C);
DUMPER_DECLARE_CODE (searcher_Croot);
DUMPER_DECLARE_CODE (gctm);             /* the CLIBS table's __gc */

const char *
lua_port_loaded_clib (lua_State *L)
{
  static char name[1024];
  const char *found = NULL;
  if (lua_getfield (L, LUA_REGISTRYINDEX, CLIBS) == LUA_TTABLE)
    {
      lua_pushnil (L);
      while (lua_next (L, -2) != 0)
        {
          bool is_name = lua_type (L, -2) == LUA_TSTRING;
          if (is_name)
            snprintf (name, sizeof name, "%s", lua_tostring (L, -2));
          lua_pop (L, 1);               /* the value */
          if (is_name)
            {
              lua_pop (L, 1);           /* the key */
              found = name;
              break;
            }
        }
    }
  lua_pop (L, 1);
  return found;
}

void
lua_port_reset_paths (lua_State *L)
{
  lua_getfield (L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield (L, -1, LUA_LOADLIBNAME) == LUA_TTABLE)
    {
      setpath (L, "path", LUA_PATH_VAR, LUA_PATH_DEFAULT);
      setpath (L, "cpath", LUA_CPATH_VAR, LUA_CPATH_DEFAULT);
    }
  lua_pop (L, 2);
}
