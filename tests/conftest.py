"""Fixtures shared by the whole suite.

The paths of what the build made come from the environment (ctest sets them,
see tests/CMakeLists.txt); run by hand, pytest falls back to ./build.

    coroc        the coroc executable
    toolchain    transform -> compile -> run helpers, for either backend
"""
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("COROC_SOURCE_DIR", pathlib.Path(__file__).resolve().parent.parent))
BUILD_DIR = pathlib.Path(os.environ.get("COROC_BUILD_DIR", SOURCE_DIR / "build"))
COROC = pathlib.Path(os.environ.get("COROC", BUILD_DIR / "transformer" / "coroc"))
COROC_LIB = pathlib.Path(os.environ.get("COROC_LIB", BUILD_DIR / "runtime" / "libcoro.a"))
COROC_INCLUDE = pathlib.Path(os.environ.get("COROC_INCLUDE", SOURCE_DIR / "runtime" / "include"))
TESTS_DIR = SOURCE_DIR / "tests"

# Generated C must compile warning-free with both compilers.
WARNINGS = ["-Wall", "-Wextra", "-Werror"]
COMPILERS = ["gcc", "clang"]
BACKENDS = ["stackless", "stackful"]


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
        res = self.coroc(f"--backend={backend}", "-o", out, *extra, src)
        assert res.returncode == 0, f"coroc failed on {src}:\n{res.stderr}"
        return out

    def compile(self, c_file, cc="gcc", extra=(), exe=None):
        """Compile generated C warning-free and link it with libcoro."""
        c_file = pathlib.Path(c_file)
        exe = exe or self.tmp / (c_file.stem + "." + cc)
        res = run([cc, "-std=gnu11", *WARNINGS, "-g", f"-I{COROC_INCLUDE}", f"-I{c_file.parent}",
                   *extra, "-o", exe, c_file, COROC_LIB], timeout=120)
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
