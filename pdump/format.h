/* SPDX-License-Identifier: MIT */
/* pdump/format.h: the pdump image file format, defined once.

   The writer (write.c), the loader (load.c), the checks both share
   (check.c), the inspector (tools/inspect) and the fuzz targets use
   this header and nothing else to agree on the bytes.  doc/format.md
   describes the same layout with the reasons for each choice; keep the
   two in sync.  Every field has a fixed width and a fixed position;
   multi-byte values are in the byte order named by the header (the
   writer's native order; the loader refuses any other).

   File layout of an uncompressed image (offsets are multiples of
   header.page_size where noted); a compressed image has the same layout
   in memory, with the sections stored compressed (see struct
   pdump_section):

     offset 0      header, then the section table (together < 1 page)
     page-aligned  HOT     objects that contain pointers; relocated at load
     page-aligned  COLD    pointer-free objects and byte blocks; never
                           written at load, so its pages stay shared
     page-aligned  discardable, released after load:
                   RELOC_IMAGE  bitmap, one bit per HOT word
                   RELOC_EXE    sorted uint32 HOT word indexes
                   REGISTRY     registry records, registration order
                   SCALAR_DATA  bytes of remembered scalars
     then          inspection only (never read by the loader):
                   TYPES        the host's type names
                   OBJECTS      object index (type and size of each)
     then          RELOC_CODE   sorted uint32 HOT word indexes of code
                                pointers (discardable; last so that the
                                section kinds stay in file order)

   Pointer encoding.  A HOT word that points into the image holds the
   address its target has when the image lies at its preferred base
   (header.preferred_base + the target's image offset) plus the tag (the
   host's tags are additive), and its bit in RELOC_IMAGE is set; the
   loader adds the difference between the address at which image offset
   0 lies and the preferred base, which is 0, so nothing to write, when
   it maps the image at that base (base mode `fixed').  A registry value
   of kind PDUMP_VALUE_IMAGE holds the image offset plus the tag.  A word that points into the executable
   holds the target's address minus the executable's load bias, plus the
   tag, and its index is in RELOC_EXE; the loader adds the load bias.
   Raw pointers are words with tag 0, so one scheme serves both.  A C
   function pointer names its target in the executable's declaration
   table (dumper.h, DUMPER_DECLARE_CODE and DUMPER_DECLARE_CODE_TABLE;
   see PDUMP_CODE_WORD below) and its index is in RELOC_CODE; the
   loader stores that declaration's function, or the member of that
   code table's element.

   Nothing in the file is an address the loader writes to or calls:
   registry records name entries of the executable's declaration table
   by index, and the loader writes and calls only what those entries
   say.  */

#ifndef DUMPER_PDUMP_FORMAT_H
#define DUMPER_PDUMP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dumper/dumper.h>

/* "\x89PDUMP\r\n": the high-bit byte catches 7-bit transfers, the
   CR LF catches line-ending conversion.  */
#define PDUMP_MAGIC "\x89PDUMP\r\n"
#define PDUMP_MAGIC_SIZE 8

/* Bumped on any change to this file.  2: records name declarations by
   index; RELOC_CODE.  3: compressed sections (codec, stored_offset,
   stored_size; header image_size, frame_size).  4: preferred_base; HOT
   image pointers stored relocated to it.  5: owner-sized objects
   (heap.h, dumper_trace_sized) in HOT and COLD, whose OBJECTS size is
   their only length; interior pointers (dumper_trace_interior) stored
   as image words that point inside an object or one past its end.  A
   version 4 reader would take both for corruption, so older images
   and older readers refuse each other by version.  */
#define PDUMP_FORMAT_VERSION 5

/* The preferred base the writer records unless told otherwise
   (dumper_set_image_base, --image-base): a constant, so images stay
   byte-identical, in a range the kernel's address-space layout leaves
   free with ASLR on x86-64 and aarch64 (with 39-bit and 48-bit virtual
   addresses alike): above the brk heap of a non-PIE executable, below
   the PIE executables (2/3 of the address space); mmap's top-down
   region starts near the stack, far above.  The legacy bottom-up
   layout (an unlimited stack rlimit only) starts at 1/3 of the space
   on x86-64 and 1/4 on aarch64, above this, except with 39-bit
   addresses (128 GiB), where it reaches 256 GiB after 128 GiB of
   mappings.
   i386: 512 MiB, above a non-PIE executable and its brk heap, below
   the PIE executables and the legacy mmap base (1 GiB).  */
#if UINTPTR_MAX > 0xffffffffu
# define PDUMP_DEFAULT_BASE UINT64_C (0x4000000000)
#else
# define PDUMP_DEFAULT_BASE UINT64_C (0x20000000)
#endif

#define PDUMP_BYTE_ORDER_LITTLE 1
#define PDUMP_BYTE_ORDER_BIG 2

/* The image word: one pointer of the writer, header.word_size bytes.
   HOT is an array of them, RELOC_IMAGE has one bit per HOT word, and
   RELOC_EXE and RELOC_CODE list HOT word indexes, so the word size
   fixes the meaning of every relocation.  It is the width of the
   writer's uintptr_t (4 on i386, 8 on x86_64 and aarch64); the loader
   reads only images of its own word size (and byte order: see
   doc/format.md, "Porting"), so within one build the format code
   handles words of this one type and never assumes 8 bytes.  */
typedef uintptr_t pdump_word;
#define PDUMP_WORD_SIZE ((uint64_t) sizeof (pdump_word))
_Static_assert (sizeof (pdump_word) == 4 || sizeof (pdump_word) == 8,
                "pdump supports 4-byte and 8-byte words");

/* A code word (a HOT word RELOC_CODE lists): the index of a
   declaration in the low half of the word, and for a code table
   (DUMPER_DECL_CODE_TABLE) the element's index in the high half; 0
   there for a single function (DUMPER_DECL_CODE), so such a word is
   the declaration index alone, as before code tables.  Half a word
   each: both indexes are below 2^32 with 8-byte words and 2^16 with
   4-byte ones; the writer refuses a target it cannot name so.  */
#define PDUMP_CODE_HALF_BITS (PDUMP_WORD_SIZE * 4)
#define PDUMP_CODE_INDEX_LIMIT (UINT64_C (1) << PDUMP_CODE_HALF_BITS)
#define PDUMP_CODE_WORD(decl, element)                                   \
  ((pdump_word) (decl) | ((pdump_word) (element) << PDUMP_CODE_HALF_BITS))
#define PDUMP_CODE_INDEX_FITS(index)                                     \
  (((uint64_t) (index) >> PDUMP_CODE_HALF_BITS) == 0)
#define PDUMP_CODE_DECL(word)                                            \
  ((uint64_t) ((word) & (pdump_word) (PDUMP_CODE_INDEX_LIMIT - 1)))
#define PDUMP_CODE_ELEMENT(word)                                         \
  ((uint64_t) ((word) >> PDUMP_CODE_HALF_BITS))

/* This build's byte order, as the header names it.  configure refuses
   a big-endian target (doc/format.md, "Porting"); this check keeps a
   build that bypasses configure from writing mislabelled images.  */
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PDUMP_NATIVE_BYTE_ORDER PDUMP_BYTE_ORDER_LITTLE
#elif defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PDUMP_NATIVE_BYTE_ORDER PDUMP_BYTE_ORDER_BIG
#else
#error "pdump: unknown byte order (__BYTE_ORDER__ is not defined)"
#endif

/* Largest tag a word may carry (tag_bits is at most 4 in heap.h).  */
#define PDUMP_MAX_TAG 15

/* The header, at file offset 0.  */
struct pdump_header
{
  uint8_t magic[PDUMP_MAGIC_SIZE];  /*   0 */
  uint32_t format_version;          /*   8 */
  uint32_t header_size;             /*  12 sizeof (struct pdump_header) */
  uint8_t word_size;                /*  16 bytes per pointer: 4 or 8 */
  uint8_t byte_order;               /*  17 PDUMP_BYTE_ORDER_* */
  uint16_t machine;                 /*  18 ELF e_machine of the writer */
  uint32_t section_count;           /*  20 entries in the section table */
  uint64_t file_size;               /*  24 total bytes stored */
  uint64_t page_size;               /*  32 alignment of mapped sections */
  uint64_t section_table_offset;    /*  40 */
  uint8_t fingerprint[16];          /*  48 the executable's build */
  uint64_t object_count;            /*  64 objects and byte blocks */
  uint32_t type_count;              /*  72 host types in TYPES */
  uint32_t tag_bits;                /*  76 the host's tag width */
  uint64_t image_size;              /*  80 bytes the loaded image spans:
                                           file_size when no section is
                                           compressed */
  uint64_t frame_size;              /*  88 uncompressed bytes per frame
                                           of a compressed section (a
                                           power of two, 64 KiB..16 MiB),
                                           0 when none is compressed */
  uint64_t preferred_base;          /*  96 where image offset 0 lies
                                           for HOT's stored pointers:
                                           a multiple of page_size, or
                                           0 (none: stored offsets) */
  uint64_t interior_count;          /* 104 HOT words holding interior
                                           pointers (version 5), image
                                           and executable ones: for
                                           inspection, never read at
                                           load (checked against the
                                           relocation counts) */
  uint64_t reserved[2];             /* 112 zero */
  uint64_t header_checksum;         /* 128 XXH3-64 of bytes [0, 128) and
                                           of the section table */
};

_Static_assert (sizeof (struct pdump_header) == 136, "header layout");

/* Section kinds.  Each appears at most once.  */
enum pdump_section_kind
{
  PDUMP_SECTION_HOT = 1,
  PDUMP_SECTION_COLD = 2,
  PDUMP_SECTION_RELOC_IMAGE = 3,
  PDUMP_SECTION_RELOC_EXE = 4,
  PDUMP_SECTION_REGISTRY = 5,
  PDUMP_SECTION_SCALAR_DATA = 6,
  PDUMP_SECTION_TYPES = 7,
  PDUMP_SECTION_OBJECTS = 8,
  PDUMP_SECTION_RELOC_CODE = 9,
  PDUMP_SECTION_KIND_MAX = 9
};

/* How a section's bytes are stored.  */
enum pdump_codec
{
  PDUMP_CODEC_NONE = 0,   /* as they are, at offset == stored_offset */
  PDUMP_CODEC_LZ4 = 1,    /* LZ4 block format, one block per frame */
  PDUMP_CODEC_ZSTD = 2,   /* one zstd frame per frame */
  PDUMP_CODEC_MAX = 2
};

/* One entry of the section table.

   `offset' and `size' place the section in the loaded image (file
   offset 0 = the image base): pointers are encoded against them.  In an
   image with no compressed section they are also its place in the file
   and stored_offset == offset, stored_size == size, so the file can be
   mapped as it is.  A compressed section (codec != NONE) is stored at
   stored_offset as a frame table, uint32_t compressed byte counts, one
   per frame (ceil (size / frame_size) of them), padded with zeros to a
   multiple of 8 bytes, followed by the frames back to back.  Frame I
   decompresses, on its own, to bytes [I * frame_size, min (size,
   (I + 1) * frame_size)) of the section; any other result is
   corruption.  Stored ranges follow the header page in section order.  */
struct pdump_section
{
  uint32_t kind;          /* enum pdump_section_kind */
  uint32_t codec;         /* enum pdump_codec */
  uint64_t offset;        /* image offset (page-aligned where noted) */
  uint64_t size;          /* bytes, uncompressed */
  uint64_t count;         /* HOT, COLD: objects; RELOC_*: relocations;
                             REGISTRY: records; TYPES: types;
                             OBJECTS: hot objects (the rest are cold) */
  uint64_t checksum;      /* XXH3-64 of the section's uncompressed bytes */
  uint64_t stored_offset; /* file offset of the stored bytes */
  uint64_t stored_size;   /* stored bytes (frame table and frames) */
  uint64_t reserved;      /* zero */
};

_Static_assert (sizeof (struct pdump_section) == 64, "section layout");

/* Frame sizes the writer uses and the loader accepts.  */
#define PDUMP_FRAME_SIZE (UINT64_C (1) << 20)
#define PDUMP_FRAME_SIZE_MIN (UINT64_C (1) << 16)
#define PDUMP_FRAME_SIZE_MAX (UINT64_C (1) << 24)

/* Largest compressed frame the loader accepts: above both codecs'
   worst-case expansion of an incompressible frame.  */
#define PDUMP_FRAME_STORED_MAX(frame_size) \
  ((frame_size) + (frame_size) / 64 + 4096)

/* The ELF section that holds an image embedded in an executable
   (dumper-embed): SHT_PROGBITS, not allocated, its file offset aligned
   to the page size so it can be mapped, its bytes an image file.  */
#define PDUMP_EMBED_SECTION ".pdump"

/* REGISTRY records: the bridge's registry in registration order.  A
   record's kind is the kind of the declaration it names: an enum
   dumper_decl_kind value (dumper.h; DUMPER_DECL_ROOT ... _HOOK), whose
   numbers are fixed for this reason.  */

/* How a ROOT, WORD or PTR value is stored.  */
enum pdump_value_kind
{
  PDUMP_VALUE_NONE = 0,      /* SCALAR, HOOK */
  PDUMP_VALUE_IMMEDIATE = 1, /* stored as is (includes NULL) */
  PDUMP_VALUE_IMAGE = 2,     /* file offset + tag */
  PDUMP_VALUE_EXE = 3        /* executable offset + tag */
};

struct pdump_record
{
  uint8_t kind;           /* enum dumper_decl_kind, = the declaration's */
  uint8_t value_kind;     /* enum pdump_value_kind */
  uint16_t reserved;      /* zero */
  uint32_t decl;          /* index in the executable's declaration table */
  uint64_t exe_offset;    /* the static (or hook) minus the load bias;
                             must lie in (be) the declaration's */
  uint64_t size;          /* SCALAR: bytes; else the word size */
  uint64_t value;         /* ROOT/WORD/PTR: encoded value;
                             SCALAR: offset into SCALAR_DATA */
};

_Static_assert (sizeof (struct pdump_record) == 32, "record layout");

/* TYPES: `count' entries of this, then the names (not NUL-terminated)
   at name_offset from the start of the section.  The top bit of
   name_length (version 5) says the type is owner-sized (heap.h: no
   size function; its objects' sizes in OBJECTS are the lengths their
   referrers report); the other bits are the length.  For inspection:
   the loader does not read TYPES.  */
struct pdump_type_entry
{
  uint32_t name_offset;
  uint32_t name_length;
};

#define PDUMP_TYPE_OWNER_SIZED (UINT32_C (1) << 31)

/* OBJECTS: for each object in image order (HOT then COLD), two
   unsigned LEB128 numbers: the type index (PDUMP_TYPE_BYTES for a byte
   block) and the size in bytes.  Each object starts at the previous
   one's end rounded up to its alignment (max (PDUMP_ALIGN, 1 <<
   tag_bits) for objects, PDUMP_ALIGN for byte blocks); HOT objects
   start at the HOT offset, COLD ones at the COLD offset.  */
#define PDUMP_TYPE_BYTES 0xFFFFu
#define PDUMP_ALIGN 8

/* One unsigned LEB128 number of OBJECTS at *P, not reading at or past
   END, *P moved past it: false when it runs past END or does not fit 64
   bits (at most ten bytes, the tenth holding bit 63 only).  The one
   reader of the index, for the structural pass (verify-index.c), the
   inspector and bench/pdump-floor; nearly every number is one byte.  */
static inline bool
pdump_read_uleb (const unsigned char **p, const unsigned char *end,
                 uint64_t *out)
{
  if (*p < end && **p < 0x80)
    {
      *out = *(*p)++;
      return true;
    }
  uint64_t value = 0;
  for (unsigned shift = 0; shift < 64 && *p < end; shift += 7)
    {
      unsigned char byte = *(*p)++;
      if (shift == 63 && byte > 1)
        return false;
      value |= (uint64_t) (byte & 0x7f) << shift;
      if (!(byte & 0x80))
        {
          *out = value;
          return true;
        }
    }
  return false;
}

#endif /* DUMPER_PDUMP_FORMAT_H */
