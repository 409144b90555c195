/* lsp.h: the one internal header of coroc-lsp, the language server
 * (docs/editors.md).
 *
 * The server speaks the Language Server Protocol over standard input and
 * output, and runs coroc's pipeline in its own process on the text the
 * editor holds, on every change, with both backends (coroc_try_buffer,
 * run.c; coroc_reset after each run). Its files, lowest first
 * (tests/layers/layers.txt):
 *   rpc.c       the framing (Content-Length headers) and JSON-RPC: reading a
 *               message, replying, errors, notifications to the client
 *   position.c  a document's text: positions (UTF-8 or UTF-16 columns) to
 *               byte offsets and back, and edits
 *   compdb.c    the preprocessor options of compile_commands.json
 *   diagnose.c  one document through coroc, both backends: its errors as
 *               LSP diagnostics, and the last good translation of each
 *   server.c    main, the methods, the open documents
 * JSON is jansson's (docs/editors.md says why). What the server keeps from
 * one message to the next is its own (malloc), never the pipeline's
 * (xcalloc: coroc_reset gives that back after every run).
 */
#ifndef COROC_LSP_H
#define COROC_LSP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* {=====================================================================
 * rpc.c: messages
 * ====================================================================== */

/* JSON-RPC's and LSP's error codes. */
enum {
  RPC_PARSE_ERROR = -32700,
  RPC_INVALID_REQUEST = -32600,
  RPC_METHOD_NOT_FOUND = -32601,
  RPC_INVALID_PARAMS = -32602,
  RPC_INTERNAL_ERROR = -32603,
  RPC_SERVER_NOT_INITIALIZED = -32002,
};

/* What rpc_read gives. */
typedef enum {
  MSG_EOF,          /* the input ended (or could not be read) */
  MSG_BAD,          /* a message that was not one: already answered with an error */
  MSG_REQUEST,      /* method and id */
  MSG_NOTIFICATION, /* method, no id */
  MSG_RESPONSE,     /* the client's answer to a request of ours (we send none yet) */
} MsgKind;

typedef struct {
  MsgKind kind;
  json_t *root;       /* the whole message (owned: rpc_done) */
  const char *method; /* requests and notifications */
  json_t *id;         /* requests: a number or a string */
  json_t *params;     /* or NULL */
} Message;

/* The next message of standard input. A header or a body that is not a
   message gets an error reply (ParseError, InvalidRequest) here. */
MsgKind rpc_read(Message *m);
void rpc_done(Message *m);
/* Is a whole message, or part of one, already waiting on standard input?
   (The server diagnoses what changed only when nothing is.) */
bool rpc_pending(void);
/* Replies to request `id`: rpc_reply takes `result`'s reference. */
void rpc_reply(json_t *id, json_t *result);
void rpc_error(json_t *id, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A notification to the client (takes `params`' reference). */
void rpc_notify(const char *method, json_t *params);
/* window/logMessage, type 1 error ... 4 log */
void rpc_log(int type, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string of len bytes of text that may not be UTF-8: each byte that
   is not part of a valid sequence becomes U+FFFD. */
json_t *json_text(const char *s, size_t len);

/* {=====================================================================
 * position.c: a document's text and positions
 * ====================================================================== */

/* How the client counts a line's characters (initialize: positionEncoding). */
typedef enum { ENC_UTF16, ENC_UTF8 } Encoding;

typedef struct {
  char *text; /* NUL-terminated (the text itself may hold NUL bytes) */
  size_t len;
} Text;

/* The byte offset of (line, character), both 0-based, as LSP clamps it: a
   character past the line's end is its end, a line past the last is the
   end of the text. */
size_t text_offset(const Text *t, Encoding enc, long line, long character);
/* The characters from the start of `line` (0-based) to its byte `col` (0-based). */
long text_character(const Text *t, Encoding enc, long line, size_t col);
/* The byte offset where line `line` (0-based) starts, and its length in
   bytes without its end (LF, CR LF or CR); false if there is no such line. */
bool text_line(const Text *t, long line, size_t *start, size_t *len);
/* Replace bytes [from, to) with len bytes of s. */
void text_replace(Text *t, size_t from, size_t to, const char *s, size_t len);
void text_set(Text *t, const char *s, size_t len);
void text_free(Text *t);

/* {=====================================================================
 * compdb.c: compile_commands.json
 * ====================================================================== */

/* Look for ROOT/compile_commands.json, then ROOT/build/compile_commands.json
   (read again when it changes). */
void compdb_set_root(const char *root);
/* The preprocessor's options for the .coc at `path` (absolute): those of its
   own entry, or of the entry of the C that coroc_generate makes of it
   (NAME.stackless.c or NAME.stackful.c, compiled with -I the .coc's
   directory); *n = 0 when there is none. The array lives until the next
   call. */
const char **compdb_args(const char *path, int *n);

/* {=====================================================================
 * diagnose.c: coroc on a document
 * ====================================================================== */

/* What the server keeps of one backend's last good run. */
typedef struct {
  char *c; /* the C it printed (malloc), or NULL before the first good run */
  size_t len;
  long version; /* the document's version it was made from */
} Translation;

typedef struct {
  char *uri;
  char *path; /* the file it names (what coroc is told the input is) */
  Text text;
  long version;
  bool dirty;          /* changed since its diagnostics were published */
  Translation good[2]; /* by Backend: stackless, stackful */
} Document;

/* Run coroc on the document with both backends and publish its diagnostics
   (textDocument/publishDiagnostics); keep each backend's translation when
   it has no error. */
void diagnose(Document *doc, Encoding enc);
/* What diagnose keeps of a document, given back (didClose). */
void translation_free(Translation *t);

#endif
