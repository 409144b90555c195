/* lsp.h: the internal header of coroc-lsp, the language server
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
 *   render.c    the editor rendering: the C that clangd reads for a .coc,
 *               the user's text with a few edits, and the exact map of
 *               positions through them
 *   insight.c   what coroc's passes decided (facts.c), kept with each good
 *               translation: hover on yield and await, code lenses, the C of
 *               one coroutine, the awaits whose children stay on the heap
 *   child.c     a child process spoken to in JSON-RPC (clangd), without
 *               ever blocking on it
 *   pplex.c ppif.c ppmacros.c expand.c   the text after the last #include
 *               macro-expanded in the server, as gcc's preprocessor does
 *               (their own header, pp.h, says how they share the work)
 *   preamble.c  a document's headers preprocessed once: at a change, only
 *               the text after the last #include is expanded (expand.c)
 *   diagnose.c  one document through coroc, both backends: its errors as
 *               LSP diagnostics, and the last good translation of each
 *   clangd.c    the proxy: clangd started, restarted, told of each open
 *               document's rendering; requests forwarded, their results
 *               mapped back; its diagnostics merged with coroc's
 *   server.c    main, the event loop, the methods, the open documents
 * JSON is jansson's (docs/editors.md says why). What the server keeps from
 * one message to the next is its own (malloc), never the pipeline's
 * (xcalloc: coroc_reset gives that back after every run).
 */
#ifndef COROC_LSP_H
#define COROC_LSP_H

#include "coroc.h"
#include "output/facts.h"
#include "run.h"

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
/* The length of the valid UTF-8 character at s (n bytes left), 0 if none. */
size_t utf8_length(const unsigned char *s, size_t n);

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
/* The (line, character) of byte offset `at`. */
void text_position(const Text *t, Encoding enc, size_t at, long *line, long *character);
/* The byte offset where line `line` (0-based) starts, and its length in
   bytes without its end (LF, CR LF or CR); false if there is no such line. */
bool text_line(const Text *t, long line, size_t *start, size_t *len);
/* Replace bytes [from, to) with len bytes of s. */
void text_replace(Text *t, size_t from, size_t to, const char *s, size_t len);
void text_set(Text *t, const char *s, size_t len);
void text_free(Text *t);
/* The path a file: URI names (percent-escapes decoded); for another
   scheme, a name in the current directory that coroc can report with. */
char *uri_path(const char *uri);

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
/* The command clangd is given for c_path, the rendering of the .coc at
   `path`: clang -xc, the .coc's options and -I the runtime's include. */
json_t *compdb_command(const char *path, const char *c_path);

/* {=====================================================================
 * render.c: the editor rendering
 * ====================================================================== */

/* One replacement: the .coc's bytes [coc_from, coc_to) became `text`, the
   rendering's bytes [c_from, c_to). */
typedef struct {
  size_t coc_from, coc_to, c_from, c_to;
  char *text;
  int seq;
} Edit;

typedef enum { CORO_TASK, CORO_GENERATOR, CORO_ASYNC_GENERATOR, CORO_PROTOTYPE } CoroKind;

typedef struct {
  char *name;
  size_t at;  /* the name's offset in the .coc */
  char *type; /* the declared type, as written */
  CoroKind kind;
} CoroInfo;

typedef struct {
  int refs;
  Text coc;    /* the text it was made of (a copy) */
  Text c;      /* the rendering */
  Edit *edits; /* sorted, disjoint */
  int nedits;
  CoroInfo *coros;
  int ncoros;
} Render;

/* The rendering of a text: with the .coc's rules, or (coc_rules false, a
   plain C document) the text itself. One reference: render_release. */
Render *render_make(const Text *coc, bool coc_rules);
void render_release(Render *r);
/* The rendering's offset of the .coc's offset `at`; *generated when `at`
   is inside a word that was replaced (the replacement's start then). */
size_t render_to_c(const Render *r, size_t at, bool *generated);
/* The .coc's offset of the rendering's `at`; *in: the edit whose generated
   text holds it (the offset is then the start of what it replaced), or NULL. */
size_t render_to_coc(const Render *r, size_t at, const Edit **in);
/* The coroutine of that name declared in the text, or NULL. */
const CoroInfo *render_coroutine(const Render *r, const char *name, size_t len);
/* The text with the three words as C++ keywords of their width, for
   clang-format (malloc). */
char *render_for_format(const Text *coc);

/* }===================================================================== */

/* {=====================================================================
 * child.c: a child process that speaks JSON-RPC
 * ====================================================================== */

typedef struct {
  int pid;      /* 0: not running */
  int to, from; /* its standard input (ours to write), its output */
  char *out;    /* framed messages not yet written */
  size_t out_len, out_cap;
  char *in; /* bytes read and not yet a whole message */
  size_t in_len, in_cap;
} Child;

/* Start argv[0] with argv (searched in PATH); its stderr goes to /dev/null. */
bool child_start(Child *c, char *const argv[]);
/* Queue a message (takes the reference); child_flush writes what it can. */
void child_send(Child *c, json_t *msg);
/* false when the child cannot take more (it has gone). */
bool child_flush(Child *c);
/* Read what is there; false at the end of its output (it has gone). */
bool child_read(Child *c);
/* The next whole message read, or NULL. */
json_t *child_next(Child *c);
/* Close the pipes, end the process (SIGTERM) and reap it. */
void child_stop(Child *c);

/* }===================================================================== */

/* {=====================================================================
 * diagnose.c: coroc on a document
 * ====================================================================== */

/* preamble.c: what the preprocessor made of a document's headers. */
typedef struct Preamble Preamble;
/* How preamble_expand made the output. */
typedef enum {
  EXPANDED_BY_COROC, /* it did not: coroc runs the preprocessor itself */
  EXPANDED_WHOLE,    /* the preprocessor, on the whole text (a new preamble) */
  EXPANDED_BODY_CPP, /* the preprocessor, on the text after the last #include */
  EXPANDED_BODY,     /* the server itself (expand.c), on the text after the last #include */
} Expanded;
/* The preprocessor's output for the document's text (path, compile_commands'
   args), in a descriptor at offset 0 that the caller closes, or -1 (then
   coroc runs the preprocessor itself). *p is the document's preamble, made
   or renewed here when its prefix or the options changed; *how says how
   the output was made. */
int preamble_expand(Preamble **p, const char *path, const char *text, size_t len, const char **args,
                    int nargs, Expanded *how);
void preamble_free(Preamble *p);
/* The whole of the file open on fd (its size from fstat, read from offset
   0 whatever the descriptor's own offset), NUL-terminated (malloc), *len
   its bytes; NULL if fstat fails. The preprocessor's output, and a file of
   the workspace (server.c). */
char *read_whole_fd(int fd, size_t *len);

/* expand.c: the body's macros expanded in the server's own process. A
   table of the macros in effect where the body starts: the #define and
   #undef lines that gcc printed with -dD for the prefix (its built-ins'
   included), and its linemarkers (which macros a system header defined). */
typedef struct MacroTable MacroTable;
MacroTable *expand_table(const char *lines, size_t len); /* NULL: not gcc's, or unread */
void expand_table_free(MacroTable *t);
/* What `cc -E -dD` prints for `body` (its first line `first_line`) read
   after the table's macros, from that line on (malloc), or NULL when the
   expander cannot say it exactly (the preprocessor must run). The table's
   macros are as they were after it (the body's own #define are its own). */
char *expand_text(MacroTable *t, const char *body, size_t len, int first_line, size_t *out_len);

/* What the server keeps of one backend's last good run. */
typedef struct {
  char *c; /* the C it printed (malloc), or NULL before the first good run */
  size_t len;
  long version; /* the document's version it was made from */
  /* insight.c's: */
  Text coc;      /* the text it was made of */
  Facts facts;   /* what coroc's passes decided about its coroutines (a copy, malloc) */
  bool measured; /* with the compiler's sizes (done when a code lens asks) */
} Translation;

typedef struct Document {
  char *uri;
  char *path; /* the file it names (what coroc is told the input is) */
  Text text;
  long version;
  bool dirty;          /* changed since its diagnostics were published */
  Translation good[2]; /* by Backend: stackless, stackful */
  json_t *coroc_diags; /* coroc's, for the text as it stands (diagnose) */
  Preamble *preamble;  /* its headers, preprocessed (diagnose; NULL: none yet) */
  /* clangd.c's: */
  bool coc;    /* a .coc (else plain C, given to clangd as it is) */
  char *c_uri; /* what clangd knows it as */
  char *c_path;
  Render *render;       /* what clangd was last given, or NULL */
  bool c_dirty;         /* the text changed since */
  long c_version;       /* its version, as clangd counts */
  json_t *c_command;    /* the compile command clangd was told (tell_flags), or NULL */
  json_t *clangd_diags; /* clangd's for c_version, mapped, or NULL */
  /* not the editor's: a file of the workspace that the server gave clangd for references and
     rename, or ahead of a definition (server.c, workspace.c); coroc does not diagnose it, nothing
     is published for it */
  bool background;
} Document;

/* Run coroc on the document with both backends; its errors as LSP
   diagnostics in doc->coroc_diags; keep each backend's translation when it
   has no error. (clangd_publish sends them, with clangd's.) */
void diagnose(Document *doc, Encoding enc);
/* What diagnose keeps of a document, given back (didClose). */
void translation_free(Translation *t);

/* {=====================================================================
 * insight.c: what only coroc knows, in the editor
 * ====================================================================== */

/* Keep a good run's facts (a copy: the run's are the pipeline's) with the
   text they are of, in place of the last ones. */
void insight_keep(Translation *t, const Facts *facts, const Text *coc);
void insight_free(Translation *t);
/* An information diagnostic (into list) for each await whose child's frame
   stays on the heap, with the reason; nothing when the stackless
   translation is not of the text as it stands. */
void insight_diagnostics(const Document *doc, Encoding enc, json_t *list);
/* textDocument/hover on a yield or an await: true when answered (the
   resume point, what the frame keeps across it, where a child lives). */
bool insight_hover(Message *m, Document *doc, Encoding enc);
/* textDocument/codeLens: two on each coroutine's first line, its kind and
   frame with each backend, each a coroc.showGeneratedC command. */
void insight_code_lens(Message *m, Document *doc, Encoding enc);
/* The C of the last good translation by `backend`: the whole of it, or of
   the coroutine `name` alone (as {version, text}); NULL when there is
   none (*why says why). */
json_t *insight_generated_c(Document *doc, int backend, const char *name, const char **why);

/* }===================================================================== */

/* {=====================================================================
 * clangd.c: the proxy to clangd
 * ====================================================================== */

/* Start clangd (`path`, searched in PATH; NULL: none), at initialize,
   with the editor's capabilities (what it can show: snippets, markdown). */
void clangd_start(const char *path, Encoding enc, json_t *client_caps);
bool clangd_running(void);
/* The capabilities that clangd adds to the server's (into caps). */
void clangd_capabilities(json_t *caps);
/* The pipes to wait on: its output (POLLIN) and, with output queued, its
   input (POLLOUT); -1 when there is none. */
void clangd_fds(int *read_fd, int *write_fd);
/* What clangd said, handled; and what waits for it, written. */
void clangd_readable(void);
void clangd_writable(void);
/* A document opened, changed (the rendering follows on clangd_sync),
   closed. */
void clangd_open(Document *doc);
void clangd_changed(Document *doc);
void clangd_close(Document *doc);
/* Give clangd the document's text as it stands, if it changed. */
void clangd_sync(Document *doc);
/* A request for clangd: forwarded (true), or not one of its methods. */
bool clangd_request(Message *m, Document *(*find)(const char *uri));
/* textDocument/publishDiagnostics of the document: coroc's and clangd's. */
void clangd_publish(Document *doc);
/* The open documents, for a restart. */
void clangd_set_documents(Document ***docs, int *ndocs);
/* Requests that wait until clangd has read the workspace's files (references, rename): those
   whose wait is over sent; and the milliseconds until the next one's wait ends (-1: none). */
void clangd_run_deferred(Document *(*find)(const char *uri));

/* }===================================================================== */

/* {=====================================================================
 * workspace.c: the project's own files, for references, rename and definitions
 * ====================================================================== */

/* Every .coc, .c and .h under root (absolute) but hidden directories, build trees and C that
   coroc wrote, sorted, NULL-terminated (at most a few thousand); *n of them. With coc_only,
   the .coc files alone, at most WORKSPACE_MOST_COC of them. */
enum { WORKSPACE_MOST_COC = 64 };
char **workspace_files(const char *root, bool coc_only, int *n);
void workspace_files_free(char **files);
/* Requests that wait for clangd to have read those files (references, rename): one kept (a
   reference to its message), whether any is, the oldest taken (*m, *root to release) when
   `ready` or its wait of at most 30 s is over, and the milliseconds until that (-1: none). */
void workspace_wait(const Message *m);
bool workspace_waiting(void);
bool workspace_next(bool ready, Message *m, json_t **root);
int workspace_wait_timeout(void);

/* }===================================================================== */

#endif
