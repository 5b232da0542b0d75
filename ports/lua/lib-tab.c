/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-tab.c: Lua's ltablib.c as it is, and the declarations of the C
   functions it stores in the heap.  Its functions are static, so
   they are declared here, where their names are visible: one line per
   luaL_Reg table (DUMPER_DECLARE_CODE_TABLE), one per other function a
   heap object may hold (closures, continuations, callbacks).  */

#include "ltablib.c"
#include "port.h"

DUMPER_DECLARE_CODE_TABLE (tab_funcs, func);
