/* SPDX-License-Identifier: MIT */
/* common/bits.h: counting the bits of a bitmap word, the one way
   libdumper does it (blockset numbers, the loader's and the inspector's
   object-start bitmaps, the checker's relocation counts).
   __builtin_popcountll alone is a call into libgcc on x86 built for the
   baseline ISA (no POPCNT before x86-64-v2), which the pdump writer
   paid on every pointer it followed; this inline form is a dozen
   instructions there and the builtin wherever the target has a bit
   count instruction.  */
#ifndef DUMPER_COMMON_BITS_H
#define DUMPER_COMMON_BITS_H

#include <stddef.h>
#include <stdint.h>

static inline size_t
common_popcount64 (uint64_t x)
{
#if defined __POPCNT__ || defined __aarch64__ || defined __ARM_NEON
  return (size_t) __builtin_popcountll (x);
#else
  x -= (x >> 1) & UINT64_C (0x5555555555555555);
  x = (x & UINT64_C (0x3333333333333333))
      + ((x >> 2) & UINT64_C (0x3333333333333333));
  x = (x + (x >> 4)) & UINT64_C (0x0F0F0F0F0F0F0F0F);
  return (size_t) ((x * UINT64_C (0x0101010101010101)) >> 56);
#endif
}

#endif
