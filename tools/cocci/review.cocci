// SPDX-License-Identifier: MIT
// tools/cocci/review.cocci: dumper-migrate's `review' patterns that
// Coccinelle can see, in context mode: spatch prints each matching line
// marked with `-' and changes nothing.
//
//   spatch --include-headers --sp-file tools/cocci/review.cocci --dir src
//
// These need a person: the code alone does not say which gflags
// predicate keeps the behaviour (see doc/migration.md).
//   purify-flag      !NILP (Vpurify_flag) usually means `about to dump'
//                    (-> will_dump) but is also set by loadup runs that
//                    do not dump, where it means `purecopy'.
//   flag-parameter   a function taking `initialized' or `dumping';
//                    dumper-migrate drops the parameter itself when every
//                    caller (in every file) passes the flag, which is a
//                    whole-tree fact this patch does not establish; and
//                    each read of an `initialized' parameter, which the
//                    drop would re-bind to the gflags flag.
//   dumping-local    the argv computation of `dumping': replace it by
//                    dumper_startup (&argc, &argv).
// Not visible to Coccinelle (it reads preprocessor conditionals as
// comments): cannot-dump-only, cannot-dump-other and the review cases of
// cannot-dump-guard; run `dumper-migrate' for those.

// purify-flag
@@
@@
(
* !NILP (Vpurify_flag)
|
* NILP (Vpurify_flag)
)

// flag-parameter: definitions and prototypes.
@@
identifier f;
type T;
@@
 f (
* T initialized
 ) { ... }

@@
identifier f;
type T;
@@
 f (
* T dumping
 ) { ... }

@@
identifier f;
type T, P;
@@
(
* T f (P initialized);
|
* T f (P dumping);
)

// flag-parameter: a read of an `initialized' parameter.  When
// dumper-migrate drops the parameter, this read would read the gflags
// flag instead, which is true after a pdump load too: it is reported
// (dumped_with_unexec for unexec-era work), never re-bound silently.
@@
identifier f;
type T;
@@
 f (T initialized) {
 <...
* initialized
 ...>
 }

// dumping-local: `dumping' computed from argv.
@@
expression E;
@@
* dumping = <+... argv ...+>;
