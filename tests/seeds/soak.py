#!/usr/bin/python3
"""The project's own programs under many schedules, with faults on.

Every task program (tests/tasks/*.coc) and every example (examples/) is built
with both backends against a libcoro compiled with AddressSanitizer, run once
under the default schedule (no seed, no faults: it must also print "OK" last,
or its text), and run by coro-seeds (runtime/tools/coro-seeds) under K seeds
with CORO_SCHED_FAULTS set: each run must exit 0 (a task program's ASSERTs,
the sanitizer's reports and an example's own checks all end in a status), and
an example that prints a fixed text must print it. The first failing seed of each program is
reported with the line that replays it.

A program whose subject is an exact behaviour that a kind of fault changes
legally (who of two readers of one descriptor gets the data, when "would
block" moves one back) says so in a line of its own, with the reason:

    /* coro-seeds: faults+=eagain=0 (why) */

and runs with that added to the faults of the run ("all,eagain=0": all
but eagain).

    tests/seeds/soak.py [--seeds K] [--first S] [--faults SPEC] [--jobs J]
                        [--only NAME,...] [--no-asan] [--workdir DIR]

The test suite runs 5 seeds (tests/test_seeds.py; tests/run --full 10); `cmake --build build
--target seeds` runs 200, `--target seeds-soak` 2,000 from seed 1000. See
docs/testing.md.
"""
import argparse
import collections
import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "bench" / "common"))
from benchlib import processor  # noqa: E402
from conftest import (COROC, COROC_INCLUDE, COROC_LIB, SOURCE_DIR, TESTS_DIR,  # noqa: E402
                      build_runtime_archive, case_args)

RUNNER = SOURCE_DIR / "runtime" / "tools" / "coro-seeds"
EXAMPLES = SOURCE_DIR / "examples"
ASAN = ["-fsanitize=address", "-fno-omit-frame-pointer", "-O1"]
BACKENDS = ["stackless", "stackful"]

# The examples: (name, its sources with the backend each takes (None: the
# program's; a .c is plain C, compiled as it is), the arguments it runs with,
# the text it must print or None).
# echo checks itself; a smaller self-test than the demo's, and fizzbuzz's
# faster timer, keep a run short.
EXAMPLE_PROGRAMS = [
    ("generator", [("generator.coc", None)], [], "generator.expected"),
    ("fizzbuzz", [("fizzbuzz.coc", None)], ["1"], "fizzbuzz.expected"),  # a tick a millisecond
    ("pipeline", [("pipeline.coc", None), ("pipeline_stage.coc", "other")], [], "pipeline.expected"),
    ("echo", [("echo.coc", None)], ["--self-test", "20", "16", "3"], None),
]


OVERRIDE_RE = re.compile(r"coro-seeds: faults\+=([\w,=]+)")


def fault_override(source):
    """The faults+= of a program's source (its exceptions), or ""."""
    m = OVERRIDE_RE.search(pathlib.Path(source).read_text(encoding="utf-8"))
    return m.group(1) if m else ""


class Program:
    def __init__(self, name, backend, sources, args=(), expected=None, include=()):
        self.name, self.backend, self.sources = name, backend, sources
        self.args, self.expected, self.include = list(args), expected, list(include)

    @property
    def label(self):
        return f"{self.name}.{self.backend}"


def programs(only):
    out = []
    for case in sorted((TESTS_DIR / "tasks").glob("*.coc")):
        for b in BACKENDS:
            out.append(Program(f"tasks/{case.stem}", b, [(case, b)], include=[TESTS_DIR, case.parent]))
    for name, sources, args, expected in EXAMPLE_PROGRAMS:
        for b in BACKENDS:
            other = [x for x in BACKENDS if x != b][0]
            srcs = [(EXAMPLES / f, other if which == "other" else b) for f, which in sources]
            out.append(Program(f"examples/{name}", b, srcs, args,
                               EXAMPLES / expected if expected else None))
    if only:
        names = set(only.split(","))
        out = [p for p in out if p.name in names or p.name.split("/")[-1] in names]
    return out


def build(prog, lib, flags, workdir):
    """coroc each source with its backend, then the compiler: the executable."""
    outdir = workdir / prog.label.replace("/", "_")
    outdir.mkdir(parents=True, exist_ok=True)
    c_files = []
    for src, backend in prog.sources:
        if src.suffix == ".c":
            c_files.append(src)
            continue
        args = case_args(src)
        c_file = outdir / (src.stem + ".c")
        inc = [f"-I{d}" for d in prog.include]
        res = subprocess.run([COROC, f"--backend={backend}", *inc, *args, src, "-o", c_file],
                             capture_output=True, text=True)
        if res.returncode != 0:
            return None, f"coroc failed: {res.stderr}"
        c_files.append(c_file)
    exe = outdir / "prog"
    # (the headers beside a source, as coroc found them: the C is elsewhere)
    inc = [f"-I{d}" for d in prog.include] + [f"-I{d}" for d in dict.fromkeys(s.parent for s, _ in prog.sources)]
    extra = [a for src, _ in prog.sources for a in case_args(src)]
    res = subprocess.run(["gcc", "-std=gnu11", "-g", *flags, "-w", f"-I{COROC_INCLUDE}", *inc, *extra,
                          "-o", exe, *c_files, lib, "-pthread", "-lm"], capture_output=True, text=True)
    if res.returncode != 0:
        return None, f"the compiler failed: {res.stderr}"
    return exe, None


def unseeded(prog, exe, opts):
    """One run under the default schedule, no seed and no faults (what a user's
    run is, and what tests/test_sanitizers.py once ran apart): it must exit 0,
    and print its text, or (a task program) "OK" last. (passed, what it printed)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CORO_SCHED_SEED", "CORO_SCHED_FAULTS")}
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    try:
        res = subprocess.run([str(exe), *prog.args], capture_output=True, text=True, env=env,
                             stdin=subprocess.DEVNULL, timeout=opts.timeout)
    except subprocess.TimeoutExpired:
        return False, f"the run with no seed took more than {opts.timeout} s"
    printed = (res.stderr + res.stdout).strip()
    if res.returncode != 0:
        return False, f"the run with no seed exited {res.returncode}:\n{printed}"
    if prog.expected and res.stdout != prog.expected.read_text():
        return False, f"the run with no seed printed another text than {prog.expected.name}:\n{res.stdout}"
    if not prog.expected and prog.name.startswith("tasks/") and res.stdout.rstrip().splitlines()[-1:] != ["OK"]:
        return False, f"the run with no seed did not print OK last:\n{printed}"
    return True, printed


def soak(prog, exe, first, count, opts):
    """coro-seeds over the program, seeds first .. first+count-1: (passed, what it printed)."""
    cmd = [str(opts.runner), "-n", str(count), "-s", str(first), "-t", str(opts.timeout), "-q"]
    faults = opts.faults
    override = fault_override(prog.sources[0][0])
    if faults and override:
        faults += "," + override
    if faults:
        cmd += ["-f", faults]
    if prog.expected:
        cmd += ["--expect", str(prog.expected)]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
    res = subprocess.run([*cmd, "--", str(exe), *prog.args], capture_output=True, text=True, env=env)
    return res.returncode == 0, (res.stderr + res.stdout).strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--faults", default="all", help='CORO_SCHED_FAULTS ("" for none)')
    # Most runs wait on timers, not the CPU (futures.coc: 23 s of wall time for 25 seeds, a few
    # of CPU): 25 seeds of every program took 67 s with 4 jobs a core, 48 s with 8.
    ap.add_argument("--jobs", type=int, default=max(2, 8 * (os.cpu_count() or 1)),
                    help="programs run at once (many of them sleep: more than the cores)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds for one run")
    ap.add_argument("--chunk", type=int, default=25, help="seeds a job runs (a program's seeds are "
                    "split into jobs that run at once)")
    ap.add_argument("--only", default="", help="names of programs (tasks/NAME, examples/NAME, NAME)")
    ap.add_argument("--no-asan", action="store_true", help="build without AddressSanitizer")
    ap.add_argument("--workdir", type=pathlib.Path)
    opts = ap.parse_args()

    start = time.monotonic()
    progs = programs(opts.only)
    if not progs:
        sys.exit("soak.py: no program matches --only")
    tmp = None
    if opts.workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="coro-soak.")
        opts.workdir = pathlib.Path(tmp.name)
    opts.workdir.mkdir(parents=True, exist_ok=True)
    opts.runner = opts.workdir / "coro-seeds"  # a copy: a script edited while bash reads it breaks
    shutil.copy(RUNNER, opts.runner)
    if opts.no_asan:
        lib, flags = COROC_LIB, ["-O1"]
    else:
        libdir = opts.workdir / "libcoro-asan"
        libdir.mkdir(exist_ok=True)
        lib, flags = build_runtime_archive(libdir, "gcc", "ar", ["-g", *ASAN], "switch_x86_64.S"), ASAN
    print(f"soak.py: {len(progs)} programs (tasks and examples, {' and '.join(BACKENDS)}), "
          f"seeds {opts.first}..{opts.first + opts.seeds - 1}, faults: {opts.faults or 'none'}, "
          f"{'ASan' if not opts.no_asan else 'no sanitizer'}; coroc {COROC}; {processor()}",
          flush=True)

    failures = []
    cores = os.cpu_count() or 1
    with concurrent.futures.ThreadPoolExecutor(cores) as pool:
        built = list(pool.map(lambda p: build(p, lib, flags, opts.workdir), progs))
    for prog, (exe, err) in zip(progs, built):
        if exe is None:
            failures.append((prog, err))
            print(f"  FAIL  {prog.label}: {err}", flush=True)

    # Each program's seeds in chunks, so that a program whose runs are long
    # (it sleeps) runs beside the others instead of after them.
    chunk = max(1, min(opts.chunk, opts.seeds))
    # (first None: the run with no seed, with the first chunk's)
    jobs = [(prog, exe, first, 0 if first is None else min(chunk, opts.first + opts.seeds - first))
            for prog, (exe, _) in zip(progs, built) if exe is not None
            for first in [None, *range(opts.first, opts.first + opts.seeds, chunk)]]
    results = collections.defaultdict(list)  # label -> [(first, ok, text, secs)]

    def one(job):
        prog, exe, first, count = job
        began = time.monotonic()
        ok, text = unseeded(prog, exe, opts) if first is None else soak(prog, exe, first, count, opts)
        return prog, first, ok, text, time.monotonic() - began

    pending = collections.Counter(prog.label for prog, *_ in jobs)
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        for prog, first, ok, text, secs in pool.map(one, jobs):
            results[prog.label].append((first, ok, text, secs))
            pending[prog.label] -= 1
            if pending[prog.label]:
                continue
            runs = sorted(results[prog.label], key=lambda r: -1 if r[0] is None else r[0])
            bad = [r for r in runs if not r[1]]
            secs = sum(r[3] for r in runs)
            if not bad:
                print(f"  ok    {prog.label} ({secs:.1f} s)", flush=True)
            else:
                failures.append((prog, bad[0][2]))
                print(f"  FAIL  {prog.label}\n" + "\n".join("        " + l for l in bad[0][2].splitlines()),
                      flush=True)
    secs = time.monotonic() - start
    runs = len(progs) * (opts.seeds + 1)  # (and the run with no seed)
    print(f"soak.py: {len(progs) - len(failures)} of {len(progs)} programs passed "
          f"{opts.seeds} seeds each ({runs} runs at most) in {secs:.0f} s")
    if tmp:
        tmp.cleanup()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
