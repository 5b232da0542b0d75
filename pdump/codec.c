/* SPDX-License-Identifier: MIT */
/* pdump/codec.c: compressed section storage (see codec.h, format.h).

   Frames are independent (an LZ4 block or a zstd frame each), so the
   loader needs one frame of scratch memory, decompresses straight into
   the section's final place, and can interleave decompression with
   hashing and relocation.  The codecs are optional at build time
   (HAVE_LZ4, HAVE_ZSTD from configure); without one, images that use it
   are refused with a message naming the missing library.

   The codec libraries are loaded when a compressed image is first met
   (dlopen), not linked: a start from a plain image, the default and
   by far the common case, then maps neither.  Linked, liblz4 and
   libzstd cost every start of every host 16 system calls and about 13
   page faults before main, 0.06-0.09 ms of CPU on the VM this project
   is measured on (doc/format.md, "The fixed cost of a start"; issue
   33).  A build with a codec on a machine whose library has gone then
   still starts, and refuses only the images that need it, naming the
   library and the dynamic loader's reason.

   LZ4 levels follow the lz4 command line: 1 and 2 are LZ4's fast
   compressor, 3 to 12 LZ4HC, which writes the same block format (the
   loader cannot tell them apart) with fewer, longer matches: smaller
   frames that also decompress faster, which is what a warm start of a
   compressed image spends most of its extra time on (doc/format.md,
   "Compressed sections").  */

#include <config.h>

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LZ4
# include <lz4.h>
# include <lz4hc.h>
#endif
#ifdef HAVE_ZSTD
# include <zstd.h>
#endif

#include "backend.h"
#include "codec.h"
#include "hash.h"

/* The sonames of the codec libraries: the ABI the headers above
   describe (liblz4.so.1 since r131, libzstd.so.1 since 1.0; both keep
   their ABI within it).  */
#ifndef DUMPER_LZ4_SONAME
# define DUMPER_LZ4_SONAME "liblz4.so.1"
#endif
#ifndef DUMPER_ZSTD_SONAME
# define DUMPER_ZSTD_SONAME "libzstd.so.1"
#endif

/* The functions of each codec this file calls, found in the library
   loaded on first use (codec_load); typed from the headers.  */
#ifdef HAVE_LZ4
static struct
{
  __typeof__ (LZ4_decompress_safe) *decompress_safe;
  __typeof__ (LZ4_compress_default) *compress_default;
  __typeof__ (LZ4_sizeofStateHC) *sizeofStateHC;
  __typeof__ (LZ4_compress_HC_extStateHC) *compress_HC_extStateHC;
} lz4;
#endif
#ifdef HAVE_ZSTD
static struct
{
  __typeof__ (ZSTD_isError) *isError;
  __typeof__ (ZSTD_createCCtx) *createCCtx;
  __typeof__ (ZSTD_CCtx_setParameter) *CCtx_setParameter;
  __typeof__ (ZSTD_compress2) *compress2;
  __typeof__ (ZSTD_freeCCtx) *freeCCtx;
  __typeof__ (ZSTD_createDCtx) *createDCtx;
  __typeof__ (ZSTD_decompressDCtx) *decompressDCtx;
  __typeof__ (ZSTD_freeDCtx) *freeDCtx;
} zstd;
#endif

/* Whether each codec's functions are in place: 0 not tried, 1 loaded,
   -1 failed (then codec_why says why).  A codec is loaded once and
   never unloaded.  The first load happens under CODEC_LOCK: two
   threads that loaded at once would both write the function tables
   and codec_why (the same values, but a data race all the same); once
   the state is set it is read without the lock.  */
static int codec_state[PDUMP_CODEC_ZSTD + 1];
static char codec_why[PDUMP_CODEC_ZSTD + 1][256];
static pthread_mutex_t codec_lock = PTHREAD_MUTEX_INITIALIZER;

#if defined HAVE_LZ4 || defined HAVE_ZSTD
/* Load library SONAME and store the addresses of its functions NAMES
   (COUNT of them) in TABLE, a structure of COUNT function pointers in
   that order; or false with codec_why[CODEC] set.  */
static bool
codec_resolve (unsigned codec, const char *soname, const char *const *names,
               void *table, size_t count)
{
  void *handle = dlopen (soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    {
      const char *err = dlerror ();
      snprintf (codec_why[codec], sizeof codec_why[codec], "%s",
                err ? err : soname);
      return false;
    }
  for (size_t i = 0; i < count; i++)
    {
      void *fn = dlsym (handle, names[i]);
      if (fn == NULL)
        {
          snprintf (codec_why[codec], sizeof codec_why[codec], "%s: no %s",
                    soname, names[i]);
          dlclose (handle);
          return false;
        }
      /* POSIX: a data pointer from dlsym converts to a function pointer
         of the same representation.  */
      memcpy ((char *) table + i * sizeof fn, &fn, sizeof fn);
    }
  return true;
}
#endif

/* Load CODEC's library the first time it is needed: false when it
   cannot be (codec_why says why).  True for none.  */
static bool
codec_load (unsigned codec)
{
  if (codec == PDUMP_CODEC_NONE || codec > PDUMP_CODEC_ZSTD)
    return codec == PDUMP_CODEC_NONE;
  int state = __atomic_load_n (&codec_state[codec], __ATOMIC_ACQUIRE);
  if (state != 0)
    return state > 0;
  pthread_mutex_lock (&codec_lock);
  state = __atomic_load_n (&codec_state[codec], __ATOMIC_ACQUIRE);
  if (state != 0)
    {
      pthread_mutex_unlock (&codec_lock);
      return state > 0;
    }
  bool ok = false;
#ifdef HAVE_LZ4
  static const char *const lz4_names[] = {
    "LZ4_decompress_safe", "LZ4_compress_default", "LZ4_sizeofStateHC",
    "LZ4_compress_HC_extStateHC" };
  _Static_assert (sizeof lz4 == sizeof lz4_names, "one name a function");
  if (codec == PDUMP_CODEC_LZ4)
    ok = codec_resolve (codec, DUMPER_LZ4_SONAME, lz4_names, &lz4,
                        sizeof lz4_names / sizeof lz4_names[0]);
#endif
#ifdef HAVE_ZSTD
  static const char *const zstd_names[] = {
    "ZSTD_isError", "ZSTD_createCCtx", "ZSTD_CCtx_setParameter",
    "ZSTD_compress2", "ZSTD_freeCCtx", "ZSTD_createDCtx",
    "ZSTD_decompressDCtx", "ZSTD_freeDCtx" };
  _Static_assert (sizeof zstd == sizeof zstd_names, "one name a function");
  if (codec == PDUMP_CODEC_ZSTD)
    ok = codec_resolve (codec, DUMPER_ZSTD_SONAME, zstd_names, &zstd,
                        sizeof zstd_names / sizeof zstd_names[0]);
#endif
  __atomic_store_n (&codec_state[codec], ok ? 1 : -1, __ATOMIC_RELEASE);
  pthread_mutex_unlock (&codec_lock);
  return ok;
}

const char *
pdump_codec_name (unsigned codec)
{
  switch (codec)
    {
    case PDUMP_CODEC_NONE: return "none";
    case PDUMP_CODEC_LZ4: return "lz4";
    case PDUMP_CODEC_ZSTD: return "zstd";
    default: return "?";
    }
}

bool
pdump_codec_available (unsigned codec)
{
  switch (codec)
    {
    case PDUMP_CODEC_NONE: return true;
#ifdef HAVE_LZ4
    case PDUMP_CODEC_LZ4: return true;
#endif
#ifdef HAVE_ZSTD
    case PDUMP_CODEC_ZSTD: return true;
#endif
    default: return false;
    }
}

static const char *
codec_library (unsigned codec)
{
  return codec == PDUMP_CODEC_LZ4 ? "liblz4 (liblz4-dev)" : "libzstd (libzstd-dev)";
}

bool
pdump_codec_parse (const char *spec, unsigned *codec, int *level,
                   char *detail, size_t detail_size)
{
  *level = 0;
  const char *colon = strchr (spec, ':');
  size_t name_len = colon ? (size_t) (colon - spec) : strlen (spec);
  if (name_len == 4 && strncmp (spec, "none", 4) == 0)
    *codec = PDUMP_CODEC_NONE;
  else if (name_len == 3 && strncmp (spec, "lz4", 3) == 0)
    *codec = PDUMP_CODEC_LZ4;
  else if (name_len == 4 && strncmp (spec, "zstd", 4) == 0)
    *codec = PDUMP_CODEC_ZSTD;
  else
    {
      snprintf (detail, detail_size, "unknown compression `%s'; valid: none, "
                "lz4, lz4:LEVEL, zstd, zstd:LEVEL", spec);
      return false;
    }
  if (colon)
    {
      char *end;
      errno = 0;
      long v = strtol (colon + 1, &end, 10);
      long max = *codec == PDUMP_CODEC_ZSTD ? 22
                 : *codec == PDUMP_CODEC_LZ4 ? PDUMP_LZ4_LEVEL_MAX : 0;
      if (max == 0 || errno || end == colon + 1 || *end || v < 1 || v > max)
        {
          snprintf (detail, detail_size, "bad compression `%s': lz4 takes a "
                    "level from 1 to %d, zstd from 1 to 22, none no level",
                    spec, PDUMP_LZ4_LEVEL_MAX);
          return false;
        }
      *level = (int) v;
    }
  if (!pdump_codec_available (*codec))
    {
      snprintf (detail, detail_size, "compression `%s' needs %s, which this "
                "build of libdumper lacks", spec, codec_library (*codec));
      return false;
    }
  if (!codec_load (*codec))
    {
      snprintf (detail, detail_size, "compression `%s' needs %s, which "
                "cannot be loaded: %s", spec, codec_library (*codec),
                codec_why[*codec]);
      return false;
    }
  return true;
}

/* ------------------------------------------------------------------ */
/* Packing (the writer).  */

static uint64_t
frame_count_of (uint64_t size, uint64_t frame_size)
{
  return (size + frame_size - 1) / frame_size;
}

static uint64_t
table_bytes (uint64_t frame_count)
{
  return (frame_count * 4 + 7) & ~UINT64_C (7);
}

/* One codec's compression state, kept for all the frames of a section:
   each frame is still compressed on its own.  */
struct packer
{
  unsigned codec;
  int level;
#ifdef HAVE_ZSTD
  ZSTD_CCtx *cctx;
#endif
#ifdef HAVE_LZ4
  /* One LZ4HC state for all frames (LZ4_compress_HC would allocate one
     per call).  */
  void *lz4hc;
#endif
};

static bool
packer_open (struct packer *p, unsigned codec, int level)
{
  memset (p, 0, sizeof *p);
  p->codec = codec;
  p->level = level;
  /* Loaded already by pdump_codec_parse, which accepted the setting.  */
  if (!codec_load (codec))
    return false;
#ifdef HAVE_ZSTD
  if (codec == PDUMP_CODEC_ZSTD)
    {
      p->cctx = zstd.createCCtx ();
      if (p->cctx == NULL)
        return false;
      zstd.CCtx_setParameter (p->cctx, ZSTD_c_compressionLevel,
                              level ? level : ZSTD_CLEVEL_DEFAULT);
    }
#endif
#ifdef HAVE_LZ4
  p->level = level ? level : PDUMP_LZ4_LEVEL_DEFAULT;
  if (codec == PDUMP_CODEC_LZ4 && p->level >= LZ4HC_CLEVEL_MIN)
    {
      p->lz4hc = malloc ((size_t) lz4.sizeofStateHC ());
      if (p->lz4hc == NULL)
        return false;
    }
#endif
  return true;
}

static void
packer_close (struct packer *p)
{
#ifdef HAVE_ZSTD
  if (p->cctx != NULL)   /* zstd.freeCCtx is unset while zstd is unused */
    zstd.freeCCtx (p->cctx);
#endif
#ifdef HAVE_LZ4
  free (p->lz4hc);
#endif
  (void) p;
}

/* Compress the LENGTH bytes at FROM into the ROOM bytes at TO: the
   compressed size, or 0 when the codec fails.  */
static size_t
packer_frame (struct packer *p, const unsigned char *from, uint64_t length,
              unsigned char *to, size_t room)
{
  (void) from, (void) length, (void) to, (void) room;
  switch (p->codec)
    {
#ifdef HAVE_LZ4
    case PDUMP_CODEC_LZ4:
      {
        int r = p->lz4hc
          ? lz4.compress_HC_extStateHC (p->lz4hc, (const char *) from,
                                        (char *) to, (int) length, (int) room,
                                        p->level)
          : lz4.compress_default ((const char *) from, (char *) to,
                                  (int) length, (int) room);
        return r > 0 ? (size_t) r : 0;
      }
#endif
#ifdef HAVE_ZSTD
    case PDUMP_CODEC_ZSTD:
      {
        size_t n = zstd.compress2 (p->cctx, to, room, from, length);
        return zstd.isError (n) ? 0 : n;
      }
#endif
    default:
      return 0;
    }
}

enum dumper_status
pdump_codec_pack (unsigned codec, int level, const unsigned char *src,
                  uint64_t size, uint64_t frame_size, unsigned char **out,
                  uint64_t *out_size)
{
  uint64_t frames = frame_count_of (size, frame_size);
  uint64_t table = table_bytes (frames);
  uint64_t capacity = table + frames * PDUMP_FRAME_STORED_MAX (frame_size);
  unsigned char *buf = calloc (1, capacity);
  struct packer packer;
  bool ok = buf != NULL && packer_open (&packer, codec, level);
  uint64_t at = table;
  for (uint64_t i = 0; i < frames && ok; i++)
    {
      uint64_t start = i * frame_size;
      uint64_t length = size - start < frame_size ? size - start : frame_size;
      size_t n = packer_frame (&packer, src + start, length, buf + at,
                               (size_t) PDUMP_FRAME_STORED_MAX (frame_size));
      ok = n > 0;
      uint32_t stored = (uint32_t) n;
      memcpy (buf + i * 4, &stored, 4);
      at += n;
    }
  if (buf != NULL)
    packer_close (&packer);
  if (!ok)
    {
      /* No memory, or a broken invariant: the callers pass only
         available codecs and the buffer holds the worst case, so a
         codec fails only for memory of its own.  */
      free (buf);
      return DUMPER_E_NOMEM;
    }
  *out = buf;
  *out_size = at;
  return DUMPER_OK;
}

/* ------------------------------------------------------------------ */
/* Unpacking (the loader, dumper-inspect).  */

bool
pdump_read_memory (void *ctx, void *buf, size_t size, uint64_t offset)
{
  const struct pdump_memory *m = ctx;
  if (offset > m->size || size > m->size - offset)
    {
      errno = 0;
      return false;
    }
  memcpy (buf, m->bytes + offset, size);
  return true;
}

static enum dumper_status
read_failed (struct pdump_unpack *u, const char *what)
{
  const struct pdump_section *s = u->section;
  if (errno == 0)
    return pdump_check_fail (DUMPER_E_IMAGE_TRUNCATED, u->detail, u->detail_size,
                             u->path, "the file ended while reading %s of "
                             "section %s", what, pdump_section_name (s->kind));
  return pdump_check_fail (DUMPER_E_IO, u->detail, u->detail_size, u->path,
                           "cannot read %s of section %s: %s", what,
                           pdump_section_name (s->kind), strerror (errno));
}

enum dumper_status
pdump_unpack_begin (struct pdump_unpack *u, const struct pdump_view *view,
                    enum pdump_section_kind kind, pdump_read_fn read,
                    void *read_ctx, const char *path, char *detail,
                    size_t detail_size)
{
  memset (u, 0, sizeof *u);
  const struct pdump_section *s = &view->sections[kind];
  u->section = s;
  u->read = read;
  u->read_ctx = read_ctx;
  u->path = path;
  u->detail = detail;
  u->detail_size = detail_size;
  u->frame_size = view->header.frame_size ? view->header.frame_size
                                          : PDUMP_FRAME_SIZE;
  u->frame_count = frame_count_of (s->size, u->frame_size);
  u->next_stored = s->stored_offset;
  if (s->codec == PDUMP_CODEC_NONE)
    return DUMPER_OK;
  if (!pdump_codec_available (s->codec))
    return pdump_check_fail (DUMPER_E_IMAGE_VERSION, detail, detail_size, path,
                             "section %s is compressed with %s; this build of "
                             "libdumper lacks %s", pdump_section_name (kind),
                             pdump_codec_name (s->codec),
                             codec_library (s->codec));
  if (!codec_load (s->codec))
    return pdump_check_fail (DUMPER_E_IMAGE_VERSION, detail, detail_size, path,
                             "section %s is compressed with %s; %s cannot be "
                             "loaded: %s", pdump_section_name (kind),
                             pdump_codec_name (s->codec),
                             codec_library (s->codec), codec_why[s->codec]);

  /* check.c made sure the table fits in the stored range.  */
  uint64_t table = table_bytes (u->frame_count);
  u->frame_bytes = malloc (table ? table : 8);
  u->scratch = malloc ((size_t) PDUMP_FRAME_STORED_MAX (u->frame_size));
  if (u->frame_bytes == NULL || u->scratch == NULL)
    return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                             "out of memory for section %s",
                             pdump_section_name (kind));
  if (!read (read_ctx, u->frame_bytes, (size_t) table, s->stored_offset))
    return read_failed (u, "the frame table");
  uint64_t total = table;
  for (uint64_t i = 0; i < u->frame_count; i++)
    {
      uint32_t n = u->frame_bytes[i];
      if (n == 0 || n > PDUMP_FRAME_STORED_MAX (u->frame_size))
        return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                                 "section %s frame %" PRIu64 " has an invalid "
                                 "stored size of %" PRIu32 " bytes",
                                 pdump_section_name (kind), i, n);
      total += n;
    }
  if (total != s->stored_size)
    return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, detail, detail_size, path,
                             "section %s: its frames take %" PRIu64 " bytes; "
                             "the section table says %" PRIu64,
                             pdump_section_name (kind), total, s->stored_size);
  u->next_stored = s->stored_offset + table;
#ifdef HAVE_ZSTD
  if (s->codec == PDUMP_CODEC_ZSTD)
    {
      u->zstd = zstd.createDCtx ();
      if (u->zstd == NULL)
        return pdump_check_fail (DUMPER_E_NOMEM, detail, detail_size, path,
                                 "out of memory for the zstd decompressor");
    }
#endif
  return DUMPER_OK;
}

/* Decompress frame I (SRC, STORED bytes) into DEST of exactly LENGTH.  */
static bool
decode_frame (struct pdump_unpack *u, const unsigned char *src, size_t stored,
              unsigned char *dest, size_t length)
{
  switch (u->section->codec)
    {
#ifdef HAVE_LZ4
    case PDUMP_CODEC_LZ4:
      return lz4.decompress_safe ((const char *) src, (char *) dest, (int) stored,
                                  (int) length) == (int) length;
#endif
#ifdef HAVE_ZSTD
    case PDUMP_CODEC_ZSTD:
      {
        size_t n = zstd.decompressDCtx (u->zstd, dest, length, src, stored);
        return !zstd.isError (n) && n == length;
      }
#endif
    default:
      return false;
    }
}

static enum dumper_status unpack_frames (struct pdump_unpack *u,
                                         unsigned char *dest, uint64_t upto);

enum dumper_status
pdump_unpack_until (struct pdump_unpack *u, unsigned char *dest, uint64_t upto)
{
  u->status = unpack_frames (u, dest, upto);
  return u->status;
}

static enum dumper_status
unpack_frames (struct pdump_unpack *u, unsigned char *dest, uint64_t upto)
{
  const struct pdump_section *s = u->section;
  if (upto > s->size)
    upto = s->size;
  while (u->next_frame < u->frame_count
         && u->next_frame * u->frame_size < upto)
    {
      uint64_t i = u->next_frame;
      uint64_t start = i * u->frame_size;
      uint64_t length = s->size - start < u->frame_size ? s->size - start
                                                        : u->frame_size;
      if (s->codec == PDUMP_CODEC_NONE)
        {
          if (!u->read (u->read_ctx, dest + start, (size_t) length,
                        s->stored_offset + start))
            return read_failed (u, "the bytes");
        }
      else
        {
          uint32_t stored = u->frame_bytes[i];
          if (!u->read (u->read_ctx, u->scratch, stored, u->next_stored))
            return read_failed (u, "a frame");
          if (!decode_frame (u, u->scratch, stored, dest + start, (size_t) length))
            return pdump_check_fail (DUMPER_E_IMAGE_CORRUPT, u->detail,
                                     u->detail_size, u->path,
                                     "section %s frame %" PRIu64 " (file offset "
                                     "%" PRIu64 ", %" PRIu32 " bytes) does not "
                                     "decompress to its %" PRIu64 " bytes with %s",
                                     pdump_section_name (s->kind), i,
                                     u->next_stored, stored, length,
                                     pdump_codec_name (s->codec));
          u->next_stored += stored;
        }
      u->next_frame++;
    }
  return DUMPER_OK;
}

void
pdump_unpack_end (struct pdump_unpack *u)
{
  free (u->frame_bytes);
  free (u->scratch);
#ifdef HAVE_ZSTD
  if (u->zstd != NULL)   /* zstd.freeDCtx is unset while zstd is unused */
    zstd.freeDCtx (u->zstd);
#endif
  u->frame_bytes = NULL;
  u->scratch = NULL;
  u->zstd = NULL;
}

enum dumper_status
pdump_unpack_section (const struct pdump_view *view, enum pdump_section_kind kind,
                      unsigned char *dest, pdump_read_fn read, void *read_ctx,
                      const char *path, char *detail, size_t detail_size)
{
  struct pdump_unpack u;
  enum dumper_status st = pdump_unpack_begin (&u, view, kind, read, read_ctx,
                                              path, detail, detail_size);
  if (st == DUMPER_OK)
    st = pdump_unpack_until (&u, dest, view->sections[kind].size);
  pdump_unpack_end (&u);
  return st;
}

enum dumper_status
pdump_unpack_section_checked (const struct pdump_view *view,
                              enum pdump_section_kind kind, unsigned char *dest,
                              pdump_read_fn read, void *read_ctx,
                              const char *path, char *detail,
                              size_t detail_size)
{
  const struct pdump_section *s = &view->sections[kind];
  struct pdump_unpack u;
  enum dumper_status st = pdump_unpack_begin (&u, view, kind, read, read_ctx,
                                              path, detail, detail_size);
  /* On the stack, as every streaming state of the loader (hash.h).  */
  XXH3_state_t state_storage, *state = &state_storage;
  XXH3_INITSTATE (state);
  XXH3_64bits_reset (state);
  /* Frame by frame: each is hashed just after it is placed, while its
     bytes are still in cache, instead of in a second pass over the
     section (pdump_check_section_sum) once all of it is.  */
  for (uint64_t at = 0; at < s->size && st == DUMPER_OK; at += u.frame_size)
    {
      uint64_t length = s->size - at < u.frame_size ? s->size - at
                                                    : u.frame_size;
      st = pdump_unpack_until (&u, dest, at + length);
      if (st == DUMPER_OK)
        XXH3_64bits_update (state, dest + at, (size_t) length);
    }
  if (st == DUMPER_OK && XXH3_64bits_digest (state) != s->checksum)
    /* The (rare) failure: the one message for it, from a second pass.  */
    st = pdump_check_section_sum (view, kind, dest, path, detail, detail_size);
  pdump_unpack_end (&u);
  return st;
}
