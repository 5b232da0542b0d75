/* SPDX-License-Identifier: MIT */
/* bridge/decls.c: the executable's declaration table (dumper.h,
   "Registry").

   The DUMPER_DECLARE_* and registration macros put `struct dumper_decl'
   entries into the ELF section `dumper_decls'; the linker delimits it
   with __start_dumper_decls and __stop_dumper_decls.  The references
   are weak: an executable that declares nothing has no section, and
   both symbols are NULL.  They bind to the executable's section whether
   libdumper is linked statically or as a shared library (the shared
   library has no such section of its own).

   This file owns checking the table once, on first use, and finding
   entries by address or function for the function forms of the
   registration calls.  The table is in the executable's read-only (or
   RELRO-like) data, never in an image: it is what makes the image's
   indexes safe to follow.  It must not be changed at run time.  */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"

extern const struct dumper_decl __start_dumper_decls[] __attribute__ ((weak));
extern const struct dumper_decl __stop_dumper_decls[] __attribute__ ((weak));

/* Set on first use: the validated table and two sorted views of it.  In
   unexec builds the views live in the arena (bridge_alloc), so a dumped
   executable keeps them with the flag that says they are built.  */
static const struct dumper_decl *table;
static size_t table_count;
static uint32_t *by_addr;     /* indexes of static entries, by address */
static size_t by_addr_count;
static uint32_t *by_fn;       /* indexes of HOOK and CODE entries, by function */
static size_t by_fn_count;
static enum dumper_status table_status = DUMPER_OK;
static bool table_checked;
static char table_problem[512];

static bool
is_static_kind (uint32_t kind)
{
  return (kind >= DUMPER_DECL_ROOT && kind <= DUMPER_DECL_SCALAR)
         || kind == DUMPER_DECL_OBJECTS;
}

static bool
is_word_kind (uint32_t kind)
{
  return kind >= DUMPER_DECL_ROOT && kind <= DUMPER_DECL_PTR;
}

const char *
bridge_decl_kind_name (uint32_t kind)
{
  switch (kind)
    {
    case DUMPER_DECL_ROOT: return "root";
    case DUMPER_DECL_WORD: return "word";
    case DUMPER_DECL_PTR: return "pointer";
    case DUMPER_DECL_SCALAR: return "scalar";
    case DUMPER_DECL_HOOK: return "hook";
    case DUMPER_DECL_CODE: return "code";
    case DUMPER_DECL_OBJECTS: return "static objects";
    case DUMPER_DECL_CODE_TABLE: return "code table";
    default: return "?";
    }
}

static const char *
decl_name (const struct dumper_decl *d)
{
  return d->name ? d->name : "?";
}

/* The sort key of one view entry; qsort has no context argument, so
   the table being checked is passed through this.  */
static const struct dumper_decl *sort_table;

/* Order two view entries by KEY (an address), then by table index, so
   identical duplicates keep table order.  */
static int
compare_keys (uintptr_t p, uintptr_t q, const void *a, const void *b)
{
  if (p != q)
    return p < q ? -1 : 1;
  uint32_t i = *(const uint32_t *) a, j = *(const uint32_t *) b;
  return (i > j) - (i < j);
}

static int
compare_addr (const void *a, const void *b)
{
  return compare_keys ((uintptr_t) sort_table[*(const uint32_t *) a].addr,
                       (uintptr_t) sort_table[*(const uint32_t *) b].addr, a, b);
}

static int
compare_fn (const void *a, const void *b)
{
  return compare_keys ((uintptr_t) sort_table[*(const uint32_t *) a].fn,
                       (uintptr_t) sort_table[*(const uint32_t *) b].fn, a, b);
}

/* A code table on its own.  The loader reads each element's member
   from the array (pdump/check.c, pdump_relocate_code), and the writer
   and the pre-dump check read them all (common/codetargets.c), so the
   array must be whole elements whose member is an aligned function
   pointer inside the element, and lie in the executable, whose data
   the declaration table may name.  */
static bool
code_table_problem (const struct dumper_decl *d, char *why, size_t why_size)
{
  size_t fn_size = sizeof (void (*) (void));
  size_t fn_align = _Alignof (void (*) (void));
  struct bridge_exe_span span;
  if (d->addr == NULL || d->size == 0
      || (uintptr_t) d->addr + d->size < (uintptr_t) d->addr)
    snprintf (why, why_size, "is a code table of %zu bytes at %p: it must "
              "be a non-empty array", d->size, d->addr);
  else if (d->stride == 0 || d->size % d->stride != 0
           || d->stride % fn_align != 0 || (uintptr_t) d->addr % fn_align != 0)
    snprintf (why, why_size, "is a code table of %zu bytes at %p in elements "
              "of %zu: the elements must tile it and be aligned for a "
              "function pointer (%zu bytes)", d->size, d->addr, d->stride,
              fn_align);
  else if (d->type < 0 || (size_t) d->type % fn_align != 0
           || (size_t) d->type > d->stride - fn_size || d->stride < fn_size)
    snprintf (why, why_size, "is a code table whose member is at byte "
              "%" PRId32 " of a %zu-byte element: not an aligned function "
              "pointer inside it", d->type, d->stride);
  else if (d->size / d->stride > UINT32_MAX)
    snprintf (why, why_size, "is a code table of %zu elements; at most %"
              PRIu32 " are supported", d->size / d->stride, UINT32_MAX);
  else if (d->fn != NULL)
    snprintf (why, why_size, "is a code table but names a function");
  else if ((bridge_exe_span (&span), span.count > 0)
           && (!bridge_exe_span_contains (&span, (uintptr_t) d->addr)
               || !bridge_exe_span_contains (&span, (uintptr_t) d->addr
                                                     + d->size - 1)))
    snprintf (why, why_size, "is a code table at %p, outside the "
              "executable's data", d->addr);
  else
    return false;
  return true;
}

/* One entry on its own.  */
static bool
entry_problem (const struct dumper_decl *d, char *why, size_t why_size)
{
  if (d->kind == DUMPER_DECL_CODE_TABLE)
    return code_table_problem (d, why, why_size);
  if (d->kind < DUMPER_DECL_ROOT || d->kind > DUMPER_DECL_KIND_MAX)
    snprintf (why, why_size, "has kind %" PRIu32 ", not a declaration kind",
              d->kind);
  else if (is_static_kind (d->kind) && d->addr == NULL)
    snprintf (why, why_size, "names a NULL address");
  else if (is_static_kind (d->kind) && d->size == 0)
    snprintf (why, why_size, "has size 0");
  else if (is_static_kind (d->kind)
           && (uintptr_t) d->addr + d->size < (uintptr_t) d->addr)
    snprintf (why, why_size, "wraps the address space");
  else if (is_word_kind (d->kind)
           && ((uintptr_t) d->addr % sizeof (uintptr_t) != 0
               || d->size % sizeof (uintptr_t) != 0))
    snprintf (why, why_size, "is a %s of %zu bytes at %p: it must be "
              "word-aligned and a whole number of %zu-byte words",
              bridge_decl_kind_name (d->kind), d->size, d->addr,
              sizeof (uintptr_t));
  else if ((d->kind == DUMPER_DECL_PTR || d->kind == DUMPER_DECL_OBJECTS)
           && d->type < 0)
    snprintf (why, why_size, "has the negative type %" PRId32, d->type);
  else if (d->kind != DUMPER_DECL_PTR && d->kind != DUMPER_DECL_OBJECTS
           && d->type != 0)
    snprintf (why, why_size, "has a type but is not a pointer");
  else if (d->kind == DUMPER_DECL_OBJECTS
           && (d->stride == 0 || d->size % d->stride != 0))
    snprintf (why, why_size, "is an array of %zu bytes in elements of %zu",
              d->size, d->stride);
  else if (d->kind != DUMPER_DECL_OBJECTS && d->stride != 0)
    snprintf (why, why_size, "has an element size but is not an array of "
              "static objects");
  else if (is_static_kind (d->kind) && d->fn != NULL)
    snprintf (why, why_size, "is a static but names a function");
  else if (!is_static_kind (d->kind) && d->fn == NULL)
    snprintf (why, why_size, "names a NULL function");
  else if (!is_static_kind (d->kind) && (d->addr != NULL || d->size != 0))
    snprintf (why, why_size, "is a function but names a static");
  else
    return false;
  return true;
}

static bool
same_static (const struct dumper_decl *a, const struct dumper_decl *b)
{
  return a->kind == b->kind && a->addr == b->addr && a->size == b->size
         && a->type == b->type;
}

enum dumper_status
bridge_decls_check (const struct dumper_decl *decls, size_t count,
                    char *problem, size_t problem_size)
{
  if (count > UINT32_MAX - 1)
    {
      snprintf (problem, problem_size, "the declaration table has %zu "
                "entries; at most %" PRIu32 " are supported", count,
                UINT32_MAX - 1);
      return DUMPER_E_REGISTRATION;
    }
  char why[256];
  for (size_t i = 0; i < count; i++)
    if (entry_problem (&decls[i], why, sizeof why))
      {
        snprintf (problem, problem_size, "declaration %zu (%s) %s", i,
                  decl_name (&decls[i]), why);
        return DUMPER_E_REGISTRATION;
      }
  /* Statics must not overlap, except for identical declarations (the
     same macro expanded in two places, an inline function's copies).  */
  uint32_t *order = malloc ((count ? count : 1) * sizeof *order);
  if (order == NULL)
    {
      snprintf (problem, problem_size, "out of memory checking the "
                "declaration table");
      return DUMPER_E_NOMEM;
    }
  size_t n = 0;
  for (size_t i = 0; i < count; i++)
    if (is_static_kind (decls[i].kind))
      order[n++] = (uint32_t) i;
  sort_table = decls;
  qsort (order, n, sizeof *order, compare_addr);
  enum dumper_status st = DUMPER_OK;
  for (size_t i = 1; i < n && st == DUMPER_OK; i++)
    {
      const struct dumper_decl *a = &decls[order[i - 1]];
      const struct dumper_decl *b = &decls[order[i]];
      if ((uintptr_t) b->addr < (uintptr_t) a->addr + a->size
          && !same_static (a, b))
        {
          snprintf (problem, problem_size, "declarations %" PRIu32 " (%s "
                    "%s, %zu bytes at %p) and %" PRIu32 " (%s %s, %zu bytes "
                    "at %p) overlap", order[i - 1],
                    bridge_decl_kind_name (a->kind), decl_name (a), a->size,
                    a->addr, order[i], bridge_decl_kind_name (b->kind),
                    decl_name (b), b->size, b->addr);
          st = DUMPER_E_REGISTRATION;
        }
    }
  free (order);
  return st;
}

/* Build the sorted view of the entries that satisfy WANT.  */
static uint32_t *
build_view (bool (*want) (uint32_t), int (*compare) (const void *, const void *),
            size_t *count)
{
  size_t n = 0;
  for (size_t i = 0; i < table_count; i++)
    n += want (table[i].kind);
  uint32_t *view = bridge_alloc ((n ? n : 1) * sizeof *view);
  if (view == NULL)
    return NULL;
  n = 0;
  for (size_t i = 0; i < table_count; i++)
    if (want (table[i].kind))
      view[n++] = (uint32_t) i;
  sort_table = table;
  qsort (view, n, sizeof *view, compare);
  *count = n;
  return view;
}

static bool
is_function_kind (uint32_t kind)
{
  return kind == DUMPER_DECL_HOOK || kind == DUMPER_DECL_CODE;
}

enum dumper_status
bridge_decls (const struct dumper_decl **decls, size_t *count)
{
  if (!table_checked)
    {
      const struct dumper_decl *start = __start_dumper_decls;
      const struct dumper_decl *stop = __stop_dumper_decls;
      /* Never NULL, even without a section: the loader reads a NULL
         table as "no executable to check against" (fuzz targets).  */
      static const struct dumper_decl no_decls[1];
      table = start ? start : no_decls;
      table_count = start && stop > start ? (size_t) (stop - start) : 0;
      table_status = bridge_decls_check (table, table_count, table_problem,
                                         sizeof table_problem);
      if (table_status == DUMPER_OK)
        {
          by_addr = build_view (is_static_kind, compare_addr, &by_addr_count);
          by_fn = build_view (is_function_kind, compare_fn, &by_fn_count);
          if (by_addr == NULL || by_fn == NULL)
            {
              bridge_free (by_addr);
              bridge_free (by_fn);
              by_addr = by_fn = NULL;
              return bridge_fail (DUMPER_E_NOMEM, "cannot index the "
                                  "declaration table");
            }
        }
      table_checked = true;
    }
  *decls = table;
  *count = table_count;
  if (table_status != DUMPER_OK)
    return bridge_fail (table_status, "the executable's declaration table "
                        "(section " DUMPER_DECL_SECTION ") is invalid: %s",
                        table_problem);
  return DUMPER_OK;
}

size_t
bridge_decl_index (const struct dumper_decl *decl)
{
  uintptr_t p = (uintptr_t) decl, start = (uintptr_t) table;
  if (table_count == 0 || p < start
      || p >= start + table_count * sizeof *table
      || (p - start) % sizeof *table != 0)
    return SIZE_MAX;
  return (p - start) / sizeof *table;
}

size_t
bridge_decl_find_static (uint32_t kind, const void *addr)
{
  uintptr_t a = (uintptr_t) addr;
  /* The last entry starting at or before ADDR; statics do not overlap,
     so it is the only candidate (identical duplicates aside).  */
  size_t lo = 0, hi = by_addr_count;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if ((uintptr_t) table[by_addr[mid]].addr <= a)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return SIZE_MAX;
  uintptr_t start = (uintptr_t) table[by_addr[lo - 1]].addr;
  /* Of identical duplicates, the first in table order.  */
  while (lo > 1 && (uintptr_t) table[by_addr[lo - 2]].addr == start)
    lo--;
  const struct dumper_decl *d = &table[by_addr[lo - 1]];
  if (d->kind != kind || a - start >= d->size)
    return SIZE_MAX;
  return by_addr[lo - 1];
}

size_t
bridge_decl_find_fn (uint32_t kind, void (*fn) (void))
{
  uintptr_t f = (uintptr_t) fn;
  size_t lo = 0, hi = by_fn_count;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if ((uintptr_t) table[by_fn[mid]].fn < f)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (; lo < by_fn_count && (uintptr_t) table[by_fn[lo]].fn == f; lo++)
    if (table[by_fn[lo]].kind == kind)
      return by_fn[lo];
  return SIZE_MAX;
}
