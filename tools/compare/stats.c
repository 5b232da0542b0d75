/* SPDX-License-Identifier: MIT */
/* tools/compare/stats.c: figures and their samples.

   Owns: the list of figures (their JSON names, precision and whether a
   baseline comparison watches them), samples and their summary (median,
   min, max, and the 99th percentile of start-up), ratios of medians,
   the table of base-mode rows and whether a row got its base mode, and
   reading the `key: value' lines a host prints for --stats.

   The median of an even number of samples is the mean of the middle
   two, so it is the same whatever order the runs came in.  */

#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* Larger is worse for every figure watched by --baseline.  Counts that
   describe the heap (objects, relocations) and the physical floor are
   context, not cost the project controls, so they are not watched.  */
const struct compare_figure_info compare_figures[COMPARE_FIG_COUNT] = {
  /* key, decimals in JSON, watched by --baseline, a time in ms, p99 kept */
  [COMPARE_FIG_START_MS] = { "start_ms", 3, true, true, true },
  [COMPARE_FIG_PEAK_RSS_KB] = { "peak_rss_kb", 0, true, false, false },
  [COMPARE_FIG_MINOR_FAULTS] = { "minor_faults", 0, true, false, false },
  [COMPARE_FIG_PRIVATE_DIRTY_KB] = { "private_dirty_kb", 0, true, false, false },
  [COMPARE_FIG_DIGEST_MS] = { "digest_ms", 3, true, true, false },
  [COMPARE_FIG_HEAP_OBJECTS] = { "heap_objects", 0, false, false, false },
  [COMPARE_FIG_HEAP_BYTES] = { "heap_bytes", 0, false, false, false },
  [COMPARE_FIG_DUMP_MS] = { "dump_ms", 3, true, true, false },
  [COMPARE_FIG_DUMP_STEP_MS] = { "dump_step_ms", 3, true, true, false },
  [COMPARE_FIG_DUMP_RSS_KB] = { "dump_peak_rss_kb", 0, true, false, false },
  [COMPARE_FIG_ARTIFACT_BYTES] = { "artifact_bytes", 0, true, false, false },
  [COMPARE_FIG_EXE_BYTES] = { "exe_bytes", 0, true, false, false },
  [COMPARE_FIG_INPUT_BYTES] = { "input_bytes", 0, false, false, false },
  [COMPARE_FIG_LOAD_OPEN_MS] = { "load_open_ms", 3, true, true, false },
  [COMPARE_FIG_LOAD_MAP_MS] = { "load_map_ms", 3, true, true, false },
  [COMPARE_FIG_LOAD_VERIFY_MS] = { "load_verify_ms", 3, true, true, false },
  [COMPARE_FIG_LOAD_RELOCATE_MS] = { "load_relocate_ms", 3, true, true, false },
  [COMPARE_FIG_LOAD_RESTORE_MS] = { "load_restore_ms", 3, true, true, false },
  [COMPARE_FIG_LOAD_HOOKS_MS] = { "load_hooks_ms", 3, true, true, false },
  [COMPARE_FIG_LOAD_TOTAL_MS] = { "load_total_ms", 3, true, true, false },
  [COMPARE_FIG_LOAD_FAULTS] = { "load_minor_faults", 0, true, false, false },
  [COMPARE_FIG_RELOCS] = { "relocs", 0, false, false, false },
  [COMPARE_FIG_NS_PER_RELOC] = { "ns_per_reloc", 2, true, false, false },
  [COMPARE_FIG_HOT_BYTES] = { "hot_bytes", 0, true, false, false },
  [COMPARE_FIG_COLD_BYTES] = { "cold_bytes", 0, true, false, false },
  [COMPARE_FIG_DISCARDABLE_BYTES] = { "discardable_bytes", 0, true, false, false },
  [COMPARE_FIG_FLOOR_MAP_TOUCH_MS] = { "floor_map_touch_ms", 3, false, true, false },
  [COMPARE_FIG_FLOOR_READ_HUGE_MS] = { "floor_read_huge_ms", 3, false, true, false },
  [COMPARE_FIG_WRITE_MS] = { "write_ms", 3, true, true, false },
  [COMPARE_FIG_MEM_DIRTY_KB] = { "mem_private_dirty_kb", 0, true, false, false },
  [COMPARE_FIG_MEM_PSS_KB] = { "mem_pss_kb", 0, true, false, false },
};

#define COMPARE_BASE_ENTRY(e, name, key, value, cold) { e, key, value, cold },
const struct compare_base_row compare_base_rows[] = {
  { COMPARE_PDUMP, "random", "random", NULL },
  COMPARE_BASE_ROWS (COMPARE_BASE_ENTRY)
};
#undef COMPARE_BASE_ENTRY
const size_t compare_base_row_count = sizeof compare_base_rows / sizeof compare_base_rows[0];

/* MODE's entry of compare_base_rows, or NULL.  */
static const struct compare_base_row *
base_row (int mode)
{
  for (size_t i = 0; i < compare_base_row_count; i++)
    if ((int) compare_base_rows[i].mode == mode)
      return &compare_base_rows[i];
  return NULL;
}

const char *
compare_base_value (int mode)
{
  const struct compare_base_row *row = base_row (mode);
  return row ? row->value : NULL;
}

const char *
compare_base_cold (int mode)
{
  const struct compare_base_row *row = base_row (mode);
  return row ? row->cold : NULL;
}

bool
compare_base_row_p (int mode)
{
  return mode != COMPARE_PDUMP && compare_base_value (mode) != NULL;
}

int
compare_base_honoured (const struct compare_base_info *b)
{
  if (b->refused[0] || b->fallbacks > 0 || (b->reported[0] && strcmp (b->reported, b->asked)))
    return 0;
  /* The library's placements: `fallback' is a base mode that could not
     apply (doc/format.md, "Base modes").  */
  if (strcmp (b->placement, "fallback") == 0)
    return 0;
  return b->reported[0] ? 1 : -1;
}

void
compare_samples_add (struct compare_samples *s, double value)
{
  if (s->count == s->capacity)
    {
      int capacity = s->capacity ? 2 * s->capacity : 8;
      s->values = tool_xrealloc (s->values, (size_t) capacity * sizeof *s->values);
      s->capacity = capacity;
    }
  s->values[s->count++] = value;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

struct compare_stat
compare_samples_stat (const struct compare_samples *s)
{
  struct compare_stat st = { 0, 0, 0, 0, 0, false };
  if (s->count == 0)
    return st;
  double *sorted = tool_xmalloc ((size_t) s->count * sizeof *sorted);
  memcpy (sorted, s->values, (size_t) s->count * sizeof *sorted);
  qsort (sorted, (size_t) s->count, sizeof *sorted, compare_doubles);
  int n = s->count;
  st.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  st.min = sorted[0];
  st.max = sorted[n - 1];
  st.n = n;
  /* Nearest rank: the smallest sample with at least 99% of them at or
     below it (with 50 samples the 50th, the largest; with 100 the 99th).  */
  int rank = (99 * n + 99) / 100;
  st.p99 = sorted[(rank < 1 ? 1 : rank) - 1];
  st.has_p99 = true;
  free (sorted);
  return st;
}

/* V as the JSON writes it and reads it back: printed with DECIMALS
   places, parsed again.  */
static double
round_to (double v, int decimals)
{
  char buf[64];
  snprintf (buf, sizeof buf, "%.*f", decimals, v);
  return strtod (buf, NULL);
}

void
compare_stat_round (struct compare_stat *s, int decimals)
{
  s->median = round_to (s->median, decimals);
  s->min = round_to (s->min, decimals);
  s->max = round_to (s->max, decimals);
  s->p99 = round_to (s->p99, decimals);
}

void
compare_samples_free (struct compare_samples *s)
{
  free (s->values);
  memset (s, 0, sizeof *s);
}

double
compare_ratio (const struct compare_scale *s, enum compare_figure f,
               enum compare_mode num, enum compare_mode den)
{
  const struct compare_stat *a = &s->fig[num][f], *b = &s->fig[den][f];
  if (a->n == 0 || b->n == 0 || b->median <= 0)
    return 0;
  return a->median / b->median;
}

/* ------------------------------------------------------------------ */
/* `key: value' output.  */

bool
compare_kv_read (struct compare_kv *kv, const char *path)
{
  memset (kv, 0, sizeof *kv);
  kv->text = compare_read_file (path, NULL);
  if (kv->text == NULL)
    return false;
  size_t lines = 1;
  for (char *p = kv->text; *p; p++)
    lines += *p == '\n';
  kv->keys = tool_xmalloc (lines * sizeof *kv->keys);
  kv->values = tool_xmalloc (lines * sizeof *kv->values);
  for (char *line = kv->text; *line; )
    {
      char *end = strchr (line, '\n');
      if (end)
        *end = '\0';
      char *colon = strstr (line, ": ");
      if (colon && colon > line)
        {
          *colon = '\0';
          kv->keys[kv->count] = line;
          kv->values[kv->count++] = colon + 2;
        }
      if (end == NULL)
        break;
      line = end + 1;
    }
  return true;
}

const char *
compare_kv_get (const struct compare_kv *kv, const char *key)
{
  /* The last occurrence wins, as in a log that says a thing twice.  */
  for (size_t i = kv->count; i > 0; i--)
    if (strcmp (kv->keys[i - 1], key) == 0)
      return kv->values[i - 1];
  return NULL;
}

bool
compare_kv_number (const struct compare_kv *kv, const char *key, double *out)
{
  const char *v = compare_kv_get (kv, key);
  if (v == NULL)
    return false;
  char *end;
  errno = 0;
  double d = strtod (v, &end);
  if (errno != 0 || end == v || (*end != '\0' && *end != ' '))
    return false;
  *out = d;
  return true;
}

void
compare_kv_free (struct compare_kv *kv)
{
  free (kv->text);
  free (kv->keys);
  free (kv->values);
  memset (kv, 0, sizeof *kv);
}
