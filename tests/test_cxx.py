"""<coro.h> from C++ (docs/hosts.md, "From C++"): the header compiles as C++17 and C++20
with g++ and clang++ under -Wall -Wextra -Werror (and -Wpedantic); a C++ program
(tests/cxx/main.cpp) makes and runs coroutines of a .coc built as C with either backend:
generators, tasks under coro_run and coro_run_ready, instances in its own storage through
`coroc --header`; and an exception thrown through a coroutine body ends in std::terminate
in both backends, never in a catch above with the scheduler left half way."""
import pytest

from conftest import BACKENDS, COROC_INCLUDE, COROC_LIB, TESTS_DIR, WARNINGS, run

CXX = TESTS_DIR / "cxx"
COMPILERS = ["g++", "clang++"]
STANDARDS = ["c++17", "c++20"]


@pytest.mark.parametrize("std", STANDARDS)
@pytest.mark.parametrize("cxx", COMPILERS)
@pytest.mark.parametrize("header", ["coro.h", "coro/signal.h"])
def test_headers_compile_as_cxx(tmp_path, cxx, std, header):
    """Every public header, alone, in a C++ file: no C-only construct reaches it."""
    src = tmp_path / "t.cpp"
    src.write_text(f"#include <{header}>\n"
                   "static struct coro_sem sem = CORO_SEM_INIT(2);\n"
                   "int main() { coro_sem_release(&sem); return coro_done(nullptr) ? 1 : 0; }\n")
    res = run([cxx, f"-std={std}", *WARNINGS, "-Wpedantic", f"-I{COROC_INCLUDE}", "-fsyntax-only", src])
    assert res.returncode == 0, res.stderr


@pytest.fixture(scope="module", params=BACKENDS)
def coroutines(request, tmp_path_factory):
    """coroutines.coc through coroc --header, compiled as C (gcc, warning-free): the object
    and the directory of its header."""
    from conftest import COROC
    backend = request.param
    out = tmp_path_factory.mktemp(f"cxx-{backend}")
    res = run([COROC, f"--backend={backend}", f"--header={out / 'coroutines.h'}",
               "-o", out / "coroutines.c", CXX / "coroutines.coc"])
    assert res.returncode == 0, res.stderr
    obj = out / "coroutines.o"
    res = run(["gcc", "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{out}", "-c", "-o", obj,
               out / "coroutines.c"])
    assert res.returncode == 0, res.stderr
    return backend, obj, out


@pytest.mark.parametrize("std", STANDARDS)
@pytest.mark.parametrize("cxx", COMPILERS)
def test_cxx_program_runs_coroutines(coroutines, tmp_path, cxx, std):
    backend, obj, header_dir = coroutines
    exe = tmp_path / "main"
    res = run([cxx, f"-std={std}", *WARNINGS, "-g", f"-I{COROC_INCLUDE}", f"-I{header_dir}", "-o", exe,
               CXX / "main.cpp", obj, COROC_LIB, "-lm"], timeout=120)
    assert res.returncode == 0, res.stderr
    res = run([exe], timeout=30)
    assert res.returncode == 0, f"({backend}) {res.stdout}{res.stderr}"
    lines = res.stdout.splitlines()
    assert lines[-1] == "OK", res.stdout
    for what in ["fib(30) on the heap", "fib in CORO_FRAME storage", "summed over a channel, by coro_run",
                 "summed, by coro_run_ready", "thrown and caught inside the C++ callback"]:
        assert any(what in line and line.endswith(": ok") for line in lines), (what, res.stdout)

    # An exception that leaves the C++ callback, through the body's C frames (stackless)
    # or to the bottom of the instance's own stack (stackful), whichever call resumed it:
    # std::terminate, with the exception's message, and main's catch never reached.
    for how in ["throw-next", "throw-run", "throw-ready"]:
        res = run([exe, how], timeout=30)
        assert res.stdout == "std::terminate: thrown through a coroutine body\n", (backend, how, res.stdout)
        assert res.returncode == 70, (backend, how, res.returncode, res.stderr)
