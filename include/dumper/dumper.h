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
   pdump image records it.  What may be registered is declared at build
   time (a link-time table; see "Registry"), so an image can only name
   statics, hooks and code addresses the executable declared.  Register
   during the cold init (the records come back with the dump);
   registering the same address again is a harmless no-op, so
   registering on every start also works.

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
  DUMPER_E_REGISTRATION,      /* undeclared or invalid registration or code pointer */
  DUMPER_E_INTERIOR_POINTER,  /* dump found a pointer into the middle of an object */
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
     --compress=SPEC       images this run dumps are compressed
                           (dumper_set_compression)
     --image-base=ADDR     the preferred base images this run dumps
                           record (dumper_set_image_base)
     --                    ends the bridge's scanning; it is kept in argv
                           for the host

   Without --dump-file a pdumper build first loads an image embedded in
   the real executable (/proc/self/exe; see dumper-embed(1)), else looks
   for `<exe>.pdmp' beside it, then in the directory set with
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

/* Compress the images dumper_dump writes: SPEC is "none" (the default),
   "lz4", "lz4:LEVEL" (1..12: 1-2 LZ4's fast compressor, 3-12 LZ4HC;
   "lz4" is level 3), "zstd" or "zstd:LEVEL" (1..22; "zstd" is level
   3), the same
   as the bridge option --compress=SPEC.  Each section is stored in
   independent 1 MiB frames (doc/format.md); the loader reads compressed
   and plain images alike.  Returns DUMPER_OK, DUMPER_E_USAGE for a bad
   SPEC or a codec this build lacks (configure found no liblz4 or
   libzstd), DUMPER_E_NO_BACKEND for anything but "none" in a build
   without the portable dumper.  */
enum dumper_status dumper_set_compression (const char *spec);

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
  DUMPER_VERIFY_STRUCTURE = 1,
  /* The default: every heap the host gets has passed the structural
     pass once.  A load from the image file runs it (base mode random,
     fixed, a fallback, and the first load of base mode boot, which
     writes the boot cache only after it); a load from a boot cache,
     verified when it was written, does not.  Without a heap
     description (dumper_describe_heap before dumper_startup) there is
     nothing to verify with: as DUMPER_VERIFY_NONE, and pdump_stats ()
     ->structure_check says so.  */
  DUMPER_VERIFY_AUTO = 2
};

/* Choose the mode (call before dumper_startup).  The environment
   variable DUMPER_PDUMP_VERIFY=none|structure|auto overrides it;
   without either the configured default applies (./configure
   --with-pdump-verify=none|structure|auto, default auto).
   DUMPER_VERIFY_STRUCTURE needs dumper_describe_heap before
   dumper_startup.  In every mode a boot cache is written only after
   the structural pass (later starts trust it), so base mode boot
   writes none for a host that describes no heap.  */
void dumper_set_verify (enum dumper_verify mode);

/* Where the loader places a pdump image (doc/format.md, "Base modes").
   Every image records a preferred base, and its pointers are stored as
   they are with the image there.  */
enum dumper_base_mode
{
  /* Wherever mmap puts the image (ASLR), every image pointer relocated
     at every start (with DUMPER_VERIFY_AUTO, the structural pass at
     every start too).  */
  DUMPER_BASE_RANDOM = 0,
  /* At the image's preferred base when that range is free: no image
     pointer is written, HOT stays shared with the page cache except the
     pages holding executable or code relocations.  The image's address
     is then known in advance (an ASLR loss for the heap).  When the
     range is taken, a relocated load as with DUMPER_BASE_RANDOM;
     pdump_stats () says which happened and why.  */
  DUMPER_BASE_FIXED = 1,
  /* At a random base chosen once per boot and user: the first process
     relocates the image there and saves it in a per-user cache
     ($XDG_RUNTIME_DIR/dumper, or $TMPDIR/dumper-UID, /tmp/dumper-UID
     by default, where XDG_RUNTIME_DIR is unset); later ones map that cache at the same
     base and apply only executable and code relocations, sharing its
     pages.  Anything wrong with the cache (missing, stale, wrong owner
     or mode, damaged, range taken) means a normal relocated load, never
     a failed start.  The default (doc/format.md, "Base modes").  */
  DUMPER_BASE_BOOT = 2
};

/* Choose the base mode (call before dumper_startup).  The environment
   variable DUMPER_PDUMP_BASE=random|fixed|boot overrides it; without
   either the configured default applies (./configure
   --with-pdump-base=random|fixed|boot, default boot).  */
void dumper_set_base_mode (enum dumper_base_mode mode);

/* How the loader checks COLD, the image's pointer-free data, which
   nothing relocates and which is most of the image (doc/format.md,
   "COLD verification").  Everything else (header, fingerprint, sizes,
   tables, HOT, relocations, registry) is checked in every mode.  */
enum dumper_cold_check
{
  /* Its checksum at every start: the default.  */
  DUMPER_COLD_FULL = 0,
  /* Its checksum at the first start of an image file in this boot;
     later starts skip it while the file is the same one, unchanged (a
     stamp of its device, inode, size and change time in the per-user
     directory of base mode boot).  Without
     that directory, as DUMPER_COLD_FULL.  */
  DUMPER_COLD_BOOT = 1,
  /* The image's size and fingerprint only: a damaged COLD byte reaches
     the heap as it is (a wrong string or number, never a wrong pointer:
     COLD holds none).  */
  DUMPER_COLD_SIZE = 2
};

/* Choose it (call before dumper_startup).  The environment variable
   DUMPER_PDUMP_COLD=full|boot|size overrides it; without either the
   configured default applies (./configure
   --with-pdump-cold=full|boot|size, default full).  */
void dumper_set_cold_check (enum dumper_cold_check mode);

/* The preferred base the images this process dumps record (the bridge
   option --image-base=ADDR): a multiple of 2 MiB, or 0 for none (such
   an image is always relocated).  Without it the writer records a fixed
   default in a range left free by the address-space layout on x86-64
   and aarch64 (doc/format.md), so images stay byte-identical.  Returns
   DUMPER_OK, or DUMPER_E_USAGE for a misaligned base or one past the
   address space.  */
enum dumper_status dumper_set_image_base (uint64_t base);

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
  /* True when the heap objects this start restored are not at the
     addresses they had in the process that dumped them: rehash every
     table keyed by object address (an `eq' hash table) exactly when it
     is true.  That is after every pdump load, whatever the base mode:
     the writer lays the objects out anew in the image, so even at the
     image's preferred base (DUMPER_BASE_FIXED placed there, or a boot
     cache) an object lies at preferred base + its image offset, never
     at the heap address the dumping process built its tables with.
     (pdump_stats ()->placement tells where an image landed, which is
     another question.)  False in a dumped unexec executable, whose
     arena holds every object at its dump-time address, and after a
     cold start, whose tables were built in this process.  Already set
     when the after-load hooks run.  */
  bool moved;
};

/* Valid after dumper_startup; origin, image_path and moved also in the
   after-load hooks.  The pointer stays valid.  */
const struct dumper_start_info *dumper_start_info (void);

/* ------------------------------------------------------------------ */
/* Dumping.  */

/* The pdump writer lints the words of every dumped object that its
   type's trace function did not report: a word holding an address of
   the executable (data or code: a forgotten function pointer) or of
   the heap would dangle after a load.  By default each finding is a
   warning (through the warning handler) naming the type, the field
   offset and the value; with STRICT true the first finding makes
   dumper_dump fail with DUMPER_E_HEAP_DESC.  With 4-byte words the
   objects of types without a trace function are not linted: their words
   are data, and 32-bit data collide with addresses (doc/integration.md).
   Unexec dumps keep their own scan of the saved data, which only warns.  */
void dumper_set_strict_lint (bool strict);

/* Dump the current state with the configured back end to OUTPUT: an
   image file (pdumper) or a new executable (unexec).  The file is
   written under a temporary name and renamed, so a failure never leaves
   a partial file under OUTPUT.  Requires `will_dump' and
   dumper_describe_heap (pdumper).  In a `none' build it returns
   DUMPER_E_NO_BACKEND.  After a refused registration (see "Registry")
   it returns DUMPER_E_REGISTRATION, naming the first refused call, and
   writes nothing until dumper_clear_registration_error.  The process may continue afterwards, but a
   host normally exits.  */
enum dumper_status dumper_dump (const char *output);

/* Optional: about how many objects (byte blocks included) the next
   dumper_dump will write, for example the live count after the
   collection before it.  The pdump writer then sizes its visited map
   and object index once, for the highest load they run at, instead of
   doubling them as it goes (a doubling has old and new tables alive at
   once).  A wrong estimate costs memory or one growth, never
   correctness; 0, the default, means unknown.  No effect with unexec.  */
void dumper_expect_objects (size_t count);

/* ------------------------------------------------------------------ */
/* Registry: declared at build time, registered at run time.

   Everything a dump may make a later start call or write is declared
   by the executable itself, in a link-time table: each declaration
   macro below puts one `struct dumper_decl' into the ELF section
   `dumper_decls' (the linker's __start_/__stop_ symbols delimit it, as
   for a kernel's initcalls).  The table is the whole list of statics a
   start from a dump may write, hooks it may call and code addresses a
   heap object may hold.  An image names entries of it by index, so a
   crafted image cannot name anything else; the loader refuses an image
   that names an entry out of range or of the wrong kind (status
   DUMPER_E_IMAGE_CORRUPT) before it writes or calls anything.
   Declarations must be in the executable, not in a shared library.

   Registration then says which declared entries this run uses, and in
   what order: the records come back in that order after a load, and
   hooks run in it.  Register during the cold init (the records come
   back with the dump); registering the same thing again is a harmless
   no-op, so registering on every start also works.

   The statement macros declare and register in one step, and are what a
   host normally writes:

     DUMPER_STATICPRO (var)            tagged word, GC root (or an array)
     DUMPER_REMEMBER_WORD (var)        tagged word(s) to restore
     DUMPER_REMEMBER_PTR (var, type)   raw pointer(s) to objects of TYPE
     DUMPER_REMEMBER_SCALAR (var)      bytes without pointers
     DUMPER_DO_NOW_AND_AFTER_LOAD (fn) call FN now and after every load

   and at file (or block) scope, declarations only:

     DUMPER_DECLARE_ROOT (var)  DUMPER_DECLARE_WORD (var)
     DUMPER_DECLARE_PTR (var, type)  DUMPER_DECLARE_SCALAR (var)
     DUMPER_DECLARE_HOOK (fn)  DUMPER_DECLARE_CODE (fn)
     DUMPER_DECLARE_CODE_TABLE (array, member)
     DUMPER_DECLARE_OBJECTS (array, type)

   DUMPER_DECLARE_CODE declares FN a target a heap object may point to
   (reported with dumper_trace_code, heap.h); it needs no registration.
   DUMPER_DECLARE_CODE_TABLE declares every non-NULL MEMBER (a function
   pointer) of the elements of the static array ARRAY such a target, in
   one line: a runtime's tables of built-in functions (Lua's luaL_Reg
   arrays: DUMPER_DECLARE_CODE_TABLE (strlib, func)) need no line per
   function, and the functions may stay `static'.  An image names such a
   target as (table, element index); a start from it reads the element's
   MEMBER from this process's ARRAY, so ARRAY must not change at run
   time (make it `static const'; its initialiser is what counts).  The
   loader refuses an element index past the array's end, or an element
   whose MEMBER is NULL.  A function declared twice (in a table and by
   DUMPER_DECLARE_CODE, or in two tables) is stored by its
   DUMPER_DECLARE_CODE entry if it has one, else by the table that comes
   first in the declaration table, at its lowest index: the same image
   for the same executable.  Like DUMPER_DECLARE_CODE it needs no
   registration, and it may overlap other declarations (a table of
   builtins may also be DUMPER_DECLARE_OBJECTS): it only reads ARRAY.
   DUMPER_DECLARE_OBJECTS declares a static array (or one static object)
   whose elements are objects of host type TYPE that heap words and
   pointers may point to (a table of builtins, static symbols): every
   tagged word or typed pointer into the executable must point to the
   start of an element of such an array of its type, else the dump
   fails with DUMPER_E_REGISTRATION and, with verify=structure, an image
   that says otherwise is refused.  It needs no registration.

   The function forms (dumper_staticpro (&var), ...) remain for existing
   code, but they only register what is declared: the address must lie
   in a declared entry of the same kind (for words and pointers, an
   element of a declared array; for scalars, exactly a declared
   variable), otherwise the call is refused with
   DUMPER_E_REGISTRATION and the detail names the address.  So the
   migration from the function forms is: add a DUMPER_DECLARE_* line
   beside each variable, or replace the call by the statement macro.

   Every registration is checked when it is made, and refused with
   DUMPER_E_REGISTRATION (nothing registered) when it is bad: an
   undeclared address or function, a NULL address, a zero size, a size
   that is not a whole number of words for a word or pointer, a
   negative type or one outside the heap description, a declaration
   whose static overlaps another declaration.  The declaration table is
   checked as a whole on first use; a malformed table (overlapping
   statics, an invalid entry) refuses every registration and
   dumper_startup, naming the entries.

   A refusal is sticky.  A host that ignores the status of a refused
   registration would otherwise dump an image (or executable) without
   that static, and its next start would find it NULL.  So after any
   failed registration call (function form, statement macro or
   dumper_register) dumper_dump fails with DUMPER_E_REGISTRATION, writes
   nothing, and its detail names the FIRST failed call of the run: the
   call, the address, and the declaration the address lies in when it
   is declared as another kind.  The same in every back end.  */

/* Forget the refused registrations so far, so that dumper_dump may
   write again.  For a host that handled the failure itself: it fixed
   and repeated the registration (a refusal registers nothing, so
   nothing half-made remains), or it decided that the static need not
   survive a dump (then a start from the dump finds it as the cold init
   left it before registering: usually NULL or 0).  A host that merely
   wants the dump to succeed must not call it; the next start would
   crash on the missing root instead.  Later refusals are recorded
   again.  */
void dumper_clear_registration_error (void);

/* The kinds of declarations.  The numbers are part of the image format
   (a registry record carries its declaration's kind): never renumber.  */
enum dumper_decl_kind
{
  DUMPER_DECL_ROOT = 1,     /* tagged word(s), GC root(s): dumper_staticpro */
  DUMPER_DECL_WORD = 2,     /* tagged word(s) to restore */
  DUMPER_DECL_PTR = 3,      /* raw pointer(s) to heap objects of `type' */
  DUMPER_DECL_SCALAR = 4,   /* bytes without pointers */
  DUMPER_DECL_HOOK = 5,     /* after-load hook */
  DUMPER_DECL_CODE = 6,     /* code address heap objects may hold */
  DUMPER_DECL_OBJECTS = 7,  /* static objects of `type' heap words may
                               point to, `stride' bytes each */
  DUMPER_DECL_CODE_TABLE = 8,   /* a static array, `stride' bytes an
                                   element, whose function pointer at
                                   byte `type' of each element is a
                                   code address heap objects may hold */
  DUMPER_DECL_KIND_MAX = 8
};

/* One entry of the declaration table.  Made by the macros only.  */
struct dumper_decl
{
  uint32_t kind;            /* enum dumper_decl_kind */
  int32_t type;             /* PTR, OBJECTS: the host type index;
                               CODE_TABLE: the member's byte offset in
                               an element; else 0 */
  size_t size;              /* bytes of the static; 0 for HOOK, CODE */
  void *addr;               /* the static; NULL for HOOK, CODE */
  void (*fn) (void);        /* HOOK, CODE: the function; else NULL */
  const char *name;         /* the C expression, for messages */
  size_t stride;            /* OBJECTS, CODE_TABLE: bytes per element;
                               else 0 */
};
/* CODE_TABLE keeps its member's offset in `type' rather than a field
   of its own: the entry's size and layout are part of the ABI (the
   table is an array the library indexes, and dumper-inspect reads it
   from the file), and no other kind of table entry needs both a type
   and an offset.  */

/* The ELF section that holds the table.  No leading dot, so the linker
   defines __start_dumper_decls and __stop_dumper_decls.  */
#define DUMPER_DECL_SECTION "dumper_decls"

#if defined __has_attribute
# if __has_attribute (retain)
/* Keeps the entry under --gc-sections, whatever references it.  */
#  define DUMPER_DECL_RETAIN_ __attribute__ ((retain))
# endif
#endif
#ifndef DUMPER_DECL_RETAIN_
# define DUMPER_DECL_RETAIN_
#endif

/* The alignment is given explicitly so the compiler never pads an entry
   to a larger one (the table must be a plain array).  */
#define DUMPER_DECL_ATTRS_                                               \
  __attribute__ ((section (DUMPER_DECL_SECTION), used,                  \
                  aligned (__alignof__ (struct dumper_decl))))          \
  DUMPER_DECL_RETAIN_
#define DUMPER_CAT2_(a, b) a##b
#define DUMPER_CAT_(a, b) DUMPER_CAT2_ (a, b)

/* A declaration object named NAME.  */
#define DUMPER_DECL_OBJECT_(name, kind, type, size, addr, fn, text)      \
  DUMPER_DECL_STRIDED_ (name, kind, type, size, addr, fn, text, 0)
#define DUMPER_DECL_STRIDED_(name, kind, type, size, addr, fn, text, stride) \
  static const struct dumper_decl name DUMPER_DECL_ATTRS_ =             \
    { (kind), (type), (size), (addr), (void (*) (void)) (fn), (text),   \
      (stride) }

#define DUMPER_DECLARE_(kind, type, size, addr, fn, text)                \
  DUMPER_DECL_OBJECT_ (DUMPER_CAT_ (dumper_decl_, __COUNTER__), kind,   \
                       type, size, addr, fn, text)

#define DUMPER_DECLARE_ROOT(var)                                         \
  DUMPER_DECLARE_ (DUMPER_DECL_ROOT, 0, sizeof (var), (void *) &(var), 0, #var)
#define DUMPER_DECLARE_WORD(var)                                         \
  DUMPER_DECLARE_ (DUMPER_DECL_WORD, 0, sizeof (var), (void *) &(var), 0, #var)
#define DUMPER_DECLARE_PTR(var, type)                                    \
  DUMPER_DECLARE_ (DUMPER_DECL_PTR, (type), sizeof (var), (void *) &(var), 0, #var)
#define DUMPER_DECLARE_SCALAR(var)                                       \
  DUMPER_DECLARE_ (DUMPER_DECL_SCALAR, 0, sizeof (var), (void *) &(var), 0, #var)
#define DUMPER_DECLARE_HOOK(fn)                                          \
  DUMPER_DECLARE_ (DUMPER_DECL_HOOK, 0, 0, (void *) 0, fn, #fn)
#define DUMPER_DECLARE_CODE(fn)                                          \
  DUMPER_DECLARE_ (DUMPER_DECL_CODE, 0, 0, (void *) 0, fn, #fn)
#define DUMPER_DECLARE_OBJECTS(array, type)                              \
  DUMPER_DECL_STRIDED_ (DUMPER_CAT_ (dumper_decl_, __COUNTER__),        \
                        DUMPER_DECL_OBJECTS, (type), sizeof (array),    \
                        (void *) &(array), 0, #array, sizeof (array)[0])
/* The size check catches a MEMBER that is not a pointer (a name, an
   arity) at compile time; any function pointer type will do.  */
#define DUMPER_DECLARE_CODE_TABLE(array, member)                         \
  _Static_assert (sizeof ((array)[0].member) == sizeof (void (*) (void)), \
                  "DUMPER_DECLARE_CODE_TABLE: " #array "[]." #member    \
                  " is not a function pointer");                        \
  DUMPER_DECL_STRIDED_ (DUMPER_CAT_ (dumper_decl_, __COUNTER__),        \
                        DUMPER_DECL_CODE_TABLE,                         \
                        (int32_t) offsetof (__typeof__ ((array)[0]), member), \
                        sizeof (array), (void *) &(array), 0,           \
                        #array "[]." #member, sizeof (array)[0])

/* Register the declared entry DECL (which must lie in the table): every
   word of a ROOT, WORD or PTR entry, the bytes of a SCALAR; a HOOK is
   called now, unless it was registered before.  Returns DUMPER_OK,
   DUMPER_E_REGISTRATION or DUMPER_E_NOMEM.  */
enum dumper_status dumper_register (const struct dumper_decl *decl);

#define DUMPER_REGISTER_(kind, type, size, addr, fn, text)               \
  __extension__ ({                                                      \
    DUMPER_DECL_OBJECT_ (dumper_decl_here_, kind, type, size, addr, fn, \
                         text);                                         \
    dumper_register (&dumper_decl_here_); })

#define DUMPER_STATICPRO(var)                                            \
  DUMPER_REGISTER_ (DUMPER_DECL_ROOT, 0, sizeof (var), (void *) &(var), 0, #var)
#define DUMPER_REMEMBER_WORD(var)                                        \
  DUMPER_REGISTER_ (DUMPER_DECL_WORD, 0, sizeof (var), (void *) &(var), 0, #var)
#define DUMPER_REMEMBER_PTR(var, type)                                   \
  DUMPER_REGISTER_ (DUMPER_DECL_PTR, (type), sizeof (var), (void *) &(var), 0, #var)
#define DUMPER_REMEMBER_SCALAR(var)                                      \
  DUMPER_REGISTER_ (DUMPER_DECL_SCALAR, 0, sizeof (var), (void *) &(var), 0, #var)
#define DUMPER_DO_NOW_AND_AFTER_LOAD(fn)                                 \
  DUMPER_REGISTER_ (DUMPER_DECL_HOOK, 0, 0, (void *) 0, fn, #fn)

/* The function forms: each registers one declared entry found by
   address (see above).  */

/* Call FN now, and again at every start from a dump (after the data
   is restored).  FN must be declared (DUMPER_DECLARE_HOOK).  */
enum dumper_status dumper_do_now_and_after_load (void (*fn) (void));

/* The SIZE bytes at ADDR get back the value they have at dump time.
   [ADDR, ADDR + SIZE) must be exactly a declared scalar.  */
enum dumper_status dumper_remember_scalar (void *addr, size_t size);

/* The static raw pointer *ADDR points to a heap object of type TYPE (an
   index into the heap description) or is NULL; the object is dumped and
   the pointer restored.  ADDR must be a word of a declared PTR entry of
   that type.  */
enum dumper_status dumper_remember_ptr (void **addr, int type);

/* The static tagged word *ADDR (see heap.h) is dumped and restored.
   ADDR must be a word of a declared WORD entry.  */
enum dumper_status dumper_remember_word (uintptr_t *addr);

/* *ADDR is a GC root: dumped and restored like a remembered word, and
   listed by dumper_roots for the host's collector.  ADDR must be a word
   of a declared ROOT entry.  */
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
   skip the test.  Returns DUMPER_OK, or DUMPER_E_STATE (nothing freed,
   the detail names the pointer) for a pointer the allocator can tell
   is not a live block: in unexec builds a second free of a block, or a
   pointer outside the arena; in other builds the same during a run that
   will dump (where the library keeps a table of the live blocks).
   Elsewhere the pointer goes to free(3) as it is, and what a double
   free does there is the C library's business (glibc aborts).  */
enum dumper_status dumper_free (void *ptr);

/* Resize like realloc.  Bytes past the old size are NOT zeroed.  For
   an object inside a loaded pdump image, or a pointer dumper_free
   would refuse, it returns NULL and leaves PTR alone, with
   dumper_last_status () == DUMPER_E_STATE (copy image objects
   instead).  */
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
