# SPDX-License-Identifier: MIT
# tests/mutation/apply.awk: apply one mutant to one source file.
#
# Usage: awk -v oldfile=F -v newfile=F -v out=F -f apply.awk SOURCE
# OLDFILE and NEWFILE hold the mutant's old and replacement text, one
# line of text per line (the last line's newline is not part of it).
# The old text must occur exactly once in SOURCE (overlapping matches
# counted): then SOURCE with it replaced is written to OUT and the exit
# status is 0.  Otherwise nothing is written, the number of occurrences
# is printed and the exit status is 3: the mutant is stale, found by its
# text and no longer matching the source.

function slurp(path,    line, text, n) {
  text = ""
  n = 0
  while ((getline line < path) > 0) {
    text = (n++ ? text "\n" : "") line
  }
  close(path)
  return text
}

BEGIN {
  old = slurp(oldfile)
  new = slurp(newfile)
  if (old == "") { print "0"; exit 3 }
}

{ source = source $0 "\n" }

END {
  if (old == "") exit 3
  count = 0
  rest = source
  while ((at = index(rest, old)) > 0) {
    count++
    rest = substr(rest, at + 1)
  }
  if (count != 1) { print count; exit 3 }
  at = index(source, old)
  printf "%s%s%s", substr(source, 1, at - 1), new, \
    substr(source, at + length(old)) > out
  close(out)
}
