/* SPDX-License-Identifier: MIT */
/* unexec/upper.c: the upper segment of the dumped executable, planned
   with plan.c (plan.h).

   Without an arena (unexec (), an existing program) there may be an
   upper segment: a PT_LOAD of its own, written in a spare program
   header (a PT_NOTE that repeats PT_GNU_PROPERTY, or PT_NULL), with its
   bytes after everything else in the file, section UNEXEC_UPPER_NAME.
   It holds the brk heap, which starts at the page after the data
   segment when the dumping run has address randomisation off, and,
   when .bss has a long run of zeros before more data (Emacs's static
   heap, mostly unused, then malloc's variables), the part of .bss after
   that run: the data segment's memory then ends at the run's last page
   and its file part at the run's start, so the run costs no file space.
   unexelf instead makes the data segment longer, which puts all of
   .bss in the file.  The dumped program's kernel starts its own brk
   heap after the upper segment.  */

#include <config.h>

#include <string.h>

#include "common/os.h"
#include "plan.h"

/* A zero run in .bss shorter than this stays in the file.  */
#define UNEXEC_MIN_HOLE ((uintptr_t) 256 * 1024)

/* A program header the upper PT_LOAD may take: after every PT_LOAD
   (they must stay in address order), and either PT_NULL or a PT_NOTE
   that describes exactly what PT_GNU_PROPERTY does (GNU ld writes both;
   the loaders read PT_GNU_PROPERTY).  UNEXEC_NO_PHDR when none.  */
static size_t
spare_phdr (const struct unexec_input *in)
{
  size_t last_load = 0;
  for (size_t i = 0; i < in->phdr_count; i++)
    if (in->phdrs[i].p_type == PT_LOAD)
      last_load = i;
  for (size_t i = last_load + 1; i < in->phdr_count; i++)
    {
      const GElf_Phdr *ph = &in->phdrs[i];
      if (ph->p_type == PT_NULL)
        return i;
      for (size_t k = 0; ph->p_type == PT_NOTE && k < in->phdr_count; k++)
        {
          const GElf_Phdr *q = &in->phdrs[k];
          if (q->p_type == PT_GNU_PROPERTY && q->p_offset == ph->p_offset
              && q->p_vaddr == ph->p_vaddr && q->p_filesz == ph->p_filesz)
            return i;
        }
    }
  return UNEXEC_NO_PHDR;
}

/* Check that the brk heap can be saved: it must start at the page after
   the data segment, and a program header must be free for it.  A file
   unexec () wrote (it has an upper segment) is not dumped again.  */
enum dumper_status
unexec_check_heap (struct planner *p)
{
  const struct unexec_input *in = p->in;
  for (size_t i = 1; i < in->section_count; i++)
    if (strcmp (unexec_section_name (in, i), UNEXEC_UPPER_NAME) == 0)
      return unexec_fail (p->detail, DUMPER_E_EXE,
                          "%s was itself written by unexec (); dumping it "
                          "again is not supported", in->path);
  if (p->heap.start >= p->heap.end)
    return DUMPER_OK;
  uintptr_t expected = align_up (p->vend, common_page_size ());
  if (p->heap.start != expected)
    return unexec_fail (p->detail, DUMPER_E_EXE,
                        "%s: the brk heap [%#lx, %#lx) does not start where "
                        "the data segment ends (%#lx): address space layout "
                        "randomisation is on; dump with it off (setarch -R, "
                        "or personality (ADDR_NO_RANDOMIZE) and a re-exec, "
                        "as Emacs does)", in->path,
                        (unsigned long) p->heap.start,
                        (unsigned long) p->heap.end, (unsigned long) expected);
  if (spare_phdr (in) == UNEXEC_NO_PHDR)
    return unexec_fail (p->detail, DUMPER_E_EXE,
                        "%s: no spare program header for the saved brk heap "
                        "(a PT_NULL, or a PT_NOTE repeating PT_GNU_PROPERTY, "
                        "after the PT_LOADs)", in->path);
  return DUMPER_OK;
}

/* The longest run of zero words in [LO, HI), word-aligned.  */
static struct unexec_range
longest_zero_run (uintptr_t lo, uintptr_t hi)
{
  const size_t word = sizeof (uintptr_t);
  struct unexec_range best = { 0, 0 };
  uintptr_t run = 0;
  bool in_run = false;
  lo = align_up (lo, word);
  for (uintptr_t a = lo; a + word <= hi; a += word)
    {
      uintptr_t w;
      memcpy (&w, (const void *) a, word);
      if (w == 0 && !in_run)
        {
          run = a;
          in_run = true;
        }
      else if (w != 0 && in_run)
        {
          if (a - run > best.end - best.start)
            best = (struct unexec_range) { run, a };
          in_run = false;
        }
    }
  if (in_run && hi - run > best.end - best.start)
    best = (struct unexec_range) { run, hi };
  return best;
}

/* Decide the upper segment, after `cut' is chosen.  Without an arena,
   the last section of the data segment (.bss) may hold a long run of
   zeros before more data (Emacs's static heap, used in part, followed
   by malloc's own variables): the data segment then ends its memory at
   the page that run ends in, its file part at the run's start, and the
   upper segment maps the rest of .bss from there, and the brk heap
   after it.  Without such a run, the upper segment is the brk heap
   alone, or nothing.  */
void
unexec_choose_upper (struct planner *p, const struct unexec_arena_view *arena)
{
  struct unexec_plan *plan = p->plan;
  bool heap = p->heap.start < p->heap.end;
  size_t slot = spare_phdr (p->in);
  if (arena->capacity > 0 || slot == UNEXEC_NO_PHDR || p->logical_count == 0)
    return;
  const struct logical *l = &p->logicals[p->logical_count - 1];
  uintptr_t end = heap ? p->heap.end : p->vend;
  if (l->captured && l->end == p->vend && l->tail == 0 && p->old_tail == 0
      && p->in->shdrs[l->index].sh_type == SHT_NOBITS && plan->cut > l->start)
    {
      struct unexec_range run = longest_zero_run (l->start, l->end);
      uintptr_t hole = align_up (run.start, 16);
      uintptr_t upper = run.end & ~(common_page_size () - 1);
      if (run.start > l->start && upper > hole
          && upper - hole >= UNEXEC_MIN_HOLE && hole < plan->cut)
        {
          plan->cut = hole;
          p->upper = (struct unexec_range) { upper, end };
        }
    }
  if (p->upper.start == 0 && heap)
    p->upper = p->heap;
  if (p->upper.start != 0)
    plan->upper_phdr = slot;
}

/* The upper segment's program header and section, all but the file
   offset; the data segment's memory ends where it starts.  Its file
   part ends after its last non-zero byte.  */
void
unexec_plan_upper (struct planner *p)
{
  struct unexec_plan *plan = p->plan;
  if (plan->upper_phdr == UNEXEC_NO_PHDR)
    return;
  uintptr_t start = p->upper.start, end = p->upper.end;
  uintptr_t filled = unexec_last_nonzero_end (start, end);
  if (filled == 0)
    filled = start;
  GElf_Phdr *ph = &plan->phdrs[plan->upper_phdr];
  *ph = (GElf_Phdr) {
    .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
    .p_vaddr = start, .p_paddr = start,
    .p_filesz = filled - start, .p_memsz = end - start,
    .p_align = common_page_size (),
  };
  if (start < p->vend)
    {
      plan->phdrs[plan->segment].p_memsz = start - p->vstart;
      if (plan->tail)
        plan->sections[plan->tail].shdr.sh_size
          = start - plan->sections[plan->tail].shdr.sh_addr;
    }
  plan->upper_section = unexec_append_section (plan, UNEXEC_UPPER_NAME);
  struct unexec_out_section *s = &plan->sections[plan->upper_section];
  s->shdr = (GElf_Shdr) {
    .sh_type = filled > start ? SHT_PROGBITS : SHT_NOBITS,
    .sh_flags = SHF_ALLOC | SHF_WRITE,
    .sh_addr = start,
    .sh_size = filled > start ? filled - start : end - start,
    .sh_addralign = 16,
  };
  s->source = filled > start ? UNEXEC_SRC_MEMORY : UNEXEC_SRC_NONE;
}

/* Put the upper segment's bytes at the first offset from END that
   agrees with its address modulo the page size; returns the new end.  */
uint64_t
unexec_place_upper (struct unexec_plan *plan, uint64_t end)
{
  GElf_Phdr *ph = &plan->phdrs[plan->upper_phdr];
  uint64_t offset = align_up (end, ph->p_align) + ph->p_vaddr % ph->p_align;
  ph->p_offset = offset;
  plan->sections[plan->upper_section].shdr.sh_offset = offset;
  return offset + ph->p_filesz;
}
