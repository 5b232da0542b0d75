/* SPDX-License-Identifier: MIT */
/* tests/fuzz/mutate.c: the resealing mutator of the corruption campaign
   (tests/fuzz/campaign.sh).

   Usage: mutate IMAGE OUTPUT KIND SEED [VALUE] [--no-reseal]

   Writes a mutant of IMAGE to OUTPUT with every checksum recomputed
   (what a hostile or buggy producer writes; with --no-reseal they are
   left as they were, as damage leaves them) and prints one line:
   "KIND SEED CLASS what-changed".  KIND is one of

     reloc-clear  a relocation bit cleared on a pointer field (the field
                  keeps its address at the preferred base)
     reloc-set    a relocation bit set on a word that holds no pointer,
                  preferring words whose value looks like an image
                  address at the preferred base
     interior     a relocated value moved inside its target object
     tag          a relocated value's tag changed (the target's type no
                  longer matches)
     header       one field of the header or of a section table entry
                  set to a boundary or random value
     flip         1 to 4 random bit flips anywhere
     record       one field of a registry record (declaration index,
                  kind, executable offset one byte off) changed, so that
                  it names something the executable did not declare for
                  it; or the record replaced by a copy of another (one
                  static or hook named twice)
     code         a code pointer's declaration index (the HOT word a
                  RELOC_CODE entry names) set far beyond any table
     exe          a word relocated against the executable (RELOC_EXE)
                  moved 8 bytes: inside a static object, or off the
                  declared arrays of static objects
     uncode       a RELOC_CODE entry removed: the code pointer field
                  keeps its declaration index, a small number, which the
                  host would call
     exe-top      a RELOC_EXE entry set to a word number at the top of
                  the range (issue 32): the last entry to 0xffffffff,
                  0xfffffffe, HOT's word count or 0x80000000 (outside
                  HOT, the list still sorted), or the first to
                  0xffffffff or HOT's last word (out of order); the
                  variant is SEED modulo 6
     count        a count of the header or section table set beyond what
                  the image can hold (issue 32): the header's object
                  count 0xfffffff8, 2^64-1 or one more than HOT's and
                  COLD's; the object count and HOT's (or COLD's) raised
                  together by 0xfffffff0; OBJECTS' count 0xfffffff8; the
                  type count and TYPES' 0xfffffff8; the variant is SEED
                  modulo 7

   and, for the boundary tests of tests/pdump/edges.sh (issue 36), with
   SEED choosing among the candidates as above:

     unaligned    a registry record of a raw pointer (DUMPER_DECL_PTR)
                  into the image moved 1 to 7 bytes into its target:
                  1 + (SEED - 1) % 7 bytes
     oversize     the first object index entry claiming one byte more
                  than its object, and the next one moved by the
                  alignment that takes and shrunk by as much, so the
                  index still tiles HOT
     type-range   the first object index entry's type set to the
                  header's type count, one past the last type
     slack        8 bytes of slack after the frames of the last
                  compressed section of a compressed image (the later
                  stored sections move up; only the header is resealed,
                  the section sums cover uncompressed bytes)
     short-frame  the one frame of a compressed section A replaced by the
                  (valid) frame of a smaller section B of the same codec,
                  in place: A's frame table entry and stored size say
                  B's frame's bytes, a gap follows; the frame decodes
                  cleanly, to B's size, not A's (only the header is
                  resealed)

   and the targeted kinds, each aimed at one check the loader runs with
   the executable's declaration table (the record or entry is chosen by
   SEED; VALUE is the optional fifth argument):

     record-decl  a registry record names declaration VALUE
     record-size  a scalar record one byte shorter than its declaration
     record-kind  a root record made a remembered word, or a remembered
                  word made a root (nothing but the declaration differs)
     code-order   two neighbouring RELOC_CODE entries swapped
     code-word    the last RELOC_CODE entry set to HOT's word count
     code-index   a code pointer's declaration index set to VALUE
     code-element a code pointer's element index (the high half of the
                  word, format.h PDUMP_CODE_WORD: a code table's
                  element) set to VALUE, its declaration index kept;
                  without VALUE, chosen by SEED: 0 to 7, or the largest
                  the half word holds
     code-kind    a code pointer's declaration index set to that of a
                  registry record's declaration (a static or a hook, not
                  a code target)
     set-word     the HOT word at file offset SEED (word-aligned) set
                  to VALUE: a host field crafted by hand, its offset
                  found with dumper-inspect --objects

   and the records of format version 5 (issue 30), for images of hosts
   that have them (tests/pdump/sizedhost):

     sized-length an owner-sized object (TYPES flags its type) one byte
                  longer in the index, the next object moved and shrunk
                  to keep the tiling: its referrers' length disagrees
     interior-out an interior pointer (an image word that is no
                  object's start plus a tag) moved out of every object:
                  into the padding between HOT's end and COLD

   CLASS says what a loaded mutant may legitimately look like: `data'
   when only non-pointer bytes changed (a different but well-formed heap
   is the right answer), `retarget' when a pointer now leads to the
   start of another object of the same type (likewise), `structural'
   otherwise: then a heap digest that differs from the original's is a
   wrong heap.  Exit status 0, 2 when KIND does not apply to IMAGE, 1 on
   errors.  The mutator reads the image with its own decoding of
   format.h, independent of the loader's.  */

#include <config.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dumper/pdump.h>

#include "fuzz.h"
#include "pdump/format.h"

static uint64_t rng_state;

static uint64_t
rng (void)
{
  /* xorshift64*: reproducible from the seed on every platform.  */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * UINT64_C (0x2545F4914F6CDD1D);
}

static uint64_t
below (uint64_t n)
{
  return n ? rng () % n : 0;
}

struct image
{
  unsigned char *bytes;
  size_t size;
  struct pdump_header h;
  struct pdump_section s[PDUMP_SECTION_KIND_MAX + 1];
  size_t table_index[PDUMP_SECTION_KIND_MAX + 1];   /* entry of each kind */
  uint64_t *starts;          /* object file offsets, ascending */
  uint32_t *types;
  uint64_t *entries;         /* file offset of each object index entry */
  uint64_t object_count;
  uint64_t tag_mask;
};

static int
die (const char *what)
{
  fprintf (stderr, "mutate: %s\n", what);
  exit (1);
}

static uint64_t
uleb (const unsigned char **p, const unsigned char *end)
{
  uint64_t v = 0;
  for (unsigned shift = 0; *p < end && shift < 64; shift += 7)
    {
      unsigned char b = *(*p)++;
      v |= (uint64_t) (b & 0x7f) << shift;
      if (!(b & 0x80))
        return v;
    }
  die ("bad object index");
  return 0;
}

static void
parse (struct image *im)
{
  if (im->size < sizeof im->h + PDUMP_SECTION_KIND_MAX * sizeof im->s[0])
    die ("not an image");
  memcpy (&im->h, im->bytes, sizeof im->h);
  for (size_t i = 0; i < PDUMP_SECTION_KIND_MAX; i++)
    {
      struct pdump_section s;
      memcpy (&s, im->bytes + sizeof im->h + i * sizeof s, sizeof s);
      if (s.kind < 1 || s.kind > PDUMP_SECTION_KIND_MAX
          || s.offset > im->size || s.size > im->size - s.offset)
        die ("bad section table");
      im->s[s.kind] = s;
      im->table_index[s.kind] = i;
    }
  if (im->h.word_size != 4 && im->h.word_size != 8)
    die ("word size neither 4 nor 8");
  im->tag_mask = (UINT64_C (1) << im->h.tag_bits) - 1;
  uint64_t align = (UINT64_C (1) << im->h.tag_bits) > PDUMP_ALIGN
                   ? UINT64_C (1) << im->h.tag_bits : PDUMP_ALIGN;
  im->object_count = im->h.object_count;
  im->starts = malloc ((im->object_count + 1) * sizeof *im->starts);
  im->types = malloc ((im->object_count + 1) * sizeof *im->types);
  im->entries = malloc ((im->object_count + 1) * sizeof *im->entries);
  if (im->starts == NULL || im->types == NULL || im->entries == NULL)
    die ("out of memory");
  const struct pdump_section *ix = &im->s[PDUMP_SECTION_OBJECTS];
  const unsigned char *p = im->bytes + ix->offset, *end = p + ix->size;
  uint64_t at = im->s[PDUMP_SECTION_HOT].offset;
  for (uint64_t i = 0; i < im->object_count; i++)
    {
      if (i == ix->count)
        at = im->s[PDUMP_SECTION_COLD].offset;
      im->entries[i] = (uint64_t) (p - im->bytes);
      uint64_t type = uleb (&p, end), size = uleb (&p, end);
      uint64_t a = type == PDUMP_TYPE_BYTES ? PDUMP_ALIGN : align;
      at = (at + a - 1) & ~(a - 1);
      im->starts[i] = at;
      im->types[i] = (uint32_t) type;
      at += size;
    }
}

/* The object starting exactly at OFFSET, or -1.  */
static int64_t
object_at (const struct image *im, uint64_t offset)
{
  uint64_t lo = 0, hi = im->object_count;
  while (lo < hi)
    {
      uint64_t mid = lo + (hi - lo) / 2;
      if (im->starts[mid] < offset)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < im->object_count && im->starts[lo] == offset ? (int64_t) lo : -1;
}

static uint64_t
object_size (const struct image *im, uint64_t n)
{
  /* Up to the next start or the section's end: enough for picking an
     offset strictly inside.  */
  uint64_t end = n + 1 < im->object_count ? im->starts[n + 1]
                 : im->s[PDUMP_SECTION_COLD].offset + im->s[PDUMP_SECTION_COLD].size;
  uint64_t hot_end = im->s[PDUMP_SECTION_HOT].offset + im->s[PDUMP_SECTION_HOT].size;
  if (im->starts[n] < hot_end && end > hot_end)
    end = hot_end;
  return end - im->starts[n];
}

/* HOT words have the image's word size (header word_size, 4 or 8):
   the mutator runs on the build's own images, whatever its word size.  */
static uint64_t
hot_words (const struct image *im)
{
  return im->s[PDUMP_SECTION_HOT].size / im->h.word_size;
}

/* HOT word W, zero-extended to 64 bits; the image's byte order is the
   host's (little-endian, like put).  */
static uint64_t
hot_word (const struct image *im, uint64_t w)
{
  uint64_t value = 0;
  memcpy (&value, im->bytes + im->s[PDUMP_SECTION_HOT].offset + w * im->h.word_size,
          im->h.word_size);
  return value;
}

/* Store VALUE, truncated to the word size, in HOT word W.  */
static void
set_hot_word (struct image *im, uint64_t w, uint64_t value)
{
  memcpy (im->bytes + im->s[PDUMP_SECTION_HOT].offset + w * im->h.word_size,
          &value, im->h.word_size);
}

static bool
reloc_bit (const struct image *im, uint64_t w)
{
  const unsigned char *bits = im->bytes + im->s[PDUMP_SECTION_RELOC_IMAGE].offset;
  return (bits[w / 8] >> (w % 8)) & 1;
}

static void
set_reloc_bit (struct image *im, uint64_t w, bool on)
{
  unsigned char *bits = im->bytes + im->s[PDUMP_SECTION_RELOC_IMAGE].offset;
  if (on)
    bits[w / 8] |= (unsigned char) (1u << (w % 8));
  else
    bits[w / 8] &= (unsigned char) ~(1u << (w % 8));
}

/* Whether the word list of section KIND (RELOC_EXE, RELOC_CODE) names
   HOT word W.  */
static bool
in_word_list (const struct image *im, enum pdump_section_kind kind, uint64_t w)
{
  const unsigned char *list = im->bytes + im->s[kind].offset;
  for (uint64_t i = 0; i < im->s[kind].count; i++)
    {
      uint32_t x;
      memcpy (&x, list + i * 4, 4);
      if (x == w)
        return true;
    }
  return false;
}

static bool
in_exe_list (const struct image *im, uint64_t w)
{
  return in_word_list (im, PDUMP_SECTION_RELOC_EXE, w);
}

/* The object whose bytes hold file offset AT (the last one starting at
   or before it), or -1.  */
static int64_t
object_containing (const struct image *im, uint64_t at)
{
  uint64_t lo = 0, hi = im->object_count;
  while (lo < hi)
    {
      uint64_t mid = lo + (hi - lo) / 2;
      if (im->starts[mid] <= at)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo > 0 ? (int64_t) lo - 1 : -1;
}

/* Whether HOT word W's place in its object (the same offset from the
   object's start) holds a pointer in some object of its type: a
   relocation bit, a RELOC_EXE or a RELOC_CODE entry there.  True when
   W lies in no object.  */
static bool
pointer_place (const struct image *im, uint64_t w)
{
  uint64_t hot = im->s[PDUMP_SECTION_HOT].offset;
  uint64_t at = hot + w * im->h.word_size;
  int64_t n = object_containing (im, at);
  if (n < 0)
    return true;
  uint64_t place = at - im->starts[n];
  for (uint64_t i = 0; i < im->object_count; i++)
    {
      if (im->types[i] != im->types[n] || im->starts[i] < hot
          || object_size (im, i) <= place)
        continue;
      uint64_t other = (im->starts[i] + place - hot) / im->h.word_size;
      if (other >= hot_words (im))
        continue;
      if (reloc_bit (im, other) || in_exe_list (im, other)
          || in_word_list (im, PDUMP_SECTION_RELOC_CODE, other))
        return true;
    }
  return false;
}

/* Change the RELOC_IMAGE count in the section table by DELTA, so the
   mutant passes the bit-count check and reaches the heap.  */
static void
adjust_reloc_count (struct image *im, int delta)
{
  size_t at = sizeof im->h + im->table_index[PDUMP_SECTION_RELOC_IMAGE]
              * sizeof (struct pdump_section) + offsetof (struct pdump_section, count);
  uint64_t count;
  memcpy (&count, im->bytes + at, 8);
  count += (uint64_t) (int64_t) delta;
  memcpy (im->bytes + at, &count, 8);
}

/* A random relocated HOT word, or false.  */
static bool
pick_relocated (struct image *im, uint64_t *word)
{
  uint64_t n = hot_words (im);
  for (int tries = 0; tries < 100000 && n; tries++)
    {
      uint64_t w = below (n);
      if (reloc_bit (im, w))
        {
          *word = w;
          return true;
        }
    }
  return false;
}

static const char *
mutate_reloc (struct image *im, const char *kind, char *what, size_t what_size)
{
  uint64_t w;
  if (strcmp (kind, "reloc-clear") == 0)
    {
      if (!pick_relocated (im, &w))
        return NULL;
      set_reloc_bit (im, w, false);
      adjust_reloc_count (im, -1);
      snprintf (what, what_size, "cleared the relocation of HOT word %" PRIu64, w);
      return "structural";
    }
  /* reloc-set: prefer a plain word whose value is a plausible offset.  */
  uint64_t n = hot_words (im), chosen = UINT64_MAX;
  uint64_t lo = im->h.preferred_base + im->s[PDUMP_SECTION_HOT].offset;
  uint64_t hi = im->h.preferred_base + im->s[PDUMP_SECTION_COLD].offset
                + im->s[PDUMP_SECTION_COLD].size;
  for (int tries = 0; tries < 4096 && n; tries++)
    {
      w = below (n);
      if (reloc_bit (im, w) || in_exe_list (im, w))
        continue;
      chosen = w;
      uint64_t v = hot_word (im, w);
      if (v >= lo && v < hi)
        break;
    }
  if (chosen == UINT64_MAX)
    return NULL;
  set_reloc_bit (im, chosen, true);
  adjust_reloc_count (im, 1);
  snprintf (what, what_size, "set a relocation on plain HOT word %" PRIu64
            " (value 0x%" PRIx64 ")", chosen, hot_word (im, chosen));
  return "structural";
}

static const char *
mutate_pointer (struct image *im, const char *kind, char *what, size_t what_size)
{
  for (int tries = 0; tries < 1000; tries++)
    {
      uint64_t w;
      if (!pick_relocated (im, &w))
        return NULL;
      uint64_t value = hot_word (im, w);
      uint64_t tag = value & im->tag_mask;
      /* Relocated words hold addresses at the preferred base.  */
      int64_t target = object_at (im, value - tag - im->h.preferred_base);
      if (target < 0)
        continue;
      if (strcmp (kind, "interior") == 0)
        {
          uint64_t size = object_size (im, (uint64_t) target);
          uint64_t word_size = im->h.word_size;
          if (size <= word_size)
            continue;
          uint64_t inside = word_size * (1 + below ((size - 1) / word_size));
          set_hot_word (im, w, value + inside);
          snprintf (what, what_size, "HOT word %" PRIu64 " now points %" PRIu64
                    " bytes into object %" PRId64, w, inside, target);
        }
      else
        {
          uint64_t other = below (im->tag_mask);
          if (other >= tag)
            other++;
          set_hot_word (im, w, value - tag + other);
          snprintf (what, what_size, "HOT word %" PRIu64 " tag %" PRIu64
                    " -> %" PRIu64 " (object %" PRId64 ")", w, tag, other, target);
        }
      return "structural";
    }
  return NULL;
}

/* Store VALUE in the WIDTH bytes at AT.  */
static void
put (struct image *im, size_t at, unsigned width, uint64_t value)
{
  memcpy (im->bytes + at, &value, width);   /* little-endian hosts */
}

static const char *
mutate_header (struct image *im, char *what, size_t what_size)
{
  static const struct { const char *name; size_t at; unsigned width; } header[] = {
    { "format_version", 8, 4 }, { "header_size", 12, 4 }, { "word_size", 16, 1 },
    { "byte_order", 17, 1 }, { "machine", 18, 2 }, { "section_count", 20, 4 },
    { "file_size", 24, 8 }, { "page_size", 32, 8 },
    { "section_table_offset", 40, 8 }, { "fingerprint", 48, 1 },
    { "object_count", 64, 8 }, { "type_count", 72, 4 }, { "tag_bits", 76, 4 },
    { "image_size", 80, 8 }, { "preferred_base", 96, 8 },
    { "interior_count", 104, 8 }, { "reserved", 112, 8 }
  };
  static const struct { const char *name; size_t at; unsigned width; } section[] = {
    { "kind", 0, 4 }, { "flags", 4, 4 }, { "offset", 8, 8 }, { "size", 16, 8 },
    { "count", 24, 8 }, { "reserved", 40, 8 }
  };
  const char *name;
  size_t at;
  unsigned width;
  char where[64];
  size_t header_fields = sizeof header / sizeof header[0];
  uint64_t pick = below (header_fields + sizeof section / sizeof section[0]);
  if (pick < header_fields)
    {
      name = header[pick].name;
      at = header[pick].at;
      width = header[pick].width;
      snprintf (where, sizeof where, "header");
    }
  else
    {
      pick -= header_fields;
      uint64_t entry = below (PDUMP_SECTION_KIND_MAX);
      name = section[pick].name;
      at = sizeof im->h + entry * sizeof (struct pdump_section) + section[pick].at;
      width = section[pick].width;
      snprintf (where, sizeof where, "section entry %" PRIu64, entry);
    }
  uint64_t old = 0;
  memcpy (&old, im->bytes + at, width);
  uint64_t value;
  switch (below (9))
    {
    case 0: value = 0; break;
    case 1: value = 1; break;
    case 2: value = old + 1; break;
    case 3: value = old - 1; break;
    case 4: value = old * 2; break;
    case 5: value = old / 2; break;
    case 6: value = ~UINT64_C (0); break;
    case 7: value = old ^ (UINT64_C (1) << below (width * 8)); break;
    default: value = rng (); break;
    }
  put (im, at, width, value);
  snprintf (what, what_size, "%s field %s: 0x%" PRIx64 " -> 0x%" PRIx64, where,
            name, old, value & (width == 8 ? ~UINT64_C (0)
                                : (UINT64_C (1) << (width * 8)) - 1));
  return "structural";
}

/* Which section holds file offset AT (0 for the header, table or a gap).  */
static unsigned
section_of (const struct image *im, uint64_t at)
{
  for (unsigned k = 1; k <= PDUMP_SECTION_KIND_MAX; k++)
    if (at >= im->s[k].offset && at - im->s[k].offset < im->s[k].size)
      return k;
  return 0;
}

static const char *const section_names[] = {
  "?", "HOT", "COLD", "RELOC_IMAGE", "RELOC_EXE", "REGISTRY", "SCALAR_DATA",
  "TYPES", "OBJECTS", "RELOC_CODE"
};

/* The name of section KIND for messages; "gap" for 0.  */
static const char *
section_name (unsigned kind)
{
  if (kind == 0)
    return "gap";
  return kind < sizeof section_names / sizeof section_names[0]
         ? section_names[kind] : "?";
}

/* Change the count (and the size, by 4 bytes per entry) of the section
   entry of KIND by DELTA.  */
static void
adjust_list (struct image *im, enum pdump_section_kind kind, int delta)
{
  size_t entry = sizeof im->h + im->table_index[kind] * sizeof (struct pdump_section);
  struct pdump_section s;
  memcpy (&s, im->bytes + entry, sizeof s);
  s.count += (uint64_t) (int64_t) delta;
  s.size += (uint64_t) (int64_t) (4 * delta);
  if (s.codec == PDUMP_CODEC_NONE)
    s.stored_size = s.size;   /* an uncompressed section is stored as it is */
  memcpy (im->bytes + entry, &s, sizeof s);
  im->s[kind] = s;
  /* The last section of an uncompressed image ends the file: the image
     and the file shrink or grow with it, as the writer would have laid
     them out (the header check refuses any other end).  */
  if (kind == PDUMP_SECTION_RELOC_CODE && s.codec == PDUMP_CODEC_NONE
      && s.offset + s.size - (uint64_t) (int64_t) (4 * delta) == im->h.image_size
      && im->h.image_size == im->size)
    {
      im->h.image_size += (uint64_t) (int64_t) (4 * delta);
      im->h.file_size = im->h.image_size;
      im->size = (size_t) im->h.image_size;
      memcpy (im->bytes + offsetof (struct pdump_header, image_size),
              &im->h.image_size, sizeof im->h.image_size);
      memcpy (im->bytes + offsetof (struct pdump_header, file_size),
              &im->h.file_size, sizeof im->h.file_size);
    }
}

static const char *
mutate_record (struct image *im, char *what, size_t what_size)
{
  const struct pdump_section *reg = &im->s[PDUMP_SECTION_REGISTRY];
  if (reg->count == 0)
    return NULL;
  uint64_t i = below (reg->count);
  size_t at = reg->offset + i * sizeof (struct pdump_record);
  struct pdump_record r, other;
  memcpy (&r, im->bytes + at, sizeof r);
  const char *field;
  uint64_t old, value;
  switch (below (reg->count > 1 ? 4 : 3))
    {
    case 0:
      field = "decl";
      old = r.decl;
      r.decl ^= 1u << below (12);
      value = r.decl;
      break;
    case 1:
      field = "kind";
      old = r.kind;
      r.kind = (uint8_t) (1 + (r.kind + below (4)) % 5);   /* another of 1..5 */
      value = r.kind;
      break;
    case 2:
      field = "exe_offset";
      old = r.exe_offset;
      r.exe_offset += 1;
      value = r.exe_offset;
      break;
    default:
      {
        uint64_t j = below (reg->count - 1);
        if (j >= i)
          j++;
        memcpy (&other, im->bytes + reg->offset + j * sizeof other, sizeof other);
        field = "copy of another record, exe_offset";
        old = r.exe_offset;
        r = other;
        value = r.exe_offset;
        break;
      }
    }
  memcpy (im->bytes + at, &r, sizeof r);
  snprintf (what, what_size, "registry record %" PRIu64 " %s: 0x%" PRIx64
            " -> 0x%" PRIx64, i, field, old, value);
  return "structural";
}

static const char *
mutate_exe (struct image *im, char *what, size_t what_size)
{
  const struct pdump_section *es = &im->s[PDUMP_SECTION_RELOC_EXE];
  if (es->count == 0)
    return NULL;
  uint64_t i = below (es->count);
  uint32_t w;
  memcpy (&w, im->bytes + es->offset + i * 4, 4);
  uint64_t old = hot_word (im, w);
  set_hot_word (im, w, old + 8);
  snprintf (what, what_size, "HOT word %u, relocated against the executable, "
            "0x%" PRIx64 " -> 0x%" PRIx64, w, old, hot_word (im, w));
  return "structural";
}

/* exe-top: the variants of the table above, by SEED.  The loader must
   refuse every one before it writes a word (the merge in load.c's
   exe_pages once looped forever on 0xffffffff).  */
static const char *
mutate_exe_top (struct image *im, uint64_t seed, char *what, size_t what_size)
{
  const struct pdump_section *es = &im->s[PDUMP_SECTION_RELOC_EXE];
  uint64_t word_count = im->s[PDUMP_SECTION_HOT].size / im->h.word_size;
  const struct { bool first; uint64_t value; } variants[] = {
    { false, UINT32_MAX }, { false, UINT32_MAX - 1 }, { false, word_count },
    { false, UINT32_C (0x80000000) }, { true, UINT32_MAX },
    { true, word_count - 1 }
  };
  unsigned k = (unsigned) (seed % (sizeof variants / sizeof variants[0]));
  /* The first entry is out of order only with a second after it.  */
  if (es->count < (variants[k].first ? 2u : 1u) || word_count > UINT32_MAX)
    return NULL;
  uint64_t i = variants[k].first ? 0 : es->count - 1;
  uint32_t old, w = (uint32_t) variants[k].value;
  memcpy (&old, im->bytes + es->offset + i * 4, 4);
  memcpy (im->bytes + es->offset + i * 4, &w, 4);
  snprintf (what, what_size, "RELOC_EXE entry %" PRIu64 " of %" PRIu64
            " (HOT has %" PRIu64 " words): %u -> 0x%x", i, es->count,
            word_count, old, w);
  return "structural";
}

/* The file offset of field AT of the section table entry of KIND.  */
static size_t
section_field (const struct image *im, enum pdump_section_kind kind, size_t at)
{
  return sizeof im->h + im->table_index[kind] * sizeof (struct pdump_section) + at;
}

/* count: the variants of the table above, by SEED.  Every one must be
   refused as corrupt (86), naming the file, before the loader or the
   host allocates by the count.  */
static const char *
mutate_count (struct image *im, uint64_t seed, char *what, size_t what_size)
{
  enum { OBJECT_COUNT = 64, TYPE_COUNT = 72, COUNT = 24 };
  uint64_t hot = im->s[PDUMP_SECTION_HOT].count;
  uint64_t cold = im->s[PDUMP_SECTION_COLD].count;
  uint64_t raise = UINT64_C (0xfffffff0);
  switch (seed % 7)
    {
    case 0: put (im, OBJECT_COUNT, 8, UINT64_C (0xfffffff8)); break;
    case 1: put (im, OBJECT_COUNT, 8, UINT64_MAX); break;
    case 2: put (im, OBJECT_COUNT, 8, hot + cold + 1); break;
    case 3:
      put (im, OBJECT_COUNT, 8, hot + cold + raise);
      put (im, section_field (im, PDUMP_SECTION_HOT, COUNT), 8, hot + raise);
      break;
    case 4:
      put (im, OBJECT_COUNT, 8, hot + cold + raise);
      put (im, section_field (im, PDUMP_SECTION_COLD, COUNT), 8, cold + raise);
      break;
    case 5:
      put (im, section_field (im, PDUMP_SECTION_OBJECTS, COUNT), 8,
           UINT64_C (0xfffffff8));
      break;
    default:
      put (im, TYPE_COUNT, 4, UINT64_C (0xfffffff8));
      put (im, section_field (im, PDUMP_SECTION_TYPES, COUNT), 8,
           UINT64_C (0xfffffff8));
      break;
    }
  snprintf (what, what_size, "count variant %u (HOT %" PRIu64 ", COLD %"
            PRIu64 " objects)", (unsigned) (seed % 7), hot, cold);
  return "structural";
}

static const char *
mutate_code (struct image *im, const char *kind, char *what, size_t what_size)
{
  const struct pdump_section *cs = &im->s[PDUMP_SECTION_RELOC_CODE];
  if (cs->count == 0)
    return NULL;
  uint64_t i = below (cs->count);
  unsigned char *list = im->bytes + cs->offset;
  uint32_t w;
  memcpy (&w, list + i * 4, 4);
  if (strcmp (kind, "code") == 0)
    {
      uint64_t old = hot_word (im, w);
      /* Far beyond any table, and inside the word (2^20 .. 2^40 with
         8-byte words, 2^20 .. 2^28 with 4-byte words).  */
      unsigned range_bits = im->h.word_size == 8 ? 40 : 28;
      set_hot_word (im, w, (UINT64_C (1) << 20) + below (UINT64_C (1) << range_bits));
      snprintf (what, what_size, "code pointer at HOT word %u names declaration "
                "%" PRIu64 " (was %" PRIu64 ")", w, hot_word (im, w), old);
      return "structural";
    }
  memmove (list + i * 4, list + (i + 1) * 4, (size_t) (cs->count - i - 1) * 4);
  memset (list + (cs->count - 1) * 4, 0, 4);
  adjust_list (im, PDUMP_SECTION_RELOC_CODE, -1);
  snprintf (what, what_size, "removed RELOC_CODE entry %" PRIu64 ": HOT word "
            "%u keeps the number %" PRIu64, i, w, hot_word (im, w));
  return "structural";
}

/* Registry record I, read or written.  */
static struct pdump_record
record_at (const struct image *im, uint64_t i)
{
  struct pdump_record r;
  memcpy (&r, im->bytes + im->s[PDUMP_SECTION_REGISTRY].offset + i * sizeof r,
          sizeof r);
  return r;
}

static void
set_record (struct image *im, uint64_t i, const struct pdump_record *r)
{
  memcpy (im->bytes + im->s[PDUMP_SECTION_REGISTRY].offset + i * sizeof *r, r,
          sizeof *r);
}

/* The first record at or after one chosen by the seed (wrapping) that
   WANT accepts, or -1.  */
static int64_t
pick_record (const struct image *im, bool (*want) (const struct pdump_record *))
{
  uint64_t count = im->s[PDUMP_SECTION_REGISTRY].count;
  uint64_t first = below (count);
  for (uint64_t n = 0; n < count; n++)
    {
      uint64_t i = (first + n) % count;
      struct pdump_record r = record_at (im, i);
      if (want (&r))
        return (int64_t) i;
    }
  return -1;
}

static bool
any_record (const struct pdump_record *r)
{
  (void) r;
  return true;
}

static bool
scalar_record (const struct pdump_record *r)
{
  return r->kind == DUMPER_DECL_SCALAR && r->size > 1;
}

static bool
root_or_word_record (const struct pdump_record *r)
{
  return r->kind == DUMPER_DECL_ROOT || r->kind == DUMPER_DECL_WORD;
}

/* record-decl, record-size, record-kind: one field of one record, so
   that only the declaration it names says the record is wrong.  */
static const char *
mutate_record_decl (struct image *im, const char *kind, uint64_t value,
                    char *what, size_t what_size)
{
  bool size = strcmp (kind, "record-size") == 0;
  bool decl = strcmp (kind, "record-decl") == 0;
  int64_t i = pick_record (im, size ? scalar_record
                           : decl ? any_record : root_or_word_record);
  if (i < 0)
    return NULL;
  struct pdump_record r = record_at (im, (uint64_t) i);
  uint64_t old = size ? r.size : decl ? r.decl : r.kind;
  if (size)
    r.size--;
  else if (decl)
    r.decl = (uint32_t) value;
  else
    r.kind = r.kind == DUMPER_DECL_ROOT ? DUMPER_DECL_WORD : DUMPER_DECL_ROOT;
  set_record (im, (uint64_t) i, &r);
  snprintf (what, what_size, "registry record %" PRId64 " %s: %" PRIu64
            " -> %" PRIu64, i, size ? "size" : decl ? "decl" : "kind", old,
            size ? r.size : decl ? r.decl : r.kind);
  return "structural";
}

/* code-order, code-word, code-index, code-element, code-kind: one
   RELOC_CODE entry or the code pointer it names.  */
static const char *
mutate_code_entry (struct image *im, const char *kind, uint64_t value,
                   char *what, size_t what_size)
{
  const struct pdump_section *cs = &im->s[PDUMP_SECTION_RELOC_CODE];
  bool order = strcmp (kind, "code-order") == 0;
  if (cs->count < (order ? 2u : 1u))
    return NULL;
  unsigned char *list = im->bytes + cs->offset;
  uint64_t i = order ? below (cs->count - 1)
               : strcmp (kind, "code-word") == 0 ? cs->count - 1
               : below (cs->count);
  uint32_t w, next;
  memcpy (&w, list + i * 4, 4);
  if (order || strcmp (kind, "code-word") == 0)
    {
      memcpy (&next, order ? list + (i + 1) * 4 : list + i * 4, 4);
      uint32_t moved = order ? next : (uint32_t) hot_words (im);
      memcpy (list + i * 4, &moved, 4);
      if (order)
        memcpy (list + (i + 1) * 4, &w, 4);
      snprintf (what, what_size, "RELOC_CODE entry %" PRIu64 ": word %u -> %u%s",
                i, w, moved, order ? " (swapped with the next)" : "");
      return "structural";
    }
  if (strcmp (kind, "code-kind") == 0)
    {
      if (im->s[PDUMP_SECTION_REGISTRY].count == 0)
        return NULL;
      value = record_at (im, (uint64_t) pick_record (im, any_record)).decl;
    }
  uint64_t old = hot_word (im, w);
  if (strcmp (kind, "code-element") == 0)
    {
      /* The mutator's own decoding of the code word: the declaration
         in the low half, the element in the high half.  */
      unsigned half = im->h.word_size * 4u;
      uint64_t low = (UINT64_C (1) << half) - 1;
      /* Without VALUE (the campaign): a small index, in or just past a
         short table, or the largest the half holds.  */
      if (value == 0)
        value = below (4) == 0 ? low : below (8);
      if (value > low)
        value = low;
      set_hot_word (im, w, (old & low) | (value << half));
      snprintf (what, what_size, "code pointer at HOT word %u names element "
                "%" PRIu64 " of declaration %" PRIu64 " (was element %"
                PRIu64 ")", w, value, old & low, old >> half);
      return "structural";
    }
  set_hot_word (im, w, value);
  snprintf (what, what_size, "code pointer at HOT word %u names declaration "
            "%" PRIu64 " (was %" PRIu64 ")", w, value, old);
  return "structural";
}

/* set-word: HOT word at file offset AT set to VALUE.  */
static const char *
mutate_set_word (struct image *im, uint64_t at, uint64_t value, char *what,
                 size_t what_size)
{
  uint64_t hot = im->s[PDUMP_SECTION_HOT].offset;
  if (at < hot || (at - hot) % im->h.word_size != 0
      || (at - hot) / im->h.word_size >= hot_words (im))
    die ("set-word: the offset is not a word of HOT");
  uint64_t w = (at - hot) / im->h.word_size;
  uint64_t old = hot_word (im, w);
  set_hot_word (im, w, value);
  snprintf (what, what_size, "HOT word at offset 0x%" PRIx64 ": 0x%" PRIx64
            " -> 0x%" PRIx64, at, old, hot_word (im, w));
  return "structural";
}

static const char *
mutate_flip (struct image *im, char *what, size_t what_size)
{
  unsigned char *original = malloc (im->size);
  if (original == NULL)
    die ("out of memory");
  memcpy (original, im->bytes, im->size);
  unsigned flips = 1 + (unsigned) below (4);
  size_t used = (size_t) snprintf (what, what_size, "flipped");
  for (unsigned i = 0; i < flips; i++)
    {
      uint64_t at = below (im->size);
      unsigned bit = (unsigned) below (8);
      im->bytes[at] ^= (unsigned char) (1u << bit);
      if (used < what_size)
        used += (size_t) snprintf (what + used, what_size - used,
                                   " 0x%" PRIx64 ".%u(%s)", at, bit,
                                   at < sizeof im->h ? "header"
                                   : section_name (section_of (im, at)));
    }
  /* Classify: the worst byte wins.  */
  const char *cls = "data";
  uint64_t hot = im->s[PDUMP_SECTION_HOT].offset;
  for (uint64_t at = 0; at < im->size; at++)
    {
      if (im->bytes[at] == original[at])
        continue;
      unsigned k = at < sizeof im->h + PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section)
                   ? 0 : section_of (im, at);
      if (k == PDUMP_SECTION_COLD || k == PDUMP_SECTION_SCALAR_DATA
          || k == PDUMP_SECTION_TYPES)
        continue;
      if (k == 0 && at >= sizeof im->h + PDUMP_SECTION_KIND_MAX * sizeof (struct pdump_section))
        continue;   /* padding between sections */
      if (k != PDUMP_SECTION_HOT)
        {
          cls = "structural";
          break;
        }
      uint64_t word_size = im->h.word_size;
      uint64_t w = (at - hot) / word_size;
      uint64_t before = 0, after = 0;
      memcpy (&before, original + hot + w * word_size, word_size);
      memcpy (&after, im->bytes + hot + w * word_size, word_size);
      if (in_exe_list (im, w))
        {
          cls = "structural";
          break;
        }
      if (!reloc_bit (im, w))
        {
          /* A plain word stays data unless its tag bits or a zero
             (a null raw pointer) changed.  With 4-byte words a 64-bit
             data field (a length, a double) is two words, and its zero
             high half is no null pointer: there, a word whose place in
             its object holds a pointer in no object of its type is
             data.  8-byte words keep the plain rule.  */
          if ((before == 0 || ((before ^ after) & im->tag_mask))
              && (im->h.word_size == 8 || pointer_place (im, w)))
            {
              cls = "structural";
              break;
            }
          continue;
        }
      /* Relocated words hold addresses at the preferred base.  */
      uint64_t base = im->h.preferred_base;
      int64_t old_target = object_at (im, before - (before & im->tag_mask) - base);
      int64_t new_target = object_at (im, after - (after & im->tag_mask) - base);
      if ((before & im->tag_mask) == (after & im->tag_mask) && old_target >= 0
          && new_target >= 0 && im->types[old_target] == im->types[new_target])
        cls = "retarget";
      else
        {
          cls = "structural";
          break;
        }
    }
  free (original);
  return cls;
}

/* Bytes of the ULEB128 encoding of VALUE.  */
static unsigned
uleb_length (uint64_t value)
{
  unsigned n = 1;
  while (value >>= 7)
    n++;
  return n;
}

/* Write VALUE as ULEB128 over the LENGTH bytes at AT (its own length).  */
static void
put_uleb (unsigned char *at, unsigned length, uint64_t value)
{
  for (unsigned i = 0; i < length; i++, value >>= 7)
    at[i] = (unsigned char) ((value & 0x7f) | (i + 1 < length ? 0x80 : 0));
}

static const char *
mutate_unaligned (struct image *im, uint64_t seed, char *what, size_t what_size)
{
  const struct pdump_section *reg = &im->s[PDUMP_SECTION_REGISTRY];
  for (uint64_t i = 0; i < reg->count; i++)
    {
      size_t at = reg->offset + i * sizeof (struct pdump_record);
      struct pdump_record r;
      memcpy (&r, im->bytes + at, sizeof r);
      if (r.kind != DUMPER_DECL_PTR || r.value_kind != PDUMP_VALUE_IMAGE
          || object_at (im, r.value) < 0)
        continue;
      uint64_t old = r.value;
      r.value += 1 + (seed - 1) % (PDUMP_GRANULE - 1);
      memcpy (im->bytes + at, &r, sizeof r);
      snprintf (what, what_size, "registry record %" PRIu64 " (a raw pointer) "
                "0x%" PRIx64 " -> 0x%" PRIx64 ", %" PRIu64 " bytes into object "
                "%" PRId64, i, old, r.value, r.value - old, object_at (im, old));
      return "structural";
    }
  return NULL;
}

/* Index entry N's type and size fields: where the size starts, and its
   bytes.  */
static void
index_entry (const struct image *im, uint64_t n, uint64_t *size_at,
             uint64_t *size, unsigned *size_length)
{
  const unsigned char *p = im->bytes + im->entries[n];
  const unsigned char *end = im->bytes + im->s[PDUMP_SECTION_OBJECTS].offset
                             + im->s[PDUMP_SECTION_OBJECTS].size;
  uleb (&p, end);
  *size_at = (uint64_t) (p - im->bytes);
  *size = uleb (&p, end);
  *size_length = (unsigned) (p - im->bytes - *size_at);
}

/* Object N claims one byte more; object N + 1 (in the same section),
   which the index then places one alignment unit later, as many bytes
   less, so the index still tiles the section.  False when the sizes
   do not allow it.  */
static bool
grow_entry (struct image *im, uint64_t n, char *what, size_t what_size)
{
  uint64_t at0, size0, at1, size1;
  unsigned length0, length1;
  index_entry (im, n, &at0, &size0, &length0);
  index_entry (im, n + 1, &at1, &size1, &length1);
  uint64_t align = im->types[n + 1] == PDUMP_TYPE_BYTES ? PDUMP_ALIGN
                   : (UINT64_C (1) << im->h.tag_bits) > PDUMP_ALIGN
                   ? UINT64_C (1) << im->h.tag_bits : PDUMP_ALIGN;
  uint64_t next = (im->starts[n] + size0 + 1 + align - 1) & ~(align - 1);
  uint64_t shift = next - im->starts[n + 1];
  if (size1 <= shift || uleb_length (size0 + 1) != length0
      || uleb_length (size1 - shift) != length1)
    return false;
  put_uleb (im->bytes + at0, length0, size0 + 1);
  put_uleb (im->bytes + at1, length1, size1 - shift);
  snprintf (what, what_size, "object %" PRIu64 " at offset 0x%" PRIx64
            ": index size %" PRIu64 " -> %" PRIu64 "; object %" PRIu64
            " moved %" PRIu64 " bytes, size %" PRIu64 " -> %" PRIu64, n,
            im->starts[n], size0, size0 + 1, n + 1, shift, size1,
            size1 - shift);
  return true;
}

/* Object 0 grows (grow_entry), so it is the first object checked.  */
static const char *
mutate_oversize (struct image *im, char *what, size_t what_size)
{
  if (im->object_count < 2 || im->s[PDUMP_SECTION_OBJECTS].count < 2
      || im->types[0] == PDUMP_TYPE_BYTES)
    return NULL;
  return grow_entry (im, 0, what, what_size) ? "structural" : NULL;
}

/* Whether TYPES flags TYPE as owner-sized (format.h).  */
static bool
owner_sized (const struct image *im, uint32_t type)
{
  const struct pdump_section *s = &im->s[PDUMP_SECTION_TYPES];
  if (type >= im->h.type_count
      || (uint64_t) type * sizeof (struct pdump_type_entry)
         + sizeof (struct pdump_type_entry) > s->size)
    return false;
  struct pdump_type_entry e;
  memcpy (&e, im->bytes + s->offset + type * sizeof e, sizeof e);
  return (e.name_length & PDUMP_TYPE_OWNER_SIZED) != 0;
}

/* sized-length: an owner-sized object, chosen by the seed among those
   followed by an object of their section, grows.  */
static const char *
mutate_sized_length (struct image *im, char *what, size_t what_size)
{
  uint64_t hot_count = im->s[PDUMP_SECTION_OBJECTS].count;
  uint64_t first = below (im->object_count);
  for (uint64_t k = 0; k < im->object_count; k++)
    {
      uint64_t n = (first + k) % im->object_count;
      bool next_same = n + 1 < im->object_count
                       && (n + 1 < hot_count) == (n < hot_count);
      if (next_same && im->types[n] != PDUMP_TYPE_BYTES
          && owner_sized (im, im->types[n])
          && grow_entry (im, n, what, what_size))
        return "structural";
    }
  return NULL;
}

/* interior-out: a relocated HOT word that is no object's start plus a
   tag (an interior pointer) set to 8 bytes past HOT's end, which is in
   no object when COLD starts further on (HOT's last page is not full):
   inside the range the loader relocates, outside every object.  */
static const char *
mutate_interior_out (struct image *im, char *what, size_t what_size)
{
  uint64_t hot_end = im->s[PDUMP_SECTION_HOT].offset
                     + im->s[PDUMP_SECTION_HOT].size;
  if (hot_end + 8 >= im->s[PDUMP_SECTION_COLD].offset)
    return NULL;
  uint64_t n = hot_words (im), first = below (n);
  for (uint64_t k = 0; k < n; k++)
    {
      uint64_t w = (first + k) % n;
      if (!reloc_bit (im, w))
        continue;
      uint64_t value = hot_word (im, w);
      uint64_t offset = value - im->h.preferred_base;
      if (object_at (im, offset - (offset & im->tag_mask)) >= 0)
        continue;
      set_hot_word (im, w, im->h.preferred_base + hot_end + 8);
      snprintf (what, what_size, "interior HOT word %" PRIu64 " (value 0x%"
                PRIx64 ") now points 8 bytes past HOT's end", w, value);
      return "structural";
    }
  return NULL;
}

static const char *
mutate_type_range (struct image *im, char *what, size_t what_size)
{
  if (im->object_count == 0)
    return NULL;
  const unsigned char *p = im->bytes + im->entries[0];
  const unsigned char *end = im->bytes + im->s[PDUMP_SECTION_OBJECTS].offset
                             + im->s[PDUMP_SECTION_OBJECTS].size;
  uint64_t old = uleb (&p, end);
  unsigned length = (unsigned) (p - im->bytes - im->entries[0]);
  if (uleb_length (im->h.type_count) != length)
    return NULL;
  put_uleb (im->bytes + im->entries[0], length, im->h.type_count);
  snprintf (what, what_size, "object 0: type %" PRIu64 " -> %" PRIu32 " (the "
            "type count)", old, im->h.type_count);
  return "structural";
}

/* slack: on the raw bytes of a compressed image (parse needs image
   offsets that are file offsets).  Returns the new size, 0 when the
   image has no compressed section.  */
static size_t
mutate_slack (unsigned char **bytes, size_t size, char *what, size_t what_size)
{
  const size_t table = sizeof (struct pdump_header);
  struct pdump_section s[PDUMP_SECTION_KIND_MAX];
  if (size < table + sizeof s)
    die ("not an image");
  memcpy (s, *bytes + table, sizeof s);
  size_t last = PDUMP_SECTION_KIND_MAX;
  for (size_t i = 0; i < PDUMP_SECTION_KIND_MAX; i++)
    if (s[i].codec != PDUMP_CODEC_NONE
        && (last == PDUMP_SECTION_KIND_MAX
            || s[i].stored_offset > s[last].stored_offset))
      last = i;
  if (last == PDUMP_SECTION_KIND_MAX)
    return 0;
  uint64_t end = s[last].stored_offset + s[last].stored_size;
  if (end > size)
    die ("bad section table");
  unsigned char *grown = calloc (1, size + 8);
  if (grown == NULL)
    die ("out of memory");
  memcpy (grown, *bytes, (size_t) end);
  memcpy (grown + end + 8, *bytes + end, size - (size_t) end);
  for (size_t i = 0; i < PDUMP_SECTION_KIND_MAX; i++)
    if (i != last && s[i].stored_offset >= end)
      s[i].stored_offset += 8;
  s[last].stored_size += 8;
  memcpy (grown + table, s, sizeof s);
  struct pdump_header h;
  memcpy (&h, grown, sizeof h);
  h.file_size += 8;
  if (h.image_size == size)
    die ("a compressed image whose image size is its file size");
  memcpy (grown, &h, sizeof h);
  fuzz_reseal_header (grown, size + 8);
  snprintf (what, what_size, "section %s: 8 bytes after its frames (stored "
            "size %" PRIu64 ")", section_name (s[last].kind),
            s[last].stored_size);
  free (*bytes);
  *bytes = grown;
  return size + 8;
}

/* short-frame: on the raw bytes of a compressed image.  Returns false
   when no pair of sections fits (one frame each, same codec, B smaller
   than A both decompressed and stored).  */
static bool
mutate_short_frame (unsigned char *bytes, size_t size, char *what,
                    size_t what_size)
{
  const size_t table = sizeof (struct pdump_header);
  struct pdump_section s[PDUMP_SECTION_KIND_MAX];
  struct pdump_header h;
  if (size < table + sizeof s)
    die ("not an image");
  memcpy (&h, bytes, sizeof h);
  memcpy (s, bytes + table, sizeof s);
  uint64_t frame = h.frame_size;
  if (frame == 0)
    return false;
  for (size_t a = 0; a < PDUMP_SECTION_KIND_MAX; a++)
    for (size_t b = 0; b < PDUMP_SECTION_KIND_MAX; b++)
      {
        if (a == b || s[a].codec == PDUMP_CODEC_NONE || s[b].codec != s[a].codec
            || s[a].size > frame || s[b].size > frame || s[b].size == 0
            || s[b].size >= s[a].size || s[b].stored_size > s[a].stored_size
            || s[a].stored_offset + s[a].stored_size > size
            || s[b].stored_offset + s[b].stored_size > size)
          continue;
        /* One frame: a table of 8 bytes (one entry, padded), the frame.  */
        memmove (bytes + s[a].stored_offset, bytes + s[b].stored_offset,
                 (size_t) s[b].stored_size);
        s[a].stored_size = s[b].stored_size;
        memcpy (bytes + table, s, sizeof s);
        fuzz_reseal_header (bytes, size);
        snprintf (what, what_size, "section %s: its frame replaced by section "
                  "%s's (%" PRIu64 " bytes, decompressing to %" PRIu64
                  " of %" PRIu64 ")", section_name (s[a].kind),
                  section_name (s[b].kind), s[b].stored_size - 8, s[b].size,
                  s[a].size);
        return true;
      }
  return false;
}

/* The mutation KIND of a parsed image: its class, or NULL when KIND
   does not apply.  */
static const char *
mutate_parsed (struct image *im, const char *kind, uint64_t seed,
               uint64_t value, char *what, size_t what_size)
{
  if (strcmp (kind, "reloc-clear") == 0 || strcmp (kind, "reloc-set") == 0)
    return mutate_reloc (im, kind, what, what_size);
  if (strcmp (kind, "interior") == 0 || strcmp (kind, "tag") == 0)
    return mutate_pointer (im, kind, what, what_size);
  if (strcmp (kind, "header") == 0)
    return mutate_header (im, what, what_size);
  if (strcmp (kind, "flip") == 0)
    return mutate_flip (im, what, what_size);
  if (strcmp (kind, "record") == 0)
    return mutate_record (im, what, what_size);
  if (strcmp (kind, "code") == 0 || strcmp (kind, "uncode") == 0)
    return mutate_code (im, kind, what, what_size);
  if (strcmp (kind, "exe") == 0)
    return mutate_exe (im, what, what_size);
  if (strcmp (kind, "unaligned") == 0)
    return mutate_unaligned (im, seed, what, what_size);
  if (strcmp (kind, "oversize") == 0)
    return mutate_oversize (im, what, what_size);
  if (strcmp (kind, "type-range") == 0)
    return mutate_type_range (im, what, what_size);
  if (strcmp (kind, "exe-top") == 0)
    return mutate_exe_top (im, seed, what, what_size);
  if (strcmp (kind, "count") == 0)
    return mutate_count (im, seed, what, what_size);
  if (strcmp (kind, "record-decl") == 0 || strcmp (kind, "record-size") == 0
      || strcmp (kind, "record-kind") == 0)
    return mutate_record_decl (im, kind, value, what, what_size);
  if (strcmp (kind, "code-order") == 0 || strcmp (kind, "code-word") == 0
      || strcmp (kind, "code-index") == 0 || strcmp (kind, "code-kind") == 0
      || strcmp (kind, "code-element") == 0)
    return mutate_code_entry (im, kind, value, what, what_size);
  if (strcmp (kind, "set-word") == 0)
    return mutate_set_word (im, seed, value, what, what_size);
  if (strcmp (kind, "sized-length") == 0)
    return mutate_sized_length (im, what, what_size);
  if (strcmp (kind, "interior-out") == 0)
    return mutate_interior_out (im, what, what_size);
  die ("unknown kind (reloc-clear, reloc-set, interior, tag, header, flip, "
       "record, code, uncode, exe, exe-top, count, unaligned, oversize, "
       "type-range, slack, short-frame, record-decl, record-size, record-kind, "
       "code-order, code-word, code-index, code-element, code-kind, "
       "set-word, sized-length, interior-out)");
  return NULL;
}

int
main (int argc, char **argv)
{
  bool reseal = true;
  uint64_t value = 0;
  for (int i = 5; i < argc; i++)
    if (strcmp (argv[i], "--no-reseal") == 0)
      reseal = false;
    else if (i == 5)
      value = strtoull (argv[i], NULL, 0);
    else
      argc = 0;
  if (argc < 5 || argc > 7)
    {
      fprintf (stderr, "usage: mutate IMAGE OUTPUT KIND SEED [VALUE] [--no-reseal]\n");
      return 1;
    }
  FILE *f = fopen (argv[1], "rb");
  if (f == NULL)
    die ("cannot open the image");
  struct image im;
  memset (&im, 0, sizeof im);
  fseek (f, 0, SEEK_END);
  im.size = (size_t) ftell (f);
  fseek (f, 0, SEEK_SET);
  im.bytes = malloc (im.size ? im.size : 1);
  if (im.bytes == NULL || fread (im.bytes, 1, im.size, f) != im.size)
    die ("cannot read the image");
  fclose (f);

  const char *kind = argv[3];
  uint64_t seed = strtoull (argv[4], NULL, 10);
  rng_state = seed * UINT64_C (0x9E3779B97F4A7C15) + 1;
  rng ();
  char what[512] = "";
  const char *cls = NULL;
  if (strcmp (kind, "slack") == 0)
    {
      /* Only the header is resealed: the section sums cover
         uncompressed bytes.  */
      im.size = mutate_slack (&im.bytes, im.size, what, sizeof what);
      cls = im.size ? "structural" : NULL;
      reseal = false;
    }
  else if (strcmp (kind, "short-frame") == 0)
    {
      cls = mutate_short_frame (im.bytes, im.size, what, sizeof what)
            ? "structural" : NULL;
      reseal = false;
    }
  else
    {
      parse (&im);
      cls = mutate_parsed (&im, kind, seed, value, what, sizeof what);
    }
  if (cls == NULL)
    return 2;
  if (reseal)
    fuzz_reseal (im.bytes, im.size);
  f = fopen (argv[2], "wb");
  if (f == NULL || fwrite (im.bytes, 1, im.size, f) != im.size || fclose (f) != 0)
    die ("cannot write the mutant");
  printf ("%s %" PRIu64 " %s %s\n", kind, seed, cls, what);
  free (im.bytes);
  free (im.starts);
  free (im.types);
  free (im.entries);
  return 0;
}
