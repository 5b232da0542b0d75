/* SPDX-License-Identifier: MIT */
/* unexec/plan.h: what plan.c and upper.c, the two halves of the
   planner, share: the planner's state and its helpers.  Private to
   them (the rest of the writer sees struct unexec_plan, internal.h).  */

#ifndef DUMPER_UNEXEC_PLAN_H
#define DUMPER_UNEXEC_PLAN_H

#include "internal.h"

/* A section of the data segment, together with its tail if it has one.  */
struct logical
{
  size_t index;
  uintptr_t start, end;
  bool captured;      /* bytes come from memory */
  bool fixed;         /* its file bytes must all stay in the file */
  bool splittable;    /* may end at `cut' (NOBITS, or filled + tail) */
  size_t tail;        /* section number of its tail, or 0 */
};

struct planner
{
  const struct unexec_input *in;
  const struct unexec_detail *detail;
  struct unexec_plan *plan;
  const GElf_Phdr *seg;          /* the input data segment */
  uintptr_t vstart, vend;        /* its addresses */
  struct unexec_range relro, dynamic;
  struct logical *logicals;
  size_t logical_count;
  size_t old_tail;               /* an existing tail section, or 0 */
  struct unexec_range heap;      /* the brk heap to save, or empty */
  struct unexec_range upper;     /* the upper segment's memory, or 0 */
  bool pack;                     /* pack what follows the data segment */
};

static inline uint64_t
align_up (uint64_t value, uint64_t alignment)
{
  return alignment > 1 ? (value + alignment - 1) / alignment * alignment : value;
}

/* plan.c */

/* The end of the last non-zero byte of process memory in [LO, HI), or
   0 when all of it is zero.  Works a word at a time; the result may
   include up to a word of trailing zeros.  */
uintptr_t unexec_last_nonzero_end (uintptr_t lo, uintptr_t hi);

/* Append a section named NAME; its header is the caller's to fill.  */
size_t unexec_append_section (struct unexec_plan *plan, const char *name);

/* upper.c: the upper segment (the end of .bss and the brk heap).  */

enum dumper_status unexec_check_heap (struct planner *p);
void unexec_choose_upper (struct planner *p,
                          const struct unexec_arena_view *arena);
void unexec_plan_upper (struct planner *p);
uint64_t unexec_place_upper (struct unexec_plan *plan, uint64_t end);

#endif
