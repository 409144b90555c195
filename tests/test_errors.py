"""Diagnostics, pinned in golden files: tests/errors/NAME.coc is an input with
one mistake, tests/errors/NAME.err the exact standard error coroc must print
(FILE:LINE:COL: error: MESSAGE, the source line, the caret).

To review a changed message: COROC_UPDATE_GOLDEN=1 rewrites the .err files;
read the diff before committing it.
"""
import os

import pytest

from conftest import COROC, TESTS_DIR, run

ERRORS_DIR = TESTS_DIR / "errors"
CASES = sorted(ERRORS_DIR.glob("*.coc"))


@pytest.mark.parametrize("src", CASES, ids=[c.stem for c in CASES])
def test_diagnostic(coroc, src, tmp_path):
    out = tmp_path / "out.c"
    res = run([COROC, "-o", out, src.name], cwd=ERRORS_DIR)
    golden = src.with_suffix(".err")
    if os.environ.get("COROC_UPDATE_GOLDEN"):
        golden.write_text(res.stderr)
    assert res.returncode == 1, res.stderr
    assert res.stdout == ""
    assert not out.exists(), "a failed run must not leave an output file"
    assert res.stderr == golden.read_text()


def test_every_message_has_a_caret():
    for golden in ERRORS_DIR.glob("*.err"):
        lines = golden.read_text().splitlines()
        assert ": error: " in lines[0], golden
        assert lines[1].lstrip().split(" |")[0].isdigit(), golden
        assert lines[2].rstrip().endswith("^"), golden
