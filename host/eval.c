/* SPDX-License-Identifier: MIT */
/* host/eval.c: the dlisp evaluator.

   Owns: evaluation of forms, function calls (builtins, closures), the
   special forms, lexical environments, dynamic binding (the specpdl),
   non-local exits (catch/throw, signals caught by condition-case or by
   C code through dl_protect, unwind-protect) and the value stack the GC
   scans.

   Environments are alists of (SYMBOL . VALUE) conses: a closure
   captures the alist, `setq' of a lexical variable writes its cons.
   Variables declared with defvar/defconst are special: `let' binds them
   dynamically through the specpdl, which unwinding restores.

   GC safety: a collection runs only at the entry of dl_eval and
   dl_funcall (when enough was allocated).  At those points every live
   value is reachable from the roots because of one rule: C code here
   keeps on the value stack (dl_push) every value it still needs after a
   call that can evaluate.  dl_eval pushes its form and environment, a
   call pushes the function and its evaluated arguments.  Builtins that
   do not evaluate need no care: allocation never collects.

   Handlers live in the C frames that establish them (catch,
   condition-case, dl_protect) and are chained through `handler_top';
   the chain is empty whenever a dump is written.  */

#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lisp.h"

/* ------------------------------------------------------------------ */
/* The value stack.  */

dl_obj *dl_vstack;
size_t dl_vstack_top;

size_t
dl_push (dl_obj x)
{
  if (dl_vstack_top >= DL_VSTACK_SIZE)
    dl_signal (DL_Q (excessive_depth),
               dl_list (1, dl_make_cstring ("value stack overflow")));
  dl_vstack[dl_vstack_top] = x;
  return dl_vstack_top++;
}

/* ------------------------------------------------------------------ */
/* The specpdl: dynamic bindings and unwind actions.  */

enum spec_kind { SPEC_LET, SPEC_UNWIND_FORMS, SPEC_UNWIND_C };

struct specbinding
{
  enum spec_kind kind;
  dl_obj sym;             /* LET: the symbol; FORMS: the forms */
  dl_obj old;             /* LET: the old value; FORMS: the environment */
  void (*fn) (void *);    /* UNWIND_C */
  void *arg;
};

#define SPECPDL_SIZE 16384
static struct specbinding *specpdl;
static size_t specpdl_top;

/* ------------------------------------------------------------------ */
/* Handlers.  */

enum handler_kind { H_CATCH, H_CONDITION_CASE, H_PROTECT };

struct handler
{
  enum handler_kind kind;
  dl_obj tag;             /* CATCH: the tag; CONDITION_CASE: the clauses */
  dl_obj value;           /* thrown value or error, after the jump */
  size_t vstack_top;
  size_t specpdl_top;
  int eval_depth;
  struct handler *next;
  jmp_buf jump;
};

static struct handler *handler_top;
static int eval_depth;
static int max_depth_seen;

void
dl_eval_init_stacks (void)
{
  /* From dumper_alloc: an unexec'd executable keeps the block, a pdump
     start has a NULL pointer here and allocates it.  */
  if (dl_vstack == NULL)
    dl_vstack = dumper_alloc (DL_VSTACK_SIZE * sizeof *dl_vstack);
  if (specpdl == NULL)
    specpdl = dumper_alloc (SPECPDL_SIZE * sizeof *specpdl);
  if (dl_vstack == NULL || specpdl == NULL)
    {
      fprintf (stderr, "dlisp: fatal: cannot allocate the evaluator stacks\n");
      exit (71);
    }
  dl_eval_reset ();
}

void
dl_eval_reset (void)
{
  dl_vstack_top = 0;
  specpdl_top = 0;
  handler_top = NULL;
  eval_depth = 0;
}

void
dl_eval_visit_roots (dl_root_visitor visit, void *data)
{
  for (size_t i = 0; i < dl_vstack_top; i++)
    visit (&dl_vstack[i], data);
  for (size_t i = 0; i < specpdl_top; i++)
    if (specpdl[i].kind != SPEC_UNWIND_C)
      {
        visit (&specpdl[i].sym, data);
        visit (&specpdl[i].old, data);
      }
  for (struct handler *h = handler_top; h; h = h->next)
    {
      visit (&h->tag, data);
      visit (&h->value, data);
    }
}

size_t
dl_specpdl_depth (void)
{
  return specpdl_top;
}

static struct specbinding *
specpdl_push (enum spec_kind kind)
{
  if (specpdl_top >= SPECPDL_SIZE)
    dl_signal (DL_Q (excessive_depth),
               dl_list (1, dl_make_cstring ("binding stack overflow")));
  struct specbinding *b = &specpdl[specpdl_top++];
  memset (b, 0, sizeof *b);
  b->kind = kind;
  return b;
}

void
dl_specbind (dl_obj sym, dl_obj value)
{
  struct specbinding *b = specpdl_push (SPEC_LET);
  b->sym = sym;
  b->old = dl_xsym (sym)->value;
  dl_xsym (sym)->value = value;
}

void
dl_record_unwind (void (*fn) (void *), void *arg)
{
  struct specbinding *b = specpdl_push (SPEC_UNWIND_C);
  b->fn = fn;
  b->arg = arg;
}

static void
record_unwind_forms (dl_obj forms, dl_obj env)
{
  struct specbinding *b = specpdl_push (SPEC_UNWIND_FORMS);
  b->sym = forms;
  b->old = env;
}

void
dl_unbind_to (size_t depth)
{
  while (specpdl_top > depth)
    {
      struct specbinding b = specpdl[specpdl_top - 1];
      switch (b.kind)
        {
        case SPEC_LET:
          specpdl_top--;
          dl_xsym (b.sym)->value = b.old;
          break;
        case SPEC_UNWIND_C:
          specpdl_top--;
          b.fn (b.arg);
          break;
        case SPEC_UNWIND_FORMS:
          {
            /* Keep forms and environment reachable while they run.  */
            size_t top = dl_vstack_top;
            dl_push (b.sym);
            dl_push (b.old);
            specpdl_top--;
            dl_progn (b.sym, b.old);
            dl_pop_to (top);
            break;
          }
        }
    }
}

/* ------------------------------------------------------------------ */
/* Non-local exits.  */

_Noreturn static void
unwind_to (struct handler *h, dl_obj value)
{
  h->value = value;
  /* Errors inside unwind forms go to H or outer handlers.  */
  handler_top = h;
  dl_unbind_to (h->specpdl_top);
  dl_vstack_top = h->vstack_top;
  eval_depth = h->eval_depth;
  longjmp (h->jump, 1);
}

static bool
condition_matches (dl_obj spec, dl_obj conditions)
{
  if (spec == Qt)
    return true;
  if (dl_symbolp (spec))
    return dl_memq (spec, conditions) != Qnil;
  for (; dl_consp (spec); spec = dl_cdr_unsafe (spec))
    if (dl_memq (dl_car_unsafe (spec), conditions) != Qnil)
      return true;
  return false;
}

/* The first clause of a condition-case that handles ERROR_SYMBOL.  */
static dl_obj
find_clause (dl_obj clauses, dl_obj error_symbol)
{
  dl_obj conditions = dl_get (error_symbol, DL_Q (error_conditions));
  for (; dl_consp (clauses); clauses = dl_cdr_unsafe (clauses))
    {
      dl_obj clause = dl_car_unsafe (clauses);
      if (dl_consp (clause) && condition_matches (dl_car_unsafe (clause),
                                                  conditions))
        return clause;
    }
  return Qnil;
}

_Noreturn void
dl_signal (dl_obj error_symbol, dl_obj data)
{
  dl_obj err = dl_cons (error_symbol, data);
  for (struct handler *h = handler_top; h; h = h->next)
    {
      if (h->kind == H_PROTECT
          || (h->kind == H_CONDITION_CASE
              && find_clause (h->tag, error_symbol) != Qnil))
        unwind_to (h, err);
    }
  /* Main always runs Lisp inside dl_protect, so this is a host bug.  */
  fprintf (stderr, "dlisp: fatal: error signalled outside any handler\n");
  abort ();
}

_Noreturn void
dl_error (const char *fmt, ...)
{
  char message[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (message, sizeof message, fmt, ap);
  va_end (ap);
  dl_signal (DL_Q (error), dl_list (1, dl_make_cstring (message)));
}

_Noreturn void
dl_wrong_type (const char *predicate, dl_obj x)
{
  dl_signal (DL_Q (wrong_type_argument),
             dl_list (2, dl_intern_c (predicate), x));
}

_Noreturn void
dl_throw (dl_obj tag, dl_obj value)
{
  for (struct handler *h = handler_top; h; h = h->next)
    if (h->kind == H_CATCH && h->tag == tag)
      unwind_to (h, value);
  dl_signal (DL_Q (no_catch), dl_list (2, tag, value));
}

static void
handler_init (struct handler *h, enum handler_kind kind, dl_obj tag)
{
  h->kind = kind;
  h->tag = tag;
  h->value = Qnil;
  h->vstack_top = dl_vstack_top;
  h->specpdl_top = specpdl_top;
  h->eval_depth = eval_depth;
  h->next = handler_top;
}

bool
dl_protect (dl_obj (*body) (void *), void *data, dl_obj *result)
{
  struct handler h;
  handler_init (&h, H_PROTECT, Qnil);
  if (setjmp (h.jump) != 0)
    {
      handler_top = h.next;
      *result = h.value;
      return false;
    }
  handler_top = &h;
  dl_obj value = body (data);
  handler_top = h.next;
  *result = value;
  return true;
}

/* ------------------------------------------------------------------ */
/* Variables.  */

static dl_obj
lexical_binding (dl_obj sym, dl_obj env)
{
  for (; dl_consp (env); env = dl_cdr_unsafe (env))
    {
      dl_obj binding = dl_car_unsafe (env);
      if (dl_car_unsafe (binding) == sym)
        return binding;
    }
  return Qnil;
}

dl_obj
dl_value (dl_obj sym, dl_obj env)
{
  if (!(dl_xsym (sym)->h.flags & DL_F_SPECIAL))
    {
      dl_obj binding = lexical_binding (sym, env);
      if (binding != Qnil)
        return dl_cdr_unsafe (binding);
    }
  dl_obj v = dl_xsym (sym)->value;
  if (v == DL_UNBOUND)
    dl_signal (DL_Q (void_variable), dl_list (1, sym));
  return v;
}

void
dl_set (dl_obj sym, dl_obj value)
{
  dl_check_symbol (sym);
  if (dl_xsym (sym)->h.flags & DL_F_CONSTANT)
    dl_signal (DL_Q (setting_constant), dl_list (1, sym));
  dl_xsym (sym)->value = value;
}

static void
setq_1 (dl_obj sym, dl_obj value, dl_obj env)
{
  dl_check_symbol (sym);
  if (!(dl_xsym (sym)->h.flags & DL_F_SPECIAL))
    {
      dl_obj binding = lexical_binding (sym, env);
      if (binding != Qnil)
        {
          dl_xcons (binding)->cdr = value;
          return;
        }
    }
  dl_set (sym, value);
}

/* ------------------------------------------------------------------ */
/* Calls.  */

dl_obj
dl_indirect_function (dl_obj fn)
{
  for (int i = 0; i < 100 && dl_symbolp (fn) && fn != Qnil; i++)
    fn = dl_xsym (fn)->function;
  return fn;
}

static void
enter (void)
{
  dl_obj limit = dl_xsym (DL_Q (max_lisp_eval_depth))->value;
  int64_t max = dl_fixnump (limit) ? dl_fixval (limit) : 1600;
  if (++eval_depth > max)
    {
      /* Leave room for the handlers to run.  */
      eval_depth -= 50;
      dl_signal (DL_Q (excessive_depth),
                 dl_list (1, dl_make_cstring ("max-lisp-eval-depth exceeded")));
    }
  if (eval_depth > max_depth_seen)
    max_depth_seen = eval_depth;
}

_Noreturn static void
wrong_args (dl_obj fn, size_t nargs)
{
  dl_signal (DL_Q (wrong_number_of_arguments),
             dl_list (2, fn, dl_fix ((int64_t) nargs)));
}

/* Bind PARAMS to ARGS in ENV (lexical) or the specpdl (special).  */
static dl_obj
bind_params (dl_obj fn, dl_obj params, size_t nargs, dl_obj *args, dl_obj env)
{
  size_t slot = dl_push (env);
  size_t i = 0;
  bool optional = false, rest = false;
  for (; dl_consp (params); params = dl_cdr_unsafe (params))
    {
      dl_obj p = dl_car_unsafe (params);
      if (p == DL_Q (and_optional))
        {
          optional = true;
          continue;
        }
      if (p == DL_Q (and_rest))
        {
          rest = true;
          continue;
        }
      dl_obj value;
      if (rest)
        {
          value = Qnil;
          for (size_t j = nargs; j > i; j--)
            value = dl_cons (args[j - 1], value);
          i = nargs;
        }
      else if (i < nargs)
        value = args[i++];
      else if (optional)
        value = Qnil;
      else
        wrong_args (fn, nargs);
      if (!dl_symbolp (p))
        dl_wrong_type ("symbolp", p);
      if (dl_xsym (p)->h.flags & DL_F_SPECIAL)
        dl_specbind (p, value);
      else
        dl_vstack[slot] = dl_cons (dl_cons (p, value), dl_vstack[slot]);
      if (rest)
        break;
    }
  if (i < nargs)
    wrong_args (fn, nargs);
  return dl_vstack[slot];
}

static dl_obj
apply_lambda (dl_obj fn, dl_obj params, dl_obj body, dl_obj env,
              size_t nargs, dl_obj *args)
{
  size_t count = specpdl_top;
  size_t top = dl_vstack_top;
  enter ();
  env = bind_params (fn, params, nargs, args, env);
  dl_obj result = dl_progn (body, env);
  dl_unbind_to (count);
  dl_pop_to (top);
  eval_depth--;
  return result;
}

static dl_obj
call_builtin (dl_obj fn, size_t nargs, dl_obj *args)
{
  const struct dl_builtin *b = dl_xbuiltin (fn);
  if (b->max_args == DL_UNEVALLED)
    dl_signal (DL_Q (invalid_function), dl_list (1, fn));
  if ((int64_t) nargs < b->min_args
      || (b->max_args != DL_MANY && (int64_t) nargs > b->max_args))
    wrong_args (fn, nargs);
  if (b->max_args != DL_MANY && (int64_t) nargs < b->max_args)
    {
      /* Missing optional arguments are nil.  */
      dl_obj padded[8];
      if (b->max_args > 8)
        abort ();
      for (int i = 0; i < b->max_args; i++)
        padded[i] = (size_t) i < nargs ? args[i] : Qnil;
      return b->fn ((size_t) b->max_args, padded);
    }
  return b->fn (nargs, args);
}

dl_obj
dl_funcall (dl_obj fn, size_t nargs, dl_obj *args)
{
  if (dl_gc_needed ())
    dl_gc ();
  dl_obj f = dl_indirect_function (fn);
  if (dl_builtinp (f))
    return call_builtin (f, nargs, args);
  if (dl_closurep (f))
    {
      struct dl_closure *c = dl_xclosure (f);
      return apply_lambda (f, c->params, c->body, c->env, nargs, args);
    }
  if (dl_consp (f) && dl_car_unsafe (f) == DL_Q (lambda)
      && dl_consp (dl_cdr_unsafe (f)))
    {
      dl_obj rest = dl_cdr_unsafe (f);
      return apply_lambda (f, dl_car_unsafe (rest), dl_cdr_unsafe (rest), Qnil,
                           nargs, args);
    }
  if (f == DL_UNBOUND || f == Qnil)
    dl_signal (DL_Q (void_function), dl_list (1, fn));
  dl_signal (DL_Q (invalid_function), dl_list (1, fn));
}

/* ------------------------------------------------------------------ */
/* Macros.  */

dl_obj
dl_macroexpand_1 (dl_obj form, bool *expanded)
{
  *expanded = false;
  if (!dl_consp (form) || !dl_symbolp (dl_car_unsafe (form)))
    return form;
  dl_obj m = dl_indirect_function (dl_car_unsafe (form));
  if (!dl_macrop (m))
    return form;
  *expanded = true;
  size_t top = dl_vstack_top;
  dl_push (form);
  dl_push (m);
  size_t base = dl_vstack_top;
  size_t n = 0;
  for (dl_obj a = dl_cdr_unsafe (form); dl_consp (a); a = dl_cdr_unsafe (a), n++)
    dl_push (dl_car_unsafe (a));
  dl_obj result = dl_funcall (dl_xmacro (m)->expander, n, &dl_vstack[base]);
  dl_pop_to (top);
  return result;
}

dl_obj
dl_macroexpand (dl_obj form)
{
  bool expanded = true;
  while (expanded)
    form = dl_macroexpand_1 (form, &expanded);
  return form;
}

/* ------------------------------------------------------------------ */
/* Evaluation.  */

static dl_obj
eval_call (dl_obj form, dl_obj head, dl_obj fn, dl_obj env)
{
  size_t top = dl_vstack_top;
  dl_push (fn);
  size_t base = dl_vstack_top;
  size_t n = 0;
  for (dl_obj a = dl_cdr_unsafe (form); dl_consp (a); a = dl_cdr_unsafe (a), n++)
    {
      dl_obj v = dl_eval (dl_car_unsafe (a), env);
      dl_push (v);
    }
  dl_obj result;
  if (dl_builtinp (fn))
    result = call_builtin (fn, n, &dl_vstack[base]);
  else
    result = dl_funcall (fn == DL_UNBOUND ? head : fn, n, &dl_vstack[base]);
  dl_pop_to (top);
  return result;
}

dl_obj
dl_eval (dl_obj form, dl_obj env)
{
  if (dl_symbolp (form))
    {
      if (form == Qnil || form == Qt)
        return form;
      return dl_value (form, env);
    }
  if (!dl_consp (form))
    return form;

  size_t top = dl_vstack_top;
  dl_push (form);
  dl_push (env);
  if (dl_gc_needed ())
    dl_gc ();
  enter ();

  dl_obj head = dl_car_unsafe (form);
  dl_obj result;
  if (dl_symbolp (head))
    {
      dl_obj fn = dl_indirect_function (head);
      if (dl_builtinp (fn) && dl_xbuiltin (fn)->max_args == DL_UNEVALLED)
        result = dl_xbuiltin (fn)->special (dl_cdr_unsafe (form), env);
      else if (dl_macrop (fn))
        {
          /* Expand once: the call is displaced by (progn EXPANSION), so
             code run in loops is not expanded again (like Emacs's eager
             macro expansion, a redefined macro does not affect code that
             already ran).  */
          bool expanded;
          dl_obj expansion = dl_macroexpand_1 (form, &expanded);
          dl_xcons (form)->car = DL_Q (progn);
          dl_xcons (form)->cdr = dl_cons (expansion, Qnil);
          result = dl_eval (expansion, env);
        }
      else if (fn == DL_UNBOUND || fn == Qnil)
        dl_signal (DL_Q (void_function), dl_list (1, head));
      else
        result = eval_call (form, head, fn, env);
    }
  else if (dl_consp (head) && dl_car_unsafe (head) == DL_Q (lambda))
    {
      dl_obj rest = dl_cdr_unsafe (head);
      dl_obj closure = dl_make_closure (dl_car (rest), dl_cdr (rest), env, Qnil);
      result = eval_call (form, head, closure, env);
    }
  else
    dl_signal (DL_Q (invalid_function), dl_list (1, head));

  eval_depth--;
  dl_pop_to (top);
  return result;
}

dl_obj
dl_progn (dl_obj body, dl_obj env)
{
  dl_obj result = Qnil;
  for (; dl_consp (body); body = dl_cdr_unsafe (body))
    result = dl_eval (dl_car_unsafe (body), env);
  return result;
}

/* ------------------------------------------------------------------ */
/* Special forms.  ARGS is the form's cdr, protected by dl_eval.  */

static dl_obj
nth_arg (dl_obj args, int n)
{
  for (; n > 0 && dl_consp (args); n--)
    args = dl_cdr_unsafe (args);
  return dl_consp (args) ? dl_car_unsafe (args) : Qnil;
}

static dl_obj
sf_quote (dl_obj args, dl_obj env)
{
  (void) env;
  return dl_car (args);
}

static dl_obj
make_lambda (dl_obj lambda_cdr, dl_obj env, dl_obj name)
{
  return dl_make_closure (dl_car (lambda_cdr), dl_cdr (lambda_cdr), env, name);
}

static dl_obj
sf_function (dl_obj args, dl_obj env)
{
  dl_obj f = dl_car (args);
  if (dl_consp (f) && dl_car_unsafe (f) == DL_Q (lambda))
    return make_lambda (dl_cdr_unsafe (f), env, Qnil);
  return f;
}

static dl_obj
sf_lambda (dl_obj args, dl_obj env)
{
  return make_lambda (args, env, Qnil);
}

static dl_obj
sf_if (dl_obj args, dl_obj env)
{
  if (dl_eval (dl_car (args), env) != Qnil)
    return dl_eval (nth_arg (args, 1), env);
  return dl_progn (dl_cdr (dl_cdr (args)), env);
}

static dl_obj
sf_cond (dl_obj args, dl_obj env)
{
  for (; dl_consp (args); args = dl_cdr_unsafe (args))
    {
      dl_obj clause = dl_car_unsafe (args);
      dl_obj v = dl_eval (dl_car (clause), env);
      if (v != Qnil)
        return dl_consp (dl_cdr (clause)) ? dl_progn (dl_cdr (clause), env) : v;
    }
  return Qnil;
}

static dl_obj
sf_and (dl_obj args, dl_obj env)
{
  dl_obj v = Qt;
  for (; dl_consp (args); args = dl_cdr_unsafe (args))
    if ((v = dl_eval (dl_car_unsafe (args), env)) == Qnil)
      return Qnil;
  return v;
}

static dl_obj
sf_or (dl_obj args, dl_obj env)
{
  for (; dl_consp (args); args = dl_cdr_unsafe (args))
    {
      dl_obj v = dl_eval (dl_car_unsafe (args), env);
      if (v != Qnil)
        return v;
    }
  return Qnil;
}

static dl_obj
sf_progn (dl_obj args, dl_obj env)
{
  return dl_progn (args, env);
}

static dl_obj
sf_prog1 (dl_obj args, dl_obj env)
{
  size_t top = dl_vstack_top;
  size_t slot = dl_push (dl_eval (dl_car (args), env));
  dl_progn (dl_cdr (args), env);
  dl_obj result = dl_vstack[slot];
  dl_pop_to (top);
  return result;
}

static dl_obj
sf_setq (dl_obj args, dl_obj env)
{
  dl_obj v = Qnil;
  while (dl_consp (args))
    {
      dl_obj sym = dl_car_unsafe (args);
      dl_obj rest = dl_cdr_unsafe (args);
      if (!dl_consp (rest))
        dl_signal (DL_Q (wrong_number_of_arguments),
                   dl_list (2, dl_intern_c ("setq"), sym));
      v = dl_eval (dl_car_unsafe (rest), env);
      setq_1 (sym, v, env);
      args = dl_cdr_unsafe (rest);
    }
  return v;
}

static dl_obj
sf_while (dl_obj args, dl_obj env)
{
  dl_obj test = dl_car (args), body = dl_cdr (args);
  while (dl_eval (test, env) != Qnil)
    dl_progn (body, env);
  return Qnil;
}

/* Split a binding (VAR INIT) or VAR.  */
static dl_obj
binding_var (dl_obj binding, dl_obj *init)
{
  if (dl_symbolp (binding))
    {
      *init = Qnil;
      return binding;
    }
  *init = nth_arg (binding, 1);
  return dl_check_symbol (dl_car (binding));
}

static dl_obj
bind (dl_obj sym, dl_obj value, dl_obj env)
{
  if (dl_xsym (sym)->h.flags & DL_F_SPECIAL)
    {
      dl_specbind (sym, value);
      return env;
    }
  return dl_cons (dl_cons (sym, value), env);
}

static dl_obj
sf_let (dl_obj args, dl_obj env)
{
  size_t top = dl_vstack_top;
  size_t count = specpdl_top;
  dl_obj bindings = dl_car (args);
  /* Evaluate every init in the outer environment first.  */
  size_t base = dl_vstack_top;
  for (dl_obj b = bindings; dl_consp (b); b = dl_cdr_unsafe (b))
    {
      dl_obj init;
      binding_var (dl_car_unsafe (b), &init);
      dl_obj v = dl_eval (init, env);
      dl_push (v);
    }
  dl_obj inner = env;
  size_t i = base;
  for (dl_obj b = bindings; dl_consp (b); b = dl_cdr_unsafe (b))
    {
      dl_obj init;
      inner = bind (binding_var (dl_car_unsafe (b), &init), dl_vstack[i++], inner);
    }
  dl_push (inner);
  dl_obj result = dl_progn (dl_cdr (args), inner);
  dl_unbind_to (count);
  dl_pop_to (top);
  return result;
}

static dl_obj
sf_let_star (dl_obj args, dl_obj env)
{
  size_t top = dl_vstack_top;
  size_t count = specpdl_top;
  size_t slot = dl_push (env);
  for (dl_obj b = dl_car (args); dl_consp (b); b = dl_cdr_unsafe (b))
    {
      dl_obj init;
      dl_obj sym = binding_var (dl_car_unsafe (b), &init);
      dl_obj v = dl_eval (init, dl_vstack[slot]);
      dl_vstack[slot] = bind (sym, v, dl_vstack[slot]);
    }
  dl_obj result = dl_progn (dl_cdr (args), dl_vstack[slot]);
  dl_unbind_to (count);
  dl_pop_to (top);
  return result;
}

static dl_obj
sf_defun (dl_obj args, dl_obj env)
{
  dl_obj name = dl_check_symbol (dl_car (args));
  dl_obj closure = make_lambda (dl_cdr (args), env, name);
  dl_xsym (name)->function = closure;
  return name;
}

static dl_obj
sf_defmacro (dl_obj args, dl_obj env)
{
  dl_obj name = dl_check_symbol (dl_car (args));
  dl_obj closure = make_lambda (dl_cdr (args), env, name);
  dl_xsym (name)->function = dl_make_macro (closure, name);
  return name;
}

static dl_obj
define_variable (dl_obj args, dl_obj env, bool always)
{
  dl_obj sym = dl_check_symbol (dl_car (args));
  dl_xsym (sym)->h.flags |= DL_F_SPECIAL;
  dl_obj rest = dl_cdr (args);
  if (dl_consp (rest) && (always || dl_xsym (sym)->value == DL_UNBOUND))
    {
      dl_obj v = dl_eval (dl_car_unsafe (rest), env);
      dl_set (sym, v);
    }
  dl_obj doc = nth_arg (rest, 1);
  if (dl_stringp (doc))
    dl_put (sym, DL_Q (variable_documentation), doc);
  return sym;
}

static dl_obj
sf_defvar (dl_obj args, dl_obj env)
{
  return define_variable (args, env, false);
}

static dl_obj
sf_defconst (dl_obj args, dl_obj env)
{
  return define_variable (args, env, true);
}

static dl_obj
sf_catch (dl_obj args, dl_obj env)
{
  dl_obj tag = dl_eval (dl_car (args), env);
  struct handler h;
  handler_init (&h, H_CATCH, tag);
  if (setjmp (h.jump) != 0)
    {
      handler_top = h.next;
      return h.value;
    }
  handler_top = &h;
  dl_obj result = dl_progn (dl_cdr (args), env);
  handler_top = h.next;
  return result;
}

static dl_obj
sf_unwind_protect (dl_obj args, dl_obj env)
{
  size_t count = specpdl_top;
  record_unwind_forms (dl_cdr (args), env);
  size_t top = dl_vstack_top;
  size_t slot = dl_push (dl_eval (dl_car (args), env));
  dl_unbind_to (count);
  dl_obj result = dl_vstack[slot];
  dl_pop_to (top);
  return result;
}

static dl_obj
sf_condition_case (dl_obj args, dl_obj env)
{
  dl_obj var = dl_check_symbol (dl_car (args));
  dl_obj body = nth_arg (args, 1);
  dl_obj clauses = dl_cdr (dl_cdr (args));
  struct handler h;
  handler_init (&h, H_CONDITION_CASE, clauses);
  if (setjmp (h.jump) != 0)
    {
      handler_top = h.next;
      dl_obj err = h.value;
      size_t top = dl_vstack_top;
      size_t count = specpdl_top;
      dl_push (err);
      dl_obj clause = find_clause (clauses, dl_car_unsafe (err));
      dl_obj inner = env;
      if (var != Qnil)
        inner = bind (var, err, env);
      dl_push (inner);
      dl_obj result = dl_progn (dl_cdr (clause), inner);
      dl_unbind_to (count);
      dl_pop_to (top);
      return result;
    }
  handler_top = &h;
  dl_obj result = dl_eval (body, env);
  handler_top = h.next;
  return result;
}

/* Backquote: `X with ,Y and ,@Y at nesting DEPTH.  */
static dl_obj backquote (dl_obj x, dl_obj env, int depth);

static bool
is_unquote (dl_obj x, dl_obj which)
{
  return dl_consp (x) && dl_car_unsafe (x) == which
         && dl_consp (dl_cdr_unsafe (x));
}

static dl_obj
backquote_list (dl_obj x, dl_obj env, int depth)
{
  size_t top = dl_vstack_top;
  size_t acc = dl_push (Qnil);      /* reversed result */
  size_t tail = dl_push (Qnil);     /* dotted tail */
  while (dl_consp (x))
    {
      if (is_unquote (x, DL_Q (comma)) || is_unquote (x, DL_Q (backquote)))
        {
          /* `(a . ,b): the rest is itself an unquote.  */
          dl_vstack[tail] = backquote (x, env, depth);
          x = Qnil;
          break;
        }
      dl_obj elt = dl_car_unsafe (x);
      if (depth == 1 && is_unquote (elt, DL_Q (comma_at)))
        {
          dl_obj spliced = dl_eval (nth_arg (elt, 1), env);
          for (; dl_consp (spliced); spliced = dl_cdr_unsafe (spliced))
            dl_vstack[acc] = dl_cons (dl_car_unsafe (spliced), dl_vstack[acc]);
        }
      else
        {
          dl_obj v = backquote (elt, env, depth);
          dl_vstack[acc] = dl_cons (v, dl_vstack[acc]);
        }
      x = dl_cdr_unsafe (x);
    }
  if (x != Qnil)
    dl_vstack[tail] = x;
  dl_obj result = dl_vstack[tail];
  for (dl_obj l = dl_vstack[acc]; dl_consp (l); l = dl_cdr_unsafe (l))
    result = dl_cons (dl_car_unsafe (l), result);
  dl_pop_to (top);
  return result;
}

static dl_obj
backquote (dl_obj x, dl_obj env, int depth)
{
  if (dl_vectorp (x))
    {
      size_t top = dl_vstack_top;
      dl_obj list = Qnil;
      struct dl_vector *v = dl_xvec (x);
      for (uint64_t i = v->size; i > 0; i--)
        list = dl_cons (v->items[i - 1], list);
      /* The template list is fresh: keep it while its parts evaluate.  */
      size_t slot = dl_push (list);
      dl_vstack[slot] = backquote_list (list, env, depth);
      size_t n = dl_list_length (dl_vstack[slot]);
      dl_obj out = dl_make_vector (n, Qnil);
      dl_obj l = dl_vstack[slot];
      for (size_t i = 0; i < n; i++, l = dl_cdr_unsafe (l))
        dl_xvec (out)->items[i] = dl_car_unsafe (l);
      dl_pop_to (top);
      return out;
    }
  if (!dl_consp (x))
    return x;
  dl_obj head = dl_car_unsafe (x);
  if (is_unquote (x, DL_Q (comma)))
    {
      if (depth == 1)
        return dl_eval (nth_arg (x, 1), env);
      return dl_list (2, head, backquote (nth_arg (x, 1), env, depth - 1));
    }
  if (is_unquote (x, DL_Q (backquote)))
    return dl_list (2, head, backquote (nth_arg (x, 1), env, depth + 1));
  return backquote_list (x, env, depth);
}

static dl_obj
sf_backquote (dl_obj args, dl_obj env)
{
  return backquote (dl_car (args), env, 1);
}

/* ------------------------------------------------------------------ */
/* Builtins that evaluate.  */

static dl_obj
f_funcall (size_t nargs, dl_obj *args)
{
  return dl_funcall (args[0], nargs - 1, args + 1);
}

static dl_obj
f_apply (size_t nargs, dl_obj *args)
{
  /* (apply F A B ... LIST) */
  size_t top = dl_vstack_top;
  size_t base = dl_vstack_top;
  for (size_t i = 1; i + 1 < nargs; i++)
    dl_push (args[i]);
  dl_obj last = nargs > 1 ? args[nargs - 1] : Qnil;
  for (; dl_consp (last); last = dl_cdr_unsafe (last))
    dl_push (dl_car_unsafe (last));
  dl_obj result = dl_funcall (args[0], dl_vstack_top - base, &dl_vstack[base]);
  dl_pop_to (top);
  return result;
}

static dl_obj
f_eval (size_t nargs, dl_obj *args)
{
  (void) nargs;
  return dl_eval (args[0], Qnil);
}

static dl_obj
f_signal (size_t nargs, dl_obj *args)
{
  (void) nargs;
  dl_signal (dl_check_symbol (args[0]), args[1]);
}

static dl_obj
f_throw (size_t nargs, dl_obj *args)
{
  (void) nargs;
  dl_throw (args[0], args[1]);
}

static dl_obj
f_error (size_t nargs, dl_obj *args)
{
  dl_signal (DL_Q (error), dl_list (1, dl_format (nargs, args)));
}

static dl_obj
f_macroexpand_1 (size_t nargs, dl_obj *args)
{
  (void) nargs;
  bool expanded;
  return dl_macroexpand_1 (args[0], &expanded);
}

static dl_obj
f_macroexpand (size_t nargs, dl_obj *args)
{
  (void) nargs;
  return dl_macroexpand (args[0]);
}

static dl_obj
f_mapcar (size_t nargs, dl_obj *args)
{
  (void) nargs;
  size_t top = dl_vstack_top;
  size_t acc = dl_push (Qnil);
  for (dl_obj l = args[1]; dl_consp (l); l = dl_cdr_unsafe (l))
    {
      dl_obj elt = dl_car_unsafe (l);
      dl_obj v = dl_funcall (args[0], 1, &elt);
      dl_vstack[acc] = dl_cons (v, dl_vstack[acc]);
    }
  dl_obj result = dl_nreverse (dl_vstack[acc]);
  dl_pop_to (top);
  return result;
}

static dl_obj
f_mapc (size_t nargs, dl_obj *args)
{
  (void) nargs;
  for (dl_obj l = args[1]; dl_consp (l); l = dl_cdr_unsafe (l))
    {
      dl_obj elt = dl_car_unsafe (l);
      dl_funcall (args[0], 1, &elt);
    }
  return args[1];
}

static dl_obj
f_maphash (size_t nargs, dl_obj *args)
{
  (void) nargs;
  dl_check (dl_hashp (args[1]), "hash-table-p", args[1]);
  struct dl_hash *h = dl_xhash (args[1]);
  /* Re-read the entries each step: the function may grow the table.  */
  for (uint64_t i = 0; i < h->used; i++)
    {
      dl_obj kv[2];
      struct dl_vector *e = dl_xvec (h->entries);
      kv[0] = e->items[2 * i];
      kv[1] = e->items[2 * i + 1];
      if (kv[0] == DL_UNBOUND)
        continue;
      size_t top = dl_vstack_top;
      size_t base = dl_push (kv[0]);
      dl_push (kv[1]);
      dl_funcall (args[0], 2, &dl_vstack[base]);
      dl_pop_to (top);
    }
  return Qnil;
}

static dl_obj
f_garbage_collect (size_t nargs, dl_obj *args)
{
  (void) nargs;
  (void) args;
  dl_gc ();
  return dl_list (2, dl_fix ((int64_t) dl_heap_stats.objects),
                  dl_fix ((int64_t) dl_heap_stats.bytes));
}

static dl_obj
f_define_error (size_t nargs, dl_obj *args)
{
  (void) nargs;
  dl_obj name = dl_check_symbol (args[0]);
  dl_obj parent = args[2] == Qnil ? DL_Q (error) : args[2];
  dl_obj conditions = dl_cons (name, dl_get (parent, DL_Q (error_conditions)));
  dl_put (name, DL_Q (error_conditions), conditions);
  dl_put (name, DL_Q (error_message), args[1]);
  return name;
}

static dl_obj
f_eval_depth (size_t nargs, dl_obj *args)
{
  (void) nargs;
  (void) args;
  return dl_fix (max_depth_seen);
}

const struct dl_builtin dl_eval_builtins[] = {
  DL_SPECIAL ("quote", sf_quote, "Return the argument, unevaluated."),
  DL_SPECIAL ("function", sf_function, "Like quote, but closes lambdas over the environment."),
  DL_SPECIAL ("lambda", sf_lambda, "Make a closure."),
  DL_SPECIAL ("if", sf_if, "(if COND THEN ELSE...)"),
  DL_SPECIAL ("cond", sf_cond, "(cond (TEST BODY...)...)"),
  DL_SPECIAL ("and", sf_and, "Evaluate until one is nil."),
  DL_SPECIAL ("or", sf_or, "Evaluate until one is non-nil."),
  DL_SPECIAL ("progn", sf_progn, "Evaluate in order, return the last."),
  DL_SPECIAL ("prog1", sf_prog1, "Evaluate in order, return the first."),
  DL_SPECIAL ("setq", sf_setq, "(setq SYM VAL SYM VAL...)"),
  DL_SPECIAL ("while", sf_while, "(while TEST BODY...)"),
  DL_SPECIAL ("let", sf_let, "(let ((VAR INIT)...) BODY...)"),
  DL_SPECIAL ("let*", sf_let_star, "(let* ((VAR INIT)...) BODY...), sequentially."),
  DL_SPECIAL ("defun", sf_defun, "(defun NAME ARGS [DOC] BODY...)"),
  DL_SPECIAL ("defmacro", sf_defmacro, "(defmacro NAME ARGS [DOC] BODY...)"),
  DL_SPECIAL ("defvar", sf_defvar, "(defvar SYM [VALUE [DOC]]): a special variable."),
  DL_SPECIAL ("defconst", sf_defconst, "(defconst SYM VALUE [DOC])"),
  DL_SPECIAL ("catch", sf_catch, "(catch TAG BODY...)"),
  DL_SPECIAL ("unwind-protect", sf_unwind_protect, "(unwind-protect FORM CLEANUP...)"),
  DL_SPECIAL ("condition-case", sf_condition_case, "(condition-case VAR FORM (CONDITION BODY...)...)"),
  DL_SPECIAL ("`", sf_backquote, "Backquote: a template with , and ,@."),
  DL_BUILTIN ("funcall", f_funcall, 1, DL_MANY, "Call FUNCTION with the arguments."),
  DL_BUILTIN ("apply", f_apply, 1, DL_MANY, "Call FUNCTION with the arguments, the last a list."),
  DL_BUILTIN ("eval", f_eval, 1, 2, "Evaluate FORM in the global environment."),
  DL_BUILTIN ("signal", f_signal, 2, 2, "Signal the error ERROR-SYMBOL with DATA."),
  DL_BUILTIN ("throw", f_throw, 2, 2, "Throw VALUE to the catch for TAG."),
  DL_BUILTIN ("error", f_error, 1, DL_MANY, "Signal an error with a formatted message."),
  DL_BUILTIN ("macroexpand-1", f_macroexpand_1, 1, 1, "Expand FORM's macro once."),
  DL_BUILTIN ("macroexpand", f_macroexpand, 1, 1, "Expand FORM's macros until it is not one."),
  DL_BUILTIN ("mapcar", f_mapcar, 2, 2, "List of FUNCTION applied to each element."),
  DL_BUILTIN ("mapc", f_mapc, 2, 2, "Apply FUNCTION to each element, for effect."),
  DL_BUILTIN ("maphash", f_maphash, 2, 2, "Call FUNCTION with each key and value, in insertion order."),
  DL_BUILTIN ("garbage-collect", f_garbage_collect, 0, 0, "Collect; return (OBJECTS BYTES)."),
  DL_BUILTIN ("define-error", f_define_error, 2, 3, "(define-error NAME MESSAGE [PARENT])"),
  DL_BUILTIN ("max-eval-depth-reached", f_eval_depth, 0, 0, "Deepest evaluation nesting so far."),
};
DUMPER_DECLARE_OBJECTS (dl_eval_builtins, DL_T_BUILTIN);
const size_t dl_eval_builtin_count
  = sizeof dl_eval_builtins / sizeof dl_eval_builtins[0];
