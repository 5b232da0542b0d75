/* SPDX-License-Identifier: MIT */
/* tests/unexec/test_input.c: the unexec writer's checks of its input
   executable (unexec/input.c, unexec/plan.c), one damaged copy of this
   program at a time.

   Each case copies /proc/self/exe (a non-PIE program, as unexec hosts
   are), changes one field of its ELF headers, and passes the copy to
   unexec_write_from: the dump must fail with DUMPER_E_EXE (or
   DUMPER_E_OUTPUT) and the message of that check, leave no file, and
   never crash.  These are the refusals no end-to-end test reaches (a
   real host is never damaged this way); tests/mutation's catalogue
   names this program as their killer.  Reports SKIPPED outside unexec
   builds.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../unexec/arena.h"
#include "../../unexec/internal.h"

#define SKIP_UNLESS_UNEXEC()                    \
  do {                                          \
    if (!DUMPER_WITH_UNEXEC)                    \
      skip ();                                  \
  } while (0)

static char work_dir[512];

/* The header a patch changed, for the message that must name it.  */
static size_t patched;

/* A whole copy of this program in memory, patched, then written.  */
struct image
{
  unsigned char *bytes;
  size_t size;
  Elf64_Ehdr *ehdr;
};

static void
load_self (struct image *im)
{
  int fd = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  assert_true (fd >= 0);
  struct stat st;
  assert_int_equal (fstat (fd, &st), 0);
  im->size = (size_t) st.st_size;
  im->bytes = malloc (im->size);
  assert_non_null (im->bytes);
  size_t done = 0;
  while (done < im->size)
    {
      ssize_t n = read (fd, im->bytes + done, im->size - done);
      assert_true (n > 0);
      done += (size_t) n;
    }
  close (fd);
  im->ehdr = (Elf64_Ehdr *) im->bytes;
  assert_int_equal (im->ehdr->e_ident[EI_CLASS], ELFCLASS64);
  assert_int_equal (im->ehdr->e_type, ET_EXEC);
}

static Elf64_Phdr *
phdr (struct image *im, size_t i)
{
  return (Elf64_Phdr *) (im->bytes + im->ehdr->e_phoff) + i;
}

static Elf64_Shdr *
shdr (struct image *im, size_t i)
{
  return (Elf64_Shdr *) (im->bytes + im->ehdr->e_shoff) + i;
}

/* The first program header of TYPE (and with FLAG set in p_flags when
   FLAG is not 0), or NULL.  */
static Elf64_Phdr *
find_phdr (struct image *im, uint32_t type, uint32_t flag)
{
  for (size_t i = 0; i < im->ehdr->e_phnum; i++)
    if (phdr (im, i)->p_type == type && (!flag || (phdr (im, i)->p_flags & flag)))
      {
        patched = i;
        return phdr (im, i);
      }
  return NULL;
}

/* The writable load segment that holds the arena.  */
static Elf64_Phdr *
arena_segment (struct image *im)
{
  void *base;
  size_t used, capacity;
  unexec_arena_bounds (&base, &used, &capacity);
  for (size_t i = 0; i < im->ehdr->e_phnum; i++)
    {
      Elf64_Phdr *p = phdr (im, i);
      if (p->p_type == PT_LOAD && (p->p_flags & PF_W)
          && (uintptr_t) base >= p->p_vaddr
          && (uintptr_t) base - p->p_vaddr < p->p_memsz)
        return p;
    }
  fail_msg ("no writable load segment holds the arena");
  return NULL;
}

/* Write IM (SIZE bytes of it) to the work directory; its path in PATH.  */
static void
write_image (struct image *im, size_t size, char *path, size_t path_size)
{
  snprintf (path, path_size, "%s/input", work_dir);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  assert_true (fd >= 0);
  assert_int_equal (write (fd, im->bytes, size), (ssize_t) size);
  close (fd);
}

/* Dump with INPUT: it must fail with WANT and WANT_TEXT, leaving no
   output and no temporary file.  */
static void
expect_refused (const char *input, const char *output, enum dumper_status want,
                const char *want_text)
{
  char out[600], detail[1024] = "";
  snprintf (out, sizeof out, "%s/%s", work_dir, output ? output : "out");
  struct unexec_request req = { output ? out : "", NULL, NULL, detail,
                                sizeof detail };
  enum dumper_status status = unexec_write_from (input, &req);
  if (status != want || strstr (detail, want_text) == NULL)
    fail_msg ("%s: status %d (want %d), detail \"%s\" (want \"%s\")", input,
              status, want, detail, want_text);
  assert_int_equal (access (out, F_OK), -1);
}

/* Patch a fresh copy with PATCH, write it, expect WANT_TEXT: for a
   patch that names the header it changed (program or section header
   N), "WANT_TEXT N is corrupt", since libelf's own messages name
   headers too.  */
static void
refused_copy (void (*patch) (struct image *), const char *want_text)
{
  struct image im;
  load_self (&im);
  patched = SIZE_MAX;
  patch (&im);
  char path[600], want[256];
  write_image (&im, im.size, path, sizeof path);
  if (patched != SIZE_MAX && strstr (want_text, "header") != NULL)
    snprintf (want, sizeof want, "%s %zu is corrupt", want_text, patched);
  else
    snprintf (want, sizeof want, "%s", want_text);
  expect_refused (path, "out", DUMPER_E_EXE, want);
  free (im.bytes);
  unlink (path);
}

static void other_byte_order (struct image *im) { im->ehdr->e_ident[EI_DATA] ^= 3; }
static void relocatable (struct image *im) { im->ehdr->e_type = ET_REL; }
static void no_program_headers (struct image *im) { im->ehdr->e_phnum = 0; }
static void no_name_table (struct image *im) { im->ehdr->e_shstrndx = 0; }
static void name_table_not_strtab (struct image *im)
{
  shdr (im, im->ehdr->e_shstrndx)->sh_type = SHT_PROGBITS;
}
static void phdr_offset_past_end (struct image *im)
{
  find_phdr (im, PT_LOAD, 0)->p_offset = im->size + 4096;
}
static void phdr_bytes_past_end (struct image *im)
{
  Elf64_Phdr *p = find_phdr (im, PT_LOAD, 0);
  p->p_filesz = im->size - p->p_offset + 1;
  if (p->p_memsz < p->p_filesz)
    p->p_memsz = p->p_filesz;
}
static void phdr_filesz_over_memsz (struct image *im)
{
  Elf64_Phdr *p = find_phdr (im, PT_LOAD, 0);
  p->p_memsz = p->p_filesz - 1;
}
/* The name table's own header: a section that is not NOBITS.  */
static void shdr_offset_past_end (struct image *im)
{
  patched = im->ehdr->e_shstrndx;
  shdr (im, patched)->sh_offset = im->size + 1;
}
static void shdr_bytes_past_end (struct image *im)
{
  patched = im->ehdr->e_shstrndx;
  Elf64_Shdr *s = shdr (im, patched);
  s->sh_size = im->size - s->sh_offset + 1;
}
/* The message phdrs_elsewhere's copy must be refused with: the address
   check's own (both addresses), not the program header comparison's
   after it ("differ from the running program's"), which refuses the
   copy too.  Filled by the patch, read by refused_copy after it.  */
static char elsewhere_want[256];
static void phdrs_elsewhere (struct image *im)
{
  Elf64_Phdr *p = find_phdr (im, PT_PHDR, 0);
  assert_non_null (p);
  p->p_vaddr += 4096;
  patched = SIZE_MAX;           /* the message is whole, not "header N" */
  snprintf (elsewhere_want, sizeof elsewhere_want, "is not the file of the "
            "running program (its program headers would be at %#lx, the "
            "running program's are at %#lx)", (unsigned long) p->p_vaddr,
            getauxval (AT_PHDR));
}
static void arena_not_writable (struct image *im)
{
  for (size_t i = 0; i < im->ehdr->e_phnum; i++)
    phdr (im, i)->p_flags &= ~(uint32_t) PF_W;
}
static void arena_past_segment (struct image *im)
{
  void *base;
  size_t used, capacity;
  unexec_arena_bounds (&base, &used, &capacity);
  Elf64_Phdr *p = arena_segment (im);
  p->p_memsz = (uintptr_t) base - p->p_vaddr + capacity / 2;
  if (p->p_filesz > p->p_memsz)
    p->p_filesz = p->p_memsz;
}

static void
test_header_refusals (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  refused_copy (other_byte_order, "byte order differs");
  refused_copy (relocatable, "not an executable (ELF type 1)");
  refused_copy (no_program_headers, "no program or section headers");
  refused_copy (no_name_table, "no section name table");
  refused_copy (name_table_not_strtab, "no section name table");
}

static void
test_range_refusals (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  refused_copy (phdr_offset_past_end, "program header");
  refused_copy (phdr_bytes_past_end, "program header");
  refused_copy (phdr_filesz_over_memsz, "program header");
  refused_copy (shdr_offset_past_end, "section header");
  refused_copy (shdr_bytes_past_end, "section header");
}

static void
test_plan_refusals (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  refused_copy (phdrs_elsewhere, elsewhere_want);
  refused_copy (arena_not_writable, "static heap arena");
  refused_copy (arena_past_segment, "static heap arena");
}

static void
test_other_refusals (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  /* A directory as the input, and no output name.  */
  expect_refused (work_dir, "out", DUMPER_E_EXE, "not a regular file");
  expect_refused ("/proc/self/exe", NULL, DUMPER_E_OUTPUT, "no output file given");
}

static int
make_work_dir (void **state)
{
  (void) state;
  const char *tmp = getenv ("TMPDIR");
  snprintf (work_dir, sizeof work_dir, "%s/unexec-input.XXXXXX",
            tmp && *tmp ? tmp : "/tmp");
  return mkdtemp (work_dir) ? 0 : -1;
}

static int
remove_work_dir (void **state)
{
  (void) state;
  char path[600];
  snprintf (path, sizeof path, "%s/input", work_dir);
  unlink (path);
  snprintf (path, sizeof path, "%s/out", work_dir);
  unlink (path);
  rmdir (work_dir);
  return 0;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_header_refusals),
    cmocka_unit_test (test_range_refusals),
    cmocka_unit_test (test_plan_refusals),
    cmocka_unit_test (test_other_refusals),
  };
  return cmocka_run_group_tests (tests, make_work_dir, remove_work_dir);
}
