#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/migrate/meaning.sh: every certain rewrite keeps the meaning in
# the unexec and none builds (issue 18; the definition of `certain' in
# doc/migration.md).
#
# The fixtures (tests/migrate/fixtures and tests/migrate/classes, the C
# files) are fixed together with `dumper-migrate --fix'.  Then, file by
# file, against the legacy file:
#
#   unexec  both preprocess (cc -E, CANNOT_DUMP undefined, the <...>
#           includes left out, <dumper/gflags.h> among them, so the
#           flags stay names) to the same tokens
#           once the flag spellings are identified: legacy
#           `initialized' = `!will_dump', might_dump and dumping =
#           will_dump = will_dump_with_unexec, `initialized = 1' =
#           dumper_mark_initialized (), a deleted legacy declaration,
#           `might_dump = E;' or `(void) flag;' = nothing, a dropped flag
#           parameter = its flag;
#   none    the legacy file and the fixed one against the real
#           <dumper/gflags.h> of a none build, both at -O2 and with
#           -DCANNOT_DUMP (the review items still test it),
#           reference the same functions (nm -u; the legacy flag
#           variables and libdumper's own names aside): what the
#           legacy build compiled out, the constant-false flags remove.
#
# Review sites are not applied, so the files differ only by certain
# rewrites, the include lines and comments (markers included).

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/migrate/common.sh"

: "${CC:=cc}"

if ! command -v python3 > /dev/null; then
  begin "certain rewrites keep the meaning"
  skip "python3 not installed"
  finish
fi

mkdir -p "$T/legacy" "$T/stub/dumper" "$T/none/dumper"
cp "$M"/fixtures/* "$M"/classes/* "$T/legacy/"
cp -R "$T/legacy" "$T/fixed"
(cd "$T/fixed" && "$MIGRATE" -q --fix --no-backup . > /dev/null)
: > "$T/stub/dumper/gflags.h"
: > "$T/stub/dumper/dumper.h"
printf '#define DUMPER_WITH_PDUMPER 0\n#define DUMPER_WITH_UNEXEC 0\n#define DUMPER_BACKEND "none"\n' \
  > "$T/none/dumper/backend.h"

cat > "$T/norm.py" <<'PY'
import re, sys

TOKEN = re.compile(r'[A-Za-z_]\w*|\d[\w.]*|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|'
                   r'->|\+\+|--|&&|\|\||[<>=!]=|\S')
KEYWORDS = {'if', 'while', 'for', 'switch', 'return', 'sizeof', 'else', 'do'}
FLAGS = {'initialized', 'dumping', 'might_dump', 'will_dump'}

def norm(text):
    t = TOKEN.findall(text)
    out = []
    i = 0
    while i < len(t):
        # A declaration of a legacy flag: deleted by the fix.
        j = i
        while j < len(t) and t[j] in ('extern', 'static'):
            j += 1
        if (j + 2 < len(t) and t[j] in ('bool', '_Bool', 'int')
                and t[j + 1] in ('initialized', 'might_dump') and t[j + 2] == ';'
                and (not out or out[-1] in (';', '{', '}'))):
            i = j + 3
            continue
        # might_dump = E; -> nothing (dumper_startup sets will_dump)
        if t[i] == 'might_dump' and t[i + 1:i + 2] == ['='] \
                and (not out or out[-1] in (';', '{', '}')):
            j = i
            while j < len(t) and t[j] != ';':
                j += 1
            i = j + 1
            continue
        # initialized = 1; -> dumper_mark_initialized ();
        if t[i] == 'initialized' and t[i + 1:i + 4] in (['=', '1', ';'], ['=', 'true', ';']):
            out += ['dumper_mark_initialized', '(', ')', ';']
            i += 4
            continue
        # (void) flag; -> nothing
        if t[i:i + 3] == ['(', 'void', ')'] and i + 4 < len(t) \
                and t[i + 3] in FLAGS and t[i + 4] == ';':
            i += 5
            continue
        # (int initialized) -> (void): a dropped flag parameter.
        if t[i] == '(' and i + 3 < len(t) and t[i + 1] in ('int', 'bool', '_Bool') \
                and t[i + 2] in ('initialized', 'dumping') and t[i + 3] == ')':
            out += ['(', 'void', ')']
            i += 4
            continue
        # f (flag) -> f (): its call.
        if (re.match(r'[A-Za-z_]\w*$', t[i]) and t[i] not in KEYWORDS
                and t[i + 1:i + 2] == ['('] and i + 3 < len(t)
                and t[i + 2] in FLAGS | {'will_dump_with_unexec'} and t[i + 3] == ')'):
            out += [t[i], '(', ')']
            i += 4
            continue
        out.append(t[i])
        i += 1
    # One spelling of the flags: will_dump = !initialized.
    spelled = []
    for tok in out:
        if tok in ('will_dump', 'will_dump_with_unexec', 'might_dump', 'dumping'):
            spelled += ['!', 'initialized']
        else:
            spelled.append(tok)
    final = []
    for tok in spelled:
        if tok == 'initialized' and final[-2:] == ['!', '!']:
            del final[-2:]
        final.append(tok)
    return final

# Arguments: DIR NAME...; compares DIR/NAME.a.i with DIR/NAME.b.i.
bad = []
for name in sys.argv[2:]:
    a = norm(open('%s/%s.a.i' % (sys.argv[1], name)).read())
    b = norm(open('%s/%s.b.i' % (sys.argv[1], name)).read())
    if a != b:
        k = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]),
                 min(len(a), len(b)))
        print('    %s legacy: %s' % (name, ' '.join(a[max(0, k - 12):k + 12])))
        print('    %s fixed:  %s' % (name, ' '.join(b[max(0, k - 12):k + 12])))
        bad.append(name)
print(' '.join(bad))
PY

begin "unexec build: the same preprocessed tokens, modulo the flag spelling"
bad=
names=
n=0
mkdir -p "$T/i"
for f in "$T/legacy/"*.c; do
  b=`basename "$f"`
  n=`expr $n + 1`
  # System headers are the same on both sides: leave them out, so only
  # the file and its own headers ("...") are compared, quickly.
  sed 's/^[ \t]*#[ \t]*include[ \t]*<.*//' "$f" > "$T/a.c"
  sed 's/^[ \t]*#[ \t]*include[ \t]*<.*//' "$T/fixed/$b" > "$T/b.c"
  $CC -std=gnu11 -E -P -I"$T/legacy" "$T/a.c" > "$T/i/$b.a.i" 2> "$T/cc.log" \
    && $CC -std=gnu11 -E -P -I"$T/fixed" "$T/b.c" > "$T/i/$b.b.i" 2>> "$T/cc.log" \
    || { sed 's/^/    | /' "$T/cc.log" | head -5; bad="$bad $b(cpp)"; continue; }
  names="$names $b"
done
python3 "$T/norm.py" "$T/i" $names > "$T/norm.out"
sed '$d' "$T/norm.out"
bad="$bad`tail -1 "$T/norm.out" | sed 's/^./ &/'`"
if [ -z "$bad" ] && [ "$n" -ge 10 ]; then pass; else fail "differ:$bad ($n files)"; fi

begin "none build: the same functions referenced at -O2"
if ! command -v nm > /dev/null; then
  skip "nm not installed"
else
  bad=
  for f in "$T/legacy/"*.c; do
    b=`basename "$f" .c`
    # The two compilations run side by side.
    $CC -std=gnu11 -O2 -c -DCANNOT_DUMP -I"$T/legacy" -o "$T/a.o" "$f" 2> "$T/cc.log" &
    $CC -std=gnu11 -O2 -c -DCANNOT_DUMP -I"$T/none" -I"$SRCDIR/include" -I"$T/fixed" \
      -o "$T/b.o" "$T/fixed/$b.c" 2> "$T/cc2.log"
    st=$?
    wait $! || st=1
    [ $st -eq 0 ] \
      || { cat "$T/cc.log" "$T/cc2.log" | sed 's/^/    | /' | head -5; bad="$bad $b(cc)"; continue; }
    nm -u "$T/a.o" | awk '{print $NF}' | grep -v -x -e initialized -e might_dump | sort > "$T/a.syms"
    nm -u "$T/b.o" | awk '{print $NF}' | grep -v -x -e dumper_gflags -e dumper_mark_initialized | sort > "$T/b.syms"
    if ! cmp -s "$T/a.syms" "$T/b.syms"; then
      diff "$T/a.syms" "$T/b.syms" | sed "s/^/    | $b: /" | head -5
      bad="$bad $b"
    fi
  done
  if [ -z "$bad" ]; then pass; else fail "differ:$bad"; fi
fi

finish
