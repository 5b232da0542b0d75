#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/compare/base-modes.sh: dumper-compare when a row per base mode
# or the memory section cannot be what it says (issue 15).
#
# The host is dlisp behind a wrapper that changes the base mode the tool
# asks for: to a value the library refuses (as a build without that base
# mode does), or to another base mode (as a host that ignores the
# variable does).  A refused base mode leaves its row unmeasured, marked
# in the tables, the JSON and on stderr, and the tool exits 4 after
# measuring every other row; a base mode not taken is measured but
# marked NO.  A host whose idle start ends instead of waiting fails the
# memory section with status 4 and says why.  --base-mode random has no
# base-mode rows; --procs 0 no memory section.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/compare/builds.sh"

check_builds

# The wrapper: DUMPER_PDUMP_BASE=fixed becomes $WRAP_FIXED; it notes the
# runtime directory each start got in $T/xdg.seen, and its base mode and
# COLD verification variables in $T/env.seen.
cat > "$T/wrap" <<WRAP
#!/bin/sh
echo "\$XDG_RUNTIME_DIR" >> "$T/xdg.seen"
echo "base=\$DUMPER_PDUMP_BASE cold=\$DUMPER_PDUMP_COLD" >> "$T/env.seen"
case \$DUMPER_PDUMP_BASE in
  fixed) DUMPER_PDUMP_BASE=\$WRAP_FIXED; export DUMPER_PDUMP_BASE ;;
esac
exec "$PDUMPER_DIR/host/dlisp" "\$@"
WRAP
chmod +x "$T/wrap"
"$TOOL" --print-host | sed -e "s|^pdump-start .*|pdump-start $T/wrap --dump-file={artifact}|" \
  -e '/^unexec/d; /^embed/d; /^pdump-floor/d' > "$T/wrap.host"

# run NAME ARGS...: the tool on the wrapped host, scale 1, 2 runs, 2
# processes (or $PROCS); output in $T/NAME.out and $T/NAME.err, status in $st.
run () {
  _name=$1
  shift
  "$TOOL" --host "$T/wrap.host" --none "$NONE_DIR" --pdumper "$PDUMPER_DIR" --scale 1 \
    --runs 2 --procs ${PROCS:-2} --quiet --json "$T/$_name.json" "$@" \
    > "$T/$_name.out" 2> "$T/$_name.err"
  st=$?
}

show () {
  sed 's/^/    | /' "$T/$1.out" "$T/$1.err" | tail -30
}

# expect_lines NAME STATUS EXT:PATTERN...: the run NAME exited STATUS and
# each $T/NAME.EXT has a line matching its PATTERN (grep -E).
expect_lines () {
  _name=$1 _want=$2
  shift 2
  _bad=
  [ "$st" -eq "$_want" ] || _bad="status $st, not $_want;"
  for _p in "$@"; do
    grep -qE -- "${_p#*:}" "$T/$_name.${_p%%:*}" \
      || _bad="$_bad no \`${_p#*:}' in $_name.${_p%%:*};"
  done
  if [ -z "$_bad" ]; then pass; else show "$_name"; fail "$_bad"; fi
}

begin "a refused base mode: exit 4, its row marked refused with the host's message"
WRAP_FIXED=bogus run refused
expect_lines refused 4 \
  'out:^ *pdump-fixed: NOT MEASURED: the host refused base mode fixed \(exit status 64: .*DUMPER_PDUMP_BASE=bogus' \
  'out:^    1  pdump-fixed +fixed +refused by the host: exit status 64' \
  'err:pdump-fixed: the host refused DUMPER_PDUMP_BASE=fixed' \
  'err:pdump-fixed was not measured: the host refused base mode fixed' \
  'json:"pdump-fixed": \{"asked": "fixed", .*"refused": "exit status 64: '

begin "... and every other row is measured, the refused one has no figure"
sed -n '/^memory per process/,$p' "$T/refused.out" > "$T/refused.mem"
if grep -qE '^    1  pdump   +[0-9]' "$T/refused.out" \
   && grep -qE '^    1  pdump-fixed +refused by the host \(see below\)$' "$T/refused.out" \
   && grep -qE '^    1  pdump +random +random +yes +[0-9]' "$T/refused.out" \
   && grep -qE '^    1  pdump  +[0-9]+ ' "$T/refused.mem" \
   && grep -qE '^    1  cold  +[0-9]+ ' "$T/refused.mem" \
   && ! grep -q 'pdump-fixed' "$T/refused.mem" \
   && [ "`sed -n '/"pdump-fixed": {$/,/^        }/p' "$T/refused.json" | grep -c '"n": '`" -eq 0 ] \
   && [ "`sed -n '/"pdump": {$/,/^        }/p' "$T/refused.json" | grep -c '"n": '`" -gt 10 ]
then pass
else show refused; fail "the other rows"; fi

begin "... and the JSON of it reads back to the same bytes and the same tables"
if "$TOOL" --load "$T/refused.json" --json "$T/again.json" > "$T/again.out" \
   && cmp -s "$T/refused.json" "$T/again.json" && cmp -s "$T/refused.out" "$T/again.out"
then pass
else diff "$T/refused.out" "$T/again.out" | head; fail "differs"; fi

begin "a base mode not taken: measured, marked NO, with a warning"
WRAP_FIXED=random run other
expect_lines other 0 \
  'out:^ *pdump-fixed: NOT IN BASE MODE fixed: the host reports base mode random' \
  'out:^    1  pdump-fixed +fixed +random +NO +[0-9]' \
  'err:pdump-fixed was measured, but not in base mode fixed' \
  'json:"pdump-fixed": \{"asked": "fixed", "reported": "random"'

begin "every start had a private runtime directory, gone after the run"
dirs=`sort -u "$T/xdg.seen" | wc -l`
# One per run of the tool so far (refused, other), each removed with the
# temporary work directory.
case `sort -u "$T/xdg.seen" | head -1` in
  "${TMPDIR:-/tmp}"/dumper-compare.*/runtime.*) where=ok ;;
  *) where=`head -1 "$T/xdg.seen"` ;;
esac
left=`sort -u "$T/xdg.seen" | while read d; do [ -e "$d" ] && echo "$d"; done`
if [ "$dirs" -eq 2 ] && [ "$where" = ok ] && [ -z "$left" ]; then pass
else fail "$dirs directories, the first \`$where', left behind: $left"; fi

# fixed-cb (issue 15): base mode fixed with COLD verified once per boot,
# the second variable named by the host's cold-env.  Under sanitizers the
# image's preferred range lies in ASan's shadow memory, so a fixed start
# falls back and its row must say so (as compare.sh expects).
if [ "$ENABLE_SANITIZERS" = yes ]; then
  FIXED_ROW='fixed +fallback +NO'
  FIXED_JSON='"asked": "fixed", "reported": "fixed", "placement": "fallback"'
else
  FIXED_ROW='fixed +preferred +yes'
  FIXED_JSON='"asked": "fixed", "reported": "fixed"'
fi
begin "fixed-cb: its starts get DUMPER_PDUMP_BASE=fixed and DUMPER_PDUMP_COLD=boot, no other row's"
: > "$T/env.seen"
WRAP_FIXED=fixed run cb --base-mode fixed-cb
cb_starts=`grep -c '^base=fixed cold=boot$' "$T/env.seen"`
others=`grep -v '^base=fixed cold=boot$' "$T/env.seen" | grep -c 'cold=.'`
if [ $st -eq 0 ] && [ "$cb_starts" -gt 2 ] && [ "$others" -eq 0 ] \
   && grep -qE "^    1  pdump-fixed-cb +$FIXED_ROW +[0-9]" "$T/cb.out" \
   && grep -qE '^    1  pdump-fixed-cb +[0-9]+ ' "$T/cb.out" \
   && grep -q "\"pdump-fixed-cb\": {$FIXED_JSON" "$T/cb.json" \
   && ! grep -qE 'pdump-(fixed|boot)[" ]' "$T/cb.out" "$T/cb.json"
then pass
else show cb; cat "$T/env.seen" | sort | uniq -c; fail "status $st, $cb_starts fixed-cb starts, $others others with a cold variable"; fi

begin "fixed-cb: the JSON of it reads back to the same tables"
if "$TOOL" --load "$T/cb.json" > "$T/cb-again.out" && cmp -s "$T/cb.out" "$T/cb-again.out"
then pass
else diff "$T/cb.out" "$T/cb-again.out" | head; fail "differs"; fi

begin "a host without cold-env: no fixed-cb row, the others as asked"
sed '/^cold-env/d' "$T/wrap.host" > "$T/nocold.host"
WRAP_FIXED=fixed "$TOOL" --host "$T/nocold.host" --none "$NONE_DIR" --pdumper "$PDUMPER_DIR" --scale 1 \
  --runs 1 --procs 0 --base-mode fixed,fixed-cb --quiet > "$T/nocold.out" 2> "$T/nocold.err"
st=$?
if [ $st -eq 0 ] && ! grep -q 'pdump-fixed-cb' "$T/nocold.out" \
   && grep -qE "^    1  pdump-fixed +$FIXED_ROW " "$T/nocold.out"
then pass
else show nocold; fail "status $st"; fi

begin "--base-mode fixed-b: not a base mode, the names listed (64)"
"$TOOL" --none "$NONE_DIR" --pdumper "$PDUMPER_DIR" --base-mode fixed-b > "$T/bad.out" 2> "$T/bad.err"
st=$?
if [ $st -eq 64 ] && grep -q "fixed-b' is not a base mode (random, fixed, fixed-cb, boot)" "$T/bad.err"
then pass
else cat "$T/bad.err"; fail "status $st"; fi

begin "--base-mode random: no base-mode row; --procs 0: no memory section"
WRAP_FIXED=bogus PROCS=0 run plain --base-mode random
if [ $st -eq 0 ] && ! grep -q 'pdump-fixed' "$T/plain.out" "$T/plain.json" \
   && grep -qE '^    1  pdump +random +random +yes ' "$T/plain.out" \
   && ! grep -q '^memory per process' "$T/plain.out" && ! grep -q mem_pss "$T/plain.json"
then pass
else show plain; fail "status $st"; fi

begin "an idle start that does not wait: the memory section fails with status 4"
sed 's/^idle .*/idle t\nidle-args --batch/' "$T/wrap.host" > "$T/nowait.host"
"$TOOL" --host "$T/nowait.host" --none "$NONE_DIR" --pdumper "$PDUMPER_DIR" --scale 1 \
  --runs 1 --procs 2 --base-mode random --quiet > "$T/nowait.out" 2> "$T/nowait.err"
st=$?
if [ $st -eq 4 ] \
   && grep -q 'the memory section of cold failed (process 1 ended before it answered the idle line (exit status 0))' "$T/nowait.err"
then pass
else show nowait; fail "status $st"; fi

finish
