/* SPDX-License-Identifier: MIT */
/* tools/compare/heapdiff.c: the first divergence of two heap dumps.

   Owns: reading two heap dumps in the contract's line format
   (doc/compare.md), finding the first line where they differ, and
   naming that place as a path from a root a person can follow:

       symbol `foo' → property list → 4th element (property `size')
       cold:  float 1.5 (3ff8000000000000)
       pdump: float 1.25 (3ff4000000000000)

   The format, one record per line in the walk's order:

       #N LOCATION TYPE CONTENT     the first visit of object N
         LOCATION = VALUE           an edge to an immediate, to an object
                                    already numbered (#M), or a per-start
                                    value
       # ...                        a trailing summary

   LOCATION is a root, `KIND[i]', or `#M.FIELD': field FIELD of object M.
   Every record before the first difference is the same on both sides,
   so one side's object numbers locate the path on both.  Following
   LOCATION back from object to parent reaches the root; a run of
   `car'/`cdr' fields is read back as a list element, and a symbol's
   property list and a hash table name their keys.  */

#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

struct dump
{
  const char *name;
  char *text;
  size_t size;
  char *pos;              /* the next line */
  size_t line_no;
};

/* Object N's line (index N), for the common prefix of both dumps.  */
struct objects
{
  char **lines;
  size_t count, capacity;
};

/* One step of a path: field FIELD of object OBJECT.  */
struct step
{
  size_t object;
  const char *field;       /* points into a line; up to the next space */
};

/* The next line of D, NUL-terminated in place; NULL at the end.  */
static char *
next_line (struct dump *d)
{
  if (d->pos >= d->text + d->size)
    return NULL;
  char *line = d->pos;
  char *nl = memchr (line, '\n', (size_t) (d->text + d->size - line));
  if (nl)
    {
      *nl = '\0';
      d->pos = nl + 1;
    }
  else
    d->pos = d->text + d->size;
  d->line_no++;
  return line;
}

static bool
is_object_line (const char *line)
{
  return line[0] == '#' && isdigit ((unsigned char) line[1]);
}

static void
note_object (struct objects *o, char *line)
{
  size_t id = strtoul (line + 1, NULL, 10);
  /* Numbers run 1, 2, 3...: anything else is not this format, and the
     path is then left unresolved.  */
  if (id != o->count + 1)
    return;
  if (o->count + 2 > o->capacity)
    {
      o->capacity = o->capacity ? 2 * o->capacity : 4096;
      o->lines = tool_xrealloc (o->lines, o->capacity * sizeof *o->lines);
    }
  o->lines[++o->count] = line;
}

static const char *
object_line (const struct objects *o, size_t id)
{
  return id >= 1 && id <= o->count ? o->lines[id] : NULL;
}

/* The LOCATION word of LINE and its length.  */
static const char *
line_location (const char *line, size_t *len)
{
  const char *p = line;
  if (is_object_line (p))
    {
      p = strchr (p, ' ');
      if (p == NULL)
        {
          *len = 0;
          return line;
        }
      p++;
    }
  while (*p == ' ')
    p++;
  *len = strcspn (p, " ");
  return p;
}

/* What LINE says about its record: TYPE CONTENT of an object, or the
   VALUE of an edge.  */
static const char *
line_content (const char *line)
{
  size_t len;
  const char *loc = line_location (line, &len);
  const char *p = loc + len;
  if (strncmp (p, " = ", 3) == 0)
    return p + 3;
  return *p == ' ' ? p + 1 : p;
}

/* The type word of object line LINE into BUF.  */
static void
line_type (const char *line, char *buf, size_t size)
{
  const char *c = line ? line_content (line) : "";
  size_t n = strcspn (c, " ");
  if (n >= size)
    n = size - 1;
  memcpy (buf, c, n);
  buf[n] = '\0';
}

/* The first quoted string of object line LINE (a symbol's name).  */
static void
quoted_part (const char *line, char *buf, size_t size)
{
  const char *q = line ? strchr (line_content (line), '"') : NULL;
  size_t n = 0;
  if (q)
    for (q++; *q && n + 1 < size; q++)
      {
        if (*q == '\\' && q[1])
          buf[n++] = *++q;
        else if (*q == '"')
          break;
        else
          buf[n++] = *q;
      }
  buf[n] = '\0';
}

static const char *
ordinal_suffix (size_t n)
{
  if (n % 100 >= 11 && n % 100 <= 13)
    return "th";
  return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* A short readable form of the value an edge or object line holds:
   a symbol by name, a reference by what it refers to.  */
static void
describe_value (const struct objects *o, const char *line, char *buf, size_t size)
{
  const char *c = line_content (line);
  if (!is_object_line (line) && c[0] == '#' && isdigit ((unsigned char) c[1]))
    line = object_line (o, strtoul (c + 1, NULL, 10));
  if (line == NULL)
    {
      snprintf (buf, size, "%s", c);
      return;
    }
  c = line_content (line);
  if (is_object_line (line) && strncmp (c, "symbol ", 7) == 0)
    {
      char name[100];
      quoted_part (line, name, sizeof name);
      snprintf (buf, size, "`%s'", name);
    }
  else if (is_object_line (line) && strncmp (c, "string ", 7) == 0)
    snprintf (buf, size, "%.*s", (int) (size - 1 > 120 ? 120 : size - 1), c + 7);
  else
    snprintf (buf, size, "%.*s", (int) (size - 1 > 120 ? 120 : size - 1), c);
}

/* The line, from object line FROM on, whose location is #ID.FIELD.
   Pre-order puts it soon after its parent.  */
static const char *
find_field_line (const struct objects *o, size_t id, const char *field, const char *end)
{
  const char *line = object_line (o, id);
  char want[96];
  int n = snprintf (want, sizeof want, "#%zu.%s", id, field);
  if (line == NULL || n <= 0 || (size_t) n >= sizeof want)
    return NULL;
  /* Lines were NUL-terminated in place: step over each terminator.  */
  for (const char *p = line; p < end; p += strlen (p) + 1)
    {
      size_t len;
      const char *loc = line_location (p, &len);
      if (len == (size_t) n && strncmp (loc, want, len) == 0)
        return p;
    }
  return NULL;
}

static size_t
field_len (const char *field)
{
  return strcspn (field, " ");
}

static bool
field_is (const char *field, const char *name)
{
  return field_len (field) == strlen (name) && strncmp (field, name, strlen (name)) == 0;
}

/* Append TEXT to the path being written.  */
static void
put (char *buf, size_t size, size_t *len, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));

static void
put (char *buf, size_t size, size_t *len, const char *fmt, ...)
{
  if (*len >= size)
    return;
  va_list ap;
  va_start (ap, fmt);
  int n = vsnprintf (buf + *len, size - *len, fmt, ap);
  va_end (ap);
  if (n > 0)
    *len = *len + (size_t) n < size ? *len + (size_t) n : size - 1;
}

/* Render step ST, a field of an object of type TYPE that is not a
   list's car or cdr.  */
static void
render_field (const struct objects *o, const char *type, const struct step *st,
              const char *end, char *buf, size_t size, size_t *len)
{
  static const struct { const char *type, *field, *name; } names[] = {
    { "symbol", "name", "name" }, { "symbol", "value", "value" },
    { "symbol", "function", "function" }, { "symbol", "plist", "property list" },
    { "closure", "params", "parameters" }, { "closure", "body", "body" },
    { "closure", "env", "environment" }, { "closure", "name", "name" },
    { "macro", "expander", "expander" }, { "macro", "name", "name" },
  };
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (strcmp (type, names[k].type) == 0 && field_is (st->field, names[k].field))
      {
        put (buf, size, len, " → %s", names[k].name);
        return;
      }
  if (strncmp (st->field, "value[", 6) == 0)
    {
      /* A hash table value: say which key.  */
      char key_field[64], key[160];
      snprintf (key_field, sizeof key_field, "key[%.*s", (int) field_len (st->field) - 6,
                st->field + 6);
      const char *key_line = find_field_line (o, st->object, key_field, end);
      if (key_line)
        {
          describe_value (o, key_line, key, sizeof key);
          put (buf, size, len, " → value for key %s", key);
          return;
        }
    }
  if (st->field[0] == '[')
    put (buf, size, len, " → element %.*s", (int) field_len (st->field), st->field);
  else
    put (buf, size, len, " → %.*s", (int) field_len (st->field), st->field);
}

/* Write the path of STEPS (ROOT first) into BUF.  */
static void
render_path (const struct objects *o, const char *root, const struct step *steps,
             size_t count, const char *end, char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  char type[32];
  const char *root_line = count ? object_line (o, steps[0].object) : NULL;
  line_type (root_line, type, sizeof type);
  size_t root_len;
  const char *root_loc = root_line ? line_location (root_line, &root_len) : root;
  if (root_line == NULL)
    root_len = strcspn (root, " ");
  if (strncmp (root_loc, "symbol[", 7) == 0 && strcmp (type, "symbol") == 0)
    {
      char name[200];
      quoted_part (root_line, name, sizeof name);
      put (buf, size, &len, "symbol `%s'", name);
    }
  else
    put (buf, size, &len, "root %.*s%s%s%s", (int) root_len, root_loc,
         type[0] ? " (" : "", type, type[0] ? ")" : "");

  const char *previous_field = NULL;
  for (size_t i = 0; i < count; )
    {
      line_type (object_line (o, steps[i].object), type, sizeof type);
      if (strcmp (type, "cons") != 0)
        {
          render_field (o, type, &steps[i], end, buf, size, &len);
          previous_field = steps[i].field;
          i++;
          continue;
        }
      /* A list: its head, then cdr steps, then car (an element) or the
         end of the path (the tail after an element).  */
      bool plist = previous_field && field_is (previous_field, "plist");
      size_t element = 1;
      while (i < count && field_is (steps[i].field, "cdr"))
        {
          element++;
          i++;
        }
      if (i < count && field_is (steps[i].field, "car"))
        {
          put (buf, size, &len, " → %zu%s element", element, ordinal_suffix (element));
          if (plist && element % 2 == 0 && i >= 1)
            {
              /* The property's name is the car of the previous cons.  */
              const char *key = find_field_line (o, steps[i - 1].object, "car", end);
              char name[160];
              if (key)
                {
                  describe_value (o, key, name, sizeof name);
                  put (buf, size, &len, " (property %s)", name);
                }
            }
          previous_field = steps[i].field;
          i++;
        }
      else if (element > 1)
        {
          put (buf, size, &len, " → the rest after the %zu%s element", element - 1,
               ordinal_suffix (element - 1));
          previous_field = NULL;
        }
      else
        {
          /* Not a field of a cons: show it as it is.  */
          render_field (o, type, &steps[i], end, buf, size, &len);
          previous_field = steps[i].field;
          i++;
        }
    }
}

/* The path to the record at LINE: the steps from its root, outward.  */
static size_t
build_path (const struct objects *o, const char *line, struct step **steps_out,
            const char **root)
{
  size_t count = 0, capacity = 16;
  struct step *steps = tool_xmalloc (capacity * sizeof *steps);
  size_t len;
  const char *loc = line_location (line, &len);
  size_t limit = o->count + 1;
  while (loc[0] == '#' && count < limit)
    {
      char *dot;
      size_t id = strtoul (loc + 1, &dot, 10);
      const char *parent = object_line (o, id);
      if (*dot != '.' || parent == NULL)
        break;
      if (count == capacity)
        {
          capacity *= 2;
          steps = tool_xrealloc (steps, capacity * sizeof *steps);
        }
      steps[count++] = (struct step) { id, dot + 1 };
      loc = line_location (parent, &len);
    }
  *root = loc;
  /* Collected from the record back to the root: reverse.  */
  for (size_t i = 0; i < count / 2; i++)
    {
      struct step t = steps[i];
      steps[i] = steps[count - 1 - i];
      steps[count - 1 - i] = t;
    }
  *steps_out = steps;
  return count;
}

static void
print_side (FILE *out, const struct objects *o, const char *name, const char *line,
            size_t width)
{
  if (line == NULL)
    {
      fprintf (out, "  %-*s (no more records)\n", (int) width, name);
      return;
    }
  const char *c = line_content (line);
  if (!is_object_line (line) && c[0] == '#' && isdigit ((unsigned char) c[1]))
    {
      char what[160];
      describe_value (o, line, what, sizeof what);
      fprintf (out, "  %-*s %s, an object seen before: %s\n", (int) width, name, c, what);
    }
  else
    fprintf (out, "  %-*s %s\n", (int) width, name, c);
}

static bool
same_location (const char *a, const char *b)
{
  size_t la, lb;
  const char *x = line_location (a, &la), *y = line_location (b, &lb);
  return la == lb && strncmp (x, y, la) == 0;
}

static void
print_path (FILE *out, const struct objects *o, const char *line, const char *end)
{
  struct step *steps;
  const char *root;
  size_t count = build_path (o, line, &steps, &root);
  char path[2048];
  render_path (o, root, steps, count, end, path, sizeof path);
  fprintf (out, "  %s\n", path);
  free (steps);
}

static bool
load (struct dump *d, const char *path, const char *name)
{
  d->name = name;
  d->text = compare_read_file (path, &d->size);
  d->pos = d->text;
  d->line_no = 0;
  if (d->text == NULL)
    compare_error ("cannot read the heap dump %s: %s", path, strerror (errno));
  return d->text != NULL;
}

int
compare_heap_diff (const char *path_a, const char *name_a,
                   const char *path_b, const char *name_b, FILE *out)
{
  struct dump a, b;
  if (!load (&a, path_a, name_a))
    return -1;
  if (!load (&b, path_b, name_b))
    {
      free (a.text);
      return -1;
    }
  struct objects objs = { 0 };
  char *la, *lb;
  for (;;)
    {
      la = next_line (&a);
      lb = next_line (&b);
      if (la == NULL || lb == NULL || strcmp (la, lb) != 0)
        break;
      if (is_object_line (la))
        note_object (&objs, la);
    }
  int result = 0;
  if (la || lb)
    {
      result = 1;
      size_t width = strlen (name_a) > strlen (name_b) ? strlen (name_a) : strlen (name_b);
      width += 1;
      char label_a[64], label_b[64];
      snprintf (label_a, sizeof label_a, "%s:", name_a);
      snprintf (label_b, sizeof label_b, "%s:", name_b);
      fprintf (out, "first divergence of the heap dumps, at line %zu (%s and %s agree "
               "on the %zu objects before it):\n", la ? a.line_no : b.line_no, name_a,
               name_b, objs.count);
      /* The end of the common prefix: lines before it are searchable.  */
      const char *end = la ? la : a.text + a.size;
      print_path (out, &objs, la ? la : lb, end);
      if (la && lb && !same_location (la, lb))
        {
          fprintf (out, "  where %s has a record at another place:\n", name_b);
          print_path (out, &objs, lb, end);
        }
      print_side (out, &objs, label_a, la, width);
      print_side (out, &objs, label_b, lb, width);
      fprintf (out, "  the lines:\n    %-*s %s\n    %-*s %s\n", (int) width, label_a,
               la ? la : "(end of file)", (int) width, label_b, lb ? lb : "(end of file)");
    }
  free (objs.lines);
  free (a.text);
  free (b.text);
  return result;
}
