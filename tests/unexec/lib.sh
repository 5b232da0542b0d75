# SPDX-License-Identifier: MIT
# tests/unexec/lib.sh: helpers the unexec end-to-end scripts share
# (e2e.sh, compat.sh), sourced after tests/e2e/lib.sh.

# only_in_unexec_builds NAME: outside unexec builds, report NAME
# skipped and end the script.
only_in_unexec_builds () {
  if [ "$BACKEND" != unexec ]; then
    begin "$1"
    skip "needs a --with-dumper=unexec build (this one is $BACKEND)"
    finish
  fi
}

# No temporary or partial file of a dump in $T.
no_leftovers () {
  _left=`ls -a "$T" | grep -e '\.unexec-' -e "^$1\$"`
  [ -z "$_left" ] || { echo "left behind: $_left"; return 1; }
}

# expect_error NAME STATUS TEXT COMMAND...: COMMAND exits with STATUS,
# its stderr names TEXT, and leaves no file ($T/target, or a temporary).
expect_error () {
  _name=$1 _want=$2 _text=$3 _target=${TARGET_NAME:-target}
  shift 3
  begin "$_name"
  "$@" > "$T/out" 2> "$T/err"
  _st=$?
  if [ "$_st" -ne "$_want" ]; then
    sed 's/^/    | /' "$T/err"
    fail "exit status $_st, want $_want: $*"
  elif ! grep -q -e "$_text" "$T/err"; then
    sed 's/^/    | /' "$T/err"
    fail "the message does not mention '$_text'"
  elif ! no_leftovers "$_target"; then
    fail "a file was left behind"
  else
    pass
  fi
}

# readelf_is_clean FILE: a case that passes when `readelf -a' reports
# no problem in FILE.
readelf_is_clean () {
  begin readelf_is_clean
  if readelf -a -W "$1" > /dev/null 2> "$T/readelf.err" \
     && [ ! -s "$T/readelf.err" ]; then
    pass
  else
    sed 's/^/    | /' "$T/readelf.err" | head -10
    fail "readelf -a reported problems"
  fi
}
