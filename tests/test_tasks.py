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
import pytest

from conftest import BACKENDS, COMPILERS, MODES, TESTS_DIR, CheckedRuns

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
