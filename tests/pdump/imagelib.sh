# SPDX-License-Identifier: MIT
# tests/pdump/imagelib.sh: reading an image's fields from a shell test
# (sourced after tests/e2e/lib.sh by mutkill.sh and mutkill-verify.sh).

# u64 FILE OFFSET, u32 FILE OFFSET, u8 FILE OFFSET: a field, decimal.
u64 () {
  od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}
u32 () {
  od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '
}
u8 () {
  od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' '
}
# section_at FILE KIND FIELD-OFFSET: a u64 field of section KIND's entry
# (8: offset, 16: size, 24: count, 40: stored_offset).
section_at () {
  u64 "$1" `expr 136 + \( $2 - 1 \) \* 64 + $3`
}
