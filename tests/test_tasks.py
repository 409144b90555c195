"""Language run tests for tasks and `await`, chibicc style, like test_cases.py.

Every tests/tasks/*.coc is a whole program whose main() spawns tasks, runs the
scheduler and checks what they recorded with ASSERT (tests/check.h); the
expected values and orders are worked out by hand from C's rules (the helpers
that the awaited children call append to a trace, which proves which operands
C evaluated, how often, and in which order where C fixes one). A passing
program prints "OK" last. For every case, with every backend and every
compiler (clang's builds in the default mode only, but with --full, as in
test_cases.py):
  * coroc transforms it, the compiler builds the output with -Wall -Wextra
    -Werror and links it with libcoro, and it runs, within a time limit (a
    task that is never woken, or a read that blocks the thread, is a failure,
    not a stuck suite);
  * it exits 0 and the last line of its standard output is "OK";
  * every backend prints exactly the same.

A case whose first line is `// coroc-args: ARGS` gets ARGS (shell words) on
both the coroc and the compiler command lines, as in test_cases.py."""
import re
import subprocess

import pytest

from conftest import (ALL_MODES_COMPILERS, BACKENDS, COROC_INCLUDE, COROC_LIB, MODES, RUN_MATRIX, TESTS_DIR,
                      WARNINGS, WARNINGS_ONLY, CheckedRuns, matrix_ids, build_runtime_archive, run)

TASKS_DIR = TESTS_DIR / "tasks"
CASES = sorted(TASKS_DIR.glob("*.coc"))
IDS = [p.name for p in CASES]

RUN_TIMEOUT = 30  # seconds; a task never woken must fail, not hang the suite

RUNS = CheckedRuns(timeout=RUN_TIMEOUT)


@pytest.mark.parametrize("cc,backend", RUN_MATRIX, ids=matrix_ids(RUN_MATRIX))
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_task(toolchain, case, cc, backend):
    RUNS.run(toolchain, case, backend, cc)


# The builds the suite does not run (conftest.py's RUN_MATRIX; none with --full): their warnings.
if WARNINGS_ONLY:
    @pytest.mark.parametrize("cc,backend", WARNINGS_ONLY, ids=matrix_ids(WARNINGS_ONLY))
    @pytest.mark.parametrize("case", CASES, ids=IDS)
    def test_task_warnings(toolchain, case, cc, backend):
        RUNS.check_warnings(toolchain, case, backend, cc)


# The same program must print the same under every backend.
if len(BACKENDS) > 1:
    @pytest.mark.parametrize("cc", ALL_MODES_COMPILERS)
    @pytest.mark.parametrize("case", CASES, ids=IDS)
    def test_backends_agree(toolchain, case, cc):
        RUNS.assert_backends_agree(toolchain, case, cc)


def test_tasks_exist():
    assert CASES, f"no .coc cases in {TASKS_DIR}"


# The scheduler sleeps with no timeout: a timerfd in its epoll wakes it at the
# earliest deadline. Where no timerfd can be made (no descriptor left), epoll
# itself times out at the deadline: to the nanosecond with epoll_pwait2, and
# where that is missing too (Linux before 5.11, glibc before 2.35, or a
# seccomp filter that refuses it), in whole milliseconds rounded up. Built
# each of these ways, sleeps and deadlines still never end early, and timers
# keep their order.
WITHOUT = {
    "timerfd": ["-DCORO_NO_TIMERFD"],
    "timerfd_and_epoll_pwait2": ["-DCORO_NO_TIMERFD", "-DCORO_NO_EPOLL_PWAIT2"],
}


@pytest.fixture(scope="module", params=sorted(WITHOUT))
def libcoro_without(request, tmp_path_factory):
    lib = build_runtime_archive(tmp_path_factory.mktemp("no_" + request.param), "gcc", "ar",
                                ["-O2", *WITHOUT[request.param]], "switch_x86_64.S")
    calls = subprocess.run(["nm", "-u", lib], capture_output=True, text=True, check=True).stdout
    assert "timerfd_settime" not in calls, calls
    if "-DCORO_NO_EPOLL_PWAIT2" in WITHOUT[request.param]:
        assert "epoll_wait" in calls and "epoll_pwait2" not in calls, calls
    else:
        assert "epoll_pwait2" in calls, calls
    return lib


@pytest.mark.parametrize("name", ["sleep_never_early", "timers", "chan_select"])
def test_deadlines_without(toolchain, libcoro_without, name):
    case = TASKS_DIR / f"{name}.coc"
    c_file = toolchain.transform(case, "stackless", extra=(f"-I{TESTS_DIR}",))
    exe = toolchain.tmp / name
    res = run(["gcc", "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}", "-o", exe,
               c_file, libcoro_without, "-lm"], timeout=120)
    assert res.returncode == 0, res.stderr
    res = run([exe], timeout=RUN_TIMEOUT)
    assert res.returncode == 0 and res.stdout.splitlines()[-1] == "OK", res.stdout + res.stderr


# With a timer pending, the loop still waits with no timeout: the clock (a
# timerfd in epoll) wakes it at the deadline. Counted by wrapping the calls
# that wait (the linker's --wrap): clock.coc's 200 round trips, with a
# minute's timer pending throughout, make many waits, and none has a timeout
# but the 0 of a poll that must not wait. (Before the clock, every one of
# them timed out at the far deadline: an armed kernel timer per wait.)
COUNT_WAITS = r"""
#include <stdio.h>
#include <sys/epoll.h>
#include <time.h>
int __real_epoll_pwait2(int, struct epoll_event *, int, const struct timespec *, const sigset_t *);
int __real_epoll_wait(int, struct epoll_event *, int, int);
static long timed, untimed;
int __wrap_epoll_pwait2(int fd, struct epoll_event *ev, int n, const struct timespec *t,
                        const sigset_t *s) {
  if (!t) untimed++; else if (t->tv_sec || t->tv_nsec) timed++;
  return __real_epoll_pwait2(fd, ev, n, t, s);
}
int __wrap_epoll_wait(int fd, struct epoll_event *ev, int n, int ms) {
  if (ms < 0) untimed++; else if (ms > 0) timed++;
  return __real_epoll_wait(fd, ev, n, ms);
}
__attribute__((destructor)) static void count_waits_report(void) {
  fprintf(stderr, "waits: %ld with a timeout, %ld without\n", timed, untimed);
}
"""


@pytest.mark.parametrize("backend", MODES)
def test_waits_have_no_timeout(toolchain, backend):
    case = TASKS_DIR / "clock.coc"
    c_file = toolchain.transform(case, backend, extra=(f"-I{TESTS_DIR}",))
    wrap = toolchain.tmp / "count_waits.c"
    wrap.write_text(COUNT_WAITS)
    exe = toolchain.tmp / f"clock_{backend}"
    res = run(["gcc", "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}", "-o", exe,
               c_file, wrap, COROC_LIB, "-lm",
               "-Wl,--wrap=epoll_pwait2", "-Wl,--wrap=epoll_wait"], timeout=120)
    assert res.returncode == 0, res.stderr
    res = run([exe], timeout=RUN_TIMEOUT)
    assert res.returncode == 0 and res.stdout.splitlines()[-1] == "OK", res.stdout + res.stderr
    timed, untimed = map(int, re.search(r"waits: (\d+) with a timeout, (\d+) without",
                                        res.stderr).groups())
    assert timed == 0 and untimed >= 200, res.stderr
