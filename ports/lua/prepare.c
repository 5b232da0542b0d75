/* SPDX-License-Identifier: MIT */
/* ports/lua/prepare.c: the state made ready for a dump, and what no
   dump can hold refused with a message that names it.

   Readiness is Lua's own housekeeping, through its own functions:
   - a full collection in incremental mode (lua_gc; the generational
     mode is put back after it, which is one more full cycle): garbage
     gone, and the finalizers of garbage objects run (a generational
     full collection leaves them pending, with objects such as
     luaL_Buffer's boxes that only their finalizer may free); objects
     still alive with a __gc stay pending, for the starts from the dump;
   - the dead slots of every stack (above top) cleared to whole zero
     words: Lua's atomic phase sets them to nil, which writes only the
     tag, and the stale pointer left beside it would reach the image;
   - the Value beside a tag that does not use it (nil, false, true, an
     empty slot, a dead key) zeroed: Lua writes only the tag for them,
     so the word beside it may hold the address of a long-gone object
     or of the C stack, which would make dumps differ and which the
     pdump writer reports as a dangling address;
   - last (lua_port_clear_strcache, right before dumper_dump), the API's
     string cache (global_State.strcache) emptied as luaS_init fills it: it is indexed by the address of C strings, so what it
     holds depends on where the executable was loaded, and two dumps of
     one init would differ (and it is only a cache);
   - every thread's spare CallInfos freed (luaE_freeCI): their fields
     are stale (a CallInfo past L->ci may point into a stack since
     reallocated), and the live ones are exactly the chain up to ci.

   It also lists the tables with a key hashed by address in the registry
   (LUA_PORT_REHASH), for the start that must rehash them.

   Refused (the first found is named): a C library loaded with dlopen
   (its code and data are not the executable's), a file handle other
   than the three standard streams that is still open, a userdata whose
   payload layout the port does not know (by its metatable's __name), a
   pending string.gmatch iterator (C pointers into its strings), a light
   userdata that does not point into the executable.  */

#include <config.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port.h"

#include "lobject.h"
#include "lstate.h"
#include "ltable.h"
#include "lfunc.h"
#include "lstring.h"
#include "lgc.h"
#include "lapi.h"

/* The executable's extent (GNU ld's symbols).  */
extern char __executable_start[], _end[];

struct refusal
{
  char *why;
  size_t size;
  bool refused;
  /* The tables with a key hashed by address (restore.c rehashes them
     after a load that moved the objects).  */
  Table **keyed;
  size_t keyed_count, keyed_capacity;
  bool nomem;
};

static void refuse (struct refusal *r, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

static void
refuse (struct refusal *r, const char *fmt, ...)
{
  if (!r->refused)
    {
      va_list ap;
      va_start (ap, fmt);
      vsnprintf (r->why, r->size, fmt, ap);
      va_end (ap);
    }
  r->refused = true;
}

/* Zero the Value of V when its tag does not use it.  */
static void
clean_value (Value *value, lu_byte tt)
{
  int type = novariant (tt);
  if (type == LUA_TNIL || type == LUA_TBOOLEAN || tt == LUA_TDEADKEY)
    memset (value, 0, sizeof *value);
}

static void
check_value (struct refusal *r, TValue *v, const char *where)
{
  clean_value (&v->value_, rawtt (v));
  if (rawtt (v) != LUA_VLIGHTUSERDATA || v->value_.p == NULL)
    return;
  const char *p = v->value_.p;
  if (p >= __executable_start && p < _end)
    return;
  char what[96];
  snprintf (what, sizeof what, "%p (in %s)", v->value_.p, where);
  refuse (r, "a light userdata %s points outside the executable", what);
}

/* True when a key of H hashes by its address.  */
static bool
keyed_by_address (const Table *h)
{
  if (isdummy (h))
    return false;
  for (unsigned i = 0; i < (unsigned) sizenode (h); i++)
    {
      const Node *n = gnode (h, i);
      lu_byte tt = n->u.key_tt;
      if (tt == LUA_VLCF || tt == LUA_VLIGHTUSERDATA
          || ((tt & BIT_ISCOLLECTABLE) && novariant (tt) != LUA_TSTRING))
        return true;
    }
  return false;
}

static void
note_keyed (struct refusal *r, Table *h)
{
  if (r->keyed_count == r->keyed_capacity)
    {
      size_t capacity = r->keyed_capacity ? 2 * r->keyed_capacity : 64;
      Table **grown = realloc (r->keyed, capacity * sizeof *grown);
      if (grown == NULL)
        {
          r->nomem = true;
          return;
        }
      r->keyed = grown;
      r->keyed_capacity = capacity;
    }
  r->keyed[r->keyed_count++] = h;
}

static void
check_table (struct refusal *r, Table *h)
{
  if (keyed_by_address (h))
    note_keyed (r, h);
  unsigned asize = luaH_realasize (h);
  for (unsigned i = 0; i < asize; i++)
    check_value (r, &h->array[i], "a table");
  if (isdummy (h))
    return;
  for (unsigned i = 0; i < (unsigned) sizenode (h); i++)
    {
      Node *n = gnode (h, i);
      clean_value (&n->u.key_val, n->u.key_tt);
      TValue key;
      getnodekey (NULL, &key, n);
      check_value (r, gval (n), "a table");
      check_value (r, &key, "a table key");
    }
}

/* The __name of userdata U's metatable, or "(no __name)".  */
static const char *
udata_name (lua_State *L, Udata *u)
{
  if (u->metatable == NULL)
    return "(no metatable)";
  const TValue *name = luaH_getshortstr (u->metatable, luaS_new (L, "__name"));
  return ttisstring (name) ? getstr (tsvalue (name)) : "(no __name)";
}

static void
check_udata (lua_State *L, struct refusal *r, Udata *u)
{
  for (int i = 0; i < u->nuvalue; i++)
    check_value (r, &u->uv[i].uv, "a userdata's user value");
  void *payload = getudatamem (u);
  switch (lua_port_io_udata_kind (L, payload, u->metatable))
    {
    case 1: case 2: return;     /* a standard stream, a closed file */
    case 3:
      refuse (r, "an open file other than io.stdin, io.stdout and io.stderr "
              "(%s); close it before the init ends", udata_name (L, u));
      return;
    default: break;
    }
  if (u->len == 0 || payload == lua_port_ranstate (L))
    return;
  refuse (r, "a userdata of type %s, whose C layout the port does not know",
          udata_name (L, u));
}

static void
check_thread (struct refusal *r, lua_State *th)
{
  luaE_freeCI (th);
  StkId end = th->stack_last + EXTRA_STACK;
  if (th->top < end)
    memset (th->top, 0, (size_t) (end - th->top) * sizeof *th->top);
  for (StkId o = th->stack; o < th->top; o++)
    check_value (r, s2v (o), "a thread's stack");
}

static void
check_object (lua_State *L, struct refusal *r, GCObject *o)
{
  switch (o->tt)
    {
    case LUA_VTABLE: check_table (r, gco2t (o)); break;
    case LUA_VUSERDATA: check_udata (L, r, gco2u (o)); break;
    case LUA_VTHREAD: check_thread (r, gco2th (o)); break;
    case LUA_VPROTO:
      for (int i = 0; i < gco2p (o)->sizek; i++)
        check_value (r, &gco2p (o)->k[i], "a function's constants");
      break;
    case LUA_VUPVAL:
      if (!upisopen (gco2upv (o)))
        check_value (r, gco2upv (o)->v, "an upvalue");
      break;
    case LUA_VCCL:
      {
        CClosure *cl = gco2ccl (o);
        if (lua_port_gmatch_p (cl->f))
          refuse (r, "a pending string.gmatch iterator (its state holds "
                  "C pointers into its strings); finish or drop it before "
                  "the init ends");
        for (int i = 0; i < cl->nupvalues; i++)
          check_value (r, &cl->upvalue[i], "a C closure's upvalue");
        break;
      }
    default: break;
    }
}

int
lua_port_prepare_dump (lua_State *L, char *why, size_t why_size)
{
  struct refusal r = { .why = why, .size = why_size };
  int mode = lua_gc (L, LUA_GCINC, 0, 0, 0);
  lua_gc (L, LUA_GCCOLLECT);
  if (mode == LUA_GCGEN)
    lua_gc (L, LUA_GCGEN, 0, 0);
  const char *lib = lua_port_loaded_clib (L);
  if (lib != NULL)
    refuse (&r, "the C library %s was loaded with dlopen during the init "
            "(a dump holds no code or data of a shared library)", lib);
  global_State *g = G (L);
  check_thread (&r, g->mainthread);
  GCObject *lists[] = { g->allgc, g->finobj, g->tobefnz, g->fixedgc };
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    for (GCObject *o = lists[i]; o != NULL && !r.refused; o = o->next)
      check_object (L, &r, o);
  if (r.nomem)
    refuse (&r, "out of memory listing the address-keyed tables");
  if (!r.refused)
    {
      /* registry[REHASH] = the address-keyed tables: a start that moved
         the objects rehashes these, not every table (restore.c).  */
      lua_createtable (L, (int) r.keyed_count, 0);
      for (size_t i = 0; i < r.keyed_count; i++)
        {
          sethvalue2s (L, L->top, r.keyed[i]);
          api_incr_top (L);
          lua_rawseti (L, -2, (lua_Integer) i + 1);
        }
      lua_setfield (L, LUA_REGISTRYINDEX, LUA_PORT_REHASH);
    }
  free (r.keyed);
  return r.refused ? 1 : 0;
}

/* Last before the dump: every lua_getfield or luaS_new, the port's own
   included, fills the cache again.  */
void
lua_port_clear_strcache (lua_State *L)
{
  global_State *g = G (L);
  for (int i = 0; i < STRCACHE_N; i++)
    for (int j = 0; j < STRCACHE_M; j++)
      g->strcache[i][j] = g->memerrmsg;
}
