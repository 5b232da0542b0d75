/* SPDX-License-Identifier: MIT */
/* unexec/layout.c: the layout check of an executable's headers
   (unexec_layout_check, internal.h): run on every plan before anything
   is written, and by the unit tests on the written file.  It reads only
   the headers it is given.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

int
unexec_compare_piece (const void *a, const void *b)
{
  const struct unexec_piece *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* File contents must not overlap and must lie inside the file.  */
static bool
check_pieces (const GElf_Ehdr *ehdr, size_t phdr_count, const GElf_Shdr *shdrs,
              size_t section_count, uint64_t file_size, char *detail,
              size_t detail_size)
{
  struct unexec_piece *pieces = calloc (section_count + 3, sizeof *pieces);
  if (pieces == NULL)
    {
      snprintf (detail, detail_size, "out of memory");
      return false;
    }
  size_t n = 0;
  pieces[n++] = (struct unexec_piece) { 0, ehdr->e_ehsize, "ELF header", 0 };
  pieces[n++] = (struct unexec_piece) { ehdr->e_phoff,
                                 ehdr->e_phoff + phdr_count * ehdr->e_phentsize,
                                 "program headers", 0 };
  pieces[n++] = (struct unexec_piece) { ehdr->e_shoff,
                                 ehdr->e_shoff + section_count * ehdr->e_shentsize,
                                 "section headers", 0 };
  for (size_t i = 1; i < section_count; i++)
    if (shdrs[i].sh_type != SHT_NOBITS && shdrs[i].sh_size > 0)
      pieces[n++] = (struct unexec_piece) { shdrs[i].sh_offset,
                                     shdrs[i].sh_offset + shdrs[i].sh_size,
                                     "section", i };
  qsort (pieces, n, sizeof *pieces, unexec_compare_piece);
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
