/* SPDX-License-Identifier: MIT */
/* common/codetargets.h: the declared code targets of an executable's
   declaration table (dumper.h, "Registry"), sorted by address, and the
   one rule that picks the declaration a code pointer is stored by
   (codetargets.c).

   Shared by the pre-dump check (bridge/refcheck.c), which only asks
   whether a function is declared, and the pdump writer (pdump/encode.c),
   which stores the (declaration, element) pair the rule picks, so the
   two never disagree about what counts as declared.  The list is made
   from the table and the code tables' arrays as they are when it is
   built: build it for each dump, never keep it across one.  */

#ifndef DUMPER_COMMON_CODETARGETS_H
#define DUMPER_COMMON_CODETARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>

/* One declared code target: a DUMPER_DECL_CODE entry (element 0) or one
   non-NULL member of a DUMPER_DECL_CODE_TABLE entry's array.  */
struct common_code_target
{
  uintptr_t address;
  uint32_t decl;            /* index in the declaration table */
  uint32_t element;         /* CODE_TABLE: the array index; CODE: 0 */
  bool in_table;            /* a CODE_TABLE element */
};

struct common_code_targets
{
  struct common_code_target *targets;   /* sorted, see find */
  size_t count;
};

/* The member of element ELEMENT of code table D (as an address; 0 for
   NULL).  D must be a valid CODE_TABLE entry (bridge/decls.c checked
   it) and ELEMENT below its element count.  */
uintptr_t common_code_table_member (const struct dumper_decl *d,
                                    size_t element);

/* Fill *SET from DECLS.  False when out of memory (*SET is then
   empty).  */
bool common_code_targets_build (struct common_code_targets *set,
                                const struct dumper_decl *decls,
                                size_t decl_count);

/* The target a code pointer to ADDRESS is stored by, or NULL when
   ADDRESS is not declared.  Of several declarations of one function:
   its DUMPER_DECL_CODE entry (the first, if declared twice), else the
   code table first in the declaration table, at its lowest index.  */
const struct common_code_target *
common_code_targets_find (const struct common_code_targets *set,
                          uintptr_t address);

void common_code_targets_free (struct common_code_targets *set);

#endif /* DUMPER_COMMON_CODETARGETS_H */
