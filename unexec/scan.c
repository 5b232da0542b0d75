/* SPDX-License-Identifier: MIT */
/* unexec/scan.c: the warning about saved pointers that cannot survive.

   A dumped executable gets the saved data at the same addresses, but
   shared libraries, the stack, the malloc heap and every other mapping
   outside the executable are placed anew (and randomly, under ASLR) in
   each run.  A saved word that points into one of them dangles.  This
   file reads /proc/self/maps, scans every word the dump will save, and
   warns about each word whose value lies in such a mapping, naming
   where the word is (the symbol from the executable's symbol table, or
   the section and offset) and where it points.

   Words of copy-relocated variables (`stdout', `environ', ...: R_*_COPY
   relocations) are skipped: the dynamic loader overwrites them in every
   run.  The scan is advice, never a failure: a hash value can look like
   a pointer, and a host may know a pointer is reset at start.  */

#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/maps.h"
#include "internal.h"

/* How many findings are described one by one; the rest are counted.  */
#define LISTED_MAX 16

struct scanner
{
  const struct unexec_input *in;
  struct common_maps maps;           /* mappings outside the executable */
  struct unexec_range exe;            /* the executable's own image */
  struct unexec_range *copies;        /* copy-relocated variables, sorted */
  size_t copy_count;
  void (*warn) (const char *, void *);
  void *warn_data;
  size_t found;
};

static void
say (struct scanner *s, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

static void
say (struct scanner *s, const char *fmt, ...)
{
  if (s->warn == NULL)
    return;
  char message[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (message, sizeof message, fmt, ap);
  va_end (ap);
  s->warn (message, s->warn_data);
}

/* The address range of the dumped executable's PT_LOAD segments, in
   pages: a saved brk heap is one of them.  */
static struct unexec_range
exe_range (const GElf_Phdr *phdrs, size_t phdr_count)
{
  const uintptr_t page = 4096;
  struct unexec_range r = { UINTPTR_MAX, 0 };
  for (size_t i = 0; i < phdr_count; i++)
    if (phdrs[i].p_type == PT_LOAD)
      {
        uintptr_t start = phdrs[i].p_vaddr & ~(page - 1);
        uintptr_t end = (phdrs[i].p_vaddr + phdrs[i].p_memsz + page - 1)
                        & ~(page - 1);
        if (start < r.start)
          r.start = start;
        if (end > r.end)
          r.end = end;
      }
  return r;
}

/* Read the mappings outside the executable from /proc/self/maps.  */
static bool
read_maps (struct scanner *s)
{
  if (!common_maps_read (&s->maps))
    return false;
  size_t kept = 0;
  for (size_t i = 0; i < s->maps.count; i++)
    {
      const struct common_region *r = &s->maps.regions[i];
      if (!(r->start < s->exe.end && r->end > s->exe.start))
        s->maps.regions[kept++] = *r;
    }
  s->maps.count = kept;
  return true;
}

/* The index of the range holding ADDR in the COUNT ranges at FIRST,
   STRIDE bytes apart and sorted by address; COUNT when none does.  */
static size_t
find_range (const struct unexec_range *first, size_t count, size_t stride,
            uintptr_t addr)
{
  size_t lo = 0, hi = count;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      const struct unexec_range *r
        = (const struct unexec_range *) ((const char *) first + mid * stride);
      if (addr < r->start)
        hi = mid;
      else if (addr >= r->end)
        lo = mid + 1;
      else
        return mid;
    }
  return count;
}


static void
describe_mapping (const struct common_region *m, char *out, size_t size)
{
  if (strcmp (m->name, "[heap]") == 0)
    snprintf (out, size, "the malloc heap ([heap])");
  else if (strncmp (m->name, "[stack", 6) == 0)
    snprintf (out, size, "the stack");
  else if (strcmp (m->name, "[vdso]") == 0 || strcmp (m->name, "[vvar]") == 0
           || strcmp (m->name, "[vsyscall]") == 0)
    snprintf (out, size, "the vDSO (%s)", m->name);
  else if (m->name[0] == '/' && strstr (m->name, ".so"))
    snprintf (out, size, "shared library %s", m->name);
  else if (m->name[0] != '\0')
    snprintf (out, size, "mapped file %s", m->name);
  else
    snprintf (out, size, "anonymous memory (large malloc blocks, thread "
              "stacks or mmap)");
}

static bool
copy_type_p (unsigned machine, unsigned type)
{
  switch (machine)
    {
    case EM_X86_64: return type == R_X86_64_COPY;
    case EM_386: return type == R_386_COPY;
    case EM_AARCH64: return type == R_AARCH64_COPY;
    case EM_ARM: return type == R_ARM_COPY;
    case EM_PPC64: return type == R_PPC64_COPY;
    case EM_PPC: return type == R_PPC_COPY;
    case EM_S390: return type == R_390_COPY;
    case EM_RISCV: return type == R_RISCV_COPY;
    default: return false;
    }
}

static int
compare_range (const void *a, const void *b)
{
  const struct unexec_range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Add the copy relocations of relocation section INDEX.  */
static bool
add_copies (struct scanner *s, size_t index, size_t *capacity)
{
  const struct unexec_input *in = s->in;
  const GElf_Shdr *sh = &in->shdrs[index];
  Elf_Data *rels = elf_getdata (elf_getscn (in->elf, index), NULL);
  Elf_Data *syms = sh->sh_link < in->section_count
                   ? elf_getdata (elf_getscn (in->elf, sh->sh_link), NULL) : NULL;
  if (rels == NULL || syms == NULL || sh->sh_entsize == 0)
    return true;
  size_t count = sh->sh_size / sh->sh_entsize;
  for (size_t k = 0; k < count; k++)
    {
      GElf_Rela rela;
      GElf_Rel rel;
      if (sh->sh_type == SHT_RELA ? gelf_getrela (rels, (int) k, &rela) == NULL
                                  : gelf_getrel (rels, (int) k, &rel) == NULL)
        break;
      if (sh->sh_type == SHT_REL)
        {
          rela.r_offset = rel.r_offset;
          rela.r_info = rel.r_info;
        }
      GElf_Sym sym;
      if (!copy_type_p (in->ehdr.e_machine, GELF_R_TYPE (rela.r_info))
          || gelf_getsym (syms, (int) GELF_R_SYM (rela.r_info), &sym) == NULL)
        continue;
      if (s->copy_count == *capacity)
        {
          *capacity = *capacity ? 2 * *capacity : 16;
          struct unexec_range *grown = realloc (s->copies,
                                                *capacity * sizeof *grown);
          if (grown == NULL)
            return false;
          s->copies = grown;
        }
      s->copies[s->copy_count++]
        = (struct unexec_range) { rela.r_offset, rela.r_offset + sym.st_size };
    }
  return true;
}

static bool
read_copies (struct scanner *s)
{
  size_t capacity = 0;
  for (size_t i = 1; i < s->in->section_count; i++)
    {
      const GElf_Shdr *sh = &s->in->shdrs[i];
      if ((sh->sh_type == SHT_RELA || sh->sh_type == SHT_REL)
          && (sh->sh_flags & SHF_ALLOC) && !add_copies (s, i, &capacity))
        return false;
    }
  qsort (s->copies, s->copy_count, sizeof *s->copies, compare_range);
  return true;
}

static bool
copy_relocated_p (const struct scanner *s, uintptr_t addr)
{
  return find_range (s->copies, s->copy_count, sizeof *s->copies, addr)
         < s->copy_count;
}

/* The best symbol-table entry covering ADDR, as "name+0xoff".  */
static bool
symbol_at (const struct unexec_input *in, uintptr_t addr, char *out, size_t size)
{
  for (int pass = 0; pass < 2; pass++)
    {
      GElf_Word want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
      for (size_t i = 1; i < in->section_count; i++)
        {
          const GElf_Shdr *sh = &in->shdrs[i];
          if (sh->sh_type != want || sh->sh_entsize == 0)
            continue;
          Elf_Data *data = elf_getdata (elf_getscn (in->elf, i), NULL);
          size_t count = data ? sh->sh_size / sh->sh_entsize : 0;
          GElf_Sym best = { 0 };
          const char *best_name = NULL;
          for (size_t k = 1; k < count; k++)
            {
              GElf_Sym sym;
              if (gelf_getsym (data, (int) k, &sym) == NULL
                  || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE
                  || GELF_ST_TYPE (sym.st_info) == STT_TLS
                  || GELF_ST_TYPE (sym.st_info) == STT_SECTION
                  || GELF_ST_TYPE (sym.st_info) == STT_FILE
                  || addr < sym.st_value
                  || addr - sym.st_value >= (sym.st_size ? sym.st_size : 1))
                continue;
              const char *name = elf_strptr (in->elf, sh->sh_link, sym.st_name);
              if (name && *name && (best_name == NULL || sym.st_value > best.st_value))
                {
                  best = sym;
                  best_name = name;
                }
            }
          if (best_name)
            {
              if (addr == best.st_value)
                snprintf (out, size, "%s", best_name);
              else
                snprintf (out, size, "%s+%#lx", best_name,
                          (unsigned long) (addr - best.st_value));
              return true;
            }
        }
    }
  return false;
}

/* Where ADDR is: a symbol, else a section and offset.  */
static void
locate (const struct unexec_input *in, uintptr_t addr, char *out, size_t size)
{
  if (symbol_at (in, addr, out, size))
    return;
  for (size_t i = 1; i < in->section_count; i++)
    {
      const GElf_Shdr *sh = &in->shdrs[i];
      if ((sh->sh_flags & SHF_ALLOC) && !(sh->sh_flags & SHF_TLS)
          && addr >= sh->sh_addr && addr - sh->sh_addr < sh->sh_size)
        {
          snprintf (out, size, "section %s+%#lx", unexec_section_name (in, i),
                    (unsigned long) (addr - sh->sh_addr));
          return;
        }
    }
  snprintf (out, size, "no section");
}

static void
report (struct scanner *s, uintptr_t where, uintptr_t value,
        const struct common_region *m)
{
  s->found++;
  if (s->found > LISTED_MAX)
    return;
  char location[256], target[320];
  locate (s->in, where, location, sizeof location);
  describe_mapping (m, target, sizeof target);
  say (s, "saved word at %#lx (%s) holds %#lx, a pointer into %s; it will "
       "not be valid in the dumped executable", (unsigned long) where,
       location, (unsigned long) value, target);
}

static void
scan_range (struct scanner *s, struct unexec_range r)
{
  const size_t word = sizeof (uintptr_t);
  if (s->maps.count == 0)
    return;
  uintptr_t low = s->maps.regions[0].start;
  uintptr_t span = s->maps.regions[s->maps.count - 1].end - low;
  for (uintptr_t a = (r.start + word - 1) & ~(uintptr_t) (word - 1);
       a + word <= r.end; a += word)
    {
      uintptr_t value;
      memcpy (&value, (const void *) a, word);
      if (value - low >= span)
        continue;
      const struct common_region *m = common_maps_find (&s->maps, value);
      if (m && !copy_relocated_p (s, a))
        report (s, a, value, m);
    }
}

size_t
unexec_scan_pointers (const struct unexec_input *in,
                      const struct unexec_plan *plan,
                      void (*warn) (const char *, void *), void *warn_data)
{
  struct scanner s = { .in = in, .warn = warn, .warn_data = warn_data };
  s.exe = exe_range (plan->phdrs, in->phdr_count);
  if (!read_maps (&s) || !read_copies (&s))
    say (&s, "cannot check the saved data for pointers outside the "
         "executable (reading /proc/self/maps or the relocations failed)");
  else
    for (size_t k = 0; k < plan->captured_count; k++)
      scan_range (&s, plan->captured[k]);
  if (s.found > LISTED_MAX)
    say (&s, "%zu saved words in all look like pointers outside the "
         "executable; only the first %d are listed", s.found, LISTED_MAX);
  common_maps_free (&s.maps);
  free (s.copies);
  return s.found;
}
