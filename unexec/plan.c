/* SPDX-License-Identifier: MIT */
/* unexec/plan.c: the layout of the dumped executable.

   Owns every decision about the new file; emit.c only carries it out.
   The idea: the writable PT_LOAD segment that holds the arena (the
   "data segment": .data, .bss, the arena's .lbss) keeps its addresses
   and its memory size, but its file part now reaches up to `cut', the
   end of the last non-zero byte the process holds in it.  Below `cut'
   every section is PROGBITS with the process's current bytes (or, for
   what must stay as linked, the file's bytes); above it everything is
   NOBITS and the kernel zero-fills it as before.  The file contents
   after the segment (non-allocated sections such as .symtab, .debug_*,
   .shstrtab, any later segment, and the section header table) move by
   `shift' bytes.  Section numbers never change, so symbols, relocations
   and debug information stay valid.

   Taken from memory ("captured"): allocated, writable, non-TLS PROGBITS
   or NOBITS sections of the data segment that are not under
   PT_GNU_RELRO, not PT_DYNAMIC and not a GOT.  The dynamic loader owns
   the GOT and the dynamic section: a GOT saved with run-time addresses
   makes the loader believe the file is prelinked.  TLS sections hold
   only the template of thread-local storage, so they stay as linked.
   The arena's unused part [arena + used, arena + capacity) counts as
   zero whatever stale bytes it holds.

   A NOBITS section that `cut' falls inside is split: it becomes PROGBITS
   up to `cut', and a new NOBITS section named UNEXEC_TAIL_NAME covers
   the rest (its name is appended to the section-name table, which moves
   to the end of the file).  Dumping a dumped executable again treats a
   section and the tail after it as one NOBITS section, so the tail is
   reused and the file part can shrink as well as grow.

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
   heap after the upper segment.  unexec () also writes the debug
   sections compressed (input.c), so the sections after the data
   segment are then packed one after the other, not moved by `shift'.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

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

static uint64_t
align_up (uint64_t value, uint64_t alignment)
{
  return alignment > 1 ? (value + alignment - 1) / alignment * alignment : value;
}

static bool
overlaps (uintptr_t start, uintptr_t end, struct unexec_range r)
{
  return start < r.end && r.start < end;
}

static bool
tls_nobits_p (const GElf_Shdr *s)
{
  return (s->sh_flags & SHF_TLS) && s->sh_type == SHT_NOBITS;
}

/* Is section S part of the data segment?  TLS NOBITS sections take no
   address space (their addresses overlap the sections after them), so
   they are never part of it.  */
static bool
in_segment_p (const struct planner *p, const GElf_Shdr *s)
{
  return (s->sh_flags & SHF_ALLOC) && !tls_nobits_p (s)
         && s->sh_addr >= p->vstart && s->sh_addr <= p->vend
         && s->sh_size <= p->vend - s->sh_addr;
}

static bool
got_name_p (const char *name)
{
  return strncmp (name, ".got", 4) == 0 || strcmp (name, ".plt") == 0;
}

static bool
captured_p (const struct planner *p, size_t index)
{
  const GElf_Shdr *s = &p->in->shdrs[index];
  uintptr_t start = s->sh_addr, end = s->sh_addr + s->sh_size;
  return (s->sh_flags & SHF_WRITE) && !(s->sh_flags & SHF_TLS)
         && (s->sh_type == SHT_PROGBITS || s->sh_type == SHT_NOBITS)
         && !got_name_p (unexec_section_name (p->in, index))
         && !overlaps (start, end, p->relro)
         && !overlaps (start, end, p->dynamic);
}

static bool
holds_arena_p (const GElf_Phdr *ph, const struct unexec_arena_view *arena)
{
  return arena->base >= ph->p_vaddr
         && arena->base - ph->p_vaddr <= ph->p_memsz
         && arena->capacity <= ph->p_memsz - (arena->base - ph->p_vaddr);
}

/* The data segment: the writable PT_LOAD holding the whole arena, or
   without an arena the last writable PT_LOAD (.data and .bss).  */
static enum dumper_status
find_segment (struct planner *p, const struct unexec_arena_view *arena)
{
  const struct unexec_input *in = p->in;
  bool found = false;
  for (size_t i = 0; i < in->phdr_count; i++)
    {
      const GElf_Phdr *ph = &in->phdrs[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)
          || (arena->capacity > 0 && !holds_arena_p (ph, arena))
          || (found && ph->p_vaddr < p->vstart))
        continue;
      p->plan->segment = i;
      p->seg = ph;
      p->vstart = ph->p_vaddr;
      p->vend = ph->p_vaddr + ph->p_memsz;
      found = true;
      if (arena->capacity > 0)
        break;
    }
  if (found)
    return DUMPER_OK;
  if (arena->capacity == 0)
    return unexec_fail (p->detail, DUMPER_E_EXE,
                        "%s: no writable segment", in->path);
  return unexec_fail (p->detail, DUMPER_E_EXE,
                      "%s: the static heap arena (%#lx, %zu bytes) is not in "
                      "a writable segment of this file: libdumper must be "
                      "linked statically into an unexec host (link "
                      "libdumper.a, not libdumper.so)", in->path,
                      (unsigned long) arena->base, arena->capacity);
}

/* The file must be the running program: its program headers must be
   where the kernel says the running program's are.  */
static enum dumper_status
check_running (const struct planner *p)
{
  const struct unexec_input *in = p->in;
  unsigned long at_phdr = getauxval (AT_PHDR);
  if (at_phdr == 0)
    return DUMPER_OK;          /* the kernel did not say; nothing to compare */
  GElf_Addr expected = 0;
  for (size_t i = 0; i < in->phdr_count; i++)
    {
      const GElf_Phdr *ph = &in->phdrs[i];
      if (ph->p_type == PT_PHDR)
        expected = ph->p_vaddr;
      else if (expected == 0 && ph->p_type == PT_LOAD
               && in->ehdr.e_phoff >= ph->p_offset
               && in->ehdr.e_phoff - ph->p_offset < ph->p_filesz)
        expected = ph->p_vaddr + (in->ehdr.e_phoff - ph->p_offset);
    }
  if (expected != at_phdr)
    return unexec_fail (p->detail, DUMPER_E_EXE,
                        "%s is not the file of the running program (its "
                        "program headers would be at %#lx, the running "
                        "program's are at %#lx)", in->path,
                        (unsigned long) expected, at_phdr);
  /* Every non-PIE has them at the same address: compare them too.  */
  const ElfW (Phdr) *running = (const ElfW (Phdr) *) at_phdr;
  bool same = getauxval (AT_PHNUM) == in->phdr_count;
  for (size_t i = 0; same && i < in->phdr_count; i++)
    same = running[i].p_type == in->phdrs[i].p_type
           && running[i].p_vaddr == in->phdrs[i].p_vaddr
           && running[i].p_memsz == in->phdrs[i].p_memsz
           && running[i].p_filesz == in->phdrs[i].p_filesz;
  if (!same)
    return unexec_fail (p->detail, DUMPER_E_EXE,
                        "%s is not the file of the running program (its "
                        "program headers differ from the running "
                        "program's)", in->path);
  return DUMPER_OK;
}

static void
find_special_ranges (struct planner *p)
{
  for (size_t i = 0; i < p->in->phdr_count; i++)
    {
      const GElf_Phdr *ph = &p->in->phdrs[i];
      struct unexec_range r = { ph->p_vaddr, ph->p_vaddr + ph->p_memsz };
      if (ph->p_type == PT_GNU_RELRO)
        p->relro = r;
      else if (ph->p_type == PT_DYNAMIC)
        p->dynamic = r;
    }
}

static int
compare_logical (const void *a, const void *b)
{
  const struct logical *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  return 0;
}

/* Collect the data segment's sections, folding a previous dump's tail
   into the section it follows.  */
static enum dumper_status
collect_logicals (struct planner *p)
{
  const struct unexec_input *in = p->in;
  p->logicals = calloc (in->section_count, sizeof *p->logicals);
  if (p->logicals == NULL)
    return unexec_fail (p->detail, DUMPER_E_NOMEM, "no memory to plan the dump");
  for (size_t i = 1; i < in->section_count; i++)
    {
      const GElf_Shdr *s = &in->shdrs[i];
      if (s->sh_type == SHT_NOBITS && in_segment_p (p, s)
          && strcmp (unexec_section_name (in, i), UNEXEC_TAIL_NAME) == 0)
        p->old_tail = i;
    }
  for (size_t i = 1; i < in->section_count; i++)
    {
      const GElf_Shdr *s = &in->shdrs[i];
      if (i == p->old_tail || !in_segment_p (p, s))
        continue;
      struct logical *l = &p->logicals[p->logical_count++];
      l->index = i;
      l->start = s->sh_addr;
      l->end = s->sh_addr + s->sh_size;
      l->captured = captured_p (p, i);
      l->splittable = s->sh_type == SHT_NOBITS;
      if (p->old_tail && in->shdrs[p->old_tail].sh_addr == l->end
          && l->captured && l->end > l->start)
        {
          l->tail = p->old_tail;
          l->end += in->shdrs[p->old_tail].sh_size;
          l->splittable = true;
        }
      l->fixed = !l->splittable && s->sh_type != SHT_NOBITS;
    }
  /* A tail that follows no captured section is a NOBITS section like
     any other.  */
  bool tail_used = false;
  for (size_t k = 0; k < p->logical_count; k++)
    tail_used |= p->logicals[k].tail != 0;
  if (p->old_tail && !tail_used)
    {
      struct logical *l = &p->logicals[p->logical_count++];
      const GElf_Shdr *s = &in->shdrs[p->old_tail];
      l->index = p->old_tail;
      l->start = s->sh_addr;
      l->end = s->sh_addr + s->sh_size;
      l->captured = captured_p (p, p->old_tail);
      l->splittable = true;
      p->old_tail = 0;
    }
  qsort (p->logicals, p->logical_count, sizeof *p->logicals, compare_logical);
  return DUMPER_OK;
}

/* The end of the last non-zero byte of process memory in [LO, HI), or
   0 when all of it is zero.  Works a word at a time; the result may
   include up to a word of trailing zeros.  */
static uintptr_t
last_nonzero_end (uintptr_t lo, uintptr_t hi)
{
  const size_t word = sizeof (uintptr_t);
  while (hi > lo && hi % word != 0)
    {
      if (*(const unsigned char *) (hi - 1))
        return hi;
      hi--;
    }
  while (hi - lo >= word)
    {
      uintptr_t w;
      memcpy (&w, (const void *) (hi - word), word);
      if (w)
        return hi;
      hi -= word;
    }
  while (hi > lo)
    {
      if (*(const unsigned char *) (hi - 1))
        return hi;
      hi--;
    }
  return 0;
}

/* The same for [LO, HI) less the arena's unused part.  */
static uintptr_t
last_data_end (const struct unexec_plan *plan, uintptr_t lo, uintptr_t hi)
{
  struct unexec_range u = plan->unused;
  if (hi > u.end)
    {
      uintptr_t end = last_nonzero_end (lo > u.end ? lo : u.end, hi);
      if (end)
        return end;
    }
  if (lo < u.start)
    return last_nonzero_end (lo, hi < u.start ? hi : u.start);
  return 0;
}

/* Choose `cut': at least the end of every section whose file bytes must
   stay, and past the last non-zero captured byte.  */
static void
choose_cut (struct planner *p)
{
  uintptr_t floor = p->vstart;
  for (size_t k = 0; k < p->logical_count; k++)
    if (p->logicals[k].fixed && p->logicals[k].end > floor)
      floor = p->logicals[k].end;
  uintptr_t cut = floor;
  for (size_t k = p->logical_count; k-- > 0;)
    {
      const struct logical *l = &p->logicals[k];
      if (l->end <= floor)
        break;
      if (!l->captured)
        continue;
      uintptr_t end = last_data_end (p->plan, l->start > floor ? l->start : floor,
                                     l->end);
      if (end)
        {
          cut = end;
          break;
        }
    }
  /* Where `cut' splits a section, round it up to 16 bytes, so the tail
     section starts aligned.  A section that cannot be split, or a second
     split section when a tail already exists, is kept whole.  */
  for (size_t k = 0; k < p->logical_count; k++)
    {
      const struct logical *l = &p->logicals[k];
      if (l->start < cut && cut < l->end)
        {
          cut = align_up (cut, 16);
          if (cut > l->end || !l->splittable
              || (p->old_tail && l->tail != p->old_tail))
            cut = l->end;
          break;
        }
    }
  p->plan->cut = cut;
}

static void
set_source (struct unexec_out_section *out, const struct logical *l,
            const GElf_Shdr *in_shdr)
{
  if (out->shdr.sh_type == SHT_NOBITS)
    out->source = UNEXEC_SRC_NONE;
  else if (l->captured)
    out->source = UNEXEC_SRC_MEMORY;
  else if (in_shdr->sh_type == SHT_NOBITS)
    out->source = UNEXEC_SRC_ZERO;
  else
    out->source = UNEXEC_SRC_FILE;
}

/* Append a section named NAME; its header is the caller's to fill.  */
static size_t
append_section (struct unexec_plan *plan, const char *name)
{
  size_t index = plan->section_count++;
  plan->added[plan->added_count++] = (struct unexec_added) { index, name };
  return index;
}

/* Place the tail section TAIL at [START, END) of the data segment.  */
static void
place_tail (struct planner *p, size_t tail, const GElf_Shdr *owner,
            uintptr_t start, uintptr_t end)
{
  GElf_Shdr *t = &p->plan->sections[tail].shdr;
  t->sh_type = SHT_NOBITS;
  t->sh_flags = owner->sh_flags;
  t->sh_addr = start;
  t->sh_offset = p->seg->p_offset + (start - p->vstart);
  t->sh_size = end - start;
  t->sh_link = 0;
  t->sh_info = 0;
  t->sh_addralign = 16;
  t->sh_entsize = 0;
  p->plan->sections[tail].source = UNEXEC_SRC_NONE;
}

/* The output headers of the data segment's sections.  */
static void
plan_segment_sections (struct planner *p)
{
  struct unexec_plan *plan = p->plan;
  uintptr_t cut = plan->cut;
  for (size_t k = 0; k < p->logical_count; k++)
    {
      const struct logical *l = &p->logicals[k];
      const GElf_Shdr *in_shdr = &p->in->shdrs[l->index];
      struct unexec_out_section *out = &plan->sections[l->index];
      uintptr_t own_end = l->end;
      out->shdr.sh_offset = p->seg->p_offset + (l->start - p->vstart);
      if (l->end <= cut)
        out->shdr.sh_type = in_shdr->sh_type == SHT_NOBITS ? SHT_PROGBITS
                                                           : in_shdr->sh_type;
      else if (l->start >= cut)
        out->shdr.sh_type = SHT_NOBITS;
      else
        {
          out->shdr.sh_type = SHT_PROGBITS;
          own_end = cut;
        }
      out->shdr.sh_size = own_end - l->start;
      set_source (out, l, in_shdr);
      if (own_end < l->end)
        {
          /* The split section: its rest goes to the tail.  */
          if (l->tail == 0)
            plan->tail = append_section (plan, UNEXEC_TAIL_NAME);
          else
            plan->tail = l->tail;
          place_tail (p, plan->tail, in_shdr, own_end, l->end);
        }
      else if (l->tail)
        {
          plan->tail = l->tail;
          place_tail (p, l->tail, in_shdr, l->end, l->end);
        }
    }
}

/* Program headers: the data segment's file part ends at `cut'; headers
   of contents after it move with them.  */
static void
plan_phdrs (struct planner *p, GElf_Off old_end)
{
  struct unexec_plan *plan = p->plan;
  for (size_t i = 0; i < p->in->phdr_count; i++)
    {
      GElf_Phdr *ph = &plan->phdrs[i];
      *ph = p->in->phdrs[i];
      if (i == plan->segment)
        ph->p_filesz = plan->cut - p->vstart;
      else if (ph->p_offset >= old_end && ph->p_filesz > 0
               && !(ph->p_vaddr >= p->vstart && ph->p_vaddr < p->vend))
        ph->p_offset += plan->shift;
    }
}

/* Does section I move with the contents after the data segment?  */
static bool
after_segment_p (const struct planner *p, size_t i, GElf_Off old_end)
{
  const GElf_Shdr *s = &p->in->shdrs[i];
  return i != 0 && s->sh_offset >= old_end && !in_segment_p (p, s)
         && !tls_nobits_p (s);
}

/* The shift: the change in the segment's file size, rounded so that
   every moved section keeps its alignment and every later segment keeps
   offset == address modulo its alignment.  */
static void
choose_shift (struct planner *p, GElf_Off old_end)
{
  const struct unexec_input *in = p->in;
  uint64_t alignment = 8;
  for (size_t i = 0; i < in->section_count; i++)
    if (after_segment_p (p, i, old_end) && in->shdrs[i].sh_addralign > alignment)
      alignment = in->shdrs[i].sh_addralign;
  for (size_t i = 0; i < in->phdr_count; i++)
    if (in->phdrs[i].p_type == PT_LOAD && in->phdrs[i].p_offset >= old_end
        && in->phdrs[i].p_align > alignment)
      alignment = in->phdrs[i].p_align;
  int64_t delta = (int64_t) (p->plan->cut - p->vstart) - (int64_t) p->seg->p_filesz;
  if (delta >= 0)
    p->plan->shift = (int64_t) align_up ((uint64_t) delta, alignment);
  else
    p->plan->shift = -(int64_t) ((uint64_t) -delta / alignment * alignment);
}

/* Append the added sections' names to a copy of the section-name
   table.  */
static enum dumper_status
extend_names (struct planner *p)
{
  struct unexec_plan *plan = p->plan;
  Elf_Data *names = elf_rawdata (elf_getscn (p->in->elf, p->in->names_index),
                                 NULL);
  if (names == NULL || names->d_size != p->in->shdrs[p->in->names_index].sh_size)
    return unexec_fail (p->detail, DUMPER_E_EXE,
                        "%s: cannot read the section name table: %s",
                        p->in->path, elf_errmsg (-1));
  plan->names_size = names->d_size;
  for (size_t k = 0; k < plan->added_count; k++)
    plan->names_size += strlen (plan->added[k].name) + 1;
  plan->names = malloc (plan->names_size);
  if (plan->names == NULL)
    return unexec_fail (p->detail, DUMPER_E_NOMEM, "no memory to plan the dump");
  memcpy (plan->names, names->d_buf, names->d_size);
  size_t at = names->d_size;
  for (size_t k = 0; k < plan->added_count; k++)
    {
      size_t size = strlen (plan->added[k].name) + 1;
      memcpy (plan->names + at, plan->added[k].name, size);
      plan->sections[plan->added[k].index].shdr.sh_name = (GElf_Word) at;
      at += size;
    }
  GElf_Shdr *s = &plan->sections[p->in->names_index].shdr;
  s->sh_size = plan->names_size;
  plan->sections[p->in->names_index].source = UNEXEC_SRC_NAMES;
  return DUMPER_OK;
}

/* ------------------------------------------------------------------ */
/* The upper segment: the end of .bss and the brk heap (no arena).  */

/* A zero run in .bss shorter than this stays in the file.  */
#define UNEXEC_MIN_HOLE ((uintptr_t) 256 * 1024)

static uintptr_t
page_size (void)
{
  long size = sysconf (_SC_PAGESIZE);
  return size > 0 ? (uintptr_t) size : 4096;
}

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
static enum dumper_status
check_heap (struct planner *p)
{
  const struct unexec_input *in = p->in;
  for (size_t i = 1; i < in->section_count; i++)
    if (strcmp (unexec_section_name (in, i), UNEXEC_UPPER_NAME) == 0)
      return unexec_fail (p->detail, DUMPER_E_EXE,
                          "%s was itself written by unexec (); dumping it "
                          "again is not supported", in->path);
  if (p->heap.start >= p->heap.end)
    return DUMPER_OK;
  uintptr_t expected = align_up (p->vend, page_size ());
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
static void
choose_upper (struct planner *p, const struct unexec_arena_view *arena)
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
      uintptr_t upper = run.end & ~(page_size () - 1);
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
static void
plan_upper (struct planner *p)
{
  struct unexec_plan *plan = p->plan;
  if (plan->upper_phdr == UNEXEC_NO_PHDR)
    return;
  uintptr_t start = p->upper.start, end = p->upper.end;
  uintptr_t filled = last_nonzero_end (start, end);
  if (filled == 0)
    filled = start;
  GElf_Phdr *ph = &plan->phdrs[plan->upper_phdr];
  *ph = (GElf_Phdr) {
    .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
    .p_vaddr = start, .p_paddr = start,
    .p_filesz = filled - start, .p_memsz = end - start,
    .p_align = page_size (),
  };
  if (start < p->vend)
    {
      plan->phdrs[plan->segment].p_memsz = start - p->vstart;
      if (plan->tail)
        plan->sections[plan->tail].shdr.sh_size
          = start - plan->sections[plan->tail].shdr.sh_addr;
    }
  plan->upper_section = append_section (plan, UNEXEC_UPPER_NAME);
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
static uint64_t
place_upper (struct unexec_plan *plan, uint64_t end)
{
  GElf_Phdr *ph = &plan->phdrs[plan->upper_phdr];
  uint64_t offset = align_up (end, ph->p_align) + ph->p_vaddr % ph->p_align;
  ph->p_offset = offset;
  plan->sections[plan->upper_section].shdr.sh_offset = offset;
  return offset + ph->p_filesz;
}

/* A piece of file content [start, end), for sorting by offset.  */
struct piece
{
  uint64_t start, end;
  const char *what;
  size_t index;
};

static int
compare_piece (const void *a, const void *b)
{
  const struct piece *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* Lay the sections after the data segment out one after the other, in
   their order, each at its alignment: compressed debug sections
   (mem->compress_debug) are shorter than the room they had.  Only when
   nothing loadable follows the data segment in the file; false (and
   nothing changed) otherwise, and the sections move by `shift'.  */
static bool
pack_after_segment (struct planner *p, GElf_Off old_end)
{
  const struct unexec_input *in = p->in;
  struct unexec_plan *plan = p->plan;
  for (size_t i = 0; i < in->phdr_count; i++)
    if (in->phdrs[i].p_offset >= old_end && in->phdrs[i].p_filesz > 0)
      return false;
  struct piece *order = calloc (in->section_count, sizeof *order);
  if (order == NULL)
    return false;
  size_t count = 0;
  for (size_t i = 1; i < in->section_count; i++)
    if (after_segment_p (p, i, old_end))
      order[count++] = (struct piece) {
        in->shdrs[i].sh_offset,
        in->shdrs[i].sh_offset + in->shdrs[i].sh_size, "section", i };
  qsort (order, count, sizeof *order, compare_piece);
  uint64_t cursor = p->seg->p_offset + (plan->cut - p->vstart);
  for (size_t k = 0; k < count; k++)
    {
      GElf_Shdr *s = &plan->sections[order[k].index].shdr;
      if (s->sh_type == SHT_NOBITS)
        {
          s->sh_offset = cursor;
          continue;
        }
      s->sh_offset = align_up (cursor, s->sh_addralign);
      cursor = s->sh_offset + s->sh_size;
    }
  free (order);
  return true;
}

/* Everything after the data segment: move it (or pack it), put a grown
   name table at the end, and the section header table after all of
   it.  */
static enum dumper_status
plan_rest (struct planner *p)
{
  struct unexec_plan *plan = p->plan;
  const struct unexec_input *in = p->in;
  GElf_Off old_end = p->seg->p_offset + p->seg->p_filesz;
  choose_shift (p, old_end);
  plan_phdrs (p, old_end);
  plan_upper (p);
  bool packed = p->pack && pack_after_segment (p, old_end);
  bool new_names = plan->added_count > 0;
  if (new_names)
    {
      enum dumper_status status = extend_names (p);
      if (status != DUMPER_OK)
        return status;
    }
  uint64_t end = in->ehdr.e_phoff + (uint64_t) in->phdr_count * in->ehdr.e_phentsize;
  for (size_t i = 1; i < plan->section_count; i++)
    {
      GElf_Shdr *s = &plan->sections[i].shdr;
      if (!packed && i < in->section_count && after_segment_p (p, i, old_end))
        s->sh_offset += plan->shift;
      if (s->sh_type != SHT_NOBITS && !(new_names && i == in->names_index)
          && (plan->upper_phdr == UNEXEC_NO_PHDR || i != plan->upper_section)
          && s->sh_offset + s->sh_size > end)
        end = s->sh_offset + s->sh_size;
    }
  for (size_t i = 0; i < in->phdr_count; i++)
    if (i != plan->upper_phdr
        && plan->phdrs[i].p_offset + plan->phdrs[i].p_filesz > end)
      end = plan->phdrs[i].p_offset + plan->phdrs[i].p_filesz;
  if (new_names)
    {
      plan->sections[in->names_index].shdr.sh_offset = end;
      end += plan->names_size;
    }
  if (plan->upper_phdr != UNEXEC_NO_PHDR)
    end = place_upper (plan, end);
  plan->shoff = align_up (end, 8);
  plan->file_size = plan->shoff + (uint64_t) plan->section_count * in->ehdr.e_shentsize;
  return DUMPER_OK;
}

/* The memory ranges the file will hold, for the pointer scan.  */
static enum dumper_status
collect_captured (struct planner *p)
{
  struct unexec_plan *plan = p->plan;
  plan->captured = calloc (2 * p->logical_count + 2, sizeof *plan->captured);
  if (plan->captured == NULL)
    return unexec_fail (p->detail, DUMPER_E_NOMEM, "no memory to plan the dump");
  for (size_t k = 0; k < p->logical_count; k++)
    {
      const struct logical *l = &p->logicals[k];
      const struct unexec_out_section *out = &plan->sections[l->index];
      if (out->source != UNEXEC_SRC_MEMORY || out->shdr.sh_size == 0)
        continue;
      uintptr_t start = l->start, end = l->start + out->shdr.sh_size;
      struct unexec_range u = plan->unused;
      if (start < u.start)
        plan->captured[plan->captured_count++]
          = (struct unexec_range) { start, end < u.start ? end : u.start };
      if (end > u.end)
        plan->captured[plan->captured_count++]
          = (struct unexec_range) { start > u.end ? start : u.end, end };
    }
  if (plan->upper_phdr != UNEXEC_NO_PHDR)
    {
      const GElf_Phdr *ph = &plan->phdrs[plan->upper_phdr];
      if (ph->p_filesz > 0)
        plan->captured[plan->captured_count++]
          = (struct unexec_range) { ph->p_vaddr, ph->p_vaddr + ph->p_filesz };
    }
  return DUMPER_OK;
}

/* Run the layout check on the planned headers.  */
static enum dumper_status
check_plan (struct planner *p)
{
  struct unexec_plan *plan = p->plan;
  GElf_Shdr *shdrs = calloc (plan->section_count, sizeof *shdrs);
  if (shdrs == NULL)
    return unexec_fail (p->detail, DUMPER_E_NOMEM, "no memory to plan the dump");
  for (size_t i = 0; i < plan->section_count; i++)
    shdrs[i] = plan->sections[i].shdr;
  GElf_Ehdr ehdr = p->in->ehdr;
  ehdr.e_shoff = plan->shoff;
  ehdr.e_shnum = (GElf_Half) plan->section_count;
  char why[256];
  bool ok = unexec_layout_check (&ehdr, plan->phdrs, p->in->phdr_count, shdrs,
                                 plan->section_count, plan->file_size, why,
                                 sizeof why);
  free (shdrs);
  if (!ok)
    return unexec_fail (p->detail, DUMPER_E_EXE,
                        "%s: cannot lay out the dumped executable: %s",
                        p->in->path, why);
  return DUMPER_OK;
}

enum dumper_status
unexec_plan_make (struct unexec_plan *plan, const struct unexec_input *in,
                  const struct unexec_memory *mem,
                  const struct unexec_detail *detail)
{
  const struct unexec_arena_view *arena = &mem->arena;
  memset (plan, 0, sizeof *plan);
  plan->upper_phdr = UNEXEC_NO_PHDR;
  plan->unused = (struct unexec_range) { arena->base + arena->used,
                                         arena->base + arena->capacity };
  struct planner p = { .in = in, .detail = detail, .plan = plan,
                       .heap = mem->brk_heap, .pack = mem->compress_debug };
  enum dumper_status status = find_segment (&p, arena);
  if (status == DUMPER_OK)
    status = check_running (&p);
  if (status == DUMPER_OK)
    status = check_heap (&p);
  if (status == DUMPER_OK)
    {
      find_special_ranges (&p);
      status = collect_logicals (&p);
    }
  if (status == DUMPER_OK)
    {
      plan->phdrs = calloc (in->phdr_count, sizeof *plan->phdrs);
      plan->sections = calloc (in->section_count + 2, sizeof *plan->sections);
      if (plan->phdrs == NULL || plan->sections == NULL)
        status = unexec_fail (detail, DUMPER_E_NOMEM,
                              "no memory to plan the dump");
    }
  if (status == DUMPER_OK)
    {
      plan->section_count = in->section_count;
      for (size_t i = 0; i < in->section_count; i++)
        {
          plan->sections[i].shdr = in->shdrs[i];
          plan->sections[i].source = i == 0 || in->shdrs[i].sh_type == SHT_NOBITS
                                     ? UNEXEC_SRC_NONE : UNEXEC_SRC_FILE;
        }
      choose_cut (&p);
      choose_upper (&p, arena);
      plan_segment_sections (&p);
      status = plan_rest (&p);
    }
  if (status == DUMPER_OK)
    status = collect_captured (&p);
  if (status == DUMPER_OK)
    status = check_plan (&p);
  free (p.logicals);
  if (status != DUMPER_OK)
    unexec_plan_free (plan);
  return status;
}

void
unexec_plan_free (struct unexec_plan *plan)
{
  free (plan->phdrs);
  free (plan->sections);
  free (plan->names);
  free (plan->captured);
  memset (plan, 0, sizeof *plan);
}

/* ------------------------------------------------------------------ */
/* The layout check.  */

/* File contents must not overlap and must lie inside the file.  */
static bool
check_pieces (const GElf_Ehdr *ehdr, size_t phdr_count, const GElf_Shdr *shdrs,
              size_t section_count, uint64_t file_size, char *detail,
              size_t detail_size)
{
  struct piece *pieces = calloc (section_count + 3, sizeof *pieces);
  if (pieces == NULL)
    {
      snprintf (detail, detail_size, "out of memory");
      return false;
    }
  size_t n = 0;
  pieces[n++] = (struct piece) { 0, ehdr->e_ehsize, "ELF header", 0 };
  pieces[n++] = (struct piece) { ehdr->e_phoff,
                                 ehdr->e_phoff + phdr_count * ehdr->e_phentsize,
                                 "program headers", 0 };
  pieces[n++] = (struct piece) { ehdr->e_shoff,
                                 ehdr->e_shoff + section_count * ehdr->e_shentsize,
                                 "section headers", 0 };
  for (size_t i = 1; i < section_count; i++)
    if (shdrs[i].sh_type != SHT_NOBITS && shdrs[i].sh_size > 0)
      pieces[n++] = (struct piece) { shdrs[i].sh_offset,
                                     shdrs[i].sh_offset + shdrs[i].sh_size,
                                     "section", i };
  qsort (pieces, n, sizeof *pieces, compare_piece);
  bool ok = true;
  for (size_t k = 0; k < n && ok; k++)
    {
      if (pieces[k].end > file_size || pieces[k].end < pieces[k].start)
        {
          snprintf (detail, detail_size, "%s %zu [%#lx, %#lx) is outside "
                    "the file of %#lx bytes", pieces[k].what, pieces[k].index,
                    (unsigned long) pieces[k].start,
                    (unsigned long) pieces[k].end, (unsigned long) file_size);
          ok = false;
        }
      else if (k > 0 && pieces[k].start < pieces[k - 1].end)
        {
          snprintf (detail, detail_size, "%s %zu at %#lx overlaps %s %zu",
                    pieces[k].what, pieces[k].index,
                    (unsigned long) pieces[k].start, pieces[k - 1].what,
                    pieces[k - 1].index);
          ok = false;
        }
    }
  free (pieces);
  return ok;
}

/* Allocated sections must agree with the PT_LOAD holding them: file
   bytes exactly where the segment maps them, NOBITS only past its file
   part.  */
static bool
check_section_in_load (const GElf_Phdr *ph, const GElf_Shdr *s, size_t index,
                       char *detail, size_t detail_size)
{
  if ((s->sh_flags & SHF_TLS) && s->sh_type == SHT_NOBITS)
    return true;
  if (s->sh_addr < ph->p_vaddr || s->sh_addr + s->sh_size > ph->p_vaddr + ph->p_memsz
      || (s->sh_size == 0 && s->sh_addr == ph->p_vaddr + ph->p_memsz))
    return true;                /* not in this segment */
  GElf_Addr file_end = ph->p_vaddr + ph->p_filesz;
  if (s->sh_type == SHT_NOBITS)
    {
      if (s->sh_addr < file_end && s->sh_size > 0)
        {
          snprintf (detail, detail_size, "NOBITS section %zu at %#lx lies in "
                    "the file part of its segment (ends %#lx)", index,
                    (unsigned long) s->sh_addr, (unsigned long) file_end);
          return false;
        }
      return true;
    }
  if (s->sh_addr + s->sh_size > file_end
      || s->sh_offset != ph->p_offset + (s->sh_addr - ph->p_vaddr))
    {
      snprintf (detail, detail_size, "section %zu (address %#lx, offset "
                "%#lx) is not where its segment maps it", index,
                (unsigned long) s->sh_addr, (unsigned long) s->sh_offset);
      return false;
    }
  return true;
}

bool
unexec_layout_check (const GElf_Ehdr *ehdr, const GElf_Phdr *phdrs,
                     size_t phdr_count, const GElf_Shdr *shdrs,
                     size_t section_count, uint64_t file_size, char *detail,
                     size_t detail_size)
{
  for (size_t i = 0; i < phdr_count; i++)
    {
      const GElf_Phdr *ph = &phdrs[i];
      if (ph->p_filesz > ph->p_memsz || ph->p_offset + ph->p_filesz > file_size)
        {
          snprintf (detail, detail_size, "program header %zu: file size "
                    "%#lx at %#lx does not fit", i,
                    (unsigned long) ph->p_filesz, (unsigned long) ph->p_offset);
          return false;
        }
      if (ph->p_type != PT_LOAD)
        continue;
      if (ph->p_align > 1 && ph->p_offset % ph->p_align != ph->p_vaddr % ph->p_align)
        {
          snprintf (detail, detail_size, "segment %zu: offset %#lx and "
                    "address %#lx disagree modulo %#lx", i,
                    (unsigned long) ph->p_offset, (unsigned long) ph->p_vaddr,
                    (unsigned long) ph->p_align);
          return false;
        }
      for (size_t s = 1; s < section_count; s++)
        if ((shdrs[s].sh_flags & SHF_ALLOC)
            && !check_section_in_load (ph, &shdrs[s], s, detail, detail_size))
          return false;
    }
  return check_pieces (ehdr, phdr_count, shdrs, section_count, file_size,
                       detail, detail_size);
}
