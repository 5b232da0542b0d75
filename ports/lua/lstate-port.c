/* SPDX-License-Identifier: MIT */
/* ports/lua/lstate-port.c: Lua's lstate.c as it is, configured with
   LUA_EXTRASPACE 0.

   LUA_EXTRASPACE is a luaconf.h setting: the bytes Lua allocates before
   each lua_State for the embedding program (lua_getextraspace).  With
   the default (a pointer), a thread's lua_State, to which every
   reference points, lies 8 bytes into its allocation, and libdumper
   saves objects by their block (a pointer into a block is an alias it
   refuses).  Nothing in this interpreter uses the space (lua.c and the
   standard libraries never call lua_getextraspace; lstate.c only copies
   it into new threads), so the port sets it to 0 and every lua_State
   starts its own block.  luaconf.h is included once, here, before
   lstate.c, so that its include guard keeps the setting; lstate.c is
   the only file of Lua whose code depends on it (lua.h's
   lua_getextraspace, a macro for C modules, is the other use: a C
   module that calls it is not supported by dumper-lua, doc/lua.md).  */

/* As lstate.c defines them, so that luaconf.h gives the core its own
   definitions (l_unlikely, ...).  */
#define lstate_c
#define LUA_CORE
#include "lprefix.h"
#include "luaconf.h"
#undef LUA_EXTRASPACE
#define LUA_EXTRASPACE 0
#include "lstate.c"
