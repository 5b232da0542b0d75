# SPDX-License-Identifier: MIT
# tests/mutation/parse.awk: read the mutant catalogue (format in
# tests/mutation/README) into a directory the runner reads.
#
# Usage: awk -v dir=DIR -f parse.awk CATALOGUE
# Writes DIR/index, one line per mutant in catalogue order:
#   NUMBER <tab> ID <tab> MODE <tab> FILE
# and for each mutant DIR/ID.old, ID.new (one text line per line),
# ID.tests, ID.about and, for an equivalent mutant, ID.equivalent.
# A malformed catalogue (an unknown key, a missing field, a duplicate
# id, an unknown mode) is reported with its line number, exit status 2.

function fail(msg) {
  printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
  bad = 1
}

function field_of(line, key) {
  # "key: value" -> value; "key:" -> ""
  line = substr(line, length(key) + 2)
  if (substr(line, 1, 1) == " ") line = substr(line, 2)
  return line
}

function finish_record(    k) {
  if (!open) return
  open = 0
  if (!("id" in rec)) { fail("a mutant without an id (record from line " start ")"); return }
  id = rec["id"]
  for (k = 1; k <= nreq; k++)
    if (!(req[k] in rec) && !(req[k] == "old" && nold) && !(req[k] == "new" && hasnew))
      fail("mutant " id ": no " req[k] ":")
  if (rec["mode"] != "pdumper" && rec["mode"] != "unexec")
    fail("mutant " id ": mode must be pdumper or unexec, not '" rec["mode"] "'")
  if (id in seen) fail("mutant " id ": a second mutant with this id (first at line " seen[id] ")")
  seen[id] = start
  if (id !~ /^[A-Za-z0-9._-]+$/) fail("mutant " id ": an id is letters, digits, . _ -")
  if (nold == 0 || oldtext == "") fail("mutant " id ": empty old text")
  count++
  printf "%d\t%s\t%s\t%s\n", count, id, rec["mode"], rec["file"] > (dir "/index")
  printf "%s\n", oldtext > (dir "/" id ".old"); close(dir "/" id ".old")
  printf "%s", newtext > (dir "/" id ".new")
  if (hasnew && newtext != "") printf "\n" > (dir "/" id ".new")
  close(dir "/" id ".new")
  printf "%s\n", rec["tests"] > (dir "/" id ".tests"); close(dir "/" id ".tests")
  printf "%s\n", rec["about"] > (dir "/" id ".about"); close(dir "/" id ".about")
  if ("equivalent" in rec) {
    printf "%s\n", rec["equivalent"] > (dir "/" id ".equivalent")
    close(dir "/" id ".equivalent")
  }
}

BEGIN {
  nreq = split("id mode file tests about old new", req, " ")
  split("id mode file tests about equivalent", single, " ")
  for (k in single) issingle[single[k]] = 1
  printf "" > (dir "/index")
}

/^#/ { next }

/^[ \t]*$/ { finish_record(); next }

{
  if (!open) {
    open = 1; start = FNR
    delete rec
    oldtext = ""; newtext = ""; nold = 0; hasnew = 0
  }
  if (match($0, /^[a-z]+:/) == 0) { fail("not 'key: value': " $0); next }
  key = substr($0, 1, RLENGTH - 1)
  value = field_of($0, key)
  if (key == "old") {
    oldtext = (nold++ ? oldtext "\n" : "") value
  } else if (key == "new") {
    newtext = (hasnew++ ? newtext "\n" : "") value
  } else if (key in issingle) {
    if (key in rec) fail("a second " key ": in one mutant")
    rec[key] = value
  } else {
    fail("unknown key '" key "'")
  }
}

END {
  finish_record()
  close(dir "/index")
  if (bad) exit 2
}
