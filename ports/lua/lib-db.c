/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-db.c: Lua's ldblib.c as it is, and the declarations of the C
   functions it stores in the heap.  Its functions are static, so
   they are declared here, where their names are visible: one line per
   luaL_Reg table (DUMPER_DECLARE_CODE_TABLE), one per other function a
   heap object may hold (closures, continuations, callbacks).  */

#include "ldblib.c"
#include "port.h"

DUMPER_DECLARE_CODE_TABLE (dblib, func);
DUMPER_DECLARE_CODE (hookf);            /* lua_State.hook of debug.sethook */
