#!/usr/bin/env python3
"""tests/bench/part10-lsp/lsp.py: the benchmark's part 10, coroc-lsp as an editor feels it.

examples/echo.coc (700 lines, 18 headers) is opened in coroc-lsp, and edited
as a person types: N changes inside a function body (a space put at the start
of a line, then taken away: no directive touched), and a few that touch an
#include line (a space at its end, then taken away). Each change is sent
(didChange, the whole text, as clangd is sent it) and timed, by this client,
to the publishDiagnostics of its version:

  coroc-lsp with clangd        the server publishes twice for each version:
                               coroc's diagnostics at once, then again with
                               clangd's when clangd's come. Timed to the second,
                               the final one: what an editor shows last.
  clangd alone                 clangd (the same flags as the server gives it)
                               on the C clangd is given for echo.coc (the
                               request coroc/editorC), opened directly, with the
                               same changes at the same places: to its own
                               publishDiagnostics.
  coroc-lsp --no-clangd        coroc's diagnostics alone: to the one publish.

and coroc's own share, measured inside the server (COROC_LSP_TIMING: the
time from the start of its diagnosis of a version to its diagnostics,
CLOCK_MONOTONIC; clangd works in its own process meanwhile), for the body
changes and the #include ones apart (an #include change preprocesses the
whole text again: lsp/preamble.c).

Then the resident size of the server (--no-clangd: clangd's own is not the
server's) after a warm-up of 100 changes (fewer if --rss-edits is) and after --rss-edits more
(10,000 by default), each waited for.

Targets (issue #31; docs/benchmarks.md, part 10): the whole <= 1.3x clangd
alone (medians of the body changes); coroc's share <= 10 ms (median of the
body changes); the server's resident size grows <= 5% over the changes.

A benchmark, not a test: it exits 0 whatever the figures, 1 only when
something it needs is missing or the server does not answer.

  tests/bench/part10-lsp/lsp.py [--lsp PATH] [--clangd PATH] [--edits N] [--include-edits N]
                                [--rss-edits N] [--workdir DIR]
"""

import argparse
import json
import os
import pathlib
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "common"))   # benchlib
from benchlib import fail, processor  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
TARGET_RATIO = 1.3
TARGET_SHARE_MS = 10.0
TARGET_GROWTH = 0.05
ANSWER_TIMEOUT = 120   # seconds: liveness only
TIMING = re.compile(r"coroc-lsp: timing: \S+ version (\d+): coroc ([0-9.]+) ms, preprocessor on (.*)$")


class Peer:
    """A language server on pipes: what it sends, as it comes, with the time it came."""

    def __init__(self, argv, env=None, cwd=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        self.inbox = queue.Queue()
        self.next_id = 1
        self.logs = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            msg = json.loads(out.read(length))
            self.inbox.put((time.perf_counter(), msg))

    def send(self, obj):
        body = json.dumps(obj).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def next(self):
        try:
            item = self.inbox.get(timeout=ANSWER_TIMEOUT)
        except queue.Empty:
            fail(f"{self.proc.args[0]} did not answer in {ANSWER_TIMEOUT} s")
        if item is None:
            fail(f"{self.proc.args[0]} ended ({self.proc.wait()})")
        when, msg = item
        if msg.get("method") == "window/logMessage":
            self.logs.append(msg["params"]["message"])
        elif msg.get("method") == "workspace/configuration" and "id" in msg:
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": [None] * len(msg["params"]["items"])})
        elif "id" in msg and "method" in msg:   # a request of the server's (progress, ...)
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        return when, msg

    def request(self, method, params):
        id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        while True:
            _, msg = self.next()
            if msg.get("id") == id and "method" not in msg:
                return msg.get("result")

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self, root):
        caps = {"textDocument": {"publishDiagnostics": {"versionSupport": True}},
                "general": {"positionEncodings": ["utf-8"]}}
        self.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(),
                                    "capabilities": caps})
        self.notify("initialized", {})

    def published(self, uri, version, count=1):
        """The time of the count-th publishDiagnostics of uri at version."""
        seen = 0
        while True:
            when, msg = self.next()
            p = msg.get("params") or {}
            if msg.get("method") == "textDocument/publishDiagnostics" and p.get("uri") == uri \
                    and p.get("version", version) == version:
                seen += 1
                if seen == count:
                    return when

    def change(self, uri, version, text, publishes=1):
        """Send the whole text as version; ms to its count-th publish."""
        start = time.perf_counter()
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})
        return (self.published(uri, version, publishes) - start) * 1e3

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.request("shutdown", None)
                self.notify("exit", None)
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()   # (by its own handle: the process this script started)
                self.proc.wait()


def rss_kib(pid):
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)[1])


def texts(text, n_body, n_include):
    """The versions, in order: (kind, whole text). A body change puts a space
    at the start of a line inside a function (after every directive but the
    last #if group), the next takes it away; an #include change puts one at
    the end of the last #include line, the next takes it away."""
    lines = text.splitlines(keepends=True)
    includes = [i for i, l in enumerate(lines) if l.startswith("#include")]
    body = [i for i, l in enumerate(lines) if i > includes[-1] + 20 and l.startswith("    ")
            and l.strip() and not l.lstrip().startswith(("#", "/*", "*"))]
    line, inc = body[len(body) // 2], includes[-1]
    spaced = "".join(lines[:line] + [" " + lines[line]] + lines[line + 1:])
    inc_spaced = "".join(lines[:inc] + [lines[inc].rstrip("\n") + " \n"] + lines[inc + 1:])
    out = []
    for i in range(n_body):
        out.append(("body", spaced if i % 2 == 0 else text))
    for i in range(n_include):
        out.append(("include", inc_spaced if i % 2 == 0 else text))
    return out, line


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def row(name, xs):
    return f"  {name:38s} {statistics.median(xs):9.1f} {quantile(xs, 0.9):9.1f} {len(xs):6d}"


def measure_server(lsp, clangd, work, uri, text, versions, warm):
    """The server (with clangd, or --no-clangd if clangd is None): ms per
    version to its final publish, and the server's own ms per version."""
    args = [lsp, f"--clangd={clangd}"] if clangd else [lsp, "--no-clangd"]
    s = Peer(args, env=dict(os.environ, COROC_LSP_TIMING="1"), cwd=work)
    try:
        s.initialize(work)
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "coc",
                                                           "version": 1, "text": text}})
        s.published(uri, 1, 2 if clangd else 1)
        publishes = 2 if clangd else 1
        for v in range(2, 2 + warm):   # the preamble and clangd's are made
            s.change(uri, v, versions[(v - 2) % 2][1], publishes)
        times = {"body": [], "include": []}
        for i, (kind, new) in enumerate(versions):
            times[kind].append(s.change(uri, 2 + warm + i, new, publishes))
        own = {"body": [], "include": []}
        kinds = {2 + warm + i: kind for i, (kind, _) in enumerate(versions)}
        for m in map(TIMING.search, s.logs):
            if m and int(m[1]) in kinds:
                own[kinds[int(m[1])]].append(float(m[2]))
        rendering = None
        if clangd:   # of the text as opened: an odd count of changes leaves an edited line
            if versions[-1][1] != text:   # (else the server has it: a change to the same text
                s.change(uri, 2 + warm + len(versions), text, publishes)   # gets no clangd answer)
            rendering = s.request("coroc/editorC", {"textDocument": {"uri": uri}})["text"]
        return times, own, rendering
    finally:
        s.stop()


def measure_clangd(clangd, work, rendering, text, versions, edited_line):
    """clangd alone on the rendering, the same changes at the same places."""
    alone = work / "alone"
    alone.mkdir(exist_ok=True)
    c = alone / "echo.c"
    c.write_text(rendering)
    (alone / "compile_flags.txt").write_text(f"-xc\n-I{ROOT / 'runtime' / 'include'}\n")
    # the same edits: the edited lines' text is found in the rendering as it was written
    src_lines, c_lines = text.splitlines(keepends=True), rendering.splitlines(keepends=True)
    def rendered(new):
        new_lines = new.splitlines(keepends=True)
        out = list(c_lines)
        for i, (a, b) in enumerate(zip(src_lines, new_lines)):
            if a != b:
                at = c_lines.index(a)
                out[at] = b
        return "".join(out)
    c_versions = [(kind, rendered(new)) for kind, new in versions]
    uri = c.as_uri()
    s = Peer([clangd, "--background-index=false", "--header-insertion=never", "--log=error"], cwd=alone)
    try:
        s.initialize(alone)
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "c", "version": 1,
                                                           "text": rendering}})
        s.published(uri, 1)
        for v in range(2, 12):
            s.change(uri, v, c_versions[(v - 2) % 2][1])
        times = {"body": [], "include": []}
        for i, (kind, new) in enumerate(c_versions):
            times[kind].append(s.change(uri, 12 + i, new))
        return times
    finally:
        s.stop()


def warm_up(edits):
    """The changes before the first reading of the size: 100, or as many as
    are measured after it when that is fewer (a tiny pass)."""
    return min(100, edits)


def measure_rss(lsp, work, uri, text, versions, edits):
    s = Peer([lsp, "--no-clangd"], cwd=work)
    try:
        s.initialize(work)
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "coc",
                                                           "version": 1, "text": text}})
        s.published(uri, 1)
        body = [new for kind, new in versions if kind == "body"][:2]
        first = 2 + warm_up(edits)
        for v in range(2, first):
            s.change(uri, v, body[v % 2])
        before = rss_kib(s.proc.pid)
        for v in range(first, first + edits):
            s.change(uri, v, body[v % 2])
        return before, rss_kib(s.proc.pid)
    finally:
        s.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lsp", default=str(ROOT / "build-bench" / "coroc" / "transformer" / "coroc-lsp"))
    ap.add_argument("--clangd", default=shutil.which("clangd") or "clangd")
    ap.add_argument("--edits", type=int, default=60, help="changes in a body (timed)")
    ap.add_argument("--include-edits", type=int, default=6, help="changes of an #include line")
    ap.add_argument("--rss-edits", type=int, default=10000)
    ap.add_argument("--workdir")
    args = ap.parse_args()
    lsp = str(pathlib.Path(args.lsp).resolve())
    if not pathlib.Path(lsp).exists():
        fail(f"{lsp} not found: build first (tests/bench/run builds it)")
    clangd = shutil.which(args.clangd)
    work = pathlib.Path(args.workdir or tempfile.mkdtemp(prefix="coroc-bench-lsp-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    src = work / "echo.coc"
    text = (ROOT / "examples" / "echo.coc").read_text()
    src.write_text(text)
    uri = src.as_uri()
    versions, line = texts(text, args.edits, args.include_edits)

    print("10. The language server: from a change of examples/echo.coc to its diagnostics")
    print(f"processor: {processor()}")
    print(f"{args.edits} changes in a function body (line {line + 1}), {args.include_edits} of an "
          f"#include line; ms from didChange to publishDiagnostics, median and p90")
    print(f"  {'':38s} {'median':>9s} {'p90':>9s} {'count':>6s}")
    alone = None
    if clangd:
        whole, own_c, rendering = measure_server(lsp, clangd, work, uri, text, versions, 10)
        alone = measure_clangd(clangd, work, rendering, text, versions, line)
        print(row("coroc-lsp with clangd, body", whole["body"]))
        print(row("coroc-lsp with clangd, #include", whole["include"]))
        print(row("clangd alone, body", alone["body"]))
        print(row("clangd alone, #include", alone["include"]))
    else:
        print(f"  clangd not found ({args.clangd}): the rows with clangd are left out")
    nc, own, _ = measure_server(lsp, None, work, uri, text, versions, 10)
    print(row("coroc-lsp --no-clangd, body", nc["body"]))
    print(row("coroc-lsp --no-clangd, #include", nc["include"]))
    print(row("coroc's share (in the server), body", own["body"]))
    print(row("coroc's share (in the server), #include", own["include"]))
    before, after = measure_rss(lsp, work, uri, text, versions, args.rss_edits)
    growth = after / before - 1
    print(f"  server's resident size (--no-clangd): {before:,} KiB after {warm_up(args.rss_edits)} changes, "
          f"{after:,} KiB after {args.rss_edits:,} more ({growth:+.1%})")

    if alone:
        ratio = statistics.median(whole["body"]) / statistics.median(alone["body"])
        print(f"target: the whole <= {TARGET_RATIO}x clangd alone (body changes): "
              f"{'met' if ratio <= TARGET_RATIO else 'NOT met'} ({ratio:.2f}x)")
    else:
        print(f"target: the whole <= {TARGET_RATIO}x clangd alone (body changes): not measured (no clangd)")
    share = statistics.median(own["body"])
    print(f"target: coroc's share <= {TARGET_SHARE_MS:g} ms (body changes): "
          f"{'met' if share <= TARGET_SHARE_MS else 'NOT met'} ({share:.1f} ms)")
    print(f"target: the server's resident size grows <= {TARGET_GROWTH:.0%} over {args.rss_edits:,} changes: "
          f"{'met' if growth <= TARGET_GROWTH else 'NOT met'} ({growth:+.1%})")


if __name__ == "__main__":
    main()
