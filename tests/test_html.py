"""--html: one page with the .coc and the C of both backends side by side
(docs/cli.md, "--html"; transformer/output/html.c).

What is checked, each expectation from a second source:
  * the three columns hold the .coc and, line for line, exactly what
    `coroc --backend=stackless` and `--backend=stackful` print for it;
  * every line of C that links to a .coc line links to the line the
    compiler counts for it from the #line directives (read here from the
    plain output), every line after a #line directive is linked, and the
    lines left unlinked are directives or lines of coroc's own; the yield of
    generator.coc and the awaits of fizzbuzz.coc link to their macros;
    each .coc line links to the first line of each column made from it;
  * each coroutine's frame tables list the fields `coroc --stats` lists,
    for each backend, in its order;
  * the state machines are inline <svg> with Graphviz, a note without it;
  * the page is well-formed (every element closed in order; and, when
    html5lib is installed, parsed as HTML5 without a single parse error),
    asks for nothing outside itself, and escapes what it shows;
  * where the page goes (IN's name in the current directory, or
    --html=PATH, spaces and all), what --html cannot go with, and that a bad
    input writes no page and reports the error with its caret.
"""
import html
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from conftest import COROC, SOURCE_DIR, TESTS_DIR, run

EXAMPLES = SOURCE_DIR / "examples"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Page(HTMLParser):
    """The page's columns and their lines, and its tags, read with a plain parser
    that also checks that every element is closed, in order."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.text = text
        self.stack = []            # open elements: (tag, attrs)
        self.errors = []           # elements closed out of order
        self.tags = []             # every (tag, attrs), for what the page asks for
        self.columns = {}          # column id -> [{id, coc, cls, text, links}]
        self.svgs = 0
        self._line = None
        self.feed(text)
        self.close()
        if self.stack:
            self.errors.append(f"never closed: {[t for t, _ in self.stack]}")

    def _inside(self, tag, cls=None, attr=None):
        for t, a in reversed(self.stack):
            if t == tag and (cls is None or cls in a.get("class", "").split()):
                return a if attr is None else a.get(attr)
        return None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "svg":
            self.svgs += 1
        if tag == "span" and "l" in a.get("class", "").split():
            col = self._inside("section", "col", "id")
            self._line = {"id": a.get("id"), "coc": int(a["data-l"]) if "data-l" in a else None,
                          "cls": a["class"].split(), "text": "", "links": []}
            self.columns.setdefault(col, []).append(self._line)
        if tag == "a" and self._line is not None:
            self._line["links"].append((a.get("class"), a.get("href")))
        if tag not in VOID:
            self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1][0] if self.stack else 'nothing'}")
            return
        t, a = self.stack.pop()
        if tag == "span" and "l" in a.get("class", "").split():
            self._line = None

    def handle_data(self, data):
        if self._line is not None:
            self._line["text"] += data


def frame_fields(page):
    """{coroutine: [[fields of the stackless table], [fields of the stackful one]]}, read
    from the third cell of each row."""
    fields = {}
    for m in re.finditer(r'<section class="co" id="co-(\w+)">(.*?)</section>', page, re.S):
        tables = re.findall(r"<table>(.*?)</table>", m.group(2), re.S)
        fields[m.group(1)] = [re.findall(r"<tr><td>-?\d+</td><td>-?\d+</td><td><code>(.*?)</code>",
                                         t) for t in tables]
    return fields


def stats_fields(text):
    """{coroutine: [field, ...]} of `coroc --stats` (docs/cli.md, "--stats")."""
    fields, co = {}, None
    for line in text.splitlines():
        m = re.match(r"coroutine (\w+) ", line)
        if m:
            co = fields.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s+-?\d+\s+-?\d+  (\S+)  \(", line)
        if m:
            co.append(html.escape(m.group(1)))
    return fields


def lines_of(text):
    """The lines of a text, as the page's columns hold them (no line after a last newline)."""
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def column_text(page, col):
    return [l["text"][:-1] if l["text"].endswith("\n") else l["text"] for l in page.columns[col]]


def compiler_lines(c_text, name):
    """For each line of C, the .coc line the compiler counts for it (None: a
    #line directive, or another file), from the #line directives alone."""
    out, number, here = [], 1, True
    for line in lines_of(c_text):
        m = re.match(r'\s*#\s*(?:line\s+)?(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?', line)
        if m:
            number = int(m.group(1))
            if m.group(2) is not None:
                here = m.group(2) == name
            out.append(None)
            continue
        out.append(number if here else None)
        number += 1
    return out


def make_page(cwd, src, *extra, env=None, name="page.html"):
    """`coroc --html=NAME ... SRC` run in cwd: the page it wrote."""
    res = subprocess.run([str(c) for c in (COROC, f"--html={name}", *extra, src)],
                         capture_output=True, text=True, timeout=60, cwd=cwd, env=env)
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    return (cwd / name).read_text()


@pytest.fixture(scope="module", params=["generator.coc", "fizzbuzz.coc"])
def example(request, tmp_path_factory, coroc):
    """An example's page, its plain outputs and --stats, all made in one directory
    from the same relative path (so that every name in them is the same)."""
    tmp = tmp_path_factory.mktemp(request.param.replace(".", "_"))
    shutil.copy(EXAMPLES / request.param, tmp / request.param)
    page = make_page(tmp, request.param)
    outputs, stats = {}, {}
    for backend in ("stackless", "stackful"):
        res = run([COROC, f"--backend={backend}", request.param], cwd=tmp)
        assert res.returncode == 0, res.stderr
        outputs[backend] = res.stdout
        res = run([COROC, f"--backend={backend}", "--stats", request.param], cwd=tmp)
        assert res.returncode == 0, res.stderr
        stats[backend] = res.stdout
    return {"name": request.param, "dir": tmp, "page": page, "parsed": Page(page),
            "source": (tmp / request.param).read_text(), "c": outputs, "stats": stats}


def source_line(source, pattern):
    """The number of the one .coc line that matches pattern."""
    found = [i + 1 for i, line in enumerate(source.split("\n")) if re.search(pattern, line)]
    assert len(found) == 1, (pattern, found)
    return found[0]


def test_three_columns_hold_the_source_and_both_outputs(example):
    cols = example["parsed"].columns
    assert list(cols) == ["coc", "sl", "sf"]
    assert column_text(example["parsed"], "coc") == lines_of(example["source"])
    for col, backend in (("sl", "stackless"), ("sf", "stackful")):
        assert column_text(example["parsed"], col) == lines_of(example["c"][backend]), backend
        assert [l["id"] for l in cols[col]] == [f"{col}{i + 1}" for i in range(len(cols[col]))]


def test_links_follow_the_line_directives(example):
    cols = example["parsed"].columns
    for col, backend in (("sl", "stackless"), ("sf", "stackful")):
        counted = compiler_lines(example["c"][backend], example["name"])
        lines = cols[col]
        assert len(counted) == len(lines)
        for i, (line, number) in enumerate(zip(lines, counted)):
            if line["coc"] is not None:
                assert line["coc"] == number, (backend, i + 1, line["text"])
                assert ("g", f"#L{number}") in line["links"]
            elif line["text"].lstrip().startswith("#line"):
                assert "d" in line["cls"]
            else:
                assert "o" in line["cls"], (backend, i + 1, line["text"])  # coroc's own
            if i > 0 and "d" in lines[i - 1]["cls"] and "d" not in line["cls"]:
                assert line["coc"] is not None, (backend, i + 1, line["text"])


def test_each_source_line_links_to_its_first_c_lines(example):
    cols = example["parsed"].columns
    for line in cols["coc"]:
        n = int(line["id"][1:])
        targets = [href for cls, href in line["links"] if cls.split()[0] == "to"]
        for col in ("sl", "sf"):
            made = [l["id"] for l in cols[col] if l["coc"] == n]
            if made:
                assert f"#{made[0]}" in targets, (n, col)
            else:
                assert not any(t.startswith(f"#{col}") for t in targets), (n, col)


def family(example, col, line):
    return [l["text"] for l in example["parsed"].columns[col] if l["coc"] == line]


def test_known_lines(example):
    src = example["source"]
    if example["name"] == "generator.coc":
        y = source_line(src, r"^\s+yield a;")
        assert any("CORO_YIELD" in t and "STACKFUL" not in t for t in family(example, "sl", y))
        assert any("CORO_STACKFUL_YIELD(" in t for t in family(example, "sf", y))
        d = source_line(src, r"^coroutine int fib\(")
        assert any("struct coro_frame_fib *coro_f" in t for t in family(example, "sl", d))
        assert any("coro_stackful_new(coro_entry_fib" in t for t in family(example, "sf", d))
    else:
        w = source_line(src, r"await coro_write\(")
        assert any("CORO_AWAIT" in t for t in family(example, "sl", w))
        assert any("CORO_STACKFUL_AWAIT" in t for t in family(example, "sf", w))
        p = source_line(src, r"int flen = await packet\(")
        assert family(example, "sl", p) and family(example, "sf", p)


def test_frame_tables_list_what_stats_lists(example):
    fields = frame_fields(example["page"])
    sl, sf = stats_fields(example["stats"]["stackless"]), stats_fields(example["stats"]["stackful"])
    assert list(fields) == list(sl) == list(sf)
    for co, tables in fields.items():
        expected = [f for f in (sl[co], sf[co]) if f]  # a stackful coroutine without arguments has no table
        assert tables == expected, co
    # a reason names its line, linked
    assert re.search(r'<td><code>\w+</code></td><td><a href="#L\d+">line \d+</a>: ', example["page"])


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz is not installed")
def test_state_machines_inline_svg(example):
    assert example["parsed"].svgs == len(frame_fields(example["page"])) > 0
    assert "<?xml" not in example["page"] and "<!DOCTYPE svg" not in example["page"]


def test_without_dot_a_note(tmp_path, coroc):
    # a PATH with the compiler coroc runs (cc, for the preprocessor and --stats' sizes) and no dot
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(shutil.which("cc"), bin_dir / "cc")
    shutil.copy(EXAMPLES / "generator.coc", tmp_path)
    page = make_page(tmp_path, "generator.coc", env={**os.environ, "PATH": str(bin_dir)})
    assert "<svg" not in page
    assert page.count("there is no dot on PATH") == 3
    assert "fib_s0" not in page and '<pre>digraph &quot;fib&quot; {' in page
    assert not Page(page).errors


def test_well_formed_and_self_contained(example):
    p = example["parsed"]
    assert not p.errors, p.errors[:5]
    assert example["page"].startswith("<!DOCTYPE html>\n")
    for tag, attrs in p.tags:
        for attr in ("src", "href", "action", "data"):
            value = attrs.get(attr) or ""
            assert not re.match(r"\s*(https?:)?//", value), (tag, attrs)
        assert not (tag == "script" and "src" in attrs)
        assert tag not in ("link", "iframe", "img", "object", "embed"), (tag, attrs)
    assert not re.search(r"url\(|@import", example["page"])


def test_html5_parse_without_errors(example):
    html5lib = pytest.importorskip("html5lib")
    parser = html5lib.HTMLParser(strict=True)
    parser.parse(example["page"])  # raises at the first parse error


def test_escaped(tmp_path, coroc):
    src = tmp_path / "esc.coc"
    src.write_text('#include <stdio.h>\n/* <script>alert("x")</script> & \'q\' */\n'
                   "coroutine int g(int n) {\n  for (int i = 0; i < n && i >= 0; i++)\n"
                   "    yield i << 1;\n}\n")
    page = make_page(tmp_path, "esc.coc")
    assert "<script>alert" not in page and "&lt;script&gt;alert(&quot;x&quot;)" in page
    assert "i &lt; n &amp;&amp; i &gt;= 0" in page
    assert not Page(page).errors


def test_default_name_and_spaces(tmp_path, coroc):
    sub = tmp_path / "in dir"
    sub.mkdir()
    shutil.copy(EXAMPLES / "generator.coc", sub / "generator.coc")
    res = run([COROC, "--html", sub / "generator.coc"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generator.html", "in dir"]
    res = run([COROC, "--html=path with spaces.html", "in dir/generator.coc"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "path with spaces.html").read_text()
    assert Page(page).columns["sl"] and not Page(page).errors


def test_hoist_all_reaches_the_stackless_column(tmp_path, coroc):
    shutil.copy(EXAMPLES / "generator.coc", tmp_path)
    page = Page(make_page(tmp_path, "generator.coc", "--hoist-all"))
    plain = run([COROC, "--hoist-all", "generator.coc"], cwd=tmp_path).stdout
    assert column_text(page, "sl") == lines_of(plain)


@pytest.mark.parametrize("args", [["-o", "x.c"], ["--backend=stackful"], ["--no-line"],
                                  ["--dot"], ["--stats"], ["--header=x.h"], ["-MD", "-MF", "x.d"],
                                  ["--html=other.html"]])
def test_what_html_cannot_go_with(tmp_path, coroc, args):
    shutil.copy(EXAMPLES / "generator.coc", tmp_path)
    res = run([COROC, "--html=page.html", *args, "generator.coc"], cwd=tmp_path)
    assert res.returncode == 2 and res.stdout == ""
    assert "usage:" in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generator.coc"]


def test_standard_input_needs_a_name(tmp_path, coroc):
    gen = (EXAMPLES / "generator.coc").read_text()
    res = run([COROC, "--html", "-"], input=gen, cwd=tmp_path)
    assert res.returncode == 2 and "--html=OUT.html" in res.stderr
    res = run([COROC, "--html=std.html", "-"], input=gen, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert Page((tmp_path / "std.html").read_text()).columns["coc"]


def test_bad_input_writes_no_page(tmp_path, coroc):
    bad = tmp_path / "bad.coc"
    bad.write_text("int f(void) {\n  return 1;\n}\n\nint g(void) {\n  yield 2;\n}\n")
    old = tmp_path / "old.html"
    old.write_text("kept\n")
    for args in (["--html"], ["--html=old.html"]):
        res = run([COROC, *args, "bad.coc"], cwd=tmp_path)
        assert res.returncode == 1
        assert re.match(r"bad\.coc:6:3: error: ", res.stderr), res.stderr
        assert re.search(r"\|   yield 2;\n +\|   \^\n", res.stderr), res.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.coc", "old.html"]
        assert old.read_text() == "kept\n"


@pytest.mark.parametrize("case", sorted(p.name for p in (TESTS_DIR / "golden").glob("*.coc")))
def test_golden_inputs_both_columns_as_printed(tmp_path, coroc, case):
    # one parse, lowered for each backend in turn: each column is what a run of its own prints
    page = Page(make_page(TESTS_DIR / "golden", case, name=tmp_path / "page.html"))
    assert not page.errors
    for col, backend in (("sl", "stackless"), ("sf", "stackful")):
        plain = run([COROC, f"--backend={backend}", case], cwd=TESTS_DIR / "golden").stdout
        assert column_text(page, col) == lines_of(plain)
