/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-aux.c: Lua's lauxlib.c as it is, and the declarations of the C
   functions it stores in the heap, and luaL_newstate with the port's allocator.  Its functions are static, so
   they are declared here, where their names are visible: one line per
   luaL_Reg table (DUMPER_DECLARE_CODE_TABLE), one per other function a
   heap object may hold (closures, continuations, callbacks).  */

#include "lauxlib.c"
#include "port.h"

DUMPER_DECLARE_CODE_TABLE (boxmt, func);
/* global_State.panic and .warnf.  */
DUMPER_DECLARE_CODE (panic);
DUMPER_DECLARE_CODE (warnfoff);
DUMPER_DECLARE_CODE (warnfon);
DUMPER_DECLARE_CODE (warnfcont);

/* luaL_newstate, with lua_port_alloc for l_alloc.  */
lua_State *
lua_port_newstate_cold (void)
{
  lua_State *L = lua_newstate (lua_port_alloc, NULL);
  if (l_likely (L))
    {
      lua_atpanic (L, &panic);
      lua_setwarnf (L, warnfoff, L);  /* default is warnings off */
    }
  return L;
}
