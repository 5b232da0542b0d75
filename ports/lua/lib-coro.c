/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-coro.c: Lua's lcorolib.c as it is, and the declarations of the C
   functions it stores in the heap.  Its functions are static, so
   they are declared here, where their names are visible: one line per
   luaL_Reg table (DUMPER_DECLARE_CODE_TABLE), one per other function a
   heap object may hold (closures, continuations, callbacks).  */

#include "lcorolib.c"
#include "port.h"

DUMPER_DECLARE_CODE_TABLE (co_funcs, func);
DUMPER_DECLARE_CODE (luaB_auxwrap);     /* coroutine.wrap's closure */
