"""The layout of runtime/ and transformer/ is .clang-format's: every C source
and header there, as `clang-format --dry-run -Werror` sees it (HACKING.md,
"Format"). flex's and bison's inputs (lexer.l, parser.y) are not C and are
left out; the inline switch's asm in <coro/switch_x86_64.h> keeps its columns
between `clang-format off` and `on`."""
import shutil
import subprocess

from conftest import SOURCE_DIR


def clang_format():
    path = shutil.which("clang-format")
    assert path, "clang-format is not installed (Debian's clang-format; .ci/run installs it)"
    return path


def formatted_sources():
    """The C files the format covers: what git tracks under runtime/ and
    transformer/, or, outside a clone, what the tree has there."""
    dirs = ["runtime", "transformer"]
    if (SOURCE_DIR / ".git").exists():
        out = subprocess.run(["git", "-C", str(SOURCE_DIR), "ls-files", "--", *dirs],
                             capture_output=True, text=True, check=True).stdout.split()
        files = [SOURCE_DIR / f for f in out]
    else:
        files = [p for d in dirs for p in (SOURCE_DIR / d).rglob("*")]
    return sorted(p for p in files if p.suffix in (".c", ".h") and p.is_file())


def check(files, cwd):
    return subprocess.run([clang_format(), "--dry-run", "-Werror", *map(str, files)],
                          capture_output=True, text=True, cwd=cwd)


def test_runtime_and_transformer_follow_clang_format():
    files = formatted_sources()
    assert len(files) > 60, files  # the whole tree, not a stray few
    r = check(files, SOURCE_DIR)
    assert r.returncode == 0, "not as .clang-format lays it out (run clang-format -i on these):\n" + r.stderr[:4000]


def test_the_check_catches_a_misformatted_file(tmp_path):
    """The same check on a copy of a real source with one line laid out
    otherwise: it fails, and names the file and line."""
    shutil.copy(SOURCE_DIR / ".clang-format", tmp_path / ".clang-format")
    src = (SOURCE_DIR / "runtime" / "fatal.c").read_text()
    assert check([SOURCE_DIR / "runtime" / "fatal.c"], SOURCE_DIR).returncode == 0
    good = tmp_path / "fatal.c"
    good.write_text(src)
    assert check([good], tmp_path).returncode == 0
    lines = src.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("  ") and line.rstrip().endswith(";"))
    lines[at] = "    " + lines[at].strip()  # four spaces where two belong
    bad = tmp_path / "bad.c"
    bad.write_text("\n".join(lines))
    r = check([bad], tmp_path)
    assert r.returncode != 0
    # clang-format points at the start of the wrong whitespace: the end of the line before
    assert f"bad.c:{at}:" in r.stderr or f"bad.c:{at + 1}:" in r.stderr, r.stderr
