/* SPDX-License-Identifier: MIT */
/* c6-purify.c -- issue 18, class 6 (minimal): Vpurify_flag as a value,
   as purecopy mode, as a bootstrap guard, and as a real dump test.  */

#include <stdbool.h>

typedef long Lisp_Object;
#define NILP(x) ((x) == 0)
extern Lisp_Object Vpurify_flag, Vautoload_queue, Qt;
extern Lisp_Object Fpurecopy (Lisp_Object);
extern Lisp_Object Fcons (Lisp_Object, Lisp_Object);
extern void c6_record (bool);
extern void c6_clear_dump_caches (void);

bool c6_saved_purify;

Lisp_Object
c6_defvar (Lisp_Object value)
{
  /* Value uses: passed on, stored, compared.  Not dump tests.  */
  c6_record (!NILP (Vpurify_flag));
  c6_saved_purify = !NILP (Vpurify_flag);
  if (Vpurify_flag == Qt)
    c6_record (true);
  /* Purecopy mode, not `about to dump'.  */
  if (!NILP (Vpurify_flag))
    value = Fpurecopy (value);
  return value;
}

void
c6_autoload (Lisp_Object fun)
{
  /* During loadup, record the autoload (a bootstrap dump needs it).  */
  if (!NILP (Vpurify_flag))
    Vautoload_queue = Fcons (fun, Vautoload_queue);
}

void
c6_garbage_collect (void)
{
  if (!NILP (Vpurify_flag))
    c6_clear_dump_caches ();
}
