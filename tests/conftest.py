"""Fixtures shared by the whole suite.

The paths of what the build made come from the environment (ctest sets them,
see tests/CMakeLists.txt); run by hand, pytest falls back to ./build.

    coroc        the coroc executable
    toolchain    transform -> compile -> run helpers, for either backend
"""
import atexit
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import tempfile

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("COROC_SOURCE_DIR", pathlib.Path(__file__).resolve().parent.parent))
BUILD_DIR = pathlib.Path(os.environ.get("COROC_BUILD_DIR", SOURCE_DIR / "build"))
COROC = pathlib.Path(os.environ.get("COROC", BUILD_DIR / "transformer" / "coroc"))
COROC_LIB = pathlib.Path(os.environ.get("COROC_LIB", BUILD_DIR / "runtime" / "libcoro.a"))
COROC_INCLUDE = pathlib.Path(os.environ.get("COROC_INCLUDE", SOURCE_DIR / "runtime" / "include"))
TESTS_DIR = SOURCE_DIR / "tests"

# Generated C must compile warning-free with both compilers.
WARNINGS = ["-Wall", "-Wextra", "-Werror"]

# A libcoro built with -DCOROC_SANITIZE=LIST (runtime/CMakeLists.txt) needs its programs
# built with the same sanitizer: Toolchain.compile adds it (tests/CMakeLists.txt says which
# tests a sanitized build runs).
SANITIZE = os.environ.get("COROC_SANITIZE", "")
SANITIZE_FLAGS = [f"-fsanitize={SANITIZE}", "-fno-omit-frame-pointer", "-pthread"] if SANITIZE else []

# What the programs the suite starts write to their temporary folder goes to one
# of the suite's own, removed when this process ends: clangd's preambles
# (preamble-*.pch, left behind by a clangd that a test kills) and chromium's
# process singleton (org.chromium.Chromium.*) were left in /tmp, a dozen files
# a run. Short, under the system's temporary folder: chromium puts a socket
# there, whose path must fit in 108 bytes, which the build folder's may not.
SUITE_TMP = tempfile.mkdtemp(prefix="coroc-tests-")
atexit.register(shutil.rmtree, SUITE_TMP, ignore_errors=True)
os.environ["TMPDIR"] = SUITE_TMP
tempfile.tempdir = None   # (Python's own choice, made above, is made again from it)

# Every coroc run of the suite prints its output twice and compares the two
# (main.c, render): a printer that changed the tree would differ the second time.
os.environ.setdefault("COROC_CHECK_EMIT", "1")
COMPILERS = ["gcc", "clang"]
BACKENDS = ["stackless", "stackful"]
# How the language and task programs are built: each backend, and the stackless
# one with every local in the frame (--hoist-all, the lowering without liveness).
MODES = BACKENDS + ["hoist-all"]
MODE_ARGS = {"hoist-all": ["--backend=stackless", "--hoist-all"]}

# tests/run --full (COROC_FULL=1): every matrix whole. The suite the CI runs
# (tests/run) must end within its 20 minutes, so where a matrix multiplies
# one check by a dimension that seldom changes its outcome, it runs a part of
# it that still takes every program through every check once; each file says
# which part, and --full runs the rest (HACKING.md, "The suite and --full").
FULL = os.environ.get("COROC_FULL") == "1"


def every_nth(items, n, first=0):
    """items, or with the suite's sample every nth of them (the first, the
    (n+1)th, ...: the same ones every run; from the one at index `first`,
    so that n calls with first = 0 .. n-1 share the items out); all of them
    with --full."""
    return list(items) if FULL else list(items)[first::n]


# The language and task programs (test_cases.py, test_tasks.py) are built
# and run with each compiler in each mode. The C of every mode goes through
# both compilers' warnings (-Wall -Wextra -Werror); the suite runs clang's
# builds in the default mode only (gcc's in all), and checks clang's
# warnings on the other modes' C with -fsyntax-only. --full runs them all.
RUN_MATRIX = [(cc, m) for cc in COMPILERS for m in MODES if FULL or cc == COMPILERS[0] or m == MODES[0]]
WARNINGS_ONLY = [(cc, m) for cc in COMPILERS for m in MODES if (cc, m) not in RUN_MATRIX]
# the compilers whose builds run in every mode: their outputs are compared across the modes
ALL_MODES_COMPILERS = [cc for cc in COMPILERS if all((cc, m) in RUN_MATRIX for m in MODES)]


def matrix_ids(pairs):
    """Test ids of (compiler, mode) pairs: gcc-stackless, ..."""
    return [f"{cc}-{m}" for cc, m in pairs]


# tests/run --quick: a first check in a couple of minutes (COROC_QUICK=1): these files only.
QUICK = {"test_cases.py", "test_errors.py", "test_cli.py", "test_golden.py", "test_headers.py"}


def pytest_ignore_collect(collection_path, config):
    name = collection_path.name
    if os.environ.get("COROC_QUICK") == "1" and name.startswith("test_") and name.endswith(".py"):
        return name not in QUICK
    return None


# The files that take longest go first. With pytest-xdist (tests/CMakeLists.txt
# runs the suite on every core, a file to a worker: --dist loadfile), files
# start in collection order, and the soak of tests/seeds (most of its time spent
# waiting on timers) and the oracle's sample would otherwise start last and end
# the run alone. Alone, the order changes nothing.
LONG_FIRST = ["test_seeds.py", "test_oracle.py", "test_reset.py", "test_bench.py", "test_scaling.py",
              "test_fuzz.py", "test_tsan.py"]


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # (stable: the rest as it was)


class Result:
    def __init__(self, proc):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr


def run(cmd, input=None, timeout=60, cwd=None):
    """Run cmd, capture text output; a hang is a test failure, not a stuck suite."""
    proc = subprocess.run([str(c) for c in cmd], input=input, capture_output=True,
                          text=True, timeout=timeout, cwd=cwd)
    return Result(proc)


class Toolchain:
    """coroc -> cc -> run, in a temporary directory."""

    def __init__(self, tmp_path):
        self.tmp = tmp_path

    def coroc(self, *args, input=None, timeout=30):
        return run([COROC, *args], input=input, timeout=timeout)

    def transform(self, src, backend="stackless", extra=()):
        """Transform src (a path) to C; fail the test on a diagnostic."""
        src = pathlib.Path(src)
        out = self.tmp / (src.stem + "." + backend + ".c")
        mode = MODE_ARGS.get(backend, [f"--backend={backend}"])
        res = self.coroc(*mode, "-o", out, *extra, src)
        assert res.returncode == 0, f"coroc failed on {src}:\n{res.stderr}"
        return out

    def compile(self, c_file, cc="gcc", extra=(), exe=None):
        """Compile generated C warning-free and link it with libcoro."""
        c_file = pathlib.Path(c_file)
        exe = exe or self.tmp / (c_file.stem + "." + cc)
        res = run([cc, "-std=gnu11", *WARNINGS, "-g", *SANITIZE_FLAGS, f"-I{COROC_INCLUDE}", f"-I{c_file.parent}",
                   *extra, "-o", exe, c_file, COROC_LIB, "-lm"], timeout=120)   # -lm: as coro.pc says
        assert res.returncode == 0, f"{cc} failed on {c_file}:\n{res.stderr}"
        return exe

    def build_and_run(self, src, backend="stackless", cc="gcc", extra_coroc=(), extra_cc=(),
                      args=(), input=None, timeout=60):
        src = pathlib.Path(src)
        c_file = self.transform(src, backend, extra=(f"-I{src.parent}", *extra_coroc))
        exe = self.compile(c_file, cc, extra=(f"-I{src.parent}", *extra_cc))
        return run([exe, *args], input=input, timeout=timeout)


@pytest.fixture(scope="session")
def coroc():
    assert COROC.exists(), f"coroc not built at {COROC}: build first (see README)"
    return COROC


@pytest.fixture
def toolchain(tmp_path, coroc):
    return Toolchain(tmp_path)


# {==================================================================
# Programs checked with check.h (tests/cases, tests/tasks, ...)
# ===================================================================

ARGS_RE = re.compile(r"^\s*//\s*coroc-args:(.*)$")


def case_args(case):
    """The ARGS of a first line `// coroc-args: ARGS` (shell words), or none:
    they go on both the coroc and the compiler command lines."""
    with open(case, encoding="utf-8") as f:
        first = f.readline()
    m = ARGS_RE.match(first)
    return shlex.split(m.group(1)) if m else []


def object_at_O2(cc, c_file, obj, warnings=WARNINGS):
    """c_file compiled by cc -O2 into obj (no link): for the tests that read the machine code."""
    res = run([cc, "-std=gnu11", "-O2", *warnings, f"-I{COROC_INCLUDE}", "-c", "-o", obj, c_file])
    assert res.returncode == 0, res.stderr
    return obj


def disassembled(obj, function):
    """objdump's lines of `function` in the object file obj."""
    res = run(["objdump", "-d", "--no-show-raw-insn", obj])
    assert res.returncode == 0, res.stderr
    return res.stdout.split(f"<{function}>:", 1)[1].split("\n\n", 1)[0]


def checked_includes(case):
    """What a check.h program gets on coroc's and the compiler's command lines."""
    return (f"-I{TESTS_DIR}", f"-I{case.parent}", *case_args(case))


def run_checked_program(toolchain, case, backend, cc, timeout=30, c_file=None):
    """Transform (unless c_file is its C already), build warning-free and run a
    program that checks itself with check.h: it must exit 0 within `timeout`
    and print OK last. Its stdout."""
    import pytest
    include = checked_includes(case)
    where = f"{case.name} ({backend}, {cc})"
    c_file = c_file or toolchain.transform(case, backend, extra=include)
    exe = toolchain.compile(c_file, cc, extra=include, exe=toolchain.tmp / f"{case.stem}.{backend}.{cc}")
    try:
        res = run([exe], timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        pytest.fail(f"{where} did not finish in {timeout} s\n--- stdout ---\n{out}")
    assert res.returncode == 0, (f"{where} exited {res.returncode}\n"
                                 f"--- stdout ---\n{res.stdout}--- stderr ---\n{res.stderr}")
    lines = res.stdout.splitlines()
    assert lines and lines[-1] == "OK", (f"{where}: stdout does not end with OK\n"
                                         f"--- stdout ---\n{res.stdout}--- stderr ---\n{res.stderr}")
    return res.stdout


def assert_backends_agree(outputs, where, backends=BACKENDS):
    """outputs: backend -> stdout of the same program; all must be equal."""
    first = backends[0]
    for backend in backends[1:]:
        assert outputs[backend] == outputs[first], (
            f"{where}: {backend} prints differently from {first}\n"
            f"--- {first} ---\n{outputs[first]}--- {backend} ---\n{outputs[backend]}")


class CheckedRuns:
    """The runs of a directory of check.h programs, each program's stdout kept
    by (case name, compiler, backend), so that the comparison of the backends
    reuses the runs of the tests before it; a missing one is run again. The C
    of a program in a mode is made once, for every compiler that takes it
    (a test's temporary files last as long as the run)."""

    def __init__(self, timeout=30):
        self.timeout = timeout
        self.outputs = {}
        self.c_files = {}

    def transform(self, toolchain, case, backend):
        c_file = self.c_files.get((case, backend))
        if c_file is None or not c_file.exists():
            c_file = toolchain.transform(case, backend, extra=checked_includes(case))
            self.c_files[(case, backend)] = c_file
        return c_file

    def run(self, toolchain, case, backend, cc):
        out = run_checked_program(toolchain, case, backend, cc, timeout=self.timeout,
                                  c_file=self.transform(toolchain, case, backend))
        self.outputs[(case.name, cc, backend)] = out
        return out

    def check_warnings(self, toolchain, case, backend, cc):
        """The program's C in this mode passes cc's warnings (-fsyntax-only: no build, no run)."""
        c_file = self.transform(toolchain, case, backend)
        res = run([cc, "-std=gnu11", *WARNINGS, "-fsyntax-only", *SANITIZE_FLAGS, f"-I{COROC_INCLUDE}",
                   f"-I{c_file.parent}", *checked_includes(case), c_file], timeout=120)
        assert res.returncode == 0, \
            f"{cc} -fsyntax-only {' '.join(WARNINGS)} failed on {case.name} ({backend}):\n{res.stderr}"

    def assert_backends_agree(self, toolchain, case, cc):
        outputs = {b: self.outputs.get((case.name, cc, b)) or self.run(toolchain, case, b, cc)
                   for b in MODES}
        assert_backends_agree(outputs, f"{case.name} ({cc})", MODES)


def build_runtime_archive(out_dir, cc, ar, flags, switch_asm):
    """libcoro compiled from its sources with cc and flags (a cross compiler,
    a sanitizer) into out_dir/libcoro.a, with the given assembly switch."""
    runtime = SOURCE_DIR / "runtime"
    objs = []
    for src in sorted(runtime.glob("*.c")) + [runtime / "asm" / switch_asm]:
        obj = out_dir / (src.name + ".o")
        res = run([cc, "-std=gnu11", *flags, *WARNINGS, f"-I{runtime / 'include'}", f"-iquote{runtime}",
                   "-c", "-o", obj, src], timeout=120)
        assert res.returncode == 0, res.stderr
        objs.append(obj)
    lib = out_dir / "libcoro.a"
    res = run([ar, "rcs", lib, *objs])
    assert res.returncode == 0, res.stderr
    return lib


def shared_runtime_archive(tmp_path_factory, cc, ar, flags, switch_asm):
    """build_runtime_archive's libcoro, made once for the whole run: test files
    that ask for the same compiler, flags and switch (four build the
    AddressSanitizer one) share it, from any xdist worker. It lives in the
    run's own temporary folder (the workers' common parent under xdist), which
    each run starts empty, so a change to the runtime's sources is never missed."""
    import fcntl
    import hashlib
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    key = hashlib.sha256(repr((cc, ar, list(flags), switch_asm)).encode()).hexdigest()[:16]
    out_dir = base / "runtime-archives" / key
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lib = out_dir / "libcoro.a"
        if not lib.exists():
            build_runtime_archive(out_dir, cc, ar, flags, switch_asm)
    return lib


# The transformer built with AddressSanitizer and UBSan (any report fatal),
# once for the whole run, in BUILD/sanitized: test_reset.py's coroc_repeat and
# test_scaling.py's coroc share it (two builds of their own took about 50 s of
# the suite's CPU). -O1: the sanitized runs are most of those files' time.
# Kept between runs (a rebuild is incremental); a lock, because the two files
# may ask at once from two workers.
SANITIZED_BUILD = BUILD_DIR / "sanitized"
SANITIZED_FLAGS = "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"


def sanitized_transformer_target(target):
    """Build `target` of the transformer in SANITIZED_BUILD; its build folder."""
    import fcntl
    SANITIZED_BUILD.mkdir(parents=True, exist_ok=True)
    with open(SANITIZED_BUILD / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (SANITIZED_BUILD / "CMakeCache.txt").exists():
            res = run(["cmake", "-S", SOURCE_DIR, "-B", SANITIZED_BUILD,
                       "-DCMAKE_BUILD_TYPE=Debug", f"-DCMAKE_C_FLAGS={SANITIZED_FLAGS}",
                       "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"], timeout=300)
            assert res.returncode == 0, f"configuring {SANITIZED_BUILD}:\n{res.stdout}{res.stderr}"
        res = run(["cmake", "--build", SANITIZED_BUILD, "--target", target, "-j", str(os.cpu_count() or 2)],
                  timeout=900)
        assert res.returncode == 0, f"building {target} in {SANITIZED_BUILD}:\n{res.stdout}{res.stderr}"
    return SANITIZED_BUILD
