/* SPDX-License-Identifier: MIT */
/* ports/lua/lib-io.c: Lua's liolib.c as it is, the declarations of the
   C functions it stores in the heap, and what the port needs to know
   of its userdata.

   A file handle (LStream) holds a FILE *, which belongs to the process:
   only the three standard streams can be saved, and each start points
   them at its own stdin, stdout and stderr.  luaopen_io is wrapped to
   remember which userdata they are (a registry table, so the dump
   keeps it).  */

#define luaopen_io lua_port_luaopen_io_upstream
#include "liolib.c"
#undef luaopen_io
#include "port.h"

DUMPER_DECLARE_CODE_TABLE (iolib, func);
DUMPER_DECLARE_CODE_TABLE (meth, func);
DUMPER_DECLARE_CODE_TABLE (metameth, func);
DUMPER_DECLARE_CODE (io_readline);      /* io.lines' and file:lines' closure */
DUMPER_DECLARE_CODE (io_noclose);       /* LStream.closef */
DUMPER_DECLARE_CODE (io_fclose);
DUMPER_DECLARE_CODE (io_pclose);

/* registry[STDFILES] = { io.stdin, io.stdout, io.stderr }.  */
#define STDFILES "lua_port.stdfiles"

LUAMOD_API int luaopen_io (lua_State *L);

LUAMOD_API int
luaopen_io (lua_State *L)
{
  lua_port_luaopen_io_upstream (L);
  lua_createtable (L, 3, 0);
  static const char *const names[] = { "stdin", "stdout", "stderr" };
  for (int i = 0; i < 3; i++)
    {
      lua_getfield (L, -2, names[i]);
      lua_rawseti (L, -2, i + 1);
    }
  lua_setfield (L, LUA_REGISTRYINDEX, STDFILES);
  return 1;
}

bool
lua_port_lstream_p (size_t len, unsigned nuvalue)
{
  return len == sizeof (LStream) && nuvalue == 0;
}

/* The standard stream INDEX (1..3) of registry[STDFILES], or NULL.  */
static LStream *
std_stream (lua_State *L, int index)
{
  LStream *p = NULL;
  if (lua_getfield (L, LUA_REGISTRYINDEX, STDFILES) == LUA_TTABLE)
    {
      lua_rawgeti (L, -1, index);
      p = lua_touserdata (L, -1);
      lua_pop (L, 1);
    }
  lua_pop (L, 1);
  return p;
}

int
lua_port_io_udata_kind (lua_State *L, const void *payload,
                        const void *metatable)
{
  for (int i = 1; i <= 3; i++)
    if (std_stream (L, i) == payload)
      return 1;
  luaL_getmetatable (L, LUA_FILEHANDLE);
  const void *handle_mt = lua_topointer (L, -1);
  lua_pop (L, 1);
  if (metatable == NULL || metatable != handle_mt)
    return 0;
  return ((const LStream *) payload)->closef == NULL ? 2 : 3;
}

static void
bind_streams (lua_State *L, bool bind)
{
  FILE *const files[] = { stdin, stdout, stderr };
  for (int i = 1; i <= 3; i++)
    {
      LStream *p = std_stream (L, i);
      if (p != NULL && p->closef != NULL)
        p->f = bind ? files[i - 1] : NULL;
    }
}

void
lua_port_rebind_streams (lua_State *L)
{
  bind_streams (L, true);
}

void
lua_port_unbind_streams (lua_State *L)
{
  bind_streams (L, false);
}
