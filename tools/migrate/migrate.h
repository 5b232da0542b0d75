/* SPDX-License-Identifier: MIT */
/* tools/migrate/migrate.h: the internal interface of dumper-migrate.

   dumper-migrate finds the legacy dump checks of an unexec-era runtime
   (CANNOT_DUMP conditionals, `initialized' used as a dump test,
   `might_dump', an argv-computed `dumping', `!NILP (Vpurify_flag)',
   flag parameters) and rewrites the unambiguous ones into the gflags
   vocabulary of <dumper/gflags.h>.

   The pipeline, one concern per file:

     util.c     memory, growable buffers (the only place that exits on
                out-of-memory)
     lex.c      C tokens, comments, string/char literals, line
                continuations, preprocessor directive lines
     cond.c     the preprocessor-conditional tree; which tokens are dead
                (`#if 0')
     scope.c    bracket matching across conditional branches, function
                definitions, prototypes, parameters, local declarations
     expr.c     three-valued evaluation of a dump condition and the
                token rewrites of its flag atoms
     machinery.c  which code is unexec-only machinery (a call graph)
     project.c  loading files and directories, include resolution,
                which files see <dumper/gflags.h>
     rule_guard.c   the CANNOT_DUMP conditional rules
     rule_flags.c   initialized / might_dump / dumping / Vpurify_flag /
                    name collisions
     rule_param.c   flag parameters, across files
     leftover.c empty conditionals and stale comments a rewrite leaves
     marker.c   keep and review markers: decisions that persist
     rules.c    the rule catalogue, running the rules, include
                insertion, suppression comments, sorting
     edit.c     applying edits to a text
     diff.c     unified diffs
     report.c   the text report;  json.c: the JSON report
     fix.c      atomic in-place rewriting with backups
     main.c     the command line

   External names carry the prefix `migrate_'.  Every offset is a byte
   offset into the file's text; lines and columns are 1-based, columns
   count bytes.  */

#ifndef MIGRATE_MIGRATE_H
#define MIGRATE_MIGRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tools/common/status.h"
#include "tools/common/xalloc.h"

/* ------------------------------------------------------------------ */
/* Exit statuses of the program (documented in dumper-migrate.1), from
   the one table of every tool (tools/common/status.h).  */

enum
{
  MIGRATE_EXIT_OK = TOOL_EXIT_OK,             /* done; --check: nothing left */
  MIGRATE_EXIT_SITES = TOOL_EXIT_SITES_REMAIN, /* --check: sites or review items remain */
  MIGRATE_EXIT_USAGE = TOOL_EXIT_USAGE,       /* bad command line */
  MIGRATE_EXIT_INPUT = TOOL_EXIT_NOINPUT,     /* a path is missing, unreadable or not C */
  MIGRATE_EXIT_WRITE = TOOL_EXIT_CANTCREAT,   /* --fix could not write a file or backup */
  MIGRATE_EXIT_INTERNAL = TOOL_EXIT_OSERR     /* out of memory */
};

/* ------------------------------------------------------------------ */
/* util.c */

char *migrate_xasprintf (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));

/* Grow *PTR (an array of *CAP elements of ELEM bytes) to hold NEED.  */
void migrate_grow (void *ptr, size_t *cap, size_t need, size_t elem);

/* A growable byte buffer, always NUL-terminated once written to.  */
struct migrate_buf
{
  char *data;
  size_t len;
  size_t cap;
};

void migrate_buf_add (struct migrate_buf *buf, const char *bytes, size_t n);
void migrate_buf_puts (struct migrate_buf *buf, const char *s);
void migrate_buf_printf (struct migrate_buf *buf, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
/* A hash of the N bytes at S (FNV-1a), for the name tables.  */
size_t migrate_hash (const char *s, size_t n);
/* The contents as a malloc'd string ("" when empty); BUF is reset.  */
char *migrate_buf_take (struct migrate_buf *buf);
void migrate_buf_free (struct migrate_buf *buf);

/* ------------------------------------------------------------------ */
/* Tokens (lex.c).  */

enum migrate_tok_kind
{
  MIGRATE_T_IDENT,
  MIGRATE_T_NUMBER,
  MIGRATE_T_STRING,
  MIGRATE_T_CHAR,
  MIGRATE_T_PUNCT,
  MIGRATE_T_HEADER,           /* <...> after #include */
  MIGRATE_T_OTHER             /* a stray byte (`@', `\' not before a newline) */
};

/* Token flags.  */
enum
{
  MIGRATE_TF_BOL = 1,         /* first token of its logical line */
  MIGRATE_TF_SPLICED = 2,     /* contains a backslash-newline */
  MIGRATE_TF_WS_BEFORE = 4    /* white space or a comment precedes it */
};

/* Kinds of `{' (scope.c).  */
enum migrate_brace
{
  MIGRATE_B_NONE,
  MIGRATE_B_FUNC,             /* a function body */
  MIGRATE_B_AGGR,             /* struct / union / enum body */
  MIGRATE_B_INIT,             /* an initializer after `=' */
  MIGRATE_B_BLOCK             /* a compound statement */
};

struct migrate_token
{
  enum migrate_tok_kind kind;
  unsigned char flags;
  unsigned char brace;        /* enum migrate_brace, for `{' only */
  unsigned line, col;
  size_t start, end;
  int directive;              /* the directive line it belongs to, or -1 */
  int branch;                 /* innermost conditional branch, or -1 */
  int match;                  /* matching bracket, or -1 (scope.c) */
  int func;                   /* enclosing function body, or -1 */
  int open;                   /* innermost enclosing `{', or -1 */
};

enum migrate_dir_kind
{
  MIGRATE_D_IF, MIGRATE_D_IFDEF, MIGRATE_D_IFNDEF, MIGRATE_D_ELIF,
  MIGRATE_D_ELSE, MIGRATE_D_ENDIF, MIGRATE_D_INCLUDE, MIGRATE_D_DEFINE,
  MIGRATE_D_UNDEF, MIGRATE_D_OTHER, MIGRATE_D_NULL
};

/* One preprocessor directive: its `#' and operand tokens, and the byte
   range of the whole (possibly continued) line including its newline,
   which is what a rule deletes.  */
struct migrate_directive
{
  enum migrate_dir_kind kind;
  int hash;                   /* token of `#' */
  int first, end;             /* operand tokens [first, end) */
  size_t line_start, line_end;
  int group;                  /* conditional group, or -1 */
};

struct migrate_comment
{
  size_t start, end;
};

/* ------------------------------------------------------------------ */
/* Conditionals (cond.c).  A group is #if.. #elif.. #else.. #endif; each
   arm is a branch.  A branch is dead when it can never be compiled
   (`#if 0', or an arm after `#if 1'), and so is all it contains.  */

struct migrate_branch
{
  int directive;              /* the #if/#elif/#else opening it */
  int group;
  int parent;                 /* enclosing branch, or -1 */
  int first, end;             /* tokens [first, end) inside the arm */
  bool dead;
};

struct migrate_group
{
  int first_branch, nbranches;   /* in the branch array from first_branch
                                     on, in order, but with the branches of
                                     nested groups between them */
  int endif;                      /* directive, or -1 if unterminated */
  int parent;                     /* enclosing branch, or -1 */
};

/* ------------------------------------------------------------------ */
/* Functions (scope.c): definitions and file-scope prototypes.  */

struct migrate_func
{
  int name;                   /* token of the function's name */
  int lparen, rparen;         /* its parameter list */
  int body;                   /* `{' of the body, or -1 for a prototype */
  int dropped_param;          /* flag parameter removed by rule_param.c, or -1 */
};

/* ------------------------------------------------------------------ */
/* A source file and the project (project.c).  */

struct migrate_file
{
  char *path;                 /* as given on the command line or walked */
  char *real;                 /* canonical path, to find a file twice */
  char *text;
  size_t len;
  bool in_paths;              /* reported and rewritten (else: read for
                                 its declarations only, found through -I) */
  size_t *line_start;         /* offsets of each line's first byte */
  unsigned nlines;

  struct migrate_token *toks;
  int ntoks;
  struct migrate_directive *dirs;
  int ndirs;
  struct migrate_comment *comments;
  int ncomments;
  struct migrate_branch *branches;
  int nbranches;
  struct migrate_group *groups;
  int ngroups;
  struct migrate_func *funcs;
  int nfuncs;

  int *includes;              /* files this one includes (project indices) */
  int nincludes;
  bool includes_gflags;       /* #include <dumper/gflags.h> or dumper.h itself */
  bool includes_dumper;       /* #include <dumper/dumper.h> itself */
  bool unresolved_include;    /* a "..." include that was not found */
  bool defines_no_short;      /* #define DUMPER_GFLAGS_NO_SHORT_NAMES here */
  bool no_short_names;        /* ... here or in an included header */
  unsigned visit;             /* scratch for graph walks */
  unsigned char *claimed;     /* per token: consumed by a site (rules) */
  int uses_gflags_name;       /* token of a gflags name used here, or -1 */
  int uses_mark;              /* token of dumper_mark_initialized, or -1 */
  int reads_initialized;      /* token of a read of `initialized', or -1 */
  bool init_decl_survives;    /* declares `initialized' and keeps it */
  bool init_decl_deleted;     /* declares `initialized'; a fix deletes it */
  char *warnings;             /* lexer/conditional diagnostics, or NULL */
};

struct migrate_site;
struct migrate_edit;

/* A file a directory walk did not read, and why (a static string).  */
struct migrate_skipped
{
  char *path;
  const char *why;
};

struct migrate_project
{
  struct migrate_file **files;
  int nfiles;
  size_t files_cap;
  char **include_dirs;
  int ninclude_dirs;

  unsigned generation;        /* for migrate_file.visit */

  struct migrate_site *sites;
  size_t nsites, sites_cap;
  struct migrate_edit *edits;
  size_t nedits, edits_cap;
  struct migrate_machinery *machinery;   /* machinery.c */
  struct migrate_skipped *skipped;       /* what a directory walk did not read */
  int nskipped;
  size_t skipped_cap;
};

/* ------------------------------------------------------------------ */
/* Sites and edits.  */

enum migrate_conf { MIGRATE_CERTAIN, MIGRATE_REVIEW };

struct migrate_site
{
  int file;
  unsigned line, col;
  const char *pattern;        /* a static pattern id */
  enum migrate_conf conf;
  char *what;                 /* what it is */
  char *suggestion;           /* the suggested rewrite */
  bool held;                  /* on a line a review marker holds */
};

/* Replace bytes [start, end) of FILE with TEXT.  SITE is the site the
   edit implements, or -1 for an include added on behalf of the file.  */
struct migrate_edit
{
  int file;
  size_t start, end;
  char *text;
  int site;
};

/* ------------------------------------------------------------------ */
/* lex.c */

/* Split F->text into lines, tokens, directives and comments.  Never
   fails: unterminated comments and literals end at the end of the file
   or line, and a diagnostic is added to F->warnings.  */
void migrate_lex (struct migrate_file *f);

/* Whether token I is spelled S (backslash-newlines ignored).  */
bool migrate_tok_is (const struct migrate_file *f, int i, const char *s);
/* Whether token I is spelled like one of the NULL-terminated WORDS.  */
bool migrate_tok_in (const struct migrate_file *f, int i, const char *const *words);
/* The spelling of token I, malloc'd.  */
char *migrate_tok_text (const struct migrate_file *f, int i);
/* Append a warning "PATH:LINE: MESSAGE" to F->warnings.  */
void migrate_warn (struct migrate_file *f, unsigned line, const char *msg);

/* ------------------------------------------------------------------ */
/* cond.c */

/* Build F's conditional groups and branches and set each token's
   branch.  Unbalanced #else/#endif are diagnosed and ignored; a group
   left open at the end of the file is closed there.  */
void migrate_cond_build (struct migrate_file *f);
/* Token I can never be compiled.  */
bool migrate_tok_dead (const struct migrate_file *f, int i);
/* The condition of branch B, classified.  */
enum migrate_guard
{
  MIGRATE_G_OTHER,            /* anything else */
  MIGRATE_G_NOT_CANNOT,       /* #ifndef CANNOT_DUMP, #if !defined CANNOT_DUMP */
  MIGRATE_G_CANNOT,           /* #ifdef CANNOT_DUMP, #if defined CANNOT_DUMP */
  MIGRATE_G_MENTIONS          /* some other use of CANNOT_DUMP */
};
enum migrate_guard migrate_directive_guard (const struct migrate_file *f,
                                            int directive);

/* ------------------------------------------------------------------ */
/* scope.c */

/* Match brackets, classify braces, find functions and prototypes.  */
void migrate_scope_build (struct migrate_file *f);
/* The next / previous live code token (not in a directive, not dead)
   after / before I, or F->ntoks / -1.  */
int migrate_next (const struct migrate_file *f, int i);
int migrate_prev (const struct migrate_file *f, int i);
bool migrate_is_code (const struct migrate_file *f, int i);
/* Number of parameters of FUNC (0 for `(void)' or `()'), and the token
   of parameter NAME, or -1.  */
int migrate_param_count (const struct migrate_file *f, int func);
int migrate_param_find (const struct migrate_file *f, int func, const char *name);
/* Token I is the name in a declaration (`bool dumping;', `int x = 1',
   a parameter, a member).  */
bool migrate_is_declarator (const struct migrate_file *f, int i);
/* Token I is a member name: after `.' or `->'.  */
bool migrate_is_member (const struct migrate_file *f, int i);
/* Token I, spelled NAME, is shadowed by a parameter or a local
   declaration of its function.  */
bool migrate_shadowed (const struct migrate_file *f, int i, const char *name);
/* The statement containing token I: for a token inside the condition
   of if/while/for/switch, the whole controlled statement.  Sets
   [*FIRST, *LAST] (inclusive).  */
void migrate_statement_of (const struct migrate_file *f, int i,
                           int *first, int *last);
/* The last token of the statement starting at I, or -1 if I does not
   start one that ends before LIMIT.  */
int migrate_skip_statement (const struct migrate_file *f, int i, int limit);

/* ------------------------------------------------------------------ */
/* expr.c */

enum migrate_tri { MIGRATE_FALSE, MIGRATE_TRUE, MIGRATE_UNKNOWN };

/* What a token in a condition means.  */
enum migrate_atom
{
  MIGRATE_A_NONE,             /* not a flag */
  MIGRATE_A_INITIALIZED,      /* the legacy `initialized' */
  MIGRATE_A_WILL,             /* legacy "will dump": might_dump, a dumping local */
  MIGRATE_A_PURIFY,           /* `NILP' of `NILP (Vpurify_flag)' */
  MIGRATE_A_GFLAG_WILL        /* will_dump*, dumped_with_* (false in none) */
};

typedef enum migrate_atom (*migrate_atom_fn) (const struct migrate_file *f,
                                              int i, void *data);

struct migrate_cond
{
  enum migrate_tri none_value;  /* in a `none' build, after translation */
  bool complex;               /* a flag used other than as a plain operand */
  bool purify;                /* uses Vpurify_flag */
  bool legacy;                /* has a legacy atom to rewrite */
  int natoms;                 /* flag atoms found */
};

/* Evaluate the condition in code tokens [FIRST, END).  */
struct migrate_cond migrate_cond_eval (const struct migrate_file *f,
                                       int first, int end,
                                       migrate_atom_fn atom, void *data);

/* The gflags name to write for BASE ("will_dump", ...) in F: with a
   `dumper_' prefix when F opts out of the short names.  Static storage
   is not used: the result is malloc'd.  */
char *migrate_flag_name (const struct migrate_file *f, const char *base);

/* Append to PROJ the edits that translate the legacy atoms in [FIRST,
   END) of file FILE: initialized -> !will_dump, !initialized ->
   will_dump, dumping/might_dump -> will_dump, !NILP (Vpurify_flag) ->
   will_dump, NILP (Vpurify_flag) -> !will_dump; `will_dump' becomes
   `will_dump_with_unexec' when UNEXEC.  Returns the number added.  */
int migrate_cond_rewrite (struct migrate_project *proj, int file, int site,
                          int first, int end, migrate_atom_fn atom,
                          void *data, bool unexec);

/* The text of code tokens [FIRST, END), white space collapsed to single
   spaces, comments and directive lines dropped, as a malloc'd string.  */
char *migrate_render (const struct migrate_file *f, int first, int end);
/* The same text with the edits of SITE applied (for messages); SITE's
   edits must be the last ones added to PROJ.  */
char *migrate_render_edited (const struct migrate_project *proj, int file,
                             int first, int end, int site);

/* ------------------------------------------------------------------ */
/* project.c */

void migrate_project_init (struct migrate_project *proj);
void migrate_project_free (struct migrate_project *proj);
void migrate_file_free (struct migrate_file *f);
/* Make a file from TEXT (taking ownership) and analyse it: lex,
   conditionals, scope.  */
struct migrate_file *migrate_file_new (const char *path, char *text,
                                       size_t len, bool in_paths);
/* Add PATH: a file, or a directory walked recursively for every
   C-family file (C, Objective-C, C++ sources and headers; hidden
   entries, symlinks and *.orig skipped and listed in PROJ->skipped with
   C-like files the tool does not read; entries sorted).  On
   error prints "dumper-migrate: PATH: reason" and returns false.  */
bool migrate_project_add_path (struct migrate_project *proj, const char *path);
/* Add an already-read file.  Returns its index.  */
int migrate_project_add_file (struct migrate_project *proj,
                              struct migrate_file *f);
/* Resolve #include lines (quoted ones relative to the file, then the -I
   directories; <dumper/...> by name) and load the headers found through
   -I that are not already in the project, for their declarations.  */
void migrate_project_resolve (struct migrate_project *proj);
/* Planned include insertions, per file.  */
enum migrate_plan { MIGRATE_PLAN_NONE, MIGRATE_PLAN_GFLAGS, MIGRATE_PLAN_DUMPER };
/* File FILE sees <dumper/gflags.h> (directly or through its includes;
   PLAN, which may be NULL, adds the includes a fix will insert).  */
bool migrate_sees_gflags (struct migrate_project *proj, int file,
                          const unsigned char *plan);
/* ... and <dumper/dumper.h>, which declares dumper_mark_initialized.  */
bool migrate_sees_dumper (struct migrate_project *proj, int file,
                          const unsigned char *plan);
/* FILE or a header it includes keeps / loses (by a fix) a legacy
   declaration of `initialized' (the init_decl_* fields).  */
bool migrate_sees_legacy_init (struct migrate_project *proj, int file,
                               bool deleted);

/* ------------------------------------------------------------------ */
/* machinery.c */

/* Find the unexec-only functions of every file in PROJ (the call graph
   to a fixed point); sets PROJ->machinery.  */
void migrate_machinery_build (struct migrate_project *proj);
void migrate_machinery_free (struct migrate_machinery *m);
/* Some identifier in [FIRST, LAST] of F is unexec-only machinery (a
   primitive, or a reference to an unexec-only function of PROJ, which
   may be NULL); with DIRECTIVES, the operands of directive lines count
   too.  Sets *WHICH to its token and *WHY (malloc'd, may be NULL) to
   what it does.  */
bool migrate_unexec_signal (const struct migrate_project *proj,
                            const struct migrate_file *f, int first, int last,
                            bool directives, int *which, char **why);

/* ------------------------------------------------------------------ */
/* rules.c and the rule files */

struct migrate_pattern
{
  const char *id;
  const char *summary;
};

extern const struct migrate_pattern migrate_patterns[];
extern const int migrate_npatterns;

/* Ids (static strings, compared by pointer after lookup).  */
extern const char MIGRATE_P_GUARD[], MIGRATE_P_ONLY[], MIGRATE_P_OTHER[],
  MIGRATE_P_INIT_DECL[], MIGRATE_P_INIT_SET[], MIGRATE_P_INIT_TEST[],
  MIGRATE_P_MIGHT_DECL[], MIGRATE_P_MIGHT_SET[], MIGRATE_P_MIGHT_USE[],
  MIGRATE_P_DUMPING_LOCAL[], MIGRATE_P_DUMPING_USE[], MIGRATE_P_PARAM[],
  MIGRATE_P_PURIFY[], MIGRATE_P_COLLISION[], MIGRATE_P_INCLUDE[],
  MIGRATE_P_LEFTOVER[];

/* The pattern named ID, or NULL.  */
const struct migrate_pattern *migrate_pattern_find (const char *id);

/* Per-file analysis state shared by the rule files.  */
struct migrate_rulectx
{
  struct migrate_project *proj;
  int file;
  struct migrate_file *f;
  bool sees_gflags;           /* before any rewrite */
};

/* Record a site; returns its index.  WHAT and SUGGESTION are taken.  */
int migrate_site_add (struct migrate_project *proj, int file, int tok,
                      const char *pattern, enum migrate_conf conf,
                      char *what, char *suggestion);
/* Make site S a review item with WHY appended, dropping its edits.  */
void migrate_site_demote (struct migrate_project *proj, size_t s, const char *why);
/* Record an edit (TEXT copied).  */
void migrate_edit_add (struct migrate_project *proj, int file, size_t start,
                       size_t end, const char *text, int site);
/* Delete the whole lines holding bytes [START, END).  */
void migrate_edit_delete_lines (struct migrate_project *proj, int file,
                                size_t start, size_t end, int site);
/* Delete a statement or declaration spanning tokens [FIRST, LAST]:
   whole lines when it stands alone on them (with a comment block
   directly above it, and any conditional group it straddles when that
   group holds nothing else), else just its bytes.  Returns false, and
   adds nothing, when a straddled group holds other code or the
   statement is the body of a control statement.  */
bool migrate_edit_delete_tokens (struct migrate_project *proj, int file,
                                 int first, int last, int site);
/* The statement starting at token I is the body of an if / else /
   while / for / switch / do.  */
bool migrate_controlled_body (const struct migrate_file *f, int i);
/* The start of a comment block that ends on the line just above the
   line starting at POS and begins its own line, or POS.  */
size_t migrate_attached_comment (const struct migrate_file *f, size_t pos);
/* Mark tokens [FIRST, LAST] of F consumed.  */
void migrate_claim (struct migrate_file *f, int first, int last);

/* Token I names a gflags dump flag (will_dump..., dumped_with_...), short
   or `dumper_'-prefixed; *SHORT_NAME (may be NULL) says which.  */
bool migrate_is_gflag_name (const struct migrate_file *f, int i, bool *short_name);
/* The atom classifier every rule uses (DATA is unused).  */
enum migrate_atom migrate_rule_atom (const struct migrate_file *f, int i,
                                     void *data);
/* The declaration of the local `dumping' of function FUNC when it is
   computed from argv, or -1.  */
int migrate_argv_dumping (const struct migrate_file *f, int func);
/* Token I is an assignment target: `NAME = ...', `NAME += ...',
   `NAME++', `++NAME'.  */
bool migrate_is_assigned (const struct migrate_file *f, int i);

/* What a `NILP (Vpurify_flag)' test at token NILP means (rule_flags.c).
   *WHY (malloc'd, or NULL) says why.  */
enum migrate_purify
{
  MIGRATE_PURIFY_VALUE,       /* the flag as a value: passed, stored, compared */
  MIGRATE_PURIFY_PURECOPY,    /* guards a purecopy-style copy: purecopy mode */
  MIGRATE_PURIFY_BOOTSTRAP,   /* an autoload/require guard: needs a bootstrap exception */
  MIGRATE_PURIFY_DUMP,        /* gates work that exists because a dump follows */
  MIGRATE_PURIFY_DUMP_UNEXEC, /* ... unexec-only machinery */
  MIGRATE_PURIFY_UNKNOWN      /* a test the code does not explain */
};
enum migrate_purify migrate_purify_kind (const struct migrate_project *proj,
                                         const struct migrate_file *f, int nilp,
                                         char **why);

void migrate_rule_params (struct migrate_project *proj);
void migrate_rule_guards (struct migrate_rulectx *ctx);
void migrate_rule_flags (struct migrate_rulectx *ctx);

/* Run every rule over the files in PATHS, then drop the sites whose
   pattern is not in SELECTED (a NULL-terminated list of ids, or NULL
   for all) with their edits, add the includes the remaining certain
   edits need, drop the sites a `dumper-migrate: keep' comment
   suppresses, and sort sites and edits.  */
void migrate_analyse (struct migrate_project *proj, const char *const *selected);

/* The number of sites of confidence CONF.  */
size_t migrate_count_sites (const struct migrate_project *proj,
                            enum migrate_conf conf);

/* ------------------------------------------------------------------ */
/* leftover.c */

/* After the edits are final (normalized): delete the conditionals and
   comments they empty, report the leftovers it cannot decide.  */
void migrate_leftovers (struct migrate_project *proj);

/* ------------------------------------------------------------------ */
/* marker.c */

/* Lines of F carrying a `dumper-migrate: keep' comment (the line the
   comment ends on and the next), as a calloc'd array indexed by line,
   or NULL when there is none.  */
bool *migrate_keep_lines (const struct migrate_file *f);
/* Hold every site on a line a `dumper-migrate: review' marker covers
   (it becomes review, its edits go) and add a review site for each
   marker no rule matched.  */
void migrate_markers_apply (struct migrate_project *proj);
/* Add an edit writing a review marker above each line with a review
   site that no marker holds (sites sorted).  */
void migrate_markers_plan (struct migrate_project *proj);

/* ------------------------------------------------------------------ */
/* edit.c */

/* Apply the edits of FILE to its text (after migrate_edits_normalize:
   sorted by file and offset, non-overlapping).  Returns the new text
   (malloc'd, *LEN set), or NULL when FILE has no edits.  */
char *migrate_apply_edits (const struct migrate_project *proj, int file,
                           size_t *len);
/* Sort edits by file and offset and drop exact duplicates; an edit
   overlapping an earlier one is dropped and its site downgraded to
   review.  */
void migrate_edits_normalize (struct migrate_project *proj);

/* ------------------------------------------------------------------ */
/* diff.c */

/* One line operation of a diff.  */
enum migrate_diff_op { MIGRATE_DIFF_SAME, MIGRATE_DIFF_DEL, MIGRATE_DIFF_ADD };

/* The shortest edit script between line arrays A (NA lines) and B (NB)
   (Myers), as ops written to *OPS (malloc'd); returns the op count.  */
size_t migrate_diff_lines (const char *const *a, const size_t *alen, size_t na,
                           const char *const *b, const size_t *blen, size_t nb,
                           enum migrate_diff_op **ops);
/* Write a unified diff (3 lines of context, `--- PATH' / `+++ PATH'
   headers, no timestamps) from OLD to NEW.  Nothing when equal.  */
void migrate_diff_write (FILE *out, const char *path,
                         const char *old_text, size_t old_len,
                         const char *new_text, size_t new_len);

/* ------------------------------------------------------------------ */
/* report.c and json.c */

void migrate_report_text (FILE *out, const struct migrate_project *proj);
void migrate_report_json (FILE *out, const struct migrate_project *proj);
/* Write S as a JSON string literal.  */
void migrate_json_string (FILE *out, const char *s);

/* ------------------------------------------------------------------ */
/* fix.c */

/* Replace PATH's contents with TEXT atomically: a temporary file in the
   same directory, then rename.  When BACKUP, PATH.orig gets the old
   contents first (replacing an older backup).  On failure prints
   "dumper-migrate: PATH: reason" and returns false; PATH is unchanged.  */
bool migrate_fix_write (const char *path, const char *text, size_t len,
                        bool backup);

#endif /* MIGRATE_MIGRATE_H */
