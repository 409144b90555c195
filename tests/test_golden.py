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


def test_generated_c_names_the_version_of_its_header(coroc, tmp_path):
    """coroc's output asks for the <coro.h> it was made for: the number it
    writes in CORO_GENERATED_FOR is gen.h's CORO_GENERATED_VERSION (the two
    are kept by hand, in transformer/output/emit.c and the header), and the
    same C with another number does not compile, with the header's words."""
    import re
    from conftest import COROC_INCLUDE
    version = re.search(r"^#define CORO_GENERATED_VERSION (\d+)$",
                        (COROC_INCLUDE / "coro" / "gen.h").read_text(), re.M)
    assert version, "gen.h has no CORO_GENERATED_VERSION"
    res = run([COROC, CASES[0].name], cwd=GOLDEN_DIR)
    assert res.returncode == 0, res.stderr
    written = re.findall(r"^CORO_GENERATED_FOR\((\d+)\);", res.stdout, re.M)
    assert written == [version.group(1)], written
    other = tmp_path / "other.c"
    other.write_text(res.stdout.replace(f"CORO_GENERATED_FOR({written[0]})",
                                        f"CORO_GENERATED_FOR({int(written[0]) + 1})"))
    res = run(["gcc", "-std=gnu11", f"-I{COROC_INCLUDE}", f"-I{GOLDEN_DIR}", "-c", other,
               "-o", tmp_path / "other.o"])
    assert res.returncode != 0 and "made by another coroc" in res.stderr, res.stderr
