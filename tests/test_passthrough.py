"""Pass-through: plain C goes through coroc unchanged.

coroc copies everything outside coroutine definitions byte for byte, so a .c file
without coroutines must come out identical, and must behave identically. The corpus
in tests/corpus/ covers the C11 grammar and the GNU C that real code uses, one area
per file (see the comment at the top of each).

For every corpus file:
  * coroc FILE (to -o, to standard output, with --no-line, with each backend) and
    coroc - (standard input) give back exactly the input bytes;
  * the output, compiled with gcc and with clang (-std=gnu11 -Wall -Wextra -Werror),
    prints what the original compiled directly prints, and exits the same way.
The expected output is never written down: it comes from compiling and running the
original file here. Byte comparisons use bytes, not text, so that CR LF line ends,
a byte order mark and a missing final newline count.
"""
import difflib
import re
import subprocess

import pytest

from conftest import BACKENDS, COMPILERS, TESTS_DIR, WARNINGS

CORPUS_DIR = TESTS_DIR / "corpus"
CORPUS = sorted(CORPUS_DIR.glob("*.c"))
IDS = [p.name for p in CORPUS]

# How coroc is asked to copy a file: (test id, arguments before the input, output to -o?)
FILE_MODES = [
    ("to-file", [], True),
    ("to-file-no-line", ["--no-line"], True),
    ("to-stdout", [], False),
    ("to-stdout-no-line", ["--no-line"], False),
] + [(f"backend-{b}", [f"--backend={b}"], True) for b in BACKENDS]

CFLAGS = ["-std=gnu11", *WARNINGS, "-g"]
LIBS = ["-lm"]


def run_bytes(cmd, input=None, timeout=60, cwd=None):
    """Like conftest.run, but bytes in and out: no newline translation, no decoding."""
    return subprocess.run([str(c) for c in cmd], input=input, capture_output=True, timeout=timeout, cwd=cwd)


def text(data, limit=4000):
    s = data.decode("utf-8", errors="replace")
    return s if len(s) <= limit else s[:limit] + "\n...(truncated)"


def describe_difference(expected, actual, names=("input", "coroc output")):
    """Where two byte strings part, for an assertion message."""
    if expected == actual:
        return "identical"
    n = next((i for i, (a, b) in enumerate(zip(expected, actual)) if a != b), min(len(expected), len(actual)))
    line = expected.count(b"\n", 0, n) + 1
    width = max(map(len, names))
    out = [f"{names[0]}: {len(expected)} bytes, {names[1]}: {len(actual)} bytes; "
           f"first difference at byte {n} (line {line})",
           f"  {names[0]:<{width}} : {expected[max(0, n - 40):n + 40]!r}",
           f"  {names[1]:<{width}} : {actual[max(0, n - 40):n + 40]!r}"]
    diff = list(difflib.unified_diff(expected.decode("utf-8", "replace").splitlines(keepends=True),
                                     actual.decode("utf-8", "replace").splitlines(keepends=True),
                                     names[0], names[1], n=1))
    out.append("".join(diff[:60]) + ("...(diff truncated)\n" if len(diff) > 60 else ""))
    return "\n".join(out)


def compile_c(cc, src, exe):
    res = run_bytes([cc, *CFLAGS, f"-I{CORPUS_DIR}", "-o", exe, src, *LIBS], timeout=180)
    assert res.returncode == 0, f"{cc} failed on {src}:\n{text(res.stderr)}"
    return exe


def run_program(exe):
    return run_bytes([exe], input=b"", timeout=60, cwd=exe.parent)


@pytest.fixture(scope="session")
def original_runs(tmp_path_factory):
    """(file name, compiler) -> result of running the original, compiled directly; built once."""
    cache = {}
    base = tmp_path_factory.mktemp("corpus-originals")

    def get(src, cc):
        key = (src.name, cc)
        if key not in cache:
            exe = compile_c(cc, src, base / f"{src.stem}.{cc}")
            cache[key] = run_program(exe)
        return cache[key]

    return get


def test_corpus_present():
    assert len(CORPUS) >= 12, f"the pass-through corpus in {CORPUS_DIR} is missing files"


@pytest.mark.parametrize("src", CORPUS, ids=IDS)
def test_corpus_avoids_coroc_keywords(src):
    """The premise: a corpus file is plain C, so nothing in it is for coroc to rewrite."""
    found = re.findall(rb"\b(coroutine|yield|await)\b", src.read_bytes())
    assert not found, f"{src.name} uses coroc's words {sorted(set(found))}"


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("src", CORPUS, ids=IDS)
def test_corpus_is_valid_c(src, cc, original_runs):
    """Each original compiles warning-free with both compilers, runs, prints, exits 0."""
    res = original_runs(src, cc)
    assert res.returncode == 0, f"{src.name} built with {cc} exited {res.returncode}:\n{text(res.stderr)}"
    assert res.stdout, f"{src.name} built with {cc} printed nothing"


@pytest.mark.parametrize("mode,args,to_file", FILE_MODES, ids=[m[0] for m in FILE_MODES])
@pytest.mark.parametrize("src", CORPUS, ids=IDS)
def test_passthrough_is_byte_identical(src, mode, args, to_file, coroc, tmp_path):
    original = src.read_bytes()
    if to_file:
        out = tmp_path / src.name
        res = run_bytes([coroc, *args, "-o", out, src], timeout=30, cwd=tmp_path)
        assert res.returncode == 0, f"coroc {' '.join(args)} -o OUT {src.name} failed:\n{text(res.stderr)}"
        assert out.exists(), f"coroc exited 0 but wrote no {out.name}"
        produced = out.read_bytes()
        assert res.stdout == b"", f"coroc -o also wrote to standard output:\n{text(res.stdout, 500)}"
    else:
        res = run_bytes([coroc, *args, src], timeout=30, cwd=tmp_path)
        assert res.returncode == 0, f"coroc {' '.join(args)} {src.name} failed:\n{text(res.stderr)}"
        produced = res.stdout
    assert produced == original, f"coroc changed {src.name} ({mode}):\n{describe_difference(original, produced)}"


@pytest.mark.parametrize("args", [[], ["--no-line"]], ids=["default", "no-line"])
@pytest.mark.parametrize("src", CORPUS, ids=IDS)
def test_passthrough_from_stdin(src, args, coroc, tmp_path):
    """coroc - reads the program from standard input; -I names the directory of its local headers."""
    original = src.read_bytes()
    res = run_bytes([coroc, *args, f"-I{CORPUS_DIR}", "-"], input=original, timeout=30, cwd=tmp_path)
    assert res.returncode == 0, f"coroc - < {src.name} failed:\n{text(res.stderr)}"
    assert res.stdout == original, f"coroc - changed {src.name}:\n{describe_difference(original, res.stdout)}"


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("src", CORPUS, ids=IDS)
def test_passthrough_behaves_identically(src, cc, coroc, tmp_path, original_runs):
    expected = original_runs(src, cc)
    assert expected.returncode == 0, f"the original {src.name} fails with {cc}: see test_corpus_is_valid_c"
    out = tmp_path / src.name                       # same base name, so nothing that prints it could differ
    res = run_bytes([coroc, "-o", out, src], timeout=30, cwd=tmp_path)
    assert res.returncode == 0, f"coroc -o OUT {src.name} failed:\n{text(res.stderr)}"
    exe = compile_c(cc, out, tmp_path / f"{src.stem}.{cc}")
    got = run_program(exe)
    assert got.returncode == expected.returncode, (
        f"exit status {got.returncode}, the original's was {expected.returncode}\nstderr:\n{text(got.stderr)}")
    assert got.stdout == expected.stdout, (
        f"{src.name} transformed by coroc and built with {cc} prints differently:\n"
        + describe_difference(expected.stdout, got.stdout, ("original's output", "transformed's output")))


# C that gcc takes with a warning that no option or pragma silences, so that
# -Werror refuses it and it cannot be in the corpus: an unterminated ' or " in
# a group that #if skips (the preprocessor only looks for its directives
# there), and a file-scope declaration without type or storage class.
WARNED_C = {
    "skipped_quotes": (b"""#include <stdio.h>
#if 0
it's off, and "so is this
#elif defined(NEVER_DEFINED_FOR_THE_TEST)
  don't
#else
static const char *msg = "it's on";
#endif
#ifdef NEVER_DEFINED_FOR_THE_TEST
#if 1
  'nested
#endif
#endif
int main(void) { puts(msg); return 0; }
""", b"it's on\n"),
    "no_type_nor_storage_class": (b"""#include <stdio.h>
counter = 3, *pointer = &counter;
main() { printf("%d\\n", *pointer + counter); return 0; }
""", b"6\n"),
}


@pytest.mark.parametrize("args", [[], ["--no-line"]], ids=["default", "no-line"])
@pytest.mark.parametrize("name", sorted(WARNED_C))
def test_warned_c_passes_through(name, args, coroc, tmp_path):
    source, output = WARNED_C[name]
    src = tmp_path / f"{name}.c"
    src.write_bytes(source)
    res = run_bytes([coroc, *args, src], cwd=tmp_path)
    assert res.returncode == 0, f"coroc refused {name}:\n{text(res.stderr)}"
    assert res.stdout == source, describe_difference(source, res.stdout)
    exe = tmp_path / name
    built = run_bytes(["gcc", "-std=gnu11", "-w", "-o", exe, src], timeout=180)
    assert built.returncode == 0, text(built.stderr)
    assert run_program(exe).stdout == output


@pytest.mark.parametrize("line,col", [(b"x = 'q;", 5), (b"\t int  s =  \"no end;", 13)])
def test_live_unterminated_quote_is_reported_where_it_stands(line, col, coroc, tmp_path):
    """In a live group the same text is an error, at its column in the user's
    text (the preprocessor's output has other spacing)."""
    src = tmp_path / "live.c"
    src.write_bytes(b"int x;\n#if 1\n" + line + b"\n#endif\n")
    res = run_bytes([coroc, src], cwd=tmp_path)
    assert res.returncode == 1 and res.stdout == b""
    quote = b"'" if b"'" in line else b'"'
    first = res.stderr.decode().splitlines()[0]
    assert first == f"{src}:3:{col}: error: missing terminating {quote.decode()} character", first
