#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/pdump/bootchecks.sh: each check of the boot cache and the COLD
# record on its own (issue 36; pdump/bootcache.c).  boot.sh spoils a
# cache with chmod or chown, which also move its change time, so the
# stamp check refused those caches before the mode or owner check was
# asked; and its other image has another size.  Here the stamp is
# rewritten to fit after each change, the other image has this one's
# size, and a control (the same command leaving the cache as good as
# it was, the stamp rewritten alike) shows that the check under test is
# the one that refuses:
#
#   - a cache readable by others, or owned by another user, stamp
#     fitting: not used;
#   - another image's cache of the same size, stamp fitting: not used
#     (only the section checksums differ);
#   - a stamp, a base file or a COLD record (DUMPER_PDUMP_COLD=boot)
#     others may read or write: not believed;
#   - a stamp owned by another user (root only), mode 0600 and its text
#     fitting: not believed (read_private's owner check);
#   - a FIFO at the cache's path, stamp fitting: not used, start normal.

. "$SRCDIR/tests/e2e/lib.sh"

. "$SRCDIR/tests/pdump/bootlib.sh"

# The other image: the same loadup with one docstring of the same length
# changed (COLD's bytes and checksum differ, nothing else).
cp -R "$SRCDIR/host/lisp" "$T/lisp"
sed 's/"What the loadup built\."/"What the loadup BUILT."/' \
  "$SRCDIR/host/lisp/loadup.lisp" > "$T/lisp/loadup.lisp"
"$BARE" --temacs=pdump --lisp-dir "$T/lisp" --output "$T/b.pdmp" > "$T/dump.out" 2>&1 \
  || { cat "$T/dump.out"; exit 1; }

# A start that does not use the cache rewrites it, and the reason it
# gives is then that it wrote one: which check refused the cache is
# shown by a control.  refused NAME CONTROL CHANGE: after CONTROL (a
# shell command that moves the cache's change time and leaves it as
# good as it was) and a new stamp, the next start uses the cache; after
# CHANGE and a new stamp, it does not (it relocates and writes the cache
# again), and the start after that uses the new cache.  The stamp fits
# in both, so the check that refuses the cache is the one CHANGE is
# about.
refused () {
  begin "$1"
  ok=no
  if boot && placed boot-cache; then
    eval "$2"
    restamp
    if boot && placed boot-cache; then
      eval "$3"
      restamp
      boot && placed boot "written" && boot && placed boot-cache && ok=yes
    else
      echo "    the control ($2) made the cache unusable"
    fi
  fi
  verdict $ok "$1"
}

begin "a first start writes the cache; the next one uses it"
ok=no
boot && placed boot "written" && boot && placed boot-cache && ok=yes
cache=`ls "$DIR"/*.pdmp 2>/dev/null | head -1`
base=`stat "$T/out" pdump-base`
verdict $ok "first starts"

refused "a cache readable by others (0644), its stamp fitting: not used" \
  'chmod 600 "$cache"' 'chmod 644 "$cache"'

if [ "`id -u`" != 0 ]; then
  begin "a cache owned by another user, its stamp fitting: not used"
  skip "needs root to give the cache away"
else
  refused "a cache owned by another user, its stamp fitting: not used" \
    'chown "`id -u`" "$cache"' 'chown 65534 "$cache"'
fi

refused "a stamp readable by others (0644): not believed, the cache not used" \
  'chmod 600 "$cache.stamp"' 'chmod 644 "$cache.stamp"'

# The stamp owned by another user, mode 0600 and its text fitting (a
# chown moves the stamp's change time, not the cache's): read_private's
# owner check is the only one that can refuse it.
if [ "`id -u`" != 0 ]; then
  begin "a stamp owned by another user (0600), fitting: not believed, the cache not used"
  skip "needs root to give the stamp away"
else
  refused "a stamp owned by another user (0600), fitting: not believed, the cache not used" \
    'chown "`id -u`" "$cache.stamp"' 'chown 65534 "$cache.stamp"'
fi

# The other image's cache, at the same base and of the same size: only
# the section checksums tell it from this image's.
env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=boot "$DLISP" --dump-file="$T/b.pdmp" \
  --batch --eval t > /dev/null 2>&1
other=`ls "$DIR"/*.pdmp | grep -v -x -F "$cache" | head -1`
if [ -n "$other" ] && [ "`wc -c < "$other"`" -eq "`wc -c < "$cache"`" ]; then
  cp "$other" "$T/other-cache"
else
  echo "    no cache of b.pdmp of the same size as a.pdmp's: '$other'"
  : > "$T/other-cache"
fi
refused "another image's cache of the same size, its stamp fitting: not used" \
  'cp "$cache" "$T/own-cache" && cat "$T/own-cache" > "$cache"' \
  'cat "$T/other-cache" > "$cache"'

# A FIFO at the cache's path, mode 0600, its stamp forged to fit: not
# used (the regular-file check), the start normal, the cache written
# over it.  (Without that check the header read refuses it as damaged
# and the start is the same: the mutant boot-cache-regular is
# equivalent, tests/mutation/catalogue; this holds the outcome.)
begin "a FIFO at the cache's path, its stamp fitting: not used, the start normal"
ok=no
if boot && placed boot-cache; then
  rm -f "$cache" && mkfifo -m 600 "$cache" && restamp
  boot && placed boot "written" && [ -f "$cache" ] \
    && boot && placed boot-cache && ok=yes
fi
verdict $ok "FIFO as the cache"

begin "a base file readable by others (0644): not believed, a new base"
chmod 644 "$DIR/base"
ok=no
boot && placed boot && [ "`stat "$T/out" pdump-base`" != "$base" ] \
  && ls -l "$DIR/base" | grep -q '^-rw-------' && ok=yes
verdict $ok "0644 base file"

# COLD verification boot (cold.sh): the record of a checked image file
# lets later starts skip COLD's checksum, unless others could have
# written it.  Base mode random: a start from the boot cache (the
# default) reads no COLD of the file.
cold_start () {
  env XDG_RUNTIME_DIR="$RUN" DUMPER_PDUMP_BASE=random DUMPER_PDUMP_COLD=boot "$DLISP" \
    --dump-file="$T/a.pdmp" --heap-digest --load-stats > "$T/out" 2> "$T/err" \
    && [ "`head -1 "$T/out"`" = "$cold" ] \
    && stat "$T/out" pdump-cold-check | grep -q "^$1"
}
begin "a COLD record writable by others (0666): not believed, COLD checked"
ok=no
if cold_start "checksum (first this boot)" && cold_start "skipped"; then
  record=`ls "$DIR"/*.cold | head -1`
  chmod 666 "$record"
  cold_start "checksum (first this boot)" && ok=yes
fi
verdict $ok "0666 COLD record"

finish
