/* SPDX-License-Identifier: MIT */
/* tools/inspect/out.c: output helpers shared by the views.

   The JSON writer prints one value per line with two-space indentation,
   members in the order the view gives them, so the output is stable
   and diffable.  Strings from the image or the executable (type names,
   symbols) are arbitrary bytes: bytes outside printable ASCII are
   escaped (\u00NN in JSON, \xNN in text), so the output is always valid
   JSON and never carries control characters to a terminal.  */

#include <config.h>

#include <inttypes.h>
#include <string.h>

#include "inspect.h"

void
insp_json_start (struct insp_json *json, FILE *out)
{
  memset (json, 0, sizeof *json);
  json->out = out;
}

void
insp_json_finish (struct insp_json *json)
{
  fputc ('\n', json->out);
}

static void
put_escaped (FILE *out, const unsigned char *s, size_t length)
{
  fputc ('"', out);
  for (size_t i = 0; i < length; i++)
    {
      unsigned char c = s[i];
      if (c == '"' || c == '\\')
        fprintf (out, "\\%c", c);
      else if (c >= 0x20 && c < 0x7f)
        fputc (c, out);
      else
        fprintf (out, "\\u%04x", c);
    }
  fputc ('"', out);
}

/* Start a member (KEY) or an array element (KEY NULL).  */
static void
item (struct insp_json *json, const char *key)
{
  if (json->depth > 0)
    {
      fputs (json->has_items[json->depth] ? ",\n" : "\n", json->out);
      json->has_items[json->depth] = true;
      fprintf (json->out, "%*s", 2 * json->depth, "");
    }
  if (key)
    {
      put_escaped (json->out, (const unsigned char *) key, strlen (key));
      fputs (": ", json->out);
    }
}

void
insp_json_open (struct insp_json *json, const char *key, char bracket)
{
  item (json, key);
  fputc (bracket, json->out);
  /* Deeper nesting than the views use is a bug of ours.  */
  if (json->depth + 1 < INSP_JSON_MAX_DEPTH)
    json->depth++;
  json->has_items[json->depth] = false;
}

void
insp_json_close (struct insp_json *json, char bracket)
{
  bool had_items = json->has_items[json->depth];
  if (json->depth > 0)
    json->depth--;
  if (had_items)
    fprintf (json->out, "\n%*s", 2 * json->depth, "");
  fputc (bracket, json->out);
}

void
insp_json_string (struct insp_json *json, const char *key, const char *value)
{
  insp_json_bytes (json, key, (const unsigned char *) value, strlen (value));
}

void
insp_json_bytes (struct insp_json *json, const char *key,
                 const unsigned char *value, size_t length)
{
  item (json, key);
  put_escaped (json->out, value, length);
}

void
insp_json_uint (struct insp_json *json, const char *key, uint64_t value)
{
  item (json, key);
  fprintf (json->out, "%" PRIu64, value);
}

void
insp_json_bool (struct insp_json *json, const char *key, bool value)
{
  item (json, key);
  fputs (value ? "true" : "false", json->out);
}

void
insp_json_null (struct insp_json *json, const char *key)
{
  item (json, key);
  fputs ("null", json->out);
}

void
insp_json_percent (struct insp_json *json, const char *key, double value)
{
  item (json, key);
  fprintf (json->out, "%.2f", value);
}

void
insp_put_name (FILE *out, const unsigned char *name, size_t length)
{
  for (size_t i = 0; i < length; i++)
    {
      if (name[i] >= 0x20 && name[i] < 0x7f && name[i] != '\\')
        fputc (name[i], out);
      else
        fprintf (out, "\\x%02x", name[i]);
    }
}

void
insp_put_padded_name (FILE *out, const unsigned char *name, size_t length,
                      int width)
{
  insp_put_name (out, name, length);
  if (length < (size_t) width)
    fprintf (out, "%*s", width - (int) length, "");
}

void
insp_hex (char *hex, const unsigned char *bytes, size_t size)
{
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < size; i++)
    {
      hex[2 * i] = digits[bytes[i] >> 4];
      hex[2 * i + 1] = digits[bytes[i] & 15];
    }
  hex[2 * size] = '\0';
}
