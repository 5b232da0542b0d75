/* SPDX-License-Identifier: MIT */
/* tools/inspect/main.c: dumper-inspect, the command line.

   Parses the options, runs the loader's checks on the image (image.c),
   decodes what the chosen view needs and prints it.  Failures become a
   message naming the file and the problem, and an exit status: the
   loader's own (dumper_exit_status) for everything about the image, so
   `dumper-inspect --check' exits exactly as a host's start-up would;
   64 for bad arguments; 93 for an unusable --exe binary.  The statuses
   are listed in dumper-inspect(1).  */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"
#include "tools/common/cli.h"

static const char *program_name = "dumper-inspect";

enum view { VIEW_SUMMARY, VIEW_OBJECTS, VIEW_REFS, VIEW_CHECK };

struct options
{
  enum view view;
  int view_count;
  const char *image_path;
  const char *exe_path;
  const char *type_name;
  uint64_t refs_offset;
  bool json;
  bool deep;
};

static void
usage (FILE *out)
{
  fprintf (out,
"Usage: %s [OPTION]... IMAGE\n"
"Show what is in the pdump IMAGE: header, sections, objects and bytes per\n"
"type, relocations, registry, the largest objects.\n"
"\n"
"  -e, --exe BINARY    name references into the executable by BINARY's\n"
"                      symbols and tell whether BINARY wrote IMAGE\n"
"  -o, --objects       list the objects: offset, section, type, size\n"
"  -t, --type NAME     with --objects, only objects of type NAME\n"
"                      (\"(bytes)\" names the byte blocks)\n"
"  -r, --refs OFFSET   the object at file offset OFFSET (decimal or 0x...):\n"
"                      what it points to, what points at it, what keeps it\n"
"  -c, --check         validate IMAGE as the loader does (with --exe, for\n"
"                      BINARY, fingerprint included) and exit as it would\n"
"                      with verification `none'\n"
"  -d, --deep          with --check --exe: also the structural pass, by\n"
"                      running BINARY's own loader in check-only mode\n"
"                      (as it would load with DUMPER_PDUMP_VERIFY=structure)\n"
"  -j, --json          print JSON (any view)\n"
"  -h, --help          show this help and exit\n"
"  -V, --version       show the version and exit\n"
"\n"
"Exit status: 0 success; 64 usage error; 71 out of memory; 74 I/O error;\n"
"80 image missing, 81 truncated, 82 not an image, 83 another format version,\n"
"84 another architecture, 85 another build (--check --exe), 86 corrupt;\n"
"93 BINARY unusable; 94 BINARY has no fingerprint (--check --exe).\n",
           program_name);
}

static struct tool_cli cli = { "dumper-inspect", usage, 0 };

/* Print the failure and return its exit status.  */
static int
report (enum dumper_status status, const char *detail)
{
  if (status == DUMPER_E_EXE || status == DUMPER_E_USAGE)
    fprintf (stderr, "%s: %s\n", program_name, detail);
  else
    fprintf (stderr, "%s: %s: %s\n", program_name, dumper_strerror (status),
             detail);
  return dumper_exit_status (status);
}

static bool
parse_offset (const char *text, uint64_t *offset)
{
  char *end;
  errno = 0;
  unsigned long long value = strtoull (text, &end, 0);
  if (errno != 0 || end == text || *end != '\0' || strchr (text, '-'))
    return false;
  *offset = value;
  return true;
}

static int
parse (int argc, char **argv, struct options *o)
{
  static const struct option long_options[] = {
    { "exe", required_argument, NULL, 'e' },
    { "objects", no_argument, NULL, 'o' },
    { "type", required_argument, NULL, 't' },
    { "refs", required_argument, NULL, 'r' },
    { "check", no_argument, NULL, 'c' },
    { "deep", no_argument, NULL, 'd' },
    { "json", no_argument, NULL, 'j' },
    { NULL, 0, NULL, 0 }
  };
  memset (o, 0, sizeof *o);
  int c;
  while ((c = tool_cli_getopt (&cli, argc, argv, "e:ot:r:cdj", long_options)) != -1)
    switch (c)
      {
      case 'e': o->exe_path = optarg; break;
      case 'o': o->view = VIEW_OBJECTS; o->view_count++; break;
      case 't': o->type_name = optarg; break;
      case 'r':
        if (!parse_offset (optarg, &o->refs_offset))
          return tool_usage_error (&cli, "--refs: `%s' is not an offset (decimal, or hex "
                              "with 0x)", optarg);
        o->view = VIEW_REFS;
        o->view_count++;
        break;
      case 'c': o->view = VIEW_CHECK; o->view_count++; break;
      case 'd': o->deep = true; break;
      case 'j': o->json = true; break;
      default:                  /* TOOL_CLI_EXIT: --help, --version, a mistake */
        return cli.status ? cli.status : -1;
      }
  if (o->view_count > 1)
    return tool_usage_error (&cli, "--objects, --refs and --check are different "
                        "views: give one");
  if (o->deep && (o->view != VIEW_CHECK || o->exe_path == NULL))
    return tool_usage_error (&cli, "--deep goes with --check and --exe BINARY "
                             "(the structural pass needs BINARY's trace "
                             "functions)");
  if (o->type_name && o->view != VIEW_OBJECTS)
    return tool_usage_error (&cli, "--type goes with --objects");
  if (optind >= argc)
    return tool_usage_error (&cli, "no image given");
  if (optind + 1 < argc)
    return tool_usage_error (&cli, "more than one image given (`%s' ...); inspect one "
                        "at a time", argv[optind + 1]);
  o->image_path = argv[optind];
  return 0;
}

/* ------------------------------------------------------------------ */

/* --check: the loader's verdict.  */
static int
run_check (const struct options *o, struct insp_exe *exe)
{
  char detail[INSP_DETAIL_SIZE] = "";
  struct insp_image image;
  memset (&image, 0, sizeof image);
  enum dumper_status status = DUMPER_OK;
  if (exe && !exe->has_fingerprint)
    /* The loader needs its own fingerprint before it opens an image.  */
    status = pdump_check_fail (DUMPER_E_NO_FINGERPRINT, detail, sizeof detail,
                        exe->path, "cannot check the image against this "
                        "executable: it has neither a dumper fingerprint note "
                        "nor a GNU build-id");
  if (status == DUMPER_OK)
    status = insp_image_read (&image, o->image_path,
                              exe ? exe->fingerprint : NULL, detail,
                              sizeof detail);
  if (status == DUMPER_OK)
    status = insp_image_verify (&image, exe ? &exe->layout : NULL,
                                exe ? exe->decls : NULL,
                                exe ? exe->decl_count : 0, detail,
                                sizeof detail);
  /* --deep: the rest is the host's own loader (deep.c).  */
  if (status == DUMPER_OK && o->deep)
    status = insp_deep_check (exe->path, o->image_path, detail, sizeof detail);

  /* The inspection-only tables do not change the verdict (the loader
     never reads them), but a damaged one is worth a word.  */
  char tables_detail[INSP_DETAIL_SIZE] = "";
  enum dumper_status tables_status = DUMPER_OK;
  if (status == DUMPER_OK)
    {
      struct insp_tables tables;
      tables_status = insp_tables_decode (&image, &tables, tables_detail,
                                          sizeof tables_detail);
      insp_tables_free (&tables);
    }

  if (o->json)
    {
      struct insp_json j;
      insp_json_start (&j, stdout);
      insp_json_open (&j, NULL, '{');
      insp_json_string (&j, "image", o->image_path);
      if (exe)
        insp_json_string (&j, "executable", exe->path);
      else
        insp_json_null (&j, "executable");
      insp_json_bool (&j, "ok", status == DUMPER_OK);
      insp_json_string (&j, "verify", o->deep ? "structure" : "none");
      insp_json_uint (&j, "exit_status", (uint64_t) dumper_exit_status (status));
      insp_json_string (&j, "status", dumper_strerror (status));
      if (status == DUMPER_OK)
        {
          insp_json_null (&j, "message");
          insp_json_uint (&j, "objects", image.view.header.object_count);
          insp_json_uint (&j, "image_relocations", image.image_relocs);
          insp_json_uint (&j, "executable_relocations", image.exe_relocs);
          insp_json_uint (&j, "registry_records",
                          image.view.sections[PDUMP_SECTION_REGISTRY].count);
          if (tables_status == DUMPER_OK)
            insp_json_null (&j, "inspection_tables_damage");
          else
            insp_json_string (&j, "inspection_tables_damage", tables_detail);
        }
      else
        insp_json_string (&j, "message", detail);
      insp_json_close (&j, '}');
      insp_json_finish (&j);
    }
  else if (status == DUMPER_OK)
    printf ("%s: ok: %" PRIu64 " objects, %" PRIu64 " image and %" PRIu64
            " executable relocations, %" PRIu64 " registry records%s%s%s\n",
            o->image_path, image.view.header.object_count, image.image_relocs,
            image.exe_relocs, image.view.sections[PDUMP_SECTION_REGISTRY].count,
            exe ? "; matches " : " (no --exe: fingerprint and executable "
            "addresses not checked)", exe ? exe->path : "",
            o->deep ? "; structure verified by its loader" : "");
  if (status != DUMPER_OK)
    report (status, detail);
  else if (tables_status != DUMPER_OK)
    fprintf (stderr, "%s: warning: %s; the loader ignores these tables, the "
             "other views refuse them\n", program_name, tables_detail);
  insp_image_free (&image);
  return dumper_exit_status (status);
}

/* The views: check, decode, print.  */
static int
run_view (const struct options *o, struct insp_exe *exe)
{
  char detail[INSP_DETAIL_SIZE] = "";
  struct insp_image image;
  struct insp_tables tables;
  struct insp_graph graph;
  memset (&tables, 0, sizeof tables);
  memset (&graph, 0, sizeof graph);
  struct insp_ctx ctx = { stdout, o->json, &image, &tables, &graph, exe, false };

  enum dumper_status status = DUMPER_OK;
  if (exe)
    status = insp_symbols_open (&exe->symbols, exe->path, detail, sizeof detail);
  if (status == DUMPER_OK)
    status = insp_image_read (&image, o->image_path, NULL, detail, sizeof detail);
  else
    memset (&image, 0, sizeof image);
  /* Another build's layout says nothing about this image: check the
     registry against the binary's layout only when it wrote the image.  */
  ctx.fingerprint_matches
    = exe && exe->has_fingerprint && status == DUMPER_OK
      && memcmp (exe->fingerprint, image.view.header.fingerprint,
                 DUMPER_FINGERPRINT_SIZE) == 0;
  if (status == DUMPER_OK)
    status = insp_image_verify (&image, ctx.fingerprint_matches ? &exe->layout
                                : NULL, ctx.fingerprint_matches ? exe->decls
                                : NULL, ctx.fingerprint_matches
                                ? exe->decl_count : 0, detail, sizeof detail);
  if (status == DUMPER_OK)
    status = insp_tables_decode (&image, &tables, detail, sizeof detail);
  if (status == DUMPER_OK)
    status = insp_graph_build (&image, &tables, &graph, detail, sizeof detail);

  int64_t type = -1;
  if (status == DUMPER_OK && o->type_name
      && (type = insp_type_lookup (&tables, o->type_name)) < 0)
    status = pdump_check_fail (DUMPER_E_USAGE, detail, sizeof detail, o->image_path,
                        "no type is named `%s'; the summary lists the types",
                        o->type_name);
  if (status == DUMPER_OK)
    switch (o->view)
      {
      case VIEW_OBJECTS:
        status = insp_view_objects (&ctx, type);
        break;
      case VIEW_REFS:
        status = insp_view_refs (&ctx, o->refs_offset, detail, sizeof detail);
        break;
      default:
        status = insp_view_summary (&ctx, detail, sizeof detail);
        break;
      }
  insp_graph_free (&graph);
  insp_tables_free (&tables);
  insp_image_free (&image);
  return status == DUMPER_OK ? 0 : report (status, detail);
}

/* Flush standard output; a failed write (a full disk, a closed pipe)
   is an I/O error, whatever the view said.  */
static int
finish_output (int status)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, "%s: cannot write the output: %s\n", program_name,
               strerror (errno));
      return status ? status : dumper_exit_status (DUMPER_E_IO);
    }
  return status;
}

int
main (int argc, char **argv)
{
  struct options o;
  int status = parse (argc, argv, &o);
  if (status != 0)
    return finish_output (status < 0 ? 0 : status);

  struct insp_exe exe;
  memset (&exe, 0, sizeof exe);
  if (o.exe_path)
    {
      char detail[INSP_DETAIL_SIZE];
      enum dumper_status st = insp_exe_open (&exe, o.exe_path, detail,
                                             sizeof detail);
      if (st != DUMPER_OK)
        return report (st, detail);
    }
  struct insp_exe *exe_arg = o.exe_path ? &exe : NULL;
  status = o.view == VIEW_CHECK ? run_check (&o, exe_arg) : run_view (&o, exe_arg);
  insp_exe_close (&exe);
  return finish_output (status);
}
