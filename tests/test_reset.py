"""The transformer run again and again in one process (transformer/reset.c).

A language server runs coroc's pipeline in-process on every keystroke: each
run must give what a fresh `coroc` process gives, whatever ran before it, and
give back all it took. tests/reset/repeat.c (coroc_repeat) links the
transformer's library (coroc_pipeline) and runs every case ROUNDS times,
interleaved (each round in an order of its own), through coroc_try and
coroc_reset, checking each run's exit status, standard output and standard
error byte for byte against a fresh `coroc` process's on the same input and
options, and after each run, from the second round on, that the heap in use,
the open descriptors and the child processes are back to what the first round
left. It is built here with AddressSanitizer (and LeakSanitizer) and UBSan, in
BUILD/sanitized: a use of memory a run gave back, or a leak, fails it too.

The cases: every .coc of examples/ (and examples/*/), tests/cases/,
tests/errors/ (each ends in an error), the tutorial, tests/reset/ (inputs the
preprocessor fails on: its report must close what it opened), the fuzz regressions and
every fourth input of the fuzz corpus (most end in errors: they are
preprocessed text, fuzzed); each with the default options and with one other
mode in turn (stackful, --dot, --no-line, --hoist-all, stackful --no-line).
The suite takes one of the two for each input, the default for every other
one (tests/run --full: both).

Before this test's change, a run left behind what it took: coroc built with
AddressSanitizer leaked 42,060 bytes in 588 allocations on the echo
example's client and 85,463 bytes in 801 allocations on its server (then
files of their own; LeakSanitizer at the exit), and the fuzz harness
found a use after free of cleanup.c's plan kept from one run to the next.
Without coroc_reset (coroc_repeat --no-reset, run below) the heap still
grows with every run; with it, nothing is left: no leak report, and the heap
after each run is no larger than after the first round.
"""
import os
import re
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, COROC, FULL, SOURCE_DIR, TESTS_DIR, sanitized_transformer_target

ROUNDS = 2  # (the second checks every run against the first: a third took 30 s of CI more)
OTHER_MODES = [["--backend=stackful"], ["--dot"], ["--no-line"], ["--hoist-all"],
               ["--backend=stackful", "--no-line"]]
REPORTS = ["ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"]


def inputs():
    found = []
    for pattern in ["examples/*.coc", "examples/*/*.coc", "tests/cases/*.coc", "tests/errors/*.coc",
                    "tutorial/**/*.coc", "tests/fuzz/regressions/*", "tests/reset/*.coc"]:
        found += sorted(p for p in SOURCE_DIR.glob(pattern) if p.is_file())
    corpus = sorted(p for p in (TESTS_DIR / "fuzz" / "corpus").glob("*") if p.is_file())
    found += corpus[::4]
    return [p.relative_to(SOURCE_DIR) for p in found]


@pytest.fixture(scope="module")
def coroc_repeat():
    """coroc_repeat, built with AddressSanitizer and UBSan (conftest.py's sanitized build)."""
    return sanitized_transformer_target("coroc_repeat") / "tests" / "reset" / "coroc_repeat"


def modes_of(i):
    """The options input i runs with: the default and one other mode in turn; in the
    suite's sample one of the two, the default for every other input (--full: both)."""
    if FULL:
        return [[], OTHER_MODES[i % len(OTHER_MODES)]]
    return [[]] if i % 2 == 0 else [OTHER_MODES[i // 2 % len(OTHER_MODES)]]


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    """Each case run by a fresh coroc, and the manifest that names what it gave."""
    tmp = tmp_path_factory.mktemp("reset")
    lines = []
    for i, src in enumerate(inputs()):
        for mode in modes_of(i):
            args = mode + ["-I", "tests"]
            res = subprocess.run([COROC, *args, src], cwd=SOURCE_DIR, capture_output=True, timeout=120)
            assert res.returncode in (0, 1), f"coroc {' '.join(args)} {src}: exit {res.returncode}"
            out, err = tmp / f"{len(lines)}.out", tmp / f"{len(lines)}.err"
            out.write_bytes(res.stdout)
            err.write_bytes(res.stderr)
            assert "\t" not in str(src) and "\n" not in str(src)
            lines.append("\t".join([str(res.returncode), str(out), str(err), *args, str(src)]))
    path = tmp / "manifest"
    path.write_text("\n".join(lines) + "\n")
    return path, lines


def run_repeat(exe, manifest_path, *flags):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
    return subprocess.run([exe, *flags, manifest_path], cwd=SOURCE_DIR, capture_output=True,
                          text=True, errors="replace", env=env, timeout=1800)


def test_every_run_is_a_fresh_process(coroc_repeat, manifest):
    path, lines = manifest
    errors = sum(1 for line in lines if line.startswith("1\t"))
    assert errors >= 40 and errors < len(lines), "the cases must mix runs that end in errors and not"
    res = run_repeat(coroc_repeat, path, "--rounds", str(ROUNDS))
    out = res.stdout + res.stderr
    found = [r for r in REPORTS if r in out]
    tail = "\n".join(out.splitlines()[-60:])
    assert res.returncode == 0 and not found, f"coroc_repeat: exit {res.returncode}, {found}\n{tail}"
    assert f"{ROUNDS} rounds of {len(lines)} cases, 0 failed" in res.stdout, tail


def test_every_run_is_a_fresh_process_in_the_plain_build(manifest):
    """The same, built as coroc is built (BUILD/tests/reset): without a
    sanitizer, a streaming run's regions take their blocks from an arena
    and the arenas keep their blocks from run to run (support/memory.c),
    where the sanitized build gives every block back to malloc for the
    sanitizer to watch. This runs the region arena's growing, freeing and
    copying out, and the kept blocks' reuse by the next run, against a
    fresh coroc's output; the heap check sees the kept blocks only if they
    grow past what the first round took. Every fourth case of the
    manifest (--full: all)."""
    path, lines = manifest
    if not FULL:
        lines = lines[::4]
        path = path.parent / "manifest-quarter"
        path.write_text("\n".join(lines) + "\n")
    res = run_repeat(BUILD_DIR / "tests" / "reset" / "coroc_repeat", path, "--rounds", str(ROUNDS))
    tail = "\n".join((res.stdout + res.stderr).splitlines()[-60:])
    assert res.returncode == 0, f"coroc_repeat: exit {res.returncode}\n{tail}"
    assert f"{ROUNDS} rounds of {len(lines)} cases, 0 failed" in res.stdout, tail


def test_the_heap_check_sees_what_a_run_keeps(coroc_repeat, manifest):
    """What the check above sees when a run's blocks are not given back:
    coroc_repeat --keep-heap does all coroc_reset does but memory_release.
    The outputs still match, but the heap grows with every run, and the
    check fails on it (the blocks stay listed, reachable, so LeakSanitizer
    alone would not see them: repeat.c counts the heap)."""
    path, lines = manifest
    small = path.parent / "manifest-small"
    small.write_text("\n".join(lines[:20]) + "\n")
    res = run_repeat(coroc_repeat, small, "--rounds", "2", "--keep-heap")
    m = re.search(r"(\d+) failed; .*\(([+-]\d+) per run after the first round\)", res.stdout)
    assert res.returncode == 1 and m, res.stdout + res.stderr
    assert int(m.group(1)) > 0 and int(m.group(2)) > 1000, res.stdout
    problems = [line for line in res.stderr.splitlines() if line.startswith("coroc_repeat:")]
    assert problems and all("more heap in use" in line for line in problems), res.stderr


def test_a_fresh_coroc_leaks_nothing_whatever_it_writes(tmp_path):
    """The command around the pipeline (transformer/main.c), in a process of its own: coroc
    built with AddressSanitizer, LeakSanitizer on. A run that writes standard output, a new -o
    file, an existing one, one through a symlink (whose target realpath gives), a depfile and a
    header, or ends in an error, leaves no block behind. Before the fix, -o over an existing
    file leaked realpath's name. (Here, not in test_cli.py, which tests/run --quick runs: the
    sanitized build is this file's.)"""
    asan_coroc = sanitized_transformer_target("coroc") / "transformer" / "coroc"
    (tmp_path / "gen.coc").write_text("coroutine int gen(int n) { for (int i = 0; i < n; i++) yield i; }\n")
    (tmp_path / "old.c").write_text("old\n")
    (tmp_path / "link.c").symlink_to(tmp_path / "old.c")
    (tmp_path / "bad.coc").write_text("coroutine int f(void) { yield 1 }\n")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
    for args, status in [(["gen.coc"], 0), (["-o", "new.c", "gen.coc"], 0), (["-o", "old.c", "gen.coc"], 0),
                         (["-o", "link.c", "gen.coc"], 0),
                         (["-MD", "-o", "dep.c", "--header=dep.h", "gen.coc"], 0),
                         (["-o", "bad.c", "bad.coc"], 1)]:
        res = subprocess.run([asan_coroc, *args], cwd=tmp_path, capture_output=True, text=True,
                             env=env, timeout=60)
        assert res.returncode == status and "Sanitizer" not in res.stderr, f"coroc {args}:\n{res.stderr}"
