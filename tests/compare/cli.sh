#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/compare/cli.sh: dumper-compare's command line, its results file
# and the baseline comparison, without measuring anything.
#
# tests/compare/results.json is a results file written by hand; the
# table the tool prints from it is tests/compare/expected/table.txt,
# column for column.  Bad arguments, missing or wrong build
# directories, malformed files and unwritable outputs each give their
# own exit status and a message naming the problem.

. "$SRCDIR/tests/e2e/lib.sh"

TOOL=$BUILDDIR/tools/dumper-compare
RESULTS=$SRCDIR/tests/compare/results.json

# expect NAME STATUS PATTERN COMMAND...: COMMAND exits STATUS and its
# output (stdout and stderr) matches the grep pattern PATTERN.
expect () {
  _name=$1 _want=$2 _pattern=$3
  shift 3
  begin "$_name"
  "$@" > "$T/out" 2>&1
  _st=$?
  if [ "$_st" -eq "$_want" ] && grep -q -- "$_pattern" "$T/out"; then
    pass
  else
    sed 's/^/    | /' "$T/out" | tail -15
    fail "expected status $_want and \`$_pattern', got status $_st"
  fi
}

expect "--help" 0 '^Usage: dumper-compare --none DIR' "$TOOL" --help
expect "--version" 0 '^dumper-compare (dumper) [0-9]' "$TOOL" --version
expect "--print-host prints the reference host's description" 0 \
  '^pdump-start   {pdumper}/host/dlisp --dump-file={artifact}$' "$TOOL" --print-host
expect "no arguments: usage error naming --none" 64 'give --none DIR' "$TOOL"
expect "only --none: nothing to compare" 64 'give --unexec DIR, --pdumper DIR' \
  "$TOOL" --none "$T"
expect "an unknown option" 64 "unknown option \`--frobnicate'" \
  "$TOOL" --none "$T" --pdumper "$T" --frobnicate
expect "--runs 0" 64 '--runs needs a whole number from 1 to 1000' \
  "$TOOL" --none "$T" --pdumper "$T" --runs 0
expect "--scale that is not a number" 64 "not \`x'" \
  "$TOOL" --none "$T" --pdumper "$T" --scale 1,x
expect "--scale given twice" 64 'scale 4 given twice' \
  "$TOOL" --none "$T" --pdumper "$T" --scale 4 --scale 1,4
expect "--threshold that is not a percentage" 64 '--threshold needs a percentage' \
  "$TOOL" --load "$RESULTS" --threshold ten
expect "--load with a build directory" 64 'goes with no build directory' \
  "$TOOL" --load "$RESULTS" --none "$T"
expect "a build directory that does not exist" 66 "--none $T/nope: no such directory" \
  "$TOOL" --none "$T/nope" --pdumper "$T"

mkdir -p "$T/empty" "$T/wrong"
printf 'srcdir = /src\nBACKEND = pdumper\n' > "$T/wrong/Makefile"
expect "a directory without the host" 66 'not found (build it: make -C' \
  "$TOOL" --none "$T/empty" --pdumper "$T/empty"
expect "a build of another mode" 64 'that build is configured --with-dumper=pdumper, not none' \
  "$TOOL" --none "$T/wrong" --pdumper "$T/empty"

printf 'name bad\ncold /bin/true {bogus}\n' > "$T/bad.host"
expect "a host description with an unknown placeholder" 65 'bad.host:2: unknown {placeholder}' \
  "$TOOL" --host "$T/bad.host"
expect "a missing host description" 66 'nope.host' "$TOOL" --host "$T/nope.host"

begin "the table from a results file is exactly as expected"
if "$TOOL" --load "$RESULTS" > "$T/table" 2>&1 \
   && cmp -s "$T/table" "$SRCDIR/tests/compare/expected/table.txt"
then pass
else diff "$SRCDIR/tests/compare/expected/table.txt" "$T/table" | head -20 | sed 's/^/    | /'
  fail "the table differs"; fi

begin "--load then --json writes the same bytes"
if "$TOOL" --load "$RESULTS" --json "$T/again.json" > /dev/null \
   && cmp -s "$RESULTS" "$T/again.json"
then pass
else fail "`cmp "$RESULTS" "$T/again.json"`"; fi

expect "a missing results file" 66 'cannot read' "$TOOL" --load "$T/none.json"
echo '{"tool": "dumper-compare", "format": 1,' > "$T/cut.json"
expect "a truncated results file: where it breaks" 65 'not valid JSON: line 2, column 1' \
  "$TOOL" --load "$T/cut.json"
echo '{"tool": "something-else"}' > "$T/other.json"
expect "JSON that is not a results file" 65 'not a dumper-compare results file' \
  "$TOOL" --load "$T/other.json"
expect "a JSON output that cannot be written" 73 'cannot write' \
  "$TOOL" --load "$RESULTS" --json "$T/no/such/dir/r.json"
expect "--plot without gnuplot" 69 'install the Debian package gnuplot-nox' \
  env GNUPLOT="$T/no-gnuplot" "$TOOL" --load "$RESULTS" --plot "$T/c.png"

expect "a baseline equal to the results: no regression" 0 \
  '[0-9][0-9]* figures compared: 0 worse, 0 better' \
  "$TOOL" --load "$RESULTS" --baseline "$RESULTS"
# The baseline: pdump started in 3.5 ms at scale 1 (now 4.000: +14.3%),
# and its image was 8000000 bytes (now 7670591: smaller, not worse).
sed -e '/"pdump": {$/,/^        }/s/"start_ms": {"median": 4.000/"start_ms": {"median": 3.500/' \
    -e 's/"artifact_bytes": {"median": 7670591/"artifact_bytes": {"median": 8000000/' \
    "$RESULTS" > "$T/base.json"
expect "a figure 14% worse than the baseline: status 3, named" 3 \
  'WORSE  scale 1 pdump  start_ms           3.500 -> 4.000 (+14.3%)' \
  "$TOOL" --load "$RESULTS" --baseline "$T/base.json"
begin "only that figure is flagged"
if [ "`grep -c WORSE "$T/out"`" -eq 1 ] && grep -q '1 worse, 0 better' "$T/out"
then pass
else fail "`grep -c WORSE "$T/out"` flagged"; fi
expect "the same under --threshold 15: no regression" 0 '0 worse, 0 better by more than 15%' \
  "$TOOL" --load "$RESULTS" --baseline "$T/base.json" --threshold 15
expect "a malformed baseline is refused before any measuring" 65 'cut.json: not valid JSON' \
  "$TOOL" --none "$T/nope" --pdumper "$T/nope" --baseline "$T/cut.json"

finish
