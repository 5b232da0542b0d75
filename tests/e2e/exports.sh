#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e/exports.sh: libdumper.so exports the public API and nothing
# else.  The public API is every global symbol of the library whose name
# appears in the installed headers (include/dumper/*.h); the exported
# list (nm -D --defined-only) must be exactly that: no internal
# bridge_*, pdump_*, unexec_* or common_* name, and no public name
# missing (a new public name that is not dumper_* goes in libdumper.map).
# And a release library holds no test hook.

. "$SRCDIR/tests/e2e/lib.sh"

SO=$BUILDDIR/libdumper.so
NM=${NM:-nm}

# Words of the public headers, the library's global symbols, the exports.
cat "$SRCDIR"/include/dumper/*.h "$BUILDDIR"/include/dumper/backend.h \
  | tr -c 'A-Za-z0-9_' '\n' | grep -v '^$' | sort -u > "$T/words"
"$NM" -g --defined-only "$BUILDDIR/libdumper.a" 2>/dev/null \
  | awk 'NF == 3 { print $3 }' | sort -u > "$T/globals"
comm -12 "$T/words" "$T/globals" > "$T/expected"
"$NM" -D --defined-only "$SO" | awk 'NF == 3 && $2 != "A" { print $3 }' \
  | sed 's/@.*//' | sort -u > "$T/exported"

begin "libdumper.so exports no internal symbol"
extra=`comm -23 "$T/exported" "$T/expected" | tr '\n' ' '`
if [ -z "$extra" ]; then pass
else fail "exported but not in the public headers: $extra"; fi

begin "libdumper.so exports every public function and variable"
missing=`comm -13 "$T/exported" "$T/expected" | tr '\n' ' '`
if [ -z "$missing" ]; then pass
else fail "in the public headers but not exported (add them to libdumper.map): $missing"; fi

begin "the public API is not empty"
n=`wc -l < "$T/exported"`
if [ "$n" -gt 20 ]; then pass; else fail "only $n symbols exported"; fi

# The test suite's fault injection (DUMPER_TEST_* variables) is compiled
# in only with ./configure --enable-test-hooks (issue 34): a release
# library reads no such variable.  The other way round shows the probe
# finds them where they are (bridge/options.c reads them, in every
# back end).
hooks=`cat "$SO" "$BUILDDIR/libdumper.a" | grep -a -c 'DUMPER_TEST_'`
if has_test_hooks; then
  begin "a library built with --enable-test-hooks holds them"
  if [ "$hooks" -gt 0 ]; then pass
  else fail "no DUMPER_TEST_ string in libdumper.so or libdumper.a"; fi
else
  begin "a release library has no test hook (no DUMPER_TEST_ string)"
  if [ "$hooks" -eq 0 ]; then pass
  else fail "$hooks lines of libdumper.so and libdumper.a name DUMPER_TEST_"; fi
fi

# Every setting is resolved in one place (doc/environment.md): the
# library's only reader of the environment is bridge/options.c.
begin "only options.o reads the environment"
readers=`"$NM" -u "$BUILDDIR/libdumper.a" 2>/dev/null \
  | awk '/^[^ ]+\.o:$/ { o = $1 } $NF ~ /^(secure_)?getenv(@.*)?$/ { print o }' \
  | sort -u | tr '\n' ' '`
if [ "$readers" = "options.o: " ]; then pass
else fail "objects calling getenv: ${readers:-none}"; fi

# One back-end interface (bridge/backend.h): the shared sequences call
# the back end only through bridge_backend, never pdump_* or unexec_*
# directly (pdump_range_ is the public header's, read by the inline
# pdump_object_p that hosts use too), and the back end's glue never
# calls them back.
begin "the shared bridge calls the back end only through bridge_backend"
direct=`"$NM" -u "$BUILDDIR/libdumper.a" 2>/dev/null \
  | awk '/^[^ ]+\.o:$/ { o = $1 }
         (o == "startup.o:" || o == "dump.o:" || o == "options.o:" \
          || o == "refcheck.o:") && $NF ~ /^(pdump|unexec)_/ \
         && $NF != "pdump_range_" \
         { print o $NF }' | tr '\n' ' '`
glue_up=`"$NM" -u "$BUILDDIR/libdumper.a" 2>/dev/null \
  | awk '/^[^ ]+\.o:$/ { o = $1 }
         o ~ /^backend-/ && $NF ~ /^(dumper_startup|dumper_dump)$/ { print o $NF }' \
  | tr '\n' ' '`
uses=`"$NM" -u "$BUILDDIR/libdumper.a" 2>/dev/null \
  | awk '/^[^ ]+\.o:$/ { o = $1 } $NF == "bridge_backend" { print o }' | sort -u | tr '\n' ' '`
if [ -z "$direct$glue_up" ] && [ -n "$uses" ]; then pass
else fail "direct calls: ${direct:-none}; glue calling up: ${glue_up:-none}; users of bridge_backend: ${uses:-none}"; fi

finish
