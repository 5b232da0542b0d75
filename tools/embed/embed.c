/* SPDX-License-Identifier: MIT */
/* tools/embed/embed.c: dumper-embed, one file holding an executable and
   its pdump image.

   Copies EXE section by section (libelf, ELF_F_LAYOUT: every byte stays
   at its offset, so the loadable segments, the fingerprint note and the
   build-id are untouched) and adds the image as the section
   PDUMP_EMBED_SECTION (format.h): SHT_PROGBITS, not allocated (the
   kernel does not load it; the library maps or reads it from
   /proc/self/exe), its file offset aligned to a page so the loader can
   map it as it maps a separate image.  The section name table is moved
   after the copied contents when the name must be added; the image
   follows it, then the section headers.  An EXE that already holds an
   image gets the new one in place of the old (re-embedding after a
   re-dump), so the file does not grow.

   The image is checked first (a pdump image, whole, of this machine) and
   its fingerprint compared with the one EXE computes at start-up (its
   stamped note, else its build-id; common/elfnote.h): embedding
   an image EXE would refuse is an error here, not at the next start.
   The copy of libdumper's pdump_embed_mark in it is set (embed.h), so
   a start whose section headers no longer locate the image warns.
   The output is written atomically (common/atomic.h).  */

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

#include <dumper/dumper.h>

#include "common/atomic.h"
#include "common/elfnote.h"
#include "tools/common/cli.h"
#include "pdump/check.h"
#include "pdump/embed.h"
#include "pdump/format.h"

/* Exit statuses: tools/common/status.h.  */
enum
{
  EXIT_DATAERR = TOOL_EXIT_DATAERR,     /* EXE not ELF, IMAGE unusable */
  EXIT_NOINPUT = TOOL_EXIT_NOINPUT,
  EXIT_SOFTWARE = TOOL_EXIT_OSERR,      /* libelf or memory failed */
  EXIT_CANTCREAT = TOOL_EXIT_CANTCREAT
};

static const char *program_name = "dumper-embed";

static void
usage (FILE *out)
{
  fprintf (out,
"Usage: %s EXE IMAGE -o OUTPUT\n"
"Write OUTPUT: a copy of the executable EXE that holds the pdump IMAGE as\n"
"its ELF section " PDUMP_EMBED_SECTION ", page-aligned, so the program starts\n"
"from it with no separate image (--dump-file still overrides it).  IMAGE\n"
"may be compressed.  If EXE already holds an image, it is replaced.\n"
"\n"
"  -o, --output FILE   the file to write (replaced atomically)\n"
"  -h, --help          show this help and exit\n"
"  -V, --version       show the version and exit\n"
"\n"
"Exit status: 0 success, 64 usage error, 65 EXE is not ELF or IMAGE is not\n"
"an image for EXE, 66 cannot read an input, 71 libelf or memory failure,\n"
"73 cannot write OUTPUT.\n", program_name);
}

static struct tool_cli cli = { "dumper-embed", usage, 0 };

struct input
{
  int fd;
  unsigned char *bytes;
  size_t size;
  mode_t mode;
};

static int
open_input (struct input *in, const char *path)
{
  memset (in, 0, sizeof *in);
  in->fd = open (path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (in->fd < 0 || fstat (in->fd, &st) != 0)
    return tool_error (&cli, EXIT_NOINPUT, "%s: %s", path, strerror (errno));
  if (!S_ISREG (st.st_mode) || st.st_size == 0)
    return tool_error (&cli, EXIT_NOINPUT, "%s: not a regular, non-empty file", path);
  in->size = (size_t) st.st_size;
  in->mode = st.st_mode & 07777;
  in->bytes = mmap (NULL, in->size, PROT_READ, MAP_PRIVATE, in->fd, 0);
  if (in->bytes == MAP_FAILED)
    return tool_error (&cli, EXIT_NOINPUT, "%s: %s", path, strerror (errno));
  return 0;
}

/* The fingerprint the running EXE would compute (the stamped dumper
   note, else its hashed GNU build-id), from its PT_NOTE segments, which
   are what the bridge reads in memory (common/elfnote.h).  False when
   EXE has neither.  */
static bool
exe_fingerprint (Elf *elf, unsigned char out[DUMPER_FINGERPRINT_SIZE])
{
  size_t phnum;
  if (elf_getphdrnum (elf, &phnum) != 0)
    return false;
  struct common_notes notes;
  memset (&notes, 0, sizeof notes);
  for (size_t i = 0; i < phnum; i++)
    {
      GElf_Phdr ph;
      if (gelf_getphdr (elf, (int) i, &ph) == NULL || ph.p_type != PT_NOTE)
        continue;
      Elf_Data *data = elf_getdata_rawchunk (elf, (int64_t) ph.p_offset,
                                             ph.p_filesz, ELF_T_BYTE);
      if (data != NULL)
        common_notes_scan (data->d_buf, data->d_size, ph.p_align, &notes);
    }
  return common_notes_fingerprint (&notes, out, NULL);
}

static uint64_t
align_up (uint64_t n, uint64_t alignment)
{
  return (n + alignment - 1) / alignment * alignment;
}

/* Copy EXE into OUT_ELF with IMAGE as the embedded section.  Returns 0
   or an exit status (the message printed).  */
static int
build (Elf *in, Elf *out, const char *exe_path, const unsigned char *image,
       uint64_t image_size, uint64_t image_align)
{
  GElf_Ehdr eh;
  size_t phnum, shnum, shstrndx;
  if (gelf_getehdr (in, &eh) == NULL || elf_getphdrnum (in, &phnum) != 0
      || elf_getshdrnum (in, &shnum) != 0 || elf_getshdrstrndx (in, &shstrndx) != 0
      || shnum == 0 || shstrndx == 0)
    return tool_error (&cli, EXIT_DATAERR, "%s: not an ELF executable with section "
                     "headers: %s", exe_path, elf_errmsg (-1));
  if (gelf_newehdr (out, gelf_getclass (in)) == NULL
      || (phnum && gelf_newphdr (out, phnum) == NULL))
    return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));
  elf_flagelf (out, ELF_C_SET, ELF_F_LAYOUT);
  for (size_t i = 0; i < phnum; i++)
    {
      GElf_Phdr ph;
      if (gelf_getphdr (in, (int) i, &ph) == NULL
          || gelf_update_phdr (out, (int) i, &ph) == 0)
        return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));
    }

  /* Is the name already in the table, and is there an image to replace?  */
  Elf_Scn *names_scn = elf_getscn (in, shstrndx);
  Elf_Data *names = names_scn ? elf_getdata (names_scn, NULL) : NULL;
  if (names == NULL)
    return tool_error (&cli, EXIT_DATAERR, "%s: no section name table", exe_path);
  size_t name_index = 0;
  size_t old_embed = 0;
  for (size_t i = 1; i < shnum; i++)
    {
      GElf_Shdr sh;
      Elf_Scn *scn = elf_getscn (in, i);
      const char *name = NULL;
      if (scn && gelf_getshdr (scn, &sh))
        name = elf_strptr (in, shstrndx, sh.sh_name);
      if (name && strcmp (name, PDUMP_EMBED_SECTION) == 0)
        {
          old_embed = i;
          name_index = sh.sh_name;
        }
    }

  /* Copy every section where it was; find where the copied bytes end.  */
  uint64_t end = eh.e_ehsize;
  if (phnum)
    end = eh.e_phoff + (uint64_t) phnum * eh.e_phentsize > end
          ? eh.e_phoff + (uint64_t) phnum * eh.e_phentsize : end;
  Elf_Scn *out_names = NULL, *out_embed = NULL;
  unsigned char *grown_names = NULL;
  for (size_t i = 1; i < shnum; i++)
    {
      Elf_Scn *scn = elf_getscn (in, i);
      GElf_Shdr sh;
      Elf_Scn *oscn = elf_newscn (out);
      if (scn == NULL || gelf_getshdr (scn, &sh) == NULL || oscn == NULL)
        return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));
      if (i == old_embed)
        {
          out_embed = oscn;
          continue;
        }
      if (i == shstrndx)
        out_names = oscn;
      Elf_Data *data = NULL;
      while ((data = elf_getdata (scn, data)) != NULL)
        {
          Elf_Data *od = elf_newdata (oscn);
          if (od == NULL)
            return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));
          *od = *data;
        }
      if (gelf_update_shdr (oscn, &sh) == 0)
        return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));
      if (sh.sh_type != SHT_NOBITS
          && !(i == shstrndx && name_index == 0)
          && sh.sh_offset + sh.sh_size > end)
        end = sh.sh_offset + sh.sh_size;
    }

  /* Add the name: the grown table goes after everything copied.  */
  if (name_index == 0)
    {
      GElf_Shdr sh;
      gelf_getshdr (out_names, &sh);
      size_t old_size = names->d_size;
      grown_names = malloc (old_size + sizeof PDUMP_EMBED_SECTION);
      if (grown_names == NULL)
        return tool_error (&cli, EXIT_SOFTWARE, "out of memory");
      memcpy (grown_names, names->d_buf, old_size);
      memcpy (grown_names + old_size, PDUMP_EMBED_SECTION, sizeof PDUMP_EMBED_SECTION);
      Elf_Data *nd = elf_getdata (out_names, NULL);
      nd->d_buf = grown_names;
      nd->d_size = old_size + sizeof PDUMP_EMBED_SECTION;
      nd->d_off = 0;
      name_index = old_size;
      sh.sh_offset = end;
      sh.sh_size = nd->d_size;
      end += sh.sh_size;
      if (gelf_update_shdr (out_names, &sh) == 0)
        return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));
    }
  if (out_embed == NULL && (out_embed = elf_newscn (out)) == NULL)
    return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));

  Elf_Data *idata = elf_newdata (out_embed);
  if (idata == NULL)
    return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));
  idata->d_buf = (void *) image;
  idata->d_size = image_size;
  idata->d_type = ELF_T_BYTE;
  idata->d_align = 1;
  idata->d_off = 0;
  idata->d_version = EV_CURRENT;
  GElf_Shdr sh;
  memset (&sh, 0, sizeof sh);
  sh.sh_name = name_index;
  sh.sh_type = SHT_PROGBITS;
  sh.sh_flags = 0;
  sh.sh_offset = align_up (end, image_align);
  sh.sh_size = image_size;
  sh.sh_addralign = image_align;
  if (gelf_update_shdr (out_embed, &sh) == 0)
    return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));

  GElf_Ehdr oeh = eh;
  oeh.e_shoff = align_up (sh.sh_offset + image_size, 8);
  oeh.e_shnum = (GElf_Half) (old_embed ? shnum : shnum + 1);
  if (gelf_update_ehdr (out, &oeh) == 0)
    return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));
  if (elf_update (out, ELF_C_WRITE) < 0)
    {
      free (grown_names);
      return tool_error (&cli, EXIT_CANTCREAT, "cannot write the output: %s",
                       elf_errmsg (-1));
    }
  free (grown_names);
  return 0;
}

/* Set the mark of EXE's libdumper in the output OUT_FD (embed.h): the
   copy keeps every byte of EXE at its offset.  Not an error when EXE
   has none (libdumper linked as a shared library): such a start cannot
   tell an image was lost.  */
static int
mark_embedded (const struct input *exe, int out_fd, const char *output)
{
  const size_t magic = PDUMP_EMBED_MARK_SIZE - 1;
  const unsigned char *at = memmem (exe->bytes, exe->size, pdump_embed_mark, magic);
  while (at && (size_t) (at - exe->bytes) + magic < exe->size
         && at[magic] > 1)
    at = memmem (at + 1, exe->size - (size_t) (at + 1 - exe->bytes),
                 pdump_embed_mark, magic);
  if (at == NULL || (size_t) (at - exe->bytes) + magic >= exe->size)
    return 0;
  unsigned char set = 1;
  if (pwrite (out_fd, &set, 1, (off_t) (at - exe->bytes) + (off_t) magic) != 1)
    return tool_error (&cli, EXIT_CANTCREAT, "%s: cannot write: %s", output,
                       strerror (errno));
  return 0;
}

int
main (int argc, char **argv)
{
  const char *output = NULL;
  static const struct option options[] = {
    { "output", required_argument, NULL, 'o' },
    { NULL, 0, NULL, 0 }
  };
  int c;
  while ((c = tool_cli_getopt (&cli, argc, argv, "o:", options)) != -1)
    switch (c)
      {
      case 'o': output = optarg; break;
      default: return cli.status;
      }
  if (argc - optind != 2 || output == NULL)
    return tool_usage_error (&cli, "need EXE, IMAGE and -o OUTPUT");
  const char *exe_path = argv[optind], *image_path = argv[optind + 1];
  if (elf_version (EV_CURRENT) == EV_NONE)
    return tool_error (&cli, EXIT_SOFTWARE, "libelf is out of date");

  struct input exe, image;
  int status = open_input (&exe, exe_path);
  if (status == 0)
    status = open_input (&image, image_path);
  if (status != 0)
    return status;

  /* The image: whole and for this machine (no fingerprint yet).  */
  char detail[1024];
  struct pdump_view view;
  size_t first = image.size < 4096 ? image.size : 4096;
  enum dumper_status st = pdump_check_header (image.bytes, first, image.size,
                                              NULL, image_path, &view, detail,
                                              sizeof detail);
  if (st != DUMPER_OK)
    return tool_error (&cli, EXIT_DATAERR, "%s: %s", dumper_strerror (st), detail);

  Elf *in = elf_begin (exe.fd, ELF_C_READ, NULL);
  if (in == NULL || elf_kind (in) != ELF_K_ELF)
    return tool_error (&cli, EXIT_DATAERR, "%s: not an ELF file", exe_path);
  unsigned char fp[DUMPER_FINGERPRINT_SIZE];
  if (exe_fingerprint (in, fp)
      && memcmp (fp, view.header.fingerprint, sizeof fp) != 0)
    return tool_error (&cli, EXIT_DATAERR, "%s: the image was written by another build "
                     "than %s (fingerprints differ); dump it again with %s",
                     image_path, exe_path, exe_path);

  struct common_atomic out;
  int err = common_atomic_begin (&out, output, "embed", exe.mode, true);
  if (err != 0)
    return tool_error (&cli, EXIT_CANTCREAT, "%s: cannot create: %s", output,
                     strerror (err));
  Elf *oelf = elf_begin (out.fd, ELF_C_WRITE, NULL);
  if (oelf == NULL)
    {
      common_atomic_abort (&out);
      return tool_error (&cli, EXIT_SOFTWARE, "libelf: %s", elf_errmsg (-1));
    }
  uint64_t align = view.header.page_size > 4096 ? view.header.page_size : 4096;
  long page = sysconf (_SC_PAGESIZE);
  if (page > 0 && (uint64_t) page > align)
    align = (uint64_t) page;
  status = build (in, oelf, exe_path, image.bytes, image.size, align);
  elf_end (oelf);
  elf_end (in);
  if (status == 0)
    status = mark_embedded (&exe, out.fd, output);
  if (status != 0)
    {
      common_atomic_abort (&out);
      return status;
    }
  err = common_atomic_commit (&out);
  if (err != 0)
    return tool_error (&cli, EXIT_CANTCREAT, "%s: cannot %s: %s", output, out.step,
                     strerror (err));
  return 0;
}
