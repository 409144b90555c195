/* clangd.c: the proxy to clangd (docs/editors.md, "Inside").
 *
 * The server starts clangd as its child (child.c) and gives it, for each
 * open .coc, the editor rendering (render.c) as a document of its own:
 * NAME.coc.c beside the .coc (never written to disk: clangd reads what it
 * is sent, and finds "..." includes and .clang-format beside it), with the
 * compile command set through clangd's compilationDatabaseChanges: the
 * .coc's options from compile_commands.json (compdb.c) and -I the
 * runtime's include. A plain C document is given as it is.
 *
 * Requests on a .coc go to clangd at the mapped position; what comes back
 * (locations, ranges, edits) is mapped through the rendering that clangd
 * answered about (each request keeps a reference to it), and a place in
 * generated text is dropped: the user never sees a position in code they
 * did not write. Locations in other files pass through. Formatting goes
 * through a rendering of its own (render_for_format: the same bytes, the
 * three words as keywords of their width), and keeps only edits that
 * change whitespace, so it cannot touch a token. clangd's diagnostics are
 * mapped and published with coroc's.
 *
 * clangd's end (the end of its output, or a write that fails) is noticed
 * in the event loop: each request in flight gets an error, the editor a
 * window/showMessage, and a new clangd is started with the open documents
 * (a few times: one that keeps dying is given up, and said so).
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "lsp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How the result of a request is mapped back. */
typedef enum {
  R_HOVER,
  R_LOCATIONS,
  R_HIGHLIGHTS,
  R_COMPLETION,
  R_AS_IS,
  R_SYMBOLS,
  R_WORKSPACE_EDIT,
  R_PREPARE_RENAME,
  R_FORMAT,
  R_INITIALIZE,
} ResultKind;

typedef struct {
  long id;           /* clangd's */
  json_t *editor_id; /* the editor's, or NULL (our own request) */
  ResultKind kind;
  char *uri;                 /* the .coc's */
  Render *render;            /* what clangd answered about */
  char *temp_uri;            /* formatting's own document, closed after */
  size_t word_from, word_to; /* hover: the word asked about (.coc offsets) */
} Pending;

enum { MAX_RESTARTS = 5 };

static struct {
  char *path;
  Child child;
  bool wanted, given_up;
  Encoding enc;   /* the editor's */
  Encoding c_enc; /* clangd's (utf-8, offsetEncoding, unless it says not) */
  json_t *client_caps;
  long next_id;
  Pending *pending;
  int npending, cap;
  int restarts;
  Document ***docs;
  int *ndocs;
} cd;

/* {==================================================================
 * Positions and ranges
 * =================================================================== */

static bool get_pos(json_t *pos, long *line, long *ch) {
  json_int_t l, c;
  if (json_unpack(pos, "{s:I, s:I}", "line", &l, "character", &c) != 0)
    return false;
  *line = l;
  *ch = c;
  return true;
}

static json_t *make_pos(const Text *t, Encoding enc, size_t at) {
  long line = 0, ch = 0;
  text_position(t, enc, at, &line, &ch);
  return json_pack("{s:I, s:I}", "line", (json_int_t)line, "character", (json_int_t)ch);
}

/* An editor's position on the .coc (whose text r was made of) as clangd's
   on the rendering; NULL when it is inside a replaced word. */
static json_t *pos_to_c(const Render *r, json_t *pos) {
  long line = 0, ch = 0;
  if (!get_pos(pos, &line, &ch))
    return NULL;
  bool generated;
  size_t at = render_to_c(r, text_offset(&r->coc, cd.enc, line, ch), &generated);
  return generated ? NULL : make_pos(&r->c, cd.c_enc, at);
}

/* clangd's range on the rendering as the editor's on the .coc; NULL when
   it is all generated text. A range that starts or ends inside generated
   text is cut to the user's text it covers. */
static json_t *range_to_coc(const Render *r, json_t *range) {
  long l0, c0, l1, c1;
  if (!get_pos(json_object_get(range, "start"), &l0, &c0) ||
      !get_pos(json_object_get(range, "end"), &l1, &c1))
    return NULL;
  size_t a = text_offset(&r->c, cd.c_enc, l0, c0), b = text_offset(&r->c, cd.c_enc, l1, c1);
  const Edit *ea, *eb;
  size_t from = render_to_coc(r, a, &ea), to = render_to_coc(r, b, &eb);
  if (ea && ea == eb && (b > a || a > ea->c_from)) { /* all inside one edit's text */
    if (ea->coc_to == ea->coc_from)
      return NULL;
    from = ea->coc_from; /* what the user wrote there: the word it replaced */
    to = ea->coc_to;
  } else {
    if (ea && a > ea->c_from)
      from = ea->coc_to; /* (starts in generated text: from the user's next) */
    if (eb && b > eb->c_from)
      to = eb->coc_to;
  }
  if (to < from)
    to = from;
  return json_pack("{s:o, s:o}", "start", make_pos(&r->coc, cd.enc, from), "end",
                   make_pos(&r->coc, cd.enc, to));
}

/* The open document clangd knows by this URI (a .coc's rendering, or a
   plain C document), or NULL. */
static Document *doc_of_c_uri(const char *uri) {
  for (int i = 0; i < *cd.ndocs; i++) {
    Document *d = (*cd.docs)[i];
    if (d->c_uri && strcmp(d->c_uri, uri) == 0)
      return d;
  }
  /* (clangd may spell a URI otherwise than the editor did: compare paths) */
  if (strncmp(uri, "file://", 7) != 0)
    return NULL;
  char *path = uri_path(uri);
  Document *found = NULL;
  for (int i = 0; i < *cd.ndocs && !found; i++)
    if ((*cd.docs)[i]->c_path && strcmp((*cd.docs)[i]->c_path, path) == 0)
      found = (*cd.docs)[i];
  free(path);
  return found;
}

/* A Location (uri, range) or a LocationLink's (targetUri, targetRange,
   targetSelectionRange) mapped in place; false: drop it. `r` is the
   rendering of `self` that clangd answered about. */
static bool map_location(json_t *loc, Document *self, Render *r) {
  const char *uri_key = json_object_get(loc, "targetUri") ? "targetUri" : "uri";
  const char *uri = json_string_value(json_object_get(loc, uri_key));
  if (!uri)
    return false;
  Document *d = doc_of_c_uri(uri);
  if (!d || !d->render)
    return true; /* another file: as it is */
  Render *use = d == self && r ? r : d->render;
  static const char *const keys[] = {"range", "targetRange", "targetSelectionRange"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    json_t *range = json_object_get(loc, keys[k]);
    if (!range)
      continue;
    json_t *mapped = range_to_coc(use, range);
    if (!mapped)
      return false;
    json_object_set_new(loc, keys[k], mapped);
  }
  json_object_set_new(loc, uri_key, json_string(d->uri));
  json_t *origin = json_object_get(loc, "originSelectionRange");
  if (origin && self && r) {
    json_t *mapped = range_to_coc(r, origin);
    if (mapped)
      json_object_set_new(loc, "originSelectionRange", mapped);
    else
      json_object_del(loc, "originSelectionRange");
  }
  return true;
}

/* Each element of an array kept or dropped by keep(). */
static void filter_array(json_t *a, bool (*keep)(json_t *, Document *, Render *), Document *self,
                         Render *r) {
  for (size_t i = 0; i < json_array_size(a);) {
    if (keep(json_array_get(a, i), self, r))
      i++;
    else
      json_array_remove(a, i);
  }
}

static bool map_ranged(json_t *item, Document *self, Render *r) {
  (void)self;
  json_t *range = json_object_get(item, "range");
  if (!range)
    return true;
  json_t *mapped = range_to_coc(r, range);
  if (!mapped)
    return false;
  json_object_set_new(item, "range", mapped);
  return true;
}

/* }================================================================== */

/* {==================================================================
 * Talking to clangd
 * =================================================================== */

static void send_request(const char *method, json_t *params, Pending p) {
  p.id = ++cd.next_id;
  if (cd.npending == cd.cap) {
    cd.cap = cd.cap ? 2 * cd.cap : 16;
    cd.pending = realloc(cd.pending, cd.cap * sizeof *cd.pending);
    if (!cd.pending)
      abort();
  }
  cd.pending[cd.npending++] = p;
  child_send(&cd.child, json_pack("{s:s, s:I, s:s, s:o}", "jsonrpc", "2.0", "id", (json_int_t)p.id,
                                  "method", method, "params", params));
}

static void send_notification(const char *method, json_t *params) {
  child_send(&cd.child,
             json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params", params));
}

static void pending_free(Pending *p) {
  json_decref(p->editor_id);
  free(p->uri);
  free(p->temp_uri);
  render_release(p->render);
}

static char *directory_of(const char *path) {
  const char *slash = strrchr(path, '/');
  char *d = slash && slash != path ? strndup(path, slash - path) : strdup("/");
  if (!d)
    abort();
  return d;
}

/* The compile command of the document's rendering (compdb_command). */
static void tell_flags(Document *doc) {
  json_decref(doc->c_command);
  doc->c_command = compdb_command(doc->path, doc->c_path);
  char *dir = directory_of(doc->c_path);
  json_t *change = json_object();
  json_object_set_new(
      change, doc->c_path,
      json_pack("{s:s, s:O}", "workingDirectory", dir, "compilationCommand", doc->c_command));
  free(dir);
  send_notification("workspace/didChangeConfiguration",
                    json_pack("{s:{s:o}}", "settings", "compilationDatabaseChanges", change));
}

/* The document rendered again for clangd, as a new version whose
   diagnostics clangd has not sent yet. */
static void rerender(Document *doc) {
  render_release(doc->render);
  doc->render = render_make(&doc->text, doc->coc);
  doc->c_dirty = false;
  doc->c_version++;
  json_decref(doc->clangd_diags);
  doc->clangd_diags = NULL;
}

static void open_in_clangd(Document *doc) {
  rerender(doc);
  tell_flags(doc);
  send_notification("textDocument/didOpen",
                    json_pack("{s:{s:s, s:s, s:I, s:o}}", "textDocument", "uri", doc->c_uri,
                              "languageId", "c", "version", (json_int_t)doc->c_version, "text",
                              json_text(doc->render->c.text, doc->render->c.len)));
}

static bool start(void) {
  char *argv[] = {cd.path, "--background-index=false", "--header-insertion=never", "--log=error",
                  NULL};
  if (!child_start(&cd.child, argv))
    return false;
  json_t *caps = cd.client_caps ? json_deep_copy(cd.client_caps) : json_object();
  json_object_set_new(caps, "offsetEncoding", json_pack("[s, s]", "utf-8", "utf-16"));
  json_object_del(caps, "window"); /* (no progress to pass on) */
  /* notes as related information (mapped), not as text naming the rendering's lines */
  json_t *td = json_object_get(caps, "textDocument");
  if (!json_is_object(td))
    json_object_set_new(caps, "textDocument", td = json_object());
  json_object_set_new(td, "publishDiagnostics",
                      json_pack("{s:b, s:b}", "relatedInformation", 1, "versionSupport", 1));
  cd.c_enc = ENC_UTF8;
  send_request("initialize",
               json_pack("{s:i, s:n, s:o, s:{s:b}}", "processId", (int)getpid(), "rootUri",
                         "capabilities", caps, "initializationOptions", "clangdFileStatus", 0),
               (Pending){.kind = R_INITIALIZE});
  send_notification("initialized", json_object());
  for (int i = 0; i < *cd.ndocs; i++) {
    Document *d = (*cd.docs)[i];
    if (d->c_uri)
      open_in_clangd(d);
  }
  return true;
}

void clangd_set_documents(Document ***docs, int *ndocs) {
  cd.docs = docs;
  cd.ndocs = ndocs;
}

void clangd_start(const char *path, Encoding enc, json_t *client_caps) {
  cd.enc = enc;
  cd.client_caps = client_caps ? json_deep_copy(client_caps) : NULL;
  if (!path)
    return;
  cd.path = strdup(path);
  cd.wanted = true;
  if (!start()) {
    rpc_log(2, "coroc-lsp: cannot start %s: only coroc's own diagnostics", path);
    cd.wanted = false;
  }
}

bool clangd_running(void) {
  return cd.child.pid != 0;
}

void clangd_fds(int *read_fd, int *write_fd) {
  *read_fd = cd.child.pid ? cd.child.from : -1;
  *write_fd = cd.child.pid && cd.child.out_len ? cd.child.to : -1;
}

/* clangd has gone: answer what waited for it, say so, start another. */
static void died(void) {
  child_stop(&cd.child);
  Pending *p = cd.pending;
  int n = cd.npending;
  cd.pending = NULL;
  cd.npending = cd.cap = 0;
  for (int i = 0; i < n; i++) {
    if (p[i].editor_id)
      rpc_error(p[i].editor_id, RPC_INTERNAL_ERROR,
                "clangd ended before it answered: ask again (it is being restarted)");
    pending_free(&p[i]);
  }
  free(p);
  for (int i = 0; i < *cd.ndocs; i++) {
    Document *d = (*cd.docs)[i];
    if (d->clangd_diags) {
      json_decref(d->clangd_diags);
      d->clangd_diags = NULL;
      clangd_publish(d);
    }
  }
  bool again = cd.restarts++ < MAX_RESTARTS && start();
  if (!again) {
    cd.wanted = false;
    cd.given_up = true;
  }
  rpc_notify("window/showMessage",
             json_pack("{s:i, s:s+}", "type", again ? 2 : 1, "message",
                       "coroc-lsp: clangd ended unexpectedly; ",
                       again ? "restarted it" : "it ended too often: not restarting it"));
}

void clangd_writable(void) {
  if (cd.child.pid && !child_flush(&cd.child))
    died();
}

/* }================================================================== */

/* {==================================================================
 * Diagnostics
 * =================================================================== */

/* Is the diagnostic on a line where coroc reports an error? (Then coroc's
   word is the one shown: the C compiler's of the same place adds noise.) */
static bool under_coroc(const Document *doc, json_t *d) {
  json_int_t line = json_integer_value(
      json_object_get(json_object_get(json_object_get(d, "range"), "start"), "line"));
  size_t i;
  json_t *c;
  json_array_foreach(doc->coroc_diags, i, c) {
    json_t *r = json_object_get(c, "range");
    if (json_integer_value(json_object_get(json_object_get(r, "start"), "line")) == line)
      return true;
  }
  return false;
}

void clangd_publish(Document *doc) {
  json_t *list = doc->coroc_diags ? json_copy(doc->coroc_diags) : json_array();
  size_t i;
  json_t *d;
  if (doc->clangd_diags && !doc->c_dirty)
    json_array_foreach(doc->clangd_diags, i, d) {
      if (!under_coroc(doc, d))
        json_array_append(list, d);
    }
  rpc_notify("textDocument/publishDiagnostics",
             json_pack("{s:s, s:I, s:o}", "uri", doc->uri, "version", (json_int_t)doc->version,
                       "diagnostics", list));
}

static bool map_diagnostic(json_t *d, Document *doc, Render *r) {
  if (!map_ranged(d, doc, r))
    return false;
  if (!json_object_get(d, "source"))
    json_object_set_new(d, "source", json_string("clangd"));
  json_t *related = json_object_get(d, "relatedInformation");
  size_t i;
  json_t *info;
  json_array_foreach(related, i, info) {
    json_t *loc = json_object_get(info, "location");
    if (loc && !map_location(loc, doc, r))
      json_object_set_new(
          info, "location",
          json_pack("{s:s, s:{s:{s:i, s:i}, s:{s:i, s:i}}}", "uri", doc->uri, "range", "start",
                    "line", 0, "character", 0, "end", "line", 0, "character", 0));
  }
  return true;
}

static void diagnostics_of_clangd(json_t *params) {
  const char *uri = json_string_value(json_object_get(params, "uri"));
  json_t *list = json_object_get(params, "diagnostics");
  Document *doc = uri ? doc_of_c_uri(uri) : NULL;
  json_t *version = json_object_get(params, "version");
  /* (for an older text: the one for the newest follows; without a version, the clearing that
     follows a didClose: clangd gives the version of what it diagnosed, as start() asked) */
  if (!doc || !doc->render || !json_is_array(list) || doc->c_dirty || !json_is_integer(version) ||
      json_integer_value(version) != doc->c_version)
    return;
  list = json_deep_copy(list);
  filter_array(list, map_diagnostic, doc, doc->render);
  json_decref(doc->clangd_diags);
  doc->clangd_diags = list; /* (of a workspace file: it says clangd has read it) */
  if (!doc->dirty && !doc->background)
    clangd_publish(doc);
}

/* }================================================================== */

/* {==================================================================
 * Results
 * =================================================================== */

static Document *find_by_uri(const char *uri) {
  for (int i = 0; i < *cd.ndocs; i++)
    if (strcmp((*cd.docs)[i]->uri, uri) == 0)
      return (*cd.docs)[i];
  return NULL;
}

static const char *kind_text(CoroKind k) {
  return k == CORO_GENERATOR         ? "generator"
         : k == CORO_ASYNC_GENERATOR ? "async generator"
         : k == CORO_TASK            ? "task"
                                     : "coroutine";
}

static void map_symbols(json_t *list, Document *doc, Render *r);

static bool map_symbol(json_t *s, Document *doc, Render *r) {
  json_t *loc = json_object_get(s, "location"); /* SymbolInformation */
  if (loc)
    return map_location(loc, doc, r);
  json_t *range = json_object_get(s, "range"), *sel = json_object_get(s, "selectionRange");
  json_t *mr = range ? range_to_coc(r, range) : NULL, *ms = sel ? range_to_coc(r, sel) : NULL;
  if (!mr || !ms) {
    json_decref(mr);
    json_decref(ms);
    return false;
  }
  json_object_set_new(s, "range", mr);
  json_object_set_new(s, "selectionRange", ms);
  const char *name = json_string_value(json_object_get(s, "name"));
  long line = 0, ch = 0;
  get_pos(json_object_get(ms, "start"), &line, &ch);
  size_t at = text_offset(&r->coc, cd.enc, line, ch);
  const CoroInfo *co = name ? render_coroutine(r, name, strlen(name)) : NULL;
  if (co && co->at == at && co->kind != CORO_PROTOTYPE) {
    char *detail;
    if (asprintf(&detail, "coroutine: %s of %s", kind_text(co->kind), co->type) < 0)
      abort();
    json_object_set_new(s, "detail", json_string(detail));
    free(detail);
  }
  json_t *children = json_object_get(s, "children");
  if (children)
    map_symbols(children, doc, r);
  return true;
}

static void map_symbols(json_t *list, Document *doc, Render *r) {
  filter_array(list, map_symbol, doc, r);
}

static bool map_edit(json_t *e, Document *doc, Render *r) {
  return map_ranged(e, doc, r);
}

static bool map_completion_item(json_t *item, Document *doc, Render *r) {
  const char *label = json_string_value(json_object_get(item, "label"));
  if (label && strstr(label, "coro_lsp_"))
    return false; /* the rendering's own helpers */
  json_t *te = json_object_get(item, "textEdit");
  if (te) {
    json_t *range = json_object_get(te, "range");
    json_t *mapped = range ? range_to_coc(r, range) : NULL;
    if (mapped)
      json_object_set_new(te, "range", mapped);
    else
      json_object_del(item, "textEdit");
  }
  json_t *more = json_object_get(item, "additionalTextEdits");
  if (more)
    filter_array(more, map_edit, doc, r);
  return true;
}

/* A WorkspaceEdit: the rendering's edits become the .coc's. */
static void map_workspace_edit(json_t *we) {
  json_t *changes = json_object_get(we, "changes");
  if (json_is_object(changes)) {
    json_t *out = json_object();
    const char *uri;
    json_t *edits;
    json_object_foreach(changes, uri, edits) {
      Document *d = doc_of_c_uri(uri);
      if (d && d->render) {
        filter_array(edits, map_edit, d, d->render);
        json_object_set(out, d->uri, edits);
      } else {
        json_object_set(out, uri, edits);
      }
    }
    json_object_set_new(we, "changes", out);
  }
  json_t *dc = json_object_get(we, "documentChanges");
  size_t i;
  json_t *c;
  json_array_foreach(dc, i, c) {
    json_t *td = json_object_get(c, "textDocument");
    const char *uri = json_string_value(json_object_get(td, "uri"));
    Document *d = uri ? doc_of_c_uri(uri) : NULL;
    if (d && d->render) {
      filter_array(json_object_get(c, "edits"), map_edit, d, d->render);
      json_object_set_new(td, "uri", json_string(d->uri));
      /* (a workspace file the editor has not opened: the text on disk, no version) */
      json_object_set_new(td, "version", d->background ? json_null() : json_integer(d->version));
    }
  }
}

/* Formatting's edits, on a text of the same bytes as the .coc: kept when
   they change only whitespace. */
static json_t *map_format(json_t *edits, const Text *coc) {
  json_t *out = json_array();
  size_t i;
  json_t *e;
  json_array_foreach(edits, i, e) {
    long l0, c0, l1, c1;
    json_t *range = json_object_get(e, "range");
    const char *text = json_string_value(json_object_get(e, "newText"));
    if (!text || !get_pos(json_object_get(range, "start"), &l0, &c0) ||
        !get_pos(json_object_get(range, "end"), &l1, &c1))
      continue;
    size_t a = text_offset(coc, cd.c_enc, l0, c0), b = text_offset(coc, cd.c_enc, l1, c1);
    bool blank = true;
    for (size_t k = a; k < b && blank; k++)
      blank = strchr(" \t\r\n\f\v", coc->text[k]) != NULL;
    for (const char *t = text; *t && blank; t++)
      blank = strchr(" \t\r\n\f\v", *t) != NULL;
    if (!blank)
      continue; /* (a comment rewrapped, say: never a token of the user's) */
    json_array_append_new(
        out, json_pack("{s:{s:o, s:o}, s:s}", "range", "start", make_pos(coc, cd.enc, a), "end",
                       make_pos(coc, cd.enc, b), "newText", text));
  }
  return out;
}

/* Hover on a coroutine's name: what a call of it is, before clangd's text
   (which shows the body's view, `T NAME(params)`). */
static void hover_note(json_t *hover, const Render *r, const Pending *p) {
  const CoroInfo *co = render_coroutine(r, r->coc.text + p->word_from, p->word_to - p->word_from);
  json_t *contents = json_object_get(hover, "contents");
  const char *value = json_string_value(json_object_get(contents, "value"));
  if (!co || !value)
    return;
  char *text;
  if (asprintf(&text,
               "coroutine `%s`: %s of `%s`; a call `%s(...)` makes an instance, a `coro_t *`"
               "%s\n\n---\n%s",
               co->name, kind_text(co->kind), co->type, co->name,
               co->kind == CORO_TASK ? ", and `await` of it gives the value" : "", value) < 0)
    abort();
  json_object_set_new(contents, "value", json_string(text));
  free(text);
}

static json_t *map_result(Pending *p, json_t *result) {
  Document *doc = find_by_uri(p->uri);
  Render *r = p->render;
  if (json_is_null(result) || !r)
    return json_incref(result);
  json_t *out = json_deep_copy(result);
  switch (p->kind) {
  case R_HOVER: {
    json_t *range = json_object_get(out, "range");
    json_t *mapped = range ? range_to_coc(r, range) : NULL;
    if (mapped)
      json_object_set_new(out, "range", mapped);
    else
      json_object_del(out, "range");
    hover_note(out, r, p);
    break;
  }
  case R_LOCATIONS:
    if (json_is_array(out))
      filter_array(out, map_location, doc, r);
    else if (!map_location(out, doc, r))
      out = (json_decref(out), json_null());
    break;
  case R_HIGHLIGHTS:
    filter_array(out, map_ranged, doc, r);
    break;
  case R_COMPLETION:
    filter_array(json_is_array(out) ? out : json_object_get(out, "items"), map_completion_item, doc,
                 r);
    break;
  case R_SYMBOLS:
    map_symbols(out, doc, r);
    break;
  case R_WORKSPACE_EDIT:
    map_workspace_edit(out);
    break;
  case R_PREPARE_RENAME:
    if (json_object_get(out, "start")) {
      json_t *mapped = range_to_coc(r, out);
      json_decref(out);
      out = mapped ? mapped : json_null();
    } else if (!map_ranged(out, doc, r)) {
      out = (json_decref(out), json_null());
    }
    break;
  case R_FORMAT: {
    json_t *edits = map_format(out, &r->coc);
    json_decref(out);
    out = edits;
    break;
  }
  case R_AS_IS:
  case R_INITIALIZE:
    break;
  }
  return out;
}

static void response(json_t *msg) {
  json_int_t id = json_integer_value(json_object_get(msg, "id"));
  int k = 0;
  while (k < cd.npending && cd.pending[k].id != id)
    k++;
  if (k == cd.npending)
    return;
  Pending p = cd.pending[k];
  cd.pending[k] = cd.pending[--cd.npending];
  json_t *error = json_object_get(msg, "error"), *result = json_object_get(msg, "result");
  if (p.kind == R_INITIALIZE) {
    const char *enc = json_string_value(json_object_get(result, "offsetEncoding"));
    cd.c_enc = enc && strcmp(enc, "utf-8") == 0 ? ENC_UTF8 : ENC_UTF16;
    if (error)
      rpc_log(1, "coroc-lsp: clangd refused initialize: %s",
              json_string_value(json_object_get(error, "message")));
  } else if (p.temp_uri) {
    send_notification("textDocument/didClose",
                      json_pack("{s:{s:s}}", "textDocument", "uri", p.temp_uri));
  }
  if (p.editor_id) {
    if (error) {
      json_int_t code = json_integer_value(json_object_get(error, "code"));
      const char *text = json_string_value(json_object_get(error, "message"));
      rpc_error(p.editor_id, code ? (int)code : RPC_INTERNAL_ERROR, "clangd: %s",
                text ? text : "an error");
    } else {
      rpc_reply(p.editor_id, map_result(&p, result));
    }
  }
  pending_free(&p);
}

void clangd_readable(void) {
  if (!cd.child.pid)
    return;
  bool open = child_read(&cd.child);
  json_t *msg;
  while ((msg = child_next(&cd.child))) {
    const char *method = json_string_value(json_object_get(msg, "method"));
    json_t *id = json_object_get(msg, "id");
    if (method && id) /* a request of clangd's (none that matters): an empty answer */
      child_send(&cd.child, json_pack("{s:s, s:O, s:n}", "jsonrpc", "2.0", "id", id, "result"));
    else if (method && strcmp(method, "textDocument/publishDiagnostics") == 0)
      diagnostics_of_clangd(json_object_get(msg, "params"));
    else if (!method && id)
      response(msg);
    json_decref(msg);
  }
  if (!open)
    died();
}

/* }================================================================== */

/* {==================================================================
 * Documents and requests
 * =================================================================== */

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && strcmp(s + n - t, tail) == 0;
}

void clangd_open(Document *doc) {
  doc->coc = ends_with(doc->path, ".coc");
  if (strncmp(doc->uri, "file://", 7) != 0 || doc->path[0] != '/')
    return; /* (clangd reads files: a document with no path is coroc's only) */
  if (!doc->c_uri) {
    const char *suffix = doc->coc ? ".c" : "";
    if (asprintf(&doc->c_uri, "%s%s", doc->uri, suffix) < 0 ||
        asprintf(&doc->c_path, "%s%s", doc->path, suffix) < 0)
      abort();
  }
  doc->c_dirty = true;
  if (cd.child.pid)
    open_in_clangd(doc);
}

void clangd_changed(Document *doc) {
  doc->c_dirty = true;
}

void clangd_sync(Document *doc) {
  if (!cd.child.pid || !doc->c_uri || !doc->c_dirty)
    return;
  json_t *command = compdb_command(doc->path, doc->c_path);
  bool command_changed = !json_equal(command, doc->c_command);
  json_decref(command);
  if (command_changed) { /* (a compile_commands.json written, changed or removed) */
    /* closed and opened again at a new version: a reparse for the new command would come
       at the version clangd has, which its diagnostics for the old one also carry */
    send_notification("textDocument/didClose",
                      json_pack("{s:{s:s}}", "textDocument", "uri", doc->c_uri));
    open_in_clangd(doc);
    return;
  }
  const Render *was = doc->render;
  if (was && was->coc.len == doc->text.len &&
      memcmp(was->coc.text, doc->text.text, doc->text.len) == 0) {
    /* the text clangd has: it would not answer a change that changes nothing (no new
       diagnostics), and its last ones stand */
    doc->c_dirty = false;
    return;
  }
  rerender(doc);
  send_notification("textDocument/didChange",
                    json_pack("{s:{s:s, s:I}, s:[{s:o}]}", "textDocument", "uri", doc->c_uri,
                              "version", (json_int_t)doc->c_version, "contentChanges", "text",
                              json_text(doc->render->c.text, doc->render->c.len)));
}

void clangd_close(Document *doc) {
  if (cd.child.pid && doc->c_uri)
    send_notification("textDocument/didClose",
                      json_pack("{s:{s:s}}", "textDocument", "uri", doc->c_uri));
  for (int i = 0; i < cd.npending; i++) /* (its answers now go nowhere but null) */
    if (cd.pending[i].uri && strcmp(cd.pending[i].uri, doc->uri) == 0) {
      free(cd.pending[i].uri);
      cd.pending[i].uri = strdup("");
    }
  render_release(doc->render);
  json_decref(doc->clangd_diags);
  json_decref(doc->c_command);
  free(doc->c_uri);
  free(doc->c_path);
}

static const struct {
  const char *method;
  ResultKind kind;
  bool position;
} METHODS[] = {
    {"textDocument/hover", R_HOVER, true},
    {"textDocument/definition", R_LOCATIONS, true},
    {"textDocument/declaration", R_LOCATIONS, true},
    {"textDocument/typeDefinition", R_LOCATIONS, true},
    {"textDocument/implementation", R_LOCATIONS, true},
    {"textDocument/references", R_LOCATIONS, true},
    {"textDocument/documentHighlight", R_HIGHLIGHTS, true},
    {"textDocument/completion", R_COMPLETION, true},
    {"textDocument/signatureHelp", R_AS_IS, true},
    {"textDocument/rename", R_WORKSPACE_EDIT, true},
    {"textDocument/prepareRename", R_PREPARE_RENAME, true},
    {"textDocument/documentSymbol", R_SYMBOLS, false},
    {"textDocument/formatting", R_FORMAT, false},
    {"textDocument/rangeFormatting", R_FORMAT, false},
};

void clangd_capabilities(json_t *caps) {
  if (!cd.wanted)
    return;
  static const char *const providers[] = {"hoverProvider",
                                          "definitionProvider",
                                          "declarationProvider",
                                          "typeDefinitionProvider",
                                          "implementationProvider",
                                          "referencesProvider",
                                          "documentHighlightProvider",
                                          "documentSymbolProvider",
                                          "documentFormattingProvider",
                                          "documentRangeFormattingProvider"};
  for (size_t i = 0; i < sizeof providers / sizeof providers[0]; i++)
    json_object_set_new(caps, providers[i], json_true());
  json_object_set_new(
      caps, "completionProvider",
      json_pack("{s:b, s:[s, s, s]}", "resolveProvider", 1, "triggerCharacters", ".", ">", ":"));
  json_object_set_new(caps, "signatureHelpProvider",
                      json_pack("{s:[s, s]}", "triggerCharacters", "(", ","));
  json_object_set_new(caps, "renameProvider", json_pack("{s:b}", "prepareProvider", 1));
}

/* The formatting rendering, opened under a name of its own for the request. */
static void format_request(Message *m, Document *doc, json_t *params, int k) {
  char *temp;
  if (asprintf(&temp, "%s.format.c", doc->c_uri ? doc->c_uri : doc->uri) < 0)
    abort();
  char *text = doc->coc ? render_for_format(&doc->text) : NULL;
  send_notification(
      "textDocument/didOpen",
      json_pack("{s:{s:s, s:s, s:i, s:o}}", "textDocument", "uri", temp, "languageId", "c",
                "version", 1, "text", json_text(text ? text : doc->text.text, doc->text.len)));
  free(text);
  json_object_set_new(json_object_get(params, "textDocument"), "uri", json_string(temp));
  json_t *range = json_object_get(params, "range");
  long l0, c0, l1, c1;
  if (range && get_pos(json_object_get(range, "start"), &l0, &c0) &&
      get_pos(json_object_get(range, "end"), &l1, &c1)) { /* (the same bytes: clangd's columns) */
    size_t a = text_offset(&doc->text, cd.enc, l0, c0), b = text_offset(&doc->text, cd.enc, l1, c1);
    json_object_set_new(range, "start", make_pos(&doc->text, cd.c_enc, a));
    json_object_set_new(range, "end", make_pos(&doc->text, cd.c_enc, b));
  }
  Render *copy = calloc(1, sizeof *copy); /* (only its text: the map is the identity) */
  if (!copy)
    abort();
  copy->refs = 1;
  text_set(&copy->coc, doc->text.text, doc->text.len);
  send_request(METHODS[k].method, params,
               (Pending){.editor_id = json_incref(m->id),
                         .kind = R_FORMAT,
                         .uri = strdup(doc->uri),
                         .render = copy,
                         .temp_uri = temp});
}

/* The word at the .coc's offset (hover's note). */
static void word_at(const Text *t, size_t at, size_t *from, size_t *to) {
  *from = *to = at;
  while (*from > 0 && is_ident_char(t->text[*from - 1]))
    (*from)--;
  while (*to < t->len && is_ident_char(t->text[*to]))
    (*to)++;
}

/* {==================================================================
 * References and rename: after clangd has read the workspace
 * =================================================================== */

static bool across_files(const char *method) {
  return strcmp(method, "textDocument/references") == 0 ||
         strcmp(method, "textDocument/rename") == 0;
}

/* Has clangd yet to read a file of the workspace? Its index has a file's
   references once it has built it, which its diagnostics of the file's
   version say. */
static bool reading_workspace(void) {
  for (int i = 0; i < *cd.ndocs; i++) {
    const Document *d = (*cd.docs)[i];
    if (d->background && d->c_uri && (d->c_dirty || !d->clangd_diags))
      return true;
  }
  return false;
}

static bool forward(Message *m, Document *(*find)(const char *uri), bool may_wait);

void clangd_run_deferred(Document *(*find)(const char *uri)) {
  if (!workspace_waiting())
    return;
  bool reading = reading_workspace();
  Message m;
  json_t *root;
  while (workspace_next(!reading, &m, &root)) { /* (in the order they came) */
    forward(&m, find, false);
    json_decref(root);
  }
}

/* }================================================================== */

bool clangd_request(Message *m, Document *(*find)(const char *uri)) {
  return forward(m, find, true);
}

static bool forward(Message *m, Document *(*find)(const char *uri), bool may_wait) {
  if (strcmp(m->method, "completionItem/resolve") == 0 && cd.child.pid) {
    send_request(m->method, json_incref(m->params),
                 (Pending){.editor_id = json_incref(m->id), .kind = R_AS_IS});
    return true;
  }
  if (strcmp(m->method, "coroc/editorC") == 0) { /* the rendering, as clangd has it */
    const char *uri =
        json_string_value(json_object_get(json_object_get(m->params, "textDocument"), "uri"));
    Document *doc = uri ? find(uri) : NULL;
    if (doc && doc->c_uri)
      clangd_sync(doc);
    if (doc && doc->render)
      rpc_reply(m->id,
                json_pack("{s:o}", "text", json_text(doc->render->c.text, doc->render->c.len)));
    else
      rpc_error(m->id, RPC_INVALID_PARAMS, "coroc/editorC: %s",
                doc ? "clangd has no rendering of it" : "the document is not open");
    return true;
  }
  int k = 0, n = sizeof METHODS / sizeof METHODS[0];
  while (k < n && strcmp(METHODS[k].method, m->method) != 0)
    k++;
  if (k == n)
    return false;
  const char *uri =
      json_string_value(json_object_get(json_object_get(m->params, "textDocument"), "uri"));
  Document *doc = uri ? find(uri) : NULL;
  if (!doc) {
    rpc_error(m->id, RPC_INVALID_PARAMS, "%s: %s", m->method,
              uri ? "the document is not open" : "params.textDocument.uri is missing");
    return true;
  }
  if (!cd.child.pid || !doc->c_uri) {
    rpc_error(m->id, RPC_INTERNAL_ERROR, "%s: %s", m->method,
              !doc->c_uri   ? "the document has no file: clangd cannot read it"
              : cd.given_up ? "clangd ended too often and was given up"
                            : "clangd is not running (see coroc-lsp --help)");
    return true;
  }
  if (may_wait && across_files(m->method) && (workspace_waiting() || reading_workspace())) {
    workspace_wait(m); /* (after any before it: the answers keep their order) */
    return true;
  }
  clangd_sync(doc);
  json_t *params = json_deep_copy(m->params);
  if (METHODS[k].kind == R_FORMAT) {
    format_request(m, doc, params, k);
    return true;
  }
  json_object_set_new(json_object_get(params, "textDocument"), "uri", json_string(doc->c_uri));
  Pending p = {.editor_id = json_incref(m->id), .kind = METHODS[k].kind, .uri = strdup(doc->uri)};
  if (METHODS[k].position) {
    json_t *pos = pos_to_c(doc->render, json_object_get(m->params, "position"));
    if (!pos) { /* on a word coroc replaced: nothing of clangd's to say */
      json_decref(params);
      pending_free(&p);
      rpc_reply(m->id, NULL);
      return true;
    }
    long line = 0, ch = 0;
    get_pos(json_object_get(m->params, "position"), &line, &ch);
    word_at(&doc->text, text_offset(&doc->text, cd.enc, line, ch), &p.word_from, &p.word_to);
    json_object_set_new(params, "position", pos);
  }
  p.render = doc->render;
  doc->render->refs++;
  send_request(m->method, params, p);
  return true;
}

/* }================================================================== */
