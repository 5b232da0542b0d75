/* SPDX-License-Identifier: MIT */
/* bench/pdump-floor.c: the physical floor of loading an image.

   The loader's work is bounded below by the memory traffic of putting
   the relocated pages in place.  This program measures that floor for a
   given image, in the same run as the loads it is compared with, by
   doing only that traffic and nothing else (no checks, no relocation
   arithmetic, no hashing):

     map-touch   map the file privately and write one byte in every HOT
                 page that holds a relocation (the pages relocation
                 dirties), as the issue defines the floor
     read-huge   read HOT into fresh anonymous memory advised for huge
                 pages, the hybrid loader's way of placing HOT
     scan-hot    (after read-huge, not counted) read every HOT word
                 once: the floor of a structural pass that looks at every
                 field of a heap already in memory (issue 33, item 2)
     read-index  decode every entry of the object index (OBJECTS, two
                 LEB128 numbers an object) and nothing else: the floor
                 of the pass's index, which it needs to know where the
                 objects are

   Usage: pdump-floor IMAGE [RUNS]
   Prints one line per method: "method median_ms min_ms max_ms pages".  */

#include <config.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "pdump/check.h"
#include "pdump/format.h"

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Mark in PAGES (one byte per HOT page) the pages holding relocations.  */
static size_t
relocated_pages (const struct pdump_view *v, const unsigned char *file,
                 unsigned char *pages)
{
  const struct pdump_section *hot = &v->sections[PDUMP_SECTION_HOT];
  const uint64_t *bits = (const uint64_t *) (file + v->sections[PDUMP_SECTION_RELOC_IMAGE].offset);
  const struct pdump_section *exe = &v->sections[PDUMP_SECTION_RELOC_EXE];
  uint64_t words = hot->size / 8;
  for (uint64_t b = 0; b < (words + 63) / 64; b++)
    if (bits[b])
      for (uint64_t set = bits[b]; set; set &= set - 1)
        pages[(b * 64 + (uint64_t) __builtin_ctzll (set)) * 8 / 4096] = 1;
  for (uint64_t i = 0; i < exe->count; i++)
    {
      uint32_t w;
      memcpy (&w, file + exe->offset + i * 4, 4);
      pages[(uint64_t) w * 8 / 4096] = 1;
    }
  size_t count = 0;
  for (uint64_t p = 0; p < (hot->size + 4095) / 4096; p++)
    count += pages[p];
  return count;
}

static double
map_touch (int fd, uint64_t size, uint64_t hot_offset, const unsigned char *pages,
           uint64_t page_count)
{
  double t0 = common_now ();
  unsigned char *m = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (m == MAP_FAILED)
    {
      perror ("mmap");
      exit (1);
    }
  volatile unsigned char *hot = m + hot_offset;
  for (uint64_t p = 0; p < page_count; p++)
    if (pages[p])
      hot[p * 4096] += 1;
  double t = common_now () - t0;
  munmap (m, size);
  return t;
}

/* Read SIZE bytes of FD at OFFSET into BUF, or exit.  */
static void
read_all (int fd, unsigned char *buf, uint64_t size, uint64_t offset)
{
  uint64_t done = 0;
  while (done < size)
    {
      ssize_t n = pread (fd, buf + done, size - done, (off_t) (offset + done));
      if (n <= 0)
        {
          perror ("pread");
          exit (1);
        }
      done += (uint64_t) n;
    }
}

static double
read_huge (int fd, uint64_t hot_offset, uint64_t hot_size)
{
  double t0 = common_now ();
  size_t huge = 2u << 20;
  size_t region = hot_size + huge;
  unsigned char *m = mmap (NULL, region, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    {
      perror ("mmap");
      exit (1);
    }
  unsigned char *hot = (unsigned char *) (((uintptr_t) m + huge - 1) & ~(uintptr_t) (huge - 1));
  madvise (hot, hot_size, MADV_HUGEPAGE);
  read_all (fd, hot, hot_size, hot_offset);
  double t = common_now () - t0;
  munmap (m, region);
  return t;
}

/* Read HOT (as read_huge), then time one read of every word of it; the
   sum goes to *SINK so that the reads are done.  */
static double
scan_hot (int fd, uint64_t hot_offset, uint64_t hot_size, uint64_t *sink)
{
  unsigned char *m = malloc (hot_size + 8);
  if (m == NULL)
    {
      perror ("malloc");
      exit (71);
    }
  read_all (fd, m, hot_size, hot_offset);
  double t0 = common_now ();
  uint64_t sum = 0;
  for (uint64_t at = 0; at + 8 <= hot_size; at += 8)
    {
      uint64_t w;
      memcpy (&w, m + at, sizeof w);
      sum += w;
    }
  double t = common_now () - t0;
  *sink += sum;
  free (m);
  return t;
}

/* Time the decoding of the object index at INDEX (SIZE bytes) with
   the format's one reader (pdump_read_uleb), every number read and
   nothing checked; the sizes summed into *SINK.  */
static double
read_index (const unsigned char *index, uint64_t size, uint64_t *sink)
{
  double t0 = common_now ();
  const unsigned char *p = index, *end = index + size;
  uint64_t sum = 0, type, bytes;
  while (pdump_read_uleb (&p, end, &type) && pdump_read_uleb (&p, end, &bytes))
    sum += bytes + type;
  double t = common_now () - t0;
  *sink += sum;
  return t;
}

static void
report (const char *name, double *t, int runs, size_t pages)
{
  qsort (t, (size_t) runs, sizeof *t, compare_double);
  printf ("%s %.3f %.3f %.3f %zu\n", name, t[runs / 2] * 1e3, t[0] * 1e3,
          t[runs - 1] * 1e3, pages);
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: pdump-floor IMAGE [RUNS]\n");
      return 64;
    }
  int runs = argc > 2 ? atoi (argv[2]) : 9;
  if (runs < 1)
    runs = 1;
  int fd = open (argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      perror (argv[1]);
      return 66;
    }
  unsigned char *file = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (file == MAP_FAILED)
    {
      perror ("mmap");
      return 66;
    }
  struct pdump_view v;
  char detail[512];
  enum dumper_status s = pdump_check_header (file, (size_t) st.st_size < 4096
                                             ? (size_t) st.st_size : 4096,
                                             (uint64_t) st.st_size, NULL,
                                             argv[1], &v, detail, sizeof detail);
  if (s != DUMPER_OK)
    {
      fprintf (stderr, "%s\n", detail);
      munmap (file, (size_t) st.st_size);
      close (fd);
      return 65;
    }
  const struct pdump_section *hot = &v.sections[PDUMP_SECTION_HOT];
  const struct pdump_section *index = &v.sections[PDUMP_SECTION_OBJECTS];
  uint64_t sink = 0;
  uint64_t page_count = (hot->size + 4095) / 4096;
  unsigned char *pages = calloc (page_count + 1, 1);
  double *t_map = calloc ((size_t) runs, sizeof *t_map);
  double *t_read = calloc ((size_t) runs, sizeof *t_read);
  double *t_scan = calloc ((size_t) runs, sizeof *t_scan);
  double *t_index = calloc ((size_t) runs, sizeof *t_index);
  if (pages == NULL || t_map == NULL || t_read == NULL || t_scan == NULL
      || t_index == NULL)
    {
      perror ("calloc");
      return 71;
    }
  size_t touched = relocated_pages (&v, file, pages);
  for (int r = 0; r < runs; r++)
    {
      t_map[r] = map_touch (fd, (uint64_t) st.st_size, hot->offset, pages, page_count);
      t_read[r] = read_huge (fd, hot->offset, hot->size);
      t_scan[r] = scan_hot (fd, hot->offset, hot->size, &sink);
      t_index[r] = read_index (file + index->offset, index->size, &sink);
    }
  report ("map-touch", t_map, runs, touched);
  report ("read-huge", t_read, runs, (size_t) page_count);
  report ("scan-hot", t_scan, runs, (size_t) page_count);
  report ("read-index", t_index, runs, (size_t) index->count);
  if (sink == 42)
    putchar ('\n');
  free (t_index);
  free (t_scan);
  free (t_read);
  free (t_map);
  free (pages);
  munmap (file, (size_t) st.st_size);
  close (fd);
  return 0;
}
