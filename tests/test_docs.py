"""The listings the docs show are real programs: each docs/listings/NAME.coc
is built with every backend and compiler, and must print NAME.out."""
import pytest

from conftest import BACKENDS, COMPILERS, SOURCE_DIR

LISTINGS = sorted((SOURCE_DIR / "docs" / "listings").glob("*.coc"))


def test_listings_exist():
    assert LISTINGS


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("listing", LISTINGS, ids=[l.stem for l in LISTINGS])
def test_listing_prints_what_the_docs_say(toolchain, listing, cc, backend):
    res = toolchain.build_and_run(listing, backend, cc)
    assert res.returncode == 0, res.stderr
    assert res.stdout == listing.with_suffix(".out").read_text()


def test_readme_commands_work_as_written(coroc, tmp_path):
    """The README's count.coc, saved at the top of the repository and built with
    the README's own commands (run as written, in a copy of the top whose
    build/ and runtime/ are those of this build), prints 1, 2, 3."""
    import re
    import subprocess
    from conftest import COROC, COROC_LIB
    text = (SOURCE_DIR / "README.md").read_text()
    program = re.search(r"```c\n(/\* count\.coc \*/\n.*?)```", text, re.S).group(1)
    commands = re.search(r"Saved as `count\.coc`.*?```sh\n(.*?)```", text, re.S).group(1)
    (tmp_path / "count.coc").write_text(program)
    (tmp_path / "runtime").symlink_to(SOURCE_DIR / "runtime")
    build = tmp_path / "build"
    (build / "transformer").mkdir(parents=True)
    (build / "runtime").mkdir()
    (build / "transformer" / "coroc").symlink_to(COROC)
    (build / "runtime" / "libcoro.a").symlink_to(COROC_LIB)
    res = subprocess.run(["sh", "-e", "-c", commands], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "1\n2\n3\n"
