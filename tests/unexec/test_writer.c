/* SPDX-License-Identifier: MIT */
/* tests/unexec/test_writer.c: unit tests of the unexec ELF writer.

   This program is linked non-PIE with the writer and a 4 MiB arena, and
   dumps itself.  Before the tests run it builds some state: statics in
   .data and .bss, blocks in the arena holding strings and a pointer
   chain.  The dumped copies are then run with --verify, which checks
   that state in the new process and exits 0 when it is all there.
   --redump FILE makes a dumped copy grow its state and dump again.

   Outside unexec builds every test reports SKIPPED: the writer belongs
   to that build, and sanitizer builds (which unexec excludes) would see
   the writer read their redzones.  */

#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../unexec/arena.h"
#include "../../unexec/internal.h"

/* ------------------------------------------------------------------ */
/* The state a dump must carry.  */

static int data_marker = 17;               /* .data */
static uint64_t bss_table[64];             /* .bss, filled at build */
static char *arena_strings[8];             /* .bss, pointers into the arena */
struct chain
{
  struct chain *next;
  unsigned index;
};
static struct chain *chain_head;
static unsigned char *grown_block;         /* set by --redump */
#define GROWN_SIZE (200 * 1024)

/* For the pointer-scan test: words that point outside the executable.  */
static void *volatile stray_heap_word;
static void *volatile stray_lib_word;

static void *
arena_alloc (size_t size)
{
  char why[256];
  void *p = unexec_arena_alloc (size, why, sizeof why);
  if (p == NULL)
    {
      fprintf (stderr, "test_writer: %s\n", why);
      exit (2);
    }
  return p;
}

static void
build_state (void)
{
  data_marker = 42;
  for (int i = 0; i < 64; i++)
    bss_table[i] = (uint64_t) i * 0x9E3779B97F4A7C15u;
  for (int i = 0; i < 8; i++)
    {
      arena_strings[i] = arena_alloc (32);
      snprintf (arena_strings[i], 32, "string %d", i);
    }
  for (unsigned i = 0; i < 100; i++)
    {
      struct chain *c = arena_alloc (sizeof *c + i);
      c->index = i;
      c->next = chain_head;
      chain_head = c;
    }
  /* A freed block in the middle, so the saved heap has a hole.  */
  unexec_arena_free (arena_strings[3]);
  arena_strings[3] = NULL;
}

/* In a dumped copy: is everything back?  Returns a process status.  */
static int
verify_state (void)
{
  char why[256];
  if (data_marker != 42)
    return fprintf (stderr, "data_marker is %d\n", data_marker), 1;
  for (int i = 0; i < 64; i++)
    if (bss_table[i] != (uint64_t) i * 0x9E3779B97F4A7C15u)
      return fprintf (stderr, "bss_table[%d] lost\n", i), 1;
  for (int i = 0; i < 8; i++)
    {
      char want[32];
      snprintf (want, sizeof want, "string %d", i);
      if (i == 3 ? arena_strings[i] != NULL
                 : strcmp (arena_strings[i], want) != 0)
        return fprintf (stderr, "arena string %d lost\n", i), 1;
    }
  unsigned expect = 99, count = 0;
  for (struct chain *c = chain_head; c; c = c->next, expect--, count++)
    if (c->index != expect)
      return fprintf (stderr, "chain broken at %u\n", count), 1;
  if (count != 100)
    return fprintf (stderr, "chain has %u cells\n", count), 1;
  if (grown_block)
    for (size_t k = 0; k < GROWN_SIZE; k++)
      if (grown_block[k] != (unsigned char) (k * 7))
        return fprintf (stderr, "grown block byte %zu lost\n", k), 1;
  if (!unexec_arena_check (why, sizeof why))
    return fprintf (stderr, "arena: %s\n", why), 1;
  /* The heap still works.  */
  void *p = arena_alloc (1000);
  unexec_arena_free (p);
  return 0;
}

static void
print_warning (const char *message, void *data)
{
  (void) data;
  fprintf (stderr, "warning: %s\n", message);
}

/* In a dumped copy: grow the state and dump again to OUTPUT.  */
static int
redump (const char *output)
{
  if (verify_state () != 0)
    return 1;
  grown_block = arena_alloc (GROWN_SIZE);
  for (size_t k = 0; k < GROWN_SIZE; k++)
    grown_block[k] = (unsigned char) (k * 7);
  char detail[1024];
  struct unexec_request req = { output, print_warning, NULL, detail,
                                sizeof detail };
  enum dumper_status status = unexec_write (&req);
  if (status != DUMPER_OK)
    return fprintf (stderr, "redump: %s\n", detail), 1;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Helpers.  */

static char work_dir[512];

static void
path_in_work (char *out, size_t size, const char *name)
{
  snprintf (out, size, "%s/%s", work_dir, name);
}

/* Warnings collected by a dump.  */
struct warnings
{
  int count;
  char text[4096];
};

static void
collect_warning (const char *message, void *data)
{
  struct warnings *w = data;
  w->count++;
  size_t used = strlen (w->text);
  snprintf (w->text + used, sizeof w->text - used, "%s\n", message);
}

static enum dumper_status
dump_to (const char *output, struct warnings *w, char *detail, size_t size)
{
  struct unexec_request req = { output, collect_warning, w, detail, size };
  return unexec_write (&req);
}

/* Run PROGRAM with ARG1 [ARG2]; return its exit status, or -1.  */
static int
run (const char *program, const char *arg1, const char *arg2)
{
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      execl (program, program, arg1, arg2, (char *) NULL);
      _exit (127);
    }
  int status;
  if (waitpid (pid, &status, 0) != pid || !WIFEXITED (status))
    return -1;
  return WEXITSTATUS (status);
}

static size_t
entries_in_work (void)
{
  DIR *d = opendir (work_dir);
  size_t n = 0;
  if (d == NULL)
    return 0;
  for (struct dirent *e; (e = readdir (d)) != NULL;)
    if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
      n++;
  closedir (d);
  return n;
}

/* Open FILE with libelf and read its headers for checking.  */
struct elf_file
{
  int fd;
  Elf *elf;
  GElf_Ehdr ehdr;
  size_t phdr_count, section_count;
  GElf_Phdr phdrs[32];
  GElf_Shdr shdrs[128];
  uint64_t size;
};

static void
open_elf (struct elf_file *f, const char *path)
{
  elf_version (EV_CURRENT);
  f->fd = open (path, O_RDONLY);
  assert_true (f->fd >= 0);
  struct stat st;
  assert_int_equal (fstat (f->fd, &st), 0);
  f->size = (uint64_t) st.st_size;
  f->elf = elf_begin (f->fd, ELF_C_READ, NULL);
  assert_non_null (f->elf);
  assert_non_null (gelf_getehdr (f->elf, &f->ehdr));
  assert_int_equal (elf_getphdrnum (f->elf, &f->phdr_count), 0);
  assert_int_equal (elf_getshdrnum (f->elf, &f->section_count), 0);
  assert_true (f->phdr_count <= 32 && f->section_count <= 128);
  for (size_t i = 0; i < f->phdr_count; i++)
    assert_non_null (gelf_getphdr (f->elf, (int) i, &f->phdrs[i]));
  for (size_t i = 0; i < f->section_count; i++)
    assert_non_null (gelf_getshdr (elf_getscn (f->elf, i), &f->shdrs[i]));
}

static void
close_elf (struct elf_file *f)
{
  elf_end (f->elf);
  close (f->fd);
}

static const char *
name_of (struct elf_file *f, size_t index)
{
  const char *name = elf_strptr (f->elf, f->ehdr.e_shstrndx,
                                 f->shdrs[index].sh_name);
  return name ? name : "";
}

static size_t
find_section (struct elf_file *f, const char *name)
{
  for (size_t i = 1; i < f->section_count; i++)
    if (strcmp (name_of (f, i), name) == 0)
      return i;
  return 0;
}

/* The writable PT_LOAD holding ADDR.  */
static const GElf_Phdr *
segment_of (const struct elf_file *f, uintptr_t addr)
{
  for (size_t i = 0; i < f->phdr_count; i++)
    if (f->phdrs[i].p_type == PT_LOAD && (f->phdrs[i].p_flags & PF_W)
        && addr >= f->phdrs[i].p_vaddr
        && addr < f->phdrs[i].p_vaddr + f->phdrs[i].p_memsz)
      return &f->phdrs[i];
  return NULL;
}

static void
read_at (int fd, uint64_t offset, void *buf, size_t size)
{
  assert_int_equal (pread (fd, buf, size, (off_t) offset), (ssize_t) size);
}

/* Bytes [OFFSET, OFFSET + SIZE) of the two files are equal.  */
static bool
same_bytes (int fd_a, uint64_t off_a, int fd_b, uint64_t off_b, size_t size)
{
  unsigned char a[4096], b[4096];
  while (size > 0)
    {
      size_t n = size < sizeof a ? size : sizeof a;
      read_at (fd_a, off_a, a, n);
      read_at (fd_b, off_b, b, n);
      if (memcmp (a, b, n) != 0)
        return false;
      off_a += n;
      off_b += n;
      size -= n;
    }
  return true;
}

static void
assert_readelf_clean (const char *path)
{
  char command[1200];
  snprintf (command, sizeof command, "readelf -a -W '%s' 2>&1 >/dev/null",
            path);
  FILE *p = popen (command, "r");
  assert_non_null (p);
  char output[2048] = "";
  size_t n = fread (output, 1, sizeof output - 1, p);
  output[n] = '\0';
  int status = pclose (p);
  if (status != 0 || n != 0)
    fail_msg ("readelf -a on %s: status %d, stderr:\n%s", path, status, output);
}

/* ------------------------------------------------------------------ */
/* Tests.  */

/* At the top of every test: only unexec builds run the writer.  */
#define SKIP_UNLESS_UNEXEC()                    \
  do {                                          \
    if (!DUMPER_WITH_UNEXEC)                    \
      skip ();                                  \
  } while (0)

static void
test_dump_runs (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  char out[600], detail[1024] = "";
  path_in_work (out, sizeof out, "dumped");
  struct warnings w = { 0 };
  enum dumper_status status = dump_to (out, &w, detail, sizeof detail);
  if (status != DUMPER_OK)
    fail_msg ("dump failed: %s", detail);
  if (w.count != 0)
    fail_msg ("unexpected warnings:\n%s", w.text);
  struct stat st;
  assert_int_equal (stat (out, &st), 0);
  assert_true (st.st_mode & S_IXUSR);
  const struct unexec_stats *s = unexec_last_stats ();
  assert_true (s->written);
  assert_int_equal (s->output_size, (uint64_t) st.st_size);
  assert_true (s->segment_added > 0);
  for (int i = 0; i < 3; i++)
    assert_int_equal (run (out, "--verify", NULL), 0);
  /* Only the file itself: the temporary is gone.  */
  assert_int_equal (entries_in_work (), 1);
  unlink (out);
}

/* The new file's headers are consistent, the data segment's file part
   holds the saved state, and everything the writer must not change is
   byte-identical to the running executable's file.  */
static void
test_layout (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  char out[600], detail[1024] = "", why[256] = "";
  path_in_work (out, sizeof out, "layout");
  struct warnings w = { 0 };
  assert_int_equal (dump_to (out, &w, detail, sizeof detail), DUMPER_OK);
  struct elf_file in, f;
  open_elf (&in, "/proc/self/exe");
  open_elf (&f, out);
  assert_int_equal (f.phdr_count, in.phdr_count);
  if (!unexec_layout_check (&f.ehdr, f.phdrs, f.phdr_count, f.shdrs,
                            f.section_count, f.size, why, sizeof why))
    fail_msg ("layout: %s", why);

  void *base;
  size_t used, capacity;
  unexec_arena_bounds (&base, &used, &capacity);
  const GElf_Phdr *seg = segment_of (&f, (uintptr_t) base);
  const GElf_Phdr *old = segment_of (&in, (uintptr_t) base);
  assert_non_null (seg);
  assert_non_null (old);
  assert_int_equal (seg->p_vaddr, old->p_vaddr);
  assert_int_equal (seg->p_offset, old->p_offset);
  assert_int_equal (seg->p_memsz, old->p_memsz);
  /* The used arena is in the file up to its last non-zero byte (the
     zeros after it come from the kernel), the rest of it is not.  */
  uintptr_t file_end = seg->p_vaddr + seg->p_filesz;
  assert_true (file_end > (uintptr_t) base);
  assert_true (file_end <= (uintptr_t) base + used);
  for (const unsigned char *p = (const unsigned char *) file_end;
       p < (const unsigned char *) base + used; p++)
    if (*p)
      fail_msg ("non-zero arena byte at %p is past the file's end %#lx",
                (const void *) p, (unsigned long) file_end);

  /* Every allocated section of the segment below the file end is
     PROGBITS; the arena's rest is the NOBITS tail.  */
  size_t tail = find_section (&f, UNEXEC_TAIL_NAME);
  assert_true (tail != 0);
  assert_int_equal (f.shdrs[tail].sh_type, SHT_NOBITS);
  assert_int_equal (f.shdrs[tail].sh_addr, seg->p_vaddr + seg->p_filesz);
  assert_int_equal (f.shdrs[tail].sh_addr + f.shdrs[tail].sh_size,
                    (uintptr_t) base + capacity);
  size_t bss = find_section (&f, ".bss");
  assert_true (bss != 0);
  assert_int_equal (f.shdrs[bss].sh_type, SHT_PROGBITS);

  /* The saved .bss value of bss_table is in the file.  */
  uint64_t saved[64];
  read_at (f.fd, seg->p_offset + ((uintptr_t) bss_table - seg->p_vaddr),
           saved, sizeof saved);
  assert_memory_equal (saved, bss_table, sizeof saved);

  /* Unchanged: the headers but for the segment's file size and the
     section table's place and size; every byte between the program
     headers and the data segment; the sections the dynamic loader owns.  */
  for (size_t i = 0; i < in.phdr_count; i++)
    {
      GElf_Phdr want = in.phdrs[i];
      if (want.p_vaddr == seg->p_vaddr && want.p_type == PT_LOAD)
        want.p_filesz = seg->p_filesz;
      assert_memory_equal (&want, &f.phdrs[i], sizeof want);
    }
  GElf_Ehdr want_ehdr = in.ehdr;
  want_ehdr.e_shoff = f.ehdr.e_shoff;
  want_ehdr.e_shnum = (GElf_Half) (in.section_count + 1);
  assert_memory_equal (&want_ehdr, &f.ehdr, sizeof want_ehdr);
  uint64_t phdrs_end = in.ehdr.e_phoff + in.phdr_count * in.ehdr.e_phentsize;
  if (!same_bytes (in.fd, phdrs_end, f.fd, phdrs_end,
                   seg->p_offset - phdrs_end))
    fail_msg ("bytes before the data segment changed");
  static const char *const kept[] = { ".dynamic", ".got", ".got.plt",
                                      ".init_array", ".symtab", ".strtab" };
  for (size_t k = 0; k < sizeof kept / sizeof *kept; k++)
    {
      size_t i = find_section (&in, kept[k]), j = find_section (&f, kept[k]);
      if (i == 0)
        continue;
      assert_int_equal (i, j);
      assert_int_equal (in.shdrs[i].sh_size, f.shdrs[j].sh_size);
      if (!same_bytes (in.fd, in.shdrs[i].sh_offset, f.fd,
                       f.shdrs[j].sh_offset, in.shdrs[i].sh_size))
        fail_msg ("section %s changed", kept[k]);
    }
  /* Every input section keeps its number, name, type (bar NOBITS turned
     PROGBITS), address and flags.  */
  for (size_t i = 1; i < in.section_count; i++)
    {
      assert_string_equal (name_of (&in, i), name_of (&f, i));
      assert_int_equal (in.shdrs[i].sh_addr, f.shdrs[i].sh_addr);
      assert_int_equal (in.shdrs[i].sh_flags, f.shdrs[i].sh_flags);
      if (in.shdrs[i].sh_type != SHT_NOBITS)
        assert_int_equal (in.shdrs[i].sh_type, f.shdrs[i].sh_type);
    }
  close_elf (&in);
  close_elf (&f);
  assert_readelf_clean (out);
  unlink (out);
}

/* A dumped copy grows its heap and dumps again; the second copy has it
   all, and is itself a clean ELF file.  */
static void
test_redump (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  char first[600], second[600], detail[1024] = "", why[256] = "";
  path_in_work (first, sizeof first, "first");
  path_in_work (second, sizeof second, "second");
  struct warnings w = { 0 };
  assert_int_equal (dump_to (first, &w, detail, sizeof detail), DUMPER_OK);
  assert_int_equal (run (first, "--redump", second), 0);
  assert_int_equal (run (second, "--verify", NULL), 0);
  struct elf_file a, b;
  open_elf (&a, first);
  open_elf (&b, second);
  if (!unexec_layout_check (&b.ehdr, b.phdrs, b.phdr_count, b.shdrs,
                            b.section_count, b.size, why, sizeof why))
    fail_msg ("layout of the second dump: %s", why);
  /* The tail is reused, not added again; the segment grew by about the
     new block.  */
  assert_int_equal (a.section_count, b.section_count);
  size_t tail = find_section (&b, UNEXEC_TAIL_NAME);
  assert_true (tail != 0);
  GElf_Addr end_a = 0, end_b = 0;
  for (size_t i = 0; i < a.phdr_count; i++)
    if (a.phdrs[i].p_type == PT_LOAD && (a.phdrs[i].p_flags & PF_W))
      {
        end_a = a.phdrs[i].p_filesz;
        end_b = b.phdrs[i].p_filesz;
      }
  assert_true (end_b >= end_a + GROWN_SIZE);
  /* ... plus its header and the zeros trimmed from the first dump's end
     (the last chain cell's padding).  */
  assert_true (end_b <= end_a + GROWN_SIZE + 256);
  close_elf (&a);
  close_elf (&b);
  assert_readelf_clean (second);
  unlink (first);
  unlink (second);
}

static void
test_pointer_warnings (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  char out[600], detail[1024] = "";
  path_in_work (out, sizeof out, "stray");
  stray_heap_word = malloc (100);
  stray_lib_word = stdout;
  struct warnings w = { 0 };
  enum dumper_status status = dump_to (out, &w, detail, sizeof detail);
  free (stray_heap_word);
  stray_heap_word = NULL;
  stray_lib_word = NULL;
  assert_int_equal (status, DUMPER_OK);
  assert_int_equal (w.count, 2);
  assert_non_null (strstr (w.text, "(stray_heap_word)"));
  /* glibc's malloc serves small blocks from [heap]; valgrind's from
     anonymous mappings.  */
  assert_true (strstr (w.text, "malloc heap") != NULL
               || strstr (w.text, "anonymous memory") != NULL);
  assert_non_null (strstr (w.text, "(stray_lib_word)"));
  assert_non_null (strstr (w.text, "shared library"));
  assert_int_equal (unexec_last_stats ()->suspicious_words, 2);
  unlink (out);
}

/* A failed dump to OUTPUT: status WANT, a detail with WANT_TEXT, and as
   many files in the work directory as BEFORE (no temporary left).  */
static void
assert_failed_cleanly (enum dumper_status status, enum dumper_status want,
                       const char *detail, const char *want_text,
                       const char *output, size_t before)
{
  if (status != want || strstr (detail, want_text) == NULL)
    fail_msg ("%s: status %d (want %d), detail \"%s\" (want \"%s\")",
              output, status, want, detail, want_text);
  assert_int_equal (entries_in_work (), before);
  assert_int_equal (access (output, F_OK), -1);
}

/* Each failure: its status, a message naming the file, nothing left.  */
static void
expect_failure (const char *input, const char *output,
                enum dumper_status want, const char *want_text)
{
  char detail[1024] = "";
  struct unexec_request req = { output, NULL, NULL, detail, sizeof detail };
  size_t before = entries_in_work ();
  enum dumper_status status = unexec_write_from (input, &req);
  assert_failed_cleanly (status, want, detail, want_text, output, before);
}

static void
test_output_errors (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  char missing[600], under_file[600], file[600], dir[600];
  path_in_work (missing, sizeof missing, "no-such-dir/out");
  path_in_work (file, sizeof file, "plain");
  path_in_work (under_file, sizeof under_file, "plain/out");
  path_in_work (dir, sizeof dir, "a-directory");
  FILE *f = fopen (file, "w");
  assert_non_null (f);
  fclose (f);
  assert_int_equal (mkdir (dir, 0755), 0);
  size_t before = entries_in_work ();
  expect_failure ("/proc/self/exe", missing, DUMPER_E_OUTPUT, missing);
  expect_failure ("/proc/self/exe", under_file, DUMPER_E_OUTPUT, under_file);
  /* An existing directory: the temporary file is written, then removed. */
  char detail[1024] = "";
  struct unexec_request req = { dir, NULL, NULL, detail, sizeof detail };
  assert_int_equal (unexec_write (&req), DUMPER_E_OUTPUT);
  assert_non_null (strstr (detail, dir));
  assert_int_equal (entries_in_work (), before);
  unlink (file);
  rmdir (dir);
}

/* A file size limit: an I/O error, not a process killed by SIGXFSZ
   (the default action of SIGXFSZ stays in force).  */
static void
test_file_too_large (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  char out[600];
  path_in_work (out, sizeof out, "too-large");
  struct rlimit saved, small;
  assert_int_equal (getrlimit (RLIMIT_FSIZE, &saved), 0);
  small = saved;
  small.rlim_cur = 16 * 1024;
  size_t before = entries_in_work ();
  assert_int_equal (setrlimit (RLIMIT_FSIZE, &small), 0);
  char detail[1024] = "";
  struct unexec_request req = { out, NULL, NULL, detail, sizeof detail };
  enum dumper_status status = unexec_write (&req);
  setrlimit (RLIMIT_FSIZE, &saved);
  assert_failed_cleanly (status, DUMPER_E_IO, detail, out, out, before);
}

static void
test_input_errors (void **state)
{
  (void) state;
  SKIP_UNLESS_UNEXEC ();
  char text[600], out[600], missing[600];
  path_in_work (text, sizeof text, "not-elf");
  path_in_work (out, sizeof out, "out");
  path_in_work (missing, sizeof missing, "missing-exe");
  FILE *f = fopen (text, "w");
  assert_non_null (f);
  fputs ("#!/bin/sh\necho this is not ELF\n", f);
  fclose (f);
  expect_failure (text, out, DUMPER_E_EXE, "not an ELF file");
  expect_failure (missing, out, DUMPER_E_IO, missing);
  unlink (text);
  /* A PIE (Debian builds /bin/sh as one) is refused by name.  */
  struct elf_file sh;
  open_elf (&sh, "/bin/sh");
  bool pie = sh.ehdr.e_type == ET_DYN;
  close_elf (&sh);
  if (!pie)
    fail_msg ("/bin/sh is not a PIE here; the test needs one");
  expect_failure ("/bin/sh", out, DUMPER_E_EXE, "position-independent");
}

static int
make_work_dir (void **state)
{
  (void) state;
  const char *tmp = getenv ("TMPDIR");
  snprintf (work_dir, sizeof work_dir, "%s/unexec-writer.XXXXXX",
            tmp && *tmp ? tmp : "/tmp");
  return mkdtemp (work_dir) ? 0 : -1;
}

static int
remove_entry (const char *path, const struct stat *st, int flag,
              struct FTW *ftw)
{
  (void) st;
  (void) flag;
  (void) ftw;
  return remove (path);
}

/* Remove the work directory and whatever a failed test left in it.  */
static int
remove_work_dir (void **state)
{
  (void) state;
  return nftw (work_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "--verify") == 0)
    return verify_state ();
  if (argc == 3 && strcmp (argv[1], "--redump") == 0)
    return redump (argv[2]);
  build_state ();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_dump_runs),
    cmocka_unit_test (test_layout),
    cmocka_unit_test (test_redump),
    cmocka_unit_test (test_pointer_warnings),
    cmocka_unit_test (test_output_errors),
    cmocka_unit_test (test_file_too_large),
    cmocka_unit_test (test_input_errors),
  };
  return cmocka_run_group_tests_name ("unexec writer", tests, make_work_dir,
                                      remove_work_dir);
}
