/* SPDX-License-Identifier: MIT */
/* tests/fuzz/replay.c: run the image fuzz target on files, without
   libFuzzer.

   Usage: replay [DIRECTORY-OR-FILE]...
   Without arguments it runs the committed seed corpus (tests/fuzz/
   corpus), which is what `make check' (and `make check-valgrind') do;
   with arguments, each file given or each file of each directory given,
   in name order: a crash found by `make fuzz-run' replays here under
   gdb or valgrind.

   A corpus file named "C-T-description" (two exit statuses) must get
   exit status C from the loader's checks and T from the inspection
   tables (see fuzz.h); make-corpus.sh took C from the loader itself.
   In pdumper builds the real loader (fuzz_load.c) must give C too.
   Other files only have to pass without a crash.  The report uses
   cmocka's format, so tests/run-tests counts it.

   The committed corpus holds images written by an x86_64 build (ELF
   machine 62 in the header).  A build for another machine (i386)
   replays them for no crash but reports them skipped: their statuses
   are those of an x86_64 build (this one refuses most of them as
   another architecture, 84, at the header), and a second corpus per
   machine would test the same checks again, which take the word size
   as a parameter (pdump/format.h).  The machine field decides, not the
   word size field: one seed has that field damaged on purpose.  Seeds
   without a whole header (too short, no magic) hold in every build.  */

#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "pdump/check.h"
#include "pdump/codec.h"
#include "pdump/format.h"

#ifndef FUZZ_CORPUS_DIR
# define FUZZ_CORPUS_DIR "tests/fuzz/corpus"
#endif

static int passed, failed, skipped;
static char failures[4096];

static void
note_failure (const char *name)
{
  size_t used = strlen (failures);
  snprintf (failures + used, sizeof failures - used, "[  FAILED  ] %s\n", name);
  failed++;
}

static unsigned char *
read_file (const char *path, size_t *size)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return NULL;
  unsigned char *bytes = NULL;
  size_t used = 0, capacity = 0;
  for (;;)
    {
      if (used == capacity)
        {
          capacity = capacity ? capacity * 2 : 65536;
          unsigned char *grown = realloc (bytes, capacity);
          if (grown == NULL)
            {
              free (bytes);
              fclose (f);
              return NULL;
            }
          bytes = grown;
        }
      size_t n = fread (bytes + used, 1, capacity - used, f);
      used += n;
      if (n == 0)
        break;
    }
  bool error = ferror (f);
  fclose (f);
  if (error)
    {
      free (bytes);
      return NULL;
    }
  *size = used;
  return bytes;
}

static void
replay_file (const char *path, const char *name)
{
  printf ("[ RUN      ] %s\n", name);
  size_t size = 0;
  unsigned char *bytes = read_file (path, &size);
  if (bytes == NULL)
    {
      printf ("    cannot read %s: %s\n", path, strerror (errno));
      printf ("[  FAILED  ] %s\n", name);
      note_failure (name);
      return;
    }
  struct fuzz_result result;
  fuzz_image_run (bytes, size, &result);
  int loader = dumper_exit_status (result.check);
#if FUZZ_WITH_LOADER
  struct fuzz_load_result load_result;
  fuzz_load_run (bytes, size, &load_result);
  loader = dumper_exit_status (load_result.plain);
#endif
  /* The machine and word size of a seed with a whole header.  */
  unsigned seed_machine = 0, seed_word_size = 0;
  if (size >= sizeof (struct pdump_header)
      && memcmp (bytes, PDUMP_MAGIC, PDUMP_MAGIC_SIZE) == 0)
    {
      uint16_t machine;
      memcpy (&machine, bytes + offsetof (struct pdump_header, machine), sizeof machine);
      seed_machine = machine;
      seed_word_size = bytes[offsetof (struct pdump_header, word_size)];
    }
  free (bytes);

  int want_check, want_tables, used;
  int check = dumper_exit_status (result.check);
  int tables = dumper_exit_status (result.tables);
  /* A compressed seed names its codec; a build without that codec
     (configure --without-lz4 / --without-zstd) refuses it as another
     version, so only "no crash" applies to it there.  */
  bool codec_missing = (strstr (name, "-lz4") != NULL
                        && !pdump_codec_available (PDUMP_CODEC_LZ4))
                       || (strstr (name, "-zstd") != NULL
                           && !pdump_codec_available (PDUMP_CODEC_ZSTD));
  if (seed_machine != 0 && seed_machine != pdump_native_machine ())
    {
      printf ("    an image of ELF machine %u (%u-byte words); this build is for "
              "machine %u (%u-byte words): replayed for no crash only (checks %d, "
              "tables %d, the loader %d)\n", seed_machine, seed_word_size,
              pdump_native_machine (), (unsigned) PDUMP_WORD_SIZE,
              dumper_exit_status (result.check), dumper_exit_status (result.tables),
              loader);
      printf ("[  SKIPPED ] %s\n", name);
      skipped++;
      return;
    }
  if (!codec_missing
      && sscanf (name, "%d-%d-%n", &want_check, &want_tables, &used) == 2
      && used > 0 && (check != want_check || tables != want_tables
                      || loader != want_check))
    {
      printf ("    checks gave exit status %d (want %d), tables %d (want %d), "
              "the loader %d\n", check, want_check, tables, want_tables, loader);
      printf ("[  FAILED  ] %s\n", name);
      note_failure (name);
      return;
    }
  printf ("[       OK ] %s (checks %d, tables %d)\n", name, check, tables);
  passed++;
}

static int
by_name (const struct dirent **a, const struct dirent **b)
{
  return strcmp ((*a)->d_name, (*b)->d_name);
}

static void
replay_path (const char *path)
{
  struct stat st;
  if (stat (path, &st) != 0)
    {
      printf ("[ RUN      ] %s\n    %s\n[  FAILED  ] %s\n", path,
              strerror (errno), path);
      note_failure (path);
      return;
    }
  if (!S_ISDIR (st.st_mode))
    {
      replay_file (path, path);
      return;
    }
  struct dirent **entries;
  int n = scandir (path, &entries, NULL, by_name);
  if (n < 0)
    {
      printf ("[ RUN      ] %s\n    %s\n[  FAILED  ] %s\n", path,
              strerror (errno), path);
      note_failure (path);
      return;
    }
  for (int i = 0; i < n; i++)
    {
      const char *name = entries[i]->d_name;
      char file[4096];
      snprintf (file, sizeof file, "%s/%s", path, name);
      if (name[0] != '.' && stat (file, &st) == 0 && S_ISREG (st.st_mode))
        replay_file (file, name);
      free (entries[i]);
    }
  free (entries);
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    replay_path (FUZZ_CORPUS_DIR);
  for (int i = 1; i < argc; i++)
    replay_path (argv[i]);
  if (passed + failed + skipped == 0)
    {
      printf ("[  FAILED  ] no input found\n");
      note_failure ("(empty corpus)");
    }
  printf ("[==========] %d test(s) run.\n[  PASSED  ] %d test(s).\n",
          passed + failed + skipped, passed);
  if (skipped)
    printf ("[  SKIPPED ] %d test(s).\n", skipped);
  if (failed)
    printf ("[  FAILED  ] %d test(s), listed below:\n%s", failed, failures);
  return failed ? 1 : 0;
}
