"""Language run tests, chibicc style: one .coc program per feature of the language.

Every tests/cases/*.coc is a whole program whose main() drives coroutines and
checks each value with ASSERT (tests/check.h), the expected values worked out
by hand from C's rules; a passing program prints "OK" last. For every case,
with every backend and every compiler (the suite builds clang's in the default
mode only, and checks clang's warnings on the other modes' C; tests/run --full
builds them all: conftest.py's RUN_MATRIX):
  * coroc transforms it, the compiler builds the output with -Wall -Wextra
    -Werror and links it with libcoro, and it runs;
  * it exits 0 and the last line of its standard output is "OK";
  * with more than one backend, every backend prints exactly the same;
  * gcc -O2 -Wall -Wextra -Werror compiles it too, in each backend: the warnings that gcc's
    optimizer gives once it has inlined the generated code into main.

A case whose first line is `// coroc-args: ARGS` gets ARGS (shell words, such
as -DFEATURE) on both the coroc and the compiler command lines. The cases
include "check.h" from tests/, and their own headers from tests/cases/.
"""
import os

import pytest

from conftest import (ALL_MODES_COMPILERS, BACKENDS, COROC_INCLUDE, RUN_MATRIX, TESTS_DIR, WARNINGS,
                      WARNINGS_ONLY, CheckedRuns, checked_includes, matrix_ids, run)

CASES_DIR = TESTS_DIR / "cases"
CASES = sorted(CASES_DIR.glob("*.coc"))
IDS = [p.name for p in CASES]

RUNS = CheckedRuns()


@pytest.mark.parametrize("cc,backend", RUN_MATRIX, ids=matrix_ids(RUN_MATRIX))
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case(toolchain, case, cc, backend):
    RUNS.run(toolchain, case, backend, cc)


# The builds the suite does not run (conftest.py's RUN_MATRIX; none with --full): their warnings.
if WARNINGS_ONLY:
    @pytest.mark.parametrize("cc,backend", WARNINGS_ONLY, ids=matrix_ids(WARNINGS_ONLY))
    @pytest.mark.parametrize("case", CASES, ids=IDS)
    def test_case_warnings(toolchain, case, cc, backend):
        RUNS.check_warnings(toolchain, case, backend, cc)


# Warnings that gcc gives only with its optimizer, once it has inlined coroc's wrappers and the
# bodies into main and sees the paths through them (-Wmaybe-uninitialized, -Warray-bounds): every
# case compiled with -O2, in each backend.
O2_RUNS = [pytest.param(case, backend, id=f"{case.name}-{backend}") for case in CASES for backend in BACKENDS]


@pytest.mark.parametrize("case,backend", O2_RUNS)
def test_case_warnings_at_O2(toolchain, case, backend):
    c_file = RUNS.transform(toolchain, case, backend)
    res = run(["gcc", "-std=gnu11", "-O2", *WARNINGS, f"-I{COROC_INCLUDE}", *checked_includes(case), "-c",
               "-o", os.devnull, c_file], timeout=120)
    assert res.returncode == 0, f"gcc -O2 {' '.join(WARNINGS)} failed on {case.name} ({backend}):\n{res.stderr}"


# The same program must print the same under every backend (once there are two).
if len(BACKENDS) > 1:
    @pytest.mark.parametrize("cc", ALL_MODES_COMPILERS)
    @pytest.mark.parametrize("case", CASES, ids=IDS)
    def test_backends_agree(toolchain, case, cc):
        RUNS.assert_backends_agree(toolchain, case, cc)


def test_cases_exist():
    assert CASES, f"no .coc cases in {CASES_DIR}"
