/* SPDX-License-Identifier: MIT */
/* tools/inspect/inspect.h: the parts of dumper-inspect, one concern per
   file.

     image.c    read an image and check it in the loader's order, with
                the loader's own checks (pdump/check.c)
     tables.c   decode the inspection-only tables, TYPES and OBJECTS
     graph.c    the references between objects, from the relocation
                tables and the registry
     exefile.c  the --exe binary's layout and fingerprint (libelf)
     symbols.c  the --exe binary's symbols (libbfd)
     out.c      output helpers: JSON writer, escaped names, hex
     summary.c  the default view; exerefs.c its --exe part
     objects.c  --objects;  refs.c  --refs
     main.c     options, dispatch, exit statuses

   Everything but main.c and exefile.c/symbols.c works on bytes in
   memory, so the fuzz target (tests/fuzz/fuzz_image.c) runs the same
   code on its inputs.  The image is untrusted: every offset, size and
   count read from it is checked before use, and nothing here may crash
   on any input.  Output never contains addresses of this process: only
   file offsets and offsets in the executable.  */

#ifndef DUMPER_INSPECT_H
#define DUMPER_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dumper/dumper.h>

#include "pdump/check.h"
#include "pdump/exe.h"
#include "pdump/format.h"

#define INSP_DETAIL_SIZE 1024
#define INSP_NONE UINT64_MAX          /* "no object" */

/* ------------------------------------------------------------------ */
/* image.c */

struct insp_image
{
  const char *path;
  unsigned char *bytes;       /* the whole image as the loader lays it out
                                 in memory (decompressed), 8-byte aligned */
  uint64_t size;              /* header.image_size once checked */
  bool owned;                 /* bytes were allocated here */
  bool bytes_zmem;            /* ... by common_zalloc (a decompressed
                                 image), not malloc */
  unsigned char *stored;      /* the stored bytes, when compressed */
  bool stored_owned;
  uint64_t file_size;         /* stored bytes (the image's share of the
                                 file when embedded) */
  bool embedded;              /* a section of an executable */
  uint64_t embed_offset;      /* its file offset */
  struct pdump_view view;     /* valid once the header check passed */
  uint64_t image_relocs;      /* counted by insp_image_verify */
  uint64_t exe_relocs;
};

/* Open PATH and read it as the loader does: missing or not a regular
   file (DUMPER_E_IMAGE_MISSING), then the first 4096 bytes through
   pdump_check_header (with FINGERPRINT when not NULL), then the whole
   file.  On success IMAGE owns the bytes (insp_image_free).  */
enum dumper_status insp_image_read (struct insp_image *image,
                                    const char *path,
                                    const unsigned char *fingerprint,
                                    char *detail, size_t detail_size);

/* The same header check on SIZE bytes already in memory (BYTES must be
   8-byte aligned and stay valid; they are not copied).  A compressed
   image is decompressed into memory IMAGE owns: call insp_image_free
   afterwards, whatever the status.  */
enum dumper_status insp_image_attach (struct insp_image *image,
                                      const char *path,
                                      unsigned char *bytes, uint64_t size,
                                      const unsigned char *fingerprint,
                                      char *detail, size_t detail_size);

/* The rest of the loader's sequence (pdump_verify) on an image whose
   header passed: checksums of RELOC_IMAGE, RELOC_EXE, REGISTRY,
   SCALAR_DATA, RELOC_CODE and COLD; relocation of a private copy of HOT
   with both bases 0 (executable values bounded by EXE->hi when EXE is
   given); with DECLS (the executable's declaration table, may be NULL),
   the code pointers RELOC_CODE lists, restored in that copy; the
   registry against EXE (may be NULL: records checked without an
   executable layout) and DECLS.  Sets the relocation counts.  The image
   bytes are not changed.  */
enum dumper_status insp_image_verify (struct insp_image *image,
                                      const struct pdump_exe *exe,
                                      const struct dumper_decl *decls,
                                      size_t decl_count,
                                      char *detail, size_t detail_size);

void insp_image_free (struct insp_image *image);

/* The bytes of section KIND (checked to lie in the file).  */
const unsigned char *insp_section_bytes (const struct insp_image *image,
                                         enum pdump_section_kind kind);

/* ------------------------------------------------------------------ */
/* tables.c */

struct insp_type
{
  const unsigned char *name;  /* inside the image; not NUL-terminated */
  uint32_t name_length;
  uint8_t section;            /* 0 no objects, else PDUMP_SECTION_HOT/COLD */
  bool owner_sized;           /* TYPES says so: sizes are referrers' */
};

struct insp_object
{
  uint64_t offset;            /* file offset */
  uint64_t size;
  uint32_t type;              /* type index or PDUMP_TYPE_BYTES */
};

struct insp_tables
{
  struct insp_type *types;    /* header.type_count entries */
  uint32_t type_count;
  struct insp_object *objects;  /* image order: HOT then COLD */
  uint64_t object_count;
  uint64_t hot_count;
  uint64_t block_count;       /* byte blocks, all in COLD */
  uint64_t align;             /* max (PDUMP_ALIGN, 1 << tag_bits) */
};

/* Check the checksums of TYPES and OBJECTS, then insp_tables_parse.
   Failures are DUMPER_E_IMAGE_CORRUPT (or DUMPER_E_NOMEM) with a
   message that says these tables are for inspection only.  */
enum dumper_status insp_tables_decode (const struct insp_image *image,
                                       struct insp_tables *tables,
                                       char *detail, size_t detail_size);

/* Decode TYPES and OBJECTS without their checksums: every name within
   TYPES, every LEB128 number within OBJECTS, as many objects as the
   header counts, HOT and COLD ones as the section table counts, each
   type in one of the two sections (byte blocks in COLD), and objects
   that tile each section as format.h lays them out.  */
enum dumper_status insp_tables_parse (const struct insp_image *image,
                                      struct insp_tables *tables,
                                      char *detail, size_t detail_size);

void insp_tables_free (struct insp_tables *tables);

/* In ARRAY[LO, HI), elements of STRIDE bytes sorted by a uint64_t
   first member: the index after the last element whose key is at most
   KEY (LO when none is).  */
size_t insp_upper_bound (const void *array, size_t stride, size_t lo,
                         size_t hi, uint64_t key);

/* The last of objects [FIRST, LIMIT) that starts at or before file
   offset OFFSET; INSP_NONE when none.  */
uint64_t insp_object_before (const struct insp_tables *tables,
                             uint64_t first, uint64_t limit, uint64_t offset);

/* Whether TYPE (a type index, or PDUMP_TYPE_BYTES) is owner-sized.  */
static inline bool
insp_owner_sized (const struct insp_tables *tables, uint32_t type)
{
  return type < tables->type_count && tables->types[type].owner_sized;
}

/* The object whose bytes contain file offset OFFSET, searching objects
   [FIRST, LIMIT); INSP_NONE when none.  */
uint64_t insp_object_containing (const struct insp_tables *tables,
                                 uint64_t first, uint64_t limit,
                                 uint64_t offset);

/* Name of type TYPE for printing; "(bytes)" for byte blocks.  Sets
   *LENGTH.  */
const unsigned char *insp_type_name (const struct insp_tables *tables,
                                     uint32_t type, size_t *length);

/* The type named NAME (byte for byte), or -1 when none: "(bytes)" names
   the byte blocks.  With duplicate names the first index.  */
int64_t insp_type_lookup (const struct insp_tables *tables, const char *name);

/* ------------------------------------------------------------------ */
/* graph.c */

/* A HOT word that points into the image.  */
struct insp_edge
{
  uint64_t from;              /* object index */
  uint64_t field;             /* byte offset of the word in it */
  uint64_t to;                /* object index */
  uint32_t tag;
  /* An interior pointer (dumper_trace_interior): the value lies this
     many bytes into the target (up to its size: one past its end),
     beyond what a tag could be.  0 otherwise.  (One into the first
     1 << tag_bits bytes reads as a tag: the image does not mark which
     words are interior, only how many, header.interior_count.)  */
  uint64_t into;
};

/* A HOT word that points into the executable.  */
struct insp_exe_ref
{
  uint64_t from;
  uint64_t field;
  uint64_t value;             /* executable offset + tag, as stored */
};

/* A registry record, decoded.  */
struct insp_record
{
  struct pdump_record raw;
  uint64_t target;            /* object index for image values, else INSP_NONE */
  uint32_t tag;
};

struct insp_graph
{
  struct insp_edge *edges;    /* by source object, then field */
  uint64_t edge_count;
  uint64_t *first_edge;       /* object_count + 1: edges of object i are
                                 [first_edge[i], first_edge[i + 1]) */
  struct insp_exe_ref *exe_refs;  /* by source object, then field */
  uint64_t exe_ref_count;
  uint64_t interior_edge_count;   /* edges with into > 0 */
  struct insp_record *records;    /* registration order */
  uint64_t record_count;
};

/* Find the object and field of every relocated HOT word and of every
   registry value.  A word outside every object, or a value that is not
   an object's offset plus a tag, means the OBJECTS table disagrees with
   the image: DUMPER_E_IMAGE_CORRUPT.  Reads only within the sections;
   safe on any image whose header passed.  */
enum dumper_status insp_graph_build (const struct insp_image *image,
                                     const struct insp_tables *tables,
                                     struct insp_graph *graph,
                                     char *detail, size_t detail_size);

void insp_graph_free (struct insp_graph *graph);

/* ------------------------------------------------------------------ */
/* exefile.c */

struct insp_symbols;

struct insp_exe
{
  const char *path;
  struct pdump_exe layout;    /* as pdump_exe_layout reads it in memory */
  bool has_fingerprint;
  unsigned char fingerprint[DUMPER_FINGERPRINT_SIZE];
  const char *fingerprint_source;   /* "dumper note", "GNU build-id" */
  struct insp_symbols *symbols;     /* NULL until insp_symbols_open */
  /* The declaration table, as the loader reads it in memory: addresses
     unbiased (layout.bias is 0), names copied from the file (NULL when
     not found), a code table's array copied from the file (addr then
     points to the copy; size 0 when the file does not hold it).  Never
     NULL for an executable of this build's machine
     and word size, even without the section (then DECL_COUNT is 0);
     NULL otherwise.  */
  struct dumper_decl *decls;
  size_t decl_count;
};

/* Read PATH's program headers into EXE->layout (PT_LOAD, PT_GNU_RELRO,
   DT_PLTGOT as the loader reads them from memory), its fingerprint
   (the patched dumper note, else a hash of the GNU build-id, as the
   bridge computes it) and its declaration table (section
   dumper_decls).  DUMPER_E_EXE when PATH cannot be opened or is not a
   usable ELF file, or its declaration table has a size that is not a
   whole number of this build's entries.  */
enum dumper_status insp_exe_open (struct insp_exe *exe, const char *path,
                                  char *detail, size_t detail_size);

void insp_exe_close (struct insp_exe *exe);

/* ------------------------------------------------------------------ */
/* symbols.c */

struct insp_symbol_ref
{
  const char *name;           /* NULL: on no symbol */
  uint64_t start;             /* the symbol's address */
};

/* Read PATH's symbols with libbfd (the static table, else the dynamic
   one).  DUMPER_E_EXE when libbfd cannot read PATH.  */
enum dumper_status insp_symbols_open (struct insp_symbols **symbols,
                                      const char *path,
                                      char *detail, size_t detail_size);

void insp_symbols_close (struct insp_symbols *symbols);

/* Symbols kept for lookups (0 for a stripped binary).  */
uint64_t insp_symbols_count (const struct insp_symbols *symbols);

/* The symbol that ADDRESS (unbiased) falls on: the nearest symbol at or
   before it in the same allocated section.  SYMBOLS may be NULL.  */
struct insp_symbol_ref insp_symbols_lookup (const struct insp_symbols *symbols,
                                            uint64_t address);

/* A short printable string that describes ADDRESS: the string at it, or
   the string a pointer at it points to (the "car" of a built-in
   function's table entry).  False when there is none.  */
bool insp_symbols_hint (struct insp_symbols *symbols, uint64_t address,
                        char *buffer, size_t size);

/* ------------------------------------------------------------------ */
/* out.c */

#define INSP_JSON_MAX_DEPTH 16

struct insp_json
{
  FILE *out;
  int depth;
  bool has_items[INSP_JSON_MAX_DEPTH];
};

void insp_json_start (struct insp_json *json, FILE *out);
void insp_json_finish (struct insp_json *json);
/* KEY is NULL inside arrays.  */
void insp_json_open (struct insp_json *json, const char *key, char bracket);
void insp_json_close (struct insp_json *json, char bracket);
void insp_json_string (struct insp_json *json, const char *key,
                       const char *value);
void insp_json_bytes (struct insp_json *json, const char *key,
                      const unsigned char *value, size_t length);
void insp_json_uint (struct insp_json *json, const char *key, uint64_t value);
void insp_json_bool (struct insp_json *json, const char *key, bool value);
void insp_json_null (struct insp_json *json, const char *key);
/* VALUE printed with two decimals (a percentage).  */
void insp_json_percent (struct insp_json *json, const char *key, double value);

/* Print LENGTH bytes of NAME, printable ASCII as is, others as \xNN.  */
void insp_put_name (FILE *out, const unsigned char *name, size_t length);

/* The same, padded with spaces to WIDTH columns.  */
void insp_put_padded_name (FILE *out, const unsigned char *name,
                           size_t length, int width);

/* HEX gets 2 * SIZE + 1 characters.  */
void insp_hex (char *hex, const unsigned char *bytes, size_t size);

/* ------------------------------------------------------------------ */
/* The views.  */

struct insp_ctx
{
  FILE *out;
  bool json;
  const struct insp_image *image;
  const struct insp_tables *tables;
  const struct insp_graph *graph;
  struct insp_exe *exe;       /* NULL without --exe */
  bool fingerprint_matches;   /* with EXE */
};

/* Each view prints to CTX->out; DUMPER_E_NOMEM is its only failure
   unless said otherwise.  */
enum dumper_status insp_view_summary (const struct insp_ctx *ctx,
                                      char *detail, size_t detail_size);
/* TYPE: a type index, PDUMP_TYPE_BYTES, or -1 for all.  */
enum dumper_status insp_view_objects (const struct insp_ctx *ctx,
                                      int64_t type);

/* objects.c: one object as every view shows it.  "0x00001000 vec": */
void insp_put_object (const struct insp_ctx *ctx, uint64_t index);
/* A table row: offset, [section,] type, size, newline: */
void insp_put_object_row (const struct insp_ctx *ctx, uint64_t index,
                          bool with_section);
/* {"offset":..,"section":..,"type":..,"size":..} as member KEY: */
void insp_json_object (const struct insp_ctx *ctx, struct insp_json *json,
                       const char *key, uint64_t index);

/* Describe the object containing OFFSET; DUMPER_E_USAGE (nothing
   printed) when no object contains it.  */
enum dumper_status insp_view_refs (const struct insp_ctx *ctx,
                                   uint64_t offset, char *detail,
                                   size_t detail_size);

/* exerefs.c: the executable references and the registry of the
   default view, named by the --exe binary's symbols (CTX->exe, not
   NULL).  Gathered first, so printing cannot fail half-way.  */
struct insp_exerefs;
enum dumper_status insp_exerefs_gather (const struct insp_ctx *ctx,
                                        struct insp_exerefs **exerefs,
                                        char *detail, size_t detail_size);
void insp_exerefs_text (const struct insp_ctx *ctx,
                        const struct insp_exerefs *exerefs);
void insp_exerefs_json (const struct insp_ctx *ctx,
                        const struct insp_exerefs *exerefs,
                        struct insp_json *json);
void insp_exerefs_free (struct insp_exerefs *exerefs);

/* How a registry record is shown: "root", "word", "ptr", "scalar",
   "hook".  */
const char *insp_record_kind_name (unsigned kind);

/* Print "symbol+0xOFF" (or "exe+0xOFF" on no symbol) for ADDRESS.  */
void insp_put_exe_address (FILE *out, const struct insp_exe *exe,
                           uint64_t address);
/* The same as a JSON object member KEY: {"symbol":..,"offset":..}.  */
void insp_json_exe_address (struct insp_json *json, const char *key,
                            const struct insp_exe *exe, uint64_t address);

/* dumper-inspect --check --deep (deep.c): run EXE_PATH, a dumper host,
   as `EXE_PATH --dump-file=IMAGE_PATH' in check-only mode with the
   structural pass, and return its loader's verdict.  DUMPER_E_EXE when
   the program is not a host that answers that way.  */
enum dumper_status insp_deep_check (const char *exe_path,
                                    const char *image_path, char *detail,
                                    size_t detail_size);

#endif /* DUMPER_INSPECT_H */
