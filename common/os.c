/* SPDX-License-Identifier: MIT */
/* common/os.c: see os.h.  */

#include <config.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os.h"

size_t
common_huge_page_size (void)
{
  static size_t size;
  if (size == 0)
    {
      size_t found = (size_t) 2 << 20;
      char text[32];
      int fd = open ("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
                     O_RDONLY | O_CLOEXEC);
      if (fd >= 0)
        {
          ssize_t n = read (fd, text, sizeof text - 1);
          close (fd);
          text[n > 0 ? n : 0] = '\0';
          char *end;
          unsigned long long v = strtoull (text, &end, 10);
          long page = sysconf (_SC_PAGESIZE);
          /* A power of two, a multiple of the page, at most 1 GiB.  */
          if (end != text && v >= (unsigned long long) (page > 0 ? page : 4096)
              && v <= (1ull << 30) && (v & (v - 1)) == 0)
            found = (size_t) v;
        }
      size = found;
    }
  return size;
}

static int
first_object (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  struct common_program *p = data;
  p->bias = info->dlpi_addr;
  p->phdr = info->dlpi_phdr;
  p->phnum = info->dlpi_phnum;
  return 1;   /* the first object is the main program: stop */
}

int
common_main_program (struct common_program *p)
{
  memset (p, 0, sizeof *p);
  dl_iterate_phdr (first_object, p);
  return p->phdr != NULL && p->phnum > 0;
}
