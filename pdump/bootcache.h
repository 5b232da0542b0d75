/* SPDX-License-Identifier: MIT */
/* pdump/bootcache.h: base mode boot (doc/format.md, "Base modes").

   The base is random, chosen once per boot and user; the first process
   that loads an image relocates it to that base and saves the
   relocated image in a per-user cache; later processes of the same
   boot map the cache at that base and apply only the executable's and
   the code relocations.  Everything lives in the user's directory,
   $XDG_RUNTIME_DIR/dumper, or where that is unset or unusable
   $TMPDIR/dumper-UID (/tmp/dumper-UID without TMPDIR):

     base                      "BOOT_ID BASE\n": this boot's base
     PATHSUM-IMAGESUM-BASE.pdmp  an image relocated to BASE: PATHSUM
                               hashes the image's path, IMAGESUM is the
                               image's header checksum
     PATHSUM-IMAGESUM-BASE.pdmp.stamp  the cache's device, inode, size
                               and change time once written, and the
                               image file's when it was written from it
     lock                      flock'd by the one process writing a cache
     PATHSUM-IMAGESUM.cold     COLD verification boot: the image file's
                               boot id, device, inode, size and change
                               time when its COLD was last checked
     PATHSUM-IMAGESUM.structure  the same, when the structural pass
                               last passed on it (verify auto skips the
                               pass on the same file later this boot)

   $XDG_RUNTIME_DIR and the directory must be directories owned by the
   process's effective user with no access for group or others ($TMPDIR:
   the user's and not writable by others, or root's and sticky), and a
   cache a regular file owned by that user, mode 0600 or stricter;
   anything else and the cache is not used (nor written).  Every file
   here (the cache, its stamp, base, a COLD record) is opened without
   waiting (O_NONBLOCK) and refused unless fstat says it is a regular
   file: a FIFO in its place would otherwise block the start forever.  The cache
   must also match its stamp: any write, truncation, chmod or
   replacement through the file system changes its change time, which
   no user can set back; and so must the image file (a change to it
   means a load of the image itself, checked in full).  A cache is
   written only after the structural pass over the relocated heap
   (load.c, structure_heap), so the source image the cache was made
   from, crafted or not, passed it.  Who can write there can already run code as
   the user, so a cache that passes these checks is trusted the way the
   executable is: its header and tables are checked at each start, its
   body (HOT, COLD) is not hashed again.
   Nothing here fails or blocks a load: every problem is a reason for a
   normal relocated load (struct pdump_boot's reason).  */

#ifndef DUMPER_PDUMP_BOOTCACHE_H
#define DUMPER_PDUMP_BOOTCACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "common/atomic.h"
#include "check.h"

/* The longest path of the directory or a cache in it.  Such paths are
   short ($XDG_RUNTIME_DIR is /run/user/UID); a longer one is a reason
   not to use the directory (like any other), never an error.  Not
   PATH_MAX: the loader keeps this structure on its stack, and every
   page of the stack a start touches is a page fault, about 10 us each
   on a virtual machine, a tenth of a boot-cache load per page (issue
   15).  */
#define PDUMP_BOOT_PATH_MAX 512

struct pdump_boot
{
  uint64_t base;              /* this boot's base; 0: none (see reason) */
  bool writing;
  bool dir_is_xdg;            /* dir is $XDG_RUNTIME_DIR/dumper, not the
                                 $TMPDIR fallback */
  int lock_fd;                /* DIR/lock, held while writing; -1 */
  bool uid_known;             /* uid read (user_of in bootcache.c) */
  uid_t uid;                  /* geteuid (), once a load */
  const struct stat *image;   /* the image file's status (setup) */
  char prefix[24];            /* "PATHSUM-": every cache of this image */
  struct common_atomic out;   /* a cache being written */
  /* XDG_RUNTIME_DIR and TMPDIR as the settings have them (NULL when
     unset): where the user's directory may be.  */
  const char *runtime_dir;
  const char *tmp_dir;
  /* Last, and set by pdump_boot_init only in their first bytes.  */
  char dir[PDUMP_BOOT_PATH_MAX];      /* the user's directory */
  char cache[PDUMP_BOOT_PATH_MAX];    /* this image's cache at BASE */
  char reason[PDUMP_BOOT_PATH_MAX + 256];  /* why no cache is used, or
                                             what happened */
};

/* Make B empty (no base, no cache, nothing held) without writing its
   path buffers beyond their first byte; its directory will be under
   RUNTIME_DIR (XDG_RUNTIME_DIR), else TMP_DIR (TMPDIR, else /tmp).  */
void pdump_boot_init (struct pdump_boot *b, const char *runtime_dir,
                      const char *tmp_dir);

/* Check the directory (creating it), read or choose this boot's base,
   and name the cache of the image at IMAGE_PATH whose header checksum
   is IMAGE_SUM and whose file status is IMAGE (kept, and stamped with
   the cache: it must outlive B).  False (B->base 0) with B->reason
   when boot mode cannot be used in this process.  */
bool pdump_boot_setup (struct pdump_boot *b, const char *image_path,
                       uint64_t image_sum, const struct stat *image);

/* Open the cache and check its owner and mode: a descriptor, with the
   file's status in *ST (the caller needs its size: one fstat, not two),
   or -1 with B->reason (no cache yet, or one that may not be
   trusted).  */
int pdump_boot_open (struct pdump_boot *b, struct stat *st);

/* Whether the cache whose validated header is CACHE is IMAGE relocated
   to B->base: the same sections, sizes, counts and checksums but HOT's,
   the base, no compression.  False with B->reason.  */
bool pdump_boot_matches (struct pdump_boot *b, const struct pdump_view *cache,
                         const struct pdump_view *image);

/* Start writing the cache: the plain image of IMAGE_SIZE bytes at
   BYTES (its HOT relocated to B->base, nothing else changed) with its
   header rewritten for that base and HOT's new checksum HOT_SUM.  It
   becomes visible at pdump_boot_commit.  False with B->reason.  */
bool pdump_boot_write (struct pdump_boot *b, const unsigned char *bytes,
                       uint64_t image_size, uint64_t hot_sum);

/* Put the cache in place atomically and remove the older caches of the
   same image; or abandon it.  */
void pdump_boot_commit (struct pdump_boot *b);
void pdump_boot_abort (struct pdump_boot *b);

/* What a record of this directory says was checked of an image file
   earlier this boot: its COLD's checksum (COLD verification boot,
   dumper.h, DUMPER_COLD_BOOT), or the structural pass (verify auto).  */
enum pdump_boot_check { PDUMP_BOOT_COLD, PDUMP_BOOT_STRUCTURE };

/* Whether WHAT of the image at IMAGE_PATH (header checksum IMAGE_SUM,
   file status ST when it was opened) was checked earlier in this boot
   and the file is the same one, unchanged (DIR/PATHSUM-IMAGESUM.cold or
   .structure holds the boot id and the file's device, inode, size and
   change time): 1 if so, 0 if not, -1 (B->reason) when there is no
   usable directory to keep that in.  And record that it was, after a
   load that checked it.  */
int pdump_boot_checked (struct pdump_boot *b, enum pdump_boot_check what,
                        const char *image_path, uint64_t image_sum,
                        const struct stat *st);
void pdump_boot_stamp_checked (struct pdump_boot *b,
                               enum pdump_boot_check what,
                               const char *image_path, uint64_t image_sum,
                               const struct stat *st);

#endif /* DUMPER_PDUMP_BOOTCACHE_H */
