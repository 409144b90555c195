"""Stackless and stackful tasks in one program: one scheduler, one await
protocol. A stackful task awaits a stackless one, which awaits a stackful
one, while a stackless and a stackful ticker take turns in FIFO order."""
from conftest import COMPILERS, COROC_INCLUDE, COROC_LIB, TESTS_DIR, WARNINGS, run

import pytest

MIXED = TESTS_DIR / "mixed"


@pytest.mark.parametrize("cc", COMPILERS)
def test_one_scheduler_both_backends(toolchain, cc, tmp_path):
    less = toolchain.transform(MIXED / "stackless_half.coc", "stackless", extra=(f"-I{MIXED}",))
    ful = toolchain.transform(MIXED / "stackful_half.coc", "stackful", extra=(f"-I{MIXED}",))
    exe = tmp_path / "mixed"
    res = run([cc, "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{MIXED}", "-o", exe,
               less, ful, MIXED / "main.c", COROC_LIB, "-pthread"], timeout=120)
    assert res.returncode == 0, res.stderr
    res = run([exe], timeout=30)
    assert res.returncode == 0, res.stderr
    # 2 * 7 * 7; the tickers alternate a (stackless) and b (stackful) from the start
    assert res.stdout == "98 ababab\n"
