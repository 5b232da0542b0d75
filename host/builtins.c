/* SPDX-License-Identifier: MIT */
/* host/builtins.c: installing the builtin tables, the standard errors
   and the character class table.

   Owns: the once-only init that makes each static C builtin the
   function of its symbol (the heap then points into the executable's
   static data), the error symbols' conditions and messages, and
   dl_char_class, a C static table computed at init and kept across
   dumps with DUMPER_REMEMBER_SCALAR.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "lisp.h"

unsigned char dl_char_class[256];

static void
compute_char_classes (void)
{
  for (int c = 0; c < 256; c++)
    {
      unsigned char k = 0;
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
        k |= DL_CC_SPACE;
      if (c >= '0' && c <= '9')
        k |= DL_CC_DIGIT;
      if (c >= 'A' && c <= 'Z')
        k |= DL_CC_ALPHA | DL_CC_UPPER;
      if (c >= 'a' && c <= 'z')
        k |= DL_CC_ALPHA | DL_CC_LOWER;
      if (c >= 0x21 && c < 0x7F && !(k & (DL_CC_ALPHA | DL_CC_DIGIT)))
        k |= DL_CC_PUNCT;
      if ((k & (DL_CC_ALPHA | DL_CC_DIGIT)) || (c && __builtin_strchr ("-+*/_<>=!?$%&:", c)))
        k |= DL_CC_SYMBOL;
      dl_char_class[c] = k;
    }
}

static void
install (const struct dl_builtin *table, size_t count)
{
  for (size_t i = 0; i < count; i++)
    {
      dl_obj sym = dl_intern_c (table[i].name);
      dl_xsym (sym)->function = dl_make (&table[i], DL_TAG_BUILTIN);
    }
}

struct error_def
{
  int sym;                 /* enum dl_sym_index */
  int parent;              /* -1: error itself */
  const char *message;
};

static const struct error_def error_defs[] = {
  { DL_SYM_error, -1, "error" },
  { DL_SYM_quit, -2, "Quit" },
  { DL_SYM_user_error, DL_SYM_error, "" },
  { DL_SYM_wrong_type_argument, DL_SYM_error, "Wrong type argument" },
  { DL_SYM_args_out_of_range, DL_SYM_error, "Args out of range" },
  { DL_SYM_void_variable, DL_SYM_error, "Symbol's value as variable is void" },
  { DL_SYM_void_function, DL_SYM_error, "Symbol's function definition is void" },
  { DL_SYM_invalid_function, DL_SYM_error, "Invalid function" },
  { DL_SYM_wrong_number_of_arguments, DL_SYM_error, "Wrong number of arguments" },
  { DL_SYM_setting_constant, DL_SYM_error, "Attempt to set a constant symbol" },
  { DL_SYM_arith_error, DL_SYM_error, "Arithmetic error" },
  { DL_SYM_overflow_error, DL_SYM_arith_error, "Arithmetic overflow error" },
  { DL_SYM_invalid_read_syntax, DL_SYM_error, "Invalid read syntax" },
  { DL_SYM_end_of_file, DL_SYM_error, "End of file during parsing" },
  { DL_SYM_file_error, DL_SYM_error, "File error" },
  { DL_SYM_no_catch, DL_SYM_error, "No catch for tag" },
  { DL_SYM_excessive_depth, DL_SYM_error, "Lisp nesting exceeds `max-lisp-eval-depth'" },
};

static void
define_errors (void)
{
  for (size_t i = 0; i < sizeof error_defs / sizeof error_defs[0]; i++)
    {
      const struct error_def *d = &error_defs[i];
      dl_obj sym = dl_syms[d->sym];
      dl_obj conditions = dl_list (1, sym);
      if (d->parent >= 0)
        conditions = dl_cons (sym, dl_get (dl_syms[d->parent],
                                            DL_Q (error_conditions)));
      dl_put (sym, DL_Q (error_conditions), conditions);
      dl_put (sym, DL_Q (error_message), dl_make_cstring (d->message));
    }
}

void
dl_builtins_init (void)
{
  install (dl_eval_builtins, dl_eval_builtin_count);
  install (dl_data_builtins, dl_data_builtin_count);
  install (dl_list_builtins, dl_list_builtin_count);
  install (dl_string_builtins, dl_string_builtin_count);
  install (dl_io_builtins, dl_io_builtin_count);
  define_errors ();
  compute_char_classes ();
  if (DUMPER_REMEMBER_SCALAR (dl_char_class) != DUMPER_OK)
    {
      fprintf (stderr, "dlisp: fatal: cannot register the character table: %s\n",
               dumper_error_detail ());
      exit (71);
    }
}
