#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/same-image.sh OLD_BUILD NEW_BUILD [SCALES]: do two builds' pdump
# writers produce the same image bytes from the same state?
#
# Images from two different executables always differ in the
# fingerprint and in executable-relative offsets, so one executable is
# used for both: the host objects of NEW_BUILD linked against
# libdumper.so, run once with OLD_BUILD's library and once with
# NEW_BUILD's (LD_LIBRARY_PATH).  A library without dumper_expect_objects
# (older than issue 17) gets a no-op one preloaded.  Each pair of images
# is compared with cmp; the exit status is the number of scales that
# differ.  Both builds must be pdumper builds of the same host sources.

old=${1:?usage: same-image.sh OLD_BUILD NEW_BUILD [SCALES]}
new=${2:?usage: same-image.sh OLD_BUILD NEW_BUILD [SCALES]}
scales=${3:-1 16}
old=`cd "$old" && pwd` && new=`cd "$new" && pwd` || exit 64
tmp=`mktemp -d "${TMPDIR:-/tmp}/same-image.XXXXXX"` || exit 71
trap 'rm -rf "$tmp"' EXIT INT TERM

cc=${CC:-cc}
objs=`cd "$new" && ls host/*.o | grep -v '^host/main\.o$' | tr '\n' ' '`
(cd "$new" && $cc -o "$tmp/dlisp-shared" host/main.o $objs -L. -ldumper \
   -lxxhash -lelf -lm) || exit 70
"$new/tools/dumper-fingerprint" -q "$tmp/dlisp-shared" || exit 70

preload=
if ! nm -D --defined-only "$old/libdumper.so" | grep -q ' dumper_expect_objects$'; then
  printf '#include <stddef.h>\nvoid dumper_expect_objects (size_t n);\nvoid dumper_expect_objects (size_t n) { (void) n; }\n' > "$tmp/shim.c"
  $cc -shared -fPIC -o "$tmp/shim.so" "$tmp/shim.c" || exit 70
  preload="$tmp/shim.so"
fi

differ=0
for scale in $scales; do
  LD_PRELOAD=$preload LD_LIBRARY_PATH="$old" "$tmp/dlisp-shared" \
    --loadup-scale "$scale" --temacs=pdump --output "$tmp/old-$scale.pdmp" || exit 70
  LD_LIBRARY_PATH="$new" "$tmp/dlisp-shared" \
    --loadup-scale "$scale" --temacs=pdump --output "$tmp/new-$scale.pdmp" || exit 70
  size=`wc -c < "$tmp/new-$scale.pdmp" | tr -d ' '`
  if cmp "$tmp/old-$scale.pdmp" "$tmp/new-$scale.pdmp"; then
    echo "scale $scale: identical ($size bytes)"
  else
    echo "scale $scale: DIFFERENT"
    differ=$((differ + 1))
  fi
done
exit $differ
