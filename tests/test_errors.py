"""Diagnostics, pinned in golden files: tests/errors/NAME.coc is an input with
one mistake, tests/errors/NAME.err the exact standard error coroc must print
(FILE:LINE:COL: error: MESSAGE, the source line, the caret). Every refusal is
the same under both backends: one check pass applies every rule for both, so
both accept exactly the same programs.

To review a changed message: COROC_UPDATE_GOLDEN=1 rewrites the .err files;
read the diff before committing it.
"""
import os

import pytest

from conftest import BACKENDS, COROC, TESTS_DIR, run

ERRORS_DIR = TESTS_DIR / "errors"
CASES = sorted(ERRORS_DIR.glob("*.coc"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("src", CASES, ids=[c.stem for c in CASES])
def test_diagnostic(coroc, src, backend, tmp_path):
    out = tmp_path / "out.c"
    res = run([COROC, f"--backend={backend}", "-o", out, src.name], cwd=ERRORS_DIR)
    golden = src.with_suffix(".err")
    if os.environ.get("COROC_UPDATE_GOLDEN") and backend == BACKENDS[0]:
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


def many_yields(n):
    return "coroutine int many(void) {\n" + "".join(f"  yield {i};\n" for i in range(n)) + "}\n"


def test_too_many_resume_points(coroc, tmp_path):
    """The runtime keeps a resume point in 15 bits (its top bit marks stackful
    instances): 32,767 yields are taken, one more is refused at the one that
    does not fit."""
    (tmp_path / "fits.coc").write_text(many_yields(32767))
    res = run([COROC, "-o", tmp_path / "fits.c", "fits.coc"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "case 32767: goto coro_resume_32767;" in (tmp_path / "fits.c").read_text()

    (tmp_path / "many.coc").write_text(many_yields(32768))
    out = tmp_path / "many.c"
    res = run([COROC, "-o", out, "many.coc"], cwd=tmp_path)
    assert res.returncode == 1
    assert not out.exists()
    assert res.stderr.splitlines() == [
        "many.coc:32769:3: error: coroutine 'many' has more than 32767 yields and awaits; "
        "split it into several coroutines",
        " 32769 |   yield 32767;",
        "       |   ^",
    ]
