/* SPDX-License-Identifier: MIT */
/* c14-collision.c -- issue 14, section 3: host identifiers named like
   the gflags short names (macros) -- a member, a parameter -- would be
   macro-expanded next to <dumper/gflags.h>.  */

#include <stdbool.h>

struct c14_terminal
{
  bool initialized;
  bool will_dump;
};

int
c14_setup (struct c14_terminal *t, int initialized, bool will_dump)
{
  t->initialized = initialized != 0;
  t->will_dump = will_dump;
  return initialized;
}
