"""coro_offload under stress: 100,000 completions racing the tasks that sign
up for them. Every one must wake its task exactly once, in both backends, and
the stackless build must run clean under ThreadSanitizer (the runtime's
sources are compiled into the test program with -fsanitize=thread)."""
import shutil

import pytest

from conftest import BACKENDS, SOURCE_DIR, TESTS_DIR, run

STRESS = TESTS_DIR / "offload" / "stress.coc"
# sum over 8 tasks of sum_{i<12500} 2i = 8 * 12500 * 12499
EXPECTED = "run 0, total %d\n" % (8 * 12500 * 12499)
RUNTIME = SOURCE_DIR / "runtime"


@pytest.mark.parametrize("backend", BACKENDS)
def test_offload_stress(toolchain, backend):
    res = toolchain.build_and_run(STRESS, backend, "gcc", extra_cc=("-O2", "-pthread"), timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout == EXPECTED


def runtime_sources():
    """The runtime's C sources, with the assembly switch (no -fsanitize for .S)."""
    return [p for p in RUNTIME.glob("*.c")] + [RUNTIME / "asm" / "switch_x86_64.S"]


def run_under_tsan(toolchain, tmp_path, program, expected):
    """program, stackless, built with libcoro's sources under ThreadSanitizer:
    it prints `expected`, and TSan reports nothing."""
    c_file = toolchain.transform(program, "stackless")
    exe = tmp_path / (program.stem + ".tsan")
    res = run(["clang", "-std=gnu11", "-O1", "-g", "-fsanitize=thread", "-pthread",
               f"-I{RUNTIME / 'include'}", f"-I{RUNTIME}", "-o", exe, c_file,
               *runtime_sources()], timeout=300)
    assert res.returncode == 0, res.stderr
    res = run([exe], timeout=300)
    assert "ThreadSanitizer" not in res.stderr, res.stderr
    assert res.returncode == 0, res.stderr
    assert res.stdout == expected


@pytest.mark.skipif(shutil.which("clang") is None, reason="clang is not installed")
def test_offload_stress_under_tsan(toolchain, tmp_path):
    run_under_tsan(toolchain, tmp_path, STRESS, EXPECTED)


# coro_cancel of tasks that await offloaded calls: a call still queued is
# taken off and never runs, any other runs once and its value stands; each
# task is resumed once, and its next wait is called off (offload/cancel.coc).
CANCEL = TESTS_DIR / "offload" / "cancel.coc"


@pytest.mark.parametrize("backend", BACKENDS)
def test_offload_cancel(toolchain, backend):
    res = toolchain.build_and_run(CANCEL, backend, "gcc", extra_cc=("-O2", "-pthread"), timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout == "run 0, bad 0\n"


@pytest.mark.skipif(shutil.which("clang") is None, reason="clang is not installed")
def test_offload_cancel_under_tsan(toolchain, tmp_path):
    run_under_tsan(toolchain, tmp_path, CANCEL, "run 0, bad 0\n")
