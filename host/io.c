/* SPDX-License-Identifier: MIT */
/* host/io.c: loading files and the I/O builtins.

   Owns: `load' (read and evaluate a file's forms), printing to standard
   output, messages on standard error, the environment queries and
   `kill-emacs'.  File names resolve against the lisp directory
   (dl_lisp_dir), which is per-start data and never stored in the heap:
   `load-file-name' is bound only while a file loads.  */

#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lisp.h"

char *
dl_read_file (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return NULL;
  struct dl_buf b = { 0 };
  char chunk[65536];
  size_t n;
  while ((n = fread (chunk, 1, sizeof chunk, f)) > 0)
    dl_buf_add (&b, chunk, n);
  int err = ferror (f) ? errno : 0;
  fclose (f);
  if (err)
    {
      dl_buf_free (&b);
      errno = err;
      return NULL;
    }
  *len = b.len;
  if (b.data == NULL)
    dl_buf_add (&b, "", 0);
  return b.data;
}

dl_obj
dl_eval_text (const char *text, size_t len, const char *source)
{
  struct dl_reader r = { text, len, 0, 1, source };
  dl_obj form, value = Qnil;
  while (dl_read (&r, &form))
    {
      size_t top = dl_push (form);
      value = dl_eval (form, Qnil);
      dl_pop_to (top);
    }
  return value;
}

static void
free_buffer (void *p)
{
  dumper_free (p);
}

void
dl_load_file (const char *path)
{
  size_t len;
  char *text = dl_read_file (path, &len);
  if (text == NULL)
    dl_signal (DL_Q (file_error),
               dl_list (3, dl_make_cstring ("Cannot open load file"),
                        dl_make_cstring (strerror (errno)), dl_make_cstring (path)));
  size_t count = dl_specpdl_depth ();
  dl_record_unwind (free_buffer, text);
  dl_specbind (DL_Q (load_file_name), dl_make_cstring (path));
  dl_eval_text (text, len, path);
  dl_unbind_to (count);
}

static bool
file_exists (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 && S_ISREG (st.st_mode);
}

/* NAME is taken as given when absolute or starting with ./ or ../, else
   in the lisp directory; NAME.lisp is tried after NAME.  */
bool
dl_load (const char *name, bool noerror)
{
  struct dl_buf path = { 0 };
  bool as_given = name[0] == '/' || strncmp (name, "./", 2) == 0
                  || strncmp (name, "../", 3) == 0;
  if (!as_given)
    dl_buf_addf (&path, "%s/", dl_lisp_dir ());
  dl_buf_add (&path, name, strlen (name));
  if (!file_exists (path.data))
    dl_buf_add (&path, ".lisp", 5);
  if (!file_exists (path.data))
    {
      dl_buf_free (&path);
      if (noerror)
        return false;
      dl_signal (DL_Q (file_error),
                 dl_list (2, dl_make_cstring ("Cannot open load file"),
                          dl_make_cstring (name)));
    }
  /* The C copy of the path is freed by the unwind either way.  */
  size_t count = dl_specpdl_depth ();
  dl_record_unwind (free_buffer, path.data);
  dl_load_file (path.data);
  dl_unbind_to (count);
  return true;
}

static dl_obj
f_load (size_t nargs, dl_obj *args)
{
  (void) nargs;
  return dl_bool (dl_load (dl_sdata (dl_check_string (args[0])), args[1] != Qnil));
}

static void
write_out (FILE *stream, dl_obj x, bool escape)
{
  struct dl_buf b = { 0 };
  dl_print (&b, x, escape);
  if (b.len)
    fwrite (b.data, 1, b.len, stream);
  dl_buf_free (&b);
}

static dl_obj
f_prin1 (size_t nargs, dl_obj *args)
{
  (void) nargs;
  write_out (stdout, args[0], true);
  return args[0];
}

static dl_obj
f_princ (size_t nargs, dl_obj *args)
{
  (void) nargs;
  write_out (stdout, args[0], false);
  return args[0];
}

static dl_obj
f_print (size_t nargs, dl_obj *args)
{
  (void) nargs;
  fputc ('\n', stdout);
  write_out (stdout, args[0], true);
  fputc ('\n', stdout);
  return args[0];
}

static dl_obj
f_terpri (size_t nargs, dl_obj *args)
{
  (void) nargs;
  (void) args;
  fputc ('\n', stdout);
  return Qt;
}

static dl_obj
f_message (size_t nargs, dl_obj *args)
{
  dl_obj s = dl_format (nargs, args);
  fflush (stdout);
  fwrite (dl_sdata (s), 1, dl_slen (s), stderr);
  fputc ('\n', stderr);
  return s;
}

static dl_obj
f_getenv (size_t nargs, dl_obj *args)
{
  (void) nargs;
  const char *v = getenv (dl_sdata (dl_check_string (args[0])));
  return v ? dl_make_cstring (v) : Qnil;
}

static dl_obj
f_float_time (size_t nargs, dl_obj *args)
{
  (void) nargs;
  (void) args;
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return dl_make_float ((double) ts.tv_sec + (double) ts.tv_nsec * 1e-9);
}

static dl_obj
f_file_exists_p (size_t nargs, dl_obj *args)
{
  (void) nargs;
  struct stat st;
  return dl_bool (stat (dl_sdata (dl_check_string (args[0])), &st) == 0);
}

static dl_obj
f_kill_emacs (size_t nargs, dl_obj *args)
{
  (void) nargs;
  int status = args[0] == Qnil ? 0 : (int) dl_check_fixnum (args[0]);
  fflush (stdout);
  exit (status);
}

static dl_obj
f_heap_digest (size_t nargs, dl_obj *args)
{
  (void) nargs;
  (void) args;
  struct dl_digest d;
  char hex[33];
  dl_heap_digest (&d);
  dl_digest_hex (&d, hex);
  return dl_make_cstring (hex);
}

static dl_obj
f_heap_stats (size_t nargs, dl_obj *args)
{
  (void) nargs;
  (void) args;
  return dl_list (4, dl_fix ((int64_t) dl_heap_stats.objects),
                  dl_fix ((int64_t) dl_heap_stats.bytes),
                  dl_fix ((int64_t) dl_heap_stats.gc_count),
                  dl_fix ((int64_t) dl_symbol_count ()));
}

const struct dl_builtin dl_io_builtins[] = {
  DL_BUILTIN ("load", f_load, 1, 2, "(load FILE [NOERROR]): read and evaluate FILE."),
  DL_BUILTIN ("prin1", f_prin1, 1, 2, "Print OBJECT readably to standard output."),
  DL_BUILTIN ("princ", f_princ, 1, 2, "Print OBJECT without quoting to standard output."),
  DL_BUILTIN ("print", f_print, 1, 2, "Print OBJECT readably on a line of its own."),
  DL_BUILTIN ("terpri", f_terpri, 0, 1, "Output a newline."),
  DL_BUILTIN ("message", f_message, 1, DL_MANY, "Format a message and print it on standard error."),
  DL_BUILTIN ("getenv", f_getenv, 1, 1, "The value of environment variable NAME, or nil."),
  DL_BUILTIN ("float-time", f_float_time, 0, 0, "Seconds since the epoch, a float."),
  DL_BUILTIN ("file-exists-p", f_file_exists_p, 1, 1, "True if FILE exists."),
  DL_BUILTIN ("kill-emacs", f_kill_emacs, 0, 1, "Exit with status CODE (default 0)."),
  DL_BUILTIN ("exit", f_kill_emacs, 0, 1, "Exit with status CODE (default 0)."),
  DL_BUILTIN ("dlisp-heap-digest", f_heap_digest, 0, 0, "Hex digest of the reachable heap."),
  DL_BUILTIN ("dlisp-heap-stats", f_heap_stats, 0, 0, "(OBJECTS BYTES GC-COUNT SYMBOLS)."),
};
DUMPER_DECLARE_OBJECTS (dl_io_builtins, DL_T_BUILTIN);
const size_t dl_io_builtin_count = sizeof dl_io_builtins / sizeof dl_io_builtins[0];
