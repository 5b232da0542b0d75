/* SPDX-License-Identifier: MIT */
/* pdump/load.h: what the files of the loader share (load.c runs the
   steps; place.c brings the image into memory; loadcheck.c verifies it;
   restore.c copies the tables and restores the statics; testhooks.c
   injects faults in test builds).  Internal to pdump/.  */

#ifndef DUMPER_PDUMP_LOAD_H
#define DUMPER_PDUMP_LOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "common/options.h"
#include "backend.h"
#include "bootcache.h"
#include "codec.h"
#include "exe.h"
#include "verify.h"

/* Where the image is in memory and how it got there.  */
struct placement
{
  unsigned char *base;        /* file offset 0 */
  unsigned char *region;      /* what to unmap on failure */
  size_t region_size;
  enum pdump_load_method method;
  bool hot_pending;           /* HOT still to be read (by relocate) */
  int fd;
  uint64_t origin;            /* file offset of the image (embedded) */
  uint64_t hot_offset;
  struct pdump_unpack *hot_unpack;   /* compressed HOT, else NULL */
  bool cold_summed;           /* COLD's checksum checked while it was
                                 decompressed */
  char hot_detail[512];       /* its failure, which relocate would mask */
};

/* Copies of the small tables the loader interprets, taken out of the
   file mapping before they are checked: another process writing the
   file cannot change them between the check and the use.  */
struct private_tables
{
  unsigned char *registry;
  unsigned char *scalars;
  unsigned char *code_relocs;
};

/* One load in progress: what each step of load_image leaves for the
   next, and what discard releases when a step fails.  */
struct load
{
  const struct pdump_load_request *req;
  long faults0;
  double t0, t_open, t_map, t_reloc, t_restore;
  uint64_t length;              /* bytes of the image in the file */
  struct pdump_view view;
  struct placement place;       /* fd, origin, and the memory */
  bool placed;                  /* place.region is ours to unmap */
  bool at_preferred;            /* at the image's preferred base */
  bool fell_back;               /* base mode fixed, placed elsewhere */
  bool boot_hit;                /* loading the boot cache at its base */
  bool boot_write;              /* loading the image at the boot base,
                                   writing the cache */
  struct stat image_stat;       /* the file when it was opened */
  const char *cold_how;         /* how COLD was verified (pdump_stats) */
  const char *structure_how;    /* whether the structural pass ran, and
                                   why (pdump_stats) */
  bool skip_cold;               /* COLD's checksum not computed */
  bool hot_known;               /* at the preferred base, the file checked
                                   earlier this boot: HOT's pass skipped */
  bool cold_stamp;              /* record that COLD was checked */
  bool structure_stamp;         /* record that the structural pass
                                   passed on the image file */
  uint64_t exe_pages;           /* HOT pages executable or code
                                   relocations write */
  struct pdump_unpack hot_unpack;
  struct private_tables tables;
  struct pdump_exe exe;
  struct pdump_verify_request vr;
  uint64_t *marks;
  size_t mark_bytes;
  struct pdump_entry *entries;
  struct pdump_stats stats;
  /* Last: most of it is path buffers a load writes only the start of
     (pdump_boot_init; pdump_load zeroes what comes before).  */
  struct pdump_boot boot;       /* base mode boot */
};


/* The settings of REQ: its caller's, or those of a process that set
   nothing.  */
static inline const struct common_options *
pdump_options_of (const struct pdump_load_request *req)
{
  return req->options ? req->options : &common_default_options;
}


/* Describe a failure about the image file in the request's detail
   (replacing what is there): "PATH: WHAT[: strerror (ERR)]".  */
enum dumper_status pdump_fail_file (const struct pdump_load_request *req,
                                    enum dumper_status status,
                                    const char *what, int err);

/* A load's verdict on a file cut while it was loaded (pdump_load's
   SIGBUS guard, copy_section).  */
extern const char pdump_shorter_in_load[];

/* place.c.  Why the last fixed placement was not made, and what was
   advised for huge pages (pdump_stats).  */
extern char pdump_base_reason[PATH_MAX + 256];
extern char pdump_huge_note[200];

/* Bring the whole file into memory by the chosen method (see place.c).  */
bool pdump_bring_in (struct placement *p, const struct pdump_load_request *req,
                     uint64_t size, const struct pdump_view *view,
                     enum dumper_status *st, unsigned char *at, bool copy);
/* A compressed image in anonymous memory (see place.c).  */
bool pdump_place_unpack (struct placement *p, const struct pdump_view *view,
                         struct pdump_unpack *hot_unpack,
                         const struct pdump_load_request *req,
                         enum dumper_status *st, unsigned char *at);
/* The relocation pass's fill of a HOT still to be read (CTX: the
   placement).  */
bool pdump_fill_hot (void *ctx, unsigned char *dest, uint64_t offset,
                     uint64_t size);
/* The HOT pages the executable's and code relocations write (see
   place.c).  */
uint64_t pdump_exe_pages (const struct pdump_view *view,
                          const unsigned char *base,
                          const unsigned char *code_relocs,
                          unsigned char *populate);

/* restore.c.  */
void pdump_free_tables (struct private_tables *t);
enum dumper_status pdump_copy_section (const struct pdump_view *view,
                                       enum pdump_section_kind kind,
                                       const unsigned char *base, int fd,
                                       uint64_t origin, unsigned char **copy,
                                       const struct pdump_load_request *req);
struct pdump_entry *pdump_restore_records (const struct pdump_view *view,
                                           const unsigned char *base,
                                           const struct private_tables *tables,
                                           const struct pdump_exe *exe,
                                           const struct pdump_load_request *req,
                                           struct pdump_stats *stats);

/* loadcheck.c: the step that verifies the placed image.  */
enum dumper_status pdump_load_verify (struct load *l);

/* testhooks.c: fault injection, with --enable-test-hooks only (see
   there); nothing in a release build.  */
#if DUMPER_TEST_HOOKS
void pdump_test_truncate (const struct pdump_load_request *req,
                          const char *when);
bool pdump_test_occupy (const struct pdump_load_request *req, uint64_t base);
void pdump_test_fill (struct pdump_verify_request *vr,
                      const struct pdump_load_request *req);
#else
# define pdump_test_truncate(req, when) ((void) 0)
# define pdump_test_occupy(req, base) true
# define pdump_test_fill(vr, req) ((void) 0)
#endif

#endif /* DUMPER_PDUMP_LOAD_H */
