/* SPDX-License-Identifier: MIT */
/* tools/migrate/cond.c: the preprocessor-conditional tree.

   Owns grouping #if/#ifdef/#ifndef ... #elif ... #else ... #endif into
   groups and branches, deciding which branches are dead (`#if 0', and
   every arm after an `#if 1'/`#elif 1'; everything inside a dead
   branch), giving each token its innermost branch, and classifying a
   directive's condition as a CANNOT_DUMP test.  It evaluates no other
   condition: a branch that depends on a macro is live, because the
   tool must see code that some build compiles.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>

/* The operands of directive D are exactly VALUE or ( VALUE ).  */
static bool
operand_is (const struct migrate_file *f, int d, const char *value)
{
  const struct migrate_directive *dir = &f->dirs[d];
  int n = dir->end - dir->first;
  if (n == 1)
    return migrate_tok_is (f, dir->first, value);
  return n == 3 && migrate_tok_is (f, dir->first, "(")
    && migrate_tok_is (f, dir->first + 1, value)
    && migrate_tok_is (f, dir->first + 2, ")");
}

static int
new_branch (struct migrate_file *f, size_t *cap, int d, int g, int parent,
            bool dead)
{
  migrate_grow (&f->branches, cap, (size_t) f->nbranches + 1,
                sizeof *f->branches);
  struct migrate_branch *b = &f->branches[f->nbranches];
  b->directive = d;
  b->group = g;
  b->parent = parent;
  b->first = f->dirs[d].end;
  b->end = f->ntoks;
  b->dead = dead;
  f->groups[g].nbranches++;
  return f->nbranches++;
}

void
migrate_cond_build (struct migrate_file *f)
{
  size_t groups_cap = 0, branches_cap = 0, stack_cap = 0, taken_cap = 0;
  int *stack = NULL;          /* open groups */
  bool *taken = NULL;         /* an arm of the group was `1' */
  int depth = 0, cur = -1;

  for (int d = 0; d < f->ndirs; d++)
    {
      struct migrate_directive *dir = &f->dirs[d];
      unsigned line = f->toks[dir->hash].line;
      switch (dir->kind)
        {
        case MIGRATE_D_IF:
        case MIGRATE_D_IFDEF:
        case MIGRATE_D_IFNDEF:
          {
            migrate_grow (&f->groups, &groups_cap, (size_t) f->ngroups + 1,
                          sizeof *f->groups);
            int g = f->ngroups++;
            f->groups[g].first_branch = f->nbranches;
            f->groups[g].nbranches = 0;
            f->groups[g].endif = -1;
            f->groups[g].parent = cur;
            dir->group = g;
            bool parent_dead = cur >= 0 && f->branches[cur].dead;
            bool is_if = dir->kind == MIGRATE_D_IF;
            size_t need = (size_t) depth + 1;
            migrate_grow (&stack, &stack_cap, need, sizeof *stack);
            migrate_grow (&taken, &taken_cap, need, sizeof *taken);
            stack[depth] = g;
            taken[depth] = is_if && operand_is (f, d, "1");
            depth++;
            cur = new_branch (f, &branches_cap, d, g, cur,
                              parent_dead || (is_if && operand_is (f, d, "0")));
            break;
          }
        case MIGRATE_D_ELIF:
        case MIGRATE_D_ELSE:
          {
            if (depth == 0)
              {
                migrate_warn (f, line, dir->kind == MIGRATE_D_ELSE
                              ? "#else without #if" : "#elif without #if");
                break;
              }
            int g = stack[depth - 1];
            dir->group = g;
            f->branches[cur].end = dir->hash;
            int parent = f->groups[g].parent;
            bool parent_dead = parent >= 0 && f->branches[parent].dead;
            bool is_elif = dir->kind == MIGRATE_D_ELIF;
            bool dead = parent_dead || taken[depth - 1]
              || (is_elif && operand_is (f, d, "0"));
            if (is_elif && operand_is (f, d, "1"))
              taken[depth - 1] = true;
            cur = new_branch (f, &branches_cap, d, g, parent, dead);
            break;
          }
        case MIGRATE_D_ENDIF:
          {
            if (depth == 0)
              {
                migrate_warn (f, line, "#endif without #if");
                break;
              }
            int g = stack[--depth];
            dir->group = g;
            f->branches[cur].end = dir->hash;
            f->groups[g].endif = d;
            cur = f->groups[g].parent;
            break;
          }
        default:
          break;
        }
    }
  while (depth > 0)
    {
      int g = stack[--depth];
      int first = f->groups[g].first_branch;
      migrate_warn (f, f->toks[f->dirs[f->branches[first].directive].hash].line,
                    "#if without #endif");
      cur = f->groups[g].parent;
    }
  free (stack);
  free (taken);

  /* Branches are created in pre-order, so an inner branch overwrites
     the outer one for its tokens.  */
  for (int b = 0; b < f->nbranches; b++)
    for (int i = f->branches[b].first; i < f->branches[b].end; i++)
      f->toks[i].branch = b;
}

bool
migrate_tok_dead (const struct migrate_file *f, int i)
{
  int b = f->toks[i].branch;
  return b >= 0 && f->branches[b].dead;
}

enum migrate_guard
migrate_directive_guard (const struct migrate_file *f, int d)
{
  const struct migrate_directive *dir = &f->dirs[d];
  bool mentions = false;
  for (int i = dir->first; i < dir->end; i++)
    if (f->toks[i].kind == MIGRATE_T_IDENT
        && migrate_tok_is (f, i, "CANNOT_DUMP"))
      mentions = true;
  if (!mentions)
    return MIGRATE_G_OTHER;
  int n = dir->end - dir->first, i = dir->first;
  if (dir->kind == MIGRATE_D_IFNDEF && n == 1)
    return MIGRATE_G_NOT_CANNOT;
  if (dir->kind == MIGRATE_D_IFDEF && n == 1)
    return MIGRATE_G_CANNOT;
  if (dir->kind != MIGRATE_D_IF)
    return MIGRATE_G_MENTIONS;
  bool negated = migrate_tok_is (f, i, "!");
  if (negated)
    i++, n--;
  if (!migrate_tok_is (f, i, "defined"))
    return MIGRATE_G_MENTIONS;
  bool plain = n == 2 && migrate_tok_is (f, i + 1, "CANNOT_DUMP");
  bool paren = n == 4 && migrate_tok_is (f, i + 1, "(")
    && migrate_tok_is (f, i + 2, "CANNOT_DUMP") && migrate_tok_is (f, i + 3, ")");
  if (!plain && !paren)
    return MIGRATE_G_MENTIONS;
  return negated ? MIGRATE_G_NOT_CANNOT : MIGRATE_G_CANNOT;
}
