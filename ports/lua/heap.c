/* SPDX-License-Identifier: MIT */
/* ports/lua/heap.c: Lua 5.4.4's objects described to libdumper.

   Owns the heap description (dumper/heap.h) of a Lua state, written
   from Lua's own structures (lobject.h, lstate.h) and nothing else: no
   object is rewritten before a dump or after a load.

   - Every collectable object (GCObject) is an object of its own type,
     found by header (GCObject.tt): no tagged words, so every pointer is
     a raw pointer, and a TValue is (Value, tt_): a collectable value is
     a by-header pointer, a light C function a code pointer, a light
     userdata a byte block in the executable (any other is refused
     before the dump, prepare.c).
   - The arrays whose length their owner holds are owner-sized blocks
     (dumper_trace_sized): a table's array part (luaH_realasize) and
     node part (2^lsizenode, or Lua's static dummynode, a byte block of
     the executable), a thread's stack (stack_last + EXTRA_STACK), the
     string table's hash, a prototype's k, code, p, upvalues, locvars.
   - Pointers into objects are interior pointers: a thread's top,
     stack_last, tbclist, ci; a CallInfo's func, top, previous and
     savedpc (into its prototype's code); an open upvalue's v (into a
     stack) and previous (into the next field of another upvalue or a
     thread), a closed one's v (its own value); a table's lastfree; the
     collector's sweepgc.
   - A thread is its lua_State, at the start of its block (lstate.c is
     compiled with LUA_EXTRASPACE 0, lstate-port.c).  The main thread
     and global_State
     share one allocation (LG): one object, "lua.main", the lua_State
     followed by the global_State, which every thread's l_G reaches as
     an interior pointer.  header_type tells it from other threads by
     that very pointer.

   Size, header and trace functions read only their own object and
   check the counts they read before multiplying (the verifier runs
   them on crafted images).  */

#include <config.h>

#include <stdint.h>

#include "port.h"

#include "lobject.h"
#include "lstate.h"
#include "ltable.h"
#include "lfunc.h"
#include "lstring.h"
#include "lauxlib.h"

/* lstate.c's LX and LG, which no header exports, as lstate-port.c
   compiles them: LUA_EXTRASPACE 0.  */
struct port_lx
{
  lua_State l;
};
struct port_lg
{
  struct port_lx l;
  global_State g;
};
/* The global_State's offset inside the "lua.main" object.  */
#define MAIN_G_OFFSET \
  (offsetof (struct port_lg, g) - offsetof (struct port_lg, l.l))

#define BY_HEADER DUMPER_TAG_BY_HEADER

/* COUNT elements of ELSIZE bytes, or SIZE_MAX for a count no block
   has room for (negative, or wrapping).  */
static size_t
array_bytes (long long count, size_t elsize)
{
  if (count < 0 || (unsigned long long) count > SIZE_MAX / elsize)
    return SIZE_MAX;
  return (size_t) count * elsize;
}

static void
trace_gc (struct dumper_tracer *t, GCObject *const *field)
{
  dumper_trace_ptr (t, (void *const *) field, BY_HEADER);
}

static void
trace_value (struct dumper_tracer *t, const TValue *v)
{
  if (iscollectable (v))
    trace_gc (t, &v->value_.gc);
  else if (rawtt (v) == LUA_VLCF)
    dumper_trace_code (t, &v->value_.f);
  else if (rawtt (v) == LUA_VLIGHTUSERDATA)
    dumper_trace_bytes (t, (void *const *) &v->value_.p, 1);
}

static void
trace_interior (struct dumper_tracer *t, const void *field)
{
  dumper_trace_interior (t, (void *const *) field);
}

/* ------------------------------------------------------------------ */
/* Strings.  */

static size_t
shrstr_size (const void *obj)
{
  return sizelstring (((const TString *) obj)->shrlen);
}

static void
shrstr_trace (const void *obj, struct dumper_tracer *t)
{
  const TString *ts = obj;
  trace_gc (t, &ts->next);
  dumper_trace_ptr (t, (void *const *) &ts->u.hnext, LUA_PORT_SHRSTR);
}

static size_t
lngstr_size (const void *obj)
{
  size_t len = ((const TString *) obj)->u.lnglen;
  if (len > SIZE_MAX - sizelstring (0))
    return 0;
  return sizelstring (len);
}

static void
lngstr_trace (const void *obj, struct dumper_tracer *t)
{
  trace_gc (t, &((const TString *) obj)->next);
}

/* ------------------------------------------------------------------ */
/* Tables.  */

static size_t
table_size (const void *obj)
{
  (void) obj;
  return sizeof (Table);
}

static void
table_trace (const void *obj, struct dumper_tracer *t)
{
  const Table *h = obj;
  trace_gc (t, &h->next);
  trace_gc (t, &h->gclist);
  dumper_trace_ptr (t, (void *const *) &h->metatable, LUA_PORT_TABLE);
  dumper_trace_sized (t, (void *const *) &h->array, LUA_PORT_TVALUES,
                      array_bytes (luaH_realasize (h), sizeof (TValue)));
  if (isdummy (h))
    /* Lua's static dummynode_: an address of the executable.  */
    dumper_trace_bytes (t, (void *const *) &h->node, sizeof (Node));
  else
    dumper_trace_sized (t, (void *const *) &h->node, LUA_PORT_NODES,
                        h->lsizenode >= sizeof (int) * CHAR_BIT - 1
                        ? SIZE_MAX
                        : array_bytes (sizenode (h), sizeof (Node)));
  trace_interior (t, &h->lastfree);
}

static void
tvalues_trace (const void *obj, size_t nbytes, struct dumper_tracer *t)
{
  const TValue *v = obj;
  for (size_t i = 0; i < nbytes / sizeof *v; i++)
    trace_value (t, &v[i]);
}

static void
nodes_trace (const void *obj, size_t nbytes, struct dumper_tracer *t)
{
  const Node *n = obj;
  for (size_t i = 0; i < nbytes / sizeof *n; i++)
    {
      trace_value (t, &n[i].i_val);
      lu_byte key_tt = n[i].u.key_tt;
      /* A dead key (LUA_TDEADKEY) keeps the address of a collected
         object, only to be compared; it is not collectable.  */
      if (key_tt & BIT_ISCOLLECTABLE)
        trace_gc (t, &n[i].u.key_val.gc);
      else if (key_tt == LUA_VLCF)
        dumper_trace_code (t, &n[i].u.key_val.f);
      else if (key_tt == LUA_VLIGHTUSERDATA)
        dumper_trace_bytes (t, (void *const *) &n[i].u.key_val.p, 1);
    }
}

/* ------------------------------------------------------------------ */
/* Functions.  */

static size_t
lcl_size (const void *obj)
{
  return sizeLclosure (((const LClosure *) obj)->nupvalues);
}

static void
lcl_trace (const void *obj, struct dumper_tracer *t)
{
  const LClosure *cl = obj;
  trace_gc (t, &cl->next);
  trace_gc (t, &cl->gclist);
  dumper_trace_ptr (t, (void *const *) &cl->p, LUA_PORT_PROTO);
  for (int i = 0; i < cl->nupvalues; i++)
    dumper_trace_ptr (t, (void *const *) &cl->upvals[i], LUA_PORT_UPVAL);
}

static size_t
ccl_size (const void *obj)
{
  return sizeCclosure (((const CClosure *) obj)->nupvalues);
}

static void
ccl_trace (const void *obj, struct dumper_tracer *t)
{
  const CClosure *cl = obj;
  trace_gc (t, &cl->next);
  trace_gc (t, &cl->gclist);
  dumper_trace_code (t, &cl->f);
  for (int i = 0; i < cl->nupvalues; i++)
    trace_value (t, &cl->upvalue[i]);
}

static size_t
proto_size (const void *obj)
{
  (void) obj;
  return sizeof (Proto);
}

static void
proto_trace (const void *obj, struct dumper_tracer *t)
{
  const Proto *f = obj;
  trace_gc (t, &f->next);
  trace_gc (t, &f->gclist);
  trace_gc (t, (GCObject *const *) &f->source);
  dumper_trace_sized (t, (void *const *) &f->k, LUA_PORT_TVALUES,
                      array_bytes (f->sizek, sizeof (TValue)));
  dumper_trace_sized (t, (void *const *) &f->code, LUA_PORT_CODE,
                      array_bytes (f->sizecode, sizeof (Instruction)));
  dumper_trace_sized (t, (void *const *) &f->p, LUA_PORT_PROTOS,
                      array_bytes (f->sizep, sizeof (Proto *)));
  dumper_trace_sized (t, (void *const *) &f->upvalues, LUA_PORT_UPVALDESCS,
                      array_bytes (f->sizeupvalues, sizeof (Upvaldesc)));
  dumper_trace_sized (t, (void *const *) &f->locvars, LUA_PORT_LOCVARS,
                      array_bytes (f->sizelocvars, sizeof (LocVar)));
  dumper_trace_bytes (t, (void *const *) &f->lineinfo,
                      array_bytes (f->sizelineinfo, sizeof (ls_byte)));
  dumper_trace_bytes (t, (void *const *) &f->abslineinfo,
                      array_bytes (f->sizeabslineinfo, sizeof (AbsLineInfo)));
}

static void
protos_trace (const void *obj, size_t nbytes, struct dumper_tracer *t)
{
  Proto *const *p = obj;
  for (size_t i = 0; i < nbytes / sizeof *p; i++)
    dumper_trace_ptr (t, (void *const *) &p[i], LUA_PORT_PROTO);
}

static void
upvaldescs_trace (const void *obj, size_t nbytes, struct dumper_tracer *t)
{
  const Upvaldesc *u = obj;
  for (size_t i = 0; i < nbytes / sizeof *u; i++)
    trace_gc (t, (GCObject *const *) &u[i].name);
}

static void
locvars_trace (const void *obj, size_t nbytes, struct dumper_tracer *t)
{
  const LocVar *v = obj;
  for (size_t i = 0; i < nbytes / sizeof *v; i++)
    trace_gc (t, (GCObject *const *) &v[i].varname);
}

static size_t
upval_size (const void *obj)
{
  (void) obj;
  return sizeof (UpVal);
}

/* Open: v points into a thread's stack, previous to the `next' field
   of the upvalue before it or to its thread's openupval.  Closed: v
   points to its own value.  */
static void
upval_trace (const void *obj, struct dumper_tracer *t)
{
  const UpVal *uv = obj;
  trace_gc (t, &uv->next);
  trace_interior (t, &uv->v);
  if (upisopen (uv))
    {
      dumper_trace_ptr (t, (void *const *) &uv->u.open.next, LUA_PORT_UPVAL);
      trace_interior (t, &uv->u.open.previous);
    }
  else
    trace_value (t, &uv->u.value);
}

/* ------------------------------------------------------------------ */
/* Userdata: the header and user values; of the payloads, only the
   layouts prepare.c admits (a file handle's LStream, the random state,
   none) reach a dump, and only LStream holds pointers.  */

static size_t
udata_size (const void *obj)
{
  const Udata *u = obj;
  size_t head = udatamemoffset (u->nuvalue);
  return u->len > SIZE_MAX - head ? 0 : head + u->len;
}

static void
udata_trace (const void *obj, struct dumper_tracer *t)
{
  const Udata *u = obj;
  trace_gc (t, &u->next);
  dumper_trace_ptr (t, (void *const *) &u->metatable, LUA_PORT_TABLE);
  if (u->nuvalue > 0)
    {
      trace_gc (t, &u->gclist);
      for (int i = 0; i < u->nuvalue; i++)
        trace_value (t, &u->uv[i].uv);
    }
  if (lua_port_lstream_p (u->len, u->nuvalue))
    {
      const luaL_Stream *s = (const luaL_Stream *) getudatamem (u);
      dumper_trace_code (t, &s->closef);
    }
}

/* The FILE * of a standard stream is this process's: the image holds
   none (restore.c puts each start's own back).  */
static void
udata_fixup (const void *obj, void *copy)
{
  const Udata *u = obj;
  if (lua_port_lstream_p (u->len, u->nuvalue))
    ((luaL_Stream *) getudatamem ((Udata *) copy))->f = NULL;
}

/* ------------------------------------------------------------------ */
/* Threads.  */

static void
trace_callinfo (struct dumper_tracer *t, const CallInfo *ci)
{
  trace_interior (t, &ci->func);
  trace_interior (t, &ci->top);
  trace_interior (t, &ci->previous);
  dumper_trace_ptr (t, (void *const *) &ci->next, LUA_PORT_CALLINFO);
  if (ci->callstatus & CIST_C)
    dumper_trace_code (t, &ci->u.c.k);
  else
    trace_interior (t, &ci->u.l.savedpc);
}

static size_t
callinfo_size (const void *obj)
{
  (void) obj;
  return sizeof (CallInfo);
}

static void
callinfo_trace (const void *obj, struct dumper_tracer *t)
{
  trace_callinfo (t, obj);
}

/* The stack's bytes: from stack to stack_last plus EXTRA_STACK slots
   (luaD_reallocstack).  */
static size_t
stack_bytes (const lua_State *L)
{
  uintptr_t base = (uintptr_t) L->stack, last = (uintptr_t) L->stack_last;
  if (L->stack == NULL)
    return 0;
  if (last < base || (last - base) % sizeof (StackValue) != 0
      || last - base > SIZE_MAX - EXTRA_STACK * sizeof (StackValue))
    return SIZE_MAX;
  return last - base + EXTRA_STACK * sizeof (StackValue);
}

static void
trace_thread (const lua_State *L, struct dumper_tracer *t)
{
  trace_gc (t, &L->next);
  trace_gc (t, &L->gclist);
  trace_gc (t, (GCObject *const *) &L->twups);
  trace_interior (t, &L->top);
  trace_interior (t, &L->l_G);
  trace_interior (t, &L->ci);
  trace_interior (t, &L->stack_last);
  dumper_trace_sized (t, (void *const *) &L->stack, LUA_PORT_STACK,
                      stack_bytes (L));
  dumper_trace_ptr (t, (void *const *) &L->openupval, LUA_PORT_UPVAL);
  trace_interior (t, &L->tbclist);
  trace_callinfo (t, &L->base_ci);
  dumper_trace_code (t, (const void *) &L->hook);
}

static size_t
thread_size (const void *obj)
{
  (void) obj;
  return sizeof (lua_State);
}

static void
thread_trace (const void *obj, struct dumper_tracer *t)
{
  trace_thread (obj, t);
}

static void
stack_trace (const void *obj, size_t nbytes, struct dumper_tracer *t)
{
  const StackValue *s = obj;
  for (size_t i = 0; i < nbytes / sizeof *s; i++)
    trace_value (t, &s[i].val);
}

/* ------------------------------------------------------------------ */
/* The main thread and global_State (one allocation, one object).  */

static size_t
main_size (const void *obj)
{
  (void) obj;
  return MAIN_G_OFFSET + sizeof (global_State);
}

static void
trace_global (const global_State *g, struct dumper_tracer *t)
{
  dumper_trace_code (t, &g->frealloc);
  dumper_trace_sized (t, (void *const *) &g->strt.hash, LUA_PORT_STRHASH,
                      array_bytes (g->strt.size, sizeof (TString *)));
  trace_value (t, &g->l_registry);
  GCObject *const *lists[] = {
    &g->allgc, &g->finobj, &g->gray, &g->grayagain, &g->weak,
    &g->ephemeron, &g->allweak, &g->tobefnz, &g->fixedgc, &g->survival,
    &g->old1, &g->reallyold, &g->firstold1, &g->finobjsur,
    &g->finobjold1, &g->finobjrold,
  };
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    trace_gc (t, lists[i]);
  trace_interior (t, &g->sweepgc);
  trace_gc (t, (GCObject *const *) &g->twups);
  dumper_trace_code (t, &g->panic);
  trace_gc (t, (GCObject *const *) &g->mainthread);
  trace_gc (t, (GCObject *const *) &g->memerrmsg);
  for (int i = 0; i < TM_N; i++)
    trace_gc (t, (GCObject *const *) &g->tmname[i]);
  for (int i = 0; i < LUA_NUMTAGS; i++)
    dumper_trace_ptr (t, (void *const *) &g->mt[i], LUA_PORT_TABLE);
  for (int i = 0; i < STRCACHE_N; i++)
    for (int j = 0; j < STRCACHE_M; j++)
      trace_gc (t, (GCObject *const *) &g->strcache[i][j]);
  dumper_trace_code (t, &g->warnf);
  trace_gc (t, (GCObject *const *) &g->ud_warn);
}

static void
main_trace (const void *obj, struct dumper_tracer *t)
{
  trace_thread (obj, t);
  trace_global ((const global_State *) ((const char *) obj + MAIN_G_OFFSET),
                t);
}

static void
strhash_trace (const void *obj, size_t nbytes, struct dumper_tracer *t)
{
  TString *const *h = obj;
  for (size_t i = 0; i < nbytes / sizeof *h; i++)
    dumper_trace_ptr (t, (void *const *) &h[i], LUA_PORT_SHRSTR);
}

/* ------------------------------------------------------------------ */

static int
header_type (const void *obj)
{
  const GCObject *o = obj;
  switch (o->tt)
    {
    case LUA_VSHRSTR: return LUA_PORT_SHRSTR;
    case LUA_VLNGSTR: return LUA_PORT_LNGSTR;
    case LUA_VTABLE: return LUA_PORT_TABLE;
    case LUA_VLCL: return LUA_PORT_LCL;
    case LUA_VCCL: return LUA_PORT_CCL;
    case LUA_VPROTO: return LUA_PORT_PROTO;
    case LUA_VUPVAL: return LUA_PORT_UPVAL;
    case LUA_VUSERDATA: return LUA_PORT_UDATA;
    case LUA_VTHREAD:
      return (uintptr_t) ((const lua_State *) obj)->l_G
             == (uintptr_t) obj + MAIN_G_OFFSET
             ? LUA_PORT_MAIN : LUA_PORT_THREAD;
    default: return -1;
    }
}

#define TYPE(n, s, t) { .name = (n), .size = (s), .trace = (t) }
#define SIZED(n, t) { .name = (n), .trace_sized = (t) }

static const struct dumper_type types[LUA_PORT_TYPE_COUNT] = {
  [LUA_PORT_SHRSTR] = TYPE ("lua.shortstring", shrstr_size, shrstr_trace),
  [LUA_PORT_LNGSTR] = TYPE ("lua.longstring", lngstr_size, lngstr_trace),
  [LUA_PORT_TABLE] = TYPE ("lua.table", table_size, table_trace),
  [LUA_PORT_LCL] = TYPE ("lua.closure", lcl_size, lcl_trace),
  [LUA_PORT_CCL] = TYPE ("lua.cclosure", ccl_size, ccl_trace),
  [LUA_PORT_PROTO] = TYPE ("lua.proto", proto_size, proto_trace),
  [LUA_PORT_UPVAL] = TYPE ("lua.upval", upval_size, upval_trace),
  [LUA_PORT_UDATA] = { .name = "lua.userdata", .size = udata_size,
                       .trace = udata_trace, .fixup = udata_fixup },
  [LUA_PORT_THREAD] = TYPE ("lua.thread", thread_size, thread_trace),
  [LUA_PORT_MAIN] = TYPE ("lua.main", main_size, main_trace),
  [LUA_PORT_CALLINFO] = TYPE ("lua.callinfo", callinfo_size, callinfo_trace),
  [LUA_PORT_TVALUES] = SIZED ("lua.tvalue[]", tvalues_trace),
  [LUA_PORT_NODES] = SIZED ("lua.node[]", nodes_trace),
  [LUA_PORT_STACK] = SIZED ("lua.stack[]", stack_trace),
  [LUA_PORT_STRHASH] = SIZED ("lua.strhash[]", strhash_trace),
  [LUA_PORT_PROTOS] = SIZED ("lua.proto*[]", protos_trace),
  [LUA_PORT_UPVALDESCS] = SIZED ("lua.upvaldesc[]", upvaldescs_trace),
  [LUA_PORT_LOCVARS] = SIZED ("lua.locvar[]", locvars_trace),
  [LUA_PORT_CODE] = SIZED ("lua.code[]", NULL),
};

/* No tagged words: tag 0 is a raw by-header pointer; tag 1 never
   occurs.  */
static const int tag_types[2] = { DUMPER_TAG_BY_HEADER, DUMPER_TAG_IMMEDIATE };

const struct dumper_heap lua_port_heap = {
  .types = types,
  .type_count = LUA_PORT_TYPE_COUNT,
  .tag_bits = 1,
  .tag_types = tag_types,
  .header_type = header_type,
};
