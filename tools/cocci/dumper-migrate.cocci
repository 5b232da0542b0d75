// SPDX-License-Identifier: MIT
// tools/cocci/dumper-migrate.cocci: dumper-migrate's `certain'
// rewrites as a Coccinelle semantic patch.
//
//   spatch --smpl-spacing --sp-file tools/cocci/dumper-migrate.cocci \
//          --in-place --include-headers --dir src
//   dumper-migrate --fix src          # what Coccinelle cannot do
//
// Patterns: initialized-decl, initialized-set, might-dump-decl,
// might-dump-set, might-dump-use, dumping-use, cannot-dump-guard (the
// head, statement and fragment shapes).  Every rewrite here is one
// dumper-migrate makes too (tests/migrate/cocci.sh checks it on the
// fixtures).  Coccinelle parses preprocessor conditionals as comments,
// so it cannot delete them: where dumper-migrate drops an
// `#ifndef CANNOT_DUMP' guard, this patch rewrites the test inside and
// leaves the guard, and a following `dumper-migrate --fix' removes it
// (its evaluation proves the already-rewritten test safe).  Left to
// dumper-migrate as well: the expr-else shape, flag parameters (a
// cross-file rule), a `static' flag declaration, empty guards, and the
// #include <dumper/gflags.h> or <dumper/dumper.h> lines.  The review
// patterns are in review.cocci.

@initialize:python@
@@
import os
import re

# The primitives of unexec-only machinery of dumper-migrate
# (tools/migrate/machinery.c); a function is machinery when its body
# holds one or refers to another machinery function.
EXEC_CALLS = {"execv", "execve", "execvp", "execvpe", "execl", "execle",
              "execlp", "fexecve"}
BRK_CALLS = {"sbrk", "brk"}
PLAIN_WORDS = {"__morecore", "malloc_get_state", "malloc_set_state",
               "DOUG_LEA_MALLOC", "HYBRID_MALLOC", "REL_ALLOC",
               "__malloc_initialize_hook", "__data_start", "data_start",
               "_edata", "edata", "my_edata", "_end", "etext", "_etext",
               "__executable_start", "start_of_data", "ADDR_NO_RANDOMIZE",
               "disable_aslr", "disable_address_randomization", "dump_tz",
               "dump_tz_string"}
C_FAMILY = ('.c', '.h', '.m', '.mm', '.cc', '.cp', '.cpp', '.cxx', '.c++',
            '.C', '.hh', '.hpp', '.hxx', '.h++', '.H', '.inc', '.def', '.y',
            '.l')
_sources = {}
_machinery = {}

def _read(path):
    """The text of PATH in any encoding: bytes that are not UTF-8 stay
    one character each (surrogate escapes), so lines and columns hold."""
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        return f.read()

def _given():
    """The trees spatch was pointed at (its --dir arguments, else its
    C-family file arguments), absolute, read from this process's command
    line: the rules read no file outside them.  None when that cannot
    be read."""
    try:
        with open('/proc/self/cmdline', 'rb') as f:
            argv = [a.decode('utf-8', 'surrogateescape')
                    for a in f.read().split(b'\0') if a]
    except OSError:
        return None
    dirs = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == '--dir']
    files = [a for a in argv[1:] if a.endswith(C_FAMILY) and os.path.isfile(a)]
    return [os.path.abspath(a) for a in (dirs or files)]

def _tree_dir(path):
    """The directory of PATH in a tree spatch was given, or None.  spatch
    may name a temporary copy of a given file (TMPDIR/cocci_small_output-
    PID-HASH-NAME): that is the given file NAME; walking TMPDIR would read
    whatever lies there.  A file outside every given tree (a system
    header, say) has no directory of the project tree."""
    top = os.path.dirname(os.path.abspath(path))
    roots = _given()
    if roots is None or _inside(top, roots):
        return top
    copy = re.match(r'cocci_\w+-\d+-[0-9a-f]+-(.+)$', os.path.basename(path))
    if not copy:
        return None
    for r in roots:
        for d, _, names in os.walk(r if os.path.isdir(r) else os.path.dirname(r)):
            if copy.group(1) in names:
                return d
    return None

def _inside(top, roots):
    """TOP lies in one of ROOTS (a directory, or a file's directory)."""
    for r in roots:
        base = r if os.path.isdir(r) else os.path.dirname(r)
        if top == base or top.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False

def _code(path):
    """PATH with comments, literals and directive lines blanked out."""
    if path not in _sources:
        text = _read(path)
        blank = lambda m: re.sub(r'[^\n]', ' ', m.group(0))
        text = re.sub(r'/\*.*?\*/|//(?:\\\n|[^\n])*|"(?:\\.|[^"\\\n])*"'
                      r"|'(?:\\.|[^'\\\n])*'", blank, text, flags=re.S)
        text = re.sub(r'(?m)^[ \t]*#(?:\\\n|[^\n])*', blank, text)
        starts = [0] + [m.end() for m in re.finditer(r'\n', text)]
        _sources[path] = (text, starts)
    return _sources[path]

def _match(text, i, step):
    """Index of the bracket matching the one at I (STEP +1 or -1)."""
    pairs = {'(': ')', '[': ']', '{': '}'} if step > 0 else {')': '(', ']': '[', '}': '{'}
    want, depth = pairs[text[i]], 0
    while 0 <= i < len(text):
        if text[i] in pairs:
            depth += 1
        elif text[i] in pairs.values():
            depth -= 1
            if depth == 0:
                return i
        i += step
    return len(text) if step > 0 else 0

def _statement_end(text, i):
    """End of the statement starting at I (after white space)."""
    while i < len(text) and text[i].isspace():
        i += 1
    if text.startswith('{', i):
        return _match(text, i, 1)
    m = re.match(r'(if|while|for|switch)\b\s*\(', text[i:])
    if m:
        close = _match(text, i + m.end() - 1, 1)
        return _statement_end(text, close + 1)
    depth = 0
    while i < len(text):
        c = text[i]
        if c in '([{':
            i = _match(text, i, 1)
        elif c == ';':
            return i
        i += 1
    return i

def _scope(path, line, col):
    """The statement around a use, as dumper-migrate's statement_of:
    a use in the head of if/while/for/switch takes the whole statement."""
    text, starts = _code(path)
    pos = starts[int(line) - 1] + int(col)
    i = pos - 1
    while i >= 0:
        c = text[i]
        if c in ')]':
            i = _match(text, i, -1) - 1
            continue
        if c in '([':
            m = re.search(r'\b(if|while|for|switch)\s*$', text[:i])
            if c == '(' and m:
                return text[m.start():_statement_end(text, _match(text, i, 1) + 1) + 1]
        elif c in ';{}':
            break
        i -= 1
    return text[i + 1:_statement_end(text, pos) + 1]

_logical = {}

def _lines(path):
    """Logical lines of PATH, comments and literals blanked, directives
    kept; a continued line is joined onto its first physical line."""
    if path not in _logical:
        text = _read(path)
        blank = lambda m: re.sub(r'[^\n]', ' ', m.group(0))
        text = re.sub(r'/\*.*?\*/|//(?:\\\n|[^\n])*|"(?:\\.|[^"\\\n])*"'
                      r"|'(?:\\.|[^'\\\n])*'", blank, text, flags=re.S)
        phys = text.split('\n')
        out, i = [], 0
        while i < len(phys):
            line, n = phys[i], 1
            while line.endswith('\\') and i + n < len(phys):
                line = line[:-1] + ' ' + phys[i + n]
                n += 1
            out.append(line)
            out.extend([''] * (n - 1))
            i += n
        _logical[path] = out
    return _logical[path]

NOT_CANNOT = re.compile(r'^\s*#\s*(ifndef\s+CANNOT_DUMP|if\s*!\s*defined'
                        r'\s*(\(\s*CANNOT_DUMP\s*\)|\s+CANNOT_DUMP))\s*$')

def _directive(line):
    m = re.match(r'\s*#\s*(\w+)', line)
    return m.group(1) if m else None

def _guard(path, line):
    """(K, E): 0-based lines of the #ifndef CANNOT_DUMP just above LINE
    (1-based) and of its #endif, when the group has no #else/#elif."""
    L = _lines(path)
    k = int(line) - 2
    while k >= 0 and not L[k].strip():
        k -= 1
    if k < 0 or not NOT_CANNOT.match(L[k]):
        return None
    depth = 0
    for e in range(k + 1, len(L)):
        d = _directive(L[e])
        if d in ('if', 'ifdef', 'ifndef'):
            depth += 1
        elif d == 'endif':
            if depth == 0:
                return (k, e)
            depth -= 1
        elif d in ('else', 'elif') and depth == 0:
            return None
    return None

def _plain_region(L, k, e):
    return not any(_directive(L[i]) for i in range(k + 1, e))

def guard_head(p, s):
    """`if (C)' alone in the guard; its statement follows the #endif."""
    g = _guard(p[0].file, p[0].line)
    return bool(g) and int(s[0].line) - 1 > g[1] and _plain_region(_lines(p[0].file), *g)

def guard_statement(p, s):
    """`if (C) S' is all the guard holds."""
    g = _guard(p[0].file, p[0].line)
    if not g:
        return False
    L = _lines(p[0].file)
    end = int(s[0].line_end)
    return (end - 1 < g[1] and _plain_region(L, *g)
            and all(not L[i].strip() for i in range(end, g[1])))

def guard_fragment(p, form):
    """The guard holds exactly one line, `&& initialized' or `|| !initialized'."""
    g = _guard(p[0].file, p[0].line)
    if not g or g[1] != int(p[0].line):
        return False
    return re.match(form, _lines(p[0].file)[int(p[0].line) - 1]) is not None

def argv_dumping_read(p):
    """P reads `dumping', a local of its function computed from argv:
    not the declaration, not the target of an assignment."""
    text, starts = _code(p[0].file)
    pos = starts[int(p[0].line) - 1] + int(p[0].column)
    if re.match(r'\s*=(?!=)', text[pos + 7:]) or re.search(r'\bbool\s*$', text[:pos]):
        return False
    depth, body = 0, -1
    for i in range(pos):
        if text[i] == '{':
            if depth == 0:
                body = i
            depth += 1
        elif text[i] == '}':
            depth -= 1
    if body < 0:
        return False
    end = _match(text, body, 1)
    func = text[body:end]
    # The reads go together with the local, which goes only where the
    # function calls dumper_startup (the dumping-local rule).
    return (re.search(r'\bbool\s+dumping\b', func) is not None
            and re.search(r'\bdumping\s*=(?!=)[^;]*\bargv\b', func) is not None
            and re.search(r'\bdumper_startup\s*\(', func) is not None)

def _primitive(text, m):
    """The identifier match M in TEXT is a machinery primitive."""
    w = m.group(0)
    call = re.match(r'\s*\(', text[m.end():]) is not None
    return (w in PLAIN_WORDS or (call and (w in EXEC_CALLS or w in BRK_CALLS))
            or 'unexec' in w.lower() or 'bss' in w.lower())

_DEF = re.compile(r'\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^()]*\)[^;{}()]*)*\)\s*\{')

def _machinery_of(path):
    """Names of the machinery functions defined in the C-family files of
    the directory tree of PATH (the tool reads every file it is given),
    when that directory lies in a tree spatch was given."""
    top = _tree_dir(path)
    if top is None:
        return set()
    if top in _machinery:
        return _machinery[top]
    bodies = {}
    for d, _, names in os.walk(top):
        for n in sorted(names):
            if n.endswith(C_FAMILY) and not n.startswith('.'):
                text = _code(os.path.join(d, n))[0]
                for m in _DEF.finditer(text):
                    if m.group(1) in ('if', 'while', 'for', 'switch'):
                        continue
                    body = text[m.end() - 1:_match(text, m.end() - 1, 1) + 1]
                    bodies.setdefault(m.group(1), []).append(body)
    found = set()
    for name, texts in bodies.items():
        for t in texts:
            if any(_primitive(t, m) for m in re.finditer(r'[A-Za-z_]\w*', t)):
                found.add(name)
    changed = True
    while changed:
        changed = False
        for name, texts in bodies.items():
            if name in found:
                continue
            words = set(w for t in texts for w in re.findall(r'[A-Za-z_]\w*', t))
            if any(w in found or (w[:1] == 'S' and 'F' + w[1:] in found)
                   for w in words):
                found.add(name)
                changed = True
    _machinery[top] = found
    return found

def will_name(p):
    """will_dump, or will_dump_with_unexec when the use's statement
    holds unexec-only machinery."""
    text = _scope(p[0].file, p[0].line, p[0].column)
    found = _machinery_of(p[0].file)
    unexec = any(_primitive(text, m) or m.group(0) in found
                 or (m.group(0)[:1] == 'S' and 'F' + m.group(0)[1:] in found)
                 for m in re.finditer(r'[A-Za-z_]\w*', text))
    return "will_dump_with_unexec" if unexec else "will_dump"

// initialized-decl and might-dump-decl: the runtime's own flags.  A
// `static' one is left to dumper-migrate, which sees a storage class
// that stands in its own #ifdef; Coccinelle would orphan that #ifdef.
@disable optional_storage@
@@
(
- bool initialized;
|
- extern bool initialized;
|
- int initialized;
|
- extern int initialized;
|
- bool might_dump;
|
- extern bool might_dump;
)

// initialized-set: the bridge owns `initialized'.
@@
@@
(
- initialized = 1;
+ dumper_mark_initialized ();
|
- initialized = true;
+ dumper_mark_initialized ();
)

// might-dump-set: dumper_startup computes will_dump.
@@
expression E;
@@
- might_dump = E;

// might-dump-use: what is left of might_dump is a read.
@might_use@
position p;
@@
might_dump@p

@script:python might_name@
p << might_use.p;
w;
@@
coccinelle.w = cocci.make_ident (will_name (p))

@@
position might_use.p;
identifier might_name.w;
@@
- might_dump@p
+ w

// dumping-use: reads of a local `dumping' computed from argv.  The
// local itself is a review item (dumper_startup replaces it).
@dumping_use@
position p;
@@
dumping@p

@script:python dumping_name@
p << dumping_use.p;
w;
@@
if argv_dumping_read (p):
    coccinelle.w = cocci.make_ident (will_name (p))
else:
    cocci.include_match (False)

@@
position dumping_use.p;
identifier dumping_name.w;
@@
- dumping@p
+ w

// cannot-dump-guard, head shape: `#ifndef CANNOT_DUMP / if (C) /
// #endif / S'.  C' must be true where nothing dumps.
@head@
position p, s;
expression E;
statement S;
@@
(
if@p (initialized) S@s
|
if@p (E || initialized) S@s
)

@script:python head_name@
p << head.p;
s << head.s;
w;
@@
# initialized over unexec machinery means "in a dumped unexec
# executable": never certain (dumper-migrate offers dumped_with_unexec).
if guard_head (p, s) and will_name (p) == "will_dump":
    coccinelle.w = cocci.make_ident (will_name (p))
else:
    cocci.include_match (False)

@@
position head.p;
identifier head_name.w;
expression E;
statement S;
@@
(
if@p (
- initialized
+ !w
  ) S
|
if@p (E ||
- initialized
+ !w
  ) S
)

// cannot-dump-guard, statement shape: `#ifndef CANNOT_DUMP /
// if (C) S / #endif'.  C' must be false where nothing dumps.
@stmt@
position p, s;
statement S;
@@
if@p (!initialized) S@s

@script:python stmt_name@
p << stmt.p;
s << stmt.s;
w;
@@
if guard_statement (p, s):
    coccinelle.w = cocci.make_ident (will_name (p))
else:
    cocci.include_match (False)

@@
position stmt.p;
identifier stmt_name.w;
statement S;
@@
if@p (
- !initialized
+ w
  ) S

// cannot-dump-guard, fragment shape: a guard holding one line of a
// condition, `&& initialized' (-> && !will_dump) or `|| !initialized'
// (-> || will_dump).
@frag_and@
position p;
expression E;
@@
E && initialized@p

@script:python frag_and_name@
p << frag_and.p;
w;
@@
if (guard_fragment (p, r'^\s*&&\s*initialized\s*$')
        and will_name (p) == "will_dump"):
    coccinelle.w = cocci.make_ident (will_name (p))
else:
    cocci.include_match (False)

@@
position frag_and.p;
identifier frag_and_name.w;
expression E;
@@
E &&
- initialized@p
+ !w

@frag_or@
position p;
expression E;
@@
E || !initialized@p

@script:python frag_or_name@
p << frag_or.p;
w;
@@
if guard_fragment (p, r'^\s*\|\|\s*!\s*initialized\s*$'):
    coccinelle.w = cocci.make_ident (will_name (p))
else:
    cocci.include_match (False)

@@
position frag_or.p;
identifier frag_or_name.w;
expression E;
@@
E ||
- !initialized@p
+ w
