/* SPDX-License-Identifier: MIT */
/* dumper/heap.h: how a host describes its heap to libdumper.

   The portable dumper copies the host's objects into an image without
   knowing their C types.  The host tells it, once per start and before
   dumping, through one static description:

   - a table of object types, each with a name, a size function and a
     trace function that reports every pointer field of an object;
   - its tag scheme: tagged words carry a type tag in their low
     TAG_BITS bits, and a heap pointer is encoded additively
     (word = address + tag), so objects are aligned to 1 << TAG_BITS.
     For each tag value the host says which type it points to, that it
     is an immediate (a fixnum, a character), or that the type is found
     in the object's header (header_type).

   The same trace functions serve the host's own collector: a mark phase
   is a tracer whose callbacks mark (see the reference host, host/gc.c).

   Rules the writer relies on (violations are dump-time errors, never a
   silent bad image; the same in both back ends, see doc/exit-status.md):
   - every pointer field is reported exactly once per object, as a
     tagged word, a raw pointer to an object of a known type, a raw
     pointer to a pointer-free byte block with its length, a raw
     pointer to an owner-sized block with its length
     (dumper_trace_sized), an interior pointer (dumper_trace_interior),
     or a C function pointer (dumper_trace_code) whose target the
     executable declared with DUMPER_DECLARE_CODE or in a
     DUMPER_DECLARE_CODE_TABLE (dumper.h) (else DUMPER_E_REGISTRATION,
     95);
   - a pointer points to the start of an object (after removing the
     tag), never inside one (else DUMPER_E_INTERIOR_POINTER, 96),
     unless it is reported with dumper_trace_interior;
   - owner-sized types (size NULL) have no trace function (trace_sized
     instead, or nothing when their blocks hold no pointers), other
     types no trace_sized; no tag maps to an owner-sized type, and no
     DUMPER_DECLARE_OBJECTS array or remembered pointer has one: such
     a block is reached only by dumper_trace_sized, whose referrer
     knows its length (dumper_describe_heap refuses the rest, 91);
   - a sized block lies in one dumper_alloc block (or an object of a
     loaded image) with room for NBYTES, from 1 byte up (report an
     empty array as NULL), and every referrer of one block reports the
     same NBYTES; a word or typed pointer never points to it (91);
   - an interior pointer points inside, or one past the end of, an
     object the dump holds: one reached by its start through another
     field (or a sized block, a byte block, or the object being
     traced), else 96 naming the field; or into the executable, saved
     as an executable address.  An address that is both one past the
     end of one object and the start of the next (objects of a loaded
     image lie packed, so this happens after a start from an image) is
     saved as the start of the next object: a one-past-the-end
     pointer meant for the first object then follows the second one
     wherever a later image places it.  A host that needs the first
     keeps such a pointer as an offset instead (or leaves slack after
     the array);
   - what a pointer points to is memory from dumper_alloc, never a
     plain malloc block (else 90), or a static object of the executable
     in an array declared with DUMPER_DECLARE_OBJECTS (dumper.h) for its
     type (else DUMPER_E_REGISTRATION, 95; inside an element, 96); a
     byte block may point anywhere in the executable;
   - fields that are not reported hold no addresses (the optional
     fixup hook may clear address-dependent fields in the image copy, for
     example the bucket index of an address-hashed table); the pdump
     writer warns about each unreported word that holds an address of
     the executable or the heap, or fails with 91 under
     dumper_set_strict_lint;
   - objects with a NULL trace function hold no pointers at all; the
     writer puts them in the image's cold section, which is never written
     at load;
   - a trace function may be called more than once for an object, and
     for another object from inside one of its callbacks (the pdump
     writer probes a newly met object's fields before placing it): it
     only reads the object and keeps no state of its own.

   Rules structural verification relies on (dumper.h, DUMPER_VERIFY_
   STRUCTURE; doc/format.md, "Verification modes"), which every
   collector-style description already keeps:
   - a size function reads at most the first 64 bytes of its object,
     header_type at most the first 64 bytes, and a trace function only
     the object it traces (never the objects its fields point to), and
     keeps no state across callbacks: the verifier may abandon a trace
     function (longjmp) at its first bad field;
   - a type that a tag names directly is always reached by that tag,
     never through a DUMPER_TAG_BY_HEADER tag nor a raw pointer traced
     with type DUMPER_TAG_BY_HEADER;
   - size and trace functions accept hostile values: the pass runs them
     on a crafted image's objects, whose fields may hold anything (a
     length of 2^64-1, a NULL data pointer with a length).  They do no
     arithmetic that can wrap (a count times an element size, a length
     plus one for a terminator, a narrowing to size_t): they compare
     before they compute;
   - a size function that finds its object malformed (a header of
     another type, a count whose byte size would wrap, fields that
     contradict each other) returns 0, a size no object has: the pass
     then refuses the image (86) before the trace function or anything
     else reads the object.  This is how a host refuses what only it
     can judge; a NULL byte block pointer, for one, is accepted with any
     length (dumper_trace_bytes), so a host that would read LENGTH bytes
     from its own stand-in for NULL must refuse such an object here;
   - a trace function reports the length the object claims; one it
     cannot compute without wrapping it reports as SIZE_MAX, which no
     block has room for, never as the wrapped small number (nbytes + 1
     with nbytes = 2^64-1 is 0, which every block has room for).  The
     pass checks that a byte block pointer and its length lie inside one
     byte block of the image (or inside the executable);
   - an owner-sized object's length is the object index's (the image
     records it, there is no size function to ask): the pass checks
     that every sized pointer to it reports exactly that length and its
     type, and runs trace_sized with it; trace_sized accepts hostile
     contents like trace does.  An interior pointer must relocate into
     an object of the image or one past its end (its offset in the
     object at most the object's size).

   NULL: a raw pointer of any type may be NULL.  A tagged word whose
   tag is DUMPER_TAG_BY_HEADER may be NULL plus that tag (there is no
   header to read: it is saved and restored as it is, in every back
   end and verification mode); the pdump writer refuses a NULL with a
   tag naming a type (DUMPER_E_FOREIGN_POINTER).  */

#ifndef DUMPER_HEAP_H
#define DUMPER_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dumper_tracer;

/* The callbacks a trace function calls, one per pointer field.  FIELD is
   the address of the field inside the object being traced.  */
struct dumper_tracer
{
  /* A tagged word: an immediate or a tagged heap pointer.  */
  void (*word) (struct dumper_tracer *self, const uintptr_t *field);
  /* A raw pointer (or NULL) to the start of an object of type TYPE, or,
     with TYPE DUMPER_TAG_BY_HEADER, of the type header_type gives for
     the object it points to (as for a tagged word whose tag says "by
     header").  A collector's callback must resolve that itself.  */
  void (*ptr) (struct dumper_tracer *self, void *const *field, int type);
  /* A raw pointer (or NULL) to a pointer-free block of LENGTH bytes,
     for example string data.  Blocks are shared when two fields point
     to the same address.  With NULL, LENGTH is not checked (report 0);
     see the rules on hostile values above.  */
  void (*bytes) (struct dumper_tracer *self, void *const *field, size_t length);
  /* A C function pointer (or NULL) stored in the object: a callback,
     a primitive's entry point, a vtable slot.  FIELD is the address of
     the pointer.  Its target must be declared with DUMPER_DECLARE_CODE
     or be a member of a DUMPER_DECLARE_CODE_TABLE array: an undeclared
     target is a dump-time error (DUMPER_E_REGISTRATION) naming the
     type, the field offset and the value, in every back end.  The
     pdump image stores the index of the declaration (and the table
     element's), and the loader puts back that declaration's address
     (or the element's member), wherever the executable landed; unexec
     keeps the pointer as it is.  A collector
     ignores these fields (set the callback to a no-op).  */
  void (*code) (struct dumper_tracer *self, const void *field);
  /* A raw pointer (or NULL) to a block of NBYTES bytes holding an
     object of the owner-sized type TYPE (a type whose size is NULL):
     an array whose length its referrer holds (a value stack, a hash
     part).  Every referrer of one block reports the same NBYTES (the
     image records it once, as the object's size).  A collector marks
     the block and calls the type's trace_sized with NBYTES.  */
  void (*sized) (struct dumper_tracer *self, void *const *field, int type,
                 size_t nbytes);
  /* A raw pointer (or NULL) into an object, or one past its end, where
     that object is reached by its start through some other field (or
     is the object being traced).  Saved as (object, offset) and put
     back relative to the object wherever it lands; an address that
     ends one object and starts the next is the next one's start (see
     the rules above).  A collector ignores these fields: they keep
     nothing alive.  */
  void (*interior) (struct dumper_tracer *self, void *const *field);
};

static inline void
dumper_trace_word (struct dumper_tracer *t, const uintptr_t *field)
{
  t->word (t, field);
}

static inline void
dumper_trace_ptr (struct dumper_tracer *t, void *const *field, int type)
{
  t->ptr (t, field, type);
}

static inline void
dumper_trace_bytes (struct dumper_tracer *t, void *const *field, size_t length)
{
  t->bytes (t, field, length);
}

/* FIELD is the address of a function pointer, of any function type.  */
static inline void
dumper_trace_code (struct dumper_tracer *t, const void *field)
{
  t->code (t, field);
}

/* FIELD points to a block of NBYTES bytes that holds an object of the
   owner-sized type TYPE (dumper_type.size is NULL; its trace_sized
   reports the block's fields).  */
static inline void
dumper_trace_sized (struct dumper_tracer *t, void *const *field, int type,
                    size_t nbytes)
{
  t->sized (t, field, type, nbytes);
}

/* FIELD points inside (or one past the end of) an object that another
   field reaches by its start.  */
static inline void
dumper_trace_interior (struct dumper_tracer *t, void *const *field)
{
  t->interior (t, field);
}

/* Optional, for a type whose every object has the same shape: where
   its type and its length are, and which of its words are tagged words.
   With it, structural verification (dumper.h, DUMPER_VERIFY_STRUCTURE)
   checks the type's objects from this description, without calling
   the size and trace functions for each one (doc/format.md, "Layouts");
   they stay what the writer and the host's collector use.

   An object of the type is malformed (as when size returns 0) unless
   its unsigned HEADER_BYTES-byte field at byte HEADER_AT (native byte
   order) equals HEADER_VALUE (HEADER_BYTES 0: no header check); its
   size is FIXED bytes, plus COUNT * ELEMENT bytes when COUNT_BYTES is
   not 0, COUNT being its unsigned COUNT_BYTES-byte field at byte
   COUNT_AT (a count whose size would wrap is malformed); both fields
   lie in the first 64 bytes and inside FIXED (1, 2, 4 or 8 bytes,
   aligned to their size; a field of 0 bytes is none, and then
   HEADER_VALUE is 0, or ELEMENT 0 and ELEMENT_WORDS false).  FIXED is
   a nonzero multiple of the word size.  Word I (I < 64) of the object
   is a tagged word when bit I of WORDS is set, and with ELEMENT_WORDS
   every word from byte FIXED to the object's end is one too (ELEMENT
   is then a nonzero multiple of the word size); WORDS names only words
   below FIXED, none of them holding the header or count field.

   The layout must say exactly what size and trace do: size returns
   the layout's size for every object whose header matches and 0 for
   any other, and trace reports the layout's words, each once with
   dumper_trace_word, and nothing else (so a type whose size function
   refuses more than a header, or that has a field of another kind,
   has no layout).  The pre-dump check compares them for every object
   a dump saves and refuses a disagreement (DUMPER_E_HEAP_DESC, 91,
   naming the type, the object and the word); dumper_describe_heap
   refuses a layout that breaks the rules above (91).  */
struct dumper_layout
{
  uint32_t fixed;
  uint32_t element;
  uint8_t count_at, count_bytes;
  uint8_t header_at, header_bytes;
  uint64_t header_value;
  uint64_t words;
  bool element_words;
};

/* One object type.  */
struct dumper_type
{
  /* Name shown by dumper-inspect and in error messages ("cons").  */
  const char *name;
  /* Bytes occupied by OBJ, header included; copied verbatim.  NULL for
     an owner-sized type: its objects are blocks whose length only
     their referrers know, reached only with dumper_trace_sized.  */
  size_t (*size) (const void *obj);
  /* Report every pointer field of OBJ to T; NULL for pointer-free types.  */
  void (*trace) (const void *obj, struct dumper_tracer *t);
  /* Optional: adjust COPY, the image's copy of OBJ, before pointer fields
     are encoded.  For fields that must not be saved as they are.  */
  void (*fixup) (const void *obj, void *copy);
  /* Owner-sized types (size == NULL) only: report every pointer field
     of the NBYTES-byte block OBJ, as trace does for other types (trace
     is then NULL).  NULL when the blocks hold no pointers.  */
  void (*trace_sized) (const void *obj, size_t nbytes,
                       struct dumper_tracer *t);
  /* Optional (NULL): the type's layout, above.  Only for a type with
     a size and a trace function.  */
  const struct dumper_layout *layout;
};

/* Tag table entries besides type indexes.  */
#define DUMPER_TAG_IMMEDIATE (-1)   /* the word is not a pointer */
#define DUMPER_TAG_BY_HEADER (-2)   /* the type comes from header_type;
                                       also a type for dumper_trace_ptr */

/* The whole description.  Must stay valid (static) while the process
   may dump.  */
struct dumper_heap
{
  const struct dumper_type *types;  /* indexed by type number */
  int type_count;
  unsigned tag_bits;                /* 1 .. 4 */
  /* 1 << tag_bits entries: a type index, DUMPER_TAG_IMMEDIATE or
     DUMPER_TAG_BY_HEADER.  */
  const int *tag_types;
  /* For DUMPER_TAG_BY_HEADER tags: the type of the object at OBJ (an
     address already checked to lie in the heap or a loaded image).  */
  int (*header_type) (const void *obj);
};

#ifdef __cplusplus
}
#endif

#endif /* DUMPER_HEAP_H */
