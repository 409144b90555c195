#!/usr/bin/env python3
"""Draw again the screenshots that README.md, docs/cli.md and docs/debugging.md
show: `cmake --build build --target doc_pictures` runs it with the paths of
the build, or by hand:

    docs/images/pictures.py --coroc build/transformer/coroc \\
        --fizzbuzz build/tutorial/tutorial_fizzbuzz

  html-page.png   coroc --html examples/generator.coc, in headless chromium,
                  after a click on `yield a;`: its lines lit in the three
                  columns, both columns of C scrolled to them
  timeline.png    a run of the tutorial's FizzBuzz (chapter 8) under
                  CORO_TRACE, drawn by coroc-trace --by-order

Both 1200 pixels wide, at most 700 high. The browser is the tests' own
(tests/browser.py): chromium, headless, reaching nothing. tests/test_docs.py
checks that the pictures are there, of that size, and shown where the docs
say; tests/test_html_browser.py and tests/test_trace_timeline.py, that the
pages look so.
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
TOP = HERE.parent.parent
sys.path.insert(0, str(TOP / "tests"))
from browser import Browser  # noqa: E402  (the tests' driver, one piece of code for both)

WIDTH, HEIGHT = 1200, 700


def shoot(tmp, page, path, before=None):
    """page in a 1200 x 700 window, after before(browser); cut to what the page fills."""
    with Browser(tmp, WIDTH, HEIGHT) as b:
        b.open(page.as_uri())
        if before:
            before(b)
        used = b.js("Math.ceil(document.documentElement.getBoundingClientRect().bottom)")
        b.screenshot(path, WIDTH, min(HEIGHT, used))
    print(f"wrote {path}")


def html_page(coroc, tmp, out):
    shutil.copy(TOP / "examples" / "generator.coc", tmp / "generator.coc")
    subprocess.run([coroc, "--html=generator.html", "generator.coc"], cwd=tmp, check=True)
    yield_line = next(i + 1 for i, line in enumerate(
        (tmp / "generator.coc").read_text().split("\n")) if line.strip() == "yield a;")
    shoot(tmp, tmp / "generator.html", out / "html-page.png",
          lambda b: b.click(*b.in_view(f"#L{yield_line}", dx=120)))


def timeline(fizzbuzz, tmp, out):
    trace = tmp / "fizzbuzz.json"
    subprocess.run([fizzbuzz], cwd=tmp, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "CORO_TRACE": str(trace)})
    page = tmp / "fizzbuzz.html"
    subprocess.run([sys.executable, TOP / "runtime" / "tools" / "coroc-trace", "--by-order",
                    trace, "-o", page], check=True)
    shoot(tmp, page, out / "timeline.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--coroc", required=True, help="the coroc to run")
    parser.add_argument("--fizzbuzz", required=True,
                        help="tutorial/08-fizzbuzz/fizzbuzz.coc built with the stackless backend")
    parser.add_argument("--out", default=str(HERE), help="where the pictures go (docs/images)")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    coroc, fizzbuzz = (str(pathlib.Path(p).resolve()) for p in (args.coroc, args.fizzbuzz))
    with tempfile.TemporaryDirectory() as tmp:
        html_page(coroc, pathlib.Path(tmp), out)
        timeline(fizzbuzz, pathlib.Path(tmp), out)

if __name__ == "__main__":
    main()
