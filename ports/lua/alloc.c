/* SPDX-License-Identifier: MIT */
/* ports/lua/alloc.c: the lua_Alloc of the port.

   Every block of a Lua state comes from libdumper (dumper_alloc), so
   that an unexec dump finds it in the static arena and the pre-dump
   check of a pdump finds it among the live blocks.  Objects restored
   from a pdump image are not the allocator's: they are never freed
   (the image stays mapped) and growing one copies it into a new block.

   Lua allocates a thread as one block of LUA_EXTRASPACE bytes followed
   by the lua_State (LX; the main thread and global_State are the LG
   block), and frees it by the block's address.  The image holds the
   lua_State only (heap.c), so a restored thread's block address lies
   LUA_EXTRASPACE bytes before an image object.  */

#include <config.h>

#include <string.h>

#include <dumper/pdump.h>

#include "port.h"

static bool
in_image (void *ptr)
{
  return pdump_object_p (ptr);
}

void *
lua_port_alloc (void *ud, void *ptr, size_t osize, size_t nsize)
{
  (void) ud;
  if (nsize == 0)
    {
      if (ptr != NULL && !in_image (ptr))
        dumper_free (ptr);
      return NULL;
    }
  if (ptr == NULL)              /* OSIZE is then the object's kind */
    return dumper_alloc (nsize);
  if (in_image (ptr))
    {
      void *copy = dumper_alloc (nsize);
      if (copy != NULL)
        memcpy (copy, ptr, osize < nsize ? osize : nsize);
      return copy;
    }
  char *grown = dumper_realloc (ptr, nsize);
  /* dumper_alloc zeroes, dumper_realloc does not: zero what a growth
     adds, so that the padding of the TValues Lua writes there (it sets
     a value's fields, never its padding) holds no leftover of another
     block, whose addresses would make two dumps of one init differ.  */
  if (grown != NULL && nsize > osize)
    memset (grown + osize, 0, nsize - osize);
  return grown;
}

/* global_State.frealloc.  */
DUMPER_DECLARE_CODE (lua_port_alloc);
