/* SPDX-License-Identifier: MIT */
/* tools/migrate/machinery.c: which code is unexec-only machinery.

   Owns the answer to "does this statement do something only unexec
   needs?", decided from what the code does rather than from what it is
   called.  A token is a primitive of unexec-era machinery when it

     disables ASLR          ADDR_NO_RANDOMIZE (the personality flag)
     re-executes            a call of execv, execve, execvp, execvpe,
                            execl, execle, execlp or fexecve
     moves the break        a call of sbrk or brk, __morecore
     saves malloc state     malloc_get_state, malloc_set_state,
                            DOUG_LEA_MALLOC, HYBRID_MALLOC, REL_ALLOC
     names the data segment __data_start, data_start, _edata, edata,
                            my_edata, _end, etext, _etext,
                            __executable_start, start_of_data, or any
                            identifier containing `bss'
     saves a fake time zone dump_tz, dump_tz_string
     is unexec              any identifier containing `unexec'

   and a function is unexec-only when its body holds a primitive or
   refers to (calls, takes the address of) an unexec-only function: the
   call graph of every file read, -I headers included, to a fixed
   point.  Emacs registers a DEFUN `Ffoo' as `Sfoo', so `Sfoo' refers
   to `Ffoo'.  The names on the list above are machinery whatever the
   host is; a host's own function is judged by its body only.

   Nothing here writes sites or edits; the rules ask.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct mfunc
{
  char *name;
  int file, body;
  int next;                   /* next function with the same hash slot chain */
  const char *kind;           /* what it does, or NULL: not machinery */
  char *cause;                /* the primitive or the callee that decided it */
  int *callees;               /* functions its body refers to */
  size_t ncallees, callees_cap;
};

struct migrate_machinery
{
  struct mfunc *funcs;
  size_t nfuncs, cap;
  int *slots;                 /* first function of each hash slot, or -1 */
  size_t mask;
};

static const char *const exec_calls[] = {
  "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp",
  "fexecve", NULL
};
static const char *const brk_calls[] = { "sbrk", "brk", NULL };
static const char *const heap_words[] = {
  "__morecore", "malloc_get_state", "malloc_set_state", "DOUG_LEA_MALLOC",
  "HYBRID_MALLOC", "REL_ALLOC", "__malloc_initialize_hook", NULL
};
static const char *const segment_words[] = {
  "__data_start", "data_start", "_edata", "edata", "my_edata", "_end",
  "etext", "_etext", "__executable_start", "start_of_data", NULL
};
static const char *const aslr_words[] = {
  "ADDR_NO_RANDOMIZE", "disable_aslr", "disable_address_randomization", NULL
};
static const char *const tz_words[] = { "dump_tz", "dump_tz_string", NULL };

static bool
contains_ci (const char *s, const char *word)
{
  size_t n = strlen (word);
  for (; *s; s++)
    if (strncasecmp (s, word, n) == 0)
      return true;
  return false;
}

/* What token I does, when it is a primitive of unexec machinery, or
   NULL.  */
static const char *
primitive (const struct migrate_file *f, int i)
{
  if (f->toks[i].kind != MIGRATE_T_IDENT)
    return NULL;
  bool call = i + 1 < f->ntoks && migrate_next (f, i) < f->ntoks
    && migrate_tok_is (f, migrate_next (f, i), "(");
  if (migrate_tok_in (f, i, aslr_words))
    return "disables address-space randomisation";
  if (call && migrate_tok_in (f, i, exec_calls))
    return "re-executes the program";
  if ((call && migrate_tok_in (f, i, brk_calls)) || migrate_tok_in (f, i, heap_words))
    return "keeps heap or malloc state for unexec";
  if (migrate_tok_in (f, i, tz_words))
    return "saves a fake time zone into the executable";
  char *text = migrate_tok_text (f, i);
  const char *kind = NULL;
  if (contains_ci (text, "unexec"))
    kind = "is unexec machinery";
  else if (contains_ci (text, "bss") || migrate_tok_in (f, i, segment_words))
    kind = "works on the data segment or bss that unexec saves";
  free (text);
  return kind;
}

static size_t
slot_of (const struct migrate_machinery *m, const char *name, size_t len)
{
  return migrate_hash (name, len) & m->mask;
}

/* The first function named NAME (LEN bytes), or -1.  */
static int
lookup (const struct migrate_machinery *m, const char *name, size_t len)
{
  if (!m || !m->slots)
    return -1;
  for (int k = m->slots[slot_of (m, name, len)]; k >= 0; k = m->funcs[k].next)
    if (strlen (m->funcs[k].name) == len && memcmp (m->funcs[k].name, name, len) == 0)
      return k;
  return -1;
}

/* The function token I refers to: by its name, or `Sfoo' for `Ffoo'.
   Any function of that name that is machinery wins.  */
static int
refers_to (const struct migrate_machinery *m, const struct migrate_file *f, int i)
{
  if (f->toks[i].kind != MIGRATE_T_IDENT)
    return -1;
  char *text = migrate_tok_text (f, i);
  size_t len = strlen (text);
  int hit = lookup (m, text, len);
  int best = hit;
  for (int k = hit; k >= 0; k = m->funcs[k].next)
    if (strcmp (m->funcs[k].name, text) == 0 && m->funcs[k].kind)
      best = k;
  if (best < 0 && len > 1 && text[0] == 'S')
    {
      text[0] = 'F';
      best = lookup (m, text, len);
    }
  free (text);
  return best;
}

static void
add_func (struct migrate_machinery *m, const struct migrate_file *f, int fi, int k)
{
  migrate_grow (&m->funcs, &m->cap, m->nfuncs + 1, sizeof *m->funcs);
  struct mfunc *fn = &m->funcs[m->nfuncs++];
  memset (fn, 0, sizeof *fn);
  fn->name = migrate_tok_text (f, f->funcs[k].name);
  fn->file = fi;
  fn->body = f->funcs[k].body;
  fn->next = -1;
}

void
migrate_machinery_build (struct migrate_project *proj)
{
  struct migrate_machinery *m = tool_xcalloc (1, sizeof *m);
  proj->machinery = m;
  for (int fi = 0; fi < proj->nfiles; fi++)
    {
      const struct migrate_file *f = proj->files[fi];
      for (int k = 0; k < f->nfuncs; k++)
        if (f->funcs[k].body >= 0)
          add_func (m, f, fi, k);
    }
  size_t cap = 16;
  while (cap < 2 * m->nfuncs + 1)
    cap *= 2;
  m->slots = tool_xmalloc (cap * sizeof *m->slots);
  m->mask = cap - 1;
  for (size_t s = 0; s < cap; s++)
    m->slots[s] = -1;
  /* Chain in reverse so that the first definition is found first.  */
  for (size_t k = m->nfuncs; k-- > 0;)
    {
      size_t s = slot_of (m, m->funcs[k].name, strlen (m->funcs[k].name));
      m->funcs[k].next = m->slots[s];
      m->slots[s] = (int) k;
    }
  /* Primitives and the call graph.  */
  for (size_t k = 0; k < m->nfuncs; k++)
    {
      struct mfunc *fn = &m->funcs[k];
      const struct migrate_file *f = proj->files[fn->file];
      int close = f->toks[fn->body].match;
      int limit = close > fn->body ? close : f->ntoks;
      for (int j = fn->body; j < limit; j++)
        {
          if (migrate_tok_dead (f, j) || f->toks[j].kind != MIGRATE_T_IDENT)
            continue;
          const char *kind = primitive (f, j);
          if (kind && !fn->kind)
            {
              fn->kind = kind;
              fn->cause = migrate_tok_text (f, j);
            }
          int callee = refers_to (m, f, j);
          if (callee >= 0 && callee != (int) k)
            {
              migrate_grow (&fn->callees, &fn->callees_cap, fn->ncallees + 1,
                            sizeof *fn->callees);
              fn->callees[fn->ncallees++] = callee;
            }
        }
    }
  /* A function calling machinery is machinery: to a fixed point.  */
  for (bool changed = true; changed;)
    {
      changed = false;
      for (size_t k = 0; k < m->nfuncs; k++)
        {
          struct mfunc *fn = &m->funcs[k];
          for (size_t c = 0; c < fn->ncallees && !fn->kind; c++)
            {
              /* Any function of the callee's name that is machinery.  */
              const struct mfunc *callee = &m->funcs[fn->callees[c]];
              for (int q = fn->callees[c]; q >= 0 && !fn->kind; q = m->funcs[q].next)
                if (strcmp (m->funcs[q].name, callee->name) == 0 && m->funcs[q].kind)
                  {
                    fn->kind = m->funcs[q].kind;
                    fn->cause = tool_xstrdup (callee->name);
                    changed = true;
                  }
            }
        }
    }
}

void
migrate_machinery_free (struct migrate_machinery *m)
{
  if (!m)
    return;
  for (size_t k = 0; k < m->nfuncs; k++)
    {
      free (m->funcs[k].name);
      free (m->funcs[k].cause);
      free (m->funcs[k].callees);
    }
  free (m->funcs);
  free (m->slots);
  free (m);
}

/* Token I is machinery: sets *WHY (malloc'd) when WHY is not NULL.  */
static bool
token_signal (const struct migrate_project *proj, const struct migrate_file *f,
              int i, char **why)
{
  const char *kind = primitive (f, i);
  if (kind)
    {
      if (why)
        {
          char *text = migrate_tok_text (f, i);
          *why = migrate_xasprintf ("`%s' %s", text, kind);
          free (text);
        }
      return true;
    }
  const struct migrate_machinery *m = proj ? proj->machinery : NULL;
  int k = m ? refers_to (m, f, i) : -1;
  if (k < 0 || !m->funcs[k].kind)
    return false;
  if (why)
    {
      const struct mfunc *fn = &m->funcs[k];
      *why = migrate_xasprintf ("`%s' %s (through `%s')", fn->name, fn->kind,
                                fn->cause);
    }
  return true;
}

bool
migrate_unexec_signal (const struct migrate_project *proj,
                       const struct migrate_file *f, int first, int last,
                       bool directives, int *which, char **why)
{
  if (why)
    *why = NULL;
  for (int i = first; i >= 0 && i <= last && i < f->ntoks;
       i = directives ? i + 1 : migrate_next (f, i))
    {
      if (migrate_tok_dead (f, i) || f->toks[i].kind != MIGRATE_T_IDENT)
        continue;
      if (f->toks[i].directive >= 0
          && (!directives || i <= f->dirs[f->toks[i].directive].hash + 1))
        continue;
      if (token_signal (proj, f, i, why))
        {
          if (which)
            *which = i;
          return true;
        }
    }
  return false;
}
