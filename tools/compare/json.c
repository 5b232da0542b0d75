/* SPDX-License-Identifier: MIT */
/* tools/compare/json.c: the results as JSON, written and read back.

   Owns: the file format of --json (doc/compare.md, "JSON"), a small
   JSON parser (RFC 8259: objects, arrays, strings with escapes, numbers,
   true, false, null; nesting at most 64 deep) and turning a parsed file
   back into results for --load and --baseline.

   Numbers are written with a fixed precision per figure, so writing the
   results read from a file gives that file again, byte for byte.  A
   file that is not JSON, or not this tool's format, is an error naming
   the file and the place; unknown members are ignored, so a newer tool's
   file can serve as an older tool's baseline -- unless it has rows an
   older tool does not know (the base-mode rows, pdump-fixed, ...: an
   older tool refuses a file that lists them in "modes").  Members and
   rows added since format 1 (base_modes, p99, the memory section's
   figures) are written only when measured, so a file without them is
   written again byte for byte.  */

#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

#define JSON_FORMAT 1
#define JSON_MAX_DEPTH 64

/* ------------------------------------------------------------------ */
/* Writing.  */

static void
write_string (FILE *f, const char *s)
{
  fputc ('"', f);
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    if (*p == '"' || *p == '\\')
      fprintf (f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf (f, "\\u%04x", *p);
    else
      fputc (*p, f);
  fputc ('"', f);
}

static void
write_stat (FILE *f, const struct compare_stat *s, int decimals)
{
  fprintf (f, "{\"median\": %.*f, \"min\": %.*f, \"max\": %.*f, ", decimals, s->median,
           decimals, s->min, decimals, s->max);
  if (s->has_p99)
    fprintf (f, "\"p99\": %.*f, ", decimals, s->p99);
  fprintf (f, "\"n\": %d}", s->n);
}

/* The base modes of the rows that have one (written only when some row
   has: a file without base-mode rows is the same as before them).  */
static void
write_base_modes (FILE *f, const struct compare_results *r, const struct compare_scale *s)
{
  bool any = false;
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    any = any || (r->modes[m] && s->base[m].asked[0]);
  if (!any)
    return;
  fprintf (f, ",\n      \"base_modes\": {");
  const char *sep = "\n";
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    {
      const struct compare_base_info *b = &s->base[m];
      if (!r->modes[m] || !b->asked[0])
        continue;
      fprintf (f, "%s        \"%s\": {\"asked\": ", sep, compare_mode_names[m]);
      write_string (f, b->asked);
      fprintf (f, ", \"reported\": ");
      write_string (f, b->reported);
      fprintf (f, ", \"placement\": ");
      write_string (f, b->placement);
      fprintf (f, ", \"method\": ");
      write_string (f, b->method);
      fprintf (f, ", \"reason\": ");
      write_string (f, b->reason);
      fprintf (f, ", \"stats_runs\": %d, \"fallbacks\": %d", b->stats_runs, b->fallbacks);
      if (b->refused[0])
        {
          fprintf (f, ", \"refused\": ");
          write_string (f, b->refused);
        }
      fprintf (f, "}");
      sep = ",\n";
    }
  fprintf (f, "\n      }");
}

static void
write_scale (FILE *f, const struct compare_results *r, const struct compare_scale *s)
{
  fprintf (f, "    {\n      \"scale\": %ld,\n      \"load_method\": ", s->scale);
  write_string (f, s->load_method);
  fprintf (f, ",\n      \"digests\": {");
  const char *sep = "";
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    if (r->modes[m])
      {
        fprintf (f, "%s\"%s\": ", sep, compare_mode_names[m]);
        write_string (f, s->digest[m]);
        sep = ", ";
      }
  static const struct { const char *key; enum compare_mode num, den; } ratios[] = {
    { "cold_unexec", COMPARE_COLD, COMPARE_UNEXEC },
    { "cold_pdump", COMPARE_COLD, COMPARE_PDUMP },
    { "pdump_unexec", COMPARE_PDUMP, COMPARE_UNEXEC },
    { "embedded_pdump", COMPARE_EMBEDDED, COMPARE_PDUMP },
    { "embedded_unexec", COMPARE_EMBEDDED, COMPARE_UNEXEC },
  };
  fprintf (f, "},\n      \"start_ratios\": {");
  sep = "";
  for (size_t k = 0; k < sizeof ratios / sizeof ratios[0]; k++)
    {
      double v = compare_ratio (s, COMPARE_FIG_START_MS, ratios[k].num, ratios[k].den);
      if (v > 0)
        {
          fprintf (f, "%s\"%s\": %.3f", sep, ratios[k].key, v);
          sep = ", ";
        }
    }
  /* A base-mode row against unexec and pdump: "pdump_fixed_unexec".  */
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    for (int den = COMPARE_UNEXEC; den <= COMPARE_PDUMP && compare_base_row_p (m); den++)
      {
        double v = r->modes[m] ? compare_ratio (s, COMPARE_FIG_START_MS, m, den) : 0;
        if (v <= 0)
          continue;
        char key[64];
        snprintf (key, sizeof key, "%s_%s", compare_mode_names[m], compare_mode_names[den]);
        for (char *c = key; *c; c++)
          if (*c == '-')
            *c = '_';
        fprintf (f, "%s\"%s\": %.3f", sep, key, v);
        sep = ", ";
      }
  fprintf (f, "},\n      \"figures\": {");
  sep = "\n";
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    {
      if (!r->modes[m])
        continue;
      fprintf (f, "%s        \"%s\": {", sep, compare_mode_names[m]);
      const char *fsep = "\n";
      for (int k = 0; k < COMPARE_FIG_COUNT; k++)
        if (s->fig[m][k].n)
          {
            fprintf (f, "%s          \"%s\": ", fsep, compare_figures[k].key);
            write_stat (f, &s->fig[m][k], compare_figures[k].decimals);
            fsep = ",\n";
          }
      fprintf (f, "\n        }");
      sep = ",\n";
    }
  fprintf (f, "\n      }");
  write_base_modes (f, r, s);
  fprintf (f, "\n    }");
}

int
compare_json_write (const char *path, const struct compare_results *r)
{
  FILE *f = fopen (path, "w");
  if (f == NULL)
    {
      compare_error ("cannot write %s: %s", path, strerror (errno));
      return COMPARE_EXIT_CANTCREAT;
    }
  fprintf (f, "{\n  \"tool\": \"dumper-compare\",\n  \"version\": \"%s\",\n"
           "  \"format\": %d,\n  \"host\": ", PACKAGE_VERSION, JSON_FORMAT);
  write_string (f, r->host);
  fprintf (f, ",\n  \"runs\": %d,\n  \"modes\": [", r->runs);
  const char *sep = "";
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    if (r->modes[m])
      {
        fprintf (f, "%s\"%s\"", sep, compare_mode_names[m]);
        sep = ", ";
      }
  fprintf (f, "],\n  \"scales\": [\n");
  for (size_t i = 0; i < r->scale_count; i++)
    {
      write_scale (f, r, &r->scales[i]);
      fprintf (f, "%s\n", i + 1 < r->scale_count ? "," : "");
    }
  fprintf (f, "  ]\n}\n");
  if (fclose (f) != 0)
    {
      compare_error ("error writing %s: %s", path, strerror (errno));
      return COMPARE_EXIT_CANTCREAT;
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Parsing.  */

struct parser
{
  const char *text, *p;
  char *err;
  size_t err_size;
  bool failed;
};

static void
parse_error (struct parser *ps, const char *what)
{
  if (ps->failed)
    return;
  ps->failed = true;
  size_t line = 1, column = 1;
  for (const char *q = ps->text; q < ps->p; q++)
    if (*q == '\n')
      {
        line++;
        column = 1;
      }
    else
      column++;
  snprintf (ps->err, ps->err_size, "line %zu, column %zu: %s", line, column, what);
}

static void
skip_space (struct parser *ps)
{
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
    ps->p++;
}

static bool parse_value (struct parser *ps, struct compare_json *v, int depth);

static unsigned
hex4 (struct parser *ps)
{
  unsigned v = 0;
  for (int i = 0; i < 4; i++)
    {
      char c = *ps->p++;
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= (unsigned) (c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= (unsigned) (c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= (unsigned) (c - 'A' + 10);
      else
        {
          ps->p--;
          parse_error (ps, "bad \\u escape");
          return 0;
        }
    }
  return v;
}

static size_t
put_utf8 (char *out, unsigned cp)
{
  if (cp < 0x80)
    {
      out[0] = (char) cp;
      return 1;
    }
  if (cp < 0x800)
    {
      out[0] = (char) (0xC0 | (cp >> 6));
      out[1] = (char) (0x80 | (cp & 0x3F));
      return 2;
    }
  if (cp < 0x10000)
    {
      out[0] = (char) (0xE0 | (cp >> 12));
      out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
      out[2] = (char) (0x80 | (cp & 0x3F));
      return 3;
    }
  out[0] = (char) (0xF0 | (cp >> 18));
  out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char) (0x80 | (cp & 0x3F));
  return 4;
}

/* A string; ps->p is at the opening quote.  */
static char *
parse_string (struct parser *ps)
{
  ps->p++;
  const char *start = ps->p;
  /* Escapes only shrink the text (\uXXXX is at most 4 bytes of UTF-8
     for 6 of input; a surrogate pair 4 for 12).  */
  size_t limit = 0;
  while (start[limit] && start[limit] != '"')
    limit += start[limit] == '\\' && start[limit + 1] ? 2 : 1;
  char *out = tool_xmalloc (limit + 1);
  size_t n = 0;
  for (;;)
    {
      unsigned char c = (unsigned char) *ps->p;
      if (c == '\0')
        {
          parse_error (ps, "unterminated string");
          break;
        }
      if (c < 0x20)
        {
          parse_error (ps, "control character in a string");
          break;
        }
      ps->p++;
      if (c == '"')
        {
          out[n] = '\0';
          return out;
        }
      if (c != '\\')
        {
          out[n++] = (char) c;
          continue;
        }
      static const char escapes[] = "\"\\/bfnrt", values[] = "\"\\/\b\f\n\r\t";
      char e = *ps->p++;
      const char *simple = e ? strchr (escapes, e) : NULL;
      if (simple)
        {
          out[n++] = values[simple - escapes];
          continue;
        }
      if (e != 'u')
        {
          ps->p--;
          parse_error (ps, "bad escape in a string");
          break;
        }
      unsigned cp = hex4 (ps);
      if (cp >= 0xD800 && cp < 0xDC00 && ps->p[0] == '\\' && ps->p[1] == 'u')
        {
          ps->p += 2;
          unsigned low = hex4 (ps);
          if (low >= 0xDC00 && low < 0xE000)
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
      if (ps->failed)
        break;
      n += put_utf8 (out + n, cp);
    }
  free (out);
  return NULL;
}

static bool
parse_number (struct parser *ps, double *out)
{
  const char *q = ps->p;
  if (*q == '-')
    q++;
  if (!(*q >= '0' && *q <= '9'))
    {
      parse_error (ps, "expected a value");
      return false;
    }
  char *end;
  errno = 0;
  *out = strtod (ps->p, &end);
  if (errno == ERANGE || end == ps->p)
    {
      parse_error (ps, "bad number");
      return false;
    }
  ps->p = end;
  return true;
}

/* Append a zeroed child to V (an array or object) and return it.  */
static struct compare_json *
add_child (struct compare_json *v, size_t *capacity)
{
  if (v->count == *capacity)
    {
      *capacity = *capacity ? 2 * *capacity : 4;
      v->items = tool_xrealloc (v->items, *capacity * sizeof *v->items);
      if (v->type == COMPARE_JSON_OBJECT)
        v->names = tool_xrealloc (v->names, *capacity * sizeof *v->names);
    }
  memset (&v->items[v->count], 0, sizeof v->items[0]);
  if (v->type == COMPARE_JSON_OBJECT)
    v->names[v->count] = NULL;
  return &v->items[v->count++];
}

static bool
parse_container (struct parser *ps, struct compare_json *v, int depth)
{
  bool object = *ps->p == '{';
  char close = object ? '}' : ']';
  v->type = object ? COMPARE_JSON_OBJECT : COMPARE_JSON_ARRAY;
  ps->p++;
  skip_space (ps);
  if (*ps->p == close)
    {
      ps->p++;
      return true;
    }
  size_t capacity = 0;
  for (;;)
    {
      char *name = NULL;
      if (object)
        {
          skip_space (ps);
          if (*ps->p != '"')
            {
              parse_error (ps, "expected a member name");
              return false;
            }
          if ((name = parse_string (ps)) == NULL)
            return false;
          skip_space (ps);
          if (*ps->p != ':')
            {
              free (name);
              parse_error (ps, "expected `:'");
              return false;
            }
          ps->p++;
        }
      struct compare_json *child = add_child (v, &capacity);
      if (object)
        v->names[v->count - 1] = name;
      if (!parse_value (ps, child, depth + 1))
        return false;
      skip_space (ps);
      if (*ps->p == ',')
        {
          ps->p++;
          continue;
        }
      if (*ps->p == close)
        {
          ps->p++;
          return true;
        }
      parse_error (ps, object ? "expected `,' or `}'" : "expected `,' or `]'");
      return false;
    }
}

static bool
parse_value (struct parser *ps, struct compare_json *v, int depth)
{
  if (depth > JSON_MAX_DEPTH)
    {
      parse_error (ps, "nested too deeply");
      return false;
    }
  skip_space (ps);
  switch (*ps->p)
    {
    case '{':
    case '[':
      return parse_container (ps, v, depth);
    case '"':
      v->type = COMPARE_JSON_STRING;
      return (v->string = parse_string (ps)) != NULL;
    default:
      break;
    }
  static const struct { const char *word; enum compare_json_type type; bool value; } words[] = {
    { "true", COMPARE_JSON_BOOL, true }, { "false", COMPARE_JSON_BOOL, false },
    { "null", COMPARE_JSON_NULL, false },
  };
  for (size_t k = 0; k < 3; k++)
    if (strncmp (ps->p, words[k].word, strlen (words[k].word)) == 0)
      {
        v->type = words[k].type;
        v->boolean = words[k].value;
        ps->p += strlen (words[k].word);
        return true;
      }
  v->type = COMPARE_JSON_NUMBER;
  return parse_number (ps, &v->number);
}

struct compare_json *
compare_json_parse (const char *text, char *err, size_t err_size)
{
  struct parser ps = { text, text, err, err_size, false };
  struct compare_json *v = tool_xmalloc (sizeof *v);
  memset (v, 0, sizeof *v);
  if (parse_value (&ps, v, 0))
    {
      skip_space (&ps);
      if (*ps.p != '\0')
        parse_error (&ps, "text after the value");
    }
  else
    parse_error (&ps, "syntax error");
  if (ps.failed)
    {
      compare_json_free (v);
      return NULL;
    }
  return v;
}

const struct compare_json *
compare_json_member (const struct compare_json *obj, const char *name)
{
  if (obj == NULL || obj->type != COMPARE_JSON_OBJECT)
    return NULL;
  for (size_t i = 0; i < obj->count; i++)
    if (obj->names[i] && strcmp (obj->names[i], name) == 0)
      return &obj->items[i];
  return NULL;
}

static void
json_clear (struct compare_json *v)
{
  for (size_t i = 0; i < v->count; i++)
    {
      json_clear (&v->items[i]);
      if (v->names)
        free (v->names[i]);
    }
  free (v->items);
  free (v->names);
  free (v->string);
}

void
compare_json_free (struct compare_json *v)
{
  if (v == NULL)
    return;
  json_clear (v);
  free (v);
}

/* ------------------------------------------------------------------ */
/* Results from a parsed file.  */

static const struct compare_json *
typed (const struct compare_json *obj, const char *name, enum compare_json_type type)
{
  const struct compare_json *m = compare_json_member (obj, name);
  return m && m->type == type ? m : NULL;
}

static int
mode_index (const char *name)
{
  for (int m = 0; m < COMPARE_MODE_COUNT; m++)
    if (strcmp (name, compare_mode_names[m]) == 0)
      return m;
  return -1;
}

static const char *
load_stat (const struct compare_json *v, struct compare_stat *s)
{
  const struct compare_json *median = typed (v, "median", COMPARE_JSON_NUMBER);
  const struct compare_json *min = typed (v, "min", COMPARE_JSON_NUMBER);
  const struct compare_json *max = typed (v, "max", COMPARE_JSON_NUMBER);
  const struct compare_json *n = typed (v, "n", COMPARE_JSON_NUMBER);
  if (!median || !min || !max || !n || n->number < 1 || n->number > 1e6)
    return "a figure needs numbers median, min, max and n (1 or more)";
  const struct compare_json *p99 = typed (v, "p99", COMPARE_JSON_NUMBER);
  *s = (struct compare_stat) { median->number, min->number, max->number, (int) n->number,
                               p99 ? p99->number : 0, p99 != NULL };
  return NULL;
}

/* A string member NAME of OBJ into BUF ("" when absent).  */
static void
load_string (const struct compare_json *obj, const char *name, char *buf, size_t size)
{
  const struct compare_json *v = typed (obj, name, COMPARE_JSON_STRING);
  snprintf (buf, size, "%s", v ? v->string : "");
}

static const char *
load_base_modes (const struct compare_json *v, struct compare_results *r,
                 struct compare_scale *s)
{
  const struct compare_json *modes = typed (v, "base_modes", COMPARE_JSON_OBJECT);
  for (size_t i = 0; modes && i < modes->count; i++)
    {
      int m = mode_index (modes->names[i]);
      const struct compare_json *o = &modes->items[i];
      if (m < 0 || !r->modes[m])
        return "`base_modes' names a mode not in `modes'";
      if (o->type != COMPARE_JSON_OBJECT || !typed (o, "asked", COMPARE_JSON_STRING))
        return "a base mode needs an object with a string `asked'";
      struct compare_base_info *b = &s->base[m];
      load_string (o, "asked", b->asked, sizeof b->asked);
      load_string (o, "reported", b->reported, sizeof b->reported);
      load_string (o, "placement", b->placement, sizeof b->placement);
      load_string (o, "method", b->method, sizeof b->method);
      load_string (o, "reason", b->reason, sizeof b->reason);
      load_string (o, "refused", b->refused, sizeof b->refused);
      const struct compare_json *runs = typed (o, "stats_runs", COMPARE_JSON_NUMBER);
      const struct compare_json *fallbacks = typed (o, "fallbacks", COMPARE_JSON_NUMBER);
      if (!runs || !fallbacks || runs->number < 0 || runs->number > 1e6
          || fallbacks->number < 0 || fallbacks->number > runs->number)
        return "a base mode needs whole numbers stats_runs and fallbacks (at most stats_runs)";
      b->stats_runs = (int) runs->number;
      b->fallbacks = (int) fallbacks->number;
    }
  return NULL;
}

static const char *
load_scale (const struct compare_json *v, struct compare_results *r, struct compare_scale *s)
{
  const struct compare_json *scale = typed (v, "scale", COMPARE_JSON_NUMBER);
  if (scale == NULL || scale->number < 1 || scale->number > 100000
      || scale->number != (double) (long) scale->number)
    return "each scale needs a whole number `scale'";
  s->scale = (long) scale->number;
  const struct compare_json *method = typed (v, "load_method", COMPARE_JSON_STRING);
  if (method)
    snprintf (s->load_method, sizeof s->load_method, "%s", method->string);
  const struct compare_json *digests = typed (v, "digests", COMPARE_JSON_OBJECT);
  for (size_t i = 0; digests && i < digests->count; i++)
    {
      int m = mode_index (digests->names[i]);
      if (m >= 0 && digests->items[i].type == COMPARE_JSON_STRING)
        snprintf (s->digest[m], sizeof s->digest[m], "%s", digests->items[i].string);
    }
  const struct compare_json *figures = typed (v, "figures", COMPARE_JSON_OBJECT);
  if (figures == NULL)
    return "each scale needs an object `figures'";
  for (size_t i = 0; i < figures->count; i++)
    {
      int m = mode_index (figures->names[i]);
      const struct compare_json *of = &figures->items[i];
      if (m < 0 || !r->modes[m])
        return "`figures' names a mode not in `modes'";
      if (of->type != COMPARE_JSON_OBJECT)
        return "the figures of a mode must be an object";
      for (size_t k = 0; k < of->count; k++)
        for (int f = 0; f < COMPARE_FIG_COUNT; f++)
          if (strcmp (of->names[k], compare_figures[f].key) == 0)
            {
              const char *bad = load_stat (&of->items[k], &s->fig[m][f]);
              if (bad)
                return bad;
            }
    }
  return load_base_modes (v, r, s);
}

static const char *
load_results (const struct compare_json *root, struct compare_results *r)
{
  const struct compare_json *tool = typed (root, "tool", COMPARE_JSON_STRING);
  const struct compare_json *format = typed (root, "format", COMPARE_JSON_NUMBER);
  if (tool == NULL || strcmp (tool->string, "dumper-compare") != 0)
    return "not a dumper-compare results file (no \"tool\": \"dumper-compare\")";
  if (format == NULL || format->number != JSON_FORMAT)
    return "another format version of the results file";
  const struct compare_json *host = typed (root, "host", COMPARE_JSON_STRING);
  const struct compare_json *runs = typed (root, "runs", COMPARE_JSON_NUMBER);
  const struct compare_json *modes = typed (root, "modes", COMPARE_JSON_ARRAY);
  const struct compare_json *scales = typed (root, "scales", COMPARE_JSON_ARRAY);
  if (!host || !runs || !modes || !scales || runs->number < 1 || runs->number > 1000)
    return "missing \"host\", \"runs\" (1 to 1000), \"modes\" or \"scales\"";
  snprintf (r->host, sizeof r->host, "%s", host->string);
  r->runs = (int) runs->number;
  for (size_t i = 0; i < modes->count; i++)
    {
      int m = modes->items[i].type == COMPARE_JSON_STRING
              ? mode_index (modes->items[i].string) : -1;
      if (m < 0)
        return "\"modes\" holds an unknown mode";
      r->modes[m] = true;
    }
  if (!r->modes[COMPARE_COLD])
    return "\"modes\" lacks \"cold\"";
  if (scales->count > COMPARE_MAX_SCALES)
    return "too many scales";
  for (size_t i = 0; i < scales->count; i++)
    {
      if (scales->items[i].type != COMPARE_JSON_OBJECT)
        return "each scale must be an object";
      const char *bad = load_scale (&scales->items[i], r, &r->scales[r->scale_count++]);
      if (bad)
        return bad;
    }
  return NULL;
}

int
compare_json_load (const char *path, struct compare_results *r)
{
  memset (r, 0, sizeof *r);
  char *text = compare_read_file (path, NULL);
  if (text == NULL)
    {
      compare_error ("cannot read %s: %s", path, strerror (errno));
      return COMPARE_EXIT_NOINPUT;
    }
  char err[200];
  struct compare_json *root = compare_json_parse (text, err, sizeof err);
  free (text);
  if (root == NULL)
    {
      compare_error ("%s: not valid JSON: %s", path, err);
      return COMPARE_EXIT_DATA;
    }
  const char *bad = root->type == COMPARE_JSON_OBJECT ? load_results (root, r)
                                                      : "the top level must be an object";
  compare_json_free (root);
  if (bad)
    {
      compare_error ("%s: %s", path, bad);
      return COMPARE_EXIT_DATA;
    }
  return 0;
}
