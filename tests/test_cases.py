"""Language run tests, chibicc style: one .coc program per feature of the language.

Every tests/cases/*.coc is a whole program whose main() drives coroutines and
checks each value with ASSERT (tests/check.h), the expected values worked out
by hand from C's rules; a passing program prints "OK" last. For every case,
with every backend and every compiler:
  * coroc transforms it, the compiler builds the output with -Wall -Wextra
    -Werror and links it with libcoro, and it runs;
  * it exits 0 and the last line of its standard output is "OK";
  * with more than one backend, every backend prints exactly the same.

A case whose first line is `// coroc-args: ARGS` gets ARGS (shell words, such
as -DFEATURE) on both the coroc and the compiler command lines. The cases
include "check.h" from tests/, and their own headers from tests/cases/.
"""
import re
import shlex

import pytest

from conftest import BACKENDS, COMPILERS, TESTS_DIR

CASES_DIR = TESTS_DIR / "cases"
CASES = sorted(CASES_DIR.glob("*.coc"))
IDS = [p.name for p in CASES]

ARGS_RE = re.compile(r"^\s*//\s*coroc-args:(.*)$")

# stdout of each passing run, keyed by (case name, compiler, backend), for the
# comparison of the backends; a missing entry is built again there.
_outputs = {}


def case_args(case):
    """The ARGS of a first line `// coroc-args: ARGS`, or none."""
    with open(case, encoding="utf-8") as f:
        first = f.readline()
    m = ARGS_RE.match(first)
    return shlex.split(m.group(1)) if m else []


def build_and_run(toolchain, case, backend, cc):
    args = case_args(case)
    include = f"-I{TESTS_DIR}"
    res = toolchain.build_and_run(case, backend=backend, cc=cc,
                                  extra_coroc=(include, *args), extra_cc=(include, *args))
    where = f"{case.name} ({backend}, {cc})"
    assert res.returncode == 0, (f"{where} exited {res.returncode}\n"
                                 f"--- stdout ---\n{res.stdout}--- stderr ---\n{res.stderr}")
    lines = res.stdout.splitlines()
    assert lines and lines[-1] == "OK", (f"{where}: stdout does not end with OK\n"
                                         f"--- stdout ---\n{res.stdout}--- stderr ---\n{res.stderr}")
    _outputs[(case.name, cc, backend)] = res.stdout
    return res.stdout


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case(toolchain, case, cc, backend):
    build_and_run(toolchain, case, backend, cc)


# The same program must print the same under every backend (once there are two).
if len(BACKENDS) > 1:
    @pytest.mark.parametrize("cc", COMPILERS)
    @pytest.mark.parametrize("case", CASES, ids=IDS)
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


def test_cases_exist():
    assert CASES, f"no .coc cases in {CASES_DIR}"
