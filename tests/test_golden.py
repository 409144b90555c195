"""Golden tests of the generated C: tests/golden/NAME.coc is transformed and
compared with tests/golden/NAME.c byte for byte, then compiled and run.

The generated code is part of the product; these files are meant to be read.
After a deliberate change, COROC_UPDATE_GOLDEN=1 rewrites them: read the diff.
The expected output of each program is in NAME.out, worked out by hand.
"""
import os

import pytest

from conftest import COROC, COMPILERS, TESTS_DIR, run

GOLDEN_DIR = TESTS_DIR / "golden"
CASES = sorted(GOLDEN_DIR.glob("*.coc"))


@pytest.mark.parametrize("src", CASES, ids=[c.stem for c in CASES])
def test_generated_code(coroc, src):
    res = run([COROC, src.name], cwd=GOLDEN_DIR)
    assert res.returncode == 0, res.stderr
    golden = src.with_suffix(".c")
    if os.environ.get("COROC_UPDATE_GOLDEN"):
        golden.write_text(res.stdout)
    assert res.stdout == golden.read_text()


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("src", CASES, ids=[c.stem for c in CASES])
def test_golden_runs(toolchain, src, cc):
    exe = toolchain.compile(src.with_suffix(".c"), cc)
    res = run([exe])
    assert res.returncode == 0
    assert res.stdout == src.with_suffix(".out").read_text()
