/* SPDX-License-Identifier: MIT */
/* c14-collision.c -- issue 14, section 3: host identifiers named like
   the gflags short names (macros) -- a member, a parameter -- would be
   macro-expanded next to <dumper/gflags.h>.  */

#include <stdbool.h>

struct c14_terminal
{
  /* dumper-migrate: review name-collision */
  bool initialized;
  /* dumper-migrate: review name-collision */
  bool will_dump;
};

int
/* dumper-migrate: review flag-parameter name-collision */
c14_setup (struct c14_terminal *t, int initialized, bool will_dump)
{
  /* dumper-migrate: review name-collision */
  t->initialized = initialized != 0;
  /* dumper-migrate: review name-collision */
  t->will_dump = will_dump;
  return initialized;
}
