"""coroc never crashes, whatever the shape of the input, and stops only at its
documented limits.

Machine-made C (a generated table, a macro-expanded chain, a long sum) reaches
coroc as expressions and bodies far longer than anyone would type. For each
shape of the benchmark's part 11 (tests/bench/part11-scaling/shapes.py), in
both backends:
  * at 8n (about 256 KB of input) coroc succeeds, or stops with a documented
    limit (exit 1 and the message naming it), never a crash;
  * the input of size 2n runs clean under AddressSanitizer + UBSan (a coroc
    built here with them): every shape's passes and printing are reached at
    any size, and 2n is four times cheaper than 8n, which took 45 s of the
    suite's CPU when it was the size run so.
And at the parser's nesting limit (COROC_MAX_NESTING): the deepest expression
and the deepest nest of statements it lets through (a million unary minuses,
half a million blocks) transform, each in one backend (both with --full),
since what recurses along nesting runs on a stack sized for that limit; one bracket past it is
refused with the message naming it, and no output file.
That time and memory grow in proportion to the input is a figure, measured by
the benchmark's part 11 (`tests/bench/run --part 11`: 32n against 8n, at
most 8 times for the time and 6 for the memory, where 4 is linear and a
square would make 16), not here: on a loaded machine a test that times runs
reads the load (this file did so until 2026-12-01, its timed runs 70 s of the
suite's CPU). The benchmark also stops at a crash at 32n.
"""
import os
import subprocess
import sys

import pytest

from conftest import COROC, FULL, TESTS_DIR, sanitized_transformer_target

sys.path.insert(0, str(TESTS_DIR / "bench" / "part11-scaling"))
from shapes import LIMITS, SHAPES, limit_reached  # noqa: E402

BACKENDS = ["stackless", "stackful"]
NESTING = 1_000_000   # transformer/coroc.h, COROC_MAX_NESTING: the parser's documented limit


def check_outcome(code, stderr, where):
    assert code == 0 or limit_reached(code, stderr), f"{where}: coroc exited with {code}: {stderr[-2000:]}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_large_transforms_or_stops_at_a_limit(shape, backend, tmp_path):
    make, n = SHAPES[shape]
    src = tmp_path / f"{shape}.coc"
    src.write_text(make(8 * n))
    res = transform(src, backend, tmp_path)
    check_outcome(res.returncode, res.stderr, f"{shape} at 8n")
    if res.returncode == 0:
        assert (tmp_path / "out.c").stat().st_size > 0


def transform(src, backend, tmp_path):
    return subprocess.run([str(COROC), f"--backend={backend}", "-o", str(tmp_path / "out.c"), str(src)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300)


# The deepest inputs the parser lets through, one of expressions and one of
# statements: what still recurses follows nesting, on a thread whose stack is
# sized for the limit (transformer/main.c), and these reach it. A unary minus
# holds one symbol of the parser's stack, a block two.
DEEPEST = {
    "minus": "coroutine int f(int x) { yield " + "-" * (NESTING - 100) + "x; }\n",
    "blocks": "coroutine int f(int x) { " + "{" * (NESTING // 2 - 100) + "yield x;"
              + "}" * (NESTING // 2 - 100) + " }\n",
}


# each shape in one backend, the other with --full: 3 s of CPU a run alone, and
# 10 s beside the rest of the suite
DEEPEST_RUNS = [("minus", "stackful"), ("blocks", "stackless")] if not FULL else \
    [(shape, backend) for shape in sorted(DEEPEST) for backend in BACKENDS]


@pytest.mark.parametrize("shape,backend", DEEPEST_RUNS)
def test_deepest_the_parser_allows_transforms(shape, backend, tmp_path):
    src = tmp_path / f"{shape}.coc"
    src.write_text(DEEPEST[shape])
    res = transform(src, backend, tmp_path)
    assert res.returncode == 0, f"{shape}: exit {res.returncode}: {res.stderr[-2000:]}"
    assert (tmp_path / "out.c").stat().st_size > len(DEEPEST[shape])


def test_one_past_the_limit_is_refused_with_its_message(tmp_path):
    src = tmp_path / "brackets.coc"
    src.write_text("coroutine int f(int x) { yield " + "(" * (NESTING + 1) + "x" + ")" * (NESTING + 1) + "; }\n")
    res = transform(src, "stackless", tmp_path)
    first = res.stderr.split("\n", 1)[0]
    assert res.returncode == 1 and LIMITS[0] in first, res.stderr[:2000]
    assert first.startswith(f"{src}:1:") and f"at most {NESTING} unfinished constructs" in first, first
    assert not (tmp_path / "out.c").exists(), "a refused input left an output file"


@pytest.fixture(scope="module")
def coroc_sanitized():
    """coroc built with AddressSanitizer and UBSan, any report fatal (conftest.py)."""
    return sanitized_transformer_target("coroc") / "transformer" / "coroc"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_largest_clean_under_sanitizers(coroc_sanitized, shape, backend, tmp_path):
    make, n = SHAPES[shape]
    src = tmp_path / f"{shape}.coc"
    src.write_text(make(2 * n))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    res = subprocess.run([str(coroc_sanitized), f"--backend={backend}", "-o", str(tmp_path / "out.c"), str(src)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert "Sanitizer" not in res.stderr and "runtime error" not in res.stderr, res.stderr[-4000:]
    check_outcome(res.returncode, res.stderr, shape)
