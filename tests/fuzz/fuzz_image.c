/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_image.c: the image fuzz target.

   Feeds arbitrary bytes through everything that reads an image: the
   loader's checks in the loader's order (pdump/check.c through
   tools/inspect/image.c: header, section checksums, relocation of a
   private copy of HOT, registry with and without an executable layout),
   then dumper-inspect's decoders (TYPES, OBJECTS), its reference graph
   and all its views, printed to /dev/null.

   Checksums stop random bytes early, so each input runs twice: as it is
   (what a damaged file meets), and with every section checksum and the
   header checksum recomputed (what a hand-crafted file meets), which
   lets the fuzzer reach the bounds checks behind them.  Compressed
   images (format.h: section codec, frame table, frames) go through the
   loader's decompression (pdump/codec.c) in insp_image_attach; their
   checksums cover the decompressed bytes, which fuzz_reseal computes by
   decompressing the same way, so resealed compressed inputs get past the
   checksums too.
   No input is set aside for its size: the header check ties the
   image size to the sections, and the inspector reserves a compressed
   image's memory as the loader does (zero pages, resident when
   written), so a small file that names gigabytes costs neither.  Views run
   whenever the tables decode, even on images the loader would refuse:
   they must be safe on anything.

   Built two ways: with clang -fsanitize=fuzzer,address,undefined by
   `make fuzz' (libFuzzer supplies main), and with the normal compiler
   into tests/fuzz/replay, which `make check' runs over the committed
   corpus.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tools/inspect/inspect.h"

static struct pdump_exe fake_layout;

static FILE *
sink (void)
{
  static FILE *null_file;
  if (null_file == NULL)
    null_file = fopen ("/dev/null", "w");
  return null_file;
}

static void
run_views (struct insp_image *image, const struct insp_tables *tables,
           const struct insp_graph *graph)
{
  FILE *out = sink ();
  if (out == NULL)
    return;
  char detail[INSP_DETAIL_SIZE];
  struct insp_exe fake_exe;
  memset (&fake_exe, 0, sizeof fake_exe);
  fake_exe.path = "fuzz-exe";
  fake_exe.layout = fake_layout;
  for (int json = 0; json < 2; json++)
    {
      struct insp_ctx ctx = { out, json, image, tables, graph, NULL, false };
      insp_view_summary (&ctx, detail, sizeof detail);
      insp_view_objects (&ctx, -1);
      insp_view_objects (&ctx, PDUMP_TYPE_BYTES);
      ctx.exe = &fake_exe;
      insp_view_summary (&ctx, detail, sizeof detail);
      uint64_t n = tables->object_count;
      uint64_t probes[] = { 0, n / 2, n ? n - 1 : 0 };
      for (size_t i = 0; i < 3 && n; i++)
        insp_view_refs (&ctx, tables->objects[probes[i]].offset + 1, detail,
                        sizeof detail);
      insp_view_refs (&ctx, 0, detail, sizeof detail);
    }
}

/* One pass; the loader's verdict, and the tables' in *TABLES.  */
static enum dumper_status
run_pass (unsigned char *bytes, size_t size, enum dumper_status *tables_status)
{
  char detail[INSP_DETAIL_SIZE];
  struct insp_image image;
  enum dumper_status status = insp_image_attach (&image, "fuzz-input", bytes,
                                                 size, NULL, detail,
                                                 sizeof detail);
  *tables_status = status;
  if (status != DUMPER_OK)
    {
      insp_image_free (&image);
      return status;
    }
  status = insp_image_verify (&image, NULL, NULL, 0, detail, sizeof detail);
  insp_image_verify (&image, &fake_layout, NULL, 0, detail, sizeof detail);

  struct insp_tables tables;
  *tables_status = insp_tables_decode (&image, &tables, detail, sizeof detail);
  insp_tables_free (&tables);
  if (insp_tables_parse (&image, &tables, detail, sizeof detail) == DUMPER_OK)
    {
      struct insp_graph graph;
      if (insp_graph_build (&image, &tables, &graph, detail, sizeof detail)
          == DUMPER_OK)
        run_views (&image, &tables, &graph);
      insp_graph_free (&graph);
    }
  insp_tables_free (&tables);
  insp_image_free (&image);
  return status;
}

void
fuzz_image_run (const uint8_t *data, size_t size, struct fuzz_result *result)
{
  fake_layout = fuzz_fake_layout (0);
  /* The checks read words in place: give them 8-byte aligned bytes, as
     the inspector's malloc'd buffer is.  */
  unsigned char *bytes = malloc (size ? size : 1);
  if (bytes == NULL)
    abort ();
  if (size)
    memcpy (bytes, data, size);
  result->check = run_pass (bytes, size, &result->tables);
  enum dumper_status ignored;
  fuzz_reseal (bytes, size);
  run_pass (bytes, size, &ignored);
  free (bytes);
}
