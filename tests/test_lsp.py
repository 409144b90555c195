"""coroc-lsp, the language server (transformer/lsp/, docs/editors.md), driven
over its pipes by a small JSON-RPC client written here.

The server runs coroc in-process on the text the editor holds and publishes
coroc's own errors (and clangd's: tests/test_lsp_clangd.py). What is checked:

  * the protocol's life: initialize (what it advertises, the position
    encoding agreed), shutdown, exit and its status;
  * diagnostics: none for a good file; for every input of tests/errors/, the
    message and the place that coroc's own golden .err gives (a second
    source: test_errors.py pins those against the command line), as one
    diagnostic, both backends agreeing; a change that fixes the error clears
    it, and the last good translation is kept while the text is wrong;
  * columns in UTF-16 (the default) and UTF-8 (when offered) on a line with
    characters outside ASCII before the error, for ranges and edits alike;
  * options from compile_commands.json (a -I and a -D that only it gives);
  * bad input: a garbage header, a body that is not JSON, a request of the
    wrong shape, params of the wrong types, requests before initialize, a
    change to a document never opened: each gets the error the protocol
    says (or is ignored, for a notification), and the next request is
    answered;
  * every prefix of every example and case, by lines and a sample by bytes,
    sent as a change, is answered (no crash, no hang);
  * the server's resident memory stays flat over 1,000 edits (coroc_reset
    gives back each run).

Timeouts are for liveness only (a generous bound on one answer), never a
measure of speed. One test runs the server under Neovim's own LSP client
(nvim --headless; docs/editors.md).
"""
import json
import os
import pathlib
import queue
import random
import re
import shutil
import subprocess
import threading

import pytest

from conftest import BUILD_DIR, FULL, SOURCE_DIR, TESTS_DIR, case_args

LSP = pathlib.Path(os.environ.get("COROC_LSP", BUILD_DIR / "transformer" / "coroc-lsp"))
ANSWER_TIMEOUT = 120  # seconds: a bound on one answer (liveness), however loaded the machine


def frame(obj):
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Server:
    """coroc-lsp on pipes: requests, notifications, and what it sends."""

    def __init__(self, cwd=None, args=(), env=None):
        assert LSP.exists(), f"coroc-lsp not built at {LSP}"
        self.proc = subprocess.Popen([LSP, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.inbox = queue.Queue()
        self.next_id = 1
        self.notes = []  # notifications received, in order
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.rstrip(b"\r\n")
                if not line:
                    break
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            body = out.read(int(headers[b"content-length"]))
            self.inbox.put(json.loads(body))

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj):
        self.send_raw(frame(obj))

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def receive(self):
        msg = self.inbox.get(timeout=ANSWER_TIMEOUT)
        assert msg is not None, f"coroc-lsp ended: {self.proc.wait(timeout=ANSWER_TIMEOUT)}, " \
                                f"{self.proc.stderr.read().decode(errors='replace')}"
        if "id" not in msg:
            self.notes.append(msg)
        return msg

    def response(self, id):
        """The response to request `id` (notifications before it are kept)."""
        while True:
            msg = self.receive()
            if "id" in msg and msg["id"] == id:
                return msg
            assert "id" not in msg, f"an answer to another request: {msg}"

    def request(self, method, params=None):
        id = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.response(id)

    def initialize(self, encodings=None, root=None, caps=None):
        caps = dict(caps or {})
        if encodings:
            caps["general"] = {"positionEncodings": encodings}
        res = self.request("initialize", {"processId": None, "capabilities": caps,
                                          "rootUri": root.as_uri() if root else None})
        self.notify("initialized", {})
        return res

    def diagnostics(self, uri, version):
        """The diagnostics published for `uri` at `version`."""
        for note in self.notes:
            if self._is(note, uri, version):
                self.notes.remove(note)
                return note["params"]["diagnostics"]
        while True:
            msg = self.receive()
            assert "id" not in msg, f"an answer to no request: {msg}"
            if self._is(msg, uri, version):
                self.notes.remove(msg)
                return msg["params"]["diagnostics"]

    @staticmethod
    def _is(msg, uri, version):
        return (msg.get("method") == "textDocument/publishDiagnostics"
                and msg["params"]["uri"] == uri and msg["params"].get("version") == version)

    def open(self, uri, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "coc", "version": version, "text": text}})
        return self.diagnostics(uri, version)

    def change(self, uri, version, changes):
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": changes})
        return self.diagnostics(uri, version)

    def alive(self):
        """A request the server must answer (MethodNotFound: a method nobody has)."""
        res = self.request("coroc/noSuchMethod", {})
        assert res["error"]["code"] == -32601, res

    def stop(self):
        if self.proc.poll() is None:
            self.request("shutdown")
            self.notify("exit")
        status = self.proc.wait(timeout=ANSWER_TIMEOUT)
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return status


@pytest.fixture
def server():
    s = Server()
    yield s
    if s.proc.poll() is None:
        s.proc.kill()  # (by its own Popen handle: only the process this test started)
        s.proc.wait()


def uri_of(path):
    return pathlib.Path(path).resolve().as_uri()


def rng(line, a, b):
    return {"start": {"line": line, "character": a}, "end": {"line": line, "character": b}}


# {==================================================================
# The life of the protocol
# ==================================================================


def test_initialize_shutdown_exit(server):
    res = server.initialize()["result"]
    caps = res["capabilities"]
    assert caps["positionEncoding"] == "utf-16"  # nothing offered: LSP's default
    assert caps["textDocumentSync"] == {"openClose": True, "change": 2}  # incremental
    assert res["serverInfo"]["name"] == "coroc-lsp"
    assert server.request("shutdown") == {"jsonrpc": "2.0", "id": 2, "result": None}
    after = server.request("coroc/generatedC", {"textDocument": {"uri": "file:///x.coc"}})
    assert after["error"]["code"] == -32600  # nothing but exit after shutdown
    server.notify("exit")
    assert server.proc.wait(timeout=ANSWER_TIMEOUT) == 0


def test_null_params_are_absent_params(server):
    """"params": null, as some clients send with shutdown and exit (lsp.py's
    Peer did): taken as no params, so the server ends at once with status 0."""
    server.initialize()
    server.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    assert server.response(2) == {"jsonrpc": "2.0", "id": 2, "result": None}
    server.send({"jsonrpc": "2.0", "method": "exit", "params": None})
    assert server.proc.wait(timeout=ANSWER_TIMEOUT) == 0


def test_exit_without_shutdown_is_status_1(server):
    server.initialize()
    server.notify("exit")
    assert server.proc.wait(timeout=ANSWER_TIMEOUT) == 1


def test_end_of_input_ends_the_server(server):
    server.initialize()
    server.proc.stdin.close()
    assert server.proc.wait(timeout=ANSWER_TIMEOUT) == 1


def test_utf8_when_offered(server):
    caps = server.initialize(encodings=["utf-8", "utf-16"])["result"]["capabilities"]
    assert caps["positionEncoding"] == "utf-8"
    assert server.stop() == 0


def test_help_and_version():
    res = subprocess.run([LSP, "--version"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and res.stdout.startswith("coroc-lsp ")
    res = subprocess.run([LSP, "--bogus"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "usage: coroc-lsp" in res.stderr


# }==================================================================

# {==================================================================
# Diagnostics
# ==================================================================


def test_generator_has_no_diagnostics(server):
    server.initialize()
    src = SOURCE_DIR / "examples" / "generator.coc"
    assert server.open(uri_of(src), src.read_text()) == []
    c = server.request("coroc/generatedC", {"textDocument": {"uri": uri_of(src)},
                                            "backend": "stackful"})["result"]
    assert c["version"] == 1 and "coro_" in c["text"]
    assert server.stop() == 0


ERR_RE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$")
ERROR_CASES = sorted((TESTS_DIR / "errors").glob("*.coc"))


@pytest.fixture(scope="module")
def shared_server():
    s = Server()
    s.initialize()
    yield s
    assert s.stop() == 0


@pytest.mark.parametrize("src", ERROR_CASES, ids=[c.stem for c in ERROR_CASES])
def test_error_as_coroc_reports_it(shared_server, src):
    """One diagnostic, where coroc's golden .err puts it and saying what it says
    (both backends give it: the message names no backend)."""
    first = src.with_suffix(".err").read_text().splitlines()[0]
    m = ERR_RE.match(first)
    assert m and m["file"] == src.name, first
    text = src.read_text()
    diags = shared_server.open(uri_of(src), text)
    assert len(diags) == 1, diags
    d = diags[0]
    assert d["message"] == m["msg"] and d["severity"] == 1 and d["source"] == "coroc"
    line = int(m["line"]) - 1
    before = text.split("\n")[line].encode()[:int(m["col"]) - 1].decode(errors="replace")
    start = d["range"]["start"]
    assert start == {"line": line, "character": len(before.encode("utf-16-le")) // 2}, d
    assert d["range"]["end"]["line"] == line and d["range"]["end"]["character"] >= start["character"]
    shared_server.notify("textDocument/didClose", {"textDocument": {"uri": uri_of(src)}})
    assert shared_server.diagnostics(uri_of(src), None) == []


def test_yield_outside_a_coroutine_exact_range_and_fix(server, tmp_path):
    server.initialize()
    path = tmp_path / "f.coc"
    uri = uri_of(path)
    text = "int f(void) {\n  return 0;\n}\n\nint g(void) {\n  yield 1;\n}\n"
    diags = server.open(uri, text)
    assert [(d["range"], d["message"]) for d in diags] == \
        [(rng(5, 2, 7), "'yield' outside a coroutine")]
    # the fix, as an incremental change: `yield` becomes `return`
    assert server.change(uri, 2, [{"range": rng(5, 2, 7), "text": "return"}]) == []
    # broken again, then the whole text replaced by a good one
    assert len(server.change(uri, 3, [{"range": rng(1, 2, 8), "text": "yield"}])) == 1
    assert server.change(uri, 4, [{"text": "int h(void) { return 1; }\n"}]) == []
    assert server.stop() == 0


def test_await_of_a_generator_range_covers_the_word(server, tmp_path):
    server.initialize()
    uri = uri_of(tmp_path / "g.coc")
    text = ("coroutine int numbers(void) {\n"
            "  yield 1;\n"
            "}\n"
            "coroutine void task(void) {\n"
            "  int n = await numbers();\n"
            "  (void)n;\n"
            "}\n")
    diags = server.open(uri, text)
    assert len(diags) == 1, diags
    assert "is a generator" in diags[0]["message"]
    r = diags[0]["range"]
    line = text.splitlines()[r["start"]["line"]]
    assert line[r["start"]["character"]:r["end"]["character"]] == "await", diags
    assert server.stop() == 0


def test_last_good_translation_is_kept(server, tmp_path):
    server.initialize()
    uri = uri_of(tmp_path / "k.coc")
    good = "coroutine int up(void) {\n  yield 1;\n}\n"
    assert server.open(uri, good) == []
    before = server.request("coroc/generatedC", {"textDocument": {"uri": uri}})["result"]
    assert before["version"] == 1 and "up" in before["text"]
    assert len(server.change(uri, 2, [{"range": rng(0, 0, 10), "text": ""}])) == 1  # no coroutine
    kept = server.request("coroc/generatedC", {"textDocument": {"uri": uri}})["result"]
    assert kept == before
    bad = server.request("coroc/generatedC", {"textDocument": {"uri": uri}, "backend": 3})
    assert bad["error"]["code"] == -32602
    assert server.stop() == 0


# a line with characters of two bytes (é), of three (→) and of four (😀: two
# UTF-16 code units) before the error
UNICODE_LINE = 'int f(void) { const char *s = "é→😀"; yield 1; }\n'


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
def test_columns_after_non_ascii(server, tmp_path, encoding):
    offered = ["utf-8"] if encoding == "utf-8" else None
    caps = server.initialize(encodings=offered)["result"]["capabilities"]
    assert caps["positionEncoding"] == encoding
    count = (lambda s: len(s.encode("utf-16-le")) // 2) if encoding == "utf-16" else \
        (lambda s: len(s.encode()))
    uri = uri_of(tmp_path / "u.coc")
    at = UNICODE_LINE.index("yield")
    start, end = count(UNICODE_LINE[:at]), count(UNICODE_LINE[:at + len("yield")])
    assert start != at  # (the line does make the encodings differ)
    diags = server.open(uri, UNICODE_LINE)
    assert [d["range"] for d in diags] == [rng(0, start, end)], diags
    # an edit at the same columns lands on the word: the error is gone
    assert server.change(uri, 2, [{"range": rng(0, start, end), "text": "return"}]) == []
    assert server.stop() == 0


def test_compile_commands_give_include_paths_and_defines(tmp_path):
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "inc").mkdir()
    (root / "inc" / "width.h").write_text("typedef int width_t;\n")
    coc = root / "src" / "w.coc"
    coc.write_text("#include <width.h>\n#if WIDTH != 3\n#error WIDTH\n#endif\n"
                   "coroutine width_t w(void) {\n  yield WIDTH;\n}\n")
    # coroc's reading of the database alone: clangd's diagnostics, published with coroc's
    # whenever clangd answers, are test_lsp_clangd.py's
    s = Server(args=["--no-clangd"])
    try:
        s.initialize(root=root)
        uri = uri_of(coc)
        diags = s.open(uri, coc.read_text())
        assert len(diags) == 1 and "width.h" in diags[0]["message"], diags
        assert diags[0]["range"]["start"]["line"] == 0
        # coroc_generate's entry: the C made of it, compiled with -I the .coc's directory
        (root / "build").mkdir()
        (root / "build" / "compile_commands.json").write_text(json.dumps([{
            "directory": str(root / "build"),
            "command": f"cc -I{root / 'src'} -I ../inc -D WIDTH=3 -o w.o -c w.stackless.c",
            "file": "w.stackless.c"}]))
        assert s.change(uri, 2, [{"text": coc.read_text()}]) == []
        # the .coc's own entry wins over it
        (root / "compile_commands.json").write_text(json.dumps([{
            "directory": str(root), "arguments": ["cc", "-Iinc", "-DWIDTH=4", "-c", "src/w.coc"],
            "file": "src/w.coc"}]))
        diags = s.change(uri, 3, [{"text": coc.read_text()}])
        assert len(diags) == 1 and "WIDTH" in diags[0]["message"], diags
        assert diags[0]["range"]["start"]["line"] == 2
        assert s.stop() == 0
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


# }==================================================================

# {==================================================================
# Bad input
# ==================================================================


def error_code(msg):
    assert "error" in msg, msg
    return msg["error"]["code"]


def test_requests_before_initialize(server):
    assert error_code(server.request("shutdown")) == -32002
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": "file:///x.coc", "languageId": "coc", "version": 1, "text": "yield;"}})
    server.initialize()  # (the didOpen before it was dropped: no diagnostics for it)
    assert error_code(server.request("initialize", {"capabilities": {}})) == -32600  # twice
    assert server.stop() == 0
    assert not [n for n in server.notes if n["method"] == "textDocument/publishDiagnostics"]


def test_malformed_messages_are_answered_and_survived(server, tmp_path):
    server.initialize()
    # a header block that is no header, then one without a Content-Length
    server.send_raw(b"garbage without a colon\r\n\r\n")
    assert server.response(None)["error"]["code"] == -32700
    server.alive()
    server.send_raw(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n")
    assert server.response(None)["error"]["code"] == -32700
    server.alive()
    server.send_raw(b"Content-Length: twelve\r\n\r\n")
    assert server.response(None)["error"]["code"] == -32700
    server.alive()
    # bodies that are not JSON: cut short, not UTF-8, unbalanced, empty
    for body in [b"{not json", b"\xff\xfe", b"[1, 2", b""]:
        server.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        assert server.response(None)["error"]["code"] == -32700, body
        server.alive()
    # JSON that is not a request
    for obj in [[1, 2], 42, {"id": 7}, {"jsonrpc": "1.0", "id": 8, "method": "shutdown"},
                {"jsonrpc": "2.0", "id": {"no": 1}, "method": "shutdown"},
                {"jsonrpc": "2.0", "id": 9, "method": 5}]:
        server.send(obj)
        msg = server.response(obj.get("id") if isinstance(obj, dict) and
                              isinstance(obj.get("id"), int) else None)
        assert msg["error"]["code"] == -32600, (obj, msg)
        server.alive()
    # params of the wrong types
    server.send({"jsonrpc": "2.0", "id": 20, "method": "coroc/generatedC", "params": 3})
    assert error_code(server.response(20)) == -32602
    res = server.request("coroc/generatedC", {"textDocument": {"uri": 5}})
    assert error_code(res) == -32602
    server.alive()
    # notifications of the wrong shape, or for a document never opened: no reply
    server.notify("textDocument/didChange", {"textDocument": {"uri": "file:///never.coc",
                                                              "version": 2},
                                             "contentChanges": [{"text": "int x;"}]})
    server.notify("textDocument/didOpen", {"textDocument": {"uri": 3, "version": "one"}})
    server.notify("textDocument/didClose", {"textDocument": {"uri": "file:///never.coc"}})
    server.notify("textDocument/didChange", [1, 2, 3])
    server.notify("$/cancelRequest", {"id": 1})
    server.notify("no/such/notification", {})
    server.alive()
    # a good document still works, and so does a change with a range of the wrong type
    uri = uri_of(tmp_path / "ok.coc")
    assert server.open(uri, "int x;\n") == []
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"range": "all", "text": "y"}]})
    server.alive()
    assert server.change(uri, 3, [{"text": "int z;\n"}]) == []
    assert server.stop() == 0
    assert server.proc.poll() == 0
    assert all(n["method"] != "textDocument/publishDiagnostics" or
               n["params"]["uri"] != "file:///never.coc" for n in server.notes)


def test_an_unknown_request_is_method_not_found(server):
    server.initialize()
    assert error_code(server.request("textDocument/codeAction", {
        "textDocument": {"uri": "file:///x.coc"}})) == -32601
    # one that clangd would answer, of a document never opened
    assert error_code(server.request("textDocument/hover", {
        "textDocument": {"uri": "file:///x.coc"}, "position": {"line": 0, "character": 0}})) \
        == -32602
    assert server.stop() == 0


# }==================================================================

# {==================================================================
# Every prefix, and memory
# ==================================================================


PREFIX_INPUTS = sorted(SOURCE_DIR.glob("examples/*.coc")) + sorted(TESTS_DIR.glob("cases/*.coc"))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A workspace whose compile_commands.json gives the cases -I tests and
    their own options (`// coroc-args:`), as tests/test_cases.py builds them."""
    root = tmp_path_factory.mktemp("ws")
    entries = [{"directory": str(SOURCE_DIR),
                "arguments": ["cc", "-I", "tests", *case_args(p), "-c", str(p)],
                "file": str(p)} for p in PREFIX_INPUTS]
    (root / "compile_commands.json").write_text(json.dumps(entries))
    return root


# Each run starts the preprocessor twice (`cc -E`, once a backend): every
# line prefix of the 65 files is some 15,000 of them, about ten minutes of
# the machine, beyond the suite's share of the CI's 20. So the suite sends
# every 4th line prefix of the examples and every 24th of the cases (85 s of
# the suite with every 3rd and 16th), with 12 prefixes cut at any byte of an
# example and 6 of a case; COROC_LSP_EVERY_PREFIX=1
# (the target `lsp-prefixes`, tests/CMakeLists.txt) and tests/run --full send
# every line prefix of every file, and 12 byte prefixes of each.
EVERY_PREFIX = os.environ.get("COROC_LSP_EVERY_PREFIX") == "1" or FULL


def prefixes(src, text, seed):
    """The prefixes by lines (every one, or a step of them: above), and a
    sample of prefixes cut at any byte."""
    data = text.encode()
    lines = text.splitlines(keepends=True)
    example = src.parent.name == "examples"
    step = 1 if EVERY_PREFIX else 4 if example else 24
    out = ["".join(lines[:n]) for n in range(0, len(lines) + 1, step)]
    r = random.Random(seed)
    cuts = sorted(r.sample(range(len(data) + 1), min(12 if EVERY_PREFIX or example else 6, len(data) + 1)))
    return out + [data[:c].decode(errors="ignore") for c in cuts]


@pytest.mark.parametrize("src", PREFIX_INPUTS, ids=[p.relative_to(SOURCE_DIR).as_posix()
                                                    for p in PREFIX_INPUTS])
def test_every_prefix_is_answered(workspace, src):
    # a stand-in clangd that takes every rendering (tests/lsp_clangd/fake_clangd): the
    # rendering of each prefix is made and sent, without a real clangd's cost per change
    fake = pathlib.Path(__file__).parent / "lsp_clangd" / "fake_clangd"
    s = Server(args=[f"--clangd={fake}"], env=dict(os.environ, FAKE_CLANGD="silent"))
    try:
        s.initialize(root=workspace)
        uri = uri_of(src)
        text = src.read_text()
        s.open(uri, "")
        for version, prefix in enumerate(prefixes(src, text, src.name), start=2):
            diags = s.change(uri, version, [{"text": prefix}])
            assert all(d["source"] == "coroc" for d in diags)
            if version % 8 == 0:  # the rendering follows (and hover goes through it)
                rendered = s.request("coroc/editorC", {"textDocument": {"uri": uri}})
                assert "text" in rendered["result"], rendered
                s.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                 "position": {"line": 0, "character": 0}})
        assert s.change(uri, version + 1, [{"text": text}]) == []  # whole, it is good
        assert s.stop() == 0
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def rss_kib(pid):
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)[1])


def test_memory_stays_flat_over_400_edits(server):
    """Each edit is diagnosed (both backends), alternately with and without
    an error, so that both ends of a run (the longjmp of an error, the kept
    translation) repeat. After a warm-up, the resident size stays within 5%."""
    server.initialize()
    src = SOURCE_DIR / "examples" / "generator.coc"
    uri = uri_of(src)
    text = src.read_text()
    assert server.open(uri, text) == []
    line = next(i for i, l in enumerate(text.splitlines()) if l.lstrip().startswith("yield"))
    col = text.splitlines()[line].index("yield")
    warm = None
    for version in range(2, 402):  # (the leak it found grew 2 MB an edit: 800 MB by the end)
        broken = version % 2 == 0  # `yield` -> `yieldx`, and back
        at = col + len("yield")
        change = {"range": rng(line, at, at), "text": "x"} if broken else \
                 {"range": rng(line, at, at + 1), "text": ""}
        diags = server.change(uri, version, [change])
        assert len(diags) == (1 if broken else 0), (version, diags)
        if version == 100:
            warm = rss_kib(server.proc.pid)
    end = rss_kib(server.proc.pid)
    assert end <= warm * 1.05, f"RSS grew from {warm} KiB after warm-up to {end} KiB"
    assert server.stop() == 0


# }==================================================================

# {==================================================================
# Neovim's client
# ==================================================================

NVIM_CONFIG = """\
-- Neovim 0.7's client (Debian 12): vim.lsp.start_client and buf_attach_client;
-- from 0.8 on, vim.lsp.start does both (docs/editors.md).
local lsp_path, file, out = _G.arg_lsp, _G.arg_file, _G.arg_out
vim.cmd("edit " .. vim.fn.fnameescape(file))
local id = vim.lsp.start_client({ name = "coroc-lsp", cmd = { lsp_path },
                                  root_dir = vim.fn.fnamemodify(file, ":h") })
vim.lsp.buf_attach_client(0, id)
local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local f = io.open(out, "w")
f:write(vim.json.encode({ ok = ok, diagnostics = vim.diagnostic.get(0) }))
f:close()
vim.lsp.stop_client(vim.lsp.get_active_clients())
vim.wait(10000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
vim.cmd("qall!")
"""


def test_neovim_shows_the_diagnostic(tmp_path):
    if shutil.which("nvim") is None:
        pytest.fail("nvim is missing: apt-get install -y neovim (.ci/run installs it)")
    src = tmp_path / "n.coc"
    src.write_text("int g(void) {\n  yield 1;\n}\n")
    config = tmp_path / "init.lua"
    config.write_text(NVIM_CONFIG)
    out = tmp_path / "diagnostics.json"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    lua = (f"lua _G.arg_lsp = {json.dumps(str(LSP))}; _G.arg_file = {json.dumps(str(src))}; "
           f"_G.arg_out = {json.dumps(str(out))}")
    res = subprocess.run(["nvim", "--headless", "--clean", "-n", "-i", "NONE", "--cmd", lua,
                          "-u", str(config)], capture_output=True, text=True, env=env,
                         timeout=ANSWER_TIMEOUT, stdin=subprocess.DEVNULL)
    assert out.exists(), f"nvim wrote nothing: {res.returncode}\n{res.stdout}\n{res.stderr}"
    got = json.loads(out.read_text())
    assert got["ok"], got
    [d] = got["diagnostics"]
    assert (d["lnum"], d["col"], d["end_col"]) == (1, 2, 7)  # 0-based, as vim.diagnostic says
    assert d["message"] == "'yield' outside a coroutine" and d["source"] == "coroc"


# }==================================================================
