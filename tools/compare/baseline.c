/* SPDX-License-Identifier: MIT */
/* tools/compare/baseline.c: comparison with an earlier run.

   Owns: the rule for `got worse'.  A figure is compared when both runs
   have it at the same scale and mode, the figure is one a project
   controls (compare_figures[].baseline: times, sizes, memory, faults),
   and the baseline's median is above zero.  It is a regression when the
   current median exceeds the baseline's by more than the threshold, in
   percent, and, for a time, by more than the noise floor in ms: phases
   of a few microseconds move by tens of percent from run to run.  Medians only: the spread of each run is in the JSON for a
   person to judge.  Heap digests that changed are reported as a note:
   a new version may well build another heap.  */

#include <config.h>

#include <string.h>

#include "compare.h"

static const struct compare_scale *
find_scale (const struct compare_results *r, long scale)
{
  for (size_t i = 0; i < r->scale_count; i++)
    if (r->scales[i].scale == scale)
      return &r->scales[i];
  return NULL;
}

int
compare_baseline (FILE *out, const struct compare_results *current,
                  const struct compare_results *base, double threshold_pct, double noise_ms)
{
  int compared = 0, worse = 0, better = 0;
  fprintf (out, "\nbaseline comparison (worse: median up by more than %g%%, and by more "
           "than %g ms for a time)\n", threshold_pct, noise_ms);
  for (size_t i = 0; i < current->scale_count; i++)
    {
      const struct compare_scale *cur = &current->scales[i];
      const struct compare_scale *old = find_scale (base, cur->scale);
      if (old == NULL)
        {
          fprintf (out, "  scale %ld: not in the baseline\n", cur->scale);
          continue;
        }
      for (int m = 0; m < COMPARE_MODE_COUNT; m++)
        {
          if (!current->modes[m] || !base->modes[m])
            continue;
          if (cur->digest[m][0] && old->digest[m][0] && strcmp (cur->digest[m], old->digest[m]))
            fprintf (out, "  note: scale %ld %s: the heap digest changed (%.16s, was %.16s)\n",
                     cur->scale, compare_mode_names[m], cur->digest[m], old->digest[m]);
          for (int f = 0; f < COMPARE_FIG_COUNT; f++)
            {
              const struct compare_stat *now = &cur->fig[m][f], *was = &old->fig[m][f];
              if (!compare_figures[f].baseline || now->n == 0 || was->n == 0
                  || was->median <= 0)
                continue;
              compared++;
              double change = (now->median / was->median - 1) * 100;
              bool noise = compare_figures[f].is_ms
                           && now->median - was->median <= noise_ms;
              if (change > threshold_pct && !noise)
                {
                  worse++;
                  fprintf (out, "  WORSE  scale %ld %-6s %-18s %.3f -> %.3f (+%.1f%%)\n",
                           cur->scale, compare_mode_names[m], compare_figures[f].key,
                           was->median, now->median, change);
                }
              else if (change < -threshold_pct
                       && !(compare_figures[f].is_ms && was->median - now->median <= noise_ms))
                better++;
            }
        }
    }
  fprintf (out, "  %d figure%s compared: %d worse, %d better by more than %g%%\n", compared,
           compared == 1 ? "" : "s", worse, better, threshold_pct);
  return worse;
}
