/* SPDX-License-Identifier: MIT */
/* tests/host/harness.h: helpers shared by dlisp's unit tests.

   Boots the runtime once per test program (no image, no loadup), and
   evaluates source text with errors turned into test failures or
   returned as values.  */

#ifndef DLISP_TEST_HARNESS_H
#define DLISP_TEST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lisp.h"

/* Boot the runtime (once); cmocka group setup.  */
int dlt_setup (void **state);

/* Evaluate every form of SOURCE; fail the test on a Lisp error.  */
dl_obj dlt_eval (const char *source);

/* Evaluate SOURCE expecting an error; return (ERROR-SYMBOL . DATA), or
   fail the test when it returns normally.  */
dl_obj dlt_eval_error (const char *source);

/* The prin1 text of X, in a static buffer valid until the next call.  */
const char *dlt_print (dl_obj x);

/* Assert that SOURCE evaluates to an object printing as EXPECTED.  */
#define dlt_assert_eval(source, expected) \
  assert_string_equal (dlt_print (dlt_eval (source)), expected)

#endif
