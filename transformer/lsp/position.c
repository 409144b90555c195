/* position.c: a document's text, and LSP's positions in it.
 *
 * LSP gives a position as a line and a character, both from 0, where a
 * line ends at LF, CR LF or a lone CR (as coroc counts lines too: source.c)
 * and the characters are counted in the encoding agreed at initialize:
 * UTF-16 code units (the default: a character past U+FFFF counts two) or
 * UTF-8 bytes. coroc's columns are bytes from 1. Each conversion here walks
 * the line it is on; a byte that is not part of a valid UTF-8 sequence
 * counts as one character. Separate from server.c so that the counting has
 * one home, which diagnose.c's ranges and the edits of didChange share; so
 * has the path a document's URI names (uri_path), which server.c and
 * clangd.c share.
 */
#include "lsp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 character at p (at most n bytes) and the UTF-16
   code units it takes; a byte that starts no valid character is one of each. */
static size_t char_at(const unsigned char *p, size_t n, int *units) {
  size_t len = utf8_length(p, n);
  if (len == 0)
    len = 1;
  *units = len == 4 ? 2 : 1;
  return len;
}

bool text_line(const Text *t, long line, size_t *start, size_t *len) {
  if (line < 0)
    return false;
  const char *p = t->text, *end = t->text + t->len;
  for (long l = 0; l < line; l++) {
    const char *nl = p;
    while (nl < end && *nl != '\n' && *nl != '\r')
      nl++;
    if (nl == end)
      return false;
    p = nl + (nl[0] == '\r' && nl + 1 < end && nl[1] == '\n' ? 2 : 1);
  }
  const char *eol = p;
  while (eol < end && *eol != '\n' && *eol != '\r')
    eol++;
  *start = p - t->text;
  *len = eol - p;
  return true;
}

size_t text_offset(const Text *t, Encoding enc, long line, long character) {
  size_t start, len;
  if (!text_line(t, line, &start, &len))
    return line < 0 ? 0 : t->len;
  if (character <= 0)
    return start;
  if (enc == ENC_UTF8)
    return start + ((size_t)character < len ? (size_t)character : len);
  const unsigned char *p = (const unsigned char *)t->text + start;
  size_t i = 0;
  for (long units = 0; i < len;) {
    int u;
    size_t n = char_at(p + i, len - i, &u);
    if (units + u > character)
      break; /* (inside a surrogate pair: the character's start) */
    units += u;
    i += n;
  }
  return start + i;
}

long text_character(const Text *t, Encoding enc, long line, size_t col) {
  size_t start, len;
  if (!text_line(t, line, &start, &len))
    return 0;
  if (col > len)
    col = len;
  if (enc == ENC_UTF8)
    return (long)col;
  const unsigned char *p = (const unsigned char *)t->text + start;
  long units = 0;
  for (size_t i = 0; i < col;) {
    int u;
    i += char_at(p + i, len - i, &u);
    units += u;
  }
  return units;
}

void text_position(const Text *t, Encoding enc, size_t at, long *line, long *character) {
  if (at > t->len)
    at = t->len;
  long l = 0;
  size_t start = 0;
  for (size_t i = 0; i < at; i++)
    if (t->text[i] == '\n' || (t->text[i] == '\r' && (i + 1 >= t->len || t->text[i + 1] != '\n'))) {
      l++;
      start = i + 1;
    }
  if (at > start && t->text[at - 1] == '\r' && at < t->len && t->text[at] == '\n')
    at--; /* (between CR and LF: the end of the line) */
  *line = l;
  *character = text_character(t, enc, l, at - start);
}

void text_replace(Text *t, size_t from, size_t to, const char *s, size_t len) {
  if (to > t->len)
    to = t->len;
  if (from > to)
    from = to;
  size_t n = t->len - (to - from) + len;
  char *text = malloc(n + 1);
  if (!text)
    abort(); /* (as jansson's allocations would fail next) */
  memcpy(text, t->text, from);
  memcpy(text + from, s, len);
  memcpy(text + from + len, t->text + to, t->len - to);
  text[n] = '\0';
  free(t->text);
  t->text = text;
  t->len = n;
}

void text_set(Text *t, const char *s, size_t len) {
  free(t->text);
  t->text = NULL;
  t->len = 0;
  t->text = malloc(1);
  if (!t->text)
    abort();
  t->text[0] = '\0';
  text_replace(t, 0, 0, s, len);
}

void text_free(Text *t) {
  free(t->text);
  *t = (Text){0};
}

/* The path a file: URI names (percent-escapes decoded); for another
   scheme, a name in the current directory that coroc can report with. */
char *uri_path(const char *uri) {
  const char *p = NULL;
  if (strncmp(uri, "file://", 7) == 0) {
    p = uri + 7;
    if (strncmp(p, "localhost/", 10) == 0)
      p += 9;
  }
  if (!p || *p != '/') {
    const char *slash = strrchr(uri, '/');
    p = slash && slash[1] ? slash + 1 : "untitled.coc";
  }
  char *path = malloc(strlen(p) + 1), *o = path;
  if (!path)
    abort();
  for (; *p && *p != '?' && *p != '#'; p++) {
    unsigned v;
    if (p[0] == '%' && sscanf(p + 1, "%2x", &v) == 1 && p[1] && p[2] && v != 0) {
      *o++ = (char)v;
      p += 2;
    } else {
      *o++ = *p;
    }
  }
  *o = '\0';
  return path;
}
