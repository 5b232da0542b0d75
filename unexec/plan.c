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
   upper segment, for the brk heap and the end of .bss: upper.c.
   unexec () also writes the debug sections compressed (input.c), so
   the sections after the data segment are then packed one after the
   other, not moved by `shift'.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/os.h"
#include "plan.h"

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
   where the dynamic loader says the main program's are (common/os.c;
   for a non-PIE, the address the kernel gave it in AT_PHDR).  */
static enum dumper_status
check_running (const struct planner *p)
{
  const struct unexec_input *in = p->in;
  struct common_program program;
  if (!common_main_program (&program))
    return DUMPER_OK;          /* the loader did not say; nothing to compare */
  unsigned long at_phdr = (unsigned long) (uintptr_t) program.phdr;
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
  const ElfW (Phdr) *running = program.phdr;
  bool same = (size_t) program.phnum == in->phdr_count;
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

uintptr_t
unexec_last_nonzero_end (uintptr_t lo, uintptr_t hi)
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
      uintptr_t end = unexec_last_nonzero_end (lo > u.end ? lo : u.end, hi);
      if (end)
        return end;
    }
  if (lo < u.start)
    return unexec_last_nonzero_end (lo, hi < u.start ? hi : u.start);
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

size_t
unexec_append_section (struct unexec_plan *plan, const char *name)
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
            plan->tail = unexec_append_section (plan, UNEXEC_TAIL_NAME);
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
  struct unexec_piece *order = calloc (in->section_count, sizeof *order);
  if (order == NULL)
    return false;
  size_t count = 0;
  for (size_t i = 1; i < in->section_count; i++)
    if (after_segment_p (p, i, old_end))
      order[count++] = (struct unexec_piece) {
        in->shdrs[i].sh_offset,
        in->shdrs[i].sh_offset + in->shdrs[i].sh_size, "section", i };
  qsort (order, count, sizeof *order, unexec_compare_piece);
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
  unexec_plan_upper (p);
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
    end = unexec_place_upper (plan, end);
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
    status = unexec_check_heap (&p);
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
      unexec_choose_upper (&p, arena);
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
