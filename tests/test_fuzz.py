"""The fuzz target (tests/fuzz): it builds, and every input it keeps runs clean.

tests/fuzz/run --regress builds fuzz_coroc with clang (libFuzzer, ASan,
UBSan) in BUILD/fuzz, then runs each seed (the suite's own .coc and corpus
files), each input of tests/fuzz/corpus/ and each of tests/fuzz/regressions/
once through coroc's whole pipeline, for both backends. It must exit 0 with
no sanitizer report and no internal error: an input error is a normal end of
a run. Fuzzing itself is for developers (tests/fuzz/run SECONDS).

Skipped, with the reason, only when clang cannot build a libFuzzer target.
"""
import os
import shutil
import subprocess

import pytest

from conftest import BUILD_DIR, SOURCE_DIR, TESTS_DIR

RUN = TESTS_DIR / "fuzz" / "run"
FUZZ_BUILD = BUILD_DIR / "fuzz"   # kept between runs: a rebuild is incremental
CLANG = os.environ.get("COROC_FUZZ_CC", "clang")

REPORTS = ["ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "deadly signal",
           "internal error", "ERROR: libFuzzer"]


def expected_inputs():
    """The files tests/fuzz/run --regress runs."""
    seeds = []
    for pattern in ["cases/*.coc", "tasks/*.coc", "errors/*.coc", "robustness/*.coc", "corpus/*.c"]:
        seeds += TESTS_DIR.glob(pattern)
    seeds += SOURCE_DIR.glob("examples/*.coc")
    seeds += SOURCE_DIR.glob("examples/*/*.coc")
    kept = [f for d in ["corpus", "regressions"] for f in (TESTS_DIR / "fuzz" / d).glob("*") if f.is_file()]
    return len(seeds) + len(kept)


@pytest.fixture(scope="module")
def libfuzzer(tmp_path_factory):
    """Skip unless clang links a -fsanitize=fuzzer,address,undefined program."""
    if not shutil.which(CLANG):
        pytest.skip(f"{CLANG} is not installed: the fuzz target needs clang's -fsanitize=fuzzer")
    tmp = tmp_path_factory.mktemp("libfuzzer")
    src = tmp / "t.c"
    src.write_text("#include <stddef.h>\n#include <stdint.h>\n"
                   "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
    res = subprocess.run([CLANG, "-fsanitize=fuzzer,address,undefined", "-o", tmp / "t", src],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"{CLANG} cannot link with -fsanitize=fuzzer,address,undefined:\n{res.stderr}")


def test_corpus_runs_clean(libfuzzer):
    env = dict(os.environ, COROC_FUZZ_BUILD=str(FUZZ_BUILD), COROC_FUZZ_CC=CLANG)
    env.pop("COROC_CHECK_EMIT", None)   # the harness compares its two printings itself
    res = subprocess.run([RUN, "--regress"], capture_output=True, text=True, errors="replace", env=env,
                         timeout=900)
    out = res.stdout + res.stderr
    found = [r for r in REPORTS if r in out]
    tail = "\n".join(out.splitlines()[-60:])
    assert res.returncode == 0 and not found, (
        f"tests/fuzz/run --regress: exit {res.returncode}, {found or 'no report'}\n{tail}\n"
        f"rerun one input: {FUZZ_BUILD}/tests/fuzz/fuzz_coroc FILE")
    assert f"Running {expected_inputs()} inputs 1 time(s) each" in out, tail
