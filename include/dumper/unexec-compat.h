/* SPDX-License-Identifier: MIT */
/* dumper/unexec-compat.h: Emacs's unexec (), for existing programs.

   A drop-in replacement for the unexec () of GNU Emacs (src/unexec.h,
   implemented there by unexelf.c), built on libdumper's unexec writer.
   A program that called Emacs's unexec links libdumper.a instead of
   unexelf.o and changes nothing else.  Defined only in libdumper built
   with `./configure --with-dumper=unexec' (DUMPER_WITH_UNEXEC in
   <dumper/backend.h>), x86_64, and only when libdumper is linked
   statically into a non-PIE executable.  doc/unexec.md, "Using
   dumper's unexec from an existing program", has Emacs as the worked
   example.  */

#ifndef DUMPER_UNEXEC_COMPAT_H
#define DUMPER_UNEXEC_COMPAT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Write NEW_NAME, a copy of the executable OLD_NAME (the running
   program's file; NULL means the running program, /proc/self/exe)
   whose .data and .bss hold this process's current contents, and
   whose brk heap, when the program has one, is saved as well: the new
   program starts in the state this one is in now.  Only the used part
   of .bss and of the brk heap costs file size: trailing zeros, and a
   long run of zeros in .bss (an unused static heap), stay zero-fill;
   debug sections are written compressed (zlib), which gdb reads.  The brk heap must start where .bss ends, which needs the
   dumping run to have address randomisation off (Emacs re-executes
   itself with personality (ADDR_NO_RANDOMIZE); `setarch -R' does the
   same for any program).

   No error channel, as in Emacs: on failure it prints one line,
   "unexec: <what went wrong>: <the file and the cause>", on stderr and
   exits with the status of doc/exit-status.md (73 the output cannot be
   created, 74 reading or writing failed, 93 the executable or the
   process cannot be dumped: PIE, not the running program, the brk heap
   not after .bss, ...; 71 out of memory).  NEW_NAME is then untouched:
   the file is written under a temporary name and renamed.  Not
   thread-safe.  */
void unexec (const char *new_name, const char *old_name);

#ifdef __cplusplus
}
#endif

#endif /* DUMPER_UNEXEC_COMPAT_H */
