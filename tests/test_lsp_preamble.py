"""coroc-lsp's preamble (transformer/lsp/preamble.c): at a change after a
document's last #include, the preprocessor reads only the text after it,
with the macros the headers left, and the headers' output is kept. What
the server then says must be what coroc says of the whole text, run on its
own: for every example and a sample of the cases and tasks, after edits in
a body (a line added, which moves every later line and __LINE__; a name
broken, an error; the fix) and an edit of an #include line, the server's
diagnostic is coroc's first error (line and message), and, when there is
none, coroc/generatedC of each backend is byte for byte what `coroc` prints
for the edited text at the same path.

Which way each change went is read from the server's own log
(COROC_LSP_TIMING): the test fails if a change in a body of a file with
headers was not served from the preamble, so that it cannot pass by never
using it.
"""
import json
import os
import pathlib
import re
import subprocess

import pytest

from conftest import COROC, SOURCE_DIR, TESTS_DIR, case_args
from test_lsp import Server, uri_of

INPUTS = sorted(SOURCE_DIR.glob("examples/*.coc")) + sorted(TESTS_DIR.glob("cases/*.coc"))[::6] \
    + sorted(TESTS_DIR.glob("tasks/*.coc"))[::8]
TIMING = re.compile(r"coroc-lsp: timing: (\S+) version (\d+): coroc [0-9.]+ ms, "
                    r"preprocessor on (.*)$")


def options(src):
    return ["-I", str(TESTS_DIR), "-I", str(src.parent), *case_args(src)]


def coroc_says(path, backend, args):
    """`coroc` on the file: (its C, None) or (None, (line, message))."""
    r = subprocess.run([COROC, f"--backend={backend}", *args, str(path)], capture_output=True,
                       text=True, timeout=120)
    if r.returncode == 0:
        return r.stdout, None
    m = re.search(r"^(.*?):(\d+):\d+: (?:error|internal error): (.*)$", r.stderr, re.M)
    assert m, r.stderr
    return None, (int(m[2]) if m[1] == str(path) else 1, m[3])


def body_line(text):
    """A line inside the last function body (after every directive): the
    line after the last `{` at the end of a line, before the last `}`."""
    lines = text.splitlines()
    last_directive = max((i for i, l in enumerate(lines) if l.lstrip().startswith("#")),
                         default=-1)
    opens = [i for i, l in enumerate(lines) if l.rstrip().endswith("{") and i > last_directive]
    return opens[-1] + 1 if opens else None


def edits(text):
    """(name, whole new text, in a body?) for each step."""
    lines = text.splitlines(keepends=True)
    at = body_line(text)
    out = []
    if at is not None:
        added = lines[:at] + ["  /* a line added */\n"] + lines[at:]
        out.append(("line added", "".join(added), True))
        broken = added[:at + 1] + ["  int x = undeclared_name_;\n"] + added[at + 1:]
        out.append(("name broken", "".join(broken), True))
        out.append(("fixed", "".join(added), True))
    inc = next((i for i, l in enumerate(lines) if l.startswith("#include")), None)
    if inc is not None:
        out.append(("include touched", "".join(lines[:inc] + [lines[inc].rstrip("\n") + " \n"]
                                               + lines[inc + 1:]), False))
    return out


def uses_preamble(text):
    """Can the preamble stand for this text (preamble.c's own list)?"""
    return "coroutine" in text and "#include" in text and not re.search(
        r"^\s*#\s*(line\b|\d)", text, re.M) and "__COUNTER__" not in text


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("preamble")
    entries = [{"directory": str(root), "arguments": ["cc", *options(p), "-c", p.name],
                "file": str(root / p.name)} for p in INPUTS]
    (root / "compile_commands.json").write_text(json.dumps(entries))
    return root


@pytest.mark.parametrize("src", INPUTS, ids=[p.relative_to(SOURCE_DIR).as_posix() for p in INPUTS])
def test_the_server_says_what_coroc_says(workspace, src):
    path = workspace / src.name
    text = src.read_text()
    s = Server(args=["--no-clangd"], env=dict(os.environ, COROC_LSP_TIMING="1"))
    try:
        s.initialize(root=workspace)
        uri = uri_of(path)
        s.open(uri, text)
        for version, (name, new, in_body) in enumerate(edits(text), start=2):
            path.write_text(new)  # (what `coroc` reads; the server has the text itself)
            # coroc's errors and warnings (the heap notes, Information, are
            # test_lsp_coroc.py's: what --stats says, not what coroc refuses)
            diags = [d for d in s.change(uri, version, [{"text": new}]) if d.get("severity", 1) <= 2]
            way = [m for n in s.notes if n.get("method") == "window/logMessage"
                   for m in [TIMING.search(n["params"]["message"])]
                   if m and m[1] == uri and int(m[2]) == version]
            assert len(way) == 1, s.notes
            if in_body and uses_preamble(text):  # (expanded by the server, or by cc)
                assert way[0][3] in ("the body", "the body, by the preprocessor"), \
                    (name, way[0][3])
            for backend in ("stackless", "stackful"):
                c, error = coroc_says(path, backend, options(src))
                if error:
                    assert diags, (name, backend, error)
                    assert diags[0]["range"]["start"]["line"] == error[0] - 1, (name, diags, error)
                    assert diags[0]["message"].split(" (with the")[0].endswith(error[1]), \
                        (name, diags, error)
                else:
                    assert diags == [], (name, diags)
                    got = s.request("coroc/generatedC", {"textDocument": {"uri": uri},
                                                         "backend": backend})["result"]
                    assert got["version"] == version, (name, backend)
                    assert got["text"] == c, f"{name}, {backend}: the server's C differs"
        assert s.stop() == 0
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def test_a_header_changed_on_disk_is_read_again(tmp_path):
    """The preamble keeps the headers' output; when a header it came from
    changes on disk (and the document's prefix does not), the next change
    preprocesses the whole text again, and the one after it is served from
    the new preamble. Here the header decides the parse: `T *x = 0;` is a
    declaration while T is a typedef, and a syntax error once T is a
    variable. Without the check, the server would go on with the old
    header until an edit above the last #include."""
    header = tmp_path / "defs.h"
    header.write_text("typedef int T;\n")
    (tmp_path / "compile_commands.json").write_text(json.dumps([{
        "directory": str(tmp_path), "arguments": ["cc", f"-I{tmp_path}", "-c", "gen.coc"],
        "file": str(tmp_path / "gen.coc")}]))
    text = '#include "defs.h"\n\ncoroutine int gen(void) {\n  T *x = 0;\n  yield 1;\n  yield x != 0;\n}\n'
    s = Server(args=["--no-clangd"], env=dict(os.environ, COROC_LSP_TIMING="1"))
    try:
        s.initialize(root=tmp_path)
        uri = uri_of(tmp_path / "gen.coc")

        def step(version, new, way, error):
            diags = s.open(uri, new) if version == 1 else s.change(uri, version, [{"text": new}])
            ways = [m[3] for n in s.notes if n.get("method") == "window/logMessage"
                    for m in [TIMING.search(n["params"]["message"])] if m and int(m[2]) == version]
            assert ways == [way], (version, ways)
            errors = [d for d in diags if d.get("severity", 1) == 1]
            if error:
                assert errors and errors[0]["range"]["start"]["line"] == 3, (version, diags)
                assert "syntax error" in errors[0]["message"], (version, diags)
            else:
                assert errors == [], (version, diags)

        def touch_header(content):
            before = header.stat().st_mtime_ns
            header.write_text(content)
            os.utime(header, ns=(before + 10**9, before + 10**9))  # (a coarse clock may not move)

        step(1, text, "the whole text", False)
        text = text.replace("  yield 1;", "  /* one */\n  yield 1;")
        step(2, text, "the body", False)
        touch_header("extern int T;\n")
        step(3, text.replace("one", "two"), "the whole text", True)
        step(4, text.replace("one", "three"), "the body", True)
        touch_header("typedef int T;\n")
        step(5, text.replace("one", "four"), "the whole text", False)
        header.unlink()  # a header gone: the whole text again, and the preprocessor's error
        step_diags = s.change(uri, 6, [{"text": text.replace("one", "five")}])
        assert step_diags and "defs.h" in step_diags[0]["message"], step_diags
        assert s.stop() == 0
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
