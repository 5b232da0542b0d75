/* SPDX-License-Identifier: MIT */
/* pdump/codec.h: how section bytes are stored: compressing a section
   into frames (the writer) and bringing a stored section back, frame by
   frame, into its place in memory (the loader and dumper-inspect).

   This is the I/O layer only: it knows the frame table of format.h and
   the two codecs, not what the sections mean.  The stored bytes are
   untrusted: every frame size is checked against the section's stored
   range before it is read, and every frame must decompress to exactly
   its share of the section; a decompressor error is corruption
   (DUMPER_E_IMAGE_CORRUPT).  A codec this build lacks is refused with
   DUMPER_E_IMAGE_VERSION, naming the library to build with.  */

#ifndef DUMPER_PDUMP_CODEC_H
#define DUMPER_PDUMP_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>

#include "check.h"
#include "format.h"

/* LZ4 levels (pdump_codec_parse): 1-2 LZ4's fast compressor, 3-12
   LZ4HC; plain "lz4" is PDUMP_LZ4_LEVEL_DEFAULT.  */
#define PDUMP_LZ4_LEVEL_MAX 12
#define PDUMP_LZ4_LEVEL_DEFAULT 3

/* "none", "lz4", "zstd", or "?".  */
const char *pdump_codec_name (unsigned codec);

/* Whether this build can read and write CODEC.  */
bool pdump_codec_available (unsigned codec);

/* pdump_codec_parse is declared in backend.h (the bridge calls it).  */

/* Compress SIZE bytes at SRC with CODEC at LEVEL into frames of
   FRAME_SIZE: the stored form of format.h (frame table, then frames), in
   malloc'd *OUT of *OUT_SIZE bytes.  Deterministic: the same bytes,
   codec and level give the same output.  DUMPER_E_NOMEM or DUMPER_OK.  */
enum dumper_status pdump_codec_pack (unsigned codec, int level,
                                     const unsigned char *src, uint64_t size,
                                     uint64_t frame_size,
                                     unsigned char **out, uint64_t *out_size);

/* Reads SIZE stored bytes at image-relative file offset OFFSET; false on
   an error (errno set, 0 for end of file).  */
typedef bool (*pdump_read_fn) (void *ctx, void *buf, size_t size,
                               uint64_t offset);

/* Stored bytes already in memory (a whole image file): a
   pdump_read_fn whose READ_CTX is a struct pdump_memory, for
   dumper-inspect and the fuzz targets.  Reads past SIZE fail with errno
   0 (end of file).  */
struct pdump_memory
{
  const unsigned char *bytes;
  uint64_t size;
};
bool pdump_read_memory (void *ctx, void *buf, size_t size, uint64_t offset);

/* A section being brought back, frame by frame.  */
struct pdump_unpack
{
  const struct pdump_section *section;
  uint64_t frame_size;         /* the header's, or the section size */
  uint64_t frame_count;
  uint64_t next_frame;         /* frames before it are in place */
  uint64_t next_stored;        /* file offset of frame next_frame */
  uint32_t *frame_bytes;       /* the frame table, copied out */
  unsigned char *scratch;      /* one compressed frame */
  void *zstd;                  /* ZSTD_DCtx */
  pdump_read_fn read;
  void *read_ctx;
  const char *path;
  char *detail;
  size_t detail_size;
  enum dumper_status status;   /* of the last call */
};

/* Start bringing back section KIND of the checked image VIEW: read and
   check its frame table.  */
enum dumper_status pdump_unpack_begin (struct pdump_unpack *u,
                                       const struct pdump_view *view,
                                       enum pdump_section_kind kind,
                                       pdump_read_fn read, void *read_ctx,
                                       const char *path, char *detail,
                                       size_t detail_size);

/* Bring back the frames that cover the section's bytes [0, UPTO) and are
   not in place yet, into DEST (the section's first byte in memory).  */
enum dumper_status pdump_unpack_until (struct pdump_unpack *u,
                                       unsigned char *dest, uint64_t upto);

/* Release what begin allocated.  Safe after a failed begin.  */
void pdump_unpack_end (struct pdump_unpack *u);

/* begin, until the end, end.  */
enum dumper_status pdump_unpack_section (const struct pdump_view *view,
                                         enum pdump_section_kind kind,
                                         unsigned char *dest,
                                         pdump_read_fn read, void *read_ctx,
                                         const char *path, char *detail,
                                         size_t detail_size);

/* pdump_unpack_section, and the section's checksum (XXH3-64 of the
   uncompressed bytes, format.h) checked frame by frame as the bytes are
   placed: a mismatch is DUMPER_E_IMAGE_CORRUPT with the message of
   pdump_check_section_sum.  The loader's COLD: the checksum then costs
   no second pass over memory.  */
enum dumper_status pdump_unpack_section_checked (const struct pdump_view *view,
                                                 enum pdump_section_kind kind,
                                                 unsigned char *dest,
                                                 pdump_read_fn read,
                                                 void *read_ctx,
                                                 const char *path,
                                                 char *detail,
                                                 size_t detail_size);

#endif /* DUMPER_PDUMP_CODEC_H */
