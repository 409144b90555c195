#!/usr/bin/env python3
"""tests/bench/plot.py: draws part 3's figures against the number of connections,
from a run recorded in docs/benchmarks-journal.md, as the SVG that
docs/benchmarks.md shows (docs/images/bench-echo.svg).

  tests/bench/plot.py [--run HEADING] [--journal FILE] [--out SVG] [--data]

The run is an entry of the journal (its heading, or the start of it; by
default the newest entry that holds part 3's shared-core tables at 64, 1,000
and 10,000 connections with 64-byte messages), and the figures are those its
recorded output printed: nothing is measured here. Drawn per server (the
epoll and libuv servers, coroc's echo server in both backends): round trips
per second, the server's CPU per round trip and its peak memory.

--data prints the figures it would draw, tab-separated, and draws nothing:
it needs only the standard library. Drawing needs matplotlib (Debian's
python3-matplotlib). The SVG carries the run's heading, so that a reader can
find the run it came from.
"""
import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JOURNAL = ROOT / "docs" / "benchmarks-journal.md"
OUT = ROOT / "docs" / "images" / "bench-echo.svg"
CONNECTIONS = (64, 1000, 10000)
TABLE = re.compile(r"^(\d+) connections x 64-byte messages x \d+ rounds, shared core")


def entries(text):
    """The journal's entries: (heading, text), in the order of the page."""
    out, heading, body = [], None, []
    for line in text.splitlines():
        if re.match(r"#{2,3} ", line):
            if heading:
                out.append((heading, "\n".join(body)))
            heading, body = line.lstrip("#").strip(), []
        else:
            body.append(line)
    if heading:
        out.append((heading, "\n".join(body)))
    return out


def tables(text):
    """Part 3's shared-core tables of 64-byte messages in a run's output:
    {connections: [(server, round trips/s, CPU µs per trip, RSS MiB)]}."""
    lines = text.splitlines()
    found = {}
    for i, line in enumerate(lines):
        m = TABLE.match(line.strip())
        if not m or int(m.group(1)) in found:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("|"):
            j += 1
        header = [c.strip() for c in lines[j].strip().strip("|").split("|")]
        try:
            rate, cpu, rss = header.index("round trips/s"), header.index("CPU µs/trip"), header.index("RSS MiB")
        except ValueError:
            continue
        rows = []
        for row in lines[j + 2:]:
            if not row.startswith("|"):
                break
            cells = [c.strip() for c in row.strip().strip("|").split("|")]
            if cells[0].endswith(", again"):   # the epoll server measured twice: the noise, not a server
                continue
            rows.append((cells[0], float(cells[rate]), float(cells[cpu]), float(cells[rss])))
        found[int(m.group(1))] = rows
    return found


def find_run(journal, run):
    for heading, body in entries(journal.read_text()):
        if run and not heading.startswith(run):
            continue
        t = tables(body)
        if all(c in t for c in CONNECTIONS):
            return heading, t
        if run:
            sys.exit(f"plot.py: the run '{heading}' has no shared-core tables at 64, 1,000 and 10,000 connections")
    sys.exit(f"plot.py: no run {'starting ' + repr(run) + ' ' if run else ''}in {journal} "
             "has part 3's tables at 64, 1,000 and 10,000 connections")


def series(t):
    """{server: [(connections, rate, cpu, rss)]}, the servers in the order of the tables."""
    out = {}
    for c in CONNECTIONS:
        for server, rate, cpu, rss in t[c]:
            out.setdefault(server, []).append((c, rate, cpu, rss))
    return out


STYLE = {   # the baseline drawn plainly, coroc's servers boldly
    "epoll": dict(color="#444444", marker="s", linestyle="--"),
    "libuv": dict(color="#999999", marker="D", linestyle=":"),
    "coroc echo, stackless": dict(color="#1f77b4", marker="o", linewidth=2),
    "coroc echo, stackful": dict(color="#d62728", marker="^", linewidth=2),
}


def style(server):
    for key, s in STYLE.items():
        if server.startswith(key):
            return s
    return {}


def draw(heading, data, out):
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.fonttype"] = "none"     # text stays text: smaller, and searchable
    plt.rcParams["svg.hashsalt"] = "coroc"    # ids the same from one drawing to the next
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.9))
    panels = (("round trips per second", 1, False), ("server CPU per round trip (µs)", 2, False),
              ("server peak memory (MiB, log scale)", 3, True))
    for ax, (title, k, log) in zip(axes, panels):
        for server, points in data.items():
            ax.plot([p[0] for p in points], [p[k] for p in points], label=server, **style(server))
        ax.set_xscale("log")
        if log:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_xticks(CONNECTIONS)
        ax.set_xticklabels(["64", "1,000", "10,000"])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        if log:
            top = max(p[k] for points in data.values() for p in points)
            ax.set_yticks([v for v in (1, 2, 5, 10, 20, 50, 100, 200, 500) if v <= top * 2])
            ax.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xlabel("connections")
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0].yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    axes[2].yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False, fontsize=9)
    fig.suptitle("Part 3, the echo server: 64-byte messages, server and client on one core", fontsize=11)
    fig.text(0.5, 0.005, f"docs/benchmarks-journal.md, \"{heading}\" (tests/bench/plot.py)",
             ha="center", fontsize=7, color="#666666")
    fig.tight_layout(rect=(0, 0.1, 1, 0.95))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="svg", metadata={"Date": None})
    print(f"plot.py: {out} from \"{heading}\"")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", help="the journal entry's heading, or its start (default: the newest with the tables)")
    ap.add_argument("--journal", type=Path, default=JOURNAL)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--data", action="store_true", help="print the figures, tab-separated, and draw nothing")
    args = ap.parse_args()
    heading, t = find_run(args.journal, args.run)
    data = series(t)
    if args.data:
        print(f"# {heading}")
        print("server\tconnections\tround trips/s\tCPU us/trip\tRSS MiB")
        for server, points in data.items():
            for c, rate, cpu, rss in points:
                print(f"{server}\t{c}\t{rate:g}\t{cpu:g}\t{rss:g}")
        return
    draw(heading, data, args.out)


if __name__ == "__main__":
    main()
