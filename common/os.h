/* SPDX-License-Identifier: MIT */
/* common/os.h: facts about the running system and program that several
   parts need, each found in one place: the transparent huge page size
   and the main program's program headers; and the one way to run the
   program again without address space randomisation.

   The back ends and the bridge ask here instead of reading sysfs or
   walking dl_iterate_phdr themselves, so a port to another system
   changes one file.  Must not: allocate, or call back into the library.  */

#ifndef DUMPER_COMMON_OS_H
#define DUMPER_COMMON_OS_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The size of a transparent huge page (the kernel's PMD mapping): 2 MiB
   with 4 KiB pages, 32 MiB with 16 KiB and 512 MiB with 64 KiB
   (aarch64).  Read once from sysfs; 2 MiB where it cannot be read (a
   kernel without THP, which then gives none anyway).  */
size_t common_huge_page_size (void);

/* The main program as the dynamic loader mapped it: its load bias and
   program headers (in memory, valid for the life of the process).  */
struct common_program
{
  uintptr_t bias;
  const ElfW (Phdr) *phdr;
  int phnum;
};

/* Fill *P; the first object dl_iterate_phdr reports is the main
   program.  Returns false (and *P empty) when it reports none.  */
int common_main_program (struct common_program *p);

/* Where the address ADDRESS lies, for a message: "SYMBOL+0xN in FILE"
   with the nearest exported symbol below it (in a library usually the
   function itself; in an executable without -rdynamic often another),
   else "FILE"; false when the dynamic loader knows no object there.  */
bool common_describe_address (uintptr_t address, char *buf, size_t size);

/* Whether ADDRESS lies in the main program rather than in a shared
   object (a library, or a module loaded with dlopen).  */
bool common_in_main_program (uintptr_t address);

/* Run the program again, from /proc/self/exe with ARGV, with address
   space randomisation disabled (personality ADDR_NO_RANDOMIZE), unless
   it is already disabled.  GUARD names an environment variable set
   across the re-execution, so the new process, which finds it set
   (RETRIED), does not try again; it is removed from the environment.
   Returns true when ASLR is off (it returns only then, or on failure);
   false with the reason in WHY (SIZE bytes) when it stays on.  */
bool common_reexec_without_aslr (char **argv, const char *guard,
                                 bool retried, char *why, size_t size);

#endif
