"""Language run tests for tasks and `await`, chibicc style, like test_cases.py.

Every tests/tasks/*.coc is a whole program whose main() spawns tasks, runs the
scheduler and checks what they recorded with ASSERT (tests/check.h); the
expected values and orders are worked out by hand from C's rules (the helpers
that the awaited children call append to a trace, which proves which operands
C evaluated, how often, and in which order where C fixes one). A passing
program prints "OK" last. For every case, with every backend and every
compiler:
  * coroc transforms it, the compiler builds the output with -Wall -Wextra
    -Werror and links it with libcoro, and it runs, within a time limit (a
    task that is never woken, or a read that blocks the thread, is a failure,
    not a stuck suite);
  * it exits 0 and the last line of its standard output is "OK";
  * every backend prints exactly the same.

A case whose first line is `// coroc-args: ARGS` gets ARGS (shell words) on
both the coroc and the compiler command lines, as in test_cases.py."""
import subprocess

import pytest

from conftest import (BACKENDS, COMPILERS, COROC_INCLUDE, MODES, TESTS_DIR, WARNINGS, CheckedRuns,
                      build_runtime_archive, run)

TASKS_DIR = TESTS_DIR / "tasks"
CASES = sorted(TASKS_DIR.glob("*.coc"))
IDS = [p.name for p in CASES]

RUN_TIMEOUT = 30  # seconds; a task never woken must fail, not hang the suite

RUNS = CheckedRuns(timeout=RUN_TIMEOUT)


@pytest.mark.parametrize("backend", MODES)
@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_task(toolchain, case, cc, backend):
    RUNS.run(toolchain, case, backend, cc)


# The same program must print the same under every backend.
if len(BACKENDS) > 1:
    @pytest.mark.parametrize("cc", COMPILERS)
    @pytest.mark.parametrize("case", CASES, ids=IDS)
    def test_backends_agree(toolchain, case, cc):
        RUNS.assert_backends_agree(toolchain, case, cc)


def test_tasks_exist():
    assert CASES, f"no .coc cases in {TASKS_DIR}"


# Where epoll_pwait2 is missing (Linux before 5.11, glibc before 2.35, or a
# seccomp filter that refuses it), the scheduler waits in epoll_wait, in whole
# milliseconds rounded up: built that way, sleeps and deadlines still never end
# early, and timers keep their order.
@pytest.fixture(scope="module")
def libcoro_without_pwait2(tmp_path_factory):
    lib = build_runtime_archive(tmp_path_factory.mktemp("no_pwait2"), "gcc", "ar",
                                ["-O2", "-DCORO_NO_EPOLL_PWAIT2"], "switch_x86_64.S")
    calls = subprocess.run(["nm", "-u", lib], capture_output=True, text=True, check=True).stdout
    assert "epoll_wait" in calls and "epoll_pwait2" not in calls, calls
    return lib


@pytest.mark.parametrize("name", ["sleep_never_early", "timers", "chan_select"])
def test_deadlines_without_epoll_pwait2(toolchain, libcoro_without_pwait2, name):
    case = TASKS_DIR / f"{name}.coc"
    c_file = toolchain.transform(case, "stackless", extra=(f"-I{TESTS_DIR}",))
    exe = toolchain.tmp / name
    res = run(["gcc", "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}", "-o", exe,
               c_file, libcoro_without_pwait2, "-lm"], timeout=120)
    assert res.returncode == 0, res.stderr
    res = run([exe], timeout=RUN_TIMEOUT)
    assert res.returncode == 0 and res.stdout.splitlines()[-1] == "OK", res.stdout + res.stderr
