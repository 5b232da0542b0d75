/* SPDX-License-Identifier: MIT */
/* ports/lua/port.h: what the parts of the Lua port share.

   The port is Debian's Lua 5.4.4 as it is, plus:
   - main.c: the command line (--dump=, --image=) and the start-up
     sequence of dumper.h around lua.c's own main;
   - alloc.c: the lua_Alloc that takes Lua's memory from libdumper;
   - heap.c: the heap description of Lua's objects (heap.h);
   - prepare.c: what runs before a dump (a full collection, the spare
     CallInfos freed, the refusals);
   - restore.c: what runs after a load (rehash, streams, seeds, paths);
   - lib-*.c, lua-main.c: Lua's library files and lua.c, included as
     they are, with the declarations of their C functions.  */

#ifndef LUA_PORT_H
#define LUA_PORT_H

#include <stdbool.h>
#include <dumper/dumper.h>

#include "lua.h"

/* The state lua.c works on: restored from a dump (a pdump image or an
   unexec'd executable), or NULL before the cold start creates it.  */
extern lua_State *lua_port_state;

/* The heap description (heap.c).  */
extern const struct dumper_heap lua_port_heap;
enum lua_port_type
{
  LUA_PORT_SHRSTR, LUA_PORT_LNGSTR, LUA_PORT_TABLE, LUA_PORT_LCL,
  LUA_PORT_CCL, LUA_PORT_PROTO, LUA_PORT_UPVAL, LUA_PORT_UDATA,
  LUA_PORT_THREAD, LUA_PORT_MAIN, LUA_PORT_CALLINFO,
  /* Owner-sized blocks.  */
  LUA_PORT_TVALUES, LUA_PORT_NODES, LUA_PORT_STACK, LUA_PORT_STRHASH,
  LUA_PORT_PROTOS, LUA_PORT_UPVALDESCS, LUA_PORT_LOCVARS, LUA_PORT_CODE,
  LUA_PORT_TYPE_COUNT
};

/* The lua_Alloc of every state (alloc.c).  */
void *lua_port_alloc (void *ud, void *ptr, size_t osize, size_t nsize);

/* lua.c's calls, redirected (lua-main.c): the state, the libraries,
   the end.  */
lua_State *lua_port_newstate (void);
void lua_port_openlibs (lua_State *L);
void lua_port_close (lua_State *L);
int lua_port_main (int argc, char **argv);

/* lauxlib.c's luaL_newstate with lua_port_alloc (lib-aux.c).  */
lua_State *lua_port_newstate_cold (void);

/* The dump this run makes, or NULL (main.c).  */
extern const char *lua_port_dump_output;
/* Prepare the state for a dump and refuse what cannot be saved
   (prepare.c): 0, or 1 with the reason in WHY.  */
int lua_port_prepare_dump (lua_State *L, char *why, size_t why_size);
/* Empty the API's string cache (prepare.c): the last step before the
   dump, since any API call with a C string fills it.  */
void lua_port_clear_strcache (lua_State *L);

/* The library parts of the port, in the wrappers that see the static
   names.  */
/* lib-load.c: the name of a C library loaded with dlopen, or NULL.  */
const char *lua_port_loaded_clib (lua_State *L);
/* lib-load.c: package.path and cpath from this start's environment.  */
void lua_port_reset_paths (lua_State *L);
/* lib-math.c: reseed math.random unless the script seeded it.  */
void lua_port_reseed_random (lua_State *L);
/* lib-io.c: what the userdata whose payload is PAYLOAD and whose
   metatable is METATABLE is: 0 not io's, 1 a standard stream, 2 a
   closed file, 3 another open file.  */
int lua_port_io_udata_kind (lua_State *L, const void *payload,
                            const void *metatable);
/* lib-io.c: point the standard streams at this process's FILEs, or
   at none (before a dump).  */
void lua_port_rebind_streams (lua_State *L);
void lua_port_unbind_streams (lua_State *L);
/* lib-io.c: the LStream layout, for the heap description.  */
bool lua_port_lstream_p (size_t len, unsigned nuvalue);
/* lib-math.c: the random state's userdata, or NULL.  */
const void *lua_port_ranstate (lua_State *L);
/* lib-str.c: true when F is string.gmatch's iterator.  */
bool lua_port_gmatch_p (lua_CFunction f);

/* registry[LUA_PORT_REHASH]: the tables with keys hashed by address,
   listed before a dump (prepare.c), rehashed after a load that moved
   the objects (restore.c).  */
#define LUA_PORT_REHASH "lua_port.rehash"

/* restore.c: the after-load work.  */
void lua_port_after_load (void);
void lua_port_after_args (lua_State *L);
/* restore.c: true when lua_close of L would only free memory.  */
bool lua_port_close_only_frees (lua_State *L);

#endif /* LUA_PORT_H */
