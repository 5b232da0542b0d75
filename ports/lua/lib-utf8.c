/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-utf8.c: Lua's lutf8lib.c as it is, and the declarations of the C
   functions it stores in the heap.  Its functions are static, so
   they are declared here, where their names are visible: one line per
   luaL_Reg table (DUMPER_DECLARE_CODE_TABLE), one per other function a
   heap object may hold (closures, continuations, callbacks).  */

#include "lutf8lib.c"
#include "port.h"

DUMPER_DECLARE_CODE_TABLE (funcs, func);
DUMPER_DECLARE_CODE (iter_auxstrict);   /* utf8.codes' iterators */
DUMPER_DECLARE_CODE (iter_auxlax);
