"""coroc-trace (runtime/tools/coroc-trace): a trace drawn as a timeline.

The picture is read back and held against the trace it was drawn from (a
second source: the JSON that libcoro wrote, read as tests/test_trace.py reads
it), never against a picture kept from before:
  * one lane per instance track, under its thread, named as the track;
  * one arrow per wake-up flow, from the waker's lane to the woken's;
  * one run per run slice, one wait per wait slice (of its kind), every
    piece inside the run's span, in time and on the page;
  * a file that is not a trace gets `FILE: error: ...`, status 1, no output;
  * chromium, headless, opens the page from file://: the DOM has the lanes
    and the arrows, the page's script ran, and the page asks the network for
    nothing (chromium's own net log, with a proxy that refuses everything);
    a screenshot stays in the test's directory;
  * the tutorial's timelines (tutorial/NN/NAME-timeline.svg) tell the story
    a run of the chapter's program tells now: the same lanes, the same kinds
    of wake-ups and waits.
"""
import importlib.machinery
import json
import re
import subprocess
import sys
import types
import xml.etree.ElementTree as ET

import pytest

from browser import chromium, page_requests
from conftest import BACKENDS, SOURCE_DIR
from test_trace import FIZZBUZZ, Trace, build, record

TOOL = SOURCE_DIR / "runtime" / "tools" / "coroc-trace"
SVG = "{http://www.w3.org/2000/svg}"
TUTORIAL_TIMELINES = ["07-scheduler/turns", "08-fizzbuzz/fizzbuzz", "09-echo/echo"]


def coroc_trace(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True,
                          text=True, timeout=120)


def svg_of(text):
    """The <svg> element of a page or a bare SVG, parsed."""
    start, end = text.index("<svg"), text.rindex("</svg>") + len("</svg>")
    return ET.fromstring(text[start:end])


class Picture:
    """The lanes, pieces and arrows of a drawn timeline."""

    def __init__(self, text):
        self.root = svg_of(text)
        self.lanes = [g for g in self.root.iter(SVG + "g") if "lane" in g.get("class", "").split()]
        self.arrows = [p for p in self.root.iter(SVG + "path") if p.get("class") == "wake"]
        self.label_width = float(self.root.get("data-label-width"))
        self.width = float(self.root.get("width"))

    def instances(self):
        return [g for g in self.lanes if "instance" in g.get("class").split()]

    def pieces(self, lane, cls):
        return [r for r in lane.iter(SVG + "rect") if r.get("class") == cls]

    def story(self):
        """What a run does, without its times and addresses: the lanes in order,
        the wake-ups between them, the kinds of wait on each."""
        return {"lanes": [g.get("data-name") for g in self.lanes],
                "wakes": sorted({(a.get("data-from"), a.get("data-to")) for a in self.arrows}),
                "waits": {g.get("data-name"): sorted({r.get("data-kind") for r in
                                                      self.pieces(g, "wait")})
                          for g in self.lanes}}


def sort_index(t, track):
    (index,) = [e["args"]["sort_index"] for e in t.events if e["ph"] == "M"
                and e["name"] == "thread_sort_index" and (e["pid"], e["tid"]) == track]
    return (track[0], index)


def check_against(pic, t):
    """The picture pic shows what the trace t says."""
    tracks = list(t.instance_tracks.values())
    assert sorted(g.get("data-track") for g in pic.instances()) == sorted(tracks)
    assert len(pic.instances()) == len(t.instance_tracks)
    pairs = {e["id"] for e in t.of("s")} & {e["id"] for e in t.of("f")}
    assert len(pic.arrows) == len(pairs) > 0
    first = min(e["ts"] for e in t.events if "ts" in e)
    last = max(e["ts"] + e.get("dur", 0) for e in t.events if "ts" in e)
    # an address freed and made again is a track again: tracks are told
    # apart by their order, as the trace sorts them
    lanes = iter(pic.instances())
    for key, name in sorted(t.instance_tracks.items(), key=lambda kv: sort_index(t, kv[0])):
        lane = next(lanes)
        assert lane.get("data-track") == name
        runs = sorted(float(r.get("data-ts")) for r in pic.pieces(lane, "run"))
        assert runs == sorted(round(e["ts"], 3) for e in t.runs(key)), name
        kinds = sorted(r.get("data-kind") for r in pic.pieces(lane, "wait"))
        assert kinds == sorted(w["args"]["kind"] for w in t.waits(key)), name
    for lane in pic.lanes:
        for r in lane.iter(SVG + "rect"):
            t0, t1 = float(r.get("data-ts")), float(r.get("data-te"))
            assert first - 0.001 <= t0 <= t1 <= last + 0.001, (r.attrib, first, last)
            x, w = float(r.get("x")), float(r.get("width"))
            assert pic.label_width <= x and x + w <= pic.width, r.attrib
    # each arrow leaves the waker's lane and reaches the woken's
    flows = {e["id"]: e for e in t.of("s")}
    ends = {e["id"]: e for e in t.of("f")}
    drawn = sorted((a.get("data-ts"), a.get("data-te")) for a in pic.arrows)
    assert drawn == sorted((f"{flows[i]['ts']:.3f}", f"{ends[i]['ts']:.3f}") for i in pairs)


@pytest.fixture(scope="module")
def fizzbuzz_traces(tmp_path_factory):
    """The trace of examples/fizzbuzz.coc under each backend (a tick a millisecond)."""
    from conftest import Toolchain
    traces = {}
    for backend in BACKENDS:
        tmp = tmp_path_factory.mktemp(backend)
        exe = build(Toolchain(tmp), FIZZBUZZ, backend)
        path = tmp / "fizzbuzz.json"
        res = record(exe, path, ["1"])
        assert res.returncode == 0, res.stderr
        traces[backend] = path
    return traces


@pytest.mark.parametrize("by_order", [False, True], ids=["by-time", "by-order"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_fizzbuzz_timeline(coroc, fizzbuzz_traces, backend, by_order, tmp_path):
    trace = fizzbuzz_traces[backend]
    out = tmp_path / "timeline.html"
    res = coroc_trace(trace, "-o", out, *(["--by-order"] if by_order else []))
    assert res.returncode == 0 and res.stderr == "", res.stderr
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1
    t = Trace(trace)
    pic = Picture(page)
    check_against(pic, t)
    # fizzbuzz's three tasks and consume's packet children (a lane each,
    # numbered), the thread's own lane above them
    names = [g.get("data-name") for g in pic.instances()]
    assert {"fizz", "buzz", "consume"} <= set(names)
    packets = [n for n in names if n.startswith("packet")]
    assert packets == [f"packet {i}" for i in range(1, len(packets) + 1)]
    assert [g.get("data-name") for g in pic.lanes][0] == "scheduler and sources"


def test_bare_svg(coroc, fizzbuzz_traces, tmp_path):
    out = tmp_path / "timeline.svg"
    res = coroc_trace("--svg", fizzbuzz_traces["stackless"], "-o", out)
    assert res.returncode == 0, res.stderr
    text = out.read_text()
    assert text.startswith("<svg") and "<script" not in text and "<html" not in text
    check_against(Picture(text), Trace(fizzbuzz_traces["stackless"]))


def test_an_arrow_per_flow(coroc, fizzbuzz_traces, tmp_path):
    """A trace with one wake-up taken out draws one arrow fewer: the arrows
    come from the flows, not from the runs."""
    data = json.loads(fizzbuzz_traces["stackless"].read_text())
    first = next(e for e in data["traceEvents"] if e["ph"] == "s")
    data["traceEvents"] = [e for e in data["traceEvents"]
                           if not (e["ph"] in "sf" and e.get("id") == first["id"])]
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(data))
    whole = Picture(coroc_trace(fizzbuzz_traces["stackless"]).stdout)
    fewer = Picture(coroc_trace(cut).stdout)
    assert len(fewer.arrows) == len(whole.arrows) - 1
    check_against(fewer, Trace(cut))


# {==== what is not a trace

def broken_inputs(tmp_path, good):
    text = good.read_text()
    data = json.loads(text)
    next(e for e in data["traceEvents"] if "ts" in e)["ts"] = "soon"
    cases = {
        "not JSON": "this is not JSON\n",
        "cut short": text[: len(text) // 2],
        "empty": "",
        "not an object": "[1, 2, 3]\n",
        "no traceEvents": '{"displayTimeUnit": "ns"}\n',
        "a time that is text": json.dumps(data),
        "no coroutine": '{"traceEvents": [{"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 1, '
                        '"name": "a"}]}\n',
    }
    for name, body in cases.items():
        path = tmp_path / (name.replace(" ", "_") + ".json")
        path.write_text(body)
        yield name, path


MESSAGES = {"not JSON": "not JSON", "cut short": "cut short", "empty": "empty",
            "not an object": "event 0 is not an object", "no traceEvents": "traceEvents",
            "a time that is text": "'ts' is not a number", "no coroutine": "no coroutine"}


@pytest.mark.parametrize("svg", [False, True], ids=["page", "svg"])
def test_bad_input(coroc, fizzbuzz_traces, tmp_path, svg):
    inputs = tmp_path / "in"
    inputs.mkdir()
    outdir = tmp_path / "out"
    outdir.mkdir()
    for name, path in broken_inputs(inputs, fizzbuzz_traces["stackless"]):
        out = outdir / "timeline.html"
        res = coroc_trace(path, "-o", out, *(["--svg"] if svg else []))
        assert res.returncode == 1, (name, res.stdout, res.stderr)
        assert re.match(rf"{re.escape(str(path))}(:\d+:\d+)?: error: ", res.stderr), (name, res.stderr)
        assert MESSAGES[name] in res.stderr, (name, res.stderr)
        assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr, res.stderr
        assert list(outdir.iterdir()) == [], f"{name}: left {list(outdir.iterdir())}"
    missing = coroc_trace(tmp_path / "nothing.json", "-o", outdir / "t.html")
    assert missing.returncode == 1 and ": error: cannot read it" in missing.stderr
    assert list(outdir.iterdir()) == []


def test_cut_short_names_where(coroc, fizzbuzz_traces, tmp_path):
    text = fizzbuzz_traces["stackless"].read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[:1000])
    res = coroc_trace(cut)
    assert res.stdout == ""
    m = re.match(rf"{re.escape(str(cut))}:(\d+):(\d+): error: the JSON ends too early", res.stderr)
    assert m, res.stderr
    assert int(m.group(1)) == text[:1000].count("\n") + 1

def test_every_cut_is_cut_short(fizzbuzz_traces, tmp_path):
    """Wherever a trace is cut (a writer killed mid-file), the file is said to
    be cut short: inside a number ("12." once was "not JSON"), a word, a
    string, between two tokens. read_json in-process, at 400 places."""
    loader = importlib.machinery.SourceFileLoader("coroc_trace", str(SOURCE_DIR / "runtime" / "tools"
                                                                     / "coroc-trace"))
    tool = types.ModuleType(loader.name)
    loader.exec_module(tool)
    text = fizzbuzz_traces["stackless"].read_text()
    cut = tmp_path / "cut.json"
    for at in range(1, len(text) - 1, max(1, len(text) // 400)):
        cut.write_text(text[:at])
        with pytest.raises(tool.TraceError, match="cut short"):
            tool.read_json(cut)

# }====
# {==== in a browser

def test_in_a_browser(coroc, fizzbuzz_traces, tmp_path):
    page = tmp_path / "timeline.html"
    assert coroc_trace(fizzbuzz_traces["stackless"], "-o", page).returncode == 0
    text = page.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I), \
        "the page refers to something outside itself"
    assert "@import" not in text and "url(http" not in text
    dom, log = chromium(tmp_path, page.as_uri(), "--dump-dom")
    expected = Picture(text)
    tracks = Trace(fizzbuzz_traces["stackless"]).instance_tracks
    assert dom.count('class="lane instance"') == len(expected.instances()) == len(tracks)
    assert dom.count('class="wake"') == len(expected.arrows)
    assert re.search(r'<svg[^>]* data-zoom="1"', dom), "the page's script did not run"
    assert re.search(r'<p id="zoom">', dom), "the zoom buttons stayed hidden"
    assert page_requests(log) == []
    shot = tmp_path / "timeline.png"
    chromium(tmp_path, page.as_uri(), f"--screenshot={shot}")
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000
    print(f"screenshot: {shot}")


def test_the_browser_check_sees_a_request(coroc, fizzbuzz_traces, tmp_path):
    """The net log check is no formality: a page with an image from
    elsewhere shows its request."""
    page = tmp_path / "planted.html"
    text = coroc_trace(fizzbuzz_traces["stackless"]).stdout
    page.write_text(text.replace("<h1>", '<img src="http://example.invalid/x.png"><h1>', 1))
    chromium(tmp_path, page.as_uri(), "--dump-dom")
    assert [r["url"] for r in page_requests(tmp_path / "net.json")] == \
        ["http://example.invalid/x.png"]

# }====
# {==== the tutorial's timelines


@pytest.mark.parametrize("name", TUTORIAL_TIMELINES)
def test_tutorial_timeline_is_current(toolchain, name, tmp_path):
    """The committed tutorial/NN/NAME-timeline.svg tells what a run of the
    chapter's program tells now, drawn as `cmake --build build --target
    tutorial_timelines` draws it: the same lanes in the same order, the same
    wake-ups (who woke whom) and the same kinds of waits on each lane. Times
    and addresses differ from run to run; they are not compared."""
    chapter, stem = name.split("/")
    src = SOURCE_DIR / "tutorial" / chapter / f"{stem}.coc"
    committed = SOURCE_DIR / "tutorial" / chapter / f"{stem}-timeline.svg"
    assert committed.exists(), f"{committed} is missing: cmake --build build --target tutorial_timelines"
    exe = build(toolchain, src, "stackless")
    trace = tmp_path / f"{stem}.json"
    res = record(exe, trace)
    assert res.returncode == 0, res.stderr
    fresh = coroc_trace("--svg", "--by-order", trace)
    assert fresh.returncode == 0, fresh.stderr
    old, new = Picture(committed.read_text()), Picture(fresh.stdout)
    assert old.story() == new.story(), \
        f"{committed.name} is out of date: cmake --build build --target tutorial_timelines"
    assert "(not to scale)" in committed.read_text()
    text = (SOURCE_DIR / "tutorial" / chapter / "README.md").read_text()
    assert f"]({stem}-timeline.svg)" in text, f"{chapter}/README.md does not show {committed.name}"

# }====
