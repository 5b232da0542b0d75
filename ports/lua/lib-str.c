/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-str.c: Lua's lstrlib.c as it is, and the declarations of the C
   functions it stores in the heap.  Its functions are static, so
   they are declared here, where their names are visible: one line per
   luaL_Reg table (DUMPER_DECLARE_CODE_TABLE), one per other function a
   heap object may hold (closures, continuations, callbacks).  */

#include "lstrlib.c"
#include "port.h"

DUMPER_DECLARE_CODE_TABLE (strlib, func);
DUMPER_DECLARE_CODE_TABLE (stringmetamethods, func);
/* gmatch_aux is not declared: its closure holds a GMatchState with C
   pointers into its strings, which prepare.c refuses (and the dump
   would refuse the undeclared function if it came to that).  */

bool
lua_port_gmatch_p (lua_CFunction f)
{
  return f == gmatch_aux;
}
