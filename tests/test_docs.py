"""The listings the docs show are real programs: each docs/listings/NAME.coc
is built with every backend and compiler, and must print NAME.out; the
pictures the docs show are there, and the screenshots shown where they
should be."""
import re
import struct

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


# {==== pictures

DOCS = [SOURCE_DIR / "README.md", *sorted((SOURCE_DIR / "docs").glob("*.md"))]
# the screenshots docs/images/pictures.py takes (cmake --build build --target
# doc_pictures), and the pages that must show each
SCREENSHOTS = {"html-page.png": ["README.md", "docs/cli.md"],
               "timeline.png": ["README.md", "docs/debugging.md"]}


def image_links(doc):
    """The targets of a Markdown file's images, and of the links around them."""
    text = doc.read_text()
    return re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text) + \
        re.findall(r"\[!\[[^\]]*\]\([^)]*\)\]\(([^)\s]+)\)", text)


def test_every_picture_is_there():
    for doc in DOCS:
        for target in image_links(doc):
            if not re.match(r"https?:", target):
                assert (doc.parent / target).is_file(), f"{doc.name} shows {target}: not there"


@pytest.mark.parametrize("name", SCREENSHOTS)
def test_screenshots(name):
    """Each screenshot is a PNG 1200 pixels wide and at most 700 high, small
    enough to commit, and shown where the docs say."""
    png = (SOURCE_DIR / "docs" / "images" / name).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    assert width == 1200 and 200 <= height <= 700, (width, height)
    assert 10_000 < len(png) < 400_000, len(png)
    picture = (SOURCE_DIR / "docs" / "images" / name).resolve()
    for page in SCREENSHOTS[name]:
        doc = SOURCE_DIR / page
        shown = {(doc.parent / t).resolve() for t in image_links(doc)}
        assert picture in shown, f"{page} does not show {name}"


def test_readme_starts_with_the_two_commands():
    lines = (SOURCE_DIR / "README.md").read_text().split("\n")
    assert lines[2] == "```sh" and lines[5] == "```", lines[:6]
    assert lines[3].startswith("cmake -S . -B build") and lines[4].startswith("tests/run")

# }====
