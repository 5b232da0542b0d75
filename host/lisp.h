/* SPDX-License-Identifier: MIT */
/* host/lisp.h: the object model of dlisp, the reference host, and the
   interfaces between its files.

   dlisp is a small Lisp built on libdumper exactly as a real runtime
   would be: every heap object comes from dumper_alloc, the heap is
   described to the library with heap.h (host/types.c), and the start-up
   follows the shared sequence (host/main.c).  Nothing here is installed;
   external names carry the `dl_' prefix.

   Words.  A Lisp value is a tagged word (dl_obj).  The low DL_TAG_BITS
   bits are the tag; a heap pointer is encoded additively (word = address
   + tag), so every object is aligned to 8 bytes (dumper_alloc gives 16).

     tag 0  fixnum      immediate: value << 3
     tag 1  cons        struct dl_cons
     tag 2  symbol      struct dl_symbol
     tag 3  string      struct dl_string (+ separate UTF-8 data block)
     tag 4  float       struct dl_float
     tag 5  vectorlike  type in the header: vector, hash table, closure,
                        macro
     tag 6  builtin     struct dl_builtin in the executable's static data
     tag 7  misc        immediate: the `unbound' marker

   Headers.  Every heap object starts with struct dl_header: its type
   and flag bits (the GC mark and per-type flags).  Objects inside a
   loaded pdump image are never marked in their header (pdump.h keeps
   their mark bits) and never freed.

   Invariants every file keeps:
   - allocation never collects: a collection runs only at the safe
     points of the evaluator (the entry of dl_eval and dl_funcall), or
     when a caller asks (dl_gc, garbage-collect); so C code that
     holds a Lisp value across a call that can evaluate (dl_eval,
     dl_funcall, dl_apply, dl_load_file, ...) keeps it reachable from the
     value stack (dl_push) or from another reachable object;
   - no object holds an address that its type's trace function does not
     report (host/types.c), so the GC and the dumper agree on pointers;
   - strings and floats are immutable after creation (their bytes may
     live in a read-only part of a loaded image).  */

#ifndef DLISP_LISP_H
#define DLISP_LISP_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dumper/dumper.h>

/* ------------------------------------------------------------------ */
/* Tagged words.  */

typedef uintptr_t dl_obj;

#define DL_TAG_BITS 3
#define DL_TAG_MASK ((dl_obj) 7)

enum dl_tag
{
  DL_TAG_FIXNUM = 0,
  DL_TAG_CONS = 1,
  DL_TAG_SYMBOL = 2,
  DL_TAG_STRING = 3,
  DL_TAG_FLOAT = 4,
  DL_TAG_VECTORLIKE = 5,
  DL_TAG_BUILTIN = 6,
  DL_TAG_MISC = 7
};

/* Type numbers: indexes into the heap description (host/types.c).  */
enum dl_type
{
  DL_T_CONS,
  DL_T_SYMBOL,
  DL_T_STRING,
  DL_T_FLOAT,
  DL_T_VECTOR,
  DL_T_HASH,
  DL_T_CLOSURE,
  DL_T_MACRO,
  DL_T_HASH_INDEX,   /* a hash table's index: raw pointer only, no tag */
  DL_T_BUILTIN,      /* static C tables only; never allocated */
  DL_T_COUNT
};

/* The marker of an unbound variable or an empty hash slot.  */
#define DL_UNBOUND ((dl_obj) ((1u << DL_TAG_BITS) | DL_TAG_MISC))

/* Fixnums fill the word less the tag: 61 bits with 8-byte words, 29
   with 4-byte words (i386).  */
#define DL_FIXNUM_BITS ((int) sizeof (dl_obj) * 8 - DL_TAG_BITS)
#define DL_FIXNUM_MAX ((int64_t) (INTPTR_MAX >> DL_TAG_BITS))
#define DL_FIXNUM_MIN ((int64_t) (INTPTR_MIN >> DL_TAG_BITS))

static inline unsigned dl_tag (dl_obj x) { return (unsigned) (x & DL_TAG_MASK); }
static inline void *dl_ptr (dl_obj x) { return (void *) (x & ~DL_TAG_MASK); }
static inline dl_obj dl_make (const void *p, unsigned tag)
{ return (dl_obj) p + tag; }
static inline bool dl_pointer_p (dl_obj x)
{
  unsigned t = dl_tag (x);
  return t != DL_TAG_FIXNUM && t != DL_TAG_MISC;
}

static inline bool dl_fixnump (dl_obj x) { return dl_tag (x) == DL_TAG_FIXNUM; }
static inline int64_t dl_fixval (dl_obj x)
{ return (int64_t) ((intptr_t) x >> DL_TAG_BITS); }
static inline dl_obj dl_fix (int64_t v)
{ return (dl_obj) ((uintptr_t) v << DL_TAG_BITS); }
static inline bool dl_fix_in_range (int64_t v)
{ return v >= DL_FIXNUM_MIN && v <= DL_FIXNUM_MAX; }

/* ------------------------------------------------------------------ */
/* Objects.  */

enum
{
  DL_F_MARK = 1u << 0,            /* GC mark (heap objects only) */
  /* symbols */
  DL_F_SPECIAL = 1u << 1,         /* dynamically bound (defvar) */
  DL_F_CONSTANT = 1u << 2,        /* nil, t, keywords, defconst */
  DL_F_INTERNED = 1u << 3,        /* in the obarray */
  DL_F_PER_START = 1u << 4,       /* value set by per-start init */
  /* hash tables */
  DL_F_NEEDS_REHASH = 1u << 1     /* index dropped by a dump: rebuild */
};

struct dl_header
{
  uint32_t type;                  /* enum dl_type */
  uint32_t flags;
};

struct dl_cons
{
  struct dl_header h;
  dl_obj car, cdr;
};

struct dl_symbol
{
  struct dl_header h;
  dl_obj name;                    /* a string */
  dl_obj value;                   /* DL_UNBOUND when void */
  dl_obj function;                /* DL_UNBOUND when void */
  dl_obj plist;
};

/* UTF-8 bytes in a separate, NUL-terminated block (NULL when empty).  */
struct dl_string
{
  struct dl_header h;
  uint64_t nbytes;
  uint64_t nchars;
  char *data;
};

struct dl_float
{
  struct dl_header h;
  double value;
};

struct dl_vector
{
  struct dl_header h;
  uint64_t size;
  dl_obj items[];
};

enum dl_hash_test { DL_HASH_EQ, DL_HASH_EQUAL };

/* The index of a hash table: SIZE (a power of two) slots, each 0
   (empty) or an entry number + 1.  A pointer-free object of its own, so
   the collector frees it and an image keeps it in its cold section.  */
struct dl_hash_index
{
  struct dl_header h;
  uint64_t size;
  uint32_t slots[];
};

/* Insertion-ordered hash table.  ENTRIES is a vector of 2 * capacity
   words (key, value); entries [0, used) were appended in order, deleted
   ones have key DL_UNBOUND.  For `eq' tables the index depends on
   addresses: it is never saved (host/types.c clears it in a dump and
   sets DL_F_NEEDS_REHASH); `equal' hashing is address-free, so their
   index is saved.  An index inside a loaded image is never written: the
   first insertion makes a fresh one.  */
struct dl_hash
{
  struct dl_header h;
  uint32_t test;                  /* enum dl_hash_test */
  uint32_t reserved;              /* zero */
  uint64_t count;                 /* live entries */
  uint64_t used;                  /* appended entries, deleted included */
  dl_obj entries;                 /* a vector */
  struct dl_hash_index *index;    /* NULL after a dump of an eq table */
  /* The key hash of the table's test: a C function pointer in a heap
     object, reported with dumper_trace_code; its targets are declared
     with DUMPER_DECLARE_CODE in host/hash.c.  */
  uint64_t (*hash_fn) (dl_obj key);
};

struct dl_closure
{
  struct dl_header h;
  dl_obj params;                  /* lambda list */
  dl_obj body;                    /* list of forms */
  dl_obj env;                     /* captured lexical environment (alist) */
  dl_obj name;                    /* symbol or nil */
};

struct dl_macro
{
  struct dl_header h;
  dl_obj expander;                /* a closure */
  dl_obj name;
};

/* Builtins.  Kept in static const tables; the heap refers to them with
   DL_TAG_BUILTIN words, which a dump turns into executable-relative
   relocations.  */
#define DL_MANY (-1)              /* max_args: any number */
#define DL_UNEVALLED (-2)         /* a special form */

typedef dl_obj (*dl_fn) (size_t nargs, dl_obj *args);
typedef dl_obj (*dl_special_fn) (dl_obj args, dl_obj env);

struct dl_builtin
{
  const char *name;
  dl_fn fn;                       /* when max_args != DL_UNEVALLED */
  dl_special_fn special;          /* when max_args == DL_UNEVALLED */
  int min_args;
  int max_args;
  const char *doc;
} __attribute__ ((aligned (8)));

#define DL_BUILTIN(lname, cfn, min, max, docstr) \
  { lname, cfn, NULL, min, max, docstr }
#define DL_SPECIAL(lname, cfn, docstr) \
  { lname, NULL, cfn, 0, DL_UNEVALLED, docstr }

/* ------------------------------------------------------------------ */
/* Type predicates and accessors.  */

static inline unsigned
dl_header_type (dl_obj x)
{
  return ((const struct dl_header *) dl_ptr (x))->type;
}

static inline bool dl_consp (dl_obj x) { return dl_tag (x) == DL_TAG_CONS; }
static inline bool dl_symbolp (dl_obj x) { return dl_tag (x) == DL_TAG_SYMBOL; }
static inline bool dl_stringp (dl_obj x) { return dl_tag (x) == DL_TAG_STRING; }
static inline bool dl_floatp (dl_obj x) { return dl_tag (x) == DL_TAG_FLOAT; }
static inline bool dl_builtinp (dl_obj x) { return dl_tag (x) == DL_TAG_BUILTIN; }
static inline bool dl_vectorlikep (dl_obj x, unsigned type)
{
  return dl_tag (x) == DL_TAG_VECTORLIKE && dl_header_type (x) == type;
}
static inline bool dl_vectorp (dl_obj x) { return dl_vectorlikep (x, DL_T_VECTOR); }
static inline bool dl_hashp (dl_obj x) { return dl_vectorlikep (x, DL_T_HASH); }
static inline bool dl_closurep (dl_obj x) { return dl_vectorlikep (x, DL_T_CLOSURE); }
static inline bool dl_macrop (dl_obj x) { return dl_vectorlikep (x, DL_T_MACRO); }

static inline struct dl_cons *dl_xcons (dl_obj x) { return dl_ptr (x); }
static inline struct dl_symbol *dl_xsym (dl_obj x) { return dl_ptr (x); }
static inline struct dl_string *dl_xstr (dl_obj x) { return dl_ptr (x); }
static inline struct dl_float *dl_xfloat (dl_obj x) { return dl_ptr (x); }
static inline struct dl_vector *dl_xvec (dl_obj x) { return dl_ptr (x); }
static inline struct dl_hash *dl_xhash (dl_obj x) { return dl_ptr (x); }
static inline struct dl_closure *dl_xclosure (dl_obj x) { return dl_ptr (x); }
static inline struct dl_macro *dl_xmacro (dl_obj x) { return dl_ptr (x); }
static inline const struct dl_builtin *dl_xbuiltin (dl_obj x) { return dl_ptr (x); }

static inline dl_obj dl_car_unsafe (dl_obj x) { return dl_xcons (x)->car; }
static inline dl_obj dl_cdr_unsafe (dl_obj x) { return dl_xcons (x)->cdr; }
static inline double dl_float_value (dl_obj x) { return dl_xfloat (x)->value; }
static inline const char *
dl_sdata (dl_obj s)
{
  const char *d = dl_xstr (s)->data;
  return d ? d : "";
}
static inline size_t dl_slen (dl_obj s) { return (size_t) dl_xstr (s)->nbytes; }

/* ------------------------------------------------------------------ */
/* Well-known symbols (host/symbol.c).  Each is a C static holding a
   heap object, remembered with dumper_remember_word.  */

#define DL_WELL_KNOWN_SYMBOLS(X)                                        \
  X (nil, "nil") X (t, "t") X (quote, "quote") X (function, "function") \
  X (lambda, "lambda") X (closure, "closure") X (macro, "macro")        \
  X (progn, "progn")                                                    \
  X (backquote, "`") X (comma, ",") X (comma_at, ",@")                  \
  X (and_optional, "&optional") X (and_rest, "&rest")                   \
  X (error, "error") X (error_conditions, "error-conditions")           \
  X (error_message, "error-message") X (quit, "quit")                   \
  X (wrong_type_argument, "wrong-type-argument")                        \
  X (args_out_of_range, "args-out-of-range")                            \
  X (void_variable, "void-variable") X (void_function, "void-function") \
  X (invalid_function, "invalid-function")                              \
  X (wrong_number_of_arguments, "wrong-number-of-arguments")            \
  X (setting_constant, "setting-constant")                              \
  X (arith_error, "arith-error") X (overflow_error, "overflow-error")   \
  X (invalid_read_syntax, "invalid-read-syntax")                        \
  X (end_of_file, "end-of-file") X (file_error, "file-error")           \
  X (no_catch, "no-catch") X (excessive_depth, "excessive-lisp-nesting") \
  X (user_error, "user-error")                                          \
  X (variable_documentation, "variable-documentation")                  \
  X (test, "test") X (size, "size") X (eq, "eq") X (equal, "equal")     \
  X (ktest, ":test") X (ksize, ":size") X (kdata, ":data")              \
  X (hash_table, "hash-table") X (data, "data")                         \
  X (load_file_name, "load-file-name")                                  \
  X (command_line_args, "command-line-args")                            \
  X (dlisp_home, "dlisp-home")                                          \
  X (default_directory, "default-directory")                            \
  X (dlisp_start_time, "dlisp-start-time")                              \
  X (dlisp_lisp_directory, "dlisp-lisp-directory")                      \
  X (dlisp_origin, "dlisp-origin")                                      \
  X (noninteractive, "noninteractive")                                  \
  X (dlisp_loadup_scale, "dlisp-loadup-scale")                          \
  X (max_lisp_eval_depth, "max-lisp-eval-depth")                        \
  X (cold, "cold") X (unexec, "unexec") X (pdump, "pdump")

enum dl_sym_index
{
#define DL_SYM_ENUM(c, l) DL_SYM_##c,
  DL_WELL_KNOWN_SYMBOLS (DL_SYM_ENUM)
#undef DL_SYM_ENUM
  DL_SYM_COUNT
};

extern dl_obj dl_syms[DL_SYM_COUNT];
#define DL_Q(c) (dl_syms[DL_SYM_##c])
#define Qnil DL_Q (nil)
#define Qt DL_Q (t)

static inline dl_obj dl_bool (bool b) { return b ? Qt : Qnil; }

/* ------------------------------------------------------------------ */
/* Allocation (host/alloc.c).  Every object comes from dumper_alloc,
   zeroed; allocation records it for the sweep but never collects.  */

void *dl_alloc_object (enum dl_type type, size_t size);
/* A block owned by an object (string data): zeroed.  */
void *dl_alloc_block (size_t size);
void dl_free_block (void *block, size_t size);

dl_obj dl_cons (dl_obj car, dl_obj cdr);
dl_obj dl_make_float (double value);
/* A string of NBYTES bytes of UTF-8 copied from BYTES.  */
dl_obj dl_make_string (const char *bytes, size_t nbytes);
dl_obj dl_make_cstring (const char *s);
dl_obj dl_make_vector (size_t size, dl_obj init);
dl_obj dl_make_closure (dl_obj params, dl_obj body, dl_obj env, dl_obj name);
dl_obj dl_make_macro (dl_obj expander, dl_obj name);
/* A fresh, uninterned symbol named by the string NAME.  */
dl_obj dl_make_symbol (dl_obj name);
dl_obj dl_list (size_t n, ...);
dl_obj dl_make_integer (int64_t v);      /* fixnum, or overflow-error */

/* Number of UTF-8 characters in BYTES (invalid bytes count as one).  */
size_t dl_utf8_count (const char *bytes, size_t nbytes);
/* Decode the character at BYTES[*POS] and advance *POS past it.  */
int64_t dl_utf8_decode (const char *bytes, size_t len, size_t *pos);
/* Byte offset of character INDEX of string S (clamped to its length).  */
size_t dl_char_offset (dl_obj s, int64_t index);

/* Heap accounting.  */
struct dl_heap_stats
{
  size_t objects;          /* live heap objects (allocator's view) */
  size_t bytes;            /* their bytes, owned blocks included */
  size_t blocks;           /* live owned blocks (string data) */
  size_t gc_count;
  double gc_seconds;
  size_t bytes_since_gc;
};
extern struct dl_heap_stats dl_heap_stats;

/* The sweep list: every object allocated by this process (loaded image
   objects are never in it).  */
void **dl_heap_objects (size_t *count);
void dl_heap_objects_set_count (size_t count);

/* ------------------------------------------------------------------ */
/* Types (host/types.c).  */

extern const struct dumper_heap dl_heap_description;
size_t dl_object_size (const void *obj);
/* The bytes of S's data block (its NUL included), 0 without one;
   SIZE_MAX, a length no block has, for a length that would wrap.  */
size_t dl_string_block_bytes (const struct dl_string *s);
/* Free the blocks owned by OBJ (not OBJ itself).  */
void dl_release_owned (void *obj);

/* ------------------------------------------------------------------ */
/* GC (host/gc.c).  */

/* Collect now.  Safe only where every live value is reachable from the
   roots (see the invariants above).  */
void dl_gc (void);
/* The extra roots of the host besides dumper_roots: the evaluator
   calls this to have its stacks marked.  */
typedef void (*dl_root_visitor) (dl_obj *word, void *data);
void dl_visit_roots (dl_root_visitor visit, void *data);
bool dl_gc_needed (void);
/* Seconds from a monotonic clock.  */
double dl_now (void);
/* Testing: collect at every safe point, to find values a C function
   forgot to protect.  */
extern bool dl_gc_stress;

/* ------------------------------------------------------------------ */
/* Symbols (host/symbol.c).  */

void dl_symbols_init (void);          /* once-only: obarray, well-known */
dl_obj dl_intern (const char *name, size_t len);
dl_obj dl_intern_c (const char *name);
dl_obj dl_intern_soft (const char *name, size_t len);   /* nil if absent */
bool dl_unintern (dl_obj sym);
/* The obarray (a vector of bucket lists); marked by the GC as a root.  */
dl_obj dl_obarray (void);
/* Call FN for every interned symbol (order unspecified).  */
void dl_map_symbols (void (*fn) (dl_obj sym, void *data), void *data);
size_t dl_symbol_count (void);
void dl_intern_cache_clear (void);
extern int dl_hook_origin;


/* ------------------------------------------------------------------ */
/* Hash tables (host/hash.c).  */

dl_obj dl_make_hash (enum dl_hash_test test, size_t size_hint);
/* The value for KEY, or DFLT.  */
dl_obj dl_hash_get (dl_obj table, dl_obj key, dl_obj dflt);
void dl_hash_put (dl_obj table, dl_obj key, dl_obj value);
bool dl_hash_remove (dl_obj table, dl_obj key);
void dl_hash_clear (dl_obj table);
/* Address-free hash used by `equal' tables (sxhash).  */
uint64_t dl_sxhash (dl_obj x);
/* Rebuild the index if a dump dropped it.  */
void dl_hash_ensure_index (struct dl_hash *h);

/* ------------------------------------------------------------------ */
/* Equality and data helpers (host/data.c).  */

bool dl_eql (dl_obj a, dl_obj b);
bool dl_equal (dl_obj a, dl_obj b);
dl_obj dl_car (dl_obj x);                /* signals wrong-type-argument */
dl_obj dl_cdr (dl_obj x);
size_t dl_list_length (dl_obj list);     /* signals on improper/circular */
dl_obj dl_nreverse (dl_obj list);
dl_obj dl_memq (dl_obj elt, dl_obj list);
dl_obj dl_plist_get (dl_obj plist, dl_obj prop);
dl_obj dl_get (dl_obj sym, dl_obj prop);
void dl_put (dl_obj sym, dl_obj prop, dl_obj value);
const char *dl_type_name (dl_obj x);
dl_obj dl_type_of (dl_obj x);

/* Checks that signal wrong-type-argument with PREDICATE's name.  */
void dl_check (bool ok, const char *predicate, dl_obj x);
int64_t dl_check_fixnum (dl_obj x);
dl_obj dl_check_symbol (dl_obj x);
dl_obj dl_check_string (dl_obj x);
dl_obj dl_check_list (dl_obj x);

/* ------------------------------------------------------------------ */
/* The evaluator (host/eval.c).  */

dl_obj dl_eval (dl_obj form, dl_obj env);
dl_obj dl_funcall (dl_obj fn, size_t nargs, dl_obj *args);
dl_obj dl_progn (dl_obj body, dl_obj env);
dl_obj dl_macroexpand_1 (dl_obj form, bool *expanded);
dl_obj dl_macroexpand (dl_obj form);
dl_obj dl_indirect_function (dl_obj fn);
void dl_set (dl_obj sym, dl_obj value);         /* global/dynamic value */
dl_obj dl_value (dl_obj sym, dl_obj env);       /* signals void-variable */
void dl_eval_reset (void);                      /* unwind everything */
void dl_eval_init_stacks (void);                /* per-start */
/* The evaluator's roots: value stack, bindings, handlers.  */
void dl_eval_visit_roots (dl_root_visitor visit, void *data);

/* The value stack: words the GC marks.  Protect values across calls
   that can evaluate.  */
extern dl_obj *dl_vstack;
extern size_t dl_vstack_top;
#define DL_VSTACK_SIZE (1u << 18)
size_t dl_push (dl_obj x);               /* returns the slot */
static inline void dl_pop_to (size_t top) { dl_vstack_top = top; }

/* Non-local exits.  Errors are Lisp signals; dl_signal never returns.  */
_Noreturn void dl_signal (dl_obj error_symbol, dl_obj data);
_Noreturn void dl_error (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));
_Noreturn void dl_throw (dl_obj tag, dl_obj value);
_Noreturn void dl_wrong_type (const char *predicate, dl_obj x);

/* Run BODY (a C function) with a handler for every error: returns true
   and stores the value, or false and stores (ERROR-SYMBOL . DATA).  */
bool dl_protect (dl_obj (*body) (void *), void *data, dl_obj *result);

/* Dynamic binding (specpdl).  */
size_t dl_specpdl_depth (void);
void dl_specbind (dl_obj sym, dl_obj value);
void dl_unbind_to (size_t depth);
/* Record a C cleanup to run when the binding stack unwinds past here.  */
void dl_record_unwind (void (*fn) (void *), void *arg);

extern const struct dl_builtin dl_eval_builtins[];
extern const size_t dl_eval_builtin_count;

/* ------------------------------------------------------------------ */
/* Reader (host/read.c) and printer (host/print.c).  */

struct dl_reader
{
  const char *text;
  size_t len;
  size_t pos;
  int line;
  const char *source;          /* file name for messages, or NULL */
};

/* Read one form.  Returns false at end of input (after whitespace and
   comments).  Signals invalid-read-syntax or end-of-file (incomplete
   form).  */
bool dl_read (struct dl_reader *r, dl_obj *out);
dl_obj dl_read_from_string (const char *text, size_t len);

/* Growable output buffer, malloc'd (never in the heap).  */
struct dl_buf
{
  char *data;
  size_t len, cap;
};
void dl_buf_add (struct dl_buf *b, const char *bytes, size_t n);
void dl_buf_addc (struct dl_buf *b, char c);
/* Append the UTF-8 encoding of the character CODE (0 .. 0x10FFFF).  */
void dl_buf_add_char (struct dl_buf *b, int64_t code);
void dl_buf_addf (struct dl_buf *b, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
void dl_buf_free (struct dl_buf *b);

/* Print X; ESCAPE selects prin1 (readable) over princ.  */
void dl_print (struct dl_buf *out, dl_obj x, bool escape);
dl_obj dl_prin1_to_string (dl_obj x, bool escape);
/* Shortest text that reads back as the same double.  */
void dl_format_float (char *buf, size_t size, double v);
/* Lisp `format': %s %S %d %x %c %f %%.  */
dl_obj dl_format (size_t nargs, dl_obj *args);
/* The message of an error value (ERROR-SYMBOL . DATA).  */
dl_obj dl_error_message (dl_obj err);

/* ------------------------------------------------------------------ */
/* Builtin tables and their installation (host/builtins.c).  */

void dl_builtins_init (void);            /* once-only */
extern const struct dl_builtin dl_data_builtins[];
extern const size_t dl_data_builtin_count;
extern const struct dl_builtin dl_list_builtins[];
extern const size_t dl_list_builtin_count;
extern const struct dl_builtin dl_string_builtins[];
extern const size_t dl_string_builtin_count;
extern const struct dl_builtin dl_io_builtins[];
extern const size_t dl_io_builtin_count;

/* Character classes computed at init and remembered (host/builtins.c). */
enum { DL_CC_SPACE = 1, DL_CC_DIGIT = 2, DL_CC_ALPHA = 4, DL_CC_UPPER = 8,
       DL_CC_LOWER = 16, DL_CC_PUNCT = 32, DL_CC_SYMBOL = 64 };
extern unsigned char dl_char_class[256];

/* ------------------------------------------------------------------ */
/* Loading files (host/io.c).  */

/* Read and evaluate every form of PATH; signals file-error.  */
void dl_load_file (const char *path);
/* Read and evaluate every form of TEXT in the global environment;
   return the last value (nil when none).  SOURCE names TEXT in syntax
   errors.  */
dl_obj dl_eval_text (const char *text, size_t len, const char *source);
/* Load NAME, resolved against the lisp directory (see io.c); false
   when it does not exist and NOERROR, else signals file-error.  */
bool dl_load (const char *name, bool noerror);
/* Read a whole file into a buffer from dumper_alloc (free with
   dumper_free); NULL with errno set.  */
char *dl_read_file (const char *path, size_t *len);

/* ------------------------------------------------------------------ */
/* Per-start state (host/env.c).  */

/* Once-only: flag the per-start variables, remember the C scalars.  */
void dl_env_register (void);
/* Set the per-start variables from the environment and arguments.  */
void dl_env_init (int argc, char **argv, const char *lisp_dir,
                  bool batch);
/* Clear them before a dump, so images do not depend on the run.  */
void dl_env_clear (void);
const char *dl_lisp_dir (void);
/* The static C data remembered across dumps (scale, counters).  */
extern int64_t dl_world_scale;
extern bool dl_world_loaded;
extern uint64_t dl_gensym_counter;

/* ------------------------------------------------------------------ */
/* The canonical walk, digest and heap dump (host/digest.c).  */

struct dl_digest
{
  unsigned char bytes[16];
  size_t objects;              /* distinct heap objects visited */
  size_t heap_bytes;           /* their sizes, owned blocks included */
};
void dl_heap_digest (struct dl_digest *out);
void dl_digest_hex (const struct dl_digest *d, char hex[33]);
/* Write the canonical text form; returns false on a write error.  */
bool dl_heap_dump (FILE *out);

/* ------------------------------------------------------------------ */
/* The runtime as a whole (host/runtime.c): the once-only init, the
   per-start init and the pre-dump step, shared by main and tests.  */

void dl_init_once (void);
void dl_loadup (const char *lisp_dir, int64_t scale);
void dl_pre_dump (void);
/* For unit tests: describe the heap, start the bridge with no image,
   run the once-only and per-start init.  */
void dl_test_boot (void);

#endif /* DLISP_LISP_H */
