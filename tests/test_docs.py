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
