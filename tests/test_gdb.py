"""The #line directives make the .coc the source a debugger shows: a
breakpoint set on a line inside a coroutine stops there, and the frame's
fields can be printed."""
import shutil

import pytest

from conftest import TESTS_DIR, run

SRC = TESTS_DIR / "golden" / "countdown.coc"
YIELD_LINE = 6  # `yield from--;` in countdown.coc


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")
def test_breakpoint_on_coc_line(toolchain, tmp_path):
    src = tmp_path / "countdown.coc"
    shutil.copy(SRC, src)
    assert src.read_text().splitlines()[YIELD_LINE - 1].strip() == "yield from--;"
    c_file = toolchain.transform(src)
    exe = toolchain.compile(c_file, "gcc", extra=("-O0",))
    res = run(["gdb", "-batch", "-nx",
               "-ex", f"break countdown.coc:{YIELD_LINE}",
               "-ex", "run",
               "-ex", "print coro_f->from",
               "-ex", "continue",
               "-ex", "print coro_f->from",
               exe], cwd=tmp_path, timeout=60)
    out = res.stdout
    # one location only: the body's code, not the creation function's
    assert f"countdown.coc, line {YIELD_LINE}." in out and "locations" not in out, out
    stops = [l for l in out.splitlines() if l.startswith("Breakpoint 1, ")]
    assert len(stops) == 2, out
    assert all(f"countdown.coc:{YIELD_LINE}" in l for l in stops), out
    assert "$1 = 3" in out and "$2 = 2" in out, out
