/* SPDX-License-Identifier: MIT */
/* tests/interp/interp.h: the object model of a small interpreter shaped
   like Lua 5.4 (lobject.h, lstate.h), written as such an interpreter is
   written, not for the dumper: values are (Value, tag byte) pairs,
   collectable objects share a common header with a type byte and sit
   on one all-objects list, a thread owns a value stack whose length it
   holds, frames point into that stack and into code arrays, and the
   main thread and the global state share one allocation.

   interp.c owns the interpreter and its heap description; this header
   only declares the structures.  */

#ifndef INTERP_H
#define INTERP_H

#include <stddef.h>
#include <stdint.h>

typedef struct lua_State lua_State;
typedef int (*lua_CFunction) (lua_State *L);
typedef uint32_t Instruction;

/* Value tags (TValue.tt_ and CommonHeader.tt).  */
enum
{
  LUA_TNIL, LUA_TBOOLEAN, LUA_TNUMINT, LUA_TLCF,
  /* collectable from here on */
  LUA_TSTRING, LUA_TTABLE, LUA_TLCL, LUA_TPROTO, LUA_TUPVAL, LUA_TTHREAD
};
#define iscollectable(tt) ((tt) >= LUA_TSTRING && (tt) <= LUA_TTHREAD)

#define CommonHeader struct GCObject *next; uint8_t tt; uint8_t marked

typedef struct GCObject
{
  CommonHeader;
} GCObject;

typedef union Value
{
  GCObject *gc;
  lua_CFunction f;
  int64_t i;
} Value;

typedef struct TValue
{
  Value value_;
  uint8_t tt_;
} TValue;

typedef TValue *StkId;

typedef struct TString
{
  CommonHeader;
  uint32_t hash;
  size_t len;
  struct TString *hnext;        /* chain in the string table */
  char contents[];
} TString;

typedef struct Node
{
  TValue i_val;
  Value key_val;
  uint8_t key_tt;
  int32_t next;                 /* offset to the next node of the chain */
} Node;

typedef struct Table
{
  CommonHeader;
  uint8_t lsizenode;            /* log2 of the node part's size */
  unsigned int alimit;          /* the array part's length */
  TValue *array;
  Node *node;
  Node *lastfree;               /* free nodes are below it; starts one past the end */
} Table;

typedef struct Proto
{
  CommonHeader;
  int sizecode;
  int sizek;
  Instruction *code;
  TValue *k;
  TString *source;
} Proto;

typedef struct UpVal
{
  CommonHeader;
  TValue *v;                    /* the stack slot, or &u.value once closed */
  union
  {
    struct
    {
      struct UpVal *next;       /* open upvalues, by stack level, highest first */
      struct UpVal **previous;  /* the field that points to this one */
    } open;
    TValue value;
  } u;
} UpVal;

typedef struct LClosure
{
  CommonHeader;
  uint8_t nupvalues;
  Proto *p;
  UpVal *upvals[];
} LClosure;

typedef struct CallInfo
{
  StkId func;                   /* the called value's slot */
  StkId top;                    /* the frame's stack limit */
  struct CallInfo *previous, *next;
  const Instruction *savedpc;   /* the next instruction (Lua frames) */
  short nresults;
  unsigned short callstatus;
} CallInfo;

typedef struct stringtable
{
  TString **hash;
  int nuse;
  int size;
} stringtable;

typedef struct global_State
{
  stringtable strt;
  TValue l_registry;            /* name -> function */
  uint32_t seed;                /* string hashes */
  uint64_t rng;                 /* the program's random generator */
  GCObject *allgc;              /* every collectable object but the thread */
  lua_State *mainthread;
} global_State;

#define EXTRA_STACK 5

struct lua_State
{
  CommonHeader;
  uint8_t status;
  StkId top;                    /* first free slot */
  global_State *l_G;
  CallInfo *ci;                 /* the running frame */
  StkId stack_last;             /* end of the usable stack */
  StkId stack;
  UpVal *openupval;
  CallInfo base_ci;             /* the C level's frame */
  int stacksize;                /* slots in stack, EXTRA_STACK included */
};

/* The main thread and the global state, one allocation (lstate.c's LG). */
typedef struct LG
{
  lua_State l;
  global_State g;
} LG;

#endif /* INTERP_H */
