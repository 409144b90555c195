"""coroc-lsp's proxy to clangd (transformer/lsp/clangd.c, render.c;
docs/editors.md, "Inside"), driven with test_lsp.py's JSON-RPC client.

The server gives clangd an editor rendering of each .coc (the user's text
with the three words made C) and maps positions both ways. What is checked,
each time at ranges computed here from the .coc's own text:

  * clangd's diagnostics on the .coc: a wrong argument inside a yield's
    expression, an unknown name after an await, a line with characters
    outside ASCII before the error (UTF-16 and UTF-8 columns); a coroc
    refusal shown once, coroc's; no clangd error on any example or case
    (the rendering is C that clangd accepts); a compile_commands.json
    written after the .coc was opened reaches clangd at the next change;
  * hover (a local of a coroutine body, a coro_ function, a coroutine's
    name and its kind), definition (in the file, into <coro.h>, from a
    plain .c into the coroutine it calls, and into a .coc the editor has
    not opened), completion of coro_, rename,
    document symbols with the coroutines' kinds, formatting that changes
    only whitespace and keeps the three words;
  * clangd killed mid-session: noticed, said, restarted, and serving
    again; a request in flight when it ends answered with an error (a
    stand-in clangd that dies on a request, tests/lsp_clangd/fake_clangd).

clangd 14 is Debian's package `clangd` (.ci/run installs it). Timeouts are
liveness bounds only.
"""
import json
import os
import pathlib
import urllib.parse
import re
import shutil
import signal
import time

import pytest

from conftest import SOURCE_DIR, TESTS_DIR, case_args
from test_lsp import ANSWER_TIMEOUT, Server, uri_of

CLANGD = shutil.which("clangd")
FAKE = pathlib.Path(__file__).parent / "lsp_clangd" / "fake_clangd"


@pytest.fixture(autouse=True)
def need_clangd():
    if CLANGD is None:
        pytest.fail("clangd is missing: apt-get install -y clangd (.ci/run installs it)")


# what Neovim's and VS Code's clients say they can show (documentSymbol: a tree, with details)
CAPS = {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                         "hover": {"contentFormat": ["markdown", "plaintext"]}}}


def start(root=None, encodings=None, args=None, env=None):
    s = Server(args=args if args is not None else [f"--clangd={CLANGD}"], env=env)
    s.initialize(encodings=encodings, root=root, caps=CAPS)
    return s


@pytest.fixture
def stopper():
    servers = []
    yield servers.append
    for s in servers:
        if s.proc.poll() is None:
            s.proc.kill()  # (by its own Popen handle: only what this test started)
            s.proc.wait()


def merged(s, uri, version):
    """The diagnostics at `version` once clangd's are in: the server
    publishes coroc's first (which s.open or s.change took), then again
    with clangd's when they come."""
    while True:
        for note in list(s.notes):
            if (note.get("method") == "textDocument/publishDiagnostics"
                    and note["params"]["uri"] == uri and note["params"].get("version") == version):
                s.notes.remove(note)
                return note["params"]["diagnostics"]
        s.receive()


def at(text, needle, nth=0, offset=0):
    """(line, character) of the nth occurrence of needle (+offset), UTF-16."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += offset
    line = text.count("\n", 0, i)
    col = i - (text.rfind("\n", 0, i) + 1)
    prefix = text.splitlines()[line][:col]
    return line, len(prefix.encode("utf-16-le")) // 2


def span(text, needle, nth=0):
    (l, c), (_, e) = at(text, needle, nth), at(text, needle, nth, len(needle))
    return {"start": {"line": l, "character": c}, "end": {"line": l, "character": e}}


def pos(text, needle, nth=0, offset=0):
    l, c = at(text, needle, nth, offset)
    return {"line": l, "character": c}


def doc(uri, **more):
    return {"textDocument": {"uri": uri}, **more}


PROGRAM = """\
#include <stdio.h>
static int twice(int x) { return 2 * x; }
coroutine int gen(int n) {
  for (int i = 0; i < n; i++)
    yield twice(i);
}
coroutine int sq(int x) {
  yield;
  return x * x;
}
coroutine void work(int delay) {
  int v = await sq(3);
  int slept = await coro_sleep(delay);
  coro_t *g = gen(v);
  printf("%d %d\\n", v, slept);
  coro_free(g);
}
int main(void) {
  coro_spawn(work(1));
  return coro_run();
}
"""


@pytest.fixture
def program(tmp_path, stopper):
    """PROGRAM open in a server with clangd, its diagnostics in: (server, uri, text)."""
    src = tmp_path / "p.coc"
    src.write_text(PROGRAM)
    s = start(root=tmp_path)
    stopper(s)
    uri = uri_of(src)
    assert s.open(uri, PROGRAM) == []
    assert merged(s, uri, 1) == []
    return s, uri, PROGRAM


def clangd_only(diags):
    return [d for d in diags if d["source"] != "coroc"]


# {==================================================================
# Diagnostics
# ==================================================================


def test_clangd_errors_land_on_the_coc(program):
    s, uri, text = program
    # a wrong argument inside a yield's expression, an unknown name after an await
    bad = text.replace("yield twice(i);", "yield twice(i, 7);") \
              .replace("await coro_sleep(delay)", "await coro_sleep(dilay)")
    s.change(uri, 2, [{"text": bad}])
    diags = clangd_only(merged(s, uri, 2))
    by_line = {d["range"]["start"]["line"]: d for d in diags}
    assert set(by_line) == {at(bad, "7)")[0], at(bad, "dilay")[0]}, diags
    too_many = by_line[at(bad, "7)")[0]]
    assert too_many["severity"] == 1 and "too many arguments" in too_many["message"].lower()
    assert too_many["range"] == span(bad, "7")
    # its note (twice declared here) points into the .coc too, at the definition
    [note] = too_many["relatedInformation"]
    assert note["location"]["uri"] == uri
    assert note["location"]["range"]["start"]["line"] == at(bad, "twice")[0]
    unknown = by_line[at(bad, "dilay")[0]]
    assert unknown["range"] == span(bad, "dilay") and "dilay" in unknown["message"]
    # fixed again: nothing
    s.change(uri, 3, [{"text": text}])
    assert merged(s, uri, 3) == []
    assert s.stop() == 0


def test_a_coroc_refusal_is_coroc_s_alone(program):
    s, uri, text = program
    bad = text.replace("    yield twice(i);", "    yield twice(i);\n  return 5;")
    first = s.change(uri, 2, [{"text": bad}])
    diags = merged(s, uri, 2)
    [refusal] = diags
    assert refusal == first[0] and refusal["source"] == "coroc"
    assert "'return' with a value in generator 'gen'" in refusal["message"]
    assert refusal["range"]["start"] == pos(bad, "return 5")
    assert s.stop() == 0


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
def test_columns_after_non_ascii(tmp_path, stopper, encoding):
    s = start(root=tmp_path, encodings=["utf-8"] if encoding == "utf-8" else None)
    stopper(s)
    text = ('coroutine int g(void) {\n'
            '  const char *s = "é→😀"; yield nosuch + (int)s[0];\n'
            '}\n')
    uri = uri_of(tmp_path / "u.coc")
    s.open(uri, text)
    [d] = clangd_only(merged(s, uri, 1))
    col = text.splitlines()[1].index("nosuch")
    prefix = text.splitlines()[1][:col]
    start_ = len(prefix.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(prefix.encode())
    assert start_ != col
    assert d["range"] == {"start": {"line": 1, "character": start_},
                          "end": {"line": 1, "character": start_ + len("nosuch")}}, d
    assert s.stop() == 0


EXAMPLES = sorted(SOURCE_DIR.glob("examples/*.coc")) + sorted(TESTS_DIR.glob("cases/*.coc")) + \
    sorted(TESTS_DIR.glob("tasks/*.coc")) + sorted(SOURCE_DIR.glob("docs/listings/*.coc"))


def test_no_clangd_error_on_the_examples_cases_tasks_listings(tmp_path, stopper):
    """The rendering of every example and case is C that clangd accepts:
    an error would be the rendering's (each compiles through coroc)."""
    entries = [{"directory": str(SOURCE_DIR),
                "arguments": ["cc", "-I", "tests", *case_args(p), "-c", str(p)],
                "file": str(p)} for p in EXAMPLES]
    (tmp_path / "compile_commands.json").write_text(json.dumps(entries))
    s = start(root=tmp_path)
    stopper(s)
    errors = []
    for src in EXAMPLES:
        uri = uri_of(src)
        text = src.read_text()
        s.open(uri, text)
        for d in merged(s, uri, 1):
            if d["severity"] == 1:
                line = text.splitlines()[d["range"]["start"]["line"]]
                errors.append(f"{src.name}:{d['range']['start']['line'] + 1}: "
                              f"{d['message']} | {line.strip()}")
        s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert not errors, "\n".join(errors)
    assert s.stop() == 0


# }==================================================================

# {==================================================================
# Requests
# ==================================================================


def hover_text(res):
    contents = res["result"]["contents"]
    text = contents["value"] if isinstance(contents, dict) else json.dumps(contents)
    return text.replace("`", "")  # (markdown's code spans)


def test_hover(program):
    s, uri, text = program
    # a local of a coroutine body, whose value is an await's: the task's type
    res = s.request("textDocument/hover", doc(uri, position=pos(text, "v = await")))
    assert "Type: int" in hover_text(res) and res["result"]["range"] == span(text, "v = ", 0) | {
        "end": {"line": at(text, "v = ")[0], "character": at(text, "v = ")[1] + 1}}
    res = s.request("textDocument/hover", doc(uri, position=pos(text, "slept = ")))
    assert "Type: int" in hover_text(res)  # coro_sleep's result
    # a function of <coro.h>
    res = s.request("textDocument/hover", doc(uri, position=pos(text, "coro_spawn")))
    assert "coro_spawn" in hover_text(res) and "coro_t *" in hover_text(res)
    # a coroutine's name: its kind, and what a call of it is
    res = s.request("textDocument/hover", doc(uri, position=pos(text, "gen(v)")))
    assert "coroutine gen: generator of int" in hover_text(res) and "coro_t *" in hover_text(res)
    # on a word of coroc's: coroc's own (tests/test_lsp_coroc.py), nothing of clangd's
    res = s.request("textDocument/hover", doc(uri, position=pos(text, "await sq", offset=2)))
    assert hover_text(res).startswith("**await**: resume point 1 of task work")
    assert s.stop() == 0


def test_definition_in_the_file_and_in_a_header(program):
    s, uri, text = program
    res = s.request("textDocument/definition", doc(uri, position=pos(text, "twice(i)")))
    [loc] = res["result"]
    assert loc["uri"] == uri and loc["range"] == span(text, "twice")
    res = s.request("textDocument/definition", doc(uri, position=pos(text, "sq(3)")))
    [loc] = res["result"]
    assert loc["uri"] == uri and loc["range"] == span(text, "sq")
    res = s.request("textDocument/definition", doc(uri, position=pos(text, "coro_spawn")))
    [loc] = res["result"]
    assert loc["uri"].endswith("/coro.h"), loc
    header = pathlib.Path(urllib.parse.unquote(loc["uri"][len("file://"):])).read_text().splitlines()
    assert "coro_spawn" in header[loc["range"]["start"]["line"]]
    assert s.stop() == 0


def test_definition_from_plain_c_into_a_coroutine(program, tmp_path):
    """A plain .c opened in the same server is given to clangd as it is;
    clangd's index of the open files takes its call of gen to the .coc."""
    s, uri, text = program
    main_c = "#include <coro.h>\ncoro_t *gen(int n);\nvoid use(void) { coro_free(gen(3)); }\n"
    c_uri = uri_of(tmp_path / "use.c")
    s.open(c_uri, main_c)
    res = s.request("textDocument/definition", doc(c_uri, position=pos(main_c, "gen(3)")))
    assert [(l["uri"], l["range"]) for l in res["result"]] == [(uri, span(text, "gen"))], res
    assert s.stop() == 0


def test_completion_of_coro_(program):
    s, uri, text = program
    partial = text.replace("  coro_free(g);", "  coro_sp")
    s.change(uri, 2, [{"text": partial}])
    res = s.request("textDocument/completion", doc(uri, position=pos(partial, "coro_sp", offset=7)))
    items = res["result"]["items"] if isinstance(res["result"], dict) else res["result"]
    labels = [i["label"].strip() for i in items]
    assert any(l.startswith("coro_spawn") for l in labels), labels
    assert not [l for l in labels if "coro_lsp_" in l]
    edits = [i["textEdit"]["range"] for i in items if "textEdit" in i]
    assert edits and all(r == span(partial, "coro_sp") for r in edits), edits[:3]
    assert s.stop() == 0


def apply(text, edits):
    lines = text.splitlines(keepends=True)

    def offset(p):
        return sum(len(l) for l in lines[:p["line"]]) + p["character"]
    for e in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        a, b = offset(e["range"]["start"]), offset(e["range"]["end"])
        text = text[:a] + e["newText"] + text[b:]
    return text


def test_rename(program):
    s, uri, text = program
    res = s.request("textDocument/rename", doc(uri, position=pos(text, "gen(v)"), newName="series"))
    edits = res["result"]["changes"][uri]
    assert sorted(e["range"]["start"]["line"] for e in edits) == \
        [at(text, "gen(int")[0], at(text, "gen(v)")[0]]
    assert apply(text, edits) == text.replace("gen(", "series(")
    res = s.request("textDocument/rename", doc(uri, position=pos(text, "slept"), newName="t"))
    assert apply(text, res["result"]["changes"][uri]) == text.replace("slept", "t")
    assert s.stop() == 0


def test_document_symbols_say_what_each_coroutine_is(tmp_path, stopper):
    text = ("coroutine int gen(void) {\n  yield 1;\n}\n"
            "coroutine void task(void) {\n  yield;\n}\n"
            "coroutine int lines(void) {\n  await coro_sleep(1);\n  yield 2;\n}\n"
            "int plain(void) { return 0; }\n")
    s = start(root=tmp_path)
    stopper(s)
    uri = uri_of(tmp_path / "k.coc")
    s.open(uri, text)
    res = s.request("textDocument/documentSymbol", doc(uri))["result"]
    got = {sym["name"]: (sym.get("detail"), sym["selectionRange"]) for sym in res}
    assert got["gen"] == ("coroutine: generator of int", span(text, "gen"))
    assert got["task"] == ("coroutine: task of void", span(text, "task"))
    assert got["lines"] == ("coroutine: async generator of int", span(text, "lines"))
    assert not (got["plain"][0] or "").startswith("coroutine"), got
    assert set(got) == {"gen", "task", "lines", "plain"}, got
    assert s.stop() == 0


def test_formatting_changes_only_whitespace(tmp_path, stopper):
    text = ("coroutine   int gen(int n){\n"
            "for(int i=0;i<n;i++)\n"
            "yield  *&i;\n"
            "}\n"
            "coroutine void t(void){int v=await coro_sleep(1);(void)v;}\n")
    (tmp_path / ".clang-format").write_text("BasedOnStyle: LLVM\n")
    s = start(root=tmp_path)
    stopper(s)
    uri = uri_of(tmp_path / "f.coc")
    s.open(uri, text)
    res = s.request("textDocument/formatting",
                    doc(uri, options={"tabSize": 2, "insertSpaces": True}))
    out = apply(text, res["result"])
    assert re.sub(r"\s", "", out) == re.sub(r"\s", "", text)  # not a token touched
    lines = out.splitlines()
    assert "coroutine int gen(int n) {" in lines, out
    assert "  for (int i = 0; i < n; i++)" in lines, out
    assert "    yield *&i;" in lines, out   # a unary operand, not a declaration of type yield
    assert any(l.strip() == "int v = await coro_sleep(1);" for l in lines), out
    assert s.stop() == 0


# }==================================================================

# {==================================================================
# clangd's end
# ==================================================================


def children(pid):
    kids = []
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def test_clangd_killed_is_restarted(program):
    s, uri, text = program
    [clangd] = children(s.proc.pid)
    os.kill(clangd, signal.SIGKILL)
    while True:  # the editor is told
        msg = s.receive()
        if msg.get("method") == "window/showMessage":
            assert "clangd ended" in msg["params"]["message"]
            break
    [again] = children(s.proc.pid)
    assert again != clangd
    res = s.request("textDocument/hover", doc(uri, position=pos(text, "v = await")))
    assert "Type: int" in hover_text(res)
    bad = text.replace("await coro_sleep(delay)", "await coro_sleep(dilay)")
    s.change(uri, 2, [{"text": bad}])
    [d] = clangd_only(merged(s, uri, 2))
    assert d["range"] == span(bad, "dilay")
    assert s.stop() == 0


def test_a_request_in_flight_when_clangd_dies_gets_an_error(tmp_path, stopper):
    s = start(root=tmp_path, args=[f"--clangd={FAKE}"], env=dict(os.environ, FAKE_CLANGD="die"))
    stopper(s)
    uri = uri_of(tmp_path / "d.coc")
    s.open(uri, PROGRAM)
    res = s.request("textDocument/hover", doc(uri, position=pos(PROGRAM, "v = await")))
    assert res["error"]["code"] == -32603 and "clangd ended" in res["error"]["message"]
    # restarted: the next request reaches the next one (which dies too), a few times, then
    # the server gives up and says so, and goes on with coroc's diagnostics
    messages = []
    for _ in range(8):
        res = s.request("textDocument/hover", doc(uri, position=pos(PROGRAM, "v = await")))
        assert "error" in res, res
    messages = [n["params"]["message"] for n in s.notes if n.get("method") == "window/showMessage"]
    assert any("not restarting" in m for m in messages), messages
    assert "given up" in res["error"]["message"]
    bad = PROGRAM.replace("  yield;\n", "  yield;\n  yield 1;\n")  # a bare yield in a generator
    assert len(s.change(uri, 2, [{"text": bad}])) == 1
    assert s.stop() == 0


# }==================================================================


# {==================================================================
# References and rename reach the workspace's files, open or not
# ===================================================================

SHARED_H = "int scale(int x);\n"
A_COC = """#include "shared.h"
coroutine int count(int n) {
  for (int i = 0; i < n; i++)
    yield scale(i);
}
"""
B_COC = """#include "../shared.h"
coroutine int pairs(int n) {
  yield scale(n) + scale(n + 1);
}
"""
C_C = """#include "shared.h"
int scale(int x) { return 3 * x; }
int twice_scaled(int x) { return scale(x) * 2; }
"""
# not the project's own: a build tree's C (coroc's, and another), a hidden directory's
LEFT_OUT = {"build/CMakeCache.txt": "",
            "build/a.coc.c": "#include <coro.h>  /* added by coroc: the runtime */\nint f(void) { return scale(1); }\n",
            "build/other.c": "int g(void) { return scale(2); }\n",
            ".cache/x.c": "int h(void) { return scale(3); }\n"}


@pytest.fixture
def workspace(tmp_path, stopper):
    files = {"shared.h": SHARED_H, "a.coc": A_COC, "sub/b.coc": B_COC, "c.c": C_C, **LEFT_OUT}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    s = start(root=tmp_path)
    stopper(s)
    uri = uri_of(tmp_path / "a.coc")
    s.open(uri, A_COC)     # the one the editor opened
    return s, tmp_path, uri


def occurrences(text, word):
    """(line, character) of each `word` in text."""
    return [(text.count("\n", 0, m.start()), m.start() - (text.rfind("\n", 0, m.start()) + 1))
            for m in re.finditer(rf"\b{word}\b", text)]


def test_rename_reaches_the_files_the_editor_has_not_opened(workspace):
    s, root, uri = workspace
    res = s.request("textDocument/rename", doc(uri, position=pos(A_COC, "scale"), newName="grow"))
    changes = res["result"]["changes"]
    texts = {"a.coc": A_COC, "sub/b.coc": B_COC, "c.c": C_C, "shared.h": SHARED_H}
    assert sorted(changes) == sorted(uri_of(root / n) for n in texts), sorted(changes)
    for name, text in texts.items():   # every use, in the user's text (a .coc's mapped back)
        assert apply(text, changes[uri_of(root / name)]) == re.sub(r"\bscale\b", "grow", text), name
    # nothing was published for the files the editor did not open
    published = {n["params"]["uri"] for n in s.notes if n.get("method") == "textDocument/publishDiagnostics"}
    assert published <= {uri}, published
    assert s.stop() == 0


def test_references_see_the_workspace_as_it_is_on_disk(workspace):
    s, root, uri = workspace

    def references():
        res = s.request("textDocument/references",
                        doc(uri, position=pos(A_COC, "scale"), context={"includeDeclaration": True}))
        return sorted((pathlib.Path(urllib.parse.unquote(urllib.parse.urlparse(r["uri"]).path))
                       .relative_to(root).as_posix(),
                       r["range"]["start"]["line"], r["range"]["start"]["character"])
                      for r in res["result"])

    def expected(texts):
        return sorted((name, *at) for name, text in texts.items() for at in occurrences(text, "scale"))
    texts = {"a.coc": A_COC, "sub/b.coc": B_COC, "c.c": C_C, "shared.h": SHARED_H}
    assert references() == expected(texts)
    # a file changed on disk is read again; then the editor opens one the server had read itself
    texts["c.c"] = C_C + "int thrice_scaled(int x) { return scale(x) * 3; }\n"
    (root / "c.c").write_text(texts["c.c"])
    assert references() == expected(texts)
    b_uri = uri_of(root / "sub" / "b.coc")
    edited = B_COC.replace("scale(n + 1)", "scale(n + 2) + scale(0)")
    s.open(b_uri, edited)
    assert merged(s, b_uri, 1) == []
    texts["sub/b.coc"] = edited     # the editor's text, not the disk's
    assert references() == expected(texts)
    assert s.stop() == 0


def test_a_change_that_changes_nothing_keeps_clangds_diagnostics(tmp_path, stopper):
    """clangd answers no change of a text it has: the server keeps its last
    diagnostics, published with coroc's at the new version (an editor may
    send the same text again, on a save or an undo)."""
    text = "int f(void) {\n  return undefined_name;\n}\n"
    s = start(root=tmp_path)
    stopper(s)
    uri = uri_of(tmp_path / "same.coc")
    s.open(uri, text)
    first = merged(s, uri, 1)
    assert [d["range"] for d in first] == [span(text, "undefined_name")], first
    assert s.change(uri, 2, [{"text": text}]) == first
    assert s.stop() == 0


def test_clangd_is_told_the_compile_command_when_the_database_changes(tmp_path, stopper):
    """A compile_commands.json written after the .coc was opened reaches
    clangd at the next change, even one that leaves the text as it is:
    clangd's errors of the old command (a header not found) go."""
    root = tmp_path / "ws"
    (root / "inc").mkdir(parents=True)
    (root / "inc" / "width.h").write_text("typedef int width_t;\n")
    text = "#include <width.h>\nwidth_t w(void) {\n  return undefined_name;\n}\n"
    coc = root / "w.coc"
    coc.write_text(text)
    s = start(root=root)
    stopper(s)
    uri = uri_of(coc)
    s.open(uri, text)
    before = clangd_only(merged(s, uri, 1))
    # (clangd's 'width.h' not found is under coroc's own error of the line: not shown)
    assert any("width_t" in d["message"] for d in before), before
    (root / "compile_commands.json").write_text(json.dumps([{
        "directory": str(root), "arguments": ["cc", "-Iinc", "-c", "w.coc"], "file": "w.coc"}]))
    assert s.change(uri, 2, [{"text": text}]) == []  # coroc's, and none of clangd's old ones
    after = clangd_only(merged(s, uri, 2))  # clangd's, for the new command
    assert [d["range"] for d in after] == [span(text, "undefined_name")], after
    assert s.stop() == 0


COUNT_COC = """#include <coro.h>
coroutine int count(int n) {
  for (int i = 0; i < n; i++)
    yield i;
}
"""
MAIN_COC = """#include <coro.h>
coroutine int count(int n);
int main(void) {
  coro_t *c = count(3);
  coro_free(c);
  return 0;
}
"""


def count_definition(tmp_path, stopper, where):
    """main.coc (in `where`) opened alone, its diagnostics in; its call of
    count asked for its definition until it lands in count.coc beside it
    (the server gives clangd the other .coc files in the background, and a
    definition does not wait for them): (server, main.coc's uri, the
    locations of the last answer, count's definition)."""
    s = start(root=tmp_path)
    stopper(s)
    uri = uri_of(where / "main.coc")
    s.open(uri, MAIN_COC)
    assert merged(s, uri, 1) == []
    want = (uri_of(where / "count.coc"), span(COUNT_COC, "count"))
    deadline = time.monotonic() + ANSWER_TIMEOUT
    while True:
        res = s.request("textDocument/definition", doc(uri, position=pos(MAIN_COC, "count(3)")))
        got = [(l["uri"], l["range"]) for l in res["result"]]
        if got == [want] or time.monotonic() > deadline:
            return s, uri, got, want
        time.sleep(0.2)


def test_definition_reaches_a_coc_the_editor_has_not_opened(tmp_path, stopper):
    """Opened alone, main.coc's call of count goes to its definition in
    count.coc, which the editor never opened: once clangd has the opened
    file's diagnostics, the server gives it the workspace's .coc files (as
    clangd's own index does for the .c files of a build)."""
    for name, text in {"count.coc": COUNT_COC, "main.coc": MAIN_COC}.items():
        (tmp_path / name).write_text(text)
    s, uri, got, want = count_definition(tmp_path, stopper, tmp_path)
    assert got == [want], got
    # nothing was published for the file the editor did not open
    published = {n["params"]["uri"] for n in s.notes if n.get("method") == "textDocument/publishDiagnostics"}
    assert published <= {uri}, published
    assert s.stop() == 0


def test_definition_in_a_tree_of_many_coc_files(tmp_path, stopper):
    """A tree with more .coc files than the server gives clangd ahead of a
    request (64): those under the opened file's directory are given, and the
    definition reaches its neighbour. (Had the server taken the tree's first
    64, in the order the directories are read, it would have missed app/
    unless app/ came first of 13.)"""
    app = tmp_path / "app"
    app.mkdir()
    for d in range(12):
        (tmp_path / f"lib{d}").mkdir()
        for i in range(64):
            (tmp_path / f"lib{d}" / f"g{i}.coc").write_text(f"coroutine int g{d}_{i}(void) {{ yield {i}; }}\n")
    (app / "count.coc").write_text(COUNT_COC)
    (app / "main.coc").write_text(MAIN_COC)
    s, _, got, want = count_definition(tmp_path, stopper, app)
    assert got == [want], got
    assert s.stop() == 0
