/* SPDX-License-Identifier: MIT */
/* common/codetargets.c: the sorted list of declared code targets
   (codetargets.h).  It reads the declaration table and the arrays its
   code tables name; it allocates with malloc (a per-dump scratch list,
   freed before the dump returns, so never in an unexec arena).  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "codetargets.h"

uintptr_t
common_code_table_member (const struct dumper_decl *d, size_t element)
{
  /* memcpy: the member's type is the host's (int (*) (lua_State *)
     say), only its size and alignment are known here.  */
  void (*fn) (void);
  memcpy (&fn, (const unsigned char *) d->addr + element * d->stride
               + (size_t) d->type, sizeof fn);
  return (uintptr_t) fn;
}

/* By address, then by preference: CODE entries before table elements,
   then table order, then element order.  find returns the first of a
   run of equal addresses, so this order is the rule of codetargets.h.  */
static int
compare_targets (const void *a, const void *b)
{
  const struct common_code_target *x = a, *y = b;
  if (x->address != y->address)
    return x->address < y->address ? -1 : 1;
  if (x->in_table != y->in_table)
    return x->in_table ? 1 : -1;
  if (x->decl != y->decl)
    return x->decl < y->decl ? -1 : 1;
  return (x->element > y->element) - (x->element < y->element);
}

static size_t
element_count (const struct dumper_decl *d)
{
  return d->kind == DUMPER_DECL_CODE_TABLE ? d->size / d->stride
         : d->kind == DUMPER_DECL_CODE ? 1 : 0;
}

bool
common_code_targets_build (struct common_code_targets *set,
                           const struct dumper_decl *decls, size_t decl_count)
{
  size_t n = 0;
  for (size_t i = 0; i < decl_count; i++)
    n += element_count (&decls[i]);
  *set = (struct common_code_targets) { 0 };
  set->targets = malloc ((n ? n : 1) * sizeof *set->targets);
  if (set->targets == NULL)
    return false;
  n = 0;
  for (size_t i = 0; i < decl_count; i++)
    {
      const struct dumper_decl *d = &decls[i];
      if (d->kind == DUMPER_DECL_CODE)
        set->targets[n++] = (struct common_code_target) {
          (uintptr_t) d->fn, (uint32_t) i, 0, false };
      for (size_t e = 0; d->kind == DUMPER_DECL_CODE_TABLE
                         && e < element_count (d); e++)
        {
          uintptr_t member = common_code_table_member (d, e);
          /* A NULL member (a table's terminator) is no target.  */
          if (member != 0)
            set->targets[n++] = (struct common_code_target) {
              member, (uint32_t) i, (uint32_t) e, true };
        }
    }
  qsort (set->targets, n, sizeof *set->targets, compare_targets);
  set->count = n;
  return true;
}

const struct common_code_target *
common_code_targets_find (const struct common_code_targets *set,
                          uintptr_t address)
{
  size_t lo = 0, hi = set->count;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (set->targets[mid].address < address)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == set->count || set->targets[lo].address != address)
    return NULL;
  return &set->targets[lo];
}

void
common_code_targets_free (struct common_code_targets *set)
{
  free (set->targets);
  *set = (struct common_code_targets) { 0 };
}
