/* SPDX-License-Identifier: MIT */
/* tools/compare/table.c: the results as text tables.

   Owns: the layout of the tables -- the side-by-side comparison of the
   modes (with the ratios of start-up times, and for an embedded
   executable its start-up and file size against unexec and a separate
   image), the dumps and their artifacts, the dumps' cost per MiB across
   scales (with the external anchor), the pdump loader's detail, the
   start-up per pdump base mode (p50, p99, placement, ratios to unexec)
   and the memory section -- and the formatting of a
   figure as `median (min..max)'.  Columns have fixed widths and every
   header carries its unit, so the output is stable enough to read by eye
   and to diff between runs.  A figure that was not measured prints `-'.  */

#include <config.h>

#include <string.h>

#include "compare.h"

/* Decimals that show a time without noise digits.  */
static int
decimals_for (double v)
{
  return v < 10 ? 2 : v < 1000 ? 1 : 0;
}

/* "median (min..max)", or "-".  */
static void
spread_cell (char *buf, size_t size, const struct compare_stat *s)
{
  if (s->n == 0)
    {
      snprintf (buf, size, "-");
      return;
    }
  int d = decimals_for (s->median);
  if (s->n == 1)
    snprintf (buf, size, "%.*f", d, s->median);
  else
    snprintf (buf, size, "%.*f (%.*f..%.*f)", d, s->median, d, s->min, d, s->max);
}

/* The median divided by DIVISOR with DECIMALS, or "-".  */
static void
value_cell (char *buf, size_t size, const struct compare_stat *s, double divisor,
            int decimals)
{
  if (s->n == 0)
    snprintf (buf, size, "-");
  else
    snprintf (buf, size, "%.*f", decimals, s->median / divisor);
}

static void
ratio_text (char *buf, size_t size, const struct compare_scale *s, enum compare_mode num,
            enum compare_mode den)
{
  double r = compare_ratio (s, COMPARE_FIG_START_MS, num, den);
  if (r > 0)
    snprintf (buf, size, "%.1fx", r);
  else
    snprintf (buf, size, "-");
}

/* The embedded executable against its alternatives at scale S: start-up
   (ratios of medians) and the files a user ships.  */
static void
print_embedded (FILE *out, const struct compare_scale *s)
{
  const struct compare_stat *e = s->fig[COMPARE_EMBEDDED];
  const struct compare_stat *p = s->fig[COMPARE_PDUMP];
  const struct compare_stat *u = s->fig[COMPARE_UNEXEC];
  char vs_pdump[32] = "-", vs_unexec[32] = "-", sep_kib[32] = "-", exe_kib[32] = "-",
    unexec_kib[32] = "-", size_pdump[32] = "-", size_unexec[32] = "-";
  double r = compare_ratio (s, COMPARE_FIG_START_MS, COMPARE_EMBEDDED, COMPARE_PDUMP);
  if (r > 0)
    snprintf (vs_pdump, sizeof vs_pdump, "%.2fx", r);
  r = compare_ratio (s, COMPARE_FIG_START_MS, COMPARE_EMBEDDED, COMPARE_UNEXEC);
  if (r > 0)
    snprintf (vs_unexec, sizeof vs_unexec, "%.1fx", r);
  value_cell (exe_kib, sizeof exe_kib, &e[COMPARE_FIG_EXE_BYTES], 1024, 0);
  /* A separate image ships the executable it was made from and the image.  */
  double separate = e[COMPARE_FIG_INPUT_BYTES].n && p[COMPARE_FIG_ARTIFACT_BYTES].n
                    ? e[COMPARE_FIG_INPUT_BYTES].median + p[COMPARE_FIG_ARTIFACT_BYTES].median
                    : 0;
  if (separate > 0)
    snprintf (sep_kib, sizeof sep_kib, "%.0f", separate / 1024);
  value_cell (unexec_kib, sizeof unexec_kib, &u[COMPARE_FIG_EXE_BYTES], 1024, 0);
  if (e[COMPARE_FIG_EXE_BYTES].n && separate > 0)
    snprintf (size_pdump, sizeof size_pdump, "%.2fx", e[COMPARE_FIG_EXE_BYTES].median / separate);
  if (e[COMPARE_FIG_EXE_BYTES].n && u[COMPARE_FIG_EXE_BYTES].n && u[COMPARE_FIG_EXE_BYTES].median > 0)
    snprintf (size_unexec, sizeof size_unexec, "%.2fx",
              e[COMPARE_FIG_EXE_BYTES].median / u[COMPARE_FIG_EXE_BYTES].median);
  fprintf (out, "%5s  embedded: start-up embedded/pdump %s  embedded/unexec %s;  files KiB:"
           " embedded %s, pdump exe+image %s (%s), unexec exe %s (%s)\n", "", vs_pdump,
           vs_unexec, exe_kib, sep_kib, size_pdump, unexec_kib, size_unexec);
}

/* The width of the mode column: the longest name of the modes in R, at
   least 6, so tables of the three classic modes keep their layout.  */
static int
mode_width (const struct compare_results *r)
{
  int w = 6;
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    if (r->modes[m] && (int) strlen (compare_mode_names[m]) > w)
      w = (int) strlen (compare_mode_names[m]);
  return w;
}

/* A line under scale S for each row that did not get its base mode.  */
static void
print_base_warnings (FILE *out, const struct compare_results *r, const struct compare_scale *s)
{
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    {
      const struct compare_base_info *b = &s->base[m];
      if (!r->modes[m] || !b->asked[0] || compare_base_honoured (b) != 0)
        continue;
      if (b->refused[0])
        fprintf (out, "%5s  %s: NOT MEASURED: the host refused base mode %s (%s)\n", "",
                 compare_mode_names[m], b->asked, b->refused);
      else if (b->reported[0] && strcmp (b->reported, b->asked) != 0)
        fprintf (out, "%5s  %s: NOT IN BASE MODE %s: the host reports base mode %s\n", "",
                 compare_mode_names[m], b->asked, b->reported);
      else
        fprintf (out, "%5s  %s: NOT AT ITS BASE: placement fallback in %d of %d starts (%s)\n",
                 "", compare_mode_names[m], b->fallbacks, b->stats_runs, b->reason);
    }
}

static void
print_main (FILE *out, const struct compare_results *r)
{
  int w = mode_width (r);
  fprintf (out, "dumper-compare: host %s, %d run%s per figure: median (min..max)\n\n", r->host,
           r->runs, r->runs == 1 ? "" : "s");
  fprintf (out, "%5s  %-*s  %22s  %22s  %9s  %8s  %7s  %9s  %9s\n", "scale", w, "mode",
           "start-up ms", "dump ms", "size KiB", "RSS KiB", "faults", "dirty KiB", "digest ms");
  for (size_t i = 0; i < r->scale_count; i++)
    {
      const struct compare_scale *s = &r->scales[i];
      for (int m = 0; m < COMPARE_MODE_COUNT; m++)
        {
          if (!r->modes[m])
            continue;
          if (s->base[m].refused[0])
            {
              fprintf (out, "%5ld  %-*s  refused by the host (see below)\n", s->scale, w,
                       compare_mode_names[m]);
              continue;
            }
          const struct compare_stat *f = s->fig[m];
          char start[64], dump[64], size[32], rss[32], faults[32], dirty[32], digest[32];
          spread_cell (start, sizeof start, &f[COMPARE_FIG_START_MS]);
          spread_cell (dump, sizeof dump, &f[COMPARE_FIG_DUMP_MS]);
          value_cell (size, sizeof size, &f[COMPARE_FIG_ARTIFACT_BYTES], 1024, 0);
          value_cell (rss, sizeof rss, &f[COMPARE_FIG_PEAK_RSS_KB], 1, 0);
          value_cell (faults, sizeof faults, &f[COMPARE_FIG_MINOR_FAULTS], 1, 0);
          value_cell (dirty, sizeof dirty, &f[COMPARE_FIG_PRIVATE_DIRTY_KB], 1, 0);
          value_cell (digest, sizeof digest, &f[COMPARE_FIG_DIGEST_MS], 1, 1);
          fprintf (out, "%5ld  %-*s  %22s  %22s  %9s  %8s  %7s  %9s  %9s\n", s->scale,
                   w, compare_mode_names[m], start, dump, size, rss, faults, dirty, digest);
        }
      char a[32], b[32], c[32], d[96] = "";
      ratio_text (a, sizeof a, s, COMPARE_COLD, COMPARE_UNEXEC);
      ratio_text (b, sizeof b, s, COMPARE_COLD, COMPARE_PDUMP);
      ratio_text (c, sizeof c, s, COMPARE_PDUMP, COMPARE_UNEXEC);
      /* `pdump' is base mode random; the library's default is boot
         (issue 33): its ratio too, where its row was measured.  */
      if (r->modes[COMPARE_PDUMP_BOOT]
          && compare_ratio (s, COMPARE_FIG_START_MS, COMPARE_PDUMP_BOOT,
                            COMPARE_UNEXEC) > 0)
        {
          char e[32];
          ratio_text (e, sizeof e, s, COMPARE_PDUMP_BOOT, COMPARE_UNEXEC);
          snprintf (d, sizeof d, "  pdump-boot (the default)/unexec %s", e);
        }
      fprintf (out, "%5s  start-up ratios: cold/unexec %s  cold/pdump %s  pdump (random)/unexec %s%s;"
               "  heap digest %.16s in every mode\n", "", a, b, c, d, s->digest[COMPARE_COLD]);
      print_base_warnings (out, r, s);
      if (r->modes[COMPARE_EMBEDDED])
        print_embedded (out, s);
    }
  fprintf (out,
"\nstart-up: wall time of a start (cold: the whole cold start, loadup included);\n"
"dump: the whole dumping run; size: the image (pdump) or the data added to the\n"
"executable (unexec); RSS: peak resident set; faults: minor page faults of a\n"
"start; dirty: private dirty memory at the end of start-up; digest: the cost of\n"
"--heap-digest (the walk and the hash, timed by the host).  pdump: base mode\n"
"random (every start relocates the whole image); pdump-boot: base mode boot, the\n"
"library's default (one base per boot, later starts map a verified cache).\n");
  if (r->modes[COMPARE_EMBEDDED])
    fprintf (out,
"embedded: one executable holding the pdump image (dumper-embed; not dumped but\n"
"made from the pdump image, so no dump time; size: what embedding added); its\n"
"start-up against the separate image and unexec, and the files each ships.\n");
}

static void
print_dumps (FILE *out, const struct compare_results *r)
{
  if (!r->modes[COMPARE_UNEXEC] && !r->modes[COMPARE_PDUMP] && !r->modes[COMPARE_EMBEDDED])
    return;
  /* The base-mode rows do not dump: they start from pdump's image.  */
  int w = r->modes[COMPARE_EMBEDDED] ? 8 : 6;
  fprintf (out, "\ndumps and what they wrote (medians)\n");
  fprintf (out, "%5s  %-*s  %11s  %9s  %12s  %10s  %10s  %9s  %9s  %11s\n", "scale", w, "mode",
           "dump run ms", "write ms", "dump RSS KiB", "file KiB", "added KiB", "hot KiB",
           "cold KiB", "discard KiB");
  for (size_t i = 0; i < r->scale_count; i++)
    for (int m = COMPARE_UNEXEC; m < COMPARE_MODE_COUNT; m++)
      {
        if (!r->modes[m] || compare_base_row_p (m))
          continue;
        const struct compare_scale *s = &r->scales[i];
        const struct compare_stat *f = s->fig[m];
        char run[32], write[32], rss[32], file[32], added[32], hot[32], cold[32], disc[32];
        value_cell (run, sizeof run, &f[COMPARE_FIG_DUMP_MS], 1, 1);
        value_cell (write, sizeof write, &f[COMPARE_FIG_DUMP_STEP_MS], 1, 1);
        value_cell (rss, sizeof rss, &f[COMPARE_FIG_DUMP_RSS_KB], 1, 0);
        value_cell (file, sizeof file,
                    &f[m != COMPARE_PDUMP ? COMPARE_FIG_EXE_BYTES : COMPARE_FIG_ARTIFACT_BYTES],
                    1024, 0);
        if (m != COMPARE_PDUMP)
          value_cell (added, sizeof added, &f[COMPARE_FIG_ARTIFACT_BYTES], 1024, 0);
        else
          snprintf (added, sizeof added, "-");
        value_cell (hot, sizeof hot, &f[COMPARE_FIG_HOT_BYTES], 1024, 0);
        value_cell (cold, sizeof cold, &f[COMPARE_FIG_COLD_BYTES], 1024, 0);
        value_cell (disc, sizeof disc, &f[COMPARE_FIG_DISCARDABLE_BYTES], 1024, 0);
        fprintf (out, "%5ld  %-*s  %11s  %9s  %12s  %10s  %10s  %9s  %9s  %11s\n", s->scale,
                 w, compare_mode_names[m], run, write, rss, file, added, hot, cold, disc);
      }
  fprintf (out,
"\ndump run: the whole dumping process (loadup included); write: the back end's\n"
"own dump step, timed by the host; file: the executable (unexec) or the image\n"
"(pdump); added: what the dump added to the undumped executable; hot, cold,\n"
"discard: the image's sections (relocated objects, pointer-free bytes, tables\n"
"dropped after the load).\n");
}

/* The write step of MODE at scale S: write-seconds, or the host's
   dump-seconds (the collection before the write included) from a host
   that does not report it.  */
static const struct compare_stat *
write_stat (const struct compare_scale *s, int mode)
{
  const struct compare_stat *w = &s->fig[mode][COMPARE_FIG_WRITE_MS];
  return w->n ? w : &s->fig[mode][COMPARE_FIG_DUMP_STEP_MS];
}

/* The file MODE wrote at scale S, bytes; 0 when unknown.  */
static double
written_bytes (const struct compare_scale *s, int mode)
{
  const struct compare_stat *f
    = &s->fig[mode][mode == COMPARE_UNEXEC ? COMPARE_FIG_EXE_BYTES
                                           : COMPARE_FIG_ARTIFACT_BYTES];
  return f->n ? f->median : 0;
}

/* Milliseconds of write per MiB written, or 0 when unknown.  */
static double
ms_per_mib (const struct compare_scale *s, int mode)
{
  const struct compare_stat *w = write_stat (s, mode);
  double bytes = written_bytes (s, mode);
  return w->n && bytes > 0 ? w->median / (bytes / 1048576.0) : 0;
}

/* Issue 17: does a dump cost the same per MiB at every scale, and does
   the dumping run stay within cold RSS + 1.25 x the file?  */
static void
print_scaling (FILE *out, const struct compare_results *r)
{
  if (!r->modes[COMPARE_UNEXEC] && !r->modes[COMPARE_PDUMP])
    return;
  fprintf (out, "\ndumps at scale: write time per MiB and memory of the dumping run (medians)\n");
  fprintf (out, "%5s  %-6s  %9s  %9s  %7s  %7s  %12s  %12s  %10s  %6s\n", "scale", "mode",
           "file MiB", "write ms", "ms/MiB", "x first", "dump RSS KiB", "cold RSS KiB",
           "budget KiB", "within");
  double pdump_first = 0, pdump_last = 0;
  long pdump_last_scale = 0;
  for (int m = COMPARE_UNEXEC; m < COMPARE_MODE_COUNT; m++)
    {
      /* The embedded executable is made, not dumped; the base-mode rows
         start from pdump's image.  */
      if (!r->modes[m] || m == COMPARE_EMBEDDED || compare_base_row_p (m))
        continue;
      double first = 0;
      for (size_t i = 0; i < r->scale_count; i++)
        {
          const struct compare_scale *s = &r->scales[i];
          const struct compare_stat *f = s->fig[m];
          const struct compare_stat *cold = &s->fig[COMPARE_COLD][COMPARE_FIG_PEAK_RSS_KB];
          const struct compare_stat *rss_stat = &f[COMPARE_FIG_DUMP_RSS_KB];
          double bytes = written_bytes (s, m), per = ms_per_mib (s, m);
          char file[32], write[32], perc[32], ratio[32], rss[32], crss[32], budget[32],
            within[16];
          snprintf (file, sizeof file, "-");
          if (bytes > 0)
            snprintf (file, sizeof file, "%.1f", bytes / 1048576.0);
          value_cell (write, sizeof write, write_stat (s, m), 1, 1);
          snprintf (perc, sizeof perc, "-");
          snprintf (ratio, sizeof ratio, "-");
          if (per > 0)
            {
              if (first == 0)
                first = per;
              snprintf (perc, sizeof perc, "%.2f", per);
              snprintf (ratio, sizeof ratio, "%.2fx", per / first);
              if (m == COMPARE_PDUMP)
                {
                  if (pdump_first == 0)
                    pdump_first = per;
                  pdump_last = per;
                  pdump_last_scale = s->scale;
                }
            }
          value_cell (rss, sizeof rss, rss_stat, 1, 0);
          value_cell (crss, sizeof crss, cold, 1, 0);
          snprintf (budget, sizeof budget, "-");
          snprintf (within, sizeof within, "-");
          if (cold->n && bytes > 0)
            {
              double limit = cold->median + 1.25 * bytes / 1024;
              snprintf (budget, sizeof budget, "%.0f", limit);
              if (rss_stat->n)
                snprintf (within, sizeof within, "%s",
                          rss_stat->median <= limit ? "yes" : "no");
            }
          fprintf (out, "%5ld  %-6s  %9s  %9s  %7s  %7s  %12s  %12s  %10s  %6s\n", s->scale,
                   compare_mode_names[m], file, write, perc, ratio, rss, crss, budget, within);
        }
    }
  fprintf (out,
"\nwrite: the back end's write step (the host's write-seconds; dump-seconds,\n"
"the collection before it included, from a host without it); ms/MiB: write\n"
"time per MiB of the file written (image, or whole executable); x first: over\n"
"the first scale's; budget: cold-start RSS + 1.25 x the file; within: dump\n"
"RSS within the budget.  Targets (issue 17): pdump ms/MiB at the largest scale\n"
"within 1.25x of the first and at most 15, dump RSS within the budget.\n");
  fprintf (out, "external anchor: GNU Emacs 28.2 re-dumps a 13.7 MB image in 2.0 s, "
           "about 146 ms/MB");
  if (pdump_last > 0)
    fprintf (out, "; pdump here: %.2f ms/MiB at scale %ld (%.1fx faster), %.2fx its "
             "first scale", pdump_last, pdump_last_scale, 146.0 / pdump_last,
             pdump_last / pdump_first);
  fprintf (out, "\n");
}

/* The floor that matches the load method: the hybrid and read loaders
   read HOT into anonymous memory (read-huge); the map loader maps the
   file and dirties the relocated pages (map-touch).  */
static enum compare_figure
floor_for (const char *method)
{
  return strcmp (method, "map") == 0 ? COMPARE_FIG_FLOOR_MAP_TOUCH_MS
                                     : COMPARE_FIG_FLOOR_READ_HUGE_MS;
}

static void
print_pdump (FILE *out, const struct compare_results *r)
{
  if (!r->modes[COMPARE_PDUMP])
    return;
  fprintf (out, "\npdump load, from the host's --stats (medians; floor: the same run)\n");
  fprintf (out, "%5s  %-6s  %9s  %7s  %7s  %7s  %8s  %7s  %7s  %8s  %8s  %6s  %9s  %9s  %6s\n",
           "scale", "method", "relocs", "open ms", "map ms", "vrfy ms", "reloc ms", "rstr ms",
           "hook ms", "load ms", "ns/reloc", "faults", "floor map", "floor rd", "/floor");
  for (size_t i = 0; i < r->scale_count; i++)
    {
      const struct compare_scale *s = &r->scales[i];
      const struct compare_stat *f = s->fig[COMPARE_PDUMP];
      static const enum compare_figure ms[] = {
        COMPARE_FIG_LOAD_OPEN_MS, COMPARE_FIG_LOAD_MAP_MS, COMPARE_FIG_LOAD_VERIFY_MS,
        COMPARE_FIG_LOAD_RELOCATE_MS, COMPARE_FIG_LOAD_RESTORE_MS, COMPARE_FIG_LOAD_HOOKS_MS,
        COMPARE_FIG_LOAD_TOTAL_MS,
      };
      char cells[7][32], relocs[32], ns[32], faults[32], map_floor[32], read_floor[32],
        ratio[32];
      for (int k = 0; k < 7; k++)
        value_cell (cells[k], sizeof cells[k], &f[ms[k]], 1, 2);
      value_cell (relocs, sizeof relocs, &f[COMPARE_FIG_RELOCS], 1, 0);
      value_cell (ns, sizeof ns, &f[COMPARE_FIG_NS_PER_RELOC], 1, 1);
      value_cell (faults, sizeof faults, &f[COMPARE_FIG_LOAD_FAULTS], 1, 0);
      value_cell (map_floor, sizeof map_floor, &f[COMPARE_FIG_FLOOR_MAP_TOUCH_MS], 1, 2);
      value_cell (read_floor, sizeof read_floor, &f[COMPARE_FIG_FLOOR_READ_HUGE_MS], 1, 2);
      const struct compare_stat *floor = &f[floor_for (s->load_method)];
      if (floor->n && floor->median > 0 && f[COMPARE_FIG_LOAD_TOTAL_MS].n)
        snprintf (ratio, sizeof ratio, "%.1fx", f[COMPARE_FIG_LOAD_TOTAL_MS].median
                                                / floor->median);
      else
        snprintf (ratio, sizeof ratio, "-");
      fprintf (out, "%5ld  %-6s  %9s  %7s  %7s  %7s  %8s  %7s  %7s  %8s  %8s  %6s  %9s  %9s  %6s\n",
               s->scale, s->load_method[0] ? s->load_method : "-", relocs, cells[0], cells[1],
               cells[2], cells[3], cells[4], cells[5], cells[6], ns, faults, map_floor,
               read_floor, ratio);
    }
  fprintf (out,
"\nrelocs: image and executable relocations; open (header, fingerprint), map\n"
"(map or read, section checks), verify, reloc(ate), restore (roots, scalars),\n"
"hook(s): the loader's phases, load: all of them; ns/reloc: relocation time\n"
"(page faults included) per relocation; faults: minor faults of the load;\n"
"floor map: map the image and dirty the pages relocation writes; floor rd:\n"
"read the hot section into fresh memory (bench/pdump-floor); /floor: load\n"
"time over the floor of the load method (map: floor map, else floor rd).\n");
}

/* Whether any row of R has a base mode.  */
static bool
has_base_modes (const struct compare_results *r)
{
  for (size_t i = 0; i < r->scale_count; i++)
    for (int m = 0; m < COMPARE_MODE_COUNT; m++)
      if (r->modes[m] && r->scales[i].base[m].asked[0])
        return true;
  return false;
}

/* "1.23x" of NUM / DEN, or "-".  */
static void
quotient_cell (char *buf, size_t size, double num, double den)
{
  if (num > 0 && den > 0)
    snprintf (buf, size, "%.2fx", num / den);
  else
    snprintf (buf, size, "-");
}

/* Issue 15: pdump's start-up per base mode beside unexec, with the tail
   (p99) and where each load was placed.  Each ratio is of the row's own
   medians.  */
static void
print_base_modes (FILE *out, const struct compare_results *r)
{
  if (!has_base_modes (r))
    return;
  int w = mode_width (r);
  fprintf (out, "\npdump start-up per base mode, beside unexec (ms; p99: nearest rank of "
           "the starts)\n");
  fprintf (out, "%5s  %-*s  %-7s  %-10s  %-4s  %8s  %8s  %7s  %8s  %8s  %-6s  %8s  %8s\n",
           "scale", w, "mode", "base", "placement", "ok", "p50 ms", "p99 ms", "p99/p50",
           "x unexec", "x pdump", "method", "reloc ms", "load ms");
  for (size_t i = 0; i < r->scale_count; i++)
    {
      const struct compare_scale *s = &r->scales[i];
      const struct compare_stat *unexec = &s->fig[COMPARE_UNEXEC][COMPARE_FIG_START_MS];
      const struct compare_stat *pdump = &s->fig[COMPARE_PDUMP][COMPARE_FIG_START_MS];
      for (int m = 0; m < COMPARE_MODE_COUNT; m++)
        {
          const struct compare_base_info *b = &s->base[m];
          if (!r->modes[m] || (m != COMPARE_UNEXEC && !b->asked[0]))
            continue;
          const struct compare_stat *f = s->fig[m];
          const struct compare_stat *start = &f[COMPARE_FIG_START_MS];
          if (b->refused[0])
            {
              fprintf (out, "%5ld  %-*s  %-7s  refused by the host: %s\n", s->scale, w,
                       compare_mode_names[m], b->asked, b->refused);
              continue;
            }
          char p50[32], p99[32], tail[32], vs_unexec[32], vs_pdump[32], reloc[32], load[32];
          value_cell (p50, sizeof p50, start, 1, 2);
          snprintf (p99, sizeof p99, "-");
          snprintf (tail, sizeof tail, "-");
          if (start->n && start->has_p99)
            {
              snprintf (p99, sizeof p99, "%.2f", start->p99);
              quotient_cell (tail, sizeof tail, start->p99, start->median);
            }
          quotient_cell (vs_unexec, sizeof vs_unexec, start->n ? start->median : 0,
                         unexec->n ? unexec->median : 0);
          quotient_cell (vs_pdump, sizeof vs_pdump, start->n ? start->median : 0,
                         pdump->n ? pdump->median : 0);
          value_cell (reloc, sizeof reloc, &f[COMPARE_FIG_LOAD_RELOCATE_MS], 1, 2);
          value_cell (load, sizeof load, &f[COMPARE_FIG_LOAD_TOTAL_MS], 1, 2);
          int honoured = b->asked[0] ? compare_base_honoured (b) : -1;
          fprintf (out, "%5ld  %-*s  %-7s  %-10s  %-4s  %8s  %8s  %7s  %8s  %8s  %-6s  %8s  %8s\n",
                   s->scale, w, compare_mode_names[m], b->asked[0] ? b->asked : "-",
                   b->placement[0] ? b->placement : "-",
                   !b->asked[0] ? "-" : honoured > 0 ? "yes" : honoured == 0 ? "NO" : "?",
                   p50, p99, tail, vs_unexec, vs_pdump, b->method[0] ? b->method : "-", reloc,
                   load);
        }
    }
  fprintf (out,
"\nbase: the host's base mode asked for (base-env); placement: where the host\n"
"says the image went (pdump-placement of its stats: random, preferred, boot or\n"
"boot-cache; fallback when the mode could not apply, in any start); ok: the\n"
"host reports that base mode and never fell back (NO: see the note under the\n"
"main table; ?: the host does not say); p50: the median start-up; p99/p50: the\n"
"tail; x unexec, x pdump: p50 over unexec's and over pdump's (random); method\n"
"(pdump-method), reloc, load: the loader's way in, relocation phase and whole\n"
"load (medians).  Targets (issue 15): fixed and boot within 1.1x of unexec at\n"
"scales 1 and 4; random p99 within 2x its p50 (p99 needs --runs 50 or more to\n"
"be more than the slowest start).\n");
}

/* "median (min..max)" of a figure in whole numbers, or "-".  */
static void
whole_spread_cell (char *buf, size_t size, const struct compare_stat *s)
{
  if (s->n == 0)
    snprintf (buf, size, "-");
  else if (s->n == 1 || s->min == s->max)
    snprintf (buf, size, "%.0f", s->median);
  else
    snprintf (buf, size, "%.0f (%.0f..%.0f)", s->median, s->min, s->max);
}

/* Issue 15: memory per process with many processes of a mode at once.  */
static void
print_memory (FILE *out, const struct compare_results *r)
{
  int procs = 0;
  for (size_t i = 0; i < r->scale_count; i++)
    for (int m = 0; m < COMPARE_MODE_COUNT; m++)
      if (r->modes[m] && r->scales[i].fig[m][COMPARE_FIG_MEM_PSS_KB].n > procs)
        procs = r->scales[i].fig[m][COMPARE_FIG_MEM_PSS_KB].n;
  if (procs == 0)
    return;
  int w = mode_width (r);
  fprintf (out, "\nmemory per process, %d processes of a mode at once from one image or "
           "executable\n(/proc/PID/smaps_rollup once all are started and idle; median "
           "(min..max) over the processes)\n", procs);
  fprintf (out, "%5s  %-*s  %24s  %24s  %12s  %10s\n", "scale", w, "mode",
           "private dirty KiB", "PSS KiB", "dirty/unexec", "PSS/unexec");
  for (size_t i = 0; i < r->scale_count; i++)
    {
      const struct compare_scale *s = &r->scales[i];
      const struct compare_stat *ud = &s->fig[COMPARE_UNEXEC][COMPARE_FIG_MEM_DIRTY_KB];
      const struct compare_stat *up = &s->fig[COMPARE_UNEXEC][COMPARE_FIG_MEM_PSS_KB];
      bool any = false;
      for (int m = 0; m < COMPARE_MODE_COUNT; m++)
        any = any || (r->modes[m] && s->fig[m][COMPARE_FIG_MEM_PSS_KB].n);
      if (!any)
        continue;
      for (int m = 0; m < COMPARE_MODE_COUNT; m++)
        {
          if (!r->modes[m])
            continue;
          const struct compare_stat *d = &s->fig[m][COMPARE_FIG_MEM_DIRTY_KB];
          const struct compare_stat *p = &s->fig[m][COMPARE_FIG_MEM_PSS_KB];
          if (d->n == 0 && p->n == 0)
            continue;           /* a row not measured: see the main table */
          char dirty[48], pss[48], rd[32], rp[32];
          whole_spread_cell (dirty, sizeof dirty, d);
          whole_spread_cell (pss, sizeof pss, p);
          quotient_cell (rd, sizeof rd, d->n ? d->median : 0, ud->n ? ud->median : 0);
          quotient_cell (rp, sizeof rp, p->n ? p->median : 0, up->n ? up->median : 0);
          fprintf (out, "%5ld  %-*s  %24s  %24s  %12s  %10s\n", s->scale, w,
                   compare_mode_names[m], dirty, pss, rd, rp);
        }
    }
  fprintf (out,
"\nprivate dirty: memory a process cannot share; PSS: its resident memory with\n"
"each shared page charged 1/N to each of the N processes mapping it (what a\n"
"mode costs per process); ratios of medians.  Target (issue 15): fixed and\n"
"boot private dirty within 2x of unexec.\n");
}

void
compare_print_tables (FILE *out, const struct compare_results *r)
{
  print_main (out, r);
  print_dumps (out, r);
  print_scaling (out, r);
  print_pdump (out, r);
  print_base_modes (out, r);
  print_memory (out, r);
  fflush (out);
}
