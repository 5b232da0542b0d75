/* SPDX-License-Identifier: MIT */
/* tools/common/xalloc.h: allocation that cannot fail quietly, shared by
   the command-line tools (dumper-compare, dumper-migrate).

   Each program defines tool_out_of_memory: it says so in the tool's own
   words and exits with the tool's own status; these calls never return
   NULL.  A zero size allocates one byte, so the result is always a
   distinct pointer that may be freed.  */

#ifndef DUMPER_TOOLS_XALLOC_H
#define DUMPER_TOOLS_XALLOC_H

#include <stddef.h>

_Noreturn void tool_out_of_memory (void);

void *tool_xmalloc (size_t size);
void *tool_xcalloc (size_t count, size_t size);
void *tool_xrealloc (void *ptr, size_t size);
char *tool_xstrndup (const char *s, size_t n);
char *tool_xstrdup (const char *s);

#endif
