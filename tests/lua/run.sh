#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/lua/run.sh: the Lua port (ports/lua, doc/lua.md) against
# Debian's lua5.4.
#
# - a cold start of dumper-lua is lua5.4: the same output and exit
#   status for a script, -e, -v, a Lua error, a bad option;
# - state.lua's state, built by the init of a dump, checked after a
#   start from it: the same lines as lua5.4 running it in one process;
#   pdumper: every base mode, verification none and structure, lz4 and
#   zstd images (--compress); unexec:
#   the dumped executable; dumper-inspect --check --deep (the structural
#   pass, by dumper-lua's own loader) accepts the image;
# - more.lua's state (hooks, to-be-closed, userdata keys, iterators,
#   binary chunks, varargs) restored likewise;
# - the state digest (digest.lua) of lua5.4, a cold dumper-lua and a
#   restored one agree;
# - a start from an image can dump again;
# - per start: math.random reseeded (two starts differ) unless the init
#   seeded it (then lua5.4's sequence for that seed); package.path from
#   this start's environment; io.stderr is this process's;
# - two dumps of one init (without address-keyed tables) are the same
#   bytes;
# - the refusals: an open file, a C library loaded with dlopen, a
#   pending string.gmatch iterator, a failing init: a message naming
#   the thing, a distinct status, nothing written; a closed file is
#   fine.
# Skipped when dumper-lua is not built (`make lua') or lua5.4 is not
# installed (scripts/deps installs it).

. "$SRCDIR/tests/e2e/lib.sh"

LUA=$BUILDDIR/ports/lua/dumper-lua
HERE=$SRCDIR/tests/lua
if [ ! -x "$LUA" ] || ! command -v lua5.4 > /dev/null 2>&1; then
  begin "lua port"
  skip "needs ports/lua/dumper-lua (make lua) and lua5.4"
  finish
fi
cd "$T" || exit 1

# same NAME ARGS...: dumper-lua ARGS and lua5.4 ARGS print the same
# (the program name in messages aside) and exit alike.
same () {
  _name=$1
  shift
  begin "cold start is lua5.4: $_name"
  lua5.4 "$@" > stock.out 2>&1 < /dev/null
  _s1=$?
  "$LUA" "$@" > port.out 2>&1 < /dev/null
  _s2=$?
  sed "s|$LUA|lua5.4|g" port.out > port.norm
  if [ "$_s1" = "$_s2" ] && cmp -s stock.out port.norm; then
    pass
  else
    diff stock.out port.norm | sed 's/^/    | /' | head -20
    fail "status $_s1 (lua5.4) and $_s2 (dumper-lua)"
  fi
}

same "script" "$HERE/state.lua"
same "-e" -e 'print (1 + 1, _VERSION, #arg)' a b
same "-v" -v
same "Lua error" -e 'error ("boom")'
same "bad option" -z
same "script arguments" -e 'print (arg[0], arg[1], ...)' - x < /dev/null

lua5.4 "$HERE/state.lua" > want.out 2>&1

# restored NAME ARGS...: a start (ARGS) checking state.lua's state
# prints what lua5.4 printed.
restored () {
  _name=$1
  shift
  begin "$_name"
  "$@" -e 'check ()' > got.out 2>&1
  _st=$?
  if [ "$_st" = 0 ] && cmp -s want.out got.out; then
    pass
  else
    diff want.out got.out | sed 's/^/    | /' | head -20
    fail "status $_st"
  fi
}

case $BACKEND in
  pdumper)
    begin "dump of state.lua"
    if LUA_STATE_DUMP=1 "$LUA" --dump=state.pdmp "$HERE/state.lua" > dump.out 2>&1 \
       && [ -s state.pdmp ]; then pass; else sed 's/^/    | /' dump.out; fail "no image"; fi
    for base in random fixed boot; do
      for verify in none structure; do
        restored "state restored, base $base, verify $verify" \
          env DUMPER_PDUMP_BASE=$base DUMPER_PDUMP_VERIFY=$verify \
          XDG_RUNTIME_DIR="$T" "$LUA" --image=state.pdmp
      done
    done
    for codec in lz4 zstd; do
      if has_codec $codec; then
        LUA_STATE_DUMP=1 "$LUA" --compress=$codec --dump=state-$codec.pdmp \
          "$HERE/state.lua" > /dev/null 2>&1
        restored "state restored from a $codec-compressed image" \
          "$LUA" --image=state-$codec.pdmp
      fi
    done
    START="$LUA --image=state.pdmp"
    if [ -x "$BUILDDIR/tools/dumper-inspect" ]; then
      check "dumper-inspect --check --deep accepts the image" \
        "$BUILDDIR/tools/dumper-inspect" --check --deep --exe "$LUA" state.pdmp
    fi
    begin "a start from an image dumps again"
    if "$LUA" --image=state.pdmp --dump=again.pdmp -e 'again = true' > again.out 2>&1 \
       && [ "`"$LUA" --image=again.pdmp -e 'print (again, inc ())' | head -1`" = "true	3" ]; then
      pass
    else
      sed 's/^/    | /' again.out; fail "re-dump"
    fi
    ;;
  unexec)
    begin "dump of state.lua"
    if LUA_STATE_DUMP=1 "$LUA" --dump=lua-state "$HERE/state.lua" > dump.out 2>&1 \
       && [ -x lua-state ]; then pass; else sed 's/^/    | /' dump.out; fail "no executable"; fi
    restored "state restored (unexec)" ./lua-state
    START=./lua-state
    ;;
esac

# more.lua's state: a debug hook, a pending to-be-closed variable in a
# suspended coroutine, a userdata key, a stored utf8.codes iterator, a
# binary chunk, varargs in a suspended coroutine, a sparse table.
lua5.4 "$HERE/more.lua" > want-more.out 2>&1
begin "more.lua's state restored"
if [ $BACKEND = pdumper ]; then
  LUA_STATE_DUMP=1 "$LUA" --dump=more.pdmp "$HERE/more.lua" > more-dump.out 2>&1
  DUMPER_PDUMP_VERIFY=structure "$LUA" --image=more.pdmp -e 'check ()' > more.out 2>&1
else
  LUA_STATE_DUMP=1 "$LUA" --dump=lua-more "$HERE/more.lua" > more-dump.out 2>&1
  ./lua-more -e 'check ()' > more.out 2>&1
fi
if [ -s want-more.out ] && cmp -s want-more.out more.out; then pass
else sed 's/^/    | /' more-dump.out; diff want-more.out more.out | sed 's/^/    | /'; fail "differs"; fi

# A small init for the per-start cases and the reproducibility.
SMALL="x = { 1, 2, 'three', f = function () return 4 end }"
if [ $BACKEND = pdumper ]; then
  "$LUA" --dump=small1 -e "$SMALL" && "$LUA" --dump=small2 -e "$SMALL" \
    && "$LUA" --dump=seeded -e 'math.randomseed (7)'
  SMALL_START="$LUA --image=small1"
  SEEDED_START="$LUA --image=seeded"
else
  "$LUA" --dump=small1 -e "$SMALL" && "$LUA" --dump=small2 -e "$SMALL" \
    && "$LUA" --dump=seeded -e 'math.randomseed (7)'
  SMALL_START=./small1
  SEEDED_START=./seeded
fi > small.out 2>&1

begin "two dumps of one init are the same bytes"
if [ -s small1 ] && cmp small1 small2 > cmp.out 2>&1; then pass
else sed 's/^/    | /' small.out cmp.out; fail "they differ"; fi

begin "per start: math.random reseeded at each start"
r1=`DUMPER_PDUMP_BASE=fixed $SMALL_START -e 'print (math.random (1 << 40))'`
r2=`DUMPER_PDUMP_BASE=fixed $SMALL_START -e 'print (math.random (1 << 40))'`
if [ -n "$r1" ] && [ "$r1" != "$r2" ]; then pass; else fail "$r1 and $r2"; fi

begin "per start: an init's math.randomseed (N) is kept"
want=`lua5.4 -e 'math.randomseed (7)' -e 'print (math.random (1000), math.random (1000))'`
got=`$SEEDED_START -e 'print (math.random (1000), math.random (1000))'`
if [ -n "$want" ] && [ "$want" = "$got" ]; then pass; else fail "want $want, got $got"; fi

begin "per start: package.path from the environment, -E"
p1=`LUA_PATH='/from/env/?.lua' $SMALL_START -e 'print (package.path)'`
p2=`LUA_PATH='/from/env/?.lua' $SMALL_START -E -e 'print (package.path)'`
p3=`LUA_PATH='/from/env/?.lua' lua5.4 -E -e 'print (package.path)'`
if [ "$p1" = "/from/env/?.lua" ] && [ "$p2" = "$p3" ]; then pass
else fail "got $p1 / $p2 (want $p3)"; fi

begin "per start: io.stderr and io.stdout are this process's"
$SMALL_START -e 'io.stderr:write ("to stderr\n") io.stdout:write ("to stdout\n")' \
  > o.out 2> e.out
if [ "`cat o.out`" = "to stdout" ] && [ "`cat e.out`" = "to stderr" ]; then pass
else fail "stdout `cat o.out`, stderr `cat e.out`"; fi

begin "state digest: lua5.4, cold, restored"
d_stock=`LUA_STATE_DIGEST="$HERE/digest.lua" lua5.4 "$HERE/state.lua" | head -1`
d_cold=`LUA_STATE_DIGEST="$HERE/digest.lua" "$LUA" "$HERE/state.lua" | head -1`
d_rest=`$START -e "print (dofile ('$HERE/digest.lua') ())" | head -1`
if [ -n "$d_stock" ] && [ "$d_stock" = "$d_cold" ] && [ "$d_cold" = "$d_rest" ]; then
  pass
else
  fail "lua5.4 $d_stock, cold $d_cold, restored $d_rest"
fi

# refused NAME STATUS WORDS SCRIPT: a dump of SCRIPT exits STATUS,
# writes nothing and says WORDS.
refused () {
  begin "refused: $1"
  rm -f out.img
  LUA_TEST_FILE=$T/file.txt "$LUA" --dump=out.img "$HERE/$4" > refuse.out 2>&1
  _st=$?
  if [ "$_st" = "$2" ] && [ ! -e out.img ] && grep -q "$3" refuse.out; then
    pass
  else
    sed 's/^/    | /' refuse.out
    fail "status $_st (want $2), `ls out.img 2>/dev/null`"
  fi
}
refused "an open file" 2 "an open file other than io.stdin" refuse-file.lua
refused "a C library loaded with dlopen" 2 "C library libm.so.6 was loaded with dlopen" refuse-dlopen.lua
refused "a pending string.gmatch" 2 "pending string.gmatch iterator" refuse-gmatch.lua
begin "refused: a failing init"
rm -f out.img
"$LUA" --dump=out.img -e 'error ("init fails")' > refuse.out 2>&1
_st=$?
if [ "$_st" = 1 ] && [ ! -e out.img ] && grep -q "init fails" refuse.out \
   && grep -q "nothing written" refuse.out; then pass; else sed 's/^/    | /' refuse.out; fail "status $_st"; fi

begin "a file closed during the init is fine"
rm -f out.img
if LUA_TEST_FILE=$T/file.txt "$LUA" --dump=out.img "$HERE/ok-closed-file.lua" > ok.out 2>&1 \
   && [ -s out.img ]; then pass; else sed 's/^/    | /' ok.out; fail "no dump"; fi

finish
