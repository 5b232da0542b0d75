/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_load.c: the loader fuzz target (pdumper builds).

   Drives the real loader, pdump_load, on arbitrary bytes: header check,
   placement (hybrid, mapped or read), checksums, relocation, registry,
   the structural pass (verify.c) and the restore step, which writes the
   remembered statics.  Nothing is a copy of the loader's checks.

   Two stand-ins make that safe in a fuzzing process: the image is a
   memfd (/proc/self/fd/N), and the executable is a static buffer laid
   out like a PIE (code, read-only data, RELRO, data), so "restored
   statics" land in that buffer and never in this program's data.  The
   heap description is toyhost's (tests/pdump/toyheap.h), whose images
   make the seed corpus.

   Each input runs as it is and with its checksums recomputed, each
   with verification off and on.  After a load with the structural pass,
   the heap is walked from the restored roots with the host's trace
   functions, as a collector's mark phase would, touching every object
   and byte block: a crash there is a hole in the pass.  Then the verdict
   of the loader with verification off is compared with dumper-inspect's
   (the same sequence against the same stand-in layout): they must agree
   on every input, or the target aborts.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "pdump/backend.h"
#include "pdump/format.h"
#include "tests/pdump/toyheap.h"
#include "tools/inspect/inspect.h"

/* The stand-in executable (fuzz_fake_layout).  */
static unsigned char fake_exe[FUZZ_FAKE_EXE_SIZE] __attribute__ ((aligned (4096)));

/* ------------------------------------------------------------------ */
/* A mark phase over the loaded heap.  */

struct marker
{
  struct dumper_tracer tracer;
  const void **stack;
  int *stack_types;
  size_t *stack_lengths;     /* owner-sized blocks: their referrer's */
  size_t size, capacity;
  uint64_t sum;              /* of every byte-block byte: touches them */
};

static void
push_sized (struct marker *m, const void *obj, int type, size_t nbytes)
{
  if (!pdump_object_p (obj) || pdump_marked_p (obj))
    return;
  pdump_set_marked (obj);
  if (m->size == m->capacity)
    {
      m->capacity = m->capacity ? m->capacity * 2 : 1024;
      m->stack = realloc (m->stack, m->capacity * sizeof *m->stack);
      m->stack_types = realloc (m->stack_types, m->capacity * sizeof *m->stack_types);
      m->stack_lengths = realloc (m->stack_lengths,
                                  m->capacity * sizeof *m->stack_lengths);
      if (m->stack == NULL || m->stack_types == NULL
          || m->stack_lengths == NULL)
        abort ();
    }
  m->stack[m->size] = obj;
  m->stack_lengths[m->size] = nbytes;
  m->stack_types[m->size++] = type;
}

static void
push (struct marker *m, const void *obj, int type)
{
  push_sized (m, obj, type, 0);
}

static void
mark_word_value (struct marker *m, uintptr_t value)
{
  uintptr_t tag = value & 7;
  int type = heap.tag_types[tag];
  if (type == DUMPER_TAG_IMMEDIATE)
    return;
  const void *obj = (const void *) (value - tag);
  if (!pdump_object_p (obj))
    return;
  if (type == DUMPER_TAG_BY_HEADER)
    type = heap.header_type (obj);
  if (type < 0 || type >= heap.type_count)
    abort ();   /* the pass let a bad header through */
  push (m, obj, type);
}

static void
mark_word (struct dumper_tracer *t, const uintptr_t *field)
{
  mark_word_value ((struct marker *) t, *field);
}

static void
mark_ptr (struct dumper_tracer *t, void *const *field, int type)
{
  if (*field == NULL)
    return;
  if (type == DUMPER_TAG_BY_HEADER)
    {
      if (!pdump_object_p (*field))
        return;
      type = heap.header_type (*field);
    }
  push ((struct marker *) t, *field, type);
}

static void
mark_bytes (struct dumper_tracer *t, void *const *field, size_t length)
{
  struct marker *m = (struct marker *) t;
  const unsigned char *p = *field;
  if (p && pdump_object_p (p))
    for (size_t i = 0; i < length; i++)
      m->sum += p[i];
}

static void
mark_code (struct dumper_tracer *t, const void *field)
{
  (void) t;
  (void) field;
}

/* An owner-sized block: marked like any object, traced with the length
   its referrer reports (structural verification checked it against
   the index).  */
static void
mark_sized (struct dumper_tracer *t, void *const *field, int type,
            size_t nbytes)
{
  if (*field == NULL)
    return;
  if (type < 0 || type >= heap.type_count || heap.types[type].size != NULL)
    abort ();   /* the pass let a bad sized pointer through */
  push_sized ((struct marker *) t, *field, type, nbytes);
}

/* Interior pointers keep nothing alive (heap.h); read the byte before
   the target, which the pass proved lies in an object (or at its end),
   so a bad one shows under the sanitizers.  */
static void
mark_interior (struct dumper_tracer *t, void *const *field)
{
  struct marker *m = (struct marker *) t;
  const unsigned char *p = *field;
  if (p && pdump_object_p (p - 1))
    m->sum += p[-1];
}

static void
walk_heap (const struct pdump_entry *entries, size_t count)
{
  struct marker m;
  memset (&m, 0, sizeof m);
  m.tracer.word = mark_word;
  m.tracer.ptr = mark_ptr;
  m.tracer.bytes = mark_bytes;
  m.tracer.code = mark_code;
  m.tracer.sized = mark_sized;
  m.tracer.interior = mark_interior;
  for (size_t i = 0; i < count; i++)
    {
      const struct pdump_entry *e = &entries[i];
      uintptr_t value;
      /* Remembered raw pointers take their type from the executable's
         declaration table, which this stand-in does not have.  */
      if (e->kind == DUMPER_DECL_ROOT || e->kind == DUMPER_DECL_WORD)
        {
          memcpy (&value, e->addr, sizeof value);
          mark_word_value (&m, value);
        }
    }
  while (m.size > 0)
    {
      m.size--;
      const void *obj = m.stack[m.size];
      const struct dumper_type *t = &heap.types[m.stack_types[m.size]];
      if (t->size == NULL)
        {
          if (t->trace_sized)
            t->trace_sized (obj, m.stack_lengths[m.size], &m.tracer);
          continue;
        }
      if (t->size (obj) == 0)
        abort ();
      if (t->trace)
        t->trace (obj, &m.tracer);
    }
  free (m.stack);
  free (m.stack_types);
  free (m.stack_lengths);
}

/* ------------------------------------------------------------------ */

static int image_fd = -1;
static char image_path[64];

static enum dumper_status
load (const unsigned char *bytes, size_t size, bool verify)
{
  if (image_fd < 0)
    {
      image_fd = memfd_create ("fuzz-image", MFD_CLOEXEC);
      if (image_fd < 0)
        abort ();
      snprintf (image_path, sizeof image_path, "/proc/self/fd/%d", image_fd);
    }
  if (ftruncate (image_fd, 0) != 0
      || (size && pwrite (image_fd, bytes, size, 0) != (ssize_t) size))
    abort ();

  /* The fingerprint the input carries, so inputs get past that check.  */
  unsigned char fingerprint[DUMPER_FINGERPRINT_SIZE] = { 0 };
  size_t at = offsetof (struct pdump_header, fingerprint);
  if (size >= at + sizeof fingerprint)
    memcpy (fingerprint, bytes + at, sizeof fingerprint);

  struct pdump_exe exe = fuzz_fake_layout ((uintptr_t) fake_exe);
  char detail[1024];
  struct pdump_load_request req = {
    .path = image_path, .fingerprint = fingerprint,
    .detail = detail, .detail_size = sizeof detail,
    .verify_heap = verify ? &heap : NULL, .exe = &exe
  };
  struct pdump_entry *entries = NULL;
  size_t count = 0;
  enum dumper_status st = pdump_load (&req, &entries, &count);
  if (st == DUMPER_OK)
    {
      if (verify)
        walk_heap (entries, count);
      free (entries);
      pdump_unload ();
    }
  return st;
}

/* dumper-inspect --check's verdict against the same stand-in layout.  */
static enum dumper_status
inspect_check (unsigned char *bytes, size_t size)
{
  char detail[INSP_DETAIL_SIZE];
  struct insp_image image;
  /* An ELF file may hold an embedded image: both sides read it from
     the file then (the loader has just written it to image_path).  */
  bool elf = size >= 4 && memcmp (bytes, "\177ELF", 4) == 0;
  enum dumper_status st
    = elf ? insp_image_read (&image, image_path, NULL, detail, sizeof detail)
          : insp_image_attach (&image, "fuzz-input", bytes, size, NULL,
                               detail, sizeof detail);
  if (st == DUMPER_OK)
    {
      struct pdump_exe exe = fuzz_fake_layout (0);
      st = insp_image_verify (&image, &exe, NULL, 0, detail, sizeof detail);
    }
  insp_image_free (&image);
  return st;
}

void
fuzz_load_run (const uint8_t *data, size_t size, struct fuzz_load_result *result)
{
  unsigned char *bytes = malloc (size ? size : 1);
  if (bytes == NULL)
    abort ();
  if (size)
    memcpy (bytes, data, size);
  for (int pass = 0; pass < 2; pass++)
    {
      if (pass == 1)
        fuzz_reseal (bytes, size);
      enum dumper_status plain = load (bytes, size, false);
      enum dumper_status verified = load (bytes, size, true);
      enum dumper_status inspected = inspect_check (bytes, size);
      /* Both sides read the same bytes through the same sequence; only
         the loader's own resources (memory, the file) may fail apart.  */
      if (plain != inspected && plain != DUMPER_E_NOMEM && plain != DUMPER_E_IO)
        {
          fprintf (stderr, "fuzz_load: the loader says %d, dumper-inspect "
                   "--check %d\n", plain, inspected);
          abort ();
        }
      /* The structural pass only ever adds refusals, as corruption.  */
      if (verified != plain && (plain != DUMPER_OK
                                || verified != DUMPER_E_IMAGE_CORRUPT))
        {
          fprintf (stderr, "fuzz_load: verification changed %d into %d\n",
                   plain, verified);
          abort ();
        }
      if (pass == 0)
        {
          result->plain = plain;
          result->verified = verified;
        }
    }
  free (bytes);
}
