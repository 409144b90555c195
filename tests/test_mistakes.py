"""The mistakes a newcomer makes are caught, each pinned by a golden file in
tests/mistakes/:

- NAME.coc with NAME.gcc.warn and NAME.clang.warn: the compiler's warnings
  (`FILE:LINE:COL: warning: MESSAGE`, the caret lines left out), the same with
  both backends. An awaitable or an instance made and dropped without `await`
  (CORO_NODISCARD).
- NAME.coc with NAME.stderr: a program that the runtime stops, with its
  message (addresses as 0x...), the same with both backends.

After a deliberate change, COROC_UPDATE_GOLDEN=1 rewrites the golden files:
read the diff.
"""
import os
import re
import subprocess

import pytest

from conftest import BACKENDS, COMPILERS, COROC, COROC_INCLUDE, COROC_LIB, TESTS_DIR, run

MISTAKES = TESTS_DIR / "mistakes"
WARNED = sorted(p for p in MISTAKES.glob("*.coc") if p.with_suffix(".gcc.warn").exists())
STOPPED = sorted(p for p in MISTAKES.glob("*.coc") if p.with_suffix(".stderr").exists())


def golden(path, text):
    if os.environ.get("COROC_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"not what {path.name} says:\n{text}"


def transform(src, backend, tmp_path):
    out = tmp_path / f"{src.stem}.{backend}.c"
    res = run([COROC, f"--backend={backend}", "-o", out, src.name], cwd=src.parent)
    assert res.returncode == 0, res.stderr
    return out


def test_there_are_mistakes():
    assert WARNED and STOPPED


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("src", WARNED, ids=[p.stem for p in WARNED])
def test_warned(coroc, src, cc, tmp_path):
    found = {}
    for backend in BACKENDS:
        c_file = transform(src, backend, tmp_path)
        # LC_ALL=C: gcc quotes names with ' then, whatever the locale
        res = subprocess.run([cc, "-std=gnu11", "-Wall", "-Wextra", f"-I{COROC_INCLUDE}", "-c",
                              "-o", str(tmp_path / f"{backend}.o"), str(c_file)], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, LC_ALL="C"))
        assert res.returncode == 0, res.stderr
        found[backend] = "".join(l + "\n" for l in res.stderr.splitlines()
                                 if re.match(rf"{re.escape(src.name)}:\d+:\d+: warning: ", l))
    assert found["stackless"] == found["stackful"], found
    golden(src.with_suffix(f".{cc}.warn"), found["stackless"])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("src", STOPPED, ids=[p.stem for p in STOPPED])
def test_stopped(toolchain, src, backend):
    exe = toolchain.compile(transform(src, backend, toolchain.tmp), "gcc")
    res = run([exe], timeout=30)
    assert res.returncode != 0, "the runtime let it run to its end"
    golden(src.with_suffix(".stderr"), re.sub(r"0x[0-9a-f]+", "0x...", res.stderr))
