"""What only coroc knows, in the editor (transformer/lsp/insight.c, docs/editors.md,
"What it does"): hover on yield and await, the code lenses on each coroutine, the
command that shows one coroutine's C, the diagnostic on an await whose child stays on
the heap.

The server reads them off coroc's passes (output/facts.c), in-process; `coroc --stats`
prints the same facts. Every test here takes `coroc --stats` on the same file as the
second source and checks that the two agree: the resume point's line, the locals kept
across it with their reasons, the frame sizes, where each child lives. The C of one
coroutine is checked against `coroc --backend=X` on the same file (a part of it, and a
part that holds the coroutine's functions), and that C compiles.
"""
import os
import re
import subprocess

import pytest

from conftest import COROC, SOURCE_DIR
from test_lsp import Server, uri_of

GENERATOR = SOURCE_DIR / "examples" / "generator.coc"
LATER = SOURCE_DIR / "tutorial" / "07-scheduler" / "later.coc"
SHOP = SOURCE_DIR / "tutorial" / "07-scheduler" / "shop.coc"
INCLUDE = os.environ.get("COROC_INCLUDE", str(SOURCE_DIR / "runtime" / "include"))


@pytest.fixture
def server():
    s = Server(args=["--no-clangd"])
    s.initialize()
    yield s
    if s.proc.poll() is None:
        s.proc.kill()  # (by its own Popen handle: only the process this test started)
        s.proc.wait()


# {==================================================================
# coroc --stats, parsed: the second source
# ==================================================================

HEAD = re.compile(r"^coroutine (\w+) \((.*):(\d+)\), (stackless|stackful): "
                  r"(?:(?:frame|arguments) (\d+) bytes|no arguments)")
FIELD = re.compile(r"^ +(\d+) +(\d+)  (\w+)  \((.*)\)$")
CHILD = re.compile(r"^  await (\w+) at (.*):(\d+): (.*)$")


def stats(path, backend="stackless"):
    """{coroutine: {line, size, fields: {name: (decl line, reason)}, children: [...]}}"""
    out = subprocess.run([COROC, "--stats", f"--backend={backend}", "-I", INCLUDE, str(path)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    cos, co = {}, None
    for line in out.splitlines():
        if m := HEAD.match(line):
            co = cos[m[1]] = {"line": int(m[3]), "size": int(m[5]) if m[5] else None,
                              "fields": {}, "children": []}
        elif m := FIELD.match(line):
            where = re.match(r"^.*:(\d+): (.*)$", m[4])
            co["fields"][m[3]] = (int(where[1]), where[2]) if where else (0, m[4])
        elif m := CHILD.match(line):
            co["children"].append({"callee": m[1], "line": int(m[3]), "says": m[4]})
    assert cos, out
    return cos


def in_editor(reason, path):
    """--stats' reason as the editor shows it: the file it names is the one open."""
    return reason.replace(f"{path}:", "line ")


def words(text, word):
    """(line, column) of each `word` standing as a word (0-based; ASCII text)."""
    for i, line in enumerate(text.split("\n")):
        for m in re.finditer(rf"\b{word}\b", line):
            if not line.lstrip().startswith(("/*", "*", "//")):
                yield i, m.start()


def hover(s, uri, line, ch):
    return s.request("textDocument/hover",
                     {"textDocument": {"uri": uri}, "position": {"line": line, "character": ch}})


# }==================================================================

# {==================================================================
# Hover
# ==================================================================

KEPT = re.compile(r"^- `(\w+)` \(line (\d+)\): (.*)$")


def kept_lists(value):
    """The hover's two lists: kept across it, and in the frame anyway."""
    live, anyway, into = {}, {}, None
    for line in value.splitlines():
        if line.startswith("The frame keeps across it"):
            into = live
        elif line.startswith("In the frame for the instance's whole life"):
            into = anyway
        elif (m := KEPT.match(line)) and into is not None:
            into[m[1]] = (int(m[2]), m[3])
    return live, anyway


@pytest.mark.parametrize("path", [GENERATOR, LATER, SHOP], ids=lambda p: p.name)
def test_hover_on_each_resume_point_agrees_with_stats(server, path):
    text = path.read_text()
    uri = uri_of(path)
    server.open(uri, text)
    facts = stats(path.resolve())
    points = sorted([*words(text, "yield"), *words(text, "await")])
    assert points
    seen = set()
    for line, col in points:
        res = hover(server, uri, line, col + 2)["result"]  # (inside the word)
        value = res["contents"]["value"]
        m = re.match(r"^\*\*(yield|await)\*\*: resume point (\d+) of [a-z ]+ `(\w+)` "
                     r"\(line (\d+)\)", value)
        assert m and int(m[4]) == line + 1, value
        assert res["range"]["start"] == {"line": line, "character": col}
        co = facts[m[3]]
        seen.add((m[3], int(m[2])))
        live, anyway = kept_lists(value)
        named_here = {f for f, (_, why) in co["fields"].items()
                      if why.endswith(f"across the {m[1]} at {path.resolve()}:{line + 1}")}
        assert named_here <= set(live), value  # what --stats says this point keeps, it shows
        for name, (decl, why) in {**live, **anyway}.items():  # with --stats' own reasons
            assert (decl, why) == (co["fields"][name][0],
                                   in_editor(co["fields"][name][1], path.resolve())), value
        for name, (_, why) in co["fields"].items():  # a parameter is in the frame throughout
            if why.startswith("a parameter"):
                assert name in live or name in anyway, value
        if m[1] == "await":
            child = [c for c in co["children"] if c["line"] == line + 1]
            if child:  # an await of a task: where its frame lives, as --stats says
                says = child[0]["says"]
                if says.startswith("its frame is on the heap: "):
                    assert "frame is on the heap: " + says.split(": ", 1)[1] in value
                else:
                    assert "frame is inside" in value and "coro_children" in says
    assert len(seen) == len(points)  # each a resume point of its own


def test_hover_elsewhere_is_not_coroc_s(server):
    text = GENERATOR.read_text()
    uri = uri_of(GENERATOR)
    server.open(uri, text)
    line, col = next(words(text, "yield"))
    # (no clangd here: its error, or null)
    assert hover(server, uri, line, col + 6).get("result") is None  # past the word
    assert hover(server, uri, line - 1, 0).get("result") is None


def test_hover_columns_in_utf16(server, tmp_path):
    path = tmp_path / "wide.coc"
    text = ("coroutine int gen(int n) {\n"
            "  for (int i = 0; i < n; i++) { /* \U0001F600\u00e9 */ yield i; }\n"
            "}\n")
    path.write_text(text)
    uri = uri_of(path)
    assert server.open(uri, text) == []
    row = text.split("\n")[1]
    col = len(row[:row.index("yield")].encode("utf-16-le")) // 2
    res = hover(server, uri, 1, col)["result"]
    assert res["range"]["start"] == {"line": 1, "character": col}
    assert "`i` (line 2): live across the yield at line 2" in res["contents"]["value"]
    assert hover(server, uri, 1, col - 2).get("result") is None  # (in the comment)


# }==================================================================

# {==================================================================
# Code lenses
# ==================================================================


def test_initialize_advertises_them():
    s = Server(args=["--no-clangd"])
    caps = s.initialize()["result"]["capabilities"]
    assert caps["hoverProvider"] is True
    assert caps["codeLensProvider"] == {"resolveProvider": False}
    assert caps["executeCommandProvider"]["commands"] == ["coroc.showGeneratedC"]
    assert s.stop() == 0


@pytest.mark.parametrize("path", [GENERATOR, LATER], ids=lambda p: p.name)
def test_code_lens_sizes_are_stats_sizes(server, path):
    uri = uri_of(path)
    server.open(uri, path.read_text())
    lenses = server.request("textDocument/codeLens", {"textDocument": {"uri": uri}})["result"]
    for backend in ("stackless", "stackful"):
        facts = stats(path.resolve(), backend)
        mine = {l["command"]["arguments"][0]["coroutine"]: l for l in lenses
                if l["command"]["arguments"][0]["backend"] == backend}
        assert set(mine) == set(facts)
        for name, co in facts.items():
            lens = mine[name]
            assert lens["range"]["start"]["line"] == co["line"] - 1
            assert lens["command"]["command"] == "coroc.showGeneratedC"
            title = lens["command"]["title"]
            if backend == "stackless":
                m = re.search(r"stackless: frame (\d+) bytes; each instance: (.*)$", title)
                assert m and int(m[1]) == co["size"], title
                assert re.match(r"^(task|generator|async generator) of \w", title), title
            else:
                m = re.search(r"stackful: arguments (\d+) bytes", title)
                assert (int(m[1]) if m else None) == co["size"], title
                assert "a stack of its own" in title


# }==================================================================

# {==================================================================
# The C of one coroutine
# ==================================================================


@pytest.mark.parametrize("backend", ["stackless", "stackful"])
def test_show_generated_c_is_that_coroutine_s_part_of_coroc_s_output(server, backend, tmp_path):
    path = GENERATOR.resolve()
    uri = uri_of(path)
    server.open(uri, path.read_text())
    out = tmp_path / "whole.c"
    subprocess.run([COROC, f"--backend={backend}", str(path), "-o", str(out)], check=True,
                   timeout=120)
    whole = out.read_text()
    mine = server.request("coroc/generatedC", {"textDocument": {"uri": uri},
                                               "backend": backend})["result"]["text"]
    assert mine == whole  # (the whole file, as before)
    c = tmp_path / "gen.c"
    c.write_text(mine)
    subprocess.run(["cc", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I", INCLUDE,
                    str(c)], check=True, timeout=120)
    parts = []
    for name in stats(path, backend):
        res = server.request("workspace/executeCommand", {
            "command": "coroc.showGeneratedC",
            "arguments": [{"uri": uri, "coroutine": name, "backend": backend}]})["result"]
        same = server.request("coroc/generatedC", {"textDocument": {"uri": uri},
                                                   "backend": backend, "coroutine": name})
        assert same["result"] == res
        part = res["text"]
        assert part in whole and part.startswith(f"/* coroutine {name} ("), part[:200]
        assert re.search(rf"\bcoro_t \*{name}\(", part)  # its creation function
        if backend == "stackless":
            assert f"static bool coro_resume_{name}(" in part
            assert f"struct coro_frame_{name} {{" in part
        for other in stats(path, backend):  # its own, no other's
            if other != name:
                assert f"coro_t *{other}(" not in part
        parts.append(part)
    assert len(set(parts)) == len(parts)
    bad = server.request("coroc/generatedC", {"textDocument": {"uri": uri},
                                              "backend": backend, "coroutine": "nosuch"})
    assert bad["error"]["code"] == -32602


# }==================================================================

# {==================================================================
# An await whose child stays on the heap
# ==================================================================


def heap_notes(diags):
    return [d for d in diags if d["severity"] == 3 and d["source"] == "coroc"]


def test_heap_child_is_noted_on_later_not_on_shop(server):
    later = heap_notes(server.open(uri_of(LATER), LATER.read_text()))
    children = stats(LATER.resolve())["shopper"]["children"]
    on_heap = [c for c in children if c["says"].startswith("its frame is on the heap")]
    assert len(later) == len(on_heap) == 1
    reason = on_heap[0]["says"].split(": ", 1)[1]
    assert later[0]["message"].endswith(reason), later
    text = LATER.read_text()
    line, col = next(words(text, "await"))
    assert line + 1 == on_heap[0]["line"]
    end = text.split("\n")[line].index(";")
    assert later[0]["range"] == {"start": {"line": line, "character": col},
                                 "end": {"line": line, "character": end}}
    shop = server.open(uri_of(SHOP), SHOP.read_text())
    assert all(c["says"].startswith("its frame is inside") for c in
               stats(SHOP.resolve())["shopper"]["children"])
    assert heap_notes(shop) == []


def test_heap_note_follows_the_text(server, tmp_path):
    """Moving the child above its parent puts its frame inside: the note goes."""
    path = tmp_path / "later.coc"
    text = LATER.read_text()
    path.write_text(text)
    uri = uri_of(path)
    assert len(heap_notes(server.open(uri, text))) == 1
    price = text[text.index("/* The price of an item."):text.index("int main")]
    moved = text.replace(price, "").replace("coroutine int price(int item);\n", price)
    assert moved != text
    path.write_text(moved)
    assert heap_notes(server.change(uri, 2, [{"text": moved}])) == []
    assert stats(path)["shopper"]["children"][0]["says"].startswith("its frame is inside")
    broken = moved + "\ncoroutine int x(void) { yield }\n"  # an error: no note from an old text
    diags = server.change(uri, 3, [{"text": broken}])
    assert [d["severity"] for d in diags] == [1]


# }==================================================================
