/* SPDX-License-Identifier: MIT */
/* tests/host/harness.c: see harness.h.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "harness.h"

int
dlt_setup (void **state)
{
  (void) state;
  static bool booted;
  if (!booted)
    {
      dl_test_boot ();
      booted = true;
    }
  return 0;
}

struct source
{
  const char *text;
};

static dl_obj
eval_source (void *data)
{
  const struct source *s = data;
  return dl_eval_text (s->text, strlen (s->text), "test");
}

dl_obj
dlt_eval (const char *source)
{
  struct source s = { source };
  dl_obj result;
  if (!dl_protect (eval_source, &s, &result))
    fail_msg ("Lisp error in `%s': %s", source, dlt_print (result));
  return result;
}

dl_obj
dlt_eval_error (const char *source)
{
  struct source s = { source };
  dl_obj result;
  if (dl_protect (eval_source, &s, &result))
    fail_msg ("expected an error from `%s', got %s", source, dlt_print (result));
  return result;
}

const char *
dlt_print (dl_obj x)
{
  static struct dl_buf b;
  b.len = 0;
  dl_print (&b, x, true);
  return b.data ? b.data : "";
}
