#!/usr/bin/env python3
"""tests/bench/part11-scaling/scaling.py: the benchmark's part 11, coroc against the size of its input.

Every pass of coroc must cost time and memory in proportion to its input,
whatever the input's shape (shapes.py: a long sum, a deep nest of brackets,
thousands of locals, of parameters, of coroutines...). For each shape, in
both backends, coroc runs on the shape at a tiny size, at 8n and at 32n
(about 256 KB and 1 MB of input); each run is a process of its own, measured
with wait4 (its CPU time, user and system, with the preprocessor it waits
for, and the peak resident size of the two):

  time growth    what 32n adds over the tiny input's CPU time, against what
                 8n adds: 4 if the time grows as the input does, 16 if as
                 its square. Both are tenths of seconds above the tiny run's
                 fixed cost (the preprocessor's, about 50 ms), so noise
                 cannot decide it. Larger inputs run a little slower per byte
                 (caches): 5.7 at most, on `parameters`, on an AMD EPYC.
  memory growth  the peak resident size at 32n over that at 8n (no tiny run
                 taken off: below 8n the preprocessor's peak is what shows).

Each size keeps the least of --reps tries, the sizes taken in turn within
each round: a load only ever adds, and one that comes and goes then weighs
on every size alike. A row past the time bound has 8n and 32n measured up to
three more times, each keeping its least: a growth really faster than the
input's (16 for a square) stays past the bound in every try.

Targets (docs/benchmarks.md, part 11): time growth <= 8 and memory growth
<= 6 on every row. Stopping at one of the two documented limits
(docs/limitations.md) with its message is a right answer, and its row says
so; any other exit of coroc stops the part with status 1.

A benchmark, not a test: it exits 0 whatever the figures. The suite
(tests/test_scaling.py) runs the same shapes under AddressSanitizer and at
32n for the outcome, untimed, and tests/test_bench.py a tiny pass of this.

  tests/bench/part11-scaling/scaling.py [--coroc PATH] [--reps N] [--scale F] [--shapes A,B] [--workdir DIR]

--scale multiplies every shape's n (0.1: a tenth of the sizes, for a quick
look; the growths are then read from runs too short to be judged).
"""

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))   # benchlib
sys.path.insert(0, str(Path(__file__).resolve().parent))                  # shapes
from benchlib import fail, part_arguments, processor, work_directory  # noqa: E402
from shapes import SHAPES, limit_reached  # noqa: E402

BACKENDS = ["stackless", "stackful"]
TARGET_TIME_GROWTH = 8     # (docs/benchmarks.md, part 11: these two)
TARGET_MEMORY_GROWTH = 6
RETRIES = 3                # more tries of 8n and 32n for a row past the time bound
FLOOR = 0.03               # s: what 8n adds is taken as at least this (a guard against 0)


def measure(cmd, log):
    """Run cmd, its stderr into the file log: (exit status, stderr, CPU seconds, peak
    RSS in KiB) of that process and the preprocessor it waits for."""
    with open(log, "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
    return os.waitstatus_to_exitcode(status), Path(log).read_text(), usage.ru_utime + usage.ru_stime, \
        usage.ru_maxrss


class Row:
    """One shape in one backend: its inputs at three sizes and their least figures."""

    def __init__(self, coroc, work, shape, backend, scale):
        make, n = SHAPES[shape]
        self.shape, self.backend = shape, backend
        self.n = max(1, round(n * scale))
        self.sizes = (1, 8 * self.n, 32 * self.n)
        self.cmds = {}
        for size in self.sizes:
            src = Path(work) / f"{shape}_{size}.coc"
            src.write_text(make(size))
            self.cmds[size] = [coroc, f"--backend={backend}", "-o", str(Path(work) / "out.c"), str(src)]
        self.log = Path(work) / "stderr"
        self.figures = {}     # size: (CPU seconds, peak KiB)
        self.limit = None     # the documented limit the largest input stopped at, if any

    def measure(self, sizes):
        for size in sizes:
            code, stderr, cpu, rss = measure(self.cmds[size], self.log)
            limit = limit_reached(code, stderr)
            self.limit = limit or self.limit
            if code != 0 and not limit:
                fail(f"{self.shape} ({self.backend}) at {size}: coroc exited with {code} "
                     f"(not 0, nor 1 at a documented limit):\n{stderr[-2000:]}")
            was = self.figures.get(size, (cpu, rss))
            self.figures[size] = (min(was[0], cpu), min(was[1], rss))

    def time_growth(self):
        tiny, eight, big = (self.figures[s][0] for s in self.sizes)
        return (big - tiny) / max(eight - tiny, FLOOR)

    def memory_growth(self):
        return self.figures[self.sizes[2]][1] / self.figures[self.sizes[1]][1]


def main():
    ap = part_arguments(__doc__.split("\n")[0], lib=False)
    ap.add_argument("--reps", type=int, default=3, help="tries of each size; the least counts")
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every shape's n")
    ap.add_argument("--shapes", help="comma-separated names (default: all)")
    args = ap.parse_args()
    work = work_directory(args, "coroc-scaling-")
    names = args.shapes.split(",") if args.shapes else sorted(SHAPES)
    unknown = [s for s in names if s not in SHAPES]
    if unknown:
        fail(f"no shape {', '.join(unknown)}; the shapes: {', '.join(sorted(SHAPES))}")

    print("11. coroc against the size of its input (tests/bench/part11-scaling/scaling.py)")
    print(f"processor: {processor()}; load average {os.getloadavg()[0]:.2f} before the runs")
    tries = "try" if args.reps == 1 else "tries"
    print(f"each size the least of {args.reps} {tries} (CPU: user + system, with the preprocessor; "
          f"peak RSS of the larger of the two); time growth = (32n - tiny) / (8n - tiny), "
          f"memory growth = 32n / 8n; 4 is linear, 16 square")
    print(f"| {'shape':<22} | {'backend':<9} | {'n':>6} | {'tiny s':>6} | {'8n s':>6} | {'32n s':>6} "
          f"| {'time growth':>11} | {'8n KiB':>7} | {'32n KiB':>7} | {'memory growth':>13} | note |")
    print(f"|{'-' * 24}|{'-' * 11}|{'-' * 7}:|{'-' * 7}:|{'-' * 7}:|{'-' * 7}:|{'-' * 12}:|{'-' * 8}:"
          f"|{'-' * 8}:|{'-' * 14}:|------|")
    rows = []
    for shape in names:
        for backend in BACKENDS:
            row = Row(args.coroc, work, shape, backend, args.scale)
            for _ in range(args.reps):
                row.measure(row.sizes)
            for _ in range(RETRIES):
                if row.time_growth() <= TARGET_TIME_GROWTH:
                    break
                row.measure(row.sizes[1:])
            rows.append(row)
            f = [row.figures[s] for s in row.sizes]
            note = f"stops at the limit: {row.limit}" if row.limit else ""
            print(f"| {shape:<22} | {backend:<9} | {row.n:>6} | {f[0][0]:6.3f} | {f[1][0]:6.3f} | {f[2][0]:6.3f} "
                  f"| {row.time_growth():11.2f} | {f[1][1]:>7} | {f[2][1]:>7} | {row.memory_growth():13.2f} "
                  f"| {note} |", flush=True)

    worst_time = max(rows, key=Row.time_growth)
    worst_memory = max(rows, key=Row.memory_growth)
    ok_time = worst_time.time_growth() <= TARGET_TIME_GROWTH
    ok_memory = worst_memory.memory_growth() <= TARGET_MEMORY_GROWTH
    print(f"target: time growth <= {TARGET_TIME_GROWTH} on every row: the largest "
          f"{worst_time.time_growth():.2f} ({worst_time.shape}, {worst_time.backend}): "
          f"{'met' if ok_time else 'NOT met'}")
    print(f"target: memory growth <= {TARGET_MEMORY_GROWTH} on every row: the largest "
          f"{worst_memory.memory_growth():.2f} ({worst_memory.shape}, {worst_memory.backend}): "
          f"{'met' if ok_memory else 'NOT met'}")


if __name__ == "__main__":
    main()
