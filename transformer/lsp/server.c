/* server.c: coroc-lsp, the language server for .coc files (docs/editors.md).
 *
 *   coroc-lsp [--clangd=PATH | --no-clangd]   speaks LSP on standard input and output
 *
 * The methods: initialize (the position encoding is agreed there: UTF-8
 * when the client offers it, else UTF-16; the workspace's root, where
 * compile_commands.json is looked for; clangd is started), initialized,
 * shutdown, exit, textDocument/didOpen, didChange (incremental) and
 * didClose; the server publishes coroc's own errors for each open
 * document (diagnose.c), with clangd's. coroc/generatedC answers with the
 * last good translation of a document by a backend (or of one coroutine,
 * as the command coroc.showGeneratedC does); hover on a yield or an await
 * and the code lenses are coroc's own (insight.c); the requests that
 * clangd answers go through clangd.c.
 *
 * The open documents are diagnosed when the input is idle: a burst of
 * changes (typing) is diagnosed once, at its last version. Everything runs
 * on one thread with a stack as large as coroc's own (main.c: the passes
 * recurse as deep as the input nests), in a loop that polls the editor's
 * input and clangd's pipes, so that it never waits for clangd; it never
 * ends on a bad message: only `exit` or the end of the input ends it
 * (status 0 after shutdown, else 1, as the protocol says).
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "lsp.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
  bool initialized;
  bool shutdown;
  Encoding enc;
  Document **docs;
  int ndocs, cap;
  const char *clangd;  /* --clangd=PATH (default clangd), NULL: none */
  char *root;          /* the workspace's directory (initialize), or NULL */
  bool workspace_read; /* the workspace was given to clangd (read_workspace_soon) */
} server = {.clangd = "clangd"};

/* {==================================================================
 * Documents
 * =================================================================== */

static Document *find_doc(const char *uri) {
  for (int i = 0; i < server.ndocs; i++)
    if (strcmp(server.docs[i]->uri, uri) == 0)
      return server.docs[i];
  return NULL;
}

static void close_doc(Document *doc) {
  for (int i = 0; i < server.ndocs; i++)
    if (server.docs[i] == doc)
      server.docs[i] = server.docs[--server.ndocs];
  clangd_close(doc);
  json_decref(doc->coroc_diags);
  free(doc->uri);
  free(doc->path);
  text_free(&doc->text);
  translation_free(&doc->good[0]);
  translation_free(&doc->good[1]);
  preamble_free(doc->preamble);
  free(doc);
}

static Document *open_doc(const char *uri) {
  Document *doc = find_doc(uri);
  if (doc)
    return doc;
  doc = calloc(1, sizeof *doc);
  if (!doc || !(doc->uri = strdup(uri)))
    abort();
  doc->path = uri_path(uri);
  if (server.ndocs == server.cap) {
    server.cap = server.cap ? 2 * server.cap : 8;
    server.docs = realloc(server.docs, server.cap * sizeof *server.docs);
    if (!server.docs)
      abort();
  }
  server.docs[server.ndocs++] = doc;
  return doc;
}

/* }================================================================== */

/* {==================================================================
 * The methods
 * =================================================================== */

/* The reason params do not fit, for the reply or the log. */
typedef struct {
  char text[200];
} Why;

static bool null_or_string(const json_t *j) {
  return !j || json_is_null(j) || json_is_string(j);
}

static void initialize(Message *m) {
  json_t *caps = NULL, *folders = NULL, *uri = NULL, *path = NULL;
  json_error_t err;
  if (json_unpack_ex(m->params, &err, 0, "{s?o, s?o, s?o, s?o}", "capabilities", &caps, "rootUri",
                     &uri, "rootPath", &path, "workspaceFolders", &folders) != 0) {
    rpc_error(m->id, RPC_INVALID_PARAMS, "initialize: %s", err.text);
    return;
  }
  if ((caps && !json_is_object(caps)) || !null_or_string(uri) || !null_or_string(path)) {
    rpc_error(m->id, RPC_INVALID_PARAMS, "initialize: %s",
              caps && !json_is_object(caps) ? "capabilities must be an object"
                                            : "rootUri and rootPath must be strings or null");
    return;
  }
  const char *root_uri = json_string_value(uri), *root_path = json_string_value(path);
  server.enc = ENC_UTF16; /* LSP's default */
  json_t *encodings = json_object_get(json_object_get(caps, "general"), "positionEncodings");
  size_t i;
  json_t *e;
  json_array_foreach(encodings, i, e) {
    if (json_is_string(e) && strcmp(json_string_value(e), "utf-8") == 0)
      server.enc = ENC_UTF8;
  }
  if (!root_uri && json_is_array(folders))
    root_uri = json_string_value(json_object_get(json_array_get(folders, 0), "uri"));
  char *root = root_uri ? uri_path(root_uri) : root_path ? strdup(root_path) : NULL;
  compdb_set_root(root && root[0] == '/' ? root : NULL);
  server.root = root && root[0] == '/' ? root : (free(root), NULL);
  server.initialized = true;
  clangd_set_documents(&server.docs, &server.ndocs);
  clangd_start(server.clangd, server.enc, caps);
  json_t *mine = json_pack("{s:s, s:{s:b, s:i}}", "positionEncoding",
                           server.enc == ENC_UTF8 ? "utf-8" : "utf-16", "textDocumentSync",
                           "openClose", 1, "change", 2);
  clangd_capabilities(mine);
  json_object_set_new(mine, "hoverProvider", json_true()); /* (yield and await: insight.c) */
  json_object_set_new(mine, "codeLensProvider", json_pack("{s:b}", "resolveProvider", 0));
  json_object_set_new(mine, "executeCommandProvider",
                      json_pack("{s:[s]}", "commands", "coroc.showGeneratedC"));
  rpc_reply(m->id, json_pack("{s:o, s:{s:s, s:s}}", "capabilities", mine, "serverInfo", "name",
                             "coroc-lsp", "version", COROC_VERSION));
}

static bool did_open(json_t *params, Why *why) {
  const char *uri, *text;
  size_t len;
  json_int_t version;
  json_error_t err;
  if (json_unpack_ex(params, &err, 0, "{s:{s:s, s:I, s:s%}}", "textDocument", "uri", &uri,
                     "version", &version, "text", &text, &len) != 0) {
    snprintf(why->text, sizeof why->text, "%s", err.text);
    return false;
  }
  Document *doc = find_doc(uri);
  bool background = doc && doc->background;
  doc = open_doc(uri);
  text_set(&doc->text, text, len);
  doc->version = version;
  doc->dirty = true;
  if (background) { /* the server's copy of a workspace file: the editor's from now on */
    doc->background = false;
    clangd_changed(doc); /* (clangd has it open: a change, not a close and an open) */
  } else {
    clangd_open(doc);
  }
  return true;
}

/* One change of didChange: a range and its new text, or the whole text. */
static bool apply_change(Document *doc, json_t *change, Why *why) {
  const char *text;
  size_t len;
  json_t *range = NULL;
  json_error_t err;
  if (json_unpack_ex(change, &err, 0, "{s?o, s:s%}", "range", &range, "text", &text, &len) != 0) {
    snprintf(why->text, sizeof why->text, "contentChanges: %s", err.text);
    return false;
  }
  if (!range) {
    text_set(&doc->text, text, len);
    return true;
  }
  json_int_t l0, c0, l1, c1;
  if (json_unpack_ex(range, &err, 0, "{s:{s:I, s:I}, s:{s:I, s:I}}", "start", "line", &l0,
                     "character", &c0, "end", "line", &l1, "character", &c1) != 0) {
    snprintf(why->text, sizeof why->text, "contentChanges' range: %s", err.text);
    return false;
  }
  size_t from = text_offset(&doc->text, server.enc, l0, c0);
  size_t to = text_offset(&doc->text, server.enc, l1, c1);
  text_replace(&doc->text, from, to < from ? from : to, text, len);
  return true;
}

static bool did_change(json_t *params, Why *why) {
  const char *uri;
  json_int_t version;
  json_t *changes = NULL;
  json_error_t err;
  if (json_unpack_ex(params, &err, 0, "{s:{s:s, s:I}, s:o}", "textDocument", "uri", &uri, "version",
                     &version, "contentChanges", &changes) != 0 ||
      !json_is_array(changes)) {
    snprintf(why->text, sizeof why->text, "%s", changes ? "contentChanges" : err.text);
    return false;
  }
  Document *doc = find_doc(uri);
  if (!doc) {
    snprintf(why->text, sizeof why->text, "%s is not open", uri);
    return false;
  }
  size_t i;
  json_t *change;
  json_array_foreach(changes, i, change) {
    if (!apply_change(doc, change, why))
      return false; /* (the ones before it stand: the client's text is what it sent) */
  }
  doc->version = version;
  doc->dirty = true;
  clangd_changed(doc);
  return true;
}

static bool did_close(json_t *params, Why *why) {
  const char *uri;
  json_error_t err;
  if (json_unpack_ex(params, &err, 0, "{s:{s:s}}", "textDocument", "uri", &uri) != 0) {
    snprintf(why->text, sizeof why->text, "%s", err.text);
    return false;
  }
  Document *doc = find_doc(uri);
  if (!doc) {
    snprintf(why->text, sizeof why->text, "%s is not open", uri);
    return false;
  }
  /* its diagnostics go with it */
  rpc_notify("textDocument/publishDiagnostics",
             json_pack("{s:s, s:[]}", "uri", uri, "diagnostics"));
  close_doc(doc);
  return true;
}

/* The open document of a request's uri, diagnosed if it changed (the
   answer is of the text as it stands); NULL: an error was replied. */
static Document *document_of(Message *m, const char *what, const char *uri) {
  Document *doc = uri ? find_doc(uri) : NULL;
  if (!doc) {
    rpc_error(m->id, RPC_INVALID_PARAMS, "%s: %s", what,
              uri ? "the document is not open" : "the document's uri is missing");
    return NULL;
  }
  if (doc->dirty) {
    diagnose(doc, server.enc);
    clangd_publish(doc);
  }
  return doc;
}

/* The answer of coroc/generatedC and coroc.showGeneratedC: the C of the
   last good translation by a backend, of the document or of one coroutine. */
static void reply_generated_c(Message *m, const char *what, const char *uri, const char *backend,
                              const char *coroutine) {
  int b = strcmp(backend, "stackful") == 0 ? 1 : strcmp(backend, "stackless") == 0 ? 0 : -1;
  if (b < 0) {
    rpc_error(m->id, RPC_INVALID_PARAMS, "%s: backend is stackless or stackful", what);
    return;
  }
  Document *doc = document_of(m, what, uri);
  if (!doc)
    return;
  const char *why = NULL;
  json_t *c = insight_generated_c(doc, b, coroutine, &why);
  if (!c && why)
    rpc_error(m->id, RPC_INVALID_PARAMS, "%s: %s", what, why);
  else
    rpc_reply(m->id, c ? c : json_null());
}

/* coroc/generatedC {textDocument: {uri}, backend: "stackless"|"stackful",
   coroutine: NAME (optional)}: {version, text} of the last good
   translation, or of the part that is that coroutine's (its frame, resume
   function and creation functions); null before there is one. */
static void generated_c(Message *m) {
  const char *uri, *backend = "stackless", *coroutine = NULL;
  json_error_t err;
  if (json_unpack_ex(m->params, &err, 0, "{s:{s:s}, s?s, s?s}", "textDocument", "uri", &uri,
                     "backend", &backend, "coroutine", &coroutine) != 0) {
    rpc_error(m->id, RPC_INVALID_PARAMS, "coroc/generatedC: %s", err.text);
    return;
  }
  reply_generated_c(m, "coroc/generatedC", uri, backend, coroutine);
}

/* workspace/executeCommand coroc.showGeneratedC [{uri, coroutine, backend}]
   (what the code lenses carry): coroc/generatedC's answer for it. */
static void execute_command(Message *m) {
  const char *command, *uri, *backend = "stackless", *coroutine = NULL;
  json_error_t err;
  if (json_unpack_ex(m->params, &err, 0, "{s:s, s:[{s:s, s?s, s?s}]}", "command", &command,
                     "arguments", "uri", &uri, "coroutine", &coroutine, "backend", &backend) != 0 ||
      strcmp(command, "coroc.showGeneratedC") != 0) {
    rpc_error(m->id, RPC_INVALID_PARAMS, "workspace/executeCommand: %s",
              json_unpack(m->params, "{s:s}", "command", &command) == 0 &&
                      strcmp(command, "coroc.showGeneratedC") != 0
                  ? "the only command is coroc.showGeneratedC"
                  : err.text);
    return;
  }
  reply_generated_c(m, "coroc.showGeneratedC", uri, backend, coroutine);
}

/* textDocument/hover: coroc's own on a yield or an await (true), else
   clangd's (false: clangd.c forwards it, or says why it cannot). */
/* {==================================================================
 * The workspace's files, for references and rename
 * =================================================================== */

/* The file: URI of an absolute path, with what a URI may not hold escaped. */
static char *path_uri(const char *path) {
  size_t n = strlen(path);
  char *uri = malloc(7 + 3 * n + 1), *o = stpcpy(uri, "file://");
  if (!uri)
    abort();
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    if (is_ident_char((char)*p) || strchr("/-.~", *p))
      *o++ = (char)*p;
    else
      o += sprintf(o, "%%%02X", *p);
  *o = '\0';
  return uri;
}

/* A workspace file as a document of the server's own, or brought up to
   the text on disk if it is one already (a file the editor has open is
   the editor's: left alone). */
static void workspace_file(const char *path) {
  char *uri = path_uri(path);
  Document *doc = find_doc(uri);
  if (doc && !doc->background) {
    free(uri);
    return;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  char *text = NULL;
  size_t len = 0;
  if (fd >= 0) {
    text = read_whole_fd(fd, &len);
    close(fd);
  }
  if (text && !doc) {
    doc = open_doc(uri);
    doc->background = true;
    text_set(&doc->text, text, len);
    clangd_open(doc); /* (a .coc: rendered for clangd; coroc is not run on it) */
    clangd_sync(doc);
  } else if (text && (doc->text.len != len || memcmp(doc->text.text, text, len) != 0)) {
    text_set(&doc->text, text, len);
    clangd_changed(doc);
    clangd_sync(doc);
  }
  free(text);
  free(uri);
}

/* Each of the files (workspace_files's list) given to clangd; the list freed. */
static void open_files(char **files, int n) {
  for (int i = 0; i < n; i++)
    workspace_file(files[i]);
  workspace_files_free(files);
}

/* Before references or rename: every file of the workspace given to
   clangd (workspace.c says which), so that its answer is the project's,
   not the open documents' alone. */
static void open_workspace(void) {
  int n;
  char **files = workspace_files(server.root, false, &n);
  open_files(files, n);
}

/* Once clangd has diagnosed a document the editor opened (so that the
   editor's own file comes first), the workspace's .coc files are given to
   clangd in the background, once: clangd's index then has the coroutines
   of the files the editor has not opened, and a definition reaches one
   without waiting. (Its plain C is what clangd's own background index is
   for; references and rename read the whole workspace again, and wait.)
   In a tree of more .coc files than workspace.c gives at once, those
   under the document's own directory. */
static void read_workspace_soon(void) {
  if (server.workspace_read || !server.root || !clangd_running())
    return;
  for (int i = 0; i < server.ndocs; i++) {
    const Document *doc = server.docs[i];
    if (doc->background || !doc->clangd_diags)
      continue;
    server.workspace_read = true;
    int n;
    char **files = workspace_files(server.root, true, &n);
    char *dir = doc->path ? strdup(doc->path) : NULL, *slash = dir ? strrchr(dir, '/') : NULL;
    if (n == WORKSPACE_MOST_COC && slash && slash != dir) {
      workspace_files_free(files);
      *slash = '\0';
      files = workspace_files(dir, true, &n);
    }
    free(dir);
    open_files(files, n);
    return;
  }
}

/* }================================================================== */

static bool hover(Message *m) {
  const char *uri = NULL;
  json_unpack(m->params, "{s:{s:s}}", "textDocument", "uri", &uri);
  Document *doc = uri ? find_doc(uri) : NULL;
  if (!doc)
    return false; /* (clangd.c says what is wrong) */
  if (doc->dirty) {
    diagnose(doc, server.enc);
    clangd_publish(doc);
  }
  return insight_hover(m, doc, server.enc);
}

static void code_lens(Message *m) {
  const char *uri = NULL;
  json_unpack(m->params, "{s:{s:s}}", "textDocument", "uri", &uri);
  Document *doc = document_of(m, "textDocument/codeLens", uri);
  if (doc)
    insight_code_lens(m, doc, server.enc);
}

static void request(Message *m) {
  if (strcmp(m->method, "initialize") == 0) {
    if (server.initialized)
      rpc_error(m->id, RPC_INVALID_REQUEST, "initialize was sent already");
    else
      initialize(m);
  } else if (!server.initialized) {
    rpc_error(m->id, RPC_SERVER_NOT_INITIALIZED, "%s before initialize", m->method);
  } else if (server.shutdown) {
    rpc_error(m->id, RPC_INVALID_REQUEST, "%s after shutdown", m->method);
  } else if (strcmp(m->method, "shutdown") == 0) {
    server.shutdown = true;
    rpc_reply(m->id, NULL);
  } else if (strcmp(m->method, "coroc/generatedC") == 0) {
    generated_c(m);
  } else if (strcmp(m->method, "workspace/executeCommand") == 0) {
    execute_command(m);
  } else if (strcmp(m->method, "textDocument/codeLens") == 0) {
    code_lens(m);
  } else if (strcmp(m->method, "textDocument/hover") == 0 && hover(m)) {
    /* (coroc's own) */
  } else {
    bool across = strcmp(m->method, "textDocument/references") == 0 ||
                  strcmp(m->method, "textDocument/rename") == 0;
    const char *uri =
        json_string_value(json_object_get(json_object_get(m->params, "textDocument"), "uri"));
    if (across && clangd_running() && uri && find_doc(uri))
      open_workspace(); /* (their answer is the project's: the files clangd has not read) */
    if (!clangd_request(m, find_doc)) /* (else forwarded: the answer comes when clangd's does) */
      rpc_error(m->id, RPC_METHOD_NOT_FOUND, "%s is not supported", m->method);
  }
}

static void notification(Message *m) {
  if (strcmp(m->method, "exit") == 0)
    exit(server.shutdown ? 0 : 1);
  if (!server.initialized || server.shutdown)
    return; /* (dropped, as the protocol says) */
  static const struct {
    const char *method;
    bool (*fn)(json_t *params, Why *why);
  } methods[] = {{"textDocument/didOpen", did_open},
                 {"textDocument/didChange", did_change},
                 {"textDocument/didClose", did_close}};
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
    Why why = {""};
    /* (a notification gets no reply: the log says why it was ignored) */
    if (strcmp(m->method, methods[i].method) == 0 && !methods[i].fn(m->params, &why))
      rpc_log(2, "coroc-lsp: %s ignored: %s", m->method, why.text);
  }
  /* initialized, $/cancelRequest, $/setTrace and the rest: nothing to do */
}

/* }================================================================== */

/* Diagnose what changed, while no message waits: clangd is given the text
   first, so that it works while coroc does. */
static void catch_up(void) {
  for (int i = 0; i < server.ndocs && !rpc_pending(); i++) {
    Document *doc = server.docs[i];
    clangd_sync(doc);
    clangd_writable();
    if (doc->dirty) {
      diagnose(doc, server.enc);
      clangd_publish(doc);
    }
  }
  clangd_run_deferred(find_doc); /* (references and rename, once clangd has read the workspace) */
}

/* Wait for the editor or clangd; true when the editor has a message. */
static bool wait_for_input(void) {
  if (rpc_pending())
    return true;
  struct pollfd p[3] = {{.fd = 0, .events = POLLIN}};
  int n = 1, r, w;
  clangd_fds(&r, &w);
  if (r >= 0)
    p[n++] = (struct pollfd){.fd = r, .events = POLLIN};
  if (w >= 0)
    p[n++] = (struct pollfd){.fd = w, .events = POLLOUT};
  if (poll(p, n, workspace_wait_timeout()) < 0)
    return false;
  for (int i = 1; i < n; i++) {
    if (p[i].fd == w && p[i].revents)
      clangd_writable();
    else if (p[i].fd == r && p[i].revents)
      clangd_readable();
  }
  return p[0].revents != 0;
}

static void *serve(void *arg) {
  (void)arg;
  for (;;) {
    catch_up();
    read_workspace_soon();
    if (!wait_for_input())
      continue;
    Message m;
    switch (rpc_read(&m)) {
    case MSG_EOF:
      exit(server.shutdown ? 0 : 1);
    case MSG_REQUEST:
      request(&m);
      break;
    case MSG_NOTIFICATION:
      notification(&m);
      break;
    case MSG_BAD:
    case MSG_RESPONSE:
      break;
    }
    rpc_done(&m);
    clangd_writable();
  }
  return NULL;
}

/* A write to a client that has gone fails (rpc.c exits then) instead of
   killing the server unseen. A handler, not SIG_IGN: the preprocessor that
   each run starts gets SIGPIPE's default back at its exec. */
static void on_sigpipe(int sig) {
  (void)sig;
}

/* As coroc's own (main.c): the passes recurse as deep as the input nests. */
enum { SERVE_STACK = 1 << 30 };

static const char USAGE[] =
    "usage: coroc-lsp [--clangd=PATH | --no-clangd]\n\n"
    "The language server for .coc files: it speaks the Language Server Protocol on\n"
    "standard input and output (docs/editors.md). It runs coroc on each document, and\n"
    "clangd (found in PATH, or the one given) on a C rendering of it, for the C\n"
    "compiler's diagnostics, hover, definitions, completion and the rest.\n\n"
    "  --clangd=PATH  the clangd to run (default: clangd, searched in PATH)\n"
    "  --no-clangd    coroc's own diagnostics only\n";

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    bool help = strcmp(argv[i], "--help") == 0, version = strcmp(argv[i], "--version") == 0;
    if (strncmp(argv[i], "--clangd=", 9) == 0 && argv[i][9]) {
      server.clangd = argv[i] + 9;
    } else if (strcmp(argv[i], "--no-clangd") == 0) {
      server.clangd = NULL;
    } else {
      if (version)
        printf("coroc-lsp %s\n", COROC_VERSION);
      else
        fputs(USAGE, help ? stdout : stderr);
      return help || version ? 0 : 2;
    }
  }
  signal(SIGPIPE, on_sigpipe);
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, SERVE_STACK) != 0 ||
      pthread_create(&thread, &attr, serve, NULL) != 0) {
    fprintf(stderr, "coroc-lsp: cannot start a thread with a %d MiB stack\n", SERVE_STACK >> 20);
    return 1;
  }
  pthread_join(thread, NULL);
  return 1;
}
