"""--html in a real browser: Debian's chromium, headless, opens the page from
file:// and is driven as a person would use it (tests/browser.py, over the
DevTools protocol), where test_html.py reads the page's text.

What a person would see, checked from where the browser laid things out and
what colour it painted them, not from the page's text:
  * three columns side by side, each of a real size, inside the window;
  * pointing at a .coc line paints its lines in both columns of C, and only
    those (the lines the page maps to it, which the #line directives of the
    plain outputs confirm); moving to another line moves the highlight;
    pointing at a line of C paints its .coc line and its family (the reverse);
    a click keeps a family lit and scrolls both columns of C to it;
  * the page asks the network for nothing (chromium's net log, with a proxy
    that refuses everything); a screenshot stays in the test's directory;
  * with scripts off, the three columns are still laid out, pointing lights
    nothing, and a line's link still takes one to its .coc line, lit by CSS;
  * the check is no formality: a page whose map is gone (the C lines' data-l
    removed) or whose script is broken fails it; and a browser that stops
    answering fails a test instead of hanging it.
"""
import os
import re
import shutil
import signal

import pytest

from browser import Browser, page_requests
from conftest import COROC, SOURCE_DIR, run
from test_html import Page, compiler_lines, make_page, source_line

EXAMPLE = "generator.coc"
COLUMNS = ("coc", "sl", "sf")


@pytest.fixture(scope="module")
def page(tmp_path_factory, coroc):
    """generator.coc's page; for each .coc line, the lines it maps to it
    (its family), each checked against the #line directives of the plain
    output of its backend."""
    tmp = tmp_path_factory.mktemp("page")
    shutil.copy(SOURCE_DIR / "examples" / EXAMPLE, tmp / EXAMPLE)
    text = make_page(tmp, EXAMPLE)
    parsed = Page(text)
    families = {}
    for col in COLUMNS:
        for line in parsed.columns[col]:
            if line["coc"] is not None:
                families.setdefault(line["coc"], set()).add(line["id"])
    for col, backend in (("sl", "stackless"), ("sf", "stackful")):
        res = run([COROC, f"--backend={backend}", EXAMPLE], cwd=tmp)
        assert res.returncode == 0, res.stderr
        counted = compiler_lines(res.stdout, EXAMPLE)
        for line, number in zip(parsed.columns[col], counted):
            assert line["coc"] in (None, number), (col, line)
    source = (tmp / EXAMPLE).read_text()
    return {"path": tmp / "page.html", "text": text, "parsed": parsed,
            "families": families, "source": source}


# {==== what the browser shows

def columns(b):
    """Where the three columns are: {id: (left, top, right, bottom)}."""
    return {c: tuple(b.js(f"(r => [r.left, r.top, r.right, r.bottom])"
                          f"(document.getElementById('{c}').getBoundingClientRect())"))
            for c in COLUMNS}


def check_three_columns(b):
    """Side by side, left to right, on one row, each of a real size, in the
    window, with their lines laid out inside them."""
    cols = columns(b)
    width = b.js("window.innerWidth")
    (l0, t0, r0, b0), (l1, t1, r1, b1), (l2, t2, r2, b2) = (cols[c] for c in COLUMNS)
    assert 0 <= l0 < r0 <= l1 < r1 <= l2 < r2 <= width, cols
    assert t0 == t1 == t2 and min(b0 - t0, b1 - t1, b2 - t2) > 200, cols
    assert min(r0 - l0, r1 - l1, r2 - l2) > width / 4, cols
    for c in COLUMNS:
        first = b.js(f"(r => [r.left, r.top, r.right, r.bottom])(document.querySelector("
                     f"'#{c} .l').getBoundingClientRect())")
        left, top, right, bottom = cols[c]
        assert left <= first[0] and top < first[1] < first[3] < bottom, (c, first, cols[c])


def painted(b):
    """The ids of the lines of the three columns that have a background: the
    lines a person sees lit."""
    return set(b.js("""[...document.querySelectorAll('.col .l')]
        .filter(l => getComputedStyle(l).backgroundColor !== 'rgba(0, 0, 0, 0)')
        .map(l => l.id)"""))


def point_at_line(b, line_id):
    """Move the mouse onto a line's text."""
    b.point_at(*b.in_view(f"#{line_id}", dx=120))


def first_of(family, col):
    return min((i for i in family if i.startswith(col)), key=lambda i: int(i[len(col):]))


def shown(b, col, line_id):
    """Whether a line is inside the visible part of its column."""
    return b.js(f"""(() => {{
        const r = document.getElementById('{line_id}').getBoundingClientRect(),
              p = document.querySelector('#{col} pre').getBoundingClientRect();
        return p.top <= r.top && r.bottom <= p.bottom; }})()""")


def check_highlight(b, page, line_id, coc):
    """Pointing at line_id paints the family of .coc line coc, in all three
    columns, and nothing else."""
    point_at_line(b, line_id)
    family = page["families"][coc]
    assert {i for i in family if i.startswith("sl")} and {i for i in family if i.startswith("sf")}
    assert painted(b) == family, (line_id, coc)

# }====


def c_line(page, col, coc, pattern):
    """The id of the line of column col in coc's family whose text matches pattern."""
    (found,) = [l["id"] for l in page["parsed"].columns[col]
                if l["coc"] == coc and re.search(pattern, l["text"])]
    return found


def test_a_person_sees_the_page(page, tmp_path):
    y = source_line(page["source"], r"^\s+yield a;")
    nxt = source_line(page["source"], r"^\s+int next = a \+ b;")
    with Browser(tmp_path) as b:
        b.open(page["path"].as_uri())
        check_three_columns(b)
        assert painted(b) == set()
        check_highlight(b, page, f"L{y}", y)
        b.screenshot(tmp_path / "html-page.png")
        check_highlight(b, page, f"L{nxt}", nxt)       # the highlight follows the pointer
        check_highlight(b, page, c_line(page, "sf", y, r"CORO_STACKFUL_YIELD\("), y)
        check_highlight(b, page, c_line(page, "sl", nxt, r"next = a \+ b"), nxt)
        # a click keeps the family lit, and scrolls the columns of C to it
        b.open(page["path"].as_uri())
        firsts = {col: first_of(page["families"][y], col) for col in ("sl", "sf")}
        assert not shown(b, "sl", firsts["sl"])   # else the scroll would prove nothing
        b.click(*b.in_view(f"#L{y}", dx=120))
        point_at_line(b, f"L{nxt}")
        assert painted(b) == page["families"][y]
        assert all(shown(b, col, first) for col, first in firsts.items()), firsts
    png = (tmp_path / "html-page.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000
    assert page_requests(tmp_path / "net.json") == []
    print(f"screenshot: {tmp_path / 'html-page.png'}")


def test_without_scripts(page, tmp_path):
    """Scripts off: the columns are there, pointing lights nothing (the script
    is really off), and a line of C's link takes one to its .coc line, lit
    by CSS."""
    y = source_line(page["source"], r"^\s+yield a;")
    with Browser(tmp_path) as b:
        b.tab("Emulation.setScriptExecutionDisabled", value=True)
        b.open(page["path"].as_uri())
        check_three_columns(b)
        point_at_line(b, f"L{y}")
        assert painted(b) == set()
        link = c_line(page, "sl", y, "CORO_YIELD")
        b.click(*b.in_view(f"#{link} a.g"))
        assert b.js("location.hash") == f"#L{y}"
        assert painted(b) == {f"L{y}"}
    assert page_requests(tmp_path / "net.json") == []


FAULTS = {
    # the C lines' map to their .coc line gone: the script has nothing to light
    "map removed": lambda text: re.sub(r'(<span class="l[^"]*" id="s[lf]\d+") data-l="\d+"',
                                       r"\1", text),
    # the script lights the line pointed at, not its family
    "script broken": lambda text: text.replace("lit = k ? by[k] || [] : [];",
                                               "lit = k ? by[k].slice(0, 1) : [];"),
}


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_highlight_is_seen(page, tmp_path, fault):
    """The highlight check is no formality: with its map or its script
    broken, the same page fails it. (And an image from elsewhere planted in
    it shows in the net log: that check is none either.)"""
    broken = FAULTS[fault](page["text"])
    assert broken != page["text"]
    broken = broken.replace("<h1>", '<img src="http://example.invalid/x.png"><h1>', 1)
    path = tmp_path / "broken.html"
    path.write_text(broken)
    y = source_line(page["source"], r"^\s+yield a;")
    with Browser(tmp_path) as b:
        b.open(path.as_uri())
        check_three_columns(b)
        with pytest.raises(AssertionError):
            check_highlight(b, page, f"L{y}", y)
        assert painted(b) and painted(b) < page["families"][y]
    assert [r["url"] for r in page_requests(tmp_path / "net.json")] == \
        ["http://example.invalid/x.png"]


def test_a_stuck_browser_fails_the_test(tmp_path):
    """A browser that stops answering (here, stopped by a signal) fails the
    test at the driver's deadline, and is stopped by its pid."""
    b = Browser(tmp_path, timeout=2)
    try:
        os.kill(b.proc.pid, signal.SIGSTOP)
        with pytest.raises(AssertionError, match="chromium said nothing for 2 s"):
            b.js("1 + 1")
    finally:
        b.close()
    assert b.proc.returncode == -signal.SIGKILL
