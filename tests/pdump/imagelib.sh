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

# The object index: entries of (type, size), each an unsigned LEB128
# number, the objects laid out one after the other from HOT's start,
# and again from COLD's, each at the next multiple of 8 bytes.
# index FILE: one line an entry, "TYPE-OFFSET TYPE SIZE-OFFSET SIZE
# SIZE-BYTES AT": offsets in OBJECTS, AT the object's in its section.
index () {
  od -An -v -t u1 -j `section_at "$1" 8 8` -N `section_at "$1" 8 16` "$1" |
    tr -s ' ' '\n' | grep . | awk -v hot=`section_at "$1" 8 24` '
  { b[n++] = $1 }
  END {
    i = 0; at = 0
    while (i < n) {
      if (e++ == hot) at = 0
      to = i; t = 0; m = 1
      do { t += (b[i] % 128) * m; m *= 128 } while (b[i++] >= 128)
      so = i; s = 0; m = 1
      do { s += (b[i] % 128) * m; m *= 128 } while (b[i++] >= 128)
      at = int((at + 7) / 8) * 8
      print to, t, so, s, i - so, at
      at += s
    } }'
}

# judge_refusal STATUS OUTPUT WORDS: the test passes when the loader
# exited with 86 (corrupt) and OUTPUT matches WORDS, a shell pattern
# (`*' for any text, as addresses); else it fails saying which.
judge_refusal () {
  if [ "$1" -ne 86 ]; then
    fail "status $1, want 86: $2"
    return
  fi
  case $2 in
    *$3*) pass ;;
    *) fail "message lacks '$3': $2" ;;
  esac
}
