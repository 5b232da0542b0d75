/* SPDX-License-Identifier: MIT */
/* unexec/internal.h: what the files of the unexec writer share.

   The writer is split by concern:
     input.c   open the running executable with libelf and check that it
               can be dumped (ELF, this machine's class and byte order,
               non-PIE, sane headers)
     plan.c    decide the new file: where the data segment's file part
               ends (`cut'), which sections become PROGBITS, how later
               contents move, the new program and section headers
     upper.c   the upper segment of a dump without an arena (the brk
               heap, the end of .bss), with plan.c (plan.h)
     layout.c  check a planned or written file's layout
     scan.c    warn about saved words that point outside the executable
               (shared libraries, stack, malloc heap), by symbol name
     emit.c    write the planned file with libelf under a temporary name,
               then make it executable and rename it
     write.c   the steps above in order, and the statistics
     host.c    unexec_write: the dump of a libdumper host (the arena)
   bridge/compat.c adds the other entry point, Emacs's unexec (), which
   saves the brk heap instead of an arena; both go through write.c.
   None of them calls into the bridge, and none keeps state in static
   storage: the writer runs while the data segment is being copied, so
   its own variables live on the stack and in malloc'd memory.  */

#ifndef DUMPER_UNEXEC_INTERNAL_H
#define DUMPER_UNEXEC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>
#include <libelf.h>

#include "backend.h"

/* The name given to the zero-initialised remainder of a section that
   the dump filled only in part (normally the arena's `.lbss').  */
#define UNEXEC_TAIL_NAME ".unexec.bss"

/* The section of the upper segment (unexec ()): the part of .bss after
   a long run of zeros, and the brk heap, in a PT_LOAD of their own.  */
#define UNEXEC_UPPER_NAME ".unexec.data"

/* Where error details go: the caller's buffer.  */
struct unexec_detail
{
  char *text;
  size_t size;
};

/* Record a failure in DETAIL and return STATUS.  */
enum dumper_status unexec_fail (const struct unexec_detail *detail,
                                enum dumper_status status,
                                const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* ------------------------------------------------------------------ */
/* input.c */

struct unexec_input
{
  const char *path;
  int fd;
  Elf *elf;
  uint64_t file_size;
  GElf_Ehdr ehdr;
  size_t phdr_count;
  GElf_Phdr *phdrs;
  size_t section_count;       /* including the null section 0 */
  GElf_Shdr *shdrs;           /* indexed by section number */
  size_t names_index;         /* the section-name string table */
};

/* Open PATH (the running executable) and read its headers.  Fails with
   DUMPER_E_IO when it cannot be read, DUMPER_E_EXE when it is not a
   non-PIE ELF executable of this machine's class and byte order or its
   headers are inconsistent.  On failure nothing needs closing.  */
enum dumper_status unexec_input_open (struct unexec_input *in,
                                      const char *path,
                                      const struct unexec_detail *detail);
void unexec_input_close (struct unexec_input *in);

/* Compress IN's debug sections in memory (zlib, SHF_COMPRESSED); see
   input.c.  Returns how many were compressed.  */
size_t unexec_input_compress_debug (struct unexec_input *in);

/* The name of section INDEX ("" when unnamed or out of range).  */
const char *unexec_section_name (const struct unexec_input *in, size_t index);

/* ------------------------------------------------------------------ */
/* plan.c */

/* Where an output section's file bytes come from.  */
enum unexec_source
{
  UNEXEC_SRC_NONE,      /* none: NOBITS, or the null section */
  UNEXEC_SRC_FILE,      /* the input file's bytes, unchanged */
  UNEXEC_SRC_MEMORY,    /* the running process's memory at sh_addr */
  UNEXEC_SRC_ZERO,      /* zeros (a NOBITS section now inside the file) */
  UNEXEC_SRC_NAMES      /* the plan's extended section-name table */
};

struct unexec_out_section
{
  GElf_Shdr shdr;
  enum unexec_source source;
};

/* A section the plan appends (section numbers of the input never
   change): the tail of a split section, the upper segment's.  */
struct unexec_added
{
  size_t index;
  const char *name;
};

/* No program header (unexec_plan.upper_phdr without an upper
   segment).  */
#define UNEXEC_NO_PHDR ((size_t) -1)

struct unexec_plan
{
  size_t segment;             /* index of the data PT_LOAD in the phdrs */
  GElf_Addr cut;              /* the segment's file part ends here now */
  int64_t shift;              /* moves everything after the segment */
  GElf_Phdr *phdrs;           /* the output program headers */
  size_t section_count;       /* output sections, a new tail included */
  struct unexec_out_section *sections;
  size_t tail;                /* the tail section's index, or 0 */
  struct unexec_added added[2];  /* sections appended, in order */
  size_t added_count;
  char *names;                /* extended name table when any was added */
  size_t names_size;
  /* The upper segment (the end of .bss, the brk heap): its program
     header (a spare one of the input turned into a PT_LOAD), or
     UNEXEC_NO_PHDR; its section.  */
  size_t upper_phdr;
  size_t upper_section;
  GElf_Off shoff;             /* the output section header table */
  uint64_t file_size;         /* the output's size */
  /* Memory written from the process, sorted by address: the parts of
     captured sections below `cut', without the arena's unused part.  */
  struct unexec_range *captured;
  size_t captured_count;
  /* Bytes of the captured ranges that are zero-filled in the file: the
     arena's unused part [arena + used, arena + capacity).  */
  struct unexec_range unused;
};

/* Plan the output for IN with the process memory as it is now.  Fails
   with DUMPER_E_EXE when IN is not the running program, the arena is
   not in its writable segment (libdumper linked as a shared library),
   the brk heap does not start where the data segment ends (ASLR on) or
   the layout cannot be handled; DUMPER_E_NOMEM.  */
enum dumper_status unexec_plan_make (struct unexec_plan *plan,
                                     const struct unexec_input *in,
                                     const struct unexec_memory *mem,
                                     const struct unexec_detail *detail);
void unexec_plan_free (struct unexec_plan *plan);

/* Check the plan's file layout: no two pieces of file content overlap,
   every file-backed section of the data segment lies inside its file
   part, offsets and addresses agree modulo the segment alignment.
   Returns false with the first violation in DETAIL.  Used after
   planning (a failure is a bug here) and by the unit tests on the
   written file.  */
bool unexec_layout_check (const GElf_Ehdr *ehdr, const GElf_Phdr *phdrs,
                          size_t phdr_count, const GElf_Shdr *shdrs,
                          size_t section_count, uint64_t file_size,
                          char *detail, size_t detail_size);

/* A piece of file content [start, end), for sorting by offset (the
   layout check's, and plan.c's packing of what follows the data
   segment); unexec_compare_piece is qsort's comparison.  */
struct unexec_piece
{
  uint64_t start, end;
  const char *what;
  size_t index;
};
int unexec_compare_piece (const void *a, const void *b);

/* ------------------------------------------------------------------ */
/* scan.c */

/* Scan the plan's captured memory for words that point into mappings
   of /proc/self/maps outside the executable, skipping copy-relocated
   variables (the dynamic loader rewrites them at start).  Each finding
   goes to WARN (at most a few listed, then a count).  Returns the number
   of suspicious words found.  Problems reading the maps are a warning,
   not a failure: the scan is advice.  */
size_t unexec_scan_pointers (const struct unexec_input *in,
                             const struct unexec_plan *plan,
                             void (*warn) (const char *, void *),
                             void *warn_data);

/* ------------------------------------------------------------------ */
/* emit.c */

/* Write PLAN for IN to OUTPUT atomically: a temporary file in OUTPUT's
   directory, made executable, then renamed.  DUMPER_E_OUTPUT when the
   file cannot be created or renamed, DUMPER_E_IO when writing fails;
   no file is left behind on failure.  */
enum dumper_status unexec_emit (const struct unexec_input *in,
                                const struct unexec_plan *plan,
                                const char *output,
                                const struct unexec_detail *detail);

/* ------------------------------------------------------------------ */
/* write.c */

/* ------------------------------------------------------------------ */
/* host.c */

/* unexec_write reading the executable from INPUT instead of
   /proc/self/exe; for tests of the input checks.  */
enum dumper_status unexec_write_from (const char *input,
                                      const struct unexec_request *req);

#endif /* DUMPER_UNEXEC_INTERNAL_H */
