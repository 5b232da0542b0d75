/* SPDX-License-Identifier: MIT */
/* tools/migrate/diff.c: unified diffs of the rewrites.

   Owns the shortest line edit script (Myers' O(ND) greedy algorithm,
   keeping only the diagonals each step reached, so memory is O(D^2)
   for D changed lines after the common prefix and suffix are trimmed)
   and printing it as a unified diff with three lines of context.
   Output is deterministic: no timestamps, `--- PATH' and `+++ PATH'
   headers for `patch -p0'.  */

#include <config.h>

#include "migrate.h"

#include <stdlib.h>
#include <string.h>

struct lines
{
  const char **text;
  size_t *len;
  size_t count;
};

static void
split_lines (const char *text, size_t len, struct lines *out)
{
  size_t count = 0, cap = 0;
  out->text = NULL;
  out->len = NULL;
  size_t cap2 = 0;
  for (size_t pos = 0; pos < len;)
    {
      const char *nl = memchr (text + pos, '\n', len - pos);
      size_t end = nl ? (size_t) (nl - text) + 1 : len;
      migrate_grow (&out->text, &cap, count + 1, sizeof *out->text);
      migrate_grow (&out->len, &cap2, count + 1, sizeof *out->len);
      out->text[count] = text + pos;
      out->len[count] = end - pos;
      count++;
      pos = end;
    }
  out->count = count;
}

static bool
same_line (const char *a, size_t alen, const char *b, size_t blen)
{
  return alen == blen && memcmp (a, b, alen) == 0;
}

size_t
migrate_diff_lines (const char *const *a, const size_t *alen, size_t na,
                    const char *const *b, const size_t *blen, size_t nb,
                    enum migrate_diff_op **ops)
{
  long n = (long) na, m = (long) nb;
  long max = n + m;
  /* trace[d] holds x for diagonals -d..d after step d.  */
  long **trace = tool_xmalloc ((size_t) (max + 1) * sizeof *trace);
  long d_end = 0;
  for (long d = 0; d <= max; d++)
    {
      long *v = tool_xmalloc ((size_t) (2 * d + 1) * sizeof *v);
      trace[d] = v;
      long *prev = d > 0 ? trace[d - 1] : NULL;
      bool done = false;
      for (long k = -d; k <= d; k += 2)
        {
          long x;
          if (d == 0)
            x = 0;
          else if (k == -d || (k != d && prev[k - 1 + (d - 1)] < prev[k + 1 + (d - 1)]))
            x = prev[k + 1 + (d - 1)];
          else
            x = prev[k - 1 + (d - 1)] + 1;
          long y = x - k;
          while (x < n && y < m && same_line (a[x], alen[x], b[y], blen[y]))
            x++, y++;
          v[k + d] = x;
          if (x >= n && y >= m)
            done = true;
        }
      d_end = d;
      if (done)
        break;
    }
  size_t cap = (size_t) (n + m + 1);
  enum migrate_diff_op *rev = tool_xmalloc (cap * sizeof *rev);
  size_t count = 0;
  long x = n, y = m;
  for (long d = d_end; d >= 0; d--)
    {
      long k = x - y;
      long prev_x, prev_y;
      if (d == 0)
        prev_x = prev_y = 0;
      else
        {
          long *prev = trace[d - 1];
          bool down = k == -d || (k != d && prev[k - 1 + (d - 1)] < prev[k + 1 + (d - 1)]);
          long prev_k = down ? k + 1 : k - 1;
          prev_x = prev[prev_k + (d - 1)];
          prev_y = prev_x - prev_k;
        }
      while (x > prev_x && y > prev_y)
        {
          rev[count++] = MIGRATE_DIFF_SAME;
          x--, y--;
        }
      if (d > 0)
        {
          rev[count++] = x == prev_x ? MIGRATE_DIFF_ADD : MIGRATE_DIFF_DEL;
          x = prev_x;
          y = prev_y;
        }
    }
  for (long d = 0; d <= d_end; d++)
    free (trace[d]);
  free (trace);
  *ops = tool_xmalloc ((count ? count : 1) * sizeof **ops);
  for (size_t k = 0; k < count; k++)
    (*ops)[k] = rev[count - 1 - k];
  free (rev);
  return count;
}

static void
print_line (FILE *out, char mark, const char *text, size_t len)
{
  fputc (mark, out);
  fwrite (text, 1, len, out);
  if (len == 0 || text[len - 1] != '\n')
    fputs ("\n\\ No newline at end of file\n", out);
}

static void
print_range (FILE *out, size_t first, size_t count)
{
  if (count == 0)
    fprintf (out, "%zu,0", first);
  else if (count == 1)
    fprintf (out, "%zu", first + 1);
  else
    fprintf (out, "%zu,%zu", first + 1, count);
}

enum { CONTEXT = 3 };

void
migrate_diff_write (FILE *out, const char *path, const char *old_text,
                    size_t old_len, const char *new_text, size_t new_len)
{
  struct lines a, b;
  split_lines (old_text, old_len, &a);
  split_lines (new_text, new_len, &b);
  size_t pre = 0;
  while (pre < a.count && pre < b.count
         && same_line (a.text[pre], a.len[pre], b.text[pre], b.len[pre]))
    pre++;
  size_t suf = 0;
  while (suf < a.count - pre && suf < b.count - pre
         && same_line (a.text[a.count - 1 - suf], a.len[a.count - 1 - suf],
                       b.text[b.count - 1 - suf], b.len[b.count - 1 - suf]))
    suf++;
  enum migrate_diff_op *mid = NULL;
  size_t nmid = migrate_diff_lines (a.text + pre, a.len + pre, a.count - pre - suf,
                                    b.text + pre, b.len + pre, b.count - pre - suf,
                                    &mid);
  size_t nops = pre + nmid + suf;
  enum migrate_diff_op *ops = tool_xmalloc ((nops ? nops : 1) * sizeof *ops);
  for (size_t k = 0; k < pre; k++)
    ops[k] = MIGRATE_DIFF_SAME;
  if (nmid)
    memcpy (ops + pre, mid, nmid * sizeof *ops);
  for (size_t k = 0; k < suf; k++)
    ops[pre + nmid + k] = MIGRATE_DIFF_SAME;
  free (mid);

  /* Line numbers before each op.  */
  size_t *ai = tool_xmalloc ((nops + 1) * sizeof *ai);
  size_t *bi = tool_xmalloc ((nops + 1) * sizeof *bi);
  ai[0] = bi[0] = 0;
  for (size_t k = 0; k < nops; k++)
    {
      ai[k + 1] = ai[k] + (ops[k] != MIGRATE_DIFF_ADD);
      bi[k + 1] = bi[k] + (ops[k] != MIGRATE_DIFF_DEL);
    }
  bool header = false;
  size_t k = 0;
  while (k < nops)
    {
      if (ops[k] == MIGRATE_DIFF_SAME)
        {
          k++;
          continue;
        }
      size_t start = k > CONTEXT ? k - CONTEXT : 0;
      size_t end = k;             /* one past the last change of the hunk */
      size_t j = k;
      while (j < nops)
        {
          if (ops[j] != MIGRATE_DIFF_SAME)
            {
              end = j + 1;
              j++;
              continue;
            }
          if (j - end >= 2 * CONTEXT)
            break;
          j++;
        }
      size_t stop = end + CONTEXT < nops ? end + CONTEXT : nops;
      if (!header)
        {
          fprintf (out, "--- %s\n+++ %s\n", path, path);
          header = true;
        }
      fputs ("@@ -", out);
      print_range (out, ai[start], ai[stop] - ai[start]);
      fputs (" +", out);
      print_range (out, bi[start], bi[stop] - bi[start]);
      fputs (" @@\n", out);
      for (size_t q = start; q < stop; q++)
        {
          if (ops[q] == MIGRATE_DIFF_ADD)
            print_line (out, '+', b.text[bi[q]], b.len[bi[q]]);
          else if (ops[q] == MIGRATE_DIFF_DEL)
            print_line (out, '-', a.text[ai[q]], a.len[ai[q]]);
          else
            print_line (out, ' ', a.text[ai[q]], a.len[ai[q]]);
        }
      k = stop;
    }
  free (ai);
  free (bi);
  free (ops);
  free (a.text);
  free (a.len);
  free (b.text);
  free (b.len);
}
