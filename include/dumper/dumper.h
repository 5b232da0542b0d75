/* SPDX-License-Identifier: MIT */
/* dumper/dumper.h: the libdumper API a host runtime calls.

   A host (a Lisp, an editor runtime) links libdumper to save its
   initialised heap once and start every later run from it.  The same
   calls work whichever back end the library was configured with
   (`./configure --with-dumper=pdumper|unexec|none'); see gflags.h for
   the flags and heap.h for how a host describes its objects.

   The start-up sequence every host follows:

     int main (int argc, char **argv)
     {
       dumper_describe_heap (&my_heap);              // every start
       enum dumper_status st = dumper_startup (&argc, &argv);
       if (st != DUMPER_OK)
         return dumper_report (argv[0], st);         // message + exit code
       if (!initialized)
         {
           init_once ();                             // cold path only
           dumper_mark_initialized ();
         }
       init_every_start ();                          // env, time, terminals
       if (will_dump)
         {
           loadup ();
           st = dumper_dump (output);
           ...
         }
     }

   Everything registered with the calls in "Registry" below is restored
   by every back end: an unexec'd executable carries it in its data, a
   pdump image records it.  Register during the cold init (the records
   come back with the dump); registering the same address again is a
   harmless no-op, so registering on every start also works.

   Errors: functions return an `enum dumper_status'; the library never
   exits or aborts on bad input.  dumper_strerror names the class,
   dumper_error_detail gives the specifics of the most recent failure
   (file, offset, field), dumper_exit_status maps each class to a
   documented exit status.  */

#ifndef DUMPER_DUMPER_H
#define DUMPER_DUMPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <dumper/backend.h>
#include <dumper/gflags.h>
#include <dumper/heap.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Status codes.  The numeric values are stable; so are the exit
   statuses dumper_exit_status gives them (see doc/exit-status.md).  */

enum dumper_status
{
  DUMPER_OK = 0,
  DUMPER_E_USAGE,             /* bad command-line argument for the bridge */
  DUMPER_E_NO_BACKEND,        /* build cannot dump, or asked for another back end */
  DUMPER_E_NOMEM,             /* out of memory */
  DUMPER_E_IO,                /* read or write failure (errno in the detail) */
  DUMPER_E_OUTPUT,            /* cannot create the output file */
  DUMPER_E_STATE,             /* call made at the wrong time (host bug) */
  DUMPER_E_IMAGE_MISSING,     /* image file does not exist or cannot be opened */
  DUMPER_E_IMAGE_TRUNCATED,   /* image shorter than its header says */
  DUMPER_E_IMAGE_MAGIC,       /* not a dumper image */
  DUMPER_E_IMAGE_VERSION,     /* image format version not supported */
  DUMPER_E_IMAGE_ARCH,        /* other word size, byte order or machine */
  DUMPER_E_IMAGE_FINGERPRINT, /* written by a different build of the executable */
  DUMPER_E_IMAGE_CORRUPT,     /* checksum or bounds check failed */
  DUMPER_E_FOREIGN_POINTER,   /* dump found a pointer neither into the heap nor the executable */
  DUMPER_E_HEAP_DESC,         /* heap description missing or invalid */
  DUMPER_E_ARENA_FULL,        /* unexec static arena exhausted */
  DUMPER_E_EXE,               /* executable not usable (not ELF, PIE under unexec, ...) */
  DUMPER_E_NO_FINGERPRINT,    /* executable carries no build fingerprint */
  DUMPER_STATUS_COUNT         /* number of codes; not a status */
};

/* A short, constant description of STATUS ("image is corrupt").  */
const char *dumper_strerror (enum dumper_status status);

/* The specifics of the most recent failure in this thread: file name,
   offset, type and field, errno text.  Never NULL; "" when none.  */
const char *dumper_error_detail (void);

/* The status of the most recent failure in this thread, for calls that
   return a pointer (dumper_alloc, dumper_realloc): after a NULL,
   `dumper_report (argv[0], dumper_last_status ())'.  DUMPER_OK when
   nothing has failed since the last successful public call.  */
enum dumper_status dumper_last_status (void);

/* The process exit status a program should use for STATUS: 0 for
   DUMPER_OK, else a distinct value in 64..99 (never 1, never >= 128).  */
int dumper_exit_status (enum dumper_status status);

/* Print "PROGNAME: <strerror>: <detail>" on stderr and return
   dumper_exit_status (STATUS), for `return dumper_report (...)'.  */
int dumper_report (const char *progname, enum dumper_status status);

/* Warnings (suspicious pointers found by unexec, a failed ASLR re-exec)
   go to this handler; the default prints "dumper: warning: MSG" on
   stderr.  Pass NULL to restore the default.  */
typedef void (*dumper_warning_fn) (const char *message, void *data);
void dumper_set_warning_handler (dumper_warning_fn fn, void *data);

/* ------------------------------------------------------------------ */
/* The heap description (heap.h).  Install it on every start, before
   dumper_dump; it is kept by pointer, so it must be static.  Calling
   again replaces it.  Returns DUMPER_OK or DUMPER_E_HEAP_DESC with the
   defect named in dumper_error_detail.  */
enum dumper_status dumper_describe_heap (const struct dumper_heap *heap);

/* ------------------------------------------------------------------ */
/* Start-up.  */

/* The one call at the top of a host's main.  It removes the bridge's
   own arguments from *ARGC and *ARGV (the array is rewritten in place; the
   strings are not copied) and sets the flags:

     --temacs=pdump        this run will dump an image (pdumper builds)
     --temacs=dump         this run will dump an executable (unexec
                           builds); the process re-executes itself once
                           with ASLR disabled
     --dump-file=FILE      load this image (also `--dump-file FILE');
                           failing to load it is an error
     --no-dump-file        do not look for an image: a cold start
     --                    ends the bridge's scanning; it is kept in argv
                           for the host

   Without --dump-file a pdumper build looks for `<exe>.pdmp' beside the
   real executable (/proc/self/exe), then in the directory set with
   dumper_set_image_dir (default: the configured libexecdir/dumper).  Not
   found means a cold start; found but unusable is an error.  After a
   successful load the remembered data is restored, the after-load hooks
   run in registration order, and `initialized' and `dumped_with_pdumper'
   are true.  In a dumped unexec executable the hooks run here too.

   Returns DUMPER_OK, DUMPER_E_USAGE (bad or missing option value),
   DUMPER_E_NO_BACKEND (--temacs for a back end this build lacks) or an
   image error.  Call it once.

   With DUMPER_PDUMP_CHECK_ONLY=1 in the environment (what
   `dumper-inspect --check --deep' sets) it only verifies the image, with
   the structural pass (dumper_set_verify below), and ends the process
   with the loader's exit status: the one case in which the library
   exits, on that explicit request (doc/format.md, "Check-only mode").  */
enum dumper_status dumper_startup (int *argc, char ***argv);

/* Override the fallback directory searched for `<exe-name>.pdmp' (call
   before dumper_startup).  NULL restores the default.  */
void dumper_set_image_dir (const char *dir);

/* How much a pdump image is checked before the host sees its heap
   (doc/format.md, "Verification").  Every mode checks checksums, every
   offset, size and relocation against the file's bounds and every
   registry record against the executable: a damaged image is always
   refused.  */
enum dumper_verify
{
  /* Only that.  A crafted image (checksums recomputed) cannot make the
     loader read or write outside the image or undeclared statics, but
     it can hand the host a heap whose pointers lead anywhere inside the
     image: fine for images this build wrote itself.  */
  DUMPER_VERIFY_NONE = 0,
  /* Also walk every image object with the host's own size and trace
     functions and refuse (DUMPER_E_IMAGE_CORRUPT) any field that is not
     an immediate, a pointer into the executable or a pointer to the
     start of an image object of the right type, any relocation no trace
     reports, any gap or overlap between objects.  Recommended for
     images that come from elsewhere (downloaded, written by a user's
     re-dump, shared between users).  Costs about a mark phase; see
     doc/format.md for the measured cost.  */
  DUMPER_VERIFY_STRUCTURE = 1
};

/* Choose the mode (call before dumper_startup).  The environment
   variable DUMPER_PDUMP_VERIFY=none|structure overrides it; without
   either the configured default applies (./configure
   --with-pdump-verify=none|structure).  DUMPER_VERIFY_STRUCTURE needs
   dumper_describe_heap before dumper_startup.  */
void dumper_set_verify (enum dumper_verify mode);

/* Declare the cold initialisation complete: sets `initialized'.  */
void dumper_mark_initialized (void);

/* How this process's state was obtained.  */
enum dumper_origin
{
  DUMPER_ORIGIN_COLD,        /* built by the cold init */
  DUMPER_ORIGIN_UNEXEC,      /* started as a dumped executable */
  DUMPER_ORIGIN_PDUMP        /* loaded from an image */
};

struct dumper_start_info
{
  enum dumper_origin origin;
  const char *image_path;    /* image loaded (pdump), else NULL */
  double startup_seconds;    /* time spent inside dumper_startup */
  double load_seconds;       /* image load, including relocation and hooks */
};

/* Valid after dumper_startup; the pointer stays valid.  */
const struct dumper_start_info *dumper_start_info (void);

/* ------------------------------------------------------------------ */
/* Dumping.  */

/* Dump the current state with the configured back end to OUTPUT: an
   image file (pdumper) or a new executable (unexec).  The file is
   written under a temporary name and renamed, so a failure never leaves
   a partial file under OUTPUT.  Requires `will_dump' and
   dumper_describe_heap (pdumper).  In a `none' build it returns
   DUMPER_E_NO_BACKEND.  The process may continue afterwards, but a
   host normally exits.  */
enum dumper_status dumper_dump (const char *output);

/* ------------------------------------------------------------------ */
/* Registry.  Calls made in registration order are replayed in that
   order after a dump is loaded.  All return DUMPER_OK or
   DUMPER_E_NOMEM.  */

/* Call FN now, and again at every start from a dump (after the data
   is restored).  */
enum dumper_status dumper_do_now_and_after_load (void (*fn) (void));

/* The SIZE bytes at ADDR (a static variable or array of the executable)
   get back the value they have at dump time.  ADDR must not hold
   pointers: use dumper_remember_ptr / dumper_remember_word for those.  */
enum dumper_status dumper_remember_scalar (void *addr, size_t size);
#define DUMPER_REMEMBER_SCALAR(var) \
  dumper_remember_scalar (&(var), sizeof (var))

/* The static raw pointer *ADDR points to a heap object of type TYPE (an
   index into the heap description) or is NULL; the object is dumped and
   the pointer restored.  */
enum dumper_status dumper_remember_ptr (void **addr, int type);

/* The static tagged word *ADDR (see heap.h) is dumped and restored.  */
enum dumper_status dumper_remember_word (uintptr_t *addr);

/* *ADDR is a GC root: dumped and restored like a remembered word, and
   listed by dumper_roots for the host's collector.  */
enum dumper_status dumper_staticpro (uintptr_t *addr);

/* The registered GC roots, in registration order; *COUNT is set.  The
   array stays valid until the next registration.  */
uintptr_t *const *dumper_roots (size_t *count);

/* ------------------------------------------------------------------ */
/* Heap allocation.  Every object that must survive a dump is allocated
   here: in unexec builds from the static arena inside the executable,
   otherwise from malloc.  Memory from dumper_alloc is zeroed, so struct
   padding never holds garbage (dumps are byte-for-byte deterministic).  */

/* SIZE zeroed bytes aligned to at least 16, or NULL when out of memory
   (dumper_error_detail then names the limit; for unexec the configure
   option that raises it).  dumper_alloc (0) returns a unique pointer.  */
void *dumper_alloc (size_t size);

/* Free PTR (NULL is ignored).  Objects inside a loaded pdump image are
   not the allocator's: freeing one is ignored, so a host's sweep may
   skip the test.  */
void dumper_free (void *ptr);

/* Resize like realloc.  Bytes past the old size are NOT zeroed.  PTR
   must not be inside a loaded pdump image (copy such objects instead).  */
void *dumper_realloc (void *ptr, size_t size);

/* ------------------------------------------------------------------ */
/* Build fingerprint.

   An image may only be loaded by the build that wrote it.  Each host
   executable carries a fingerprint of its own linked file: put

     DUMPER_DEFINE_FINGERPRINT;

   at file scope in exactly one source file of the executable (not of a
   shared library), and run `dumper-fingerprint EXECUTABLE' after
   linking: it hashes the file (with the fingerprint bytes zeroed) and
   writes the hash into them.  An executable without the note falls back
   to its GNU build-id.  */

#define DUMPER_FINGERPRINT_SIZE 16
#define DUMPER_FINGERPRINT_NOTE_NAME "dumper"
#define DUMPER_FINGERPRINT_NOTE_TYPE 0x46504431u   /* "1DPF" */
#define DUMPER_FINGERPRINT_SECTION ".note.dumper.fingerprint"

/* An ELF note: namesz, descsz, type, name padded to 4, then the hash.  */
struct dumper_fingerprint_note
{
  uint32_t namesz;
  uint32_t descsz;
  uint32_t type;
  char name[8];
  unsigned char desc[DUMPER_FINGERPRINT_SIZE];
};

#define DUMPER_DEFINE_FINGERPRINT                                        \
  __attribute__ ((section (DUMPER_FINGERPRINT_SECTION), aligned (4), used)) \
  const struct dumper_fingerprint_note dumper_fingerprint_note =          \
    { sizeof DUMPER_FINGERPRINT_NOTE_NAME, DUMPER_FINGERPRINT_SIZE,       \
      DUMPER_FINGERPRINT_NOTE_TYPE, DUMPER_FINGERPRINT_NOTE_NAME, { 0 } }

/* Copy the running executable's fingerprint to OUT.  Returns DUMPER_OK,
   or DUMPER_E_NO_FINGERPRINT when the executable has neither a patched
   dumper note nor a GNU build-id.  */
enum dumper_status
dumper_fingerprint (unsigned char out[DUMPER_FINGERPRINT_SIZE]);

#ifdef __cplusplus
}
#endif

#endif /* DUMPER_DUMPER_H */
