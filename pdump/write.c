/* SPDX-License-Identifier: MIT */
/* pdump/write.c: pdump_write, from a finished walk to a file on disk.

   Owns the file layout (see format.h): it places the sections, turns
   the walk's section-relative offsets into file offsets, sorts the
   executable relocations, encodes the object index, computes the
   checksums and writes everything to a temporary file in the target's
   directory, which is synced and renamed over the target (by
   common/atomic.c: a failure at any point, a file-size limit included,
   removes the temporary file and is an error the caller sees).

   Before the rename the written file is read back and put through the
   loader's own checks (check.c: header, every section checksum, the
   relocations, the registry against this executable), so an image the
   loader would refuse is never put in place with a success status.
   Test-only, in a library configured with --enable-test-hooks (never a
   release library): the environment variable DUMPER_TEST_DAMAGE_IMAGE=
   OFFSET flips the byte at OFFSET of the written file before that
   check, to show the check catches it (tests/e2e/refuse.sh).  */

#include <config.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/atomic.h"
#include "codec.h"
#include "hash.h"

#include "check.h"
#include "format.h"
#include "internal.h"
#include "verify.h"
#include "walk.h"

enum section_slot
{
  S_HOT, S_COLD, S_RELOC_IMAGE, S_RELOC_EXE, S_REGISTRY, S_SCALAR_DATA,
  S_TYPES, S_OBJECTS, S_RELOC_CODE, S_COUNT
};

struct layout
{
  struct pdump_header header;
  struct pdump_section sections[S_COUNT];
  const void *content[S_COUNT];
  const void *stored[S_COUNT];      /* what goes to the file */
  unsigned char *owned[S_COUNT];    /* buffers built here, to free */
  unsigned char *packed[S_COUNT];   /* compressed forms, to free */
  uint64_t page_size;
  uint64_t end;
};

static uint64_t
align_up (uint64_t n, uint64_t alignment)
{
  return (n + alignment - 1) & ~(alignment - 1);
}

static int
compare_u32 (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return (x > y) - (x < y);
}

static unsigned char *
encode_types (const struct dumper_heap *heap, size_t *size)
{
  size_t names = 0;
  for (int t = 0; t < heap->type_count; t++)
    names += strlen (heap->types[t].name);
  size_t table = (size_t) heap->type_count * sizeof (struct pdump_type_entry);
  unsigned char *out = calloc (1, table + names + 1);
  if (out == NULL)
    return NULL;
  size_t at = table;
  for (int t = 0; t < heap->type_count; t++)
    {
      size_t len = strlen (heap->types[t].name);
      uint32_t flags = heap->types[t].size == NULL ? PDUMP_TYPE_OWNER_SIZED : 0;
      struct pdump_type_entry e = { (uint32_t) at, (uint32_t) len | flags };
      memcpy (out + (size_t) t * sizeof e, &e, sizeof e);
      memcpy (out + at, heap->types[t].name, len);
      at += len;
    }
  *size = at;
  return out;
}

/* The file offset of HOT: header and section table fit in the first
   page.  */
static uint64_t
page_size_of (void)
{
  long page = sysconf (_SC_PAGESIZE);
  return page > 4096 ? (uint64_t) page : 4096;
}

/* Rewrite the image relocations of HOT words [FIRST_WORD, ...) held at
   DATA (BYTES bytes) into their addresses with the image at its
   preferred base (HOT_AT and COLD_AT: where HOT and COLD then lie).
   True when one was rewritten.  */
static bool
patch_words (const struct pdump_walk *w, unsigned char *data, size_t bytes,
             size_t first_word, uint64_t hot_at, uint64_t cold_at)
{
  bool patched = false;
  size_t first = first_word / 64;
  size_t end = (first_word + bytes / PDUMP_WORD_SIZE + 63) / 64;
  for (size_t i = first; i < end; i++)
    for (uint64_t bits = w->hot.image_bits[i]; bits; bits &= bits - 1)
      {
        size_t word = i * 64 + (size_t) __builtin_ctzll (bits) - first_word;
        pdump_word value;
        memcpy (&value, data + word * PDUMP_WORD_SIZE, sizeof value);
        value = (pdump_word) pdump_walk_file_offset (w, value, hot_at,
                                                     cold_at);
        memcpy (data + word * PDUMP_WORD_SIZE, &value, sizeof value);
        patched = true;
      }
  return patched;
}

/* HOT already in the file (a streamed walk): read it back in chunks,
   rewrite its relocations, checksum it and write back what changed.
   The chunks are whole bitmap words (64 HOT words each).  Returns 0
   or an errno.  */
#define PATCH_CHUNK ((size_t) 512 << 10)

static int
finalise_streamed_hot (const struct pdump_walk *w, uint64_t hot_offset,
                       uint64_t cold_offset, uint64_t base, uint64_t *checksum)
{
  XXH3_state_t *state = XXH3_createState ();
  unsigned char *chunk = malloc (PATCH_CHUNK);
  int err = state && chunk ? 0 : ENOMEM;
  if (err == 0)
    XXH3_64bits_reset (state);
  uint64_t hot_size = w->hot.bytes.size;
  for (uint64_t at = 0; err == 0 && at < hot_size; at += PATCH_CHUNK)
    {
      size_t n = hot_size - at < PATCH_CHUNK ? (size_t) (hot_size - at)
                                             : PATCH_CHUNK;
      err = common_pread_fully (w->hot_fd, chunk, n, hot_offset + at);
      if (err == COMMON_EOF)
        err = EIO;             /* shorter than the walk wrote it */
      /* Both run, so no || here.  */
      bool laid = err == 0 && pdump_walk_overlay_late (w, chunk, at, n);
      if (err == 0
          && (patch_words (w, chunk, n, (size_t) (at / PDUMP_WORD_SIZE),
                           base + hot_offset, base + cold_offset)
              | laid))
        err = common_pwrite_fully (w->hot_fd, chunk, n, hot_offset + at);
      if (err == 0)
        XXH3_64bits_update (state, chunk, n);
    }
  if (err == 0)
    *checksum = XXH3_64bits_digest (state);
  free (chunk);
  XXH3_freeState (state);
  return err;
}

/* Rewrite the walk's offsets, now that HOT and COLD have their places:
   registry values into image offsets, HOT words into addresses at the
   preferred base BASE (format.h); and checksum HOT.  Returns 0 or an
   errno.  */
static int
finalise_offsets (struct pdump_walk *w, uint64_t hot_offset,
                  uint64_t cold_offset, uint64_t base, uint64_t *hot_checksum)
{
  for (size_t i = 0; i < w->record_count; i++)
    if (w->records[i].value_kind == PDUMP_VALUE_IMAGE)
      w->records[i].value = pdump_walk_file_offset (w, w->records[i].value,
                                                    hot_offset, cold_offset);
  if (w->hot_fd >= 0)
    return finalise_streamed_hot (w, hot_offset, cold_offset, base,
                                  hot_checksum);
  const struct pdump_buf *hot = &w->hot.bytes;
  patch_words (w, hot->data, hot->size, 0, base + hot_offset,
               base + cold_offset);
  *hot_checksum = XXH3_64bits (hot->data, hot->size);
  return 0;
}

/* Place a section after the last; CONTENT NULL: already in the file.  */
static void
set_section_sum (struct layout *l, enum section_slot slot, uint32_t kind,
                 const void *content, uint64_t size, uint64_t count,
                 uint64_t align, uint64_t checksum)
{
  struct pdump_section *s = &l->sections[slot];
  memset (s, 0, sizeof *s);
  s->kind = kind;
  s->offset = align_up (l->end, align);
  s->size = size;
  s->count = count;
  s->checksum = checksum;
  s->stored_offset = s->offset;
  s->stored_size = size;
  l->content[slot] = content;
  l->stored[slot] = content;
  l->end = s->offset + size;
}

static void
set_section (struct layout *l, enum section_slot slot, uint32_t kind,
             const void *content, uint64_t size, uint64_t count, uint64_t align)
{
  set_section_sum (l, slot, kind, content, size, count, align,
                   XXH3_64bits (content, size));
}

/* Store every non-empty section compressed, in section order after the
   header page; l->end becomes the end of the stored bytes.  */
static enum dumper_status
pack_sections (struct layout *l, unsigned codec, int level)
{
  uint64_t at = l->page_size;
  for (int slot = 0; slot < S_COUNT; slot++)
    {
      struct pdump_section *s = &l->sections[slot];
      s->stored_offset = align_up (at, 8);
      if (s->size > 0)
        {
          enum dumper_status st
            = pdump_codec_pack (codec, level, l->content[slot], s->size,
                                PDUMP_FRAME_SIZE, &l->packed[slot],
                                &s->stored_size);
          if (st != DUMPER_OK)
            return st;
          s->codec = codec;
          l->stored[slot] = l->packed[slot];
        }
      at = s->stored_offset + s->stored_size;
    }
  l->end = at;
  return DUMPER_OK;
}

/* The preferred base of the image REQ asks for, in *BASE, checked
   against the page size and, once HOT and COLD have their places
   (HOT_OFFSET and COLD_OFFSET; COLD_SIZE bytes), against the word
   size.  */
static enum dumper_status
check_base (const struct pdump_write_request *req, const struct layout *l,
            uint64_t cold_offset, uint64_t cold_size, uint64_t *base)
{
  *base = req->options->image_base == UINT64_MAX
          ? PDUMP_DEFAULT_BASE : req->options->image_base;
  if (*base % l->page_size != 0)
    {
      snprintf (req->detail, req->detail_size, "%s: the preferred base 0x%"
                PRIx64 " is not a multiple of the page size (%" PRIu64 ")",
                req->output, *base, l->page_size);
      return DUMPER_E_USAGE;
    }
  /* HOT's words hold addresses at BASE: the objects and a tag past
     them must be addresses of this word size (the loader checks the
     same, check.c).  */
  uint64_t objects_end = *base + cold_offset + cold_size + PDUMP_MAX_TAG;
  if (objects_end < *base || (pdump_word) objects_end != objects_end)
    {
      snprintf (req->detail, req->detail_size, "%s: the preferred base 0x%"
                PRIx64 " leaves no room for the image's %" PRIu64 " bytes of "
                "objects in %u-byte words", req->output, *base,
                cold_offset + cold_size, (unsigned) PDUMP_WORD_SIZE);
      return DUMPER_E_USAGE;
    }
  return DUMPER_OK;
}

/* Place every section after the header page, in the order of
   section_slot, with its content and checksum (HOT_CHECKSUM: HOT's,
   computed as it was finalised).  */
static enum dumper_status
place_sections (struct pdump_walk *w, struct layout *l,
                uint64_t hot_checksum)
{
  struct pdump_hot_area *hot = &w->hot;
  size_t bitmap_bytes
    = (size_t) ((hot->bytes.size / PDUMP_WORD_SIZE + 63) / 64) * 8;
  size_t types_size = 0, objects_size = 0;
  l->owned[S_TYPES] = encode_types (w->heap, &types_size);
  const unsigned char *objects = pdump_walk_object_index (w, &objects_size);
  if (l->owned[S_TYPES] == NULL || objects == NULL)
    return DUMPER_E_NOMEM;

  set_section_sum (l, S_HOT, PDUMP_SECTION_HOT,
                   w->hot_fd >= 0 ? NULL : hot->bytes.data, hot->bytes.size,
                   w->hot_object_count, l->page_size, hot_checksum);
  if (w->cold_fd >= 0)
    set_section_sum (l, S_COLD, PDUMP_SECTION_COLD, NULL, w->cold.size,
                     w->cold_object_count + w->block_count, l->page_size,
                     w->cold_checksum);
  else
    set_section (l, S_COLD, PDUMP_SECTION_COLD, w->cold.data, w->cold.size,
                 w->cold_object_count + w->block_count, l->page_size);
  set_section (l, S_RELOC_IMAGE, PDUMP_SECTION_RELOC_IMAGE, hot->image_bits,
               bitmap_bytes, w->image_reloc_count, l->page_size);
  set_section (l, S_RELOC_EXE, PDUMP_SECTION_RELOC_EXE, hot->exe_relocs.data,
               hot->exe_relocs.size * sizeof (uint32_t), hot->exe_relocs.size,
               8);
  set_section (l, S_REGISTRY, PDUMP_SECTION_REGISTRY, w->records,
               w->record_count * sizeof (struct pdump_record), w->record_count, 8);
  set_section (l, S_SCALAR_DATA, PDUMP_SECTION_SCALAR_DATA, w->scalar_data.data,
               w->scalar_data.size, 0, 8);
  set_section (l, S_TYPES, PDUMP_SECTION_TYPES, l->owned[S_TYPES], types_size,
               (uint64_t) w->heap->type_count, 8);
  set_section (l, S_OBJECTS, PDUMP_SECTION_OBJECTS, objects,
               objects_size, w->hot_object_count, 8);
  set_section (l, S_RELOC_CODE, PDUMP_SECTION_RELOC_CODE,
               hot->code_relocs.data,
               hot->code_relocs.size * sizeof (uint32_t),
               hot->code_relocs.size, 8);
  return DUMPER_OK;
}

/* Fill in the header of layout L for walk W and REQ: an image of
   IMAGE_SIZE bytes at BASE, in frames of FRAME_SIZE (0: not packed).  */
static void
fill_header (struct layout *l, const struct pdump_walk *w,
             const struct pdump_write_request *req, uint64_t base,
             uint64_t image_size, uint64_t frame_size)
{
  struct pdump_header *h = &l->header;
  memcpy (h->magic, PDUMP_MAGIC, PDUMP_MAGIC_SIZE);
  h->format_version = PDUMP_FORMAT_VERSION;
  h->header_size = sizeof *h;
  h->word_size = (uint8_t) PDUMP_WORD_SIZE;
  h->byte_order = PDUMP_NATIVE_BYTE_ORDER;
  h->machine = (uint16_t) pdump_native_machine ();
  h->section_count = S_COUNT;
  h->file_size = l->end;
  h->image_size = image_size;
  h->frame_size = frame_size;
  h->page_size = l->page_size;
  h->section_table_offset = sizeof *h;
  memcpy (h->fingerprint, req->fingerprint, sizeof h->fingerprint);
  h->object_count = w->object_count;
  h->type_count = (uint32_t) w->heap->type_count;
  h->tag_bits = w->heap->tag_bits;
  h->preferred_base = base;
  h->interior_count = w->interior_word_count;
  _Static_assert (sizeof l->sections
                  == PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section),
                  "the header checksum covers the whole table");
  h->header_checksum = pdump_header_sum (h, l->sections);
}

static enum dumper_status
build_layout (struct pdump_walk *w, const struct pdump_write_request *req,
              struct layout *l)
{
  memset (l, 0, sizeof *l);
  l->page_size = page_size_of ();
  /* Header and section table fit in the first page.  */
  l->end = l->page_size;
  struct pdump_hot_area *hot = &w->hot;
  uint64_t hot_offset = l->end;
  uint64_t cold_offset = align_up (hot_offset + hot->bytes.size, l->page_size);
  uint64_t base;
  enum dumper_status st = check_base (req, l, cold_offset, w->cold.size,
                                      &base);
  if (st != DUMPER_OK)
    return st;
  uint64_t hot_checksum = 0;
  int err = finalise_offsets (w, hot_offset, cold_offset, base,
                              &hot_checksum);
  if (err != 0)
    {
      errno = err;
      return err == ENOMEM ? DUMPER_E_NOMEM : DUMPER_E_IO;
    }
  /* qsort's base must not be NULL, even for zero elements (UBSan).  */
  if (hot->exe_relocs.size > 0)
    qsort (hot->exe_relocs.data, hot->exe_relocs.size, sizeof (uint32_t),
           compare_u32);
  if (hot->code_relocs.size > 0)
    qsort (hot->code_relocs.data, hot->code_relocs.size, sizeof (uint32_t),
           compare_u32);
  st = place_sections (w, l, hot_checksum);
  if (st != DUMPER_OK)
    return st;
  uint64_t image_size = l->end;
  if (base > (uint64_t) UINTPTR_MAX - image_size)
    {
      snprintf (req->detail, req->detail_size, "%s: an image of %" PRIu64
                " bytes does not fit at the preferred base 0x%" PRIx64,
                req->output, image_size, base);
      return DUMPER_E_USAGE;
    }
  uint64_t frame_size = 0;
  if (req->options->codec != PDUMP_CODEC_NONE)
    {
      st = pack_sections (l, req->options->codec, req->options->level);
      if (st != DUMPER_OK)
        return st;
      frame_size = PDUMP_FRAME_SIZE;
    }
  fill_header (l, w, req, base, image_size, frame_size);
  return DUMPER_OK;
}

/* ------------------------------------------------------------------ */
/* Writing.  */

/* Copy SIZE bytes from the start of FROM to FD at OFFSET: in the kernel
   when it can (copy_file_range), else through a buffer.  */
static int
copy_in (int from, int fd, uint64_t size, uint64_t offset)
{
  loff_t in = 0, out = (loff_t) offset;
  while (size > 0)
    {
      ssize_t n = copy_file_range (from, &in, fd, &out,
                                   size > (1u << 30) ? (1u << 30) : size, 0);
      if (n > 0)
        {
          size -= (uint64_t) n;
          continue;
        }
      if (n < 0 && errno == EINTR)
        continue;
      if (n == 0 || (errno != EXDEV && errno != ENOSYS && errno != EINVAL
                     && errno != EOPNOTSUPP))
        return n == 0 ? EIO : errno;
      break;   /* no kernel copy here: by hand */
    }
  enum { CHUNK = 1 << 20 };
  unsigned char *buf = size ? malloc (CHUNK) : NULL;
  if (size && buf == NULL)
    return ENOMEM;
  int err = 0;
  while (err == 0 && size > 0)
    {
      size_t n = size < CHUNK ? (size_t) size : CHUNK;
      err = common_pread_fully (from, buf, n, (uint64_t) in);
      if (err == COMMON_EOF)
        err = EIO;
      if (err == 0)
        err = common_pwrite_fully (fd, buf, n, (uint64_t) out);
      in += (loff_t) n;
      out += (loff_t) n;
      size -= n;
    }
  free (buf);
  return err;
}

/* Write the header, the section table and every section not already
   in the file at their offsets (COLD from COLD_FD when >= 0).  What lies
   between stays a hole, which reads as zeros (the file is new), up to
   the end of the image.  */
static int
write_layout (int fd, const struct layout *l, int cold_fd)
{
  int err = common_pwrite_fully (fd, &l->header, sizeof l->header, 0);
  if (err == 0)
    err = common_pwrite_fully (fd, l->sections, sizeof l->sections,
                               sizeof l->header);
  for (int s = 0; err == 0 && s < S_COUNT; s++)
    {
      const struct pdump_section *sec = &l->sections[s];
      if (sec->stored_size && l->stored[s])
        err = common_pwrite_fully (fd, l->stored[s], sec->stored_size,
                                   sec->stored_offset);
      else if (sec->size && s == S_COLD && cold_fd >= 0)
        err = copy_in (cold_fd, fd, sec->size, sec->offset);
    }
  if (err == 0 && ftruncate (fd, (off_t) l->end) != 0)
    err = errno;
  return err;
}

#if DUMPER_TEST_HOOKS
/* Test-only fault injection (see the top of the file): flip the byte
   at AT (DUMPER_TEST_DAMAGE_IMAGE) of the file TMP of SIZE bytes.  */
static void
damage_for_test (const char *at, const char *tmp, uint64_t size)
{
  if (at == NULL || *at == '\0')
    return;
  uint64_t offset = strtoull (at, NULL, 0);
  int fd = open (tmp, O_RDWR | O_CLOEXEC);
  unsigned char byte;
  if (fd >= 0 && offset < size && pread (fd, &byte, 1, (off_t) offset) == 1)
    {
      byte ^= 0xFF;
      if (pwrite (fd, &byte, 1, (off_t) offset) != 1)
        byte = 0;
    }
  if (fd >= 0)
    close (fd);
}
#else
# define damage_for_test(at, tmp, size) ((void) 0)
#endif

/* Run the loader on the temporary file TMP, check-only (pdump_load:
   decompression, every check it makes on a start, nothing restored), so
   an image the loader would refuse is never put in place.  On failure
   the detail names the output.  */
static enum dumper_status
self_check (const struct pdump_write_request *w, const char *tmp,
            uint64_t file_size)
{
  damage_for_test (w->options->test_damage_image, tmp, file_size);
  char why[768] = "";
  struct pdump_load_request req = {
    .path = tmp, .fingerprint = w->fingerprint, .decls = w->decls,
    .decl_count = w->decl_count, .detail = why, .detail_size = sizeof why,
    .check_only = true, .options = w->options
  };
  struct pdump_entry *entries = NULL;
  size_t count = 0;
  enum dumper_status st = pdump_load (&req, &entries, &count);
  free (entries);
  if (st != DUMPER_OK)
    snprintf (w->detail, w->detail_size, "the image just written fails the "
              "loader's checks, so it was not put in place (a bug in "
              "libdumper, or memory corrupted while dumping): %s: %s",
              w->output, why);
  return st;
}

/* The message and status of a failed output step.  */
static enum dumper_status
output_failed (const struct pdump_write_request *req, int err,
               const char *step)
{
  bool renaming = step && strcmp (step, "rename") == 0;
  snprintf (req->detail, req->detail_size, renaming
            ? "%s: cannot rename the finished image into place: %s"
            : "%s: cannot write the image: %s", req->output, strerror (err));
  return err == ENOMEM ? DUMPER_E_NOMEM
         : renaming ? DUMPER_E_OUTPUT : DUMPER_E_IO;
}

/* The figures of a written image, from its walk and layout.  */
static void
record_stats (struct pdump_dump_stats *s, const struct pdump_walk *walk,
              const struct layout *l)
{
  s->written = true;
  s->file_size = l->header.file_size;
  s->hot_size = l->sections[S_HOT].size;
  s->cold_size = l->sections[S_COLD].size;
  s->discardable_size = l->header.image_size
                        - l->sections[S_RELOC_IMAGE].offset;
  s->object_count = walk->hot_object_count + walk->cold_object_count;
  s->byte_block_count = walk->block_count;
  s->numbered_objects = walk->numbered_count;
  s->late_objects = walk->late_count;
  s->late_written = walk->late_count - walk->late_log_count;
  s->image_relocs = walk->image_reloc_count;
  s->exe_relocs = walk->hot.exe_relocs.size;
  s->code_relocs = walk->hot.code_relocs.size;
  s->root_count = s->scalar_count = s->hook_count = 0;
  for (size_t i = 0; i < walk->record_count; i++)
    switch (walk->records[i].kind)
      {
      case DUMPER_DECL_SCALAR: s->scalar_count++; break;
      case DUMPER_DECL_HOOK: s->hook_count++; break;
      default: s->root_count++; break;
      }
}

/* Free the walk, the layout's buffers and COLD's temporary file (once:
   each is cleared).  */
static void
release (struct pdump_walk *walk, struct layout *l, int *cold_fd)
{
  for (int i = 0; i < S_COUNT; i++)
    {
      free (l->owned[i]);
      free (l->packed[i]);
      l->owned[i] = l->packed[i] = NULL;
    }
  pdump_walk_free (walk);
  if (*cold_fd >= 0)
    close (*cold_fd);
  *cold_fd = -1;
}

/* COLD's file while the walk runs: a nameless one beside OUTPUT, or -1
   when COLD stays in memory (IN_MEMORY, or no O_TMPFILE here).  */
static int
open_cold_file (const char *output, bool in_memory)
{
  int cold_fd = -1;
#ifdef O_TMPFILE
  if (!in_memory)
  {
    const char *slash = strrchr (output, '/');
    char *dir = slash ? strndup (output, (size_t) (slash - output))
                      : strdup (".");
    if (dir)
      cold_fd = open (dir[0] ? dir : "/", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    free (dir);
  }
#else
  (void) output, (void) in_memory;
#endif
  return cold_fd;
}

/* Write layout L of WALK to OUT, check what was written with the
   loader's checks and put it in place; the figures in *STATS.  The walk
   and the layout are released on the way (before the check maps the
   image).  */
static enum dumper_status
write_and_commit (const struct pdump_write_request *req,
                  struct common_atomic *out, struct pdump_walk *walk,
                  struct layout *l, int *cold_fd,
                  struct pdump_dump_stats *stats)
{
  enum dumper_status st;
  int err = write_layout (out->fd, l, *cold_fd);
  if (err == 0)
    {
      record_stats (stats, walk, l);
      /* The walk's and the layout's memory goes before the check
         maps the image: the dumping run's peak is the larger of
         the two, not their sum.  */
      release (walk, l, cold_fd);
      /* The loader's checks on what was written, before the rename.  */
      st = self_check (req, out->tmp, l->end);
      if (st != DUMPER_OK)
        common_atomic_abort (out);
      else
        {
          err = common_atomic_commit (out);
          if (err != 0)
            st = output_failed (req, err, out->step);
        }
    }
  else
    {
      common_atomic_abort (out);
      st = output_failed (req, err, NULL);
    }
  return st;
}

enum dumper_status
pdump_write (const struct pdump_write_request *req)
{
  double t0 = pdump_now ();
  /* The temporary file first: the walk writes HOT into it as it goes.  */
  struct common_atomic out;
  int err = common_atomic_begin (&out, req->output, "tmp", 0644, false);
  if (err != 0)
    {
      snprintf (req->detail, req->detail_size, "%s: cannot create the "
                "image: %s", req->output, strerror (err));
      return err == ENOMEM ? DUMPER_E_NOMEM : DUMPER_E_OUTPUT;
    }
  /* COLD goes to a nameless file beside the image until HOT's end is
     known; without O_TMPFILE it stays in memory.  A compressed image
     keeps HOT and COLD in memory (sections are packed whole), and so
     does the environment variable DUMPER_PDUMP_IN_MEMORY, the write of
     before issue 17 (tests check both ways give the same bytes).  */
  bool in_memory = req->options->in_memory
                   || req->options->codec != PDUMP_CODEC_NONE; /* packed whole */
  int cold_fd = open_cold_file (req->output, in_memory);
  struct pdump_walk walk;
  enum dumper_status st = pdump_walk_run (&walk, req,
                                          in_memory ? -1 : out.fd,
                                          page_size_of (), cold_fd);
  double t1 = pdump_now ();
  struct layout l;
  memset (&l, 0, sizeof l);
  if (st == DUMPER_OK)
    {
      st = build_layout (&walk, req, &l);
      if (st == DUMPER_E_IO)
        st = output_failed (req, errno, NULL);
      else if (st != DUMPER_OK && st != DUMPER_E_USAGE)
        snprintf (req->detail, req->detail_size,
                  "%s: out of memory laying out the image", req->output);
    }
  double t2 = pdump_now ();
  struct pdump_dump_stats stats;
  memset (&stats, 0, sizeof stats);
  if (st == DUMPER_OK)
    st = write_and_commit (req, &out, &walk, &l, &cold_fd, &stats);
  else
    common_atomic_abort (&out);
  if (st == DUMPER_OK)
    {
      stats.seconds = pdump_now () - t0;
      stats.walk_seconds = t1 - t0;
      stats.layout_seconds = t2 - t1;
      stats.output_seconds = stats.seconds - (t2 - t0);
      pdump_dump_stats_ = stats;
    }
  release (&walk, &l, &cold_fd);
  return st;
}
