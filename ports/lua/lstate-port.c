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

/* The string hash seed.  lstate.c's luai_makeseed hashes the time and
   three addresses (ASLR) with luaS_hash, its only call of it in this
   file: in a run that will dump, the seed is a constant instead, so
   that two dumps of one init are the same bytes (the seed decides
   every string's hash, and so the order of every string-keyed table).
   Every start from a dump shares the dumping run's seed in any case
   (doc/lua.md, "Per start").  Other runs keep Lua's seed.  */
#include "lstring.h"
#include <dumper/gflags.h>
static unsigned int
lua_port_seed_hash (const char *str, size_t l, unsigned int seed)
{
  return will_dump ? 0x4c756131u : luaS_hash (str, l, seed);
}
#define luaS_hash lua_port_seed_hash
#include "lstate.c"
