/* SPDX-License-Identifier: MIT */
/* tools/inspect/symbols.c: naming executable offsets by symbol, with
   libbfd.

   The symbols come from the static symbol table, or from the dynamic
   one when the binary is stripped.  Kept: defined symbols of allocated,
   non-thread-local sections; dropped: section and file symbols,
   debugging symbols, compiler-generated local labels and target
   specials.  Where several symbols share an address the most telling
   one wins (global before weak before local, typed before untyped, then
   by name), so the choice never depends on table order.

   An address is named by the nearest symbol at or before it in the same
   section ("builtins+0x20"); libbfd does not expose ELF symbol sizes,
   so an address after the last symbol of a section still takes that
   symbol's name.  An address outside every allocated section, or before
   the first symbol of its section, falls on no symbol.

   Hints: a reference to a table entry whose first word points at a
   string (a built-in function's name) is shown with that string, read
   from the file's section contents at link-time addresses.  */

#include <config.h>

/* bfd.h refuses to compile without these (configure checks it the
   same way); config.h gives PACKAGE_VERSION.  */
#ifndef PACKAGE
# define PACKAGE PACKAGE_NAME
#endif
#include <bfd.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

/* Both structs start with their sort key, for insp_upper_bound.  */
struct section
{
  uint64_t vma, size;
  asection *section;
  flagword flags;
  bfd_byte *contents;        /* loaded on first use */
  bool contents_tried;
  size_t first_symbol, symbol_count;
};

struct symbol
{
  uint64_t address;
  const char *name;          /* owned by the bfd */
  size_t section;            /* index into sections */
  int rank;                  /* lower is better */
};

_Static_assert (offsetof (struct section, vma) == 0
                && offsetof (struct symbol, address) == 0,
                "insp_upper_bound keys on the first member");

struct insp_symbols
{
  bfd *abfd;
  asymbol **table;
  struct section *sections;  /* by vma */
  size_t section_count;
  struct symbol *symbols;    /* by section, then address */
  size_t symbol_count;
  unsigned word_size;
};

/* libbfd reports oddities of the file it reads on stderr by default;
   the tool says itself what it could not do.  */
static void
quiet (const char *fmt, va_list ap)
{
  (void) fmt;
  (void) ap;
}

static int
compare_sections (const void *a, const void *b)
{
  const struct section *x = a, *y = b;
  return (x->vma > y->vma) - (x->vma < y->vma);
}

static int
compare_symbols (const void *a, const void *b)
{
  const struct symbol *x = a, *y = b;
  if (x->section != y->section)
    return (x->section > y->section) - (x->section < y->section);
  if (x->address != y->address)
    return (x->address > y->address) - (x->address < y->address);
  if (x->rank != y->rank)
    return x->rank - y->rank;
  return strcmp (x->name, y->name);
}

/* The section containing ADDRESS, or -1.  */
static long
section_of (const struct insp_symbols *s, uint64_t address)
{
  size_t after = insp_upper_bound (s->sections, sizeof *s->sections, 0,
                                   s->section_count, address);
  if (after == 0
      || address - s->sections[after - 1].vma >= s->sections[after - 1].size)
    return -1;
  return (long) (after - 1);
}

static bool
read_sections (struct insp_symbols *s)
{
  s->sections = calloc (bfd_count_sections (s->abfd) + 1, sizeof *s->sections);
  if (s->sections == NULL)
    return false;
  for (asection *sec = s->abfd->sections; sec; sec = sec->next)
    {
      flagword flags = bfd_section_flags (sec);
      if (!(flags & SEC_ALLOC) || (flags & SEC_THREAD_LOCAL)
          || bfd_section_size (sec) == 0)
        continue;
      struct section *d = &s->sections[s->section_count++];
      d->vma = bfd_section_vma (sec);
      d->size = bfd_section_size (sec);
      d->section = sec;
      d->flags = flags;
    }
  qsort (s->sections, s->section_count, sizeof *s->sections, compare_sections);
  return true;
}

/* Read the static symbol table, else the dynamic one, into S->table;
   the count, or -1.  */
static long
read_table (struct insp_symbols *s)
{
  long bound = bfd_get_symtab_upper_bound (s->abfd);
  long count = 0;
  if (bound > 0 && (s->table = malloc ((size_t) bound)) != NULL)
    count = bfd_canonicalize_symtab (s->abfd, s->table);
  if (count > 0)
    return count;
  free (s->table);
  s->table = NULL;
  bound = bfd_get_dynamic_symtab_upper_bound (s->abfd);
  if (bound <= 0)
    return 0;
  if ((s->table = malloc ((size_t) bound)) == NULL)
    return -1;
  count = bfd_canonicalize_dynamic_symtab (s->abfd, s->table);
  return count < 0 ? 0 : count;
}

static bool
wanted (bfd *abfd, asymbol *sym)
{
  const flagword unwanted = BSF_SECTION_SYM | BSF_FILE | BSF_DEBUGGING
                            | BSF_SYNTHETIC;
  asection *sec = bfd_asymbol_section (sym);
  const char *name = bfd_asymbol_name (sym);
  return !(sym->flags & unwanted) && name && name[0]
         && !bfd_is_und_section (sec) && !bfd_is_com_section (sec)
         && !bfd_is_abs_section (sec) && (bfd_section_flags (sec) & SEC_ALLOC)
         && !bfd_is_local_label (abfd, sym)
         && !bfd_is_target_special_symbol (abfd, sym);
}

static int
rank_of (const asymbol *sym)
{
  int binding = sym->flags & BSF_GLOBAL ? 0 : sym->flags & BSF_WEAK ? 1 : 2;
  bool typed = sym->flags & (BSF_FUNCTION | BSF_OBJECT);
  return binding * 2 + (typed ? 0 : 1);
}

static bool
read_symbols (struct insp_symbols *s)
{
  long count = read_table (s);
  if (count < 0)
    return false;
  s->symbols = malloc (((size_t) count + 1) * sizeof *s->symbols);
  if (s->symbols == NULL)
    return false;
  for (long i = 0; i < count; i++)
    {
      asymbol *sym = s->table[i];
      if (!wanted (s->abfd, sym))
        continue;
      uint64_t address = bfd_asymbol_value (sym);
      long section = section_of (s, address);
      if (section < 0)
        continue;
      s->symbols[s->symbol_count++] = (struct symbol) {
        address, bfd_asymbol_name (sym), (size_t) section, rank_of (sym)
      };
    }
  qsort (s->symbols, s->symbol_count, sizeof *s->symbols, compare_symbols);
  /* One symbol per address: the first, the best ranked.  */
  size_t kept = 0;
  for (size_t i = 0; i < s->symbol_count; i++)
    if (kept == 0 || s->symbols[i].address != s->symbols[kept - 1].address
        || s->symbols[i].section != s->symbols[kept - 1].section)
      s->symbols[kept++] = s->symbols[i];
  s->symbol_count = kept;
  for (size_t i = kept; i-- > 0;)
    {
      struct section *sec = &s->sections[s->symbols[i].section];
      sec->first_symbol = i;
      sec->symbol_count++;
    }
  return true;
}

enum dumper_status
insp_symbols_open (struct insp_symbols **out, const char *path, char *detail,
                   size_t detail_size)
{
  *out = NULL;
  static bool initialised;
  if (!initialised)
    {
      if (bfd_init () != BFD_INIT_MAGIC)
        return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, path,
                          "libbfd does not match the bfd.h it was built with");
      bfd_set_error_handler (quiet);
      initialised = true;
    }
  struct insp_symbols *s = calloc (1, sizeof *s);
  if (s == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                      "out of memory");
  s->abfd = bfd_openr (path, NULL);
  if (s->abfd == NULL || !bfd_check_format (s->abfd, bfd_object))
    {
      const char *why = bfd_errmsg (bfd_get_error ());
      insp_symbols_close (s);
      return pdump_check_fail (DUMPER_E_EXE, detail, detail_size, path,
                        "libbfd cannot read the executable: %s", why);
    }
  s->word_size = bfd_get_arch_size (s->abfd) == 32 ? 4 : 8;
  if (!read_sections (s) || !read_symbols (s))
    {
      insp_symbols_close (s);
      return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                        "out of memory reading the symbols");
    }
  *out = s;
  return DUMPER_OK;
}

void
insp_symbols_close (struct insp_symbols *s)
{
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->section_count; i++)
    free (s->sections[i].contents);
  free (s->sections);
  free (s->symbols);
  free (s->table);
  if (s->abfd)
    bfd_close (s->abfd);
  free (s);
}

uint64_t
insp_symbols_count (const struct insp_symbols *s)
{
  return s ? s->symbol_count : 0;
}

struct insp_symbol_ref
insp_symbols_lookup (const struct insp_symbols *s, uint64_t address)
{
  struct insp_symbol_ref ref = { NULL, 0 };
  long section = s ? section_of (s, address) : -1;
  if (section < 0)
    return ref;
  const struct section *sec = &s->sections[section];
  size_t after = insp_upper_bound (s->symbols, sizeof *s->symbols,
                                   sec->first_symbol,
                                   sec->first_symbol + sec->symbol_count,
                                   address);
  if (after > sec->first_symbol)
    {
      ref.name = s->symbols[after - 1].name;
      ref.start = s->symbols[after - 1].address;
    }
  return ref;
}

/* The contents of section I, or NULL (none in the file, or unreadable).  */
static const bfd_byte *
contents_of (struct insp_symbols *s, size_t i)
{
  struct section *sec = &s->sections[i];
  if (!sec->contents_tried)
    {
      sec->contents_tried = true;
      if ((sec->flags & SEC_HAS_CONTENTS)
          && !bfd_malloc_and_get_section (s->abfd, sec->section, &sec->contents))
        {
          free (sec->contents);
          sec->contents = NULL;
        }
    }
  return sec->contents;
}

#define HINT_MAX 48

/* The printable NUL-terminated string of at least MIN bytes at ADDRESS
   in read-only data, copied to BUFFER.  */
static bool
string_at (struct insp_symbols *s, uint64_t address, size_t min,
           char *buffer, size_t size)
{
  long i = section_of (s, address);
  if (i < 0 || !(s->sections[i].flags & SEC_READONLY)
      || (s->sections[i].flags & SEC_CODE))
    return false;
  const bfd_byte *bytes = contents_of (s, (size_t) i);
  if (bytes == NULL)
    return false;
  uint64_t at = address - s->sections[i].vma;
  uint64_t avail = s->sections[i].size - at;
  size_t length = 0;
  while (length < avail && length < HINT_MAX && bytes[at + length] >= 0x20
         && bytes[at + length] < 0x7f)
    length++;
  if (length < min || length >= avail || bytes[at + length] != 0
      || length >= size)
    return false;
  memcpy (buffer, bytes + at, length);
  buffer[length] = '\0';
  return true;
}

bool
insp_symbols_hint (struct insp_symbols *s, uint64_t address, char *buffer,
                   size_t size)
{
  if (s == NULL)
    return false;
  if (string_at (s, address, 2, buffer, size))
    return true;
  long i = section_of (s, address);
  if (i < 0)
    return false;
  const bfd_byte *bytes = contents_of (s, (size_t) i);
  uint64_t at = address - s->sections[i].vma;
  if (bytes == NULL || s->sections[i].size - at < s->word_size)
    return false;
  uint64_t pointer = s->word_size == 8 ? bfd_get_64 (s->abfd, bytes + at)
                                       : bfd_get_32 (s->abfd, bytes + at);
  return string_at (s, pointer, 1, buffer, size);
}
