/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-math.c: Lua's lmathlib.c as it is, the declarations of
   the C functions it stores in the heap, and the per-start seed of
   math.random.

   The random state (a RanState userdata, the upvalue of math.random
   and math.randomseed) is seeded from the time and an address when the
   library opens: a start from a dump would otherwise repeat the dumping
   run's sequence.  So each start reseeds it (lua_port_reseed_random),
   unless the init seeded it itself with math.randomseed (N): such a
   script wants that sequence.  luaopen_math is wrapped to remember the
   state and to put a math.randomseed in place that notes an explicit
   seed (both in the registry, so the dump keeps them).  */

#define luaopen_math lua_port_luaopen_math_upstream
#include "lmathlib.c"
#undef luaopen_math
#include "port.h"
#include <time.h>
#include <unistd.h>
#include <dumper/gflags.h>

DUMPER_DECLARE_CODE_TABLE (mathlib, func);
DUMPER_DECLARE_CODE_TABLE (randfuncs, func);

#define RANSTATE "lua_port.ranstate"
#define SEEDED "lua_port.seeded"

/* math.randomseed: the original, after noting an explicit seed.  */
static int
port_randomseed (lua_State *L)
{
  if (!lua_isnone (L, 1))
    {
      lua_pushboolean (L, 1);
      lua_setfield (L, LUA_REGISTRYINDEX, SEEDED);
    }
  return math_randomseed (L);
}
DUMPER_DECLARE_CODE (port_randomseed);

LUAMOD_API int luaopen_math (lua_State *L);

LUAMOD_API int
luaopen_math (lua_State *L)
{
  lua_port_luaopen_math_upstream (L);
  lua_getfield (L, -1, "random");
  lua_getupvalue (L, -1, 1);            /* the RanState */
  if (will_dump)
    {
      /* A constant in the dumping run (each start reseeds), so that two
         dumps of one init are the same bytes.  */
      setseed (L, ((RanState *) lua_touserdata (L, -1))->s, 0, 0);
      lua_pop (L, 2);
    }
  lua_pushvalue (L, -1);
  lua_setfield (L, LUA_REGISTRYINDEX, RANSTATE);
  lua_pushcclosure (L, port_randomseed, 1);
  lua_setfield (L, -3, "randomseed");
  lua_pop (L, 1);                       /* math.random */
  return 1;
}

const void *
lua_port_ranstate (lua_State *L)
{
  lua_getfield (L, LUA_REGISTRYINDEX, RANSTATE);
  const void *p = lua_touserdata (L, -1);
  lua_pop (L, 1);
  return p;
}

void
lua_port_reseed_random (lua_State *L)
{
  int seeded = lua_getfield (L, LUA_REGISTRYINDEX, SEEDED) != LUA_TNIL;
  lua_pop (L, 1);
  RanState *state = (RanState *) lua_port_ranstate (L);
  if (seeded || state == NULL)
    return;
  /* randseed's time (seconds) and state address are the same for two
     starts in one second from an image at a fixed or per-boot base:
     the nanoseconds and the process id tell them apart.  */
  struct timespec now;
  clock_gettime (CLOCK_REALTIME, &now);
  setseed (L, state->s,
           (lua_Unsigned) now.tv_sec ^ ((lua_Unsigned) now.tv_nsec << 20),
           (lua_Unsigned) (size_t) L ^ (lua_Unsigned) getpid ());
  lua_pop (L, 2);                       /* the seeds setseed pushed */
}
