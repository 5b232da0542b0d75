/* SPDX-License-Identifier: MIT */
/* common/os.h: facts about the running system and program that several
   parts need, each found in one place: the transparent huge page size
   and settings, and the main program's program headers; the one way
   to run the program again without address space randomisation, and
   the one SIGBUS handler.

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

/* The kernel's transparent huge page setting NAME ("enabled",
   "defrag"): the bracketed word of /sys/kernel/mm/transparent_hugepage/
   NAME into WORD (SIZE bytes), or "" when it cannot be read.  */
void common_thp_setting (const char *name, char *word, size_t size);

/* Free huge-page-sized blocks the page allocator holds right now
   (/proc/buddyinfo: per zone, free blocks of each order; a huge page is
   order 9 with 4 KiB pages and 2 MiB huge pages, order 11 with 16 KiB
   and 32 MiB, 13 with 64 KiB and 512 MiB, often past the orders listed:
   then none), or -1 when it cannot be read.  */
long common_free_huge_blocks (void);

/* A SIGBUS in this thread (a page of a file mapping whose file was cut
   short) calls FN (CTX) from the signal handler; FN leaves by
   siglongjmp when the fault is its own, else returns, and the handler
   the process had before takes the fault.  Faults in other threads go
   to that handler.  Returns whether the handler was installed;
   common_release_sigbus (that) puts the previous one back.  One catch
   at a time in the process.  */
typedef void common_fault_fn (void *ctx);
bool common_catch_sigbus (common_fault_fn *fn, void *ctx);
void common_release_sigbus (bool installed);

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
