/* SPDX-License-Identifier: MIT */
/* unexec/emit.c: writing the planned executable.

   Owns the output file: it is created beside OUTPUT under a temporary
   name, written by libelf with the layout pinned (ELF_F_LAYOUT: every
   offset is the plan's, libelf moves nothing), flushed and renamed over
   OUTPUT by common/atomic.c.  On any failure (a file-size limit
   included) the temporary file is removed, so OUTPUT is either the
   complete new executable or whatever it was before.  Section contents are not copied: libelf is handed the
   input file's mapped bytes, the plan's name table, zeros, or the
   process's own memory, which does not change while the single-threaded
   dump runs.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic.h"
#include "internal.h"

struct emitter
{
  const struct unexec_input *in;
  const struct unexec_plan *plan;
  const char *output;
  const struct unexec_detail *detail;
  Elf *elf;
  unsigned char *zeros;       /* shared source of zero bytes */
};

static enum dumper_status
elf_failure (const struct emitter *e, const char *what)
{
  return unexec_fail (e->detail, DUMPER_E_IO, "cannot write %s: %s: %s",
                      e->output, what, elf_errmsg (-1));
}

/* Hand libelf SIZE bytes at BUF as the part of SCN at OFFSET.  */
static enum dumper_status
add_block (const struct emitter *e, Elf_Scn *scn, const void *buf,
           uint64_t offset, uint64_t size)
{
  if (size == 0)
    return DUMPER_OK;
  Elf_Data *d = elf_newdata (scn);
  if (d == NULL)
    return elf_failure (e, "adding section data");
  d->d_buf = (void *) buf;     /* libelf only reads ELF_T_BYTE data */
  d->d_size = size;
  d->d_off = (int64_t) offset;
  d->d_type = ELF_T_BYTE;
  d->d_align = 1;
  d->d_version = EV_CURRENT;
  return DUMPER_OK;
}

/* Memory [START, START + SIZE) of the process, the arena's unused part
   as zeros.  */
static enum dumper_status
add_memory (const struct emitter *e, Elf_Scn *scn, uintptr_t start,
            uint64_t size)
{
  struct unexec_range u = e->plan->unused;
  uintptr_t end = start + size;
  uintptr_t zero_start = u.start > start ? u.start : start;
  uintptr_t zero_end = u.end < end ? u.end : end;
  if (zero_start >= zero_end)
    return add_block (e, scn, (const void *) start, 0, size);
  enum dumper_status status
    = add_block (e, scn, (const void *) start, 0, zero_start - start);
  if (status == DUMPER_OK)
    status = add_block (e, scn, e->zeros, zero_start - start,
                        zero_end - zero_start);
  if (status == DUMPER_OK)
    status = add_block (e, scn, (const void *) zero_end, zero_end - start,
                        end - zero_end);
  return status;
}

static enum dumper_status
add_section (const struct emitter *e, size_t index)
{
  const struct unexec_out_section *s = &e->plan->sections[index];
  Elf_Scn *scn = elf_newscn (e->elf);
  if (scn == NULL || elf_ndxscn (scn) != index)
    return elf_failure (e, "creating a section");
  if (gelf_update_shdr (scn, (GElf_Shdr *) &s->shdr) == 0)
    return elf_failure (e, "writing a section header");
  switch (s->source)
    {
    case UNEXEC_SRC_NONE:
      return DUMPER_OK;
    case UNEXEC_SRC_MEMORY:
      return add_memory (e, scn, s->shdr.sh_addr, s->shdr.sh_size);
    case UNEXEC_SRC_ZERO:
      return add_block (e, scn, e->zeros, 0, s->shdr.sh_size);
    case UNEXEC_SRC_NAMES:
      return add_block (e, scn, e->plan->names, 0, e->plan->names_size);
    case UNEXEC_SRC_FILE:
      {
        Elf_Data *raw = elf_rawdata (elf_getscn (e->in->elf, index), NULL);
        if (raw == NULL || raw->d_size != s->shdr.sh_size)
          return unexec_fail (e->detail, DUMPER_E_IO,
                              "cannot read section %zu of %s: %s", index,
                              e->in->path, elf_errmsg (-1));
        return add_block (e, scn, raw->d_buf, 0, raw->d_size);
      }
    }
  abort ();
}

/* The largest zero block any section needs.  */
static uint64_t
zeros_needed (const struct unexec_plan *plan)
{
  uint64_t need = 0;
  for (size_t i = 0; i < plan->section_count; i++)
    {
      const struct unexec_out_section *s = &plan->sections[i];
      uint64_t n = 0;
      if (s->source == UNEXEC_SRC_ZERO)
        n = s->shdr.sh_size;
      else if (s->source == UNEXEC_SRC_MEMORY)
        {
          uintptr_t start = s->shdr.sh_addr, end = start + s->shdr.sh_size;
          uintptr_t lo = plan->unused.start > start ? plan->unused.start : start;
          uintptr_t hi = plan->unused.end < end ? plan->unused.end : end;
          n = lo < hi ? hi - lo : 0;
        }
      if (n > need)
        need = n;
    }
  return need;
}

/* Build the new ELF on FD.  */
static enum dumper_status
write_elf (struct emitter *e, int fd)
{
  const struct unexec_plan *plan = e->plan;
  uint64_t zero_size = zeros_needed (plan);
  /* calloc of a large block maps fresh zero pages: nothing is touched.  */
  e->zeros = calloc (zero_size ? zero_size : 1, 1);
  if (e->zeros == NULL)
    return unexec_fail (e->detail, DUMPER_E_NOMEM,
                        "no memory for %lu zero bytes", (unsigned long) zero_size);
  e->elf = elf_begin (fd, ELF_C_WRITE, NULL);
  if (e->elf == NULL)
    return elf_failure (e, "starting the ELF file");
  if (gelf_newehdr (e->elf, e->in->ehdr.e_ident[EI_CLASS]) == NULL
      || gelf_newphdr (e->elf, e->in->phdr_count) == NULL)
    return elf_failure (e, "creating the headers");
  enum dumper_status status = DUMPER_OK;
  for (size_t i = 1; i < plan->section_count && status == DUMPER_OK; i++)
    status = add_section (e, i);
  if (status != DUMPER_OK)
    return status;
  GElf_Ehdr ehdr = e->in->ehdr;
  ehdr.e_shoff = plan->shoff;
  ehdr.e_shnum = (GElf_Half) plan->section_count;
  if (gelf_update_ehdr (e->elf, &ehdr) == 0)
    return elf_failure (e, "writing the ELF header");
  for (size_t i = 0; i < e->in->phdr_count; i++)
    if (gelf_update_phdr (e->elf, (int) i, &plan->phdrs[i]) == 0)
      return elf_failure (e, "writing a program header");
  elf_flagelf (e->elf, ELF_C_SET, ELF_F_LAYOUT);
  errno = 0;
  if (elf_update (e->elf, ELF_C_WRITE) < 0)
    {
      int err = errno;
      return unexec_fail (e->detail, DUMPER_E_IO, "cannot write %s: %s%s%s",
                          e->output, elf_errmsg (-1), err ? ": " : "",
                          err ? strerror (err) : "");
    }
  return DUMPER_OK;
}

/* "DIR" of PATH, for messages.  */
static void
directory_of (const char *path, char *out, size_t size)
{
  const char *slash = strrchr (path, '/');
  if (slash == NULL)
    snprintf (out, size, ".");
  else if (slash == path)
    snprintf (out, size, "/");
  else
    snprintf (out, size, "%.*s", (int) (slash - path), path);
}

enum dumper_status
unexec_emit (const struct unexec_input *in, const struct unexec_plan *plan,
             const char *output, const struct unexec_detail *detail)
{
  struct emitter e = { .in = in, .plan = plan, .output = output,
                       .detail = detail };
  struct common_atomic out;
  int err = common_atomic_begin (&out, output, "unexec", 0777, false);
  if (err != 0)
    {
      char dir[1024];
      directory_of (output, dir, sizeof dir);
      return err == ENOMEM
             ? unexec_fail (detail, DUMPER_E_NOMEM, "no memory for a file name")
             : unexec_fail (detail, DUMPER_E_OUTPUT,
                            "cannot create %s: cannot create a file in %s: %s",
                            output, dir, strerror (err));
    }
  enum dumper_status status = write_elf (&e, out.fd);
  if (e.elf)
    elf_end (e.elf);
  free (e.zeros);
  if (status != DUMPER_OK)
    {
      common_atomic_abort (&out);
      return status;
    }
  err = common_atomic_commit (&out);
  if (err == 0)
    return DUMPER_OK;
  if (strcmp (out.step, "rename") == 0)
    return unexec_fail (detail, DUMPER_E_OUTPUT, "cannot create %s: %s",
                        output, strerror (err));
  return unexec_fail (detail, DUMPER_E_IO, "cannot write %s: %s", output,
                      strerror (err));
}
