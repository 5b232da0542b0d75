/* SPDX-License-Identifier: MIT */
/* common/os.h: facts about the running system and program that several
   parts need, each found in one place: the page and transparent huge
   page sizes and settings, the main program's program headers and
   path, the boot's identifier; the one way to run the program again
   without address space randomisation, and the one SIGBUS handler; and
   the checks and locks of the per-user files (private directories and
   files, an exclusive lock).

   The back ends and the bridge ask here instead of reading sysfs or
   walking dl_iterate_phdr themselves, so a port to another system
   changes one file.  Must not: allocate, or call back into the library.  */

#ifndef DUMPER_COMMON_OS_H
#define DUMPER_COMMON_OS_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The size of a page of memory (sysconf); 4096 where it cannot be
   read.  */
size_t common_page_size (void);

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

/* What to advise (madvise) for SIZE bytes of anonymous memory about to
   be filled on a start-up path: huge pages where they help (a fault
   per 2 MiB instead of per 4 KiB page, which on a virtual machine is
   the larger part of a start), but never with direct compaction (five
   back-to-back scale-64 pdump loads took 31-444 ms in the relocate
   phase with MADV_HUGEPAGE under Debian's defrag=madvise).  With
   defrag `defer' or `never' no fault compacts: MADV_HUGEPAGE.
   Otherwise an advised (`madvise', `defer+madvise') or any (`always')
   huge page fault compacts when no 2 MiB block is free, so huge pages
   are advised only when /proc/buddyinfo shows at least twice the
   blocks SIZE needs free now; else none (`always': MADV_NOHUGEPAGE),
   and the memory comes in small pages: 0.  Why, into NOTE (NOTE_SIZE
   bytes) unless it is NULL.  */
int common_huge_advice (uint64_t size, char *note, size_t note_size);

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

/* The path of the running executable's file (/proc/self/exe's target),
   NUL-terminated in BUF of SIZE bytes; false when it cannot be read or
   does not fit.  */
bool common_exe_path (char *buf, size_t size);

/* The kernel's identifier of this boot (a UUID, /proc/sys/kernel/
   random/boot_id) without its newline, in ID; false when it cannot be
   read.  */
bool common_boot_id (char id[40]);

/* SIZE random bytes from the kernel into BUF without waiting for its
   entropy pool; false when it gives fewer.  */
bool common_random_bytes (void *buf, size_t size);

/* Whether PATH is a directory of USER (the caller's effective uid, asked
   once by the caller: geteuid is a system call) that no
   one else may enter: not a symbolic link (not followed), no group or
   other permission bits.  When not, false with the reason (naming PATH)
   in WHY, and errno ENOENT only when there is nothing at PATH (the
   caller may then create it), EEXIST when something there is refused,
   or lstat's error.  */
bool common_private_dir (const char *path, uid_t user, char *why,
                         size_t size);

/* Whether PATH is a directory in which no other user can rename or
   remove what USER makes there: USER's, not writable by
   group or others, or root's with the sticky bit (/tmp).  Not followed
   if a symbolic link.  */
bool common_shared_parent_dir (const char *path, uid_t user);

/* Open PATH to read, without following a symbolic link and without
   waiting: a FIFO (which anyone who can write the directory can make)
   would block a plain open until a writer came; with O_NONBLOCK it
   opens at once and the caller's fstat refuses it as not a regular
   file.  O_NONBLOCK changes nothing for a regular file's reads or
   mappings, so it stays set.  The descriptor, or -1 with errno.  */
int common_open_entry (const char *path);

/* The text of the small file PATH into TEXT (SIZE bytes, NUL-terminated):
   false unless it is a regular file of USER that no one else may
   read or write (not followed if a symbolic link) and not empty; then
   errno is ENOENT only when there is no such file.  */
bool common_read_private (const char *path, uid_t user, char *text,
                          size_t size);

/* Take the exclusive lock of the file PATH (created mode 0600 when
   missing; a symbolic link not followed) without waiting.  Returns the
   descriptor that holds it (close it, or common_unlock, to release the
   lock; a child process inherits it), or -1: *BUSY true when another
   holder has the lock (or the kernel refused to lock), false when PATH
   could not be opened (errno set).  */
int common_try_lock (const char *path, bool *busy);

/* Release the lock taken by common_try_lock: close FD (nothing when
   negative).  */
void common_unlock (int fd);

#endif
