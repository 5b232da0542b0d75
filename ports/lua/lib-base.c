/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-base.c: Lua's lbaselib.c as it is, and the declarations of the C
   functions it stores in the heap.  Its functions are static, so
   they are declared here, where their names are visible: one line per
   luaL_Reg table (DUMPER_DECLARE_CODE_TABLE), one per other function a
   heap object may hold (closures, continuations, callbacks).  */

#include "lbaselib.c"
#include "port.h"

DUMPER_DECLARE_CODE_TABLE (base_funcs, func);
DUMPER_DECLARE_CODE (luaB_next);        /* pairs' iterator */
DUMPER_DECLARE_CODE (ipairsaux);        /* ipairs' iterator */
/* Continuations: a coroutine suspended inside pcall, xpcall, dofile or
   a __pairs metamethod keeps one in its CallInfo.  */
DUMPER_DECLARE_CODE (finishpcall);
DUMPER_DECLARE_CODE (dofilecont);
DUMPER_DECLARE_CODE (pairscont);
