/* SPDX-License-Identifier: MIT */
/* pdump/restore.c: the loader's private copies of the small tables it
   interprets, and the last step of a load that writes outside the
   image: the remembered statics, from those checked copies.  */

#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "embed.h"
#include "load.h"

/* A load's verdict on a file cut while it was loaded (pdump_load's
   SIGBUS guard, copy_section).  */
const char pdump_shorter_in_load[]
  = "the file became shorter while it was loaded (changed in place; "
    "replace images by rename)";

static uintptr_t
decode (unsigned kind, uint64_t value, uintptr_t base, uintptr_t bias)
{
  switch (kind)
    {
    case PDUMP_VALUE_IMAGE: return base + value;
    case PDUMP_VALUE_EXE: return bias + value;
    default: return (uintptr_t) value;
    }
}


void
pdump_free_tables (struct private_tables *t)
{
  free (t->registry);
  free (t->scalars);
  free (t->code_relocs);
}


/* Copy section KIND out of the image at BASE (pdump_verify checks the
   copy's checksum); with FD >= 0 (a plain image, file offset ORIGIN),
   read it from the file instead: a table read through a file mapping
   maps (fault-around) pages of the discardable part, and each such
   fault is tens of microseconds on a virtual machine (issue 15).  */
enum dumper_status
pdump_copy_section (const struct pdump_view *view, enum pdump_section_kind kind,
              const unsigned char *base, int fd, uint64_t origin,
              unsigned char **copy, const struct pdump_load_request *req)
{
  const struct pdump_section *s = &view->sections[kind];
  *copy = malloc (s->size ? (size_t) s->size : 1);
  if (*copy == NULL)
    return pdump_fail_file (req, DUMPER_E_NOMEM,
                      "out of memory for the image's tables", 0);
  if (fd < 0)
    memcpy (*copy, base + s->offset, (size_t) s->size);
  else if (s->size && !pdump_read_exact (fd, *copy, (size_t) s->size,
                                         origin + s->offset))
    /* The header was checked against the file's size: it was cut while
       it was loaded, as the SIGBUS guard would have found.  */
    return errno ? pdump_fail_file (req, DUMPER_E_IO, "cannot read the image", errno)
                 : pdump_fail_file (req, DUMPER_E_IMAGE_CORRUPT, pdump_shorter_in_load, 0);
  return DUMPER_OK;
}

/* Write the remembered statics and build the registry for the bridge.
   The records (REGISTRY, a private copy) were checked by
   pdump_check_registry against the declaration table: every address
   written here is a declared static's.  */
struct pdump_entry *
pdump_restore_records (const struct pdump_view *view, const unsigned char *base,
         const struct private_tables *tables, const struct pdump_exe *exe,
         const struct pdump_load_request *req, struct pdump_stats *stats)
{
  const struct pdump_section *reg = &view->sections[PDUMP_SECTION_REGISTRY];
  struct pdump_entry *entries = malloc ((reg->count ? reg->count : 1) * sizeof *entries);
  if (entries == NULL)
    return NULL;
  for (uint64_t i = 0; i < reg->count; i++)
    {
      struct pdump_record r;
      memcpy (&r, tables->registry + i * sizeof r, sizeof r);
      /* Without a table (only the fuzz targets, whose stand-in
         executable is a buffer of their own) the checked offset is
         used; the bridge always passes the executable's table.  */
      const struct dumper_decl *d = req->decls ? &req->decls[r.decl] : NULL;
      unsigned char *at = (unsigned char *) (exe->bias + (uintptr_t) r.exe_offset);
      struct pdump_entry *e = &entries[i];
      e->decl = r.decl;
      e->kind = r.kind;
      e->addr = NULL;
      switch (r.kind)
        {
        case DUMPER_DECL_ROOT:
        case DUMPER_DECL_WORD:
        case DUMPER_DECL_PTR:
          {
            /* The word inside the declared static, by its offset there
               (checked to be a whole word inside it).  */
            e->addr = d ? (unsigned char *) d->addr
                          + (r.exe_offset - ((uintptr_t) d->addr - exe->bias))
                        : at;
            uintptr_t value = decode (r.value_kind, r.value, (uintptr_t) base,
                                      exe->bias);
            memcpy (e->addr, &value, sizeof value);
            stats->root_count++;
            break;
          }
        case DUMPER_DECL_SCALAR:
          e->addr = d ? d->addr : at;
          memcpy (e->addr, tables->scalars + r.value, r.size);
          stats->scalar_count++;
          break;
        case DUMPER_DECL_HOOK:
          stats->hook_count++;
          break;
        }
    }
  return entries;
}
