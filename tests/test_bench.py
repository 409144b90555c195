"""The speed benchmark (tests/bench, docs/benchmarks.md) still builds and runs.

The benchmark is not a test: it prints figures and judges its targets itself,
and nothing here looks at a time. What is checked is what would otherwise go
unseen until someone ran it: that every program of it compiles (a missing
<stddef.h> once kept it from building, and nothing said so), that each part
runs a tiny pass and prints its figures (part 3 one table of few connections:
every echo server, the hosted ones in a libuv loop too, must serve its client),
that the parts the runner lists are the folders of tests/bench and the table
of docs/benchmarks.md, that every link into the benchmark's pages leads to a
section, and that the plot's script reads the run the docs name.
"""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, COROC, SOURCE_DIR

BENCH = SOURCE_DIR / "tests" / "bench"
DOCS = SOURCE_DIR / "docs"
REFERENCE = DOCS / "benchmarks.md"
JOURNAL = DOCS / "benchmarks-journal.md"
PARTS = ["generator", "chain", "echo", "frontend", "create", "many", "frames", "awaits", "lives", "lsp",
         "scaling"]


def sh(cmd, timeout=600, **kw):
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)
    assert res.returncode == 0, f"{' '.join(map(str, cmd))} failed ({res.returncode}):\n{res.stdout}\n{res.stderr}"
    return res.stdout


# {==== the parts: the runner's list, the folders, the docs' table

def listed_parts():
    """The rows of `tests/bench/run --list`: (number, name, folder)."""
    rows = []
    for line in sh(["sh", BENCH / "run", "--list"]).splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append((int(cells[0]), cells[1], cells[2].strip("`").rstrip("/")))
    return rows


def test_run_lists_every_part_with_its_folder():
    rows = listed_parts()
    assert [r[0] for r in rows] == list(range(1, 12))
    assert [r[1] for r in rows] == PARTS
    for number, name, folder in rows:
        assert folder == f"part{number}-{name}"
        assert (BENCH / folder).is_dir(), f"tests/bench/{folder} is listed but missing"
        assert any((BENCH / folder).iterdir()), f"tests/bench/{folder} is empty"


def test_every_file_of_the_benchmark_is_in_a_part_or_common():
    folders = {f for _, _, f in listed_parts()} | {"common"}
    top = {"run", "CMakeLists.txt", "plot.py"}
    for path in BENCH.iterdir():
        if path.name == "__pycache__":
            continue
        assert path.name in top or (path.is_dir() and path.name in folders), \
            f"tests/bench/{path.name}: neither a part's folder, common/ nor {sorted(top)}"


def test_docs_show_the_runners_list():
    """docs/benchmarks.md shows the table `tests/bench/run --list` prints, as it prints it."""
    listed = sh(["sh", BENCH / "run", "--list"])
    assert listed in REFERENCE.read_text(), \
        "docs/benchmarks.md does not show `tests/bench/run --list` as it prints it: copy it again"


def test_run_refuses_a_part_it_does_not_have():
    """--part N|NAME names one of the parts --list prints; another is refused,
    before anything is built."""
    res = subprocess.run(["sh", BENCH / "run", "--part", "nosuchpart"], capture_output=True, text=True,
                         timeout=30)
    assert res.returncode == 2 and "--list" in res.stderr


# }====
# {==== every program builds, and each part prints its figures in a tiny pass

@pytest.fixture(scope="module")
def bench_build(tmp_path_factory):
    """tests/bench as the project of its own that tests/bench/run configures,
    Release, with every program built (the bench_programs target)."""
    build = tmp_path_factory.mktemp("bench") / "build"
    sh(["cmake", "-S", BENCH, "-B", build, "-DCMAKE_BUILD_TYPE=Release"])
    sh(["cmake", "--build", build, "--target", "bench_programs", f"-j{os.cpu_count() or 2}"], timeout=1200)
    return build


def program(build, name, *dirs):
    for d in dirs:
        if (build / d / name).exists():
            return build / d / name
    pytest.fail(f"{name} was not built under {build}")


def test_every_program_builds(bench_build):
    for name, dirs in (("coroc_bench", ["."]), ("coroc_bench_epoll_echo", ["."]),
                       ("echo_stackless", ["coroc/examples"]), ("echo_stackful", ["coroc/examples"]),
                       ("uv_hosted_echo_stackless", ["coroc/examples/hosts"]),
                       ("uv_hosted_echo_stackful", ["coroc/examples/hosts"]),
                       ("coroc", ["coroc/transformer"]), ("libcoro.a", ["coroc/runtime"])):
        program(bench_build, name, *dirs)


@pytest.mark.parametrize("table,heading", [("generator", "1. The round trip of a generator"),
                                           ("chain", "2. A task resumed"),
                                           ("create", "5. Creating and freeing an instance")])
def test_driver_prints_its_tables(bench_build, table, heading):
    """Parts 1, 2 and 5 in a tiny pass (one repetition of 1,000): each prints
    its table, its targets and whether each is met; the figures are not read."""
    out = sh([program(bench_build, "coroc_bench", "."), "--table", table, "--reps", "1", "--n", "1000"],
             timeout=120)
    assert out.startswith("coroc benchmark (tests/bench): ")   # the processor, the compiler, the load
    assert heading in out
    assert re.search(r"^\| .*\|\s+1000 \|\s+[0-9.]+ \|", out, re.M), out   # N per rep, then ns
    assert re.search(r"target <= [0-9.]+\s+(met|NOT met)", out), out


@pytest.mark.parametrize("script,args,heading", [
    ("part7-frames/frames.py", ["--reps", "1", "--n", "1000", "--values", "1000"],
     "7. What a suspended generator costs"),
    ("part8-awaits/awaits.py", ["--reps", "1", "--n", "1000"], "8. An await of a child that returns at once"),
    ("part9-lives/lives.py", ["--reps", "1", "--n", "1000"], "9. The life of a short-lived generator"),
], ids=["frames", "awaits", "lives"])
def test_python_part_builds_its_programs_and_prints(bench_build, tmp_path, script, args, heading):
    """Parts 7, 8 and 9 build their programs when they run: a tiny pass of
    each builds every row it can (saying why for one it cannot) and prints
    the table."""
    out = sh([sys.executable, BENCH / script, "--coroc", program(bench_build, "coroc", "coroc/transformer"),
              "--lib", program(bench_build, "libcoro.a", "coroc/runtime"), "--workdir", tmp_path, *args],
             timeout=300)
    assert out.startswith(heading), out
    assert re.search(r"^  coroc stackless.* [0-9]+\.[0-9]+ ", out, re.M), out
    assert re.search(r"^target: .*: (met|NOT met)", out, re.M), out


ECHO_SERVERS = ["epoll callbacks (C)", "epoll callbacks (C), again", "libuv", "coroc echo, stackless",
                "coroc echo, stackless in a libuv loop", "coroc echo, stackless, traced",
                "coroc echo, stackful", "coroc echo, stackful in a libuv loop"]


def test_echo_part_runs_every_server(bench_build, tmp_path):
    """Part 3's tiny pass (--tiny: the targets' table with 20 connections x 20
    rounds, one run): every server, examples/echo.coc's under coro_run() and in a
    libuv loop (uv_hosted_echo_*) among them, starts, serves the verifying client
    (a wrong or missing byte stops the script with status 1), and has its row; the
    hosted ones their ratio to coro_run(). The figures are not read."""
    client = program(bench_build, "echo_stackless", "coroc/examples")
    hosts = "coroc/examples/hosts"
    out = sh(["sh", BENCH / "part3-echo" / "echo_bench.sh", "--tiny", "--client", client,
              "--epoll", program(bench_build, "coroc_bench_epoll_echo", "."),
              "--libuv", program(bench_build, "coroc_bench_uv_echo", "."),
              "--stackless", client, "--stackful", program(bench_build, "echo_stackful", "coroc/examples"),
              "--hosted-stackless", program(bench_build, "uv_hosted_echo_stackless", hosts),
              "--hosted-stackful", program(bench_build, "uv_hosted_echo_stackful", hosts),
              "--trace-file", tmp_path / "traced.json"], timeout=300)
    assert out.startswith("3. The echo servers"), out
    assert "20 connections x 64-byte messages x 20 rounds" in out, out
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines()
            if re.match(r"\| [a-z]", line) and not line.startswith("| server ")]
    assert [re.sub(r"^libuv .*", "libuv", r[0]) for r in rows] == ECHO_SERVERS, out   # and libuv's version
    for r in rows:
        assert int(r[1]) > 0 and float(r[4]) > 0, r   # round trips/s, the server's CPU per trip
    for backend in ("stackless", "stackful"):
        assert re.search(rf"^  {backend}: +server CPU [0-9.]+x \(at equal speed [0-9.]+x\), "
                         rf"round trips/s [0-9.]+x", out, re.M), out
    assert re.search(r"^Traced \(CORO_TRACE, every event\) / untraced, per round trip.*\n"
                     r"  stackless: +server CPU [0-9.]+x", out, re.M), out
    # the traced row recorded its server's whole run: the warm-up and the
    # measured run, 20 connections x 20 rounds each, a read resumed per trip
    trace = json.loads((tmp_path / "traced.json").read_text())
    serve = [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("name") == "serve"]
    assert len(serve) >= 2 * 20 * 20, f"{len(serve)} resumes of serve in the trace"
    assert not [e for e in trace["traceEvents"] if e.get("name") == "events dropped"]


def test_frontend_part_prints(bench_build, tmp_path):
    """Part 4 on its generated inputs at a tenth of their size, one timed
    round: it checks coroc's output before it times anything, and prints the
    tables."""
    out = sh([sys.executable, BENCH / "part4-frontend" / "frontend.py",
              "--coroc", program(bench_build, "coroc", "coroc/transformer"),
              "--c-input", "generated", "--reps", "1", "--scale", "0.1", "--workdir", tmp_path], timeout=600)
    assert "large.coc" in out and "lines/s" in out, out
    assert "target:" in out, out


# }====
# {==== links into the benchmark's pages

def slugs(page):
    """The anchors of a Markdown page's headings, as GitHub makes them."""
    seen, out = {}, set()
    in_code = False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        m = re.match(r"#{1,6} (.*)", line)
        if not m:
            continue
        text = re.sub(r"`|\*\*|\[([^]]*)\]\([^)]*\)", r"\1", m.group(1)).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def markdown_files():
    files = [SOURCE_DIR / "README.md", *DOCS.rglob("*.md"), *(SOURCE_DIR / "tutorial").rglob("*.md"),
             *(SOURCE_DIR / "runtime").rglob("*.md"), *(SOURCE_DIR / "tests").rglob("*.md")]
    return [f for f in files if "build" not in f.relative_to(SOURCE_DIR).parts[0]]


def test_links_into_the_benchmark_pages_lead_to_a_section():
    """Every link to a section of docs/benchmarks.md or docs/benchmarks-journal.md,
    from any Markdown file of the tree (the pages themselves included), names a
    heading that is there: when a run moves to the journal, its links follow."""
    pages = {REFERENCE.resolve(): slugs(REFERENCE), JOURNAL.resolve(): slugs(JOURNAL)}
    bad = []
    for md in markdown_files():
        for target in re.findall(r"\]\(([^)\s]+)\)", md.read_text()):
            path, _, anchor = target.partition("#")
            page = (md.parent / path).resolve() if path else md.resolve()
            if page in pages and anchor and anchor not in pages[page]:
                bad.append(f"{md.relative_to(SOURCE_DIR)}: {target}")
    assert not bad, "links to no section:\n  " + "\n  ".join(bad)


def test_reference_links_the_journal():
    assert "(benchmarks-journal.md)" in REFERENCE.read_text()
    assert "(benchmarks.md)" in JOURNAL.read_text()


# }====
# {==== the plot is drawn from a recorded run

def test_plot_reads_the_recorded_run():
    """tests/bench/plot.py finds, in the journal, part 3's tables of the run that
    docs/benchmarks.md's plot names, for 64, 1,000 and 10,000 connections and
    every server (its --data prints what it would draw; matplotlib is only
    needed to draw)."""
    out = sh([sys.executable, BENCH / "plot.py", "--data"], timeout=60)
    heading, header, *lines = out.strip().splitlines()
    assert header.startswith("server\tconnections"), out
    rows = [line.split("\t") for line in lines]
    connections = sorted({int(r[1]) for r in rows})
    assert connections == [64, 1000, 10000], out
    servers = {r[0] for r in rows}
    assert {"epoll callbacks (C)", "coroc echo, stackless", "coroc echo, stackful"} <= servers, out
    for r in rows:
        assert float(r[2]) > 0 and float(r[3]) > 0, r
    # The run drawn is the one today's table names, and the SVG says which it is.
    run = heading.removeprefix("# ")
    anchor = re.sub(r"[^\w\- ]", "", run.lower()).replace(" ", "-")
    assert f"benchmarks-journal.md#{anchor}" in REFERENCE.read_text(), \
        f"plot.py draws \"{run}\", which docs/benchmarks.md's today's table does not name"
    svg = DOCS / "images" / "bench-echo.svg"
    assert svg.exists() and "<svg" in svg.read_text()[:1000]
    assert run in svg.read_text(), "docs/images/bench-echo.svg was not drawn from that run: redraw it"
    assert "images/bench-echo.svg" in REFERENCE.read_text()


# }====


def test_lsp_part_prints():
    """Part 10 in a tiny pass (a few changes, 20 for the memory), on the
    suite's coroc-lsp without clangd: it prints its rows, the processor and
    its three targets; the figures are not read."""
    lsp = os.environ.get("COROC_LSP", str(BUILD_DIR / "transformer" / "coroc-lsp"))
    # without clangd (a path where none is): its parses made this pass take 95 s of
    # CI's 20 minutes, and tests/test_lsp_clangd.py drives the proxy to clangd
    out = sh([sys.executable, BENCH / "part10-lsp" / "lsp.py", "--lsp", lsp, "--edits", "4",
              "--include-edits", "2", "--rss-edits", "20", "--clangd", "/nonexistent/clangd"],
             timeout=600)
    assert out.startswith("10. The language server"), out
    assert re.search(r"^processor: \S", out, re.M), out
    for name in ("coroc-lsp --no-clangd, body", "coroc's share (in the server), body"):
        assert re.search(rf"^  {re.escape(name)}\s+[0-9.]+\s+[0-9.]+\s+4$", out, re.M), out
    assert re.search(r"^  server's resident size .* KiB after 20 more", out, re.M), out
    targets = re.findall(r"^target: (.*): (met|NOT met|not measured)", out, re.M)
    assert len(targets) == 3, out


def test_scaling_part_prints(tmp_path):
    """Part 11 in a tiny pass (two shapes at a twentieth of their sizes, one
    try each), on the suite's coroc: a row for each shape in each backend,
    the processor and its two targets; the figures are not read. At that
    size every run takes about coroc's start-up time, and on a loaded
    machine the tiny input's run may take longer than the largest: the
    time growth, (32n - tiny) / (8n - tiny), is then negative, and a
    figure of the row may have a sign."""
    out = sh([sys.executable, BENCH / "part11-scaling" / "scaling.py", "--coroc", COROC, "--reps", "1",
              "--scale", "0.05", "--shapes", "sum,parentheses", "--workdir", tmp_path], timeout=300)
    assert out.startswith("11. coroc against the size of its input"), out
    assert re.search(r"^processor: \S", out, re.M), out
    for shape in ("sum", "parentheses"):
        for backend in ("stackless", "stackful"):
            assert re.search(rf"^\| {shape} +\| {backend} +\| +[0-9]+ \|( +-?[0-9.]+ \|){{4}}", out, re.M), out
    assert len(re.findall(r"^target: .*: (met|NOT met)$", out, re.M)) == 2, out


def test_scaling_part_refuses_a_shape_it_does_not_have(tmp_path):
    res = subprocess.run([sys.executable, BENCH / "part11-scaling" / "scaling.py", "--coroc", COROC,
                          "--shapes", "sum,nosuchshape", "--workdir", tmp_path],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 1 and "no shape nosuchshape" in res.stderr, res.stderr
