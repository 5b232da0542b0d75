/* SPDX-License-Identifier: MIT */
/* tools/fingerprint.c: dumper-fingerprint, the build step that stamps an
   executable with the fingerprint of its own build.

   A pdump image records the fingerprint of the executable that wrote it
   and is refused by any other build.  The fingerprint lives in an ELF
   note that DUMPER_DEFINE_FINGERPRINT puts in the executable with zero
   bytes; after linking, this tool hashes the whole file (XXH3-128, with
   the fingerprint bytes counted as zeros, so stamping is idempotent) and
   writes the hash into the note.  The same sources linked the same way
   give the same fingerprint; any change to the linked file gives another.

   The file is rewritten under a temporary name and renamed, so an
   interrupted run never leaves a half-written executable, and a running
   copy of the program is not disturbed.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <dumper/dumper.h>

#include "common/atomic.h"
#include "common/elfnote.h"
#include "pdump/format.h"
#include "tools/common/cli.h"

/* Exit statuses: tools/common/status.h, doc/exit-status.md.  */
enum
{
  EXIT_MISMATCH = TOOL_EXIT_STALE,  /* --check: stored fingerprint is stale */
  EXIT_NOT_ELF = TOOL_EXIT_DATAERR, /* not ELF, or no fingerprint note */
  EXIT_NOINPUT = TOOL_EXIT_NOINPUT,
  EXIT_CANTWRITE = TOOL_EXIT_CANTCREAT
};

static const char *program_name = "dumper-fingerprint";

struct exe
{
  const char *path;
  int fd;
  unsigned char *bytes;      /* the whole file, mapped read-only */
  size_t size;
  mode_t mode;
  size_t desc_offset;        /* file offset of the fingerprint bytes */
  bool embedded;             /* holds a pdump image (dumper-embed) */
  uint64_t image_offset;     /* its section's offset and size */
  uint64_t image_size;
};

static void
usage (FILE *out)
{
  fprintf (out,
"Usage: %s [OPTION] EXECUTABLE...\n"
"Stamp each EXECUTABLE with the fingerprint of its build, so that pdump\n"
"images written by it are refused by any other build.  The executable must\n"
"contain DUMPER_DEFINE_FINGERPRINT (see <dumper/dumper.h>).\n"
"\n"
"  -p, --print     print the stored fingerprint, change nothing\n"
"  -c, --check     exit 5 if the stored fingerprint is not the file's hash\n"
"                  (for a file holding an embedded image, made by\n"
"                  dumper-embed: if the image is not of the stored build)\n"
"  -q, --quiet     do not print the fingerprint after stamping\n"
"  -h, --help      show this help and exit\n"
"  -V, --version   show the version and exit\n"
"\n"
"Exit status: 0 success, 5 stale fingerprint (--check), 64 usage error,\n"
"65 not an ELF file, no fingerprint note, or (stamping) an embedded image,\n"
"66 cannot read, 73 cannot write.\n",
           program_name);
}

static void
print_hex (const unsigned char *bytes, size_t n)
{
  for (size_t i = 0; i < n; i++)
    printf ("%02x", bytes[i]);
}

/* Find the fingerprint note; return 0 or an exit status.  */
static int
find_note (struct exe *x)
{
  Elf *elf = elf_memory ((char *) x->bytes, x->size);
  if (elf == NULL || elf_kind (elf) != ELF_K_ELF)
    {
      fprintf (stderr, "%s: %s: not an ELF file\n", program_name, x->path);
      if (elf)
        elf_end (elf);
      return EXIT_NOT_ELF;
    }
  bool found = false;
  size_t names;
  if (elf_getshdrstrndx (elf, &names) != 0)
    names = 0;
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn;
       scn = elf_nextscn (elf, scn))
    {
      GElf_Shdr shdr;
      if (gelf_getshdr (scn, &shdr) == NULL)
        continue;
      const char *name = names ? elf_strptr (elf, names, shdr.sh_name) : NULL;
      if (name && strcmp (name, PDUMP_EMBED_SECTION) == 0
          && shdr.sh_type != SHT_NOBITS)
        {
          x->embedded = true;
          x->image_offset = shdr.sh_offset;
          x->image_size = shdr.sh_size;
        }
      if (shdr.sh_type != SHT_NOTE || found)
        continue;
      Elf_Data *data = elf_rawdata (scn, NULL);
      if (data == NULL)
        continue;
      struct common_notes notes;
      memset (&notes, 0, sizeof notes);
      common_notes_scan (data->d_buf, data->d_size, shdr.sh_addralign, &notes);
      if (notes.has_dumper_note)
        {
          x->desc_offset = shdr.sh_offset + notes.dumper_desc_offset;
          found = true;
        }
    }
  elf_end (elf);
  if (!found || x->desc_offset + DUMPER_FINGERPRINT_SIZE > x->size)
    {
      fprintf (stderr, "%s: %s: no dumper fingerprint note; put "
               "DUMPER_DEFINE_FINGERPRINT in one source file of the "
               "executable\n", program_name, x->path);
      return EXIT_NOT_ELF;
    }
  return 0;
}

static int
open_exe (struct exe *x, const char *path)
{
  memset (x, 0, sizeof *x);
  x->path = path;
  x->fd = open (path, O_RDONLY);
  if (x->fd < 0)
    {
      fprintf (stderr, "%s: %s: %s\n", program_name, path, strerror (errno));
      return EXIT_NOINPUT;
    }
  struct stat st;
  if (fstat (x->fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      fprintf (stderr, "%s: %s: not a regular file\n", program_name, path);
      close (x->fd);
      return EXIT_NOINPUT;
    }
  x->size = (size_t) st.st_size;
  x->mode = st.st_mode & 07777;
  if (x->size == 0)
    {
      fprintf (stderr, "%s: %s: not an ELF file (empty)\n", program_name, path);
      close (x->fd);
      return EXIT_NOT_ELF;
    }
  x->bytes = mmap (NULL, x->size, PROT_READ, MAP_PRIVATE, x->fd, 0);
  if (x->bytes == MAP_FAILED)
    {
      fprintf (stderr, "%s: %s: %s\n", program_name, path, strerror (errno));
      close (x->fd);
      return EXIT_NOINPUT;
    }
  int status = find_note (x);
  if (status != 0)
    {
      munmap (x->bytes, x->size);
      close (x->fd);
    }
  return status;
}

static void
close_exe (struct exe *x)
{
  munmap (x->bytes, x->size);
  close (x->fd);
}

/* The fingerprint: the file's hash with the fingerprint bytes as zeros.  */
static void
compute (const struct exe *x, unsigned char out[DUMPER_FINGERPRINT_SIZE])
{
  static const unsigned char zero[DUMPER_FINGERPRINT_SIZE];
  XXH3_state_t *state = XXH3_createState ();
  if (state == NULL)
    {
      fprintf (stderr, "%s: out of memory\n", program_name);
      exit (TOOL_EXIT_OSERR);
    }
  XXH3_128bits_reset (state);
  XXH3_128bits_update (state, x->bytes, x->desc_offset);
  XXH3_128bits_update (state, zero, sizeof zero);
  size_t after = x->desc_offset + DUMPER_FINGERPRINT_SIZE;
  XXH3_128bits_update (state, x->bytes + after, x->size - after);
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash (&canonical, XXH3_128bits_digest (state));
  XXH3_freeState (state);
  memcpy (out, canonical.digest, DUMPER_FINGERPRINT_SIZE);
}

/* Rewrite X->path with FP in place of the stored fingerprint.  */
static int
stamp (const struct exe *x, const unsigned char fp[DUMPER_FINGERPRINT_SIZE])
{
  struct common_atomic out;
  int err = common_atomic_begin (&out, x->path, "fp", x->mode, true);
  if (err != 0)
    {
      fprintf (stderr, "%s: cannot create a temporary file beside %s: %s\n",
               program_name, x->path, strerror (err));
      return err == ENOMEM ? TOOL_EXIT_OSERR : EXIT_CANTWRITE;
    }
  size_t after = x->desc_offset + DUMPER_FINGERPRINT_SIZE;
  err = common_atomic_write (&out, x->bytes, x->desc_offset);
  if (err == 0)
    err = common_atomic_write (&out, fp, DUMPER_FINGERPRINT_SIZE);
  if (err == 0)
    err = common_atomic_write (&out, x->bytes + after, x->size - after);
  if (err != 0)
    common_atomic_abort (&out);
  else
    err = common_atomic_commit (&out);
  if (err != 0)
    {
      fprintf (stderr, "%s: cannot write %s: %s\n", program_name, x->path,
               strerror (err));
      return EXIT_CANTWRITE;
    }
  return 0;
}

/* A file that dumper-embed made holds EXE's stamped note unchanged
   beside an image of EXE's build, so its own hash is not its note (the
   image was added after stamping).  --check then asks what matters: is
   the embedded image tied to the note (0, "ok"), or of another build
   (EXIT_MISMATCH)?  Stamping it is refused: a new note would orphan
   the image.  */
static int
embedded_file (const struct exe *x,
               const unsigned char stored[DUMPER_FINGERPRINT_SIZE], bool check)
{
  if (!check)
    {
      fprintf (stderr, "%s: %s: holds an embedded pdump image (dumper-embed); "
               "a new fingerprint would orphan it: stamp the executable "
               "before embedding\n", program_name, x->path);
      return EXIT_NOT_ELF;
    }
  struct pdump_header h;
  if (x->image_offset > x->size || x->size - x->image_offset < sizeof h
      || x->image_size < sizeof h)
    {
      fprintf (stderr, "%s: %s: the embedded image section is truncated\n",
               program_name, x->path);
      return EXIT_NOT_ELF;
    }
  memcpy (&h, x->bytes + x->image_offset, sizeof h);
  if (memcmp (h.magic, PDUMP_MAGIC, PDUMP_MAGIC_SIZE) != 0)
    {
      fprintf (stderr, "%s: %s: the embedded image section holds no pdump "
               "image\n", program_name, x->path);
      return EXIT_NOT_ELF;
    }
  bool match = memcmp (h.fingerprint, stored, DUMPER_FINGERPRINT_SIZE) == 0;
  printf ("%s: %s\n", x->path, match ? "ok (embedded image of this build)"
                                     : "stale (the embedded image is of "
                                       "another build)");
  return match ? 0 : EXIT_MISMATCH;
}

int
main (int argc, char **argv)
{
  enum { MODE_STAMP, MODE_PRINT, MODE_CHECK } mode = MODE_STAMP;
  bool quiet = false;
  static const struct option options[] = {
    { "print", no_argument, NULL, 'p' },
    { "check", no_argument, NULL, 'c' },
    { "quiet", no_argument, NULL, 'q' },
    { NULL, 0, NULL, 0 }
  };
  struct tool_cli cli = { program_name, usage, 0 };
  int c;
  while ((c = tool_cli_getopt (&cli, argc, argv, "pcq", options)) != -1)
    switch (c)
      {
      case 'p': mode = MODE_PRINT; break;
      case 'c': mode = MODE_CHECK; break;
      case 'q': quiet = true; break;
      default: return cli.status;
      }
  if (optind >= argc)
    return tool_usage_error (&cli, "no executable given");
  if (elf_version (EV_CURRENT) == EV_NONE)
    {
      fprintf (stderr, "%s: libelf is out of date\n", program_name);
      return EXIT_NOT_ELF;
    }

  int worst = 0;
  for (int i = optind; i < argc; i++)
    {
      struct exe x;
      int status = open_exe (&x, argv[i]);
      if (status != 0)
        {
          worst = worst ? worst : status;
          continue;
        }
      unsigned char stored[DUMPER_FINGERPRINT_SIZE], computed[DUMPER_FINGERPRINT_SIZE];
      memcpy (stored, x.bytes + x.desc_offset, sizeof stored);
      if (mode == MODE_PRINT)
        {
          static const unsigned char zero[DUMPER_FINGERPRINT_SIZE];
          printf ("%s: ", x.path);
          if (memcmp (stored, zero, sizeof zero) == 0)
            printf ("unset\n");
          else
            {
              print_hex (stored, sizeof stored);
              putchar ('\n');
            }
        }
      else if (x.embedded)
        {
          status = embedded_file (&x, stored, mode == MODE_CHECK);
          if (status && !worst)
            worst = status;
        }
      else
        {
          compute (&x, computed);
          if (mode == MODE_CHECK)
            {
              bool match = memcmp (stored, computed, sizeof stored) == 0;
              printf ("%s: %s\n", x.path, match ? "ok" : "stale");
              if (!match && !worst)
                worst = EXIT_MISMATCH;
            }
          else
            {
              if (memcmp (stored, computed, sizeof stored) != 0)
                status = stamp (&x, computed);
              if (status == 0 && !quiet)
                {
                  printf ("%s: ", x.path);
                  print_hex (computed, sizeof computed);
                  putchar ('\n');
                }
              if (status && !worst)
                worst = status;
            }
        }
      close_exe (&x);
    }
  return worst;
}
