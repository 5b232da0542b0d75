/* SPDX-License-Identifier: MIT */
/* pdump/embed.h: an image stored as an ELF section of an executable
   (embed.c).  Shared by the loader and dumper-inspect.  */

#ifndef DUMPER_PDUMP_EMBED_H
#define DUMPER_PDUMP_EMBED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>

struct pdump_embedded
{
  bool found;
  uint64_t offset;     /* file offset of the image's first byte */
  uint64_t size;       /* the image's bytes */
};

/* Look for the PDUMP_EMBED_SECTION section in the ELF file open on FD
   (PATH names it in messages).  DUMPER_OK with OUT->found false when the
   file is no ELF file of this process's class or has no such section;
   DUMPER_E_IMAGE_TRUNCATED when the section or the section header
   table runs past the end of the file (a truncated copy must never
   start cold in silence); DUMPER_E_EXE when the section headers are
   damaged.  */
enum dumper_status pdump_find_embedded (int fd, const char *path,
                                        struct pdump_embedded *out,
                                        char *detail, size_t detail_size);

/* The mark dumper-embed leaves in the executable it writes, so that
   one whose section headers no longer locate its image (damaged,
   stripped by a tool that drops them, the section renamed) is not
   started cold in silence.  The array lives in libdumper's writable
   data: dumper-embed finds its initial bytes in the executable's file
   (every loadable byte keeps its offset in the copy) and sets the last
   one to 1; at start-up it is read from memory, at no cost.  An
   executable that links libdumper as a shared library holds no such
   array and is not marked.  */
#define PDUMP_EMBED_MARK_MAGIC "\177dumper: embedded image"
#define PDUMP_EMBED_MARK_SIZE (sizeof PDUMP_EMBED_MARK_MAGIC)
extern unsigned char pdump_embed_mark[PDUMP_EMBED_MARK_SIZE];

/* Read exactly SIZE bytes at OFFSET of FD (common_pread_fully) in the
   form of a pdump_read_fn: false on an error (errno set) or at the end
   of the file (errno 0).  Shared with the loader.  */
bool pdump_read_exact (int fd, void *buf, size_t size, uint64_t offset);

#endif /* DUMPER_PDUMP_EMBED_H */
