#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/migrate/cli.sh: dumper-migrate's command line: help, version,
# errors naming the file, the documented exit statuses, --check,
# --rules, backups and permissions, and never a site inside a comment,
# a string or #if 0.

. "$SRCDIR/tests/e2e/lib.sh"
. "$SRCDIR/tests/migrate/common.sh"

check "--help prints the usage" sh -c '"$0" --help | grep -q "^Usage: dumper-migrate"' "$MIGRATE"
check "--version prints the version" sh -c '"$0" --version | grep -q "^dumper-migrate (dumper) [0-9]"' "$MIGRATE"
check "-V prints the version" sh -c '"$0" -V | grep -q "^dumper-migrate (dumper) [0-9]"' "$MIGRATE"
check "an unknown option says so in one line" \
  sh -c 'test "`"$0" --x 2>&1 > /dev/null`" = "dumper-migrate: unknown option \`--x'"'"'; try --help"' "$MIGRATE"
check "an unknown short option too" \
  sh -c 'test "`"$0" -x . 2>&1 > /dev/null`" = "dumper-migrate: unknown option \`-x'"'"'; try --help"' "$MIGRATE"
check "--list-rules lists every pattern" \
  sh -c 'test `"$0" --list-rules | wc -l` -eq 16 && "$0" --list-rules | grep -q "^cannot-dump-guard "' "$MIGRATE"

expect_status "no path is a usage error" 64 "$MIGRATE"
expect_status "an unknown option is a usage error" 64 "$MIGRATE" --frobnicate "$M/clean"
expect_status "two modes are a usage error" 64 "$MIGRATE" --check --fix "$M/clean"
expect_status "--json --diff is a usage error" 64 "$MIGRATE" --json --diff "$M/clean"
expect_status "--no-backup without --fix is a usage error" 64 "$MIGRATE" --no-backup "$M/clean"
expect_status "an unknown --rules id is a usage error" 64 "$MIGRATE" --rules=nope "$M/clean"
expect_status "-I without a value is a usage error" 64 "$MIGRATE" "$M/clean" -I

expect_status "a missing file exits 66" 66 "$MIGRATE" "$T/no-such.c"
check "... and the message names it" \
  sh -c '"$0" "$1/no-such.c" 2>&1 | grep -q "^dumper-migrate: $1/no-such.c: No such file or directory$"' "$MIGRATE" "$T"
printf 'int x;\0\n' > "$T/binary.c"
expect_status "a file with NUL bytes exits 66" 66 "$MIGRATE" "$T/binary.c"
check "... and the message names it" \
  sh -c '"$0" "$1/binary.c" 2>&1 | grep -q "binary.c: not a text file"' "$MIGRATE" "$T"
expect_status "a device exits 66" 66 "$MIGRATE" /dev/null
expect_status "a missing -I directory exits 66" 66 "$MIGRATE" -I "$T/nowhere" "$M/clean"

# Nothing inside comments, strings, character constants, #if 0 or a
# continued // comment is a site.
cat > "$T/quiet.c" <<'SRC'
/* #ifndef CANNOT_DUMP
   if (initialized) might_dump = !NILP (Vpurify_flag); */
static const char *s = "#ifdef CANNOT_DUMP if (!initialized)";
static const char *t = "escaped \" if (initialized) \\";
static int c = '"';
// a line comment \
   if (initialized) return;
#if 0
#ifndef CANNOT_DUMP
  if (initialized) x ();
#endif
bool initialized;
#elif 0
int might_dump;
#endif
#if 1
int fine;
#else
initialized = 1;
#endif
int boot_time_initialized, dumping_allowed;
SRC
check "no site in comments, strings, #if 0" \
  sh -c 'out=`"$0" -q "$1/quiet.c"` && test -z "$out" && "$0" -q --check "$1/quiet.c"' "$MIGRATE" "$T"

cat > "$T/one.c" <<'SRC'
extern void f (void);
void g (void)
{
#ifndef CANNOT_DUMP
  if (initialized)
#endif
    f ();
}
SRC
expect_status "--check exits 6 while a site remains" 6 "$MIGRATE" -q --check "$T/one.c"
check "the site is reported as file:line:col: pattern" \
  sh -c '"$0" -q "$1/one.c" | grep -q "^$1/one.c:4:1: cannot-dump-guard: .* (certain)$"' "$MIGRATE" "$T"
check "--rules keeps other patterns out" \
  sh -c 'out=`"$0" -q --rules=purify-flag,initialized-set "$1/one.c"` && test -z "$out"' "$MIGRATE" "$T"
check "a keep comment suppresses the site" \
  sh -c 'sed "s|^#ifndef CANNOT_DUMP|/* dumper-migrate: keep */\n&|" "$1/one.c" > "$1/kept.c" && "$0" -q --check "$1/kept.c"' "$MIGRATE" "$T"
mkdir "$T/dup" && cp "$T/one.c" "$T/dup/one.c"
check "a file given twice is read once" \
  sh -c 'test `"$0" -q "$1/one.c" "$1/one.c" "$1" | grep -c one.c` -eq 1' "$MIGRATE" "$T/dup"

chmod 640 "$T/one.c"
cp "$T/one.c" "$T/one.orig-copy"
expect_status "--fix exits 0" 0 "$MIGRATE" -q --fix "$T/one.c"
check "--fix keeps the permission bits" sh -c 'test "`stat -c %a "$0"`" = 640' "$T/one.c"
check "--fix keeps one.c.orig" cmp -s "$T/one.c.orig" "$T/one.orig-copy"
check "--fix leaves no temporary file" sh -c '! ls "$0" | grep -q migrate-' "$T"
check "--fix made the file pass --check" "$MIGRATE" -q --check "$T/one.c"
cp "$T/one.orig-copy" "$T/two.c"
rm -f "$T/two.c.orig"
expect_status "--fix --no-backup exits 0" 0 "$MIGRATE" -q --fix --no-backup "$T/two.c"
check "--no-backup writes no backup" test ! -e "$T/two.c.orig"

# A write that fails (here: the file size limit) leaves the file as it
# was, no temporary file and no backup, and exits 4.
mkdir "$T/full"
cp "$T/one.orig-copy" "$T/full/three.c"
expect_status "--fix exits 73 when it cannot write" 73 \
  sh -c 'ulimit -f 0; "$0" -q --fix "$1" > /dev/null' "$MIGRATE" "$T/full/three.c"
check "... and leaves the file untouched" cmp -s "$T/full/three.c" "$T/one.orig-copy"
check "... with nothing else in its directory" \
  sh -c 'test "`ls "$0"`" = three.c' "$T/full"

finish
