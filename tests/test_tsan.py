"""ThreadSanitizer and the stackful backend. A libcoro compiled with
-fsanitize=thread runs each stackful body as a TSan fiber of its own
(runtime/stackful.c, "Tools"): TSan follows every switch, keeps each body's
calls apart from its resumer's, and orders what one side of a switch did
before what the other does after it. Built so, with gcc's TSan runtime and
with clang's (a different one) where clang is installed:

  * races planted on purpose are reported, naming the variable and the
    functions on both sides, and the coroutine's side as a coroutine's (a
    fiber named 'coroutine') with the coroutine's own stack, its body down
    to stackful_main and none of the scheduler's calls (tests/tsan/race_*.coc:
    a task against an offloaded call; tasks of two threads' schedulers);
  * 100,000 generators given up mid-way run clean (tests/tsan/abandoned.coc);
  * the examples and the task programs (tests/tasks, tests/offload), built
    stackful, run clean: no report, and they print what they should (gcc).
    The suite takes every program that starts a thread and every third of
    the others; tests/run --full all of them.

Without the fibers each of these fails: the races are reported as the main
thread's, with stacks of calls that never happened, and abandoned.coc
overflows the thread's shadow stack (gcc's runtime faults, clang's hangs).

TSan puts its shadow memory at fixed addresses, which a kernel randomising
mmap with more bits (vm.mmap_rnd_bits above 28 or so) may have given to the
program: TSan then stops at once ("FATAL: ThreadSanitizer: unexpected memory
mapping"). Each compiler's TSan runs a tiny program first; if that stops, the
programs here run under `setarch -R` (no randomisation) and a warning says
so; if that fails too, the tests fail with the reason and the fix, and are
not skipped. About 40 s in all on two cores, most of it compiling."""
import concurrent.futures
import os
import platform
import re
import select
import shutil
import signal
import subprocess
import warnings

import pytest

from conftest import (COROC, COROC_INCLUDE, SOURCE_DIR, TESTS_DIR, WARNINGS, build_runtime_archive, case_args,
                      every_nth, run)

TSAN_DIR = TESTS_DIR / "tsan"
EXAMPLES = SOURCE_DIR / "examples"
SWITCH = {"x86_64": "switch_x86_64.S", "aarch64": "switch_aarch64.S"}.get(platform.machine())
TSAN = ["-O1", "-g", "-fsanitize=thread"]
# Each run's own options, not the caller's: a report makes the status 66, and the exit does
# not wait a second, as it would for races at exit while threads or fibers live (a stack kept
# for the next instance keeps its fiber).
TSAN_ENV = dict(os.environ, TSAN_OPTIONS="exitcode=66 atexit_sleep_ms=0")
REPORTED = 66
RUN_TIMEOUT = 60

pytestmark = pytest.mark.skipif(SWITCH is None, reason=f"no assembly switch for {platform.machine()}")


def tsan_run(cmd, launcher, timeout=RUN_TIMEOUT):
    proc = subprocess.run([str(c) for c in [*launcher, *cmd]], capture_output=True, text=True,
                          timeout=timeout, env=TSAN_ENV)
    return proc


# {==================================================================
# Each compiler's TSan: its libcoro, and how to run its programs here
# ===================================================================

PROBE = """#include <pthread.h>
static void *run(void *arg) { return arg; }
int main(void) { pthread_t t; pthread_create(&t, 0, run, 0); return pthread_join(t, 0); }
"""


def launcher(cc, tmp):
    """[] when cc's TSan programs run here as they are; setarch's -R prefix when they need
    the address space not randomised; else the test fails, saying why."""
    src, exe = tmp / "probe.c", tmp / "probe"
    src.write_text(PROBE)
    res = run([cc, *TSAN, "-pthread", "-o", exe, src], timeout=120)
    if res.returncode != 0:
        pytest.fail(f"{cc} cannot build a ThreadSanitizer program (is its TSan runtime installed? "
                    f"Debian: libtsan2 for gcc 12):\n{res.stderr}")
    res = tsan_run([exe], [])
    if res.returncode == 0 and not res.stderr:
        return []
    setarch = ["setarch", platform.machine(), "-R"]
    again = tsan_run([exe], setarch) if shutil.which("setarch") else None
    if again is not None and again.returncode == 0 and not again.stderr:
        warnings.warn(f"{cc}'s ThreadSanitizer stops here unless the address space is not randomised "
                      f"(vm.mmap_rnd_bits is {rnd_bits()}): its programs run under `setarch -R`\n{res.stderr}")
        return setarch
    pytest.fail(f"{cc}'s ThreadSanitizer cannot run a program here, as it is or under `setarch -R` "
                f"(vm.mmap_rnd_bits is {rnd_bits()}; `sysctl vm.mmap_rnd_bits=28` lets it):\n{res.stderr}"
                + (f"\nunder setarch -R:\n{again.stderr}" if again is not None else ""))


def rnd_bits():
    try:
        with open("/proc/sys/vm/mmap_rnd_bits", encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return "unknown"


class Tsan:
    """A compiler's TSan: libcoro built with it, and the launcher of its programs."""

    def __init__(self, cc, tmp):
        self.cc = cc
        self.launcher = launcher(cc, tmp)
        self.lib = build_runtime_archive(tmp, cc, "ar", TSAN, SWITCH)

    def build(self, name, sources, out_dir, args=()):
        """sources: (.coc, backend) pairs, transformed and linked into one program with
        libcoro (a .c of plain C, backend None, compiled as it is). Its path, or the failure's text."""
        c_files = []
        for src, backend in sources:
            if src.suffix == ".c":
                c_files.append(src)
                continue
            c_file = out_dir / f"{name}.{src.stem}.{backend}.c"
            res = run([COROC, f"--backend={backend}", f"-I{TESTS_DIR}", f"-I{src.parent}", *args, "-o", c_file,
                       src], timeout=60)
            if res.returncode != 0:
                return None, f"coroc failed on {src}:\n{res.stderr}"
            c_files.append(c_file)
        exe = out_dir / f"{name}.{self.cc}"
        res = run([self.cc, "-std=gnu11", *TSAN, *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}",
                   f"-I{sources[0][0].parent}", *args, "-o", exe, *c_files, self.lib, "-pthread", "-lm"],
                  timeout=180)
        if res.returncode != 0:
            return None, f"{self.cc} failed on {name}:\n{res.stderr}"
        return exe, ""

    def run(self, exe, args=(), timeout=RUN_TIMEOUT):
        return tsan_run([exe, *args], self.launcher, timeout)


@pytest.fixture(scope="session")
def tsan_gcc(tmp_path_factory):
    return Tsan("gcc", tmp_path_factory.mktemp("tsan_gcc"))


@pytest.fixture(scope="session")
def tsan_clang(tmp_path_factory):
    if shutil.which("clang") is None:
        pytest.skip("clang is not installed: its ThreadSanitizer runtime is not tried")
    return Tsan("clang", tmp_path_factory.mktemp("tsan_clang"))


@pytest.fixture(params=["gcc", "clang"])
def tsan(request):
    return request.getfixturevalue(f"tsan_{request.param}")

# }==================================================================


# {==================================================================
# Planted races: reported, with each coroutine's own stack
# ===================================================================

ACCESS_RE = re.compile(r"^  (?:Previous )?(?:[Ww]rite|[Rr]ead|[Aa]tomic \w+) of size \d+ at \S+ by (.+?)"
                       r"(?: \(mutexes:.*\))?:$")
FRAME_RE = re.compile(r"^    #\d+ (\S+)")
# The calls that lead to a body when stacks are not told apart: none is on a fiber's stack.
SCHEDULER = {"main", "thread_main", "coro_run", "run_task", "run_chain", "stackful_resume"}


def first_report_accesses(stderr):
    """The two accesses of TSan's first data race report: (by whom, [functions, innermost first])."""
    report = stderr.split("WARNING: ThreadSanitizer: data race", 1)[1].split("SUMMARY:", 1)[0]
    accesses, current = [], None
    for line in report.splitlines():
        m = ACCESS_RE.match(line)
        if m:
            current = (m.group(1), [])
            accesses.append(current)
        elif current is not None and FRAME_RE.match(line):
            current[1].append(FRAME_RE.match(line).group(1))
        elif not line.strip():
            current = None
    return accesses


def assert_coroutine_access(by, frames, body, stderr):
    """An access made in a stackful body: by a thread that is a coroutine's fiber, with the body's
    calls down to stackful_main, where the fiber starts, and nothing of whoever resumed it."""
    assert by.startswith("thread T"), f"{body}'s access is by {by}, not by a coroutine's fiber:\n{stderr}"
    tid = by.split()[1]
    assert re.search(rf"^  Thread {tid} 'coroutine' ", stderr, re.M), \
        f"{tid}, which made {body}'s access, is not a fiber named 'coroutine':\n{stderr}"
    assert "stackful_main" in frames, f"{body}'s stack does not reach stackful_main: {frames}\n{stderr}"
    stray = SCHEDULER.intersection(frames)
    assert not stray, f"{body}'s stack holds calls of its resumer's, {sorted(stray)}: {frames}\n{stderr}"
    below = frames[frames.index("stackful_main") + 1:]
    assert set(below) <= {"coro_ctx_trampoline"}, \
        f"{body}'s stack goes on below stackful_main, where its fiber starts: {frames}\n{stderr}"


RACES = {
    # program: (what it prints, the variable, {function: on a coroutine's stack})
    "race_offload": ("run 0, hits 2\n", "hits", {"bump": False, "tally": True}),
    "race_threads": ("run 0, total 3\n", "total", {"add": True}),
}


@pytest.mark.parametrize("program", sorted(RACES))
def test_planted_race_is_reported(tsan, program, tmp_path):
    printed, variable, functions = RACES[program]
    exe, error = tsan.build(program, [(TSAN_DIR / f"{program}.coc", "stackful")], tmp_path)
    assert exe, error
    res = tsan.run(exe)
    assert res.returncode == REPORTED, f"{program} exited {res.returncode}:\n{res.stdout}{res.stderr}"
    assert res.stdout == printed
    assert "WARNING: ThreadSanitizer: data race" in res.stderr, res.stderr
    assert f"Location is global '{variable}'" in res.stderr, res.stderr
    accesses = first_report_accesses(res.stderr)
    assert len(accesses) == 2, res.stderr
    for function, in_coroutine in functions.items():
        sides = [(by, frames) for by, frames in accesses if frames and frames[0] == function]
        assert sides, f"no access of the report is made in {function}:\n{res.stderr}"
        if in_coroutine:
            for by, frames in sides:
                assert_coroutine_access(by, frames, function, res.stderr)


def test_abandoned_generators_run_clean(tsan_clang, tmp_path):
    """100,000 generators freed unfinished, their bodies' calls never left (abandoned.coc). With
    clang's runtime, which makes a fiber in some 25 us (gcc's takes nearly a millisecond, and
    every unfinished body needs a new one: 100 s)."""
    exe, error = tsan_clang.build("abandoned", [(TSAN_DIR / "abandoned.coc", "stackful")], tmp_path)
    assert exe, error
    res = tsan_clang.run(exe)
    assert res.returncode == 0 and not res.stderr, f"exited {res.returncode}:\n{res.stdout}{res.stderr}"
    assert res.stdout == "sum 3015\n"

# }==================================================================


# {==================================================================
# No false reports: the examples and the task programs, built stackful
# ===================================================================

ALL_TASKS = sorted((TESTS_DIR / "tasks").glob("*.coc")) + sorted((TESTS_DIR / "offload").glob("*.coc"))
# A program of one thread can have no race; under TSan it checks the fibers,
# which every stackful program switches thousands of times. So the suite runs
# every program that starts a thread (an offloaded call, a thread of its own)
# and every third of the others; tests/run --full runs them all.
STARTS_A_THREAD = re.compile(r"\b(coro_offload|pthread_create)\b")
THREADED = [c for c in ALL_TASKS if STARTS_A_THREAD.search(c.read_text())]
TASKS = sorted(THREADED + every_nth([c for c in ALL_TASKS if c not in THREADED], 3))
EXAMPLE_BUILDS = {
    "generator": [(EXAMPLES / "generator.coc", "stackful")],
    "fizzbuzz": [(EXAMPLES / "fizzbuzz.coc", "stackful")],
    "pipeline": [(EXAMPLES / "pipeline.coc", "stackful"), (EXAMPLES / "pipeline_stage.coc", "stackless")],
    "echo": [(EXAMPLES / "echo.coc", "stackful")],
}


@pytest.fixture(scope="session")
def clean_builds(tsan_gcc, tmp_path_factory):
    """Every program of this part, built with gcc's TSan, as many at once as there are processors:
    name -> (executable or None, the failure's text)."""
    out = tmp_path_factory.mktemp("tsan_clean")
    jobs = {f"tasks/{c.parent.name}/{c.stem}": ([(c, "stackful")], case_args(c)) for c in TASKS}
    jobs.update({f"examples/{name}": (sources, []) for name, sources in EXAMPLE_BUILDS.items()})
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {name: pool.submit(tsan_gcc.build, name.replace("/", "_"), sources, out, args)
                   for name, (sources, args) in jobs.items()}
        return {name: f.result() for name, f in futures.items()}


def assert_clean(res, what):
    assert "ThreadSanitizer" not in res.stderr, f"{what}:\n{res.stderr}"
    assert res.returncode == 0, f"{what} exited {res.returncode}:\n{res.stdout}{res.stderr}"


OFFLOAD_PRINTS = {"stress": "run 0, total %d\n" % (8 * 12500 * 12499), "cancel": "run 0, bad 0\n"}


@pytest.mark.parametrize("case", TASKS, ids=[f"{c.parent.name}/{c.name}" for c in TASKS])
def test_task_runs_clean(tsan_gcc, clean_builds, case):
    exe, error = clean_builds[f"tasks/{case.parent.name}/{case.stem}"]
    assert exe, error
    res = tsan_gcc.run(exe)
    assert_clean(res, case.name)
    if case.parent.name == "offload":
        assert res.stdout == OFFLOAD_PRINTS[case.stem]
    else:
        assert res.stdout.splitlines()[-1] == "OK", res.stdout


@pytest.mark.parametrize("name", ["generator", "fizzbuzz", "pipeline"])
def test_example_runs_clean(tsan_gcc, clean_builds, name):
    exe, error = clean_builds[f"examples/{name}"]
    assert exe, error
    res = tsan_gcc.run(exe)
    assert_clean(res, name)
    assert res.stdout == (EXAMPLES / f"{name}.expected").read_text()


def test_echo_self_test_runs_clean(tsan_gcc, clean_builds):
    """Server and client tasks on one scheduler, the server's on the shared stack."""
    exe, error = clean_builds["examples/echo"]
    assert exe, error
    res = tsan_gcc.run(exe, ["--self-test", "200", "64", "5"])
    assert_clean(res, "echo --self-test")
    assert "verified 1000 messages" in res.stdout, res.stdout


def test_echo_threads_run_clean(tsan_gcc, clean_builds, tmp_path):
    """A server of two threads, a scheduler each, and a client of two threads, 200 connections
    verified; SIGTERM stops the server's threads (its first tells the other), status 0."""
    exe, error = clean_builds["examples/echo"]
    assert exe, error
    err = tmp_path / "server.stderr"
    with open(err, "w") as err_file:
        server = subprocess.Popen([*tsan_gcc.launcher, exe, "--threads", "2", "--port", "0"],
                                  stdout=subprocess.PIPE, stderr=err_file, text=True, env=TSAN_ENV)
        try:
            ready, _, _ = select.select([server.stdout], [], [], RUN_TIMEOUT)
            line = server.stdout.readline() if ready else ""
            m = re.search(r":(\d+)\s*$", line)
            assert m, f"the server's first line names no port: {line!r}\n{err.read_text()}"
            client = tsan_gcc.run(exe, ["--client", "--port", m.group(1), "--connections", "200",
                                        "--rounds", "5", "--threads", "2"])
            assert_clean(client, "echo --client --threads 2")
            assert "verified 1000 messages" in client.stdout, client.stdout
            server.send_signal(signal.SIGTERM)
            assert server.wait(timeout=30) == 0, err.read_text()
        finally:
            if server.poll() is None:
                server.kill()
                server.wait(timeout=10)
            server.stdout.close()
    assert "ThreadSanitizer" not in err.read_text(), err.read_text()

# }==================================================================
