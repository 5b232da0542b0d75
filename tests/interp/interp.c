/* SPDX-License-Identifier: MIT */
/* tests/interp/interp.c: a small interpreter with Lua's heap shape, and
   its heap description: the worked example of doc/integration.md,
   "Porting an existing runtime".

   The interpreter (first half) is written as such a runtime is written:
   allocation through one realloc-style function, a value stack that
   grows by reallocation and is corrected afterwards, CallInfo frames
   pointing into the stack and into code arrays, open upvalues into the
   stack and closed ones into themselves, tables with an array part and
   a chained node part (keys hashed by address, Lua's rule for
   collectable keys), an interned string table, C functions in static
   registration tables.  The heap description (second half) reports
   that heap as it is: no rewriting before a dump or after a load.

   Usage: interp [--dump=FILE | --image=FILE] [--bad SCENARIO]
     (no option)     cold start: build the state, check it, run the
                     program, print the digest
     --dump=FILE     build the state and dump it (pdumper: an image;
                     unexec: an executable that starts from it)
     --image=FILE    start from a pdumper image (the dumped executable
                     of unexec needs no option)
     --bad SCENARIO  before the dump, break one rule (interp-refuse.sh):
                     orphan-interior, oversize, disagree, registration

   The state is built up to a suspended frame (a YIELD instruction); the
   check then verifies every relation, the program resumes the frames,
   grows the stack, calls C functions through the registry, and the
   digest (no address hashed) must equal the cold run's.  */

#include <config.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dumper/dumper.h>

#include "interp.h"

DUMPER_DEFINE_FINGERPRINT;

/* ------------------------------------------------------------------ */
/* Memory (lmem.c): one realloc-style entry, like lua_Alloc.  */

static void
fatal (const char *what)
{
  fprintf (stderr, "interp: %s\n", what);
  exit (71);
}

/* BLOCK of OSIZE bytes becomes NSIZE bytes.  A block restored from a
   pdump image belongs to the image, which dumper_realloc refuses
   (DUMPER_E_STATE): the interpreter then copies it, as its allocator
   contract allows (the image keeps the old copy; freeing it is a
   no-op).  */
static void *
luaM_realloc (void *block, size_t osize, size_t nsize)
{
  if (nsize == 0)
    {
      dumper_free (block);
      return NULL;
    }
  if (block == NULL)
    {
      void *p = dumper_alloc (nsize);
      if (p == NULL)
        fatal ("out of memory");
      return p;
    }
  void *p = dumper_realloc (block, nsize);
  if (p == NULL && dumper_last_status () == DUMPER_E_STATE)
    {
      p = dumper_alloc (nsize);
      if (p != NULL)
        memcpy (p, block, osize < nsize ? osize : nsize);
    }
  if (p == NULL)
    fatal ("out of memory");
  if (nsize > osize)   /* dumper_realloc does not zero the new part */
    memset ((char *) p + osize, 0, nsize - osize);
  return p;
}

#define luaM_new(sz) luaM_realloc (NULL, 0, (sz))

static GCObject *
luaC_newobj (lua_State *L, uint8_t tt, size_t sz)
{
  GCObject *o = luaM_new (sz);
  o->tt = tt;
  o->next = L->l_G->allgc;
  L->l_G->allgc = o;
  return o;
}

/* ------------------------------------------------------------------ */
/* Values.  Fields are set one by one (never a struct copy from a local)
   so that padding stays as dumper_alloc zeroed it.  */

static void setnil (TValue *v) { v->value_.i = 0; v->tt_ = LUA_TNIL; }
static void setint (TValue *v, int64_t i) { v->value_.i = i; v->tt_ = LUA_TNUMINT; }
static void setgc (TValue *v, void *o)
{ v->value_.gc = o; v->tt_ = ((GCObject *) o)->tt; }
static void setfvalue (TValue *v, lua_CFunction f)
{ v->value_.f = f; v->tt_ = LUA_TLCF; }
static void setobj (TValue *d, const TValue *s)
{ d->value_ = s->value_; d->tt_ = s->tt_; }

/* ------------------------------------------------------------------ */
/* Strings (lstring.c).  */

static uint32_t
luaS_hash (const char *str, size_t l, uint32_t seed)
{
  uint32_t h = seed ^ (uint32_t) l;
  for (; l > 0; l--)
    h ^= ((h << 5) + (h >> 2) + (uint8_t) str[l - 1]);
  return h;
}

static void
luaS_resize (lua_State *L, int newsize)
{
  stringtable *tb = &L->l_G->strt;
  TString **hash = luaM_new (newsize * sizeof *hash);
  for (int i = 0; i < tb->size; i++)
    for (TString *p = tb->hash[i], *hnext; p != NULL; p = hnext)
      {
        hnext = p->hnext;
        p->hnext = hash[p->hash % (unsigned) newsize];
        hash[p->hash % (unsigned) newsize] = p;
      }
  luaM_realloc (tb->hash, tb->size * sizeof *hash, 0);
  tb->hash = hash;
  tb->size = newsize;
}

static TString *
luaS_new (lua_State *L, const char *str)
{
  global_State *g = L->l_G;
  size_t l = strlen (str);
  uint32_t h = luaS_hash (str, l, g->seed);
  for (TString *ts = g->strt.hash[h % (unsigned) g->strt.size]; ts; ts = ts->hnext)
    if (ts->len == l && memcmp (ts->contents, str, l) == 0)
      return ts;
  if (g->strt.nuse >= g->strt.size)
    luaS_resize (L, g->strt.size * 2);
  TString *ts = (TString *) luaC_newobj (L, LUA_TSTRING,
                                         offsetof (TString, contents) + l + 1);
  ts->hash = h;
  ts->len = l;
  memcpy (ts->contents, str, l + 1);
  TString **list = &g->strt.hash[h % (unsigned) g->strt.size];
  ts->hnext = *list;
  *list = ts;
  g->strt.nuse++;
  return ts;
}

/* ------------------------------------------------------------------ */
/* Tables (ltable.c): keys 1..alimit in the array part, the others in
   a node part of 2^lsizenode nodes chained by offsets; free nodes are
   taken from the top down through lastfree.  */

#define sizenode(t) (1 << (t)->lsizenode)

static Node *
mainposition (const Table *t, uint8_t key_tt, Value key)
{
  uint64_t h;
  if (key_tt == LUA_TSTRING)
    h = ((const TString *) key.gc)->hash;
  else if (iscollectable (key_tt))
    h = (uint64_t) (uintptr_t) key.gc;       /* by address: Lua's hashpointer */
  else
    h = (uint64_t) key.i;
  return &t->node[h % (uint64_t) ((sizenode (t) - 1) | 1)];
}

static bool
samekey (const Node *n, uint8_t key_tt, Value key)
{
  return n->key_tt == key_tt && n->key_val.i == key.i;
}

static Node *
getfreepos (Table *t)
{
  while (t->lastfree > t->node)
    {
      t->lastfree--;
      if (t->lastfree->key_tt == LUA_TNIL)
        return t->lastfree;
    }
  return NULL;
}

/* Put (KEY, VAL) into its main position, moving a colliding node that
   is not in its own main position (Lua's luaH_newkey).  */
static bool
insert_node (Table *t, uint8_t key_tt, Value key, const TValue *val)
{
  Node *mp = mainposition (t, key_tt, key);
  if (mp->key_tt != LUA_TNIL)
    {
      Node *f = getfreepos (t);
      if (f == NULL)
        return false;
      Node *othern = mainposition (t, mp->key_tt, mp->key_val);
      if (othern != mp)
        {
          while (othern + othern->next != mp)
            othern += othern->next;
          othern->next = (int32_t) (f - othern);
          *f = *mp;
          if (mp->next != 0)
            {
              f->next += (int32_t) (mp - f);
              mp->next = 0;
            }
          setnil (&mp->i_val);
        }
      else
        {
          if (mp->next != 0)
            f->next = (int32_t) (mp + mp->next - f);
          mp->next = (int32_t) (f - mp);
          mp = f;
        }
    }
  mp->key_tt = key_tt;
  mp->key_val = key;
  setobj (&mp->i_val, val);
  return true;
}

/* Give T a node part of 2^LSIZE nodes and put every entry back in.
   Also what the after-load hook uses to rehash by address.  */
static void
luaH_resize (Table *t, uint8_t lsize)
{
  Node *old = t->node;
  int oldsize = old ? sizenode (t) : 0;
  t->lsizenode = lsize;
  t->node = luaM_new (sizenode (t) * sizeof (Node));
  t->lastfree = t->node + sizenode (t);      /* one past the end */
  for (int i = 0; i < oldsize; i++)
    if (old[i].key_tt != LUA_TNIL)
      insert_node (t, old[i].key_tt, old[i].key_val, &old[i].i_val);
  luaM_realloc (old, oldsize * sizeof (Node), 0);
}

static Table *
luaH_new (lua_State *L, unsigned int asize, uint8_t lsize)
{
  Table *t = (Table *) luaC_newobj (L, LUA_TTABLE, sizeof (Table));
  t->alimit = asize;
  t->array = asize ? luaM_new (asize * sizeof (TValue)) : NULL;
  luaH_resize (t, lsize);
  return t;
}

static const TValue *
luaH_get (const Table *t, uint8_t key_tt, Value key)
{
  if (key_tt == LUA_TNUMINT && key.i >= 1 && (uint64_t) key.i <= t->alimit)
    return &t->array[key.i - 1];
  for (const Node *n = mainposition (t, key_tt, key);; n += n->next)
    {
      if (samekey (n, key_tt, key))
        return &n->i_val;
      if (n->next == 0)
        return NULL;
    }
}

static TValue *
luaH_set (lua_State *L, Table *t, uint8_t key_tt, Value key)
{
  (void) L;
  const TValue *slot = luaH_get (t, key_tt, key);
  if (slot != NULL)
    return (TValue *) slot;
  TValue nil;
  memset (&nil, 0, sizeof nil);
  while (!insert_node (t, key_tt, key, &nil))
    luaH_resize (t, t->lsizenode + 1);
  return (TValue *) luaH_get (t, key_tt, key);
}

static TValue *
setfield (lua_State *L, Table *t, const char *name)
{
  Value k = { .gc = (GCObject *) luaS_new (L, name) };
  return luaH_set (L, t, LUA_TSTRING, k);
}

/* ------------------------------------------------------------------ */
/* The stack (ldo.c).  */

#define BASIC_STACK_SIZE 16

static void
correctstack (lua_State *L, StkId oldstack, StkId newstack)
{
  L->top = newstack + (L->top - oldstack);
  for (UpVal *up = L->openupval; up != NULL; up = up->u.open.next)
    up->v = newstack + (up->v - oldstack);
  for (CallInfo *ci = L->ci; ci != NULL; ci = ci->previous)
    {
      ci->top = newstack + (ci->top - oldstack);
      ci->func = newstack + (ci->func - oldstack);
    }
}

static void
luaD_reallocstack (lua_State *L, int newsize)
{
  StkId old = L->stack;
  L->stack = luaM_realloc (old, L->stacksize * sizeof (TValue),
                           newsize * sizeof (TValue));
  L->stacksize = newsize;
  L->stack_last = L->stack + newsize - EXTRA_STACK;
  correctstack (L, old, L->stack);
}

static void
luaD_checkstack (lua_State *L, int n)
{
  if (L->stack_last - L->top <= n)
    luaD_reallocstack (L, L->stacksize * 2 + n);
  if (L->top + n > L->ci->top)
    L->ci->top = L->top + n;
}

/* V may be a stack slot (an open upvalue's): copied before the stack
   may move.  */
static void
push (lua_State *L, const TValue *v)
{
  TValue copy;
  setobj (&copy, v);
  luaD_checkstack (L, 1);
  setobj (L->top++, &copy);
}

/* Popped slots are cleared, as Lua's collector clears the dead part of
   a stack: the block never holds a value that may dangle.  */
static void
pop (lua_State *L, TValue *out)
{
  L->top--;
  if (out)
    setobj (out, L->top);
  setnil (L->top);
}

/* ------------------------------------------------------------------ */
/* Upvalues (lfunc.c).  */

static UpVal *
luaF_findupval (lua_State *L, StkId level)
{
  UpVal **pp = &L->openupval, *p;
  while ((p = *pp) != NULL && p->v >= level)
    {
      if (p->v == level)
        return p;
      pp = &p->u.open.next;
    }
  UpVal *uv = (UpVal *) luaC_newobj (L, LUA_TUPVAL, sizeof (UpVal));
  uv->v = level;
  uv->u.open.next = p;
  uv->u.open.previous = pp;
  if (p)
    p->u.open.previous = &uv->u.open.next;
  *pp = uv;
  return uv;
}

static void
luaF_close (UpVal *uv)
{
  *uv->u.open.previous = uv->u.open.next;
  if (uv->u.open.next)
    uv->u.open.next->u.open.previous = uv->u.open.previous;
  TValue value;
  setobj (&value, uv->v);
  memset (&uv->u, 0, sizeof uv->u);
  setobj (&uv->u.value, &value);
  uv->v = &uv->u.value;                      /* now points into itself */
}

/* ------------------------------------------------------------------ */
/* C functions, registered from a static table (lbaselib.c style).  */

static int64_t ival (const TValue *v) { return v->value_.i; }

static int
b_add (lua_State *L)
{
  TValue a, b;
  pop (L, &b);
  pop (L, &a);
  setint (&a, ival (&a) + ival (&b));
  push (L, &a);
  return 1;
}

static int
b_mul (lua_State *L)
{
  TValue a, b;
  pop (L, &b);
  pop (L, &a);
  setint (&a, ival (&a) * ival (&b));
  push (L, &a);
  return 1;
}

static int
b_neg (lua_State *L)
{
  setint (L->top - 1, -ival (L->top - 1));
  return 1;
}

static int
b_len (lua_State *L)
{
  TValue s;
  pop (L, &s);
  setint (&s, s.tt_ == LUA_TSTRING ? (int64_t) ((TString *) s.value_.gc)->len : -1);
  push (L, &s);
  return 1;
}

typedef struct luaL_Reg
{
  const char *name;
  lua_CFunction func;
} luaL_Reg;

static const luaL_Reg baselib[] = {
  { "add", b_add }, { "mul", b_mul }, { "neg", b_neg }, { "len", b_len },
  { NULL, NULL }
};
/* Every function of the table is a code target a value may hold.  */
DUMPER_DECLARE_CODE_TABLE (baselib, func);

/* ------------------------------------------------------------------ */
/* The virtual machine (lvm.c): one instruction is op | arg << 8.  */

enum { OP_PUSHK, OP_GETUPVAL, OP_SETUPVAL, OP_CALLC, OP_CALLL, OP_PUSHN,
       OP_SUMN, OP_YIELD, OP_RETURN, OP_CLOSURE };
#define I(op, arg) ((Instruction) (op) | (Instruction) (arg) << 8)

static CallInfo *
next_ci (lua_State *L)
{
  if (L->ci->next == NULL)
    {
      CallInfo *ci = luaM_new (sizeof (CallInfo));
      ci->previous = L->ci;
      L->ci->next = ci;
    }
  return L->ci = L->ci->next;
}

static LClosure *clvalue (const TValue *v) { return (LClosure *) v->value_.gc; }
static void op_closure (lua_State *L, Proto *p);

/* Run from L->ci's savedpc until a YIELD or the return of the frame
   that was running at the base.  Returns false at YIELD.  */
static bool
luaV_execute (lua_State *L)
{
  for (;;)
    {
      CallInfo *ci = L->ci;
      LClosure *cl = clvalue (ci->func);
      Instruction i = *ci->savedpc++;
      int arg = (int) (i >> 8);
      TValue v;
      switch (i & 0xff)
        {
        case OP_PUSHK: push (L, &cl->p->k[arg]); break;
        case OP_GETUPVAL: push (L, cl->upvals[arg]->v); break;
        case OP_SETUPVAL: pop (L, cl->upvals[arg]->v); break;
        case OP_CALLC:
          {
            Value name = cl->p->k[arg].value_;
            const TValue *f = luaH_get ((Table *) L->l_G->l_registry.value_.gc,
                                        LUA_TSTRING, name);
            f->value_.f (L);
            break;
          }
        case OP_CALLL:
          {
            StkId func = L->top - 1;
            ci = next_ci (L);
            ci->func = func;
            ci->top = func + 1 + 4;
            ci->savedpc = clvalue (func)->p->code;
            luaD_checkstack (L, 4);
            break;
          }
        case OP_PUSHN:
          for (int n = 1; n <= arg; n++)
            {
              setint (&v, n);
              push (L, &v);
            }
          break;
        case OP_SUMN:
          {
            int64_t sum = 0;
            for (int n = 0; n < arg; n++)
              {
                pop (L, &v);
                sum += ival (&v);
              }
            setint (&v, sum);
            push (L, &v);
            break;
          }
        case OP_CLOSURE: op_closure (L, (Proto *) cl->p->k[arg].value_.gc); break;
        case OP_YIELD: return false;
        case OP_RETURN:
          {
            pop (L, &v);
            while (L->openupval != NULL && L->openupval->v >= ci->func)
              luaF_close (L->openupval);
            while (L->top > ci->func)
              pop (L, NULL);
            setobj (L->top++, &v);
            L->ci = ci->previous;
            ci->func = ci->top = NULL;          /* a free CallInfo keeps */
            ci->savedpc = NULL;                 /* no stale pointers */
            if (L->ci == &L->base_ci)
              return true;
            break;
          }
        default: fatal ("bad instruction");
        }
    }
}

/* ------------------------------------------------------------------ */
/* Building the state: lua_newstate, then a program run up to a YIELD
   inside a nested call, so the dump holds suspended frames.  */

static lua_State *L_main;          /* the host's one root */
DUMPER_DECLARE_PTR (L_main, 0);    /* type 0 is DT_LG, below */

static lua_State *
lua_newstate (void)
{
  LG *lg = luaM_new (sizeof (LG));
  lua_State *L = &lg->l;
  global_State *g = &lg->g;
  L->tt = LUA_TTHREAD;
  L->l_G = g;
  g->mainthread = L;
  /* A fixed seed: images are reproducible, and a string's hash is kept
     in it, so the seed must survive the dump with the strings.  */
  g->seed = 0x2545f491u;
  g->rng = 1;
  L->stack = luaM_new (BASIC_STACK_SIZE * sizeof (TValue));
  L->stacksize = BASIC_STACK_SIZE;
  L->stack_last = L->stack + BASIC_STACK_SIZE - EXTRA_STACK;
  L->top = L->stack;
  L->base_ci.func = L->top;
  setnil (L->top++);
  L->base_ci.top = L->top + 4;
  L->ci = &L->base_ci;
  luaS_resize (L, 4);
  Table *reg = luaH_new (L, 0, 2);
  setgc (&g->l_registry, reg);
  for (const luaL_Reg *r = baselib; r->name; r++)
    setfvalue (setfield (L, reg, r->name), r->func);
  return L;
}

static Proto *
new_proto (lua_State *L, const Instruction *code, int sizecode, int sizek,
           const char *source)
{
  Proto *p = (Proto *) luaC_newobj (L, LUA_TPROTO, sizeof (Proto));
  p->code = luaM_new (sizecode * sizeof (Instruction));
  memcpy (p->code, code, sizecode * sizeof (Instruction));
  p->sizecode = sizecode;
  p->k = luaM_new (sizek * sizeof (TValue));
  p->sizek = sizek;
  p->source = luaS_new (L, source);
  return p;
}

static LClosure *
new_closure (lua_State *L, Proto *p, int nupvalues)
{
  LClosure *cl = (LClosure *) luaC_newobj (L, LUA_TLCL, offsetof (LClosure, upvals)
                                           + nupvalues * sizeof (UpVal *));
  cl->p = p;
  cl->nupvalues = (uint8_t) nupvalues;
  return cl;
}

static void
setkstr (lua_State *L, TValue *k, const char *s)
{
  setgc (k, luaS_new (L, s));
}

/* The inner function: two upvalues, an open one (the outer function's
   local) and a closed one; it yields, and after the yield grows the
   stack by 40 values.  The outer function calls it and combines.  */
static void
build_program (lua_State *L)
{
  static const Instruction inner_code[] = {
    I (OP_GETUPVAL, 0), I (OP_PUSHK, 1), I (OP_CALLC, 0), I (OP_SETUPVAL, 0),
    I (OP_GETUPVAL, 1), I (OP_PUSHK, 1), I (OP_CALLC, 0), I (OP_SETUPVAL, 1),
    I (OP_YIELD, 0),
    I (OP_PUSHN, 40), I (OP_SUMN, 40), I (OP_GETUPVAL, 0), I (OP_CALLC, 0),
    I (OP_PUSHK, 3), I (OP_CALLC, 2), I (OP_CALLC, 0), I (OP_GETUPVAL, 1),
    I (OP_CALLC, 0), I (OP_RETURN, 0)
  };
  static const Instruction outer_code[] = {
    I (OP_PUSHK, 0), I (OP_CLOSURE, 1), I (OP_CALLL, 0), I (OP_PUSHK, 2),
    I (OP_CALLC, 3), I (OP_CALLC, 4), I (OP_RETURN, 0)
  };
  Proto *inner = new_proto (L, inner_code, sizeof inner_code / sizeof inner_code[0],
                            4, "inner");
  setkstr (L, &inner->k[0], "add");
  setint (&inner->k[1], 10);
  setkstr (L, &inner->k[2], "len");
  setkstr (L, &inner->k[3], "hello, world");
  Proto *outer = new_proto (L, outer_code, sizeof outer_code / sizeof outer_code[0],
                            5, "outer");
  setint (&outer->k[0], 5);
  setgc (&outer->k[1], inner);
  setint (&outer->k[2], 3);
  setkstr (L, &outer->k[3], "mul");
  setkstr (L, &outer->k[4], "add");
  TValue v;
  setgc (&v, new_closure (L, outer, 0));
  push (L, &v);
  CallInfo *ci = next_ci (L);
  ci->func = L->top - 1;
  ci->top = L->top + 4;
  ci->savedpc = outer->code;
}

/* Make a closure of P for the running frame: upvalue 0 is the
   frame's first local (open), upvalue 1 a fresh closed one.  */
static void
op_closure (lua_State *L, Proto *p)
{
  LClosure *cl = new_closure (L, p, 2);
  cl->upvals[0] = luaF_findupval (L, L->ci->func + 1);
  /* A closed upvalue starts open on a scratch slot.  */
  TValue v;
  setint (&v, 100);
  push (L, &v);
  cl->upvals[1] = luaF_findupval (L, L->top - 1);
  luaF_close (cl->upvals[1]);
  pop (L, NULL);
  setgc (&v, cl);
  push (L, &v);
}

/* ------------------------------------------------------------------ */
/* The heap description.  Every collectable object starts with
   CommonHeader, so values and the `next' links are by-header pointers;
   the arrays whose length their owner holds are owner-sized types.  */

enum { DT_LG, DT_STRING, DT_TABLE, DT_LCL, DT_PROTO, DT_UPVAL, DT_CI,
       DT_STACK, DT_TVALUES, DT_NODES, DT_STRHASH, DT_COUNT };

/* COUNT elements of SIZE bytes, or SIZE_MAX when a hostile count would
   wrap (heap.h: report what the object claims, never a wrapped size).  */
static size_t
array_bytes (int64_t count, size_t size)
{
  if (count < 0 || (uint64_t) count > SIZE_MAX / size)
    return SIZE_MAX;
  return (size_t) count * size;
}

#define FIELD(f) ((void *const *) &(f))

static void
trace_value (const TValue *v, struct dumper_tracer *t)
{
  if (iscollectable (v->tt_))
    dumper_trace_ptr (t, FIELD (v->value_.gc), DUMPER_TAG_BY_HEADER);
  else if (v->tt_ == LUA_TLCF)
    dumper_trace_code (t, &v->value_.f);
}

static void
trace_next (const GCObject *o, struct dumper_tracer *t)
{
  dumper_trace_ptr (t, FIELD (o->next), DUMPER_TAG_BY_HEADER);
}

/* A frame: its stack pointers and pc point into blocks others reach;
   `previous' is the base frame inside the thread's block or another
   CallInfo's start, so it is reported as interior either way.  */
static void
trace_ci_fields (const CallInfo *ci, struct dumper_tracer *t)
{
  dumper_trace_interior (t, FIELD (ci->func));
  dumper_trace_interior (t, FIELD (ci->top));
  dumper_trace_interior (t, FIELD (ci->previous));
  dumper_trace_ptr (t, FIELD (ci->next), DT_CI);
  dumper_trace_interior (t, FIELD (ci->savedpc));
}

static size_t size_lg (const void *o) { (void) o; return sizeof (LG); }

static void
trace_lg (const void *o, struct dumper_tracer *t)
{
  const lua_State *L = &((const LG *) o)->l;
  const global_State *g = &((const LG *) o)->g;
  trace_next ((const GCObject *) L, t);
  dumper_trace_sized (t, FIELD (L->stack), DT_STACK,
                      array_bytes (L->stacksize, sizeof (TValue)));
  dumper_trace_interior (t, FIELD (L->top));
  dumper_trace_interior (t, FIELD (L->stack_last));
  dumper_trace_interior (t, FIELD (L->l_G));          /* the LG block's second half */
  if (L->ci == &L->base_ci)
    dumper_trace_interior (t, FIELD (L->ci));         /* into this very object */
  else
    dumper_trace_ptr (t, FIELD (L->ci), DT_CI);
  dumper_trace_ptr (t, FIELD (L->openupval), DT_UPVAL);
  trace_ci_fields (&L->base_ci, t);
  dumper_trace_sized (t, FIELD (g->strt.hash), DT_STRHASH,
                      array_bytes (g->strt.size, sizeof (TString *)));
  trace_value (&g->l_registry, t);
  dumper_trace_ptr (t, FIELD (g->allgc), DUMPER_TAG_BY_HEADER);
  dumper_trace_ptr (t, FIELD (g->mainthread), DT_LG);
}

static size_t
size_string (const void *o)
{
  size_t len = ((const TString *) o)->len;
  if (len > SIZE_MAX - offsetof (TString, contents) - 1)
    return 0;                                   /* malformed */
  return offsetof (TString, contents) + len + 1;
}

static void
trace_string (const void *o, struct dumper_tracer *t)
{
  trace_next (o, t);
  dumper_trace_ptr (t, FIELD (((const TString *) o)->hnext), DT_STRING);
}

static size_t size_table (const void *o) { (void) o; return sizeof (Table); }

static void
trace_table (const void *o, struct dumper_tracer *t)
{
  const Table *h = o;
  trace_next (o, t);
  dumper_trace_sized (t, FIELD (h->array), DT_TVALUES,
                      array_bytes (h->alimit, sizeof (TValue)));
  dumper_trace_sized (t, FIELD (h->node), DT_NODES,
                      h->lsizenode >= 32 ? SIZE_MAX
                      : array_bytes ((int64_t) 1 << h->lsizenode, sizeof (Node)));
  dumper_trace_interior (t, FIELD (h->lastfree));      /* may be one past the end */
}

static size_t
size_lcl (const void *o)
{
  return offsetof (LClosure, upvals)
         + ((const LClosure *) o)->nupvalues * sizeof (UpVal *);
}

static void
trace_lcl (const void *o, struct dumper_tracer *t)
{
  const LClosure *cl = o;
  trace_next (o, t);
  dumper_trace_ptr (t, FIELD (cl->p), DT_PROTO);
  for (int i = 0; i < cl->nupvalues; i++)
    dumper_trace_ptr (t, FIELD (cl->upvals[i]), DT_UPVAL);
}

static size_t size_proto (const void *o) { (void) o; return sizeof (Proto); }

static void
trace_proto (const void *o, struct dumper_tracer *t)
{
  const Proto *p = o;
  trace_next (o, t);
  dumper_trace_bytes (t, FIELD (p->code),
                      array_bytes (p->sizecode, sizeof (Instruction)));
  dumper_trace_sized (t, FIELD (p->k), DT_TVALUES,
                      array_bytes (p->sizek, sizeof (TValue)));
  dumper_trace_ptr (t, FIELD (p->source), DT_STRING);
}

static size_t size_upval (const void *o) { (void) o; return sizeof (UpVal); }

static void
trace_upval (const void *o, struct dumper_tracer *t)
{
  const UpVal *uv = o;
  trace_next (o, t);
  dumper_trace_interior (t, FIELD (uv->v));
  if (uv->v == &uv->u.value)                           /* closed: a self-pointer */
    trace_value (&uv->u.value, t);
  else
    {
      dumper_trace_ptr (t, FIELD (uv->u.open.next), DT_UPVAL);
      dumper_trace_interior (t, FIELD (uv->u.open.previous));
    }
}

static size_t size_ci (const void *o) { (void) o; return sizeof (CallInfo); }

static void
trace_ci (const void *o, struct dumper_tracer *t)
{
  trace_ci_fields (o, t);
}

/* A stack, an array part, a constant array: NBYTES / sizeof (TValue)
   values.  Every slot is traced: the interpreter keeps the dead part
   of a stack nil (pop).  */
static void
trace_tvalues (const void *o, size_t nbytes, struct dumper_tracer *t)
{
  const TValue *v = o;
  for (size_t i = 0; i < nbytes / sizeof (TValue); i++)
    trace_value (&v[i], t);
}

static void
trace_nodes (const void *o, size_t nbytes, struct dumper_tracer *t)
{
  const Node *n = o;
  for (size_t i = 0; i < nbytes / sizeof (Node); i++)
    {
      trace_value (&n[i].i_val, t);
      if (iscollectable (n[i].key_tt))
        dumper_trace_ptr (t, FIELD (n[i].key_val.gc), DUMPER_TAG_BY_HEADER);
    }
}

static void
trace_strhash (const void *o, size_t nbytes, struct dumper_tracer *t)
{
  TString *const *h = o;
  for (size_t i = 0; i < nbytes / sizeof (TString *); i++)
    dumper_trace_ptr (t, FIELD (h[i]), DT_STRING);
}

static const struct dumper_type types[DT_COUNT] = {
  [DT_LG] = { .name = "LG", .size = size_lg, .trace = trace_lg },
  [DT_STRING] = { .name = "TString", .size = size_string, .trace = trace_string },
  [DT_TABLE] = { .name = "Table", .size = size_table, .trace = trace_table },
  [DT_LCL] = { .name = "LClosure", .size = size_lcl, .trace = trace_lcl },
  [DT_PROTO] = { .name = "Proto", .size = size_proto, .trace = trace_proto },
  [DT_UPVAL] = { .name = "UpVal", .size = size_upval, .trace = trace_upval },
  [DT_CI] = { .name = "CallInfo", .size = size_ci, .trace = trace_ci },
  [DT_STACK] = { .name = "StackValue[]", .trace_sized = trace_tvalues },
  [DT_TVALUES] = { .name = "TValue[]", .trace_sized = trace_tvalues },
  [DT_NODES] = { .name = "Node[]", .trace_sized = trace_nodes },
  [DT_STRHASH] = { .name = "TString*[]", .trace_sized = trace_strhash },
};

/* No tagged words: a value's tag is a separate byte.  Tag 1 is unused
   but says "by header" so that a NULL by-header link reads right.  */
static const int tag_types[2] = { DUMPER_TAG_IMMEDIATE, DUMPER_TAG_BY_HEADER };

static int
header_type (const void *o)
{
  switch (((const GCObject *) o)->tt)
    {
    case LUA_TSTRING: return DT_STRING;
    case LUA_TTABLE: return DT_TABLE;
    case LUA_TLCL: return DT_LCL;
    case LUA_TPROTO: return DT_PROTO;
    case LUA_TUPVAL: return DT_UPVAL;
    case LUA_TTHREAD: return DT_LG;
    default: return -1;
    }
}

static const struct dumper_heap heap = { types, DT_COUNT, 1, tag_types, header_type };

_Static_assert (DT_LG == 0, "DUMPER_DECLARE_PTR (L_main, 0) names DT_LG");

/* ------------------------------------------------------------------ */
/* Per start: tables keyed by address are rehashed when the objects
   moved, and the random generator gets this start's entropy.  */

static int rehashed, reseeded;

static void
interp_after_load (void)
{
  /* Registration calls it once in the cold init, before
     dumper_mark_initialized: nothing to do then.  */
  if (L_main == NULL || !initialized)
    return;
  const struct dumper_start_info *si = dumper_start_info ();
  global_State *g = L_main->l_G;
  g->rng = (uint64_t) time (NULL) * 0x9e3779b97f4a7c15u ^ (uint64_t) getpid ()
           ^ (uint64_t) clock ();
  reseeded = 1;
  if (si->moved)
    for (GCObject *o = g->allgc; o != NULL; o = o->next)
      if (o->tt == LUA_TTABLE)
        {
          Table *t = (Table *) o;
          luaH_resize (t, t->lsizenode);
          rehashed++;
        }
}
DUMPER_DECLARE_HOOK (interp_after_load);

/* ------------------------------------------------------------------ */
/* The after-load check: every relation the interpreter relies on.  */

static int relations;

#define REQUIRE(cond)                                                   \
  do {                                                                  \
    if (!(cond))                                                        \
      {                                                                 \
        fprintf (stderr, "interp: check failed at line %d: %s\n",      \
                 __LINE__, #cond);                                      \
        exit (2);                                                       \
      }                                                                 \
    relations++;                                                        \
  } while (0)

static bool instack (const lua_State *L, const TValue *p, const TValue *end)
{ return p >= L->stack && p <= end; }

static void
check_value (const TValue *v)
{
  if (iscollectable (v->tt_))
    REQUIRE (v->value_.gc != NULL && v->value_.gc->tt == v->tt_);
  else
    REQUIRE (v->tt_ <= LUA_TLCF);
}

static void
check_frames (lua_State *L)
{
  REQUIRE (L->stacksize > EXTRA_STACK);
  REQUIRE (L->stack_last == L->stack + L->stacksize - EXTRA_STACK);
  REQUIRE (instack (L, L->top, L->stack_last));
  for (const TValue *v = L->stack; v < L->stack + L->stacksize; v++)
    {
      check_value (v);
      if (v >= L->top)
        REQUIRE (v->tt_ == LUA_TNIL);
    }
  REQUIRE (L->base_ci.previous == NULL);
  for (CallInfo *ci = &L->base_ci; ci != NULL; ci = ci == L->ci ? NULL : ci->next)
    {
      REQUIRE (instack (L, ci->func, L->top));
      REQUIRE (ci->func < ci->top && ci->top <= L->stack_last);
      if (ci->next)
        REQUIRE (ci->next->previous == ci);
      if (ci != &L->base_ci)
        {
          REQUIRE (ci->func->tt_ == LUA_TLCL);
          const Proto *p = clvalue (ci->func)->p;
          REQUIRE (ci->savedpc > p->code && ci->savedpc <= p->code + p->sizecode);
        }
    }
}

static void
check_upvalues (lua_State *L, int *open, int *closed)
{
  UpVal **pp = &L->openupval;
  for (UpVal *uv = L->openupval; uv != NULL; uv = uv->u.open.next)
    {
      REQUIRE (uv->u.open.previous == pp && *pp == uv);
      REQUIRE (uv->v >= L->stack && uv->v < L->top);
      if (uv->u.open.next)
        REQUIRE (uv->u.open.next->v < uv->v);
      pp = &uv->u.open.next;
      ++*open;
    }
  for (GCObject *o = L->l_G->allgc; o != NULL; o = o->next)
    if (o->tt == LUA_TUPVAL && ((UpVal *) o)->v == &((UpVal *) o)->u.value)
      {
        check_value (((UpVal *) o)->v);
        ++*closed;
      }
}

static void
check_tables (lua_State *L, int *past_end, int *within)
{
  for (GCObject *o = L->l_G->allgc; o != NULL; o = o->next)
    if (o->tt == LUA_TTABLE)
      {
        Table *t = (Table *) o;
        REQUIRE (t->lastfree >= t->node && t->lastfree <= t->node + sizenode (t));
        ++*(t->lastfree == t->node + sizenode (t) ? past_end : within);
        for (unsigned i = 0; i < t->alimit; i++)
          check_value (&t->array[i]);
        for (int i = 0; i < sizenode (t); i++)
          if (t->node[i].key_tt != LUA_TNIL)
            {
              check_value (&t->node[i].i_val);
              /* found from its key: the hash still matches the address */
              REQUIRE (luaH_get (t, t->node[i].key_tt, t->node[i].key_val)
                       == &t->node[i].i_val);
            }
      }
}

/* Strings are intact and interned: their hash, and a lookup by
   contents finds the same object.  */
static int
check_strings (lua_State *L)
{
  int count = 0;
  for (GCObject *o = L->l_G->allgc; o != NULL; o = o->next)
    if (o->tt == LUA_TSTRING)
      {
        TString *ts = (TString *) o;
        REQUIRE (strlen (ts->contents) == ts->len);
        REQUIRE (ts->hash == luaS_hash (ts->contents, ts->len, L->l_G->seed));
        REQUIRE (luaS_new (L, ts->contents) == ts);
        count++;
      }
  REQUIRE (count == L->l_G->strt.nuse);
  return count;
}

/* Every C function of the registry is the declared one, and calling it
   gives the right answer.  */
static int
check_functions (lua_State *L)
{
  static const int64_t want[] = { 7 + 5, 7 * 5, -5, 5 };
  Table *reg = (Table *) L->l_G->l_registry.value_.gc;
  int count = 0;
  for (int i = 0; baselib[i].name; i++)
    {
      Value k = { .gc = (GCObject *) luaS_new (L, baselib[i].name) };
      const TValue *f = luaH_get (reg, LUA_TSTRING, k);
      REQUIRE (f != NULL && f->tt_ == LUA_TLCF && f->value_.f == baselib[i].func);
      TValue a;
      if (strcmp (baselib[i].name, "len") == 0)
        setkstr (L, &a, "abcde");
      else
        setint (&a, i < 2 ? 7 : 5);
      push (L, &a);
      if (i < 2)
        {
          setint (&a, 5);
          push (L, &a);
        }
      f->value_.f (L);
      pop (L, &a);
      REQUIRE (a.tt_ == LUA_TNUMINT && a.value_.i == want[i]);
      count++;
    }
  return count;
}

/* SUSPENDED: the state as dumped, frames and open upvalue live.  */
static void
check_state (lua_State *L, bool suspended)
{
  LG *lg = (LG *) L;
  relations = 0;
  REQUIRE (L->tt == LUA_TTHREAD && L->next == NULL);
  REQUIRE (L->l_G == &lg->g && lg->g.mainthread == L);   /* one allocation */
  int open = 0, closed = 0, past_end = 0, within = 0;
  check_frames (L);
  check_upvalues (L, &open, &closed);
  check_tables (L, &past_end, &within);
  REQUIRE (closed >= 1 && past_end >= 1 && (open >= 1 || !suspended));
  int strings = check_strings (L);
  int functions = check_functions (L);
  printf ("check: %d relations hold (open upvalues %d, closed %d, tables with "
          "lastfree past the end %d, inside %d, strings %d, C functions %d)\n",
          relations, open, closed, past_end, within, strings, functions);
}

/* ------------------------------------------------------------------ */
/* The digest: FNV-1a over the state, objects named by their position
   on the all-objects list, never by address.  */

static uint64_t digest_h = 0xcbf29ce484222325u;

static void
mix (const void *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    digest_h = (digest_h ^ ((const uint8_t *) p)[i]) * 0x100000001b3u;
}

static void mix_int (int64_t i) { mix (&i, sizeof i); }

static int64_t
object_index (lua_State *L, const GCObject *x)
{
  int64_t i = 0;
  for (const GCObject *o = L->l_G->allgc; o != NULL; o = o->next, i++)
    if (o == x)
      return i;
  return x == (const GCObject *) L ? -2 : -1;
}

static void
mix_value (lua_State *L, const TValue *v)
{
  mix_int (v->tt_);
  if (iscollectable (v->tt_))
    mix_int (object_index (L, v->value_.gc));
  else if (v->tt_ == LUA_TLCF)
    {
      int i = 0;
      while (baselib[i].func && baselib[i].func != v->value_.f)
        i++;
      mix_int (i);
    }
  else
    mix_int (v->value_.i);
}

static void
mix_object (lua_State *L, const GCObject *o)
{
  mix_int (o->tt);
  switch (o->tt)
    {
    case LUA_TSTRING:
      mix (((const TString *) o)->contents, ((const TString *) o)->len);
      break;
    case LUA_TTABLE:
      {
        const Table *t = (const Table *) o;
        mix_int (t->alimit);
        for (unsigned i = 0; i < t->alimit; i++)
          mix_value (L, &t->array[i]);
        /* node order depends on addresses: combine entries commutatively */
        uint64_t sum = 0, saved = digest_h;
        for (int i = 0; i < sizenode (t); i++)
          if (t->node[i].key_tt != LUA_TNIL)
            {
              TValue key = { t->node[i].key_val, t->node[i].key_tt };
              digest_h = 0xcbf29ce484222325u;
              mix_value (L, &key);
              mix_value (L, &t->node[i].i_val);
              sum += digest_h;
            }
        digest_h = saved;
        mix_int ((int64_t) sum);
        break;
      }
    case LUA_TLCL:
      {
        const LClosure *cl = (const LClosure *) o;
        mix_int (object_index (L, (const GCObject *) cl->p));
        for (int i = 0; i < cl->nupvalues; i++)
          mix_int (object_index (L, (const GCObject *) cl->upvals[i]));
        break;
      }
    case LUA_TPROTO:
      {
        const Proto *p = (const Proto *) o;
        mix (p->code, p->sizecode * sizeof (Instruction));
        for (int i = 0; i < p->sizek; i++)
          mix_value (L, &p->k[i]);
        mix_int (object_index (L, (const GCObject *) p->source));
        break;
      }
    case LUA_TUPVAL:
      {
        const UpVal *uv = (const UpVal *) o;
        bool is_open = uv->v != &uv->u.value;
        mix_int (is_open ? uv->v - L->stack : -1);
        mix_value (L, uv->v);
        break;
      }
    }
}

static uint64_t
digest (lua_State *L)
{
  digest_h = 0xcbf29ce484222325u;
  mix_int (L->stacksize);
  mix_int (L->top - L->stack);
  for (const TValue *v = L->stack; v < L->top; v++)
    mix_value (L, v);
  for (CallInfo *ci = &L->base_ci; ci != NULL; ci = ci == L->ci ? NULL : ci->next)
    {
      mix_int (ci->func - L->stack);
      mix_int (ci->top - L->stack);
      if (ci != &L->base_ci)
        mix_int (ci->savedpc - clvalue (ci->func)->p->code);
    }
  for (const GCObject *o = L->l_G->allgc; o != NULL; o = o->next)
    mix_object (L, o);
  mix_int (L->l_G->strt.nuse);
  mix_int (L->l_G->strt.size);
  mix_value (L, &L->l_G->l_registry);
  return digest_h;
}

/* ------------------------------------------------------------------ */
/* The tables of the program: one with an array part and a node part
   that has room to spare (lastfree stays one past the end), one keyed
   by objects (hashed by address).  */

static void
build_tables (lua_State *L)
{
  Table *reg = (Table *) L->l_G->l_registry.value_.gc;
  Table *arr = luaH_new (L, 8, 1);
  for (unsigned i = 0; i < arr->alimit; i++)
    setint (&arr->array[i], (int64_t) i * i);
  setkstr (L, &arr->array[3], "three");
  Value k100 = { .i = 100 };
  setint (luaH_set (L, arr, LUA_TNUMINT, k100), 10000);
  Table *ids = luaH_new (L, 0, 1);
  int n = 0;
  for (GCObject *o = L->l_G->allgc; o != NULL; o = o->next)
    if (o->tt != LUA_TSTRING && (GCObject *) ids != o)
      {
        Value key = { .gc = o };
        setint (luaH_set (L, ids, o->tt, key), n++);
      }
  setgc (setfield (L, reg, "arr"), arr);
  setgc (setfield (L, reg, "ids"), ids);
}

/* ------------------------------------------------------------------ */
/* Rule breakers for interp-refuse.sh, applied just before the dump.  */

static void *undeclared_root;      /* never declared */

static int
break_rule (lua_State *L, const char *scenario)
{
  Table *reg = (Table *) L->l_G->l_registry.value_.gc;
  Value k = { .gc = (GCObject *) luaS_new (L, "arr") };
  Table *arr = (Table *) luaH_get (reg, LUA_TSTRING, k)->value_.gc;
  if (strcmp (scenario, "orphan-interior") == 0)
    {
      /* A pc into a code array no Proto holds.  */
      Instruction *lost = luaM_new (4 * sizeof (Instruction));
      L->ci->savedpc = lost + 1;
    }
  else if (strcmp (scenario, "oversize") == 0)
    L->stacksize += 64;            /* grew the count, not the block */
  else if (strcmp (scenario, "disagree") == 0)
    {
      /* Another table shares arr's array part with a shorter length.  */
      Table *alias = luaH_new (L, 0, 1);
      alias->array = arr->array;
      alias->alimit = arr->alimit - 2;
    }
  else if (strcmp (scenario, "registration") == 0)
    {
      /* Refused (95); the host ignores the status, as some do.  */
      enum dumper_status st = dumper_remember_ptr (&undeclared_root, DT_LG);
      printf ("registration: %s\n", dumper_strerror (st));
    }
  else
    {
      fprintf (stderr, "interp: unknown --bad scenario %s\n", scenario);
      return 64;
    }
  return 0;
}

/* ------------------------------------------------------------------ */

static void
registered (enum dumper_status st, const char *what)
{
  if (st != DUMPER_OK)
    {
      fprintf (stderr, "interp: cannot register %s\n", what);
      exit (dumper_report ("interp", st));
    }
}

static void
init_once (void)
{
  lua_State *L = lua_newstate ();
  build_program (L);
  if (luaV_execute (L))
    fatal ("the program ended before its YIELD");
  build_tables (L);
  L_main = L;
  registered (dumper_remember_ptr ((void **) &L_main, DT_LG), "L_main");
  registered (DUMPER_DO_NOW_AND_AFTER_LOAD (interp_after_load), "the after-load hook");
}

/* Our options become the bridge's: --dump=FILE is --temacs=... plus
   --output=FILE (kept, so the unexec re-exec sees it), --image=FILE is
   --dump-file=FILE.  The strings made here live until main returns
   (the bridge keeps pointers to them, and removes its own from the
   vector), in main's MADE: a static holding them would be a malloc
   pointer in the data an unexec dump saves, which it warns about.  */
struct made_args
{
  char **vector;
  char *strings[16];
  int count;
};

static char *
join (struct made_args *made, const char *option, const char *value)
{
  if (made->count == (int) (sizeof made->strings / sizeof made->strings[0]))
    fatal ("too many --dump and --image options");
  char *s = malloc (strlen (option) + strlen (value) + 1);
  if (s == NULL)
    fatal ("out of memory");
  strcpy (s, option);
  strcat (s, value);
  return made->strings[made->count++] = s;
}

static void
translate_args (struct made_args *made, int argc, char **argv)
{
  char **out = made->vector = calloc ((size_t) argc * 2 + 1, sizeof *out);
  if (out == NULL)
    fatal ("out of memory");
  int n = 0;
  for (int i = 0; i < argc; i++)
    if (strncmp (argv[i], "--dump=", 7) == 0)
      {
        out[n++] = DUMPER_WITH_UNEXEC ? "--temacs=dump" : "--temacs=pdump";
        out[n++] = join (made, "--output=", argv[i] + 7);
      }
    else if (strncmp (argv[i], "--image=", 8) == 0)
      out[n++] = join (made, "--dump-file=", argv[i] + 8);
    else
      out[n++] = argv[i];
  out[n] = NULL;
}

/* The host's main, on the translated arguments.  */
static int
run (int argc, char **args)
{
  enum dumper_status st = dumper_describe_heap (&heap);
  if (st == DUMPER_OK)
    st = dumper_startup (&argc, &args);
  if (st != DUMPER_OK)
    return dumper_report ("interp", st);
  const char *output = NULL, *bad = NULL;
  for (int i = 1; i < argc; i++)
    if (strncmp (args[i], "--output=", 9) == 0)
      output = args[i] + 9;
    else if (strcmp (args[i], "--bad") == 0 && i + 1 < argc)
      bad = args[++i];
    else
      {
        fprintf (stderr, "interp: unknown argument %s\n", args[i]);
        return 64;
      }
  if (bad && !will_dump)
    {
      fprintf (stderr, "interp: --bad needs --dump=FILE\n");
      return 64;
    }
  if (!initialized)
    {
      init_once ();
      dumper_mark_initialized ();
    }
  lua_State *L = L_main;
  if (will_dump)
    {
      if (bad && break_rule (L, bad) != 0)
        return 64;
      st = dumper_dump (output);
      return st == DUMPER_OK ? 0 : dumper_report ("interp", st);
    }
  const struct dumper_start_info *si = dumper_start_info ();
  printf ("origin=%d moved=%d rehashed=%d reseeded=%d\n", (int) si->origin,
          (int) si->moved, rehashed, reseeded);
  check_state (L, true);
  uint64_t before = digest (L);
  if (!luaV_execute (L))
    fatal ("the program yielded again");
  TValue result;
  setobj (&result, L->top - 1);
  check_state (L, false);
  printf ("state=%016llx result=%lld stacksize=%d digest=%016llx\n",
          (unsigned long long) before, (long long) result.value_.i,
          L->stacksize, (unsigned long long) digest (L));
  return 0;
}

int
main (int argc, char **argv)
{
  struct made_args made = { .count = 0 };
  translate_args (&made, argc, argv);
  for (argc = 0; made.vector[argc]; argc++)
    ;
  int status = run (argc, made.vector);
  for (int i = 0; i < made.count; i++)
    free (made.strings[i]);
  free (made.vector);
  return status;
}
