/* rpc.c: the server's messages, JSON-RPC 2.0 in LSP's framing.
 *
 *   Content-Length: 52\r\n
 *   \r\n
 *   {"jsonrpc":"2.0","id":1,"method":"shutdown"}
 *
 * A message that is not one must not end the server: a header block
 * without a usable Content-Length, a body that is not JSON, JSON that is
 * not a request, each gets its error reply (id null when the id cannot be
 * read, as JSON-RPC says) and the next message is read as usual. The only
 * end is the end of the input. Separate from server.c, which knows what
 * the methods mean; this file only knows what a message is.
 */
#define _GNU_SOURCE
#include "lsp.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* A body larger than this is refused (and skipped): a document is never near it. */
enum { MAX_BODY = 1 << 28 };

/* {==================================================================
 * Reading standard input
 * =================================================================== */

static struct {
  char buf[1 << 16];
  size_t start, end; /* what is read and not yet taken */
  bool eof;
} in;

/* More input into the buffer (after moving what is left to its start);
   false at the end of the input. */
static bool fill(void) {
  if (in.eof)
    return false;
  if (in.start > 0) {
    memmove(in.buf, in.buf + in.start, in.end - in.start);
    in.end -= in.start;
    in.start = 0;
  }
  if (in.end == sizeof in.buf)
    return true; /* full: the caller takes from it */
  for (;;) {
    ssize_t r = read(0, in.buf + in.end, sizeof in.buf - in.end);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      in.eof = true;
      return false;
    }
    in.end += r;
    return true;
  }
}

bool rpc_pending(void) {
  if (in.end > in.start || in.eof)
    return true;
  struct pollfd p = {.fd = 0, .events = POLLIN};
  return poll(&p, 1, 0) > 0;
}

/* One header line, without its CR LF (or LF), into line (cut at its size);
   false at the end of the input. */
static bool read_line(char *line, size_t size, size_t *len) {
  *len = 0;
  for (;;) {
    if (in.start == in.end && !fill())
      return *len > 0;
    char c = in.buf[in.start++];
    if (c == '\n')
      break;
    if (*len + 1 < size)
      line[(*len)++] = c;
  }
  if (*len > 0 && line[*len - 1] == '\r')
    (*len)--;
  line[*len] = '\0';
  return true;
}

/* n bytes of the body into out (NULL: skipped); false if the input ended first. */
static bool read_body(char *out, size_t n) {
  while (n > 0) {
    if (in.start == in.end && !fill())
      return false;
    size_t take = in.end - in.start < n ? in.end - in.start : n;
    if (out) {
      memcpy(out, in.buf + in.start, take);
      out += take;
    }
    in.start += take;
    n -= take;
  }
  return true;
}

/* }================================================================== */

/* {==================================================================
 * Writing standard output
 * =================================================================== */

static void write_all(const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(1, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      exit(1); /* the client is gone: nobody is left to serve */
    p += w;
    n -= w;
  }
}

/* Send one message (and give back its reference). */
static void send_message(json_t *msg) {
  char *body = json_dumps(msg, JSON_COMPACT);
  json_decref(msg);
  if (!body)
    return; /* (only if memory ran out) */
  char head[64];
  size_t len = strlen(body);
  int n = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
  write_all(head, n);
  write_all(body, len);
  free(body);
}

void rpc_reply(json_t *id, json_t *result) {
  json_t *msg = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(),
                          "result", result ? result : json_null());
  send_message(msg);
}

void rpc_error(json_t *id, int code, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  json_t *error = json_pack("{s:i, s:o}", "code", code, "message", json_text(text, strlen(text)));
  json_t *msg =
      json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", error);
  send_message(msg);
}

void rpc_notify(const char *method, json_t *params) {
  send_message(json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params", params));
}

void rpc_log(int type, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  rpc_notify("window/logMessage",
             json_pack("{s:i, s:o}", "type", type, "message", json_text(text, strlen(text))));
}

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if none:
   the one test of UTF-8 that JSON's strings and position.c's columns share. */
size_t utf8_length(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len = c < 0x80                 ? 1
               : c >= 0xC2 && c <= 0xDF ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
  if (len == 0 || len > n)
    return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || /* overlong, surrogates */
      (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))   /* overlong, past U+10FFFF */
    return 0;
  return len;
}

json_t *json_text(const char *s, size_t len) {
  json_t *j = json_stringn(s, len);
  if (j)
    return j;
  char *clean = malloc(3 * len + 1), *o = clean;
  if (!clean)
    return json_string("");
  for (size_t i = 0; i < len;) {
    size_t n = utf8_length((const unsigned char *)s + i, len - i);
    if (n == 0) {
      memcpy(o, "\xEF\xBF\xBD", 3); /* U+FFFD */
      o += 3;
      i++;
    } else {
      memcpy(o, s + i, n);
      o += n;
      i += n;
    }
  }
  j = json_stringn(clean, o - clean);
  free(clean);
  return j ? j : json_string("");
}

/* }================================================================== */

/* {==================================================================
 * Reading a message
 * =================================================================== */

/* The header block up to its empty line: the body's length, or -1 when no
   usable Content-Length was given (the reason in *why); 0 when the input
   ended. A Content-Type other than JSON's in UTF-8 is refused too. */
static long read_header(const char **why, bool *eof) {
  char line[1024];
  size_t len;
  long length = -1;
  bool bad = false;
  *why = "no Content-Length header";
  *eof = false;
  for (int lines = 0;; lines++) {
    if (!read_line(line, sizeof line, &len)) {
      *eof = true;
      return -1;
    }
    if (len == 0) {
      if (lines == 0)
        continue; /* a blank line between messages is no header block */
      break;
    }
    char *colon = strchr(line, ':');
    if (!colon) {
      bad = true;
      *why = "a header line without a colon";
      continue;
    }
    *colon = '\0';
    const char *value = colon + 1 + strspn(colon + 1, " \t");
    if (strcasecmp(line, "Content-Length") == 0) {
      char *end;
      errno = 0;
      long n = strtol(value, &end, 10);
      if (end == value || *end || errno || n < 0) {
        bad = true;
        *why = "Content-Length is not a number";
      } else {
        length = n;
      }
    } else if (strcasecmp(line, "Content-Type") == 0) {
      if (!strstr(value, "json") ||
          (strstr(value, "charset") && !strcasestr(value, "utf-8") && !strcasestr(value, "utf8"))) {
        bad = true;
        *why = "Content-Type is not JSON in UTF-8";
      }
    } /* (other headers are ignored, as the protocol says) */
  }
  if (bad && length >= 0) { /* the body is there: skip it, the next message follows */
    if (!read_body(NULL, length))
      *eof = true;
    return -1;
  }
  if (length > MAX_BODY) {
    *why = "the message is too large";
    if (!read_body(NULL, length))
      *eof = true;
    return -1;
  }
  return length;
}

/* Is it an id JSON-RPC allows (a number or a string)? */
static bool valid_id(const json_t *id) {
  return json_is_integer(id) || json_is_string(id) || json_is_real(id);
}

/* Classify a parsed body; an invalid one is answered here. */
static MsgKind classify(Message *m) {
  json_t *root = m->root;
  if (!json_is_object(root)) {
    rpc_error(NULL, RPC_INVALID_REQUEST, "a message must be a JSON object");
    return MSG_BAD;
  }
  json_t *id = json_object_get(root, "id");
  json_t *method = json_object_get(root, "method");
  json_t *version = json_object_get(root, "jsonrpc");
  json_t *params = json_object_get(root, "params");
  if (json_is_null(params))
    params = NULL; /* ("params": null for shutdown and exit, as some clients send: as if absent) */
  bool id_ok = id && valid_id(id);
  if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0) {
    rpc_error(id_ok ? id : NULL, RPC_INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"");
    return MSG_BAD;
  }
  if (id && !id_ok && !json_is_null(id)) {
    rpc_error(NULL, RPC_INVALID_REQUEST, "an id must be a number or a string");
    return MSG_BAD;
  }
  if (!method) {
    if (id && (json_object_get(root, "result") || json_object_get(root, "error")))
      return MSG_RESPONSE;
    rpc_error(id_ok ? id : NULL, RPC_INVALID_REQUEST, "a request needs a \"method\"");
    return MSG_BAD;
  }
  if (!json_is_string(method)) {
    rpc_error(id_ok ? id : NULL, RPC_INVALID_REQUEST, "\"method\" must be a string");
    return MSG_BAD;
  }
  if (params && !json_is_object(params) && !json_is_array(params)) {
    if (id_ok)
      rpc_error(id, RPC_INVALID_PARAMS, "\"params\" must be an object or an array");
    return MSG_BAD;
  }
  m->method = json_string_value(method);
  m->params = params;
  m->id = id_ok ? id : NULL;
  return id_ok ? MSG_REQUEST : MSG_NOTIFICATION;
}

MsgKind rpc_read(Message *m) {
  *m = (Message){0};
  const char *why;
  bool eof;
  long length = read_header(&why, &eof);
  if (eof)
    return m->kind = MSG_EOF;
  if (length < 0) {
    rpc_error(NULL, RPC_PARSE_ERROR, "bad message header: %s", why);
    return m->kind = MSG_BAD;
  }
  char *body = malloc(length + 1);
  if (!body) {
    if (!read_body(NULL, length))
      return m->kind = MSG_EOF;
    rpc_error(NULL, RPC_INTERNAL_ERROR, "out of memory for a message of %ld bytes", length);
    return m->kind = MSG_BAD;
  }
  if (!read_body(body, length)) {
    free(body);
    return m->kind = MSG_EOF;
  }
  json_error_t err;
  m->root = json_loadb(body, length, JSON_ALLOW_NUL | JSON_DECODE_ANY, &err);
  free(body);
  if (!m->root) {
    rpc_error(NULL, RPC_PARSE_ERROR, "the message is not JSON: %s (at byte %d)", err.text,
              err.position);
    return m->kind = MSG_BAD;
  }
  m->kind = classify(m);
  return m->kind;
}

void rpc_done(Message *m) {
  json_decref(m->root);
  *m = (Message){0};
}

/* }================================================================== */
