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
both the coroc and the compiler command lines, as in test_cases.py.

Known gaps of coroc are listed in KNOWN_GAPS: their tests stay, marked
xfail(strict=True), so that the day a gap closes the mark fails and must go.
"""
import re
import shlex
import subprocess

import pytest

from conftest import BACKENDS, COMPILERS, TESTS_DIR, run

TASKS_DIR = TESTS_DIR / "tasks"
CASES = sorted(TASKS_DIR.glob("*.coc"))
IDS = [p.name for p in CASES]

ARGS_RE = re.compile(r"^\s*//\s*coroc-args:(.*)$")

RUN_TIMEOUT = 30  # seconds; the slowest case takes well under one

# case name -> {backend: reason}, for what coroc does not do yet, e.g.
#   "await_conditional.coc": {"stackless": "await in an arm of ?: is not lowered yet"},
# (That gap closed with 925faa8; the cases of coro_wait_all, coro_wait_any,
# coro_timeout and coro_offload live beside these.) A wrong result or output
# that does not compile is a bug, not a gap: its test simply fails.
KNOWN_GAPS = {
}

# stdout of each passing run, keyed by (case name, compiler, backend).
_outputs = {}


def gap(case, backend):
    return KNOWN_GAPS.get(case.name, {}).get(backend)


def case_args(case):
    with open(case, encoding="utf-8") as f:
        first = f.readline()
    m = ARGS_RE.match(first)
    return shlex.split(m.group(1)) if m else []


def build_and_run(toolchain, case, backend, cc):
    args = case_args(case)
    include = f"-I{TESTS_DIR}"
    where = f"{case.name} ({backend}, {cc})"
    c_file = toolchain.transform(case, backend, extra=(f"-I{case.parent}", include, *args))
    exe = toolchain.compile(c_file, cc, extra=(f"-I{case.parent}", include, *args),
                            exe=toolchain.tmp / f"{case.stem}.{backend}.{cc}")
    try:
        res = run([exe], timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        pytest.fail(f"{where} did not finish in {RUN_TIMEOUT} s\n--- stdout ---\n{out}")
    assert res.returncode == 0, (f"{where} exited {res.returncode}\n"
                                 f"--- stdout ---\n{res.stdout}--- stderr ---\n{res.stderr}")
    lines = res.stdout.splitlines()
    assert lines and lines[-1] == "OK", (f"{where}: stdout does not end with OK\n"
                                         f"--- stdout ---\n{res.stdout}--- stderr ---\n{res.stderr}")
    _outputs[(case.name, cc, backend)] = res.stdout
    return res.stdout


def params():
    for case in CASES:
        for cc in COMPILERS:
            for backend in BACKENDS:
                reason = gap(case, backend)
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                yield pytest.param(case, cc, backend, marks=marks,
                                   id=f"{case.name}-{cc}-{backend}")


@pytest.mark.parametrize("case,cc,backend", list(params()))
def test_task(toolchain, case, cc, backend):
    build_and_run(toolchain, case, backend, cc)


def agree_params():
    for case in CASES:
        for cc in COMPILERS:
            reasons = [gap(case, b) for b in BACKENDS if gap(case, b)]
            marks = [pytest.mark.xfail(strict=True, reason=reasons[0])] if reasons else []
            yield pytest.param(case, cc, marks=marks, id=f"{case.name}-{cc}")


# The same program must print the same under every backend.
if len(BACKENDS) > 1:
    @pytest.mark.parametrize("case,cc", list(agree_params()))
    def test_backends_agree(toolchain, case, cc):
        outputs = {}
        for backend in BACKENDS:
            out = _outputs.get((case.name, cc, backend))
            outputs[backend] = out if out is not None else build_and_run(toolchain, case, backend, cc)
        first = BACKENDS[0]
        for backend in BACKENDS[1:]:
            assert outputs[backend] == outputs[first], (
                f"{case.name} ({cc}): {backend} prints differently from {first}\n"
                f"--- {first} ---\n{outputs[first]}--- {backend} ---\n{outputs[backend]}")


def test_tasks_exist():
    assert CASES, f"no .coc cases in {TASKS_DIR}"


def test_known_gaps_exist():
    """A gap listed for a case that is gone would hide nothing: drop it."""
    names = {p.name for p in CASES}
    for name, backends in KNOWN_GAPS.items():
        assert name in names, f"KNOWN_GAPS names {name}, which is not in {TASKS_DIR}"
        for backend in backends:
            assert backend in BACKENDS, f"KNOWN_GAPS[{name!r}] names unknown backend {backend}"
