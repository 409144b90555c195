"""The command line of coroc (docs/cli.md).

    coroc [--backend=stackless|stackful] [-o OUT.c] [--header[=OUT.h]]
          [-I DIR]... [-D NAME[=VALUE]]...
          [-MD|-MMD [-MF DEPFILE] [-MT TARGET]... [-MP]]
          [--no-line] [--dot] [--stats] IN.coc
    coroc --help | --version

What is checked here, each test in its own temporary directory (the cwd of coroc):
  * --help and --version exit 0 and print to standard output;
  * usage errors (no input, two inputs, an unknown option or backend, an option
    without its value) exit 2 with a usage message on standard error and nothing
    on standard output;
  * `-` reads standard input: the same output, and the same diagnostics, as for
    the file, except that the file is called `<stdin>`;
  * `-o OUT.c` is all-or-nothing: a failed run leaves an existing OUT.c with its
    exact bytes and mtime and leaves no temporary file; a successful one writes
    what standard output would have shown;
  * a missing input file or a directory as input: exit 1 with a message naming it;
  * `-I DIR`, `-IDIR`, `-D NAME`, `-DNAME=VALUE` reach the preprocessor;
  * #line directives point at the .coc (and --no-line removes them all);
  * the output begins with the user's own first lines (`#define _GNU_SOURCE`);
  * -MD/-MMD write a depfile (-MF, -MT, -MP): its target, the input, every
    header the preprocessor read (the list of gcc -M), quoted for make; all
    or nothing, like -o.
  * --header writes a header of the frames, all or nothing like -o, that a
    plain C file compiles with; it changes the C only in the linkage of
    coro_in_NAME (and declares it first); what it cannot show is refused
    with the place (the programs that use it: test_mixed.py).
The output of --dot and --stats is not checked here.
"""
import difflib
import os
import re
import shutil
import subprocess

import pytest

from conftest import BACKENDS, COROC, COROC_INCLUDE, COROC_LIB, TESTS_DIR, WARNINGS, case_args, run

# A generator whose yield stands on a line of its own (YIELD_LINE), so that the
# #line directive in front of the yield can be checked.
GEN = """\
#include <stdio.h>
#include <coro.h>

coroutine int count(int n) {
  for (int i = 0; i < n; i++)
    yield i;
}

int main(void) {
  coro_t *g = count(3);
  int v;
  while (coro_next(g, &v))
    printf("%d\\n", v);
  coro_free(g);
  return 0;
}
"""
YIELD_LINE = 6

# Inputs that must fail with exit 1, each for a different reason.
BAD = {
    # the parser: a missing ';'
    "syntax-error": "coroutine int f(void) {\n  yield 1\n}\n",
    # a coroutine rule, found after parsing
    "yield-outside-coroutine": "int f(void) {\n  yield 1;\n  return 0;\n}\n",
    # a variable-length array in a coroutine cannot live in a frame
    "vla-in-coroutine": "coroutine int f(int n) {\n  int a[n];\n  yield a[0];\n}\n",
    # the preprocessor fails
    "preprocessor-error": "int x;\n#error stop here\ncoroutine int f(void) { yield 1; }\n",
    # not a source file
    "nul-byte": "int x;\n\0\ncoroutine int f(void) { yield 1; }\n",
}

USAGE = "usage: coroc"


def coroc_in(coroc, cwd, *args, input=None):
    return run([coroc, *args], input=input, timeout=30, cwd=cwd)


@pytest.fixture
def gen(tmp_path):
    p = tmp_path / "gen.coc"
    p.write_text(GEN)
    return p


def listing(d):
    return sorted(os.listdir(d))


# --------------------------------------------------------------------------
# --help, --version
# --------------------------------------------------------------------------

def test_help(coroc, tmp_path):
    res = coroc_in(coroc, tmp_path, "--help")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    out = res.stdout
    for word in ["--backend", "stackless", "stackful", "-o", "-I", "-D", "--no-line", "--dot",
                 "--stats", "--header", "--help", "--version", "IN.coc"]:
        assert re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", out), f"--help does not mention {word}:\n{out}"
    assert "-" in out and "standard input" in out, f"--help does not say that - reads standard input:\n{out}"
    assert "coroc-lsp" in out, f"--help does not mention the language server:\n{out}"


def test_version(coroc, tmp_path):
    res = coroc_in(coroc, tmp_path, "--version")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert re.fullmatch(r"coroc \d+\.\d+\.\d+\n", res.stdout), f"--version printed {res.stdout!r}"


# --------------------------------------------------------------------------
# usage errors: exit 2, usage on stderr, nothing on stdout
# --------------------------------------------------------------------------

USAGE_ERRORS = {
    "no-input": [],
    "only-options": ["--no-line", "-DX"],
    "two-inputs": ["gen.coc", "gen.coc"],
    "two-inputs-one-stdin": ["gen.coc", "-"],
    "unknown-option": ["--bogus", "gen.coc"],
    "unknown-short-option": ["-x", "gen.coc"],
    "unknown-backend": ["--backend=stackfull", "gen.coc"],
    "empty-backend": ["--backend=", "gen.coc"],
    "o-without-value-last": ["gen.coc", "-o"],
    "o-without-value-alone": ["-o"],
    "I-without-value": ["gen.coc", "-I"],
    "D-without-value": ["gen.coc", "-D"],
    "MD-without-target": ["-MD", "-MF", "gen.d", "gen.coc"],
    "MMD-without-target": ["-MMD", "-MF", "gen.d", "gen.coc"],
    "MD-without-depfile-name": ["-MD", "-MT", "t", "gen.coc"],
    "MF-without-MD": ["-MF", "gen.d", "-o", "OUT.c", "gen.coc"],
    "MT-without-MD": ["-MT", "t", "-o", "OUT.c", "gen.coc"],
    "MP-without-MD": ["-MP", "-o", "OUT.c", "gen.coc"],
    "MF-without-value": ["-MD", "-o", "OUT.c", "gen.coc", "-MF"],
    "MT-without-value": ["-MD", "-o", "OUT.c", "gen.coc", "-MT"],
    "two-MF": ["-MD", "-MF", "a.d", "-MF", "b.d", "-o", "OUT.c", "gen.coc"],
    "depfile-is-output": ["-MD", "-MF", "OUT.c", "-o", "OUT.c", "gen.coc"],
    "header-without-name-or-o": ["--header", "gen.coc"],
    "header-empty-name": ["--header=", "-o", "OUT.c", "gen.coc"],
    "two-headers": ["--header=a.h", "--header=b.h", "-o", "OUT.c", "gen.coc"],
    "header-is-output": ["--header=OUT.c", "-o", "OUT.c", "gen.coc"],
    "header-is-depfile": ["--header=gen.d", "-MD", "-o", "gen.c", "gen.coc"],
    "header-with-dot": ["--header=gen.h", "--dot", "gen.coc"],
    "header-with-stats": ["--header=gen.h", "--stats", "gen.coc"],
}


@pytest.mark.parametrize("args", USAGE_ERRORS.values(), ids=USAGE_ERRORS.keys())
def test_usage_error(coroc, tmp_path, gen, args):
    before = listing(tmp_path)
    res = coroc_in(coroc, tmp_path, *args, input=GEN)
    assert res.returncode == 2, f"coroc {' '.join(args)}: exit {res.returncode}, want 2\n{res.stderr}"
    assert res.stdout == "", f"a usage error printed to standard output:\n{res.stdout[:500]}"
    assert USAGE in res.stderr, f"no usage message on standard error:\n{res.stderr}"
    assert res.stderr.startswith("coroc: "), f"the message does not say who speaks:\n{res.stderr}"
    assert listing(tmp_path) == before, "a usage error created files"


# --------------------------------------------------------------------------
# the default backend, and stdout
# --------------------------------------------------------------------------

def test_output_on_stdout_without_o(coroc, tmp_path, gen):
    before = listing(tmp_path)
    res = coroc_in(coroc, tmp_path, "gen.coc")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert "coro_t *count(int n)" in res.stdout, res.stdout
    assert listing(tmp_path) == before, "without -o coroc created files"


def test_backend_stackless_is_the_default(coroc, tmp_path, gen):
    default = coroc_in(coroc, tmp_path, "gen.coc")
    explicit = coroc_in(coroc, tmp_path, "--backend=stackless", "gen.coc")
    assert default.returncode == explicit.returncode == 0, default.stderr + explicit.stderr
    assert default.stdout == explicit.stdout


# --------------------------------------------------------------------------
# - reads standard input
# --------------------------------------------------------------------------

@pytest.mark.parametrize("args", [[], ["--no-line"]], ids=["default", "no-line"])
def test_stdin_same_output_as_file(coroc, tmp_path, gen, args):
    from_file = coroc_in(coroc, tmp_path, *args, "gen.coc")
    from_stdin = coroc_in(coroc, tmp_path, *args, "-", input=GEN)
    assert from_file.returncode == 0, from_file.stderr
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stderr == ""
    assert from_stdin.stdout == from_file.stdout.replace("gen.coc", "<stdin>")
    if not args:
        assert '"<stdin>"' in from_stdin.stdout, "the #line directives of standard input do not say <stdin>"


def test_stdin_finds_local_headers_in_cwd(coroc, tmp_path):
    """The directory of standard input is the current directory: #include "x.h" is found there."""
    (tmp_path / "local.h").write_text("typedef long my_long;\n")
    src = '#include "local.h"\ncoroutine my_long g(void) {\n  my_long v = 1;\n  yield v;\n}\n'
    res = coroc_in(coroc, tmp_path, "-", input=src)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("name", BAD.keys())
def test_stdin_same_diagnostics_as_file(coroc, tmp_path, name):
    (tmp_path / "bad.coc").write_text(BAD[name])
    from_file = coroc_in(coroc, tmp_path, "bad.coc")
    from_stdin = coroc_in(coroc, tmp_path, "-", input=BAD[name])
    assert from_file.returncode == 1, from_file.stderr
    assert from_stdin.returncode == 1, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout == ""
    assert from_stdin.stderr.startswith("<stdin>:"), f"diagnostics of standard input:\n{from_stdin.stderr}"
    assert from_stdin.stderr == from_file.stderr.replace("bad.coc", "<stdin>"), (
        f"from the file:\n{from_file.stderr}\nfrom standard input:\n{from_stdin.stderr}")


# --------------------------------------------------------------------------
# -o OUT.c: all or nothing
# --------------------------------------------------------------------------

OLD_BYTES = b"/* an older OUT.c that a failed run must leave alone */\n"
OLD_TIME = (1_000_000_000, 1_000_000_000)   # 2001: any rewrite would show


def old_out(d):
    out = d / "OUT.c"
    out.write_bytes(OLD_BYTES)
    os.utime(out, OLD_TIME)
    return out


def leftovers(d):
    return [n for n in os.listdir(d) if n.startswith("OUT.c") and n != "OUT.c"]


@pytest.mark.parametrize("name", BAD.keys())
def test_o_failed_run_leaves_existing_output(coroc, tmp_path, name):
    (tmp_path / "bad.coc").write_text(BAD[name])
    out = old_out(tmp_path)
    before = os.stat(out)
    res = coroc_in(coroc, tmp_path, "-o", "OUT.c", "bad.coc")
    assert res.returncode == 1, res.stderr
    assert res.stdout == ""
    assert out.read_bytes() == OLD_BYTES, "a failed run changed OUT.c"
    after = os.stat(out)
    assert after.st_mtime_ns == before.st_mtime_ns, "a failed run touched OUT.c"
    assert after.st_ino == before.st_ino, "a failed run replaced OUT.c"
    assert leftovers(tmp_path) == [], f"a failed run left {leftovers(tmp_path)}"


@pytest.mark.parametrize("name", BAD.keys())
def test_o_failed_run_creates_no_output(coroc, tmp_path, name):
    (tmp_path / "bad.coc").write_text(BAD[name])
    before = listing(tmp_path)
    res = coroc_in(coroc, tmp_path, "-o", "OUT.c", "bad.coc")
    assert res.returncode == 1, res.stderr
    assert listing(tmp_path) == before, "a failed run created files"


@pytest.mark.parametrize("what", ["missing-input", "directory-input"])
def test_o_unreadable_input_leaves_existing_output(coroc, tmp_path, what):
    if what == "directory-input":
        (tmp_path / "in.coc").mkdir()
    out = old_out(tmp_path)
    res = coroc_in(coroc, tmp_path, "-o", "OUT.c", "in.coc")
    assert res.returncode == 1, res.stderr
    assert out.read_bytes() == OLD_BYTES
    assert os.stat(out).st_mtime_ns == OLD_TIME[1] * 1_000_000_000
    assert leftovers(tmp_path) == []


def test_o_into_missing_directory(coroc, tmp_path, gen):
    res = coroc_in(coroc, tmp_path, "-o", "no/such/dir/OUT.c", "gen.coc")
    assert res.returncode == 1, f"exit {res.returncode}\n{res.stderr}"
    assert "no/such/dir/OUT.c" in res.stderr, res.stderr
    assert not (tmp_path / "no").exists()


def test_o_success_writes_what_stdout_shows(coroc, tmp_path, gen):
    to_stdout = coroc_in(coroc, tmp_path, "gen.coc")
    res = coroc_in(coroc, tmp_path, "-o", "OUT.c", "gen.coc")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "", "with -o coroc also printed to standard output"
    assert res.stderr == ""
    assert (tmp_path / "OUT.c").read_text() == to_stdout.stdout
    assert leftovers(tmp_path) == []


def test_o_success_replaces_existing_output(coroc, tmp_path, gen):
    out = old_out(tmp_path)
    res = coroc_in(coroc, tmp_path, "gen.coc", "-o", "OUT.c")   # -o after the input works too
    assert res.returncode == 0, res.stderr
    data = out.read_bytes()
    assert data != OLD_BYTES and b"coro_t *count(int n)" in data
    assert os.stat(out).st_mtime != OLD_TIME[1]
    assert leftovers(tmp_path) == []


def test_o_output_compiles_and_runs(coroc, tmp_path, gen):
    res = coroc_in(coroc, tmp_path, "-o", "OUT.c", "gen.coc")
    assert res.returncode == 0, res.stderr
    cc = run(["gcc", "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", "-o", tmp_path / "gen",
              tmp_path / "OUT.c", COROC_LIB], timeout=120)
    assert cc.returncode == 0, cc.stderr
    prog = run([tmp_path / "gen"], timeout=30)
    assert prog.returncode == 0 and prog.stdout == "0\n1\n2\n", prog.stdout + prog.stderr


# --------------------------------------------------------------------------
# inputs that cannot be read
# --------------------------------------------------------------------------

def test_missing_input(coroc, tmp_path):
    res = coroc_in(coroc, tmp_path, "nope.coc")
    assert res.returncode == 1, f"exit {res.returncode}\n{res.stderr}"
    assert res.stdout == ""
    assert "nope.coc" in res.stderr, res.stderr
    assert re.match(r"coroc: error: ", res.stderr), res.stderr


def test_directory_as_input(coroc, tmp_path):
    (tmp_path / "dir.coc").mkdir()
    res = coroc_in(coroc, tmp_path, "dir.coc")
    assert res.returncode == 1, f"exit {res.returncode}\n{res.stderr}"
    assert res.stdout == ""
    assert "dir.coc" in res.stderr, res.stderr
    assert re.match(r"coroc: error: ", res.stderr), res.stderr


def test_dot_directory_as_input(coroc, tmp_path):
    res = coroc_in(coroc, tmp_path, ".")
    assert res.returncode == 1, f"exit {res.returncode}\n{res.stderr}"
    assert res.stdout == ""


# --------------------------------------------------------------------------
# -I and -D reach the preprocessor
# --------------------------------------------------------------------------

# val_t is a type name only when X is defined: then `val_t v = 1;` is a
# declaration; otherwise it is a syntax error.
SEL_D = """\
#ifdef X
typedef int val_t;
#endif
coroutine int g(void) {
  val_t v = 1;
  yield v;
  yield v + 1;  /* v lives across a yield: a field of the frame */
}
"""
# The same, with the typedef in a header that only -I finds.
SEL_H = """\
#ifdef X
typedef int val_t;
#endif
"""
SEL_I = """\
#include "sel.h"
coroutine int g(void) {
  val_t v = 1;
  yield v;
  yield v + 1;  /* v lives across a yield: a field of the frame */
}
"""
# The value of X counts.
SEL_V = """\
#if X == 7
typedef int val_t;
#endif
coroutine int g(void) {
  val_t v = 1;
  yield v;
  yield v + 1;  /* v lives across a yield: a field of the frame */
}
"""


def frame_declares_v(out):
    return re.search(r"^\s*val_t v;", out, re.M)


def test_without_D_the_typedef_is_missing(coroc, tmp_path):
    (tmp_path / "sel.coc").write_text(SEL_D)
    res = coroc_in(coroc, tmp_path, "sel.coc")
    assert res.returncode == 1, f"exit {res.returncode}: without -DX, `val_t v = 1;` is not C\n{res.stderr}"
    assert res.stderr.startswith("sel.coc:5:"), res.stderr


@pytest.mark.parametrize("args", [["-D", "X"], ["-DX"], ["-DX=1"], ["-D", "X=1"]],
                         ids=["-D X", "-DX", "-DX=1", "-D X=1"])
def test_D_forms(coroc, tmp_path, args):
    (tmp_path / "sel.coc").write_text(SEL_D)
    res = coroc_in(coroc, tmp_path, *args, "sel.coc")
    assert res.returncode == 0, res.stderr
    assert frame_declares_v(res.stdout), res.stdout


@pytest.mark.parametrize("value,ok", [("7", True), ("1", False)])
def test_D_value(coroc, tmp_path, value, ok):
    (tmp_path / "sel.coc").write_text(SEL_V)
    res = coroc_in(coroc, tmp_path, f"-DX={value}", "sel.coc")
    assert res.returncode == (0 if ok else 1), res.stderr


def test_without_I_the_header_is_missing(coroc, tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "sel.h").write_text(SEL_H)
    (tmp_path / "sel.coc").write_text(SEL_I)
    res = coroc_in(coroc, tmp_path, "-DX", "sel.coc")
    assert res.returncode == 1, f"exit {res.returncode}: sel.h is only in inc/\n{res.stderr}"
    assert "sel.h" in res.stderr


@pytest.mark.parametrize("iargs", [["-I", "inc"], ["-Iinc"]], ids=["-I dir", "-Idir"])
@pytest.mark.parametrize("dargs", [["-D", "X"], ["-DX=1"]], ids=["-D X", "-DX=1"])
def test_I_and_D_forms(coroc, tmp_path, iargs, dargs):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "sel.h").write_text(SEL_H)
    (tmp_path / "sel.coc").write_text(SEL_I)
    res = coroc_in(coroc, tmp_path, *iargs, *dargs, "sel.coc")
    assert res.returncode == 0, res.stderr
    assert frame_declares_v(res.stdout), res.stdout
    # -I without -D: the header is found but X is not defined
    res = coroc_in(coroc, tmp_path, *iargs, "sel.coc")
    assert res.returncode == 1, res.stderr


def test_local_header_beside_input_found_from_elsewhere(coroc, tmp_path):
    """#include "x.h" looks beside the input first, as the compiler does, whatever the cwd."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "sel.h").write_text(SEL_H)
    (tmp_path / "src" / "sel.coc").write_text(SEL_I)
    res = coroc_in(coroc, tmp_path, "-DX", "src/sel.coc")
    assert res.returncode == 0, res.stderr


# --------------------------------------------------------------------------
# #line directives
# --------------------------------------------------------------------------

LINE_RE = re.compile(r'^\s*#\s*(?:line\s+)?(\d+)(?:\s+"([^"]*)")?\s*$', re.M)
ANY_LINE_DIRECTIVE = re.compile(r"^\s*#\s*(?:line\b|\d)", re.M)


def test_no_line_removes_all_line_directives(coroc, tmp_path, gen):
    res = coroc_in(coroc, tmp_path, "--no-line", "gen.coc")
    assert res.returncode == 0, res.stderr
    found = ANY_LINE_DIRECTIVE.findall(res.stdout)
    assert not found, f"--no-line output has line directives:\n{res.stdout}"
    # --no-line changes only the directives, and the line breaks that are
    # there only to put an operand back at its column (after a directive)
    default = coroc_in(coroc, tmp_path, "gen.coc")
    joined = re.sub(r"(?<=[,=)])\n#line \d+\n *", " ", default.stdout)
    stripped = "".join(l for l in joined.splitlines(keepends=True) if not ANY_LINE_DIRECTIVE.match(l))
    assert stripped == res.stdout


def test_line_directives_point_at_the_coc(coroc, tmp_path, gen):
    res = coroc_in(coroc, tmp_path, "gen.coc")
    assert res.returncode == 0, res.stderr
    directives = LINE_RE.findall(res.stdout)
    assert directives, f"the default output has no #line directives:\n{res.stdout}"
    names = {name for _, name in directives if name}
    assert names == {"gen.coc"}, f"#line directives name {names}, want only gen.coc"
    first = next(name for _, name in directives)
    assert first == "gen.coc", "the first #line directive does not name the file"
    nlines = GEN.count("\n")
    for num, _ in directives:
        assert 1 <= int(num) <= nlines + 1, f"#line {num} is outside gen.coc"


def test_line_of_the_yield(coroc, tmp_path, gen):
    """The generated statement of the yield carries the yield's .coc line."""
    res = coroc_in(coroc, tmp_path, "gen.coc")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    current = None
    for text in lines:
        m = LINE_RE.match(text)
        if m:
            current = int(m.group(1))
            continue
        if current is not None:
            if "CORO_YIELD" in text:
                break
            current += 1
    else:
        pytest.fail(f"no yield statement in the output:\n{res.stdout}")
    assert current == YIELD_LINE, f"the yield is at gen.coc:{YIELD_LINE}, the output says {current}"


def test_compiler_errors_point_into_the_coc(coroc, tmp_path):
    """A type error in ordinary C inside a coroutine is reported by the compiler at its .coc line."""
    src = ("#include <coro.h>\n"
           "struct s { int a; };\n"
           "coroutine int f(void) {\n"
           "  struct s x = { 1 };\n"
           "  yield x.nosuchfield;\n"       # line 5
           "}\n")
    (tmp_path / "te.coc").write_text(src)
    res = coroc_in(coroc, tmp_path, "-o", "te.c", "te.coc")
    assert res.returncode == 0, res.stderr
    cc = run(["gcc", "-std=gnu11", f"-I{COROC_INCLUDE}", "-c", "-o", tmp_path / "te.o", tmp_path / "te.c"],
             timeout=120, cwd=tmp_path)
    assert cc.returncode != 0
    assert re.search(r"^te\.coc:5:\d+: error: .*nosuchfield", cc.stderr, re.M), cc.stderr


@pytest.mark.parametrize("backend", BACKENDS)
def test_compiler_errors_after_a_users_line_directive(coroc, tmp_path, backend):
    """After the .coc's own `#line 500 "gen.y"`, the compiler reports a body's error as the
    user's directive says, as it would for the .coc compiled directly."""
    src = ("#include <coro.h>\n"
           "struct s { int a; };\n"
           '#line 500 "gen.y"\n'
           "coroutine int f(void) {\n"   # gen.y:500
           "  struct s x = { 1 };\n"
           "  yield x.nosuchfield;\n"      # gen.y:502
           "}\n")
    (tmp_path / "ld.coc").write_text(src)
    res = coroc_in(coroc, tmp_path, f"--backend={backend}", "-o", "ld.c", "ld.coc")
    assert res.returncode == 0, res.stderr
    cc = run(["gcc", "-std=gnu11", f"-I{COROC_INCLUDE}", "-c", "-o", tmp_path / "ld.o", tmp_path / "ld.c"],
             timeout=120, cwd=tmp_path)
    assert cc.returncode != 0
    assert re.search(r"^gen\.y:502:\d+: error: .*nosuchfield", cc.stderr, re.M), cc.stderr


@pytest.mark.parametrize("backend", BACKENDS)
def test_line_directive_with_a_macro_number(coroc, tmp_path, backend):
    """`#line LINE` whose number is a macro numbers the lines as the compiler does: a
    body's error is reported at the number the macro gives, and __LINE__ agrees."""
    src = ("#include <coro.h>\n"
           "#define line 1000\n"
           "struct s { int a; };\n"
           '#line line "gen.y"\n'
           "coroutine int f(void) {\n"   # gen.y:1000
           "  struct s x = { 1 };\n"
           "  yield __LINE__;\n"           # gen.y:1002
           "  yield x.nosuchfield;\n"      # gen.y:1003
           "}\n")
    (tmp_path / "lm.coc").write_text(src)
    res = coroc_in(coroc, tmp_path, f"--backend={backend}", "-o", "lm.c", "lm.coc")
    assert res.returncode == 0, res.stderr
    cc = run(["gcc", "-std=gnu11", f"-I{COROC_INCLUDE}", "-c", "-o", tmp_path / "lm.o", tmp_path / "lm.c"],
             timeout=120, cwd=tmp_path)
    assert re.search(r"^gen\.y:1003:\d+: error: .*nosuchfield", cc.stderr, re.M), cc.stderr
    main = "int main(void) { coro_t *g = f(); int v = 0; coro_next(g, &v); printf(\"%d\\n\", v); coro_free(g); }\n"
    (tmp_path / "lm.coc").write_text("#include <stdio.h>\n" + src.replace("  yield x.nosuchfield;\n", "") + main)
    res = coroc_in(coroc, tmp_path, f"--backend={backend}", "-o", "lm.c", "lm.coc")
    assert res.returncode == 0, res.stderr
    cc = run(["gcc", "-std=gnu11", f"-I{COROC_INCLUDE}", "-o", tmp_path / "lm", tmp_path / "lm.c", COROC_LIB],
             timeout=120, cwd=tmp_path)
    assert cc.returncode == 0, cc.stderr
    assert run([tmp_path / "lm"]).stdout == "1002\n"


@pytest.mark.parametrize("text,line", [
    ('#line 500\n#error stop\n', 2),                     # the preprocessor's error
    ('#line 500 "gen.y"\nint x;\n#if\n#endif\n', 3),
    ('# 20 "gen.y" 2\nint x = ;\n', 2),                  # coroc's own
    (' \t #line 500 "gen.y"\nint x;\n#if\n#endif\n', 3),   # blanks before the '#'
    ('int y; /* issue #1 */\nint x = ;\n', 2),            # a '#' that starts no directive
])
def test_errors_after_a_line_directive_point_at_the_file_as_it_stands(coroc, tmp_path, text, line):
    """coroc reports where the line stands in the file (with the line and a caret), whatever
    number a #line of the input gave it."""
    (tmp_path / "e.coc").write_text("coroutine void f(void) {}\n" + text)
    res = coroc_in(coroc, tmp_path, "-o", "e.c", "e.coc")
    assert res.returncode == 1
    assert re.match(rf"e\.coc:{line + 1}:\d+: error: ", res.stderr), res.stderr
    assert not (tmp_path / "e.c").exists()


# --------------------------------------------------------------------------
# the output begins with the user's first lines
# --------------------------------------------------------------------------

GNU = """\
#define _GNU_SOURCE
/* strchrnul is declared only with _GNU_SOURCE */
#include <string.h>
#include <stdio.h>
#include <coro.h>

coroutine char upto_comma(const char *s) {
  yield *strchrnul(s, ',');
}

int main(void) {
  coro_t *g = upto_comma("ab,c");
  char c = 0;
  while (coro_next(g, &c))
    putchar(c);
  coro_free(g);
  putchar('\\n');
  return 0;
}
"""

GNU_NO_INCLUDES = """\
#define _GNU_SOURCE
coroutine int one(void) {
  yield 1;
}
"""


@pytest.mark.parametrize("args", [[], ["--no-line"]], ids=["default", "no-line"])
@pytest.mark.parametrize("src", [GNU, GNU_NO_INCLUDES], ids=["with-includes", "without-includes"])
def test_output_begins_with_users_first_lines(coroc, tmp_path, src, args):
    (tmp_path / "gnu.coc").write_text(src)
    for how, res in [("file", coroc_in(coroc, tmp_path, *args, "gnu.coc")),
                     ("stdin", coroc_in(coroc, tmp_path, *args, "-", input=src))]:
        assert res.returncode == 0, res.stderr
        first = res.stdout.splitlines()[0] if res.stdout else ""
        assert first == "#define _GNU_SOURCE", f"({how}) the output begins with {first!r}"
        # everything before the first coroutine comes first, unchanged
        prefix = src[:src.index("coroutine")]
        assert res.stdout.startswith(prefix), f"({how}) the output does not begin with:\n{prefix}\n---\n{res.stdout[:400]}"


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_gnu_source_keeps_its_effect(coroc, tmp_path, cc):
    (tmp_path / "gnu.coc").write_text(GNU)
    res = coroc_in(coroc, tmp_path, "-o", "gnu.c", "gnu.coc")
    assert res.returncode == 0, res.stderr
    build = run([cc, "-std=c11", *WARNINGS, f"-I{COROC_INCLUDE}", "-o", tmp_path / "gnu", tmp_path / "gnu.c",
                 COROC_LIB], timeout=120)
    assert build.returncode == 0, f"_GNU_SOURCE lost its effect?\n{build.stderr}"
    prog = run([tmp_path / "gnu"], timeout=30)
    assert prog.returncode == 0 and prog.stdout == ",\n", prog.stdout


def test_o_into_a_fifo_writes_into_it(coroc, tmp_path, gen):
    """-o /dev/null and the like: a device or FIFO is written into, never
    replaced by a file (renaming over /dev/null would break the machine)."""
    import threading
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = {}

    def read_all():
        with open(fifo) as f:
            got["text"] = f.read()

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    res = coroc_in(coroc, tmp_path, "-o", fifo, gen)
    if res.returncode != 0:  # nobody will open the FIFO: let the reader go
        with open(fifo, "w"):
            pass
    reader.join(timeout=30)
    assert res.returncode == 0, res.stderr
    assert fifo.is_fifo()
    assert got["text"] == coroc_in(coroc, tmp_path, gen).stdout


def test_o_through_a_symlink_keeps_the_link(coroc, tmp_path, gen):
    target = tmp_path / "real.c"
    target.write_text("old\n")
    link = tmp_path / "link.c"
    link.symlink_to(target)
    res = coroc_in(coroc, tmp_path, "-o", link, gen)
    assert res.returncode == 0, res.stderr
    assert link.is_symlink()
    assert target.read_text() == coroc_in(coroc, tmp_path, gen).stdout


# --------------------------------------------------------------------------
# -MD, -MMD, -MF DEPFILE, -MT TARGET: the depfile
# --------------------------------------------------------------------------

# A user header in a directory of its own, found with -I, with a name that make
# needs quoted; stdio.h is a system header; coro.h comes with coroc's -include.
DEP_DIR = "my inc"
DEP_HEADER = "we$ird #1.h"
DEP_COC = """\
#include <stdio.h>
#include "we$ird #1.h"

coroutine int g(void) {
  yield ANSWER;
}
"""


@pytest.fixture
def dep_input(tmp_path):
    (tmp_path / DEP_DIR).mkdir()
    (tmp_path / DEP_DIR / DEP_HEADER).write_text("#define ANSWER 42\n")
    (tmp_path / "gen.coc").write_text(DEP_COC)
    return tmp_path


def make_words(text):
    """The words of a depfile as make splits them (names stay quoted)."""
    return re.findall(r"(?:\\.|[^\s\\])+", text.replace("\\\n", " "))


def depfile_rule(text):
    """(targets, prerequisites) of a depfile of one rule, names quoted for make."""
    words = make_words(text)
    colon = next(i for i, w in enumerate(words) if w.endswith(":"))
    return words[:colon] + [words[colon][:-1]], words[colon + 1:]


def make_quoted(name):
    """A file name as gcc -M quotes it (for names without a backslash)."""
    return name.replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ")


def make_unquoted(word):
    return re.sub(r"\\(.)", r"\1", word).replace("$$", "$")


def coroc_with_cpp(coroc, cwd, cpp, *args, input=None):
    env = dict(os.environ, COROC_CPP=cpp)
    return subprocess.run([str(a) for a in (coroc, *args)], input=input, capture_output=True,
                          text=True, timeout=30, cwd=cwd, env=env)


def test_depfile_names_target_input_and_headers(coroc, dep_input):
    res = coroc_in(coroc, dep_input, "-MD", "-MF", "gen.d", "-I", DEP_DIR, "-o", "OUT.c", "gen.coc")
    assert res.returncode == 0, res.stderr
    assert res.stdout == res.stderr == ""
    targets, prereqs = depfile_rule((dep_input / "gen.d").read_text())
    assert targets == ["OUT.c"]
    assert prereqs[0] == "gen.coc", prereqs
    assert make_quoted(f"{DEP_DIR}/{DEP_HEADER}") in prereqs, prereqs
    assert any(p.endswith("/stdio.h") for p in prereqs), prereqs
    assert any(p.endswith("/coro.h") for p in prereqs), "coro.h, which coroc includes, is missing"
    assert not [p for p in prereqs if p.startswith("<") or p in ("-", "<stdin>")], prereqs
    assert len(set(prereqs)) == len(prereqs), "a file is named twice"
    assert (dep_input / "OUT.c").read_text() == coroc_in(coroc, dep_input, "-I", DEP_DIR, "gen.coc").stdout


@pytest.mark.parametrize("flags, gcc_flags", [(["-MD"], ["-M"]), (["-MMD"], ["-MM"]),
                                               (["-MD", "-MP"], ["-M", "-MP"])],
                         ids=["MD", "MMD", "MD-MP"])
def test_depfile_lists_what_gcc_lists(coroc, dep_input, flags, gcc_flags):
    """With gcc as the preprocessor, the files, their order and their quoting
    are those of gcc -M (-MM for -MMD), given the options coroc gives gcc."""
    res = coroc_with_cpp(coroc, dep_input, "gcc -E", *flags, "-MF", "gen.d", "-I", DEP_DIR,
                         "-o", "OUT.c", "gen.coc")
    assert res.returncode == 0, res.stderr
    ours = make_words((dep_input / "gen.d").read_text())
    coro_h = make_unquoted(next(w for w in ours if w.endswith("/coro.h")))
    gcc = run(["gcc", *gcc_flags, "-MT", "OUT.c", "-x", "c", "-iquote", ".", "-idirafter",
               os.path.dirname(coro_h), "-include", coro_h, "-I", DEP_DIR, "gen.coc"], cwd=dep_input)
    assert gcc.returncode == 0, gcc.stderr
    assert ours == make_words(gcc.stdout)
    assert any(w.endswith("/stdio.h") for w in ours) == (flags[0] == "-MD"), ours


@pytest.mark.skipif(shutil.which("clang") is None, reason="clang is not installed")
def test_depfile_with_clang_as_the_preprocessor(coroc, dep_input):
    """clang names its pseudo files differently (<command line>) and may write
    ./ before a name: neither reaches the depfile."""
    res = coroc_with_cpp(coroc, dep_input, "clang -E", "-MD", "-MF", "gen.d", "-I", DEP_DIR,
                         "-o", "OUT.c", "gen.coc")
    assert res.returncode == 0, res.stderr
    targets, prereqs = depfile_rule((dep_input / "gen.d").read_text())
    assert targets == ["OUT.c"] and prereqs[0] == "gen.coc", prereqs
    assert make_quoted(f"{DEP_DIR}/{DEP_HEADER}") in prereqs, prereqs
    assert any(p.endswith("/stdio.h") for p in prereqs), prereqs
    assert not [p for p in prereqs if p.startswith(("<", "./"))], prereqs


def test_depfile_default_name_and_target_from_o(coroc, dep_input):
    """-MD alone, as gcc: the depfile is OUT.c with its suffix replaced by .d,
    and its target the -o output, quoted for make."""
    res = coroc_in(coroc, dep_input, "-MD", "-I", DEP_DIR, "-o", "my out.c", "gen.coc")
    assert res.returncode == 0, res.stderr
    targets, prereqs = depfile_rule((dep_input / "my out.d").read_text())
    assert targets == ["my\\ out.c"], targets
    assert prereqs[0] == "gen.coc"


def test_depfile_MT_verbatim_and_repeated(coroc, dep_input):
    res = coroc_in(coroc, dep_input, "-MMD", "-MFgen.d", "-MT", "a\\ b.c", "-MTc.c", "-I", DEP_DIR,
                   "-o", "OUT.c", "gen.coc")
    assert res.returncode == 0, res.stderr
    targets, _ = depfile_rule((dep_input / "gen.d").read_text())
    assert targets == ["a\\ b.c", "c.c"], targets


def test_depfile_of_standard_input(coroc, dep_input):
    """The input from standard input has no name to list; its headers are
    listed, and the C still goes to standard output."""
    res = coroc_in(coroc, dep_input, "-MD", "-MF", "gen.d", "-MT", "gen.c", "-I", DEP_DIR, "-",
                   input=DEP_COC)
    assert res.returncode == 0, res.stderr
    assert res.stdout == coroc_in(coroc, dep_input, "-I", DEP_DIR, "-", input=DEP_COC).stdout
    targets, prereqs = depfile_rule((dep_input / "gen.d").read_text())
    assert targets == ["gen.c"]
    assert not [p for p in prereqs if p in ("-", "<stdin>", "gen.coc")], prereqs
    assert make_quoted(f"{DEP_DIR}/{DEP_HEADER}") in prereqs, prereqs


def test_depfile_usage_error_names_what_is_missing(coroc, dep_input):
    res = coroc_in(coroc, dep_input, "-MD", "-MF", "gen.d", "gen.coc")
    assert res.returncode == 2
    first = res.stderr.splitlines()[0]
    assert "-MD" in first and "-o" in first and "-MT" in first, res.stderr


OLD_DEP = b"OUT.c: an older depfile that a failed run must leave alone\n"


def old_dep(d):
    dep = d / "gen.d"
    dep.write_bytes(OLD_DEP)
    os.utime(dep, OLD_TIME)
    return dep


@pytest.mark.parametrize("name", BAD.keys())
def test_depfile_failed_run_leaves_existing_depfile(coroc, tmp_path, name):
    (tmp_path / "bad.coc").write_text(BAD[name])
    dep = old_dep(tmp_path)
    before = os.stat(dep)
    res = coroc_in(coroc, tmp_path, "-MD", "-MF", "gen.d", "-o", "OUT.c", "bad.coc")
    assert res.returncode == 1, res.stderr
    assert dep.read_bytes() == OLD_DEP, "a failed run changed the depfile"
    after = os.stat(dep)
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)
    assert listing(tmp_path) == ["bad.coc", "gen.d"], f"a failed run left {listing(tmp_path)}"


@pytest.mark.parametrize("name", BAD.keys())
def test_depfile_failed_run_creates_no_depfile(coroc, tmp_path, name):
    (tmp_path / "bad.coc").write_text(BAD[name])
    res = coroc_in(coroc, tmp_path, "-MD", "-MF", "gen.d", "-o", "OUT.c", "bad.coc")
    assert res.returncode == 1, res.stderr
    assert listing(tmp_path) == ["bad.coc"], f"a failed run left {listing(tmp_path)}"


def test_depfile_not_written_when_the_output_cannot_be(coroc, tmp_path, gen):
    dep = old_dep(tmp_path)
    res = coroc_in(coroc, tmp_path, "-MD", "-MF", "gen.d", "-o", "no/such/dir/OUT.c", "gen.coc")
    assert res.returncode == 1, res.stderr
    assert dep.read_bytes() == OLD_DEP and os.stat(dep).st_mtime_ns == OLD_TIME[1] * 1_000_000_000
    assert listing(tmp_path) == ["gen.coc", "gen.d"], listing(tmp_path)


def test_output_not_written_when_the_depfile_cannot_be(coroc, tmp_path, gen):
    out = old_out(tmp_path)
    res = coroc_in(coroc, tmp_path, "-MD", "-MF", "no/such/dir/gen.d", "-o", "OUT.c", "gen.coc")
    assert res.returncode == 1, res.stderr
    assert "no/such/dir/gen.d" in res.stderr, res.stderr
    assert out.read_bytes() == OLD_BYTES and os.stat(out).st_mtime_ns == OLD_TIME[1] * 1_000_000_000
    assert listing(tmp_path) == ["OUT.c", "gen.coc"], listing(tmp_path)


CR_ONLY = (b'#include <stdio.h>\r/* lines that end with a lone CR, as old Mac files do */\r'
           b'coroutine int count(void) {\r  yield 1;\r  yield 2;\r}\r'
           b'int main(void) {\r  coro_t *c = count();\r  int v;\r'
           b'  while (coro_next(c, &v))\r    printf("%d\\n", v);\r  coro_free(c);\r}\r')


@pytest.mark.parametrize("backend", ["stackless", "stackful"])
def test_lone_cr_ends_a_line(toolchain, backend, tmp_path):
    """The preprocessor ends a line at a lone CR, and so does coroc: the coroutine is found,
    the program runs, and what lies outside the coroutine keeps its bytes."""
    src = tmp_path / "cr.coc"
    src.write_bytes(CR_ONLY)
    res = toolchain.build_and_run(src, backend)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "1\n2\n"
    out = toolchain.transform(src, backend)
    assert out.read_bytes().startswith(CR_ONLY[:CR_ONLY.index(b"coroutine")])


def test_lone_cr_in_a_diagnostic(tmp_path):
    """A diagnostic counts lines as the preprocessor does."""
    src = tmp_path / "bad.coc"
    src.write_bytes(b"int x;\rcoroutine int f(void) {\r  yield;\r  yield 1;\r}\r")
    res = run([COROC, "-o", tmp_path / "out.c", src], cwd=tmp_path)
    assert res.returncode == 1
    assert res.stderr.startswith(f"{src}:3:3: error: a generator cannot use a bare 'yield;'"), res.stderr


# --------------------------------------------------------------------------
# --header: the frames, for other files
# --------------------------------------------------------------------------

# A generator and a task with external linkage, a static one, and the types,
# macro and enumeration constant of this file that their frames use: one
# (struct sample) only through a local that no frame keeps, named for its type
# by a field and by a struct of the body.
HDR_COC = """\
#include <stdint.h>
#include <coro.h>
#define WINDOW 4
typedef struct { long sum; int n; } stats_t;
enum { SLOTS = 3 };
struct sample { int x; short y; };

coroutine long sums(const int *xs, int n) {
  int win[WINDOW] = {0};
  stats_t st = {0, 0};
  int8_t marks[SLOTS] = {0};
  struct sample probe = {0, 0};
  char raw[sizeof probe] = {(char)probe.x};
  struct { char d[sizeof probe]; } copy = {{0}};
  for (int i = 0; i < n; i++) {
    st.sum += xs[i] - win[i % WINDOW];
    win[i % WINDOW] = xs[i];
    marks[i % SLOTS]++;
    yield st.sum + marks[0] * 0 + raw[0] + copy.d[0];
  }
}

static coroutine int helper(void) {
  yield 1;
}

coroutine void job(int k, long *out) {
  yield;
  *out = k;
}

int use_helper(void) {
  coro_t *h = helper();
  int v = 0;
  coro_next(h, &v);
  coro_free(h);
  return v;
}
"""

# A C file that includes it twice (the guard), with a WINDOW of its own
# that the header must leave as it was.
HDR_USER = """\
#define WINDOW 99
#include "gen.h"
#include "gen.h"
#include <stdio.h>
int use_helper(void);
int main(void) {
  static const int xs[] = {1, 2, 3, 4, 5};
  CORO_FRAME(sums) frame;
  coro_t *g = coro_in_sums(&frame, xs, 5);
  long v, last = 0;
  while (coro_next(g, &v))
    last = v;
  coro_free(g);
  long out = 0;
  CORO_FRAME(job) j;
  coro_spawn(coro_in_job(&j, 7, &out));
  coro_run();
  printf("%ld %ld %d %d\\n", last, out, WINDOW, use_helper());
  return 0;
}
"""


@pytest.fixture
def hdr(tmp_path):
    p = tmp_path / "gen.coc"
    p.write_text(HDR_COC)
    (tmp_path / "user.c").write_text(HDR_USER)
    return p


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_header_compiles_in_another_file(coroc, tmp_path, hdr, backend, cc):
    res = coroc_in(coroc, tmp_path, f"--backend={backend}", "--header=gen.h", "-o", "gen.c", "gen.coc")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "" and res.stderr == ""
    text = (tmp_path / "gen.h").read_text()
    assert "coro_t *coro_in_sums(" in text and "coro_t *coro_in_job(" in text, text
    assert "helper" not in text, "the header declares a static coroutine"
    assert text.count("#include <coro.h>") == 1, text
    exe = tmp_path / "user"
    res = run([cc, "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{tmp_path}", "-o", exe,
               tmp_path / "gen.c", tmp_path / "user.c", COROC_LIB, "-pthread"], timeout=120)
    assert res.returncode == 0, res.stderr
    prog = run([exe], timeout=30)
    assert prog.returncode == 0, prog.stderr
    # 2 + 3 + 4 + 5, the last WINDOW values; the includer's WINDOW is its own again
    assert prog.stdout == "14 7 99 1\n", prog.stdout


@pytest.mark.parametrize("backend", BACKENDS)
def test_header_changes_only_the_linkage_of_coro_in(coroc, tmp_path, hdr, backend):
    """With --header, coro_in_NAME of a coroutine with external linkage is an
    external function, declared first (-Wmissing-prototypes); nothing else
    changes, the static one's neither."""
    plain = coroc_in(coroc, tmp_path, f"--backend={backend}", "--no-line", "gen.coc")
    res = coroc_in(coroc, tmp_path, f"--backend={backend}", "--no-line", "--header=gen.h", "gen.coc")
    assert res.returncode == 0, res.stderr
    diff = [l for l in difflib.ndiff(plain.stdout.splitlines(), res.stdout.splitlines())
            if l.startswith(("- ", "+ "))]
    sums = "coro_t *coro_in_sums(struct coro_frame_sums *coro_f, const int *xs, int n)"
    job = "coro_t *coro_in_job(struct coro_frame_job *coro_f, int k, long *out)"
    expected = []
    for head in [sums, job]:
        expected += [f"+ {head};  /* (in the header too) */",
                     f"- static inline __attribute__((unused)) {head} {{", f"+ {head} {{"]
    assert diff == expected, "\n".join(diff)


def test_header_alone_is_named_after_the_output(coroc, tmp_path, hdr):
    (tmp_path / "out").mkdir()
    res = coroc_in(coroc, tmp_path, "--header", "-o", "out/gen.stackless.c", "gen.coc")
    assert res.returncode == 0, res.stderr
    assert listing(tmp_path / "out") == ["gen.stackless.c", "gen.stackless.h"]
    assert "#ifndef CORO_HEADER_GEN_STACKLESS_H" in (tmp_path / "out/gen.stackless.h").read_text()


def test_header_with_stdin_and_stdout(coroc, tmp_path, hdr):
    res = coroc_in(coroc, tmp_path, "--header=gen.h", "-", input=HDR_COC)
    assert res.returncode == 0, res.stderr
    assert "coro_t *coro_in_sums(struct coro_frame_sums" in res.stdout
    assert "coro_t *coro_in_sums(" in (tmp_path / "gen.h").read_text()


OLD_H = b"/* an older header that a failed run must leave alone */\n"


@pytest.mark.parametrize("name", BAD.keys())
def test_header_failed_run_leaves_existing_header(coroc, tmp_path, name):
    (tmp_path / "bad.coc").write_text(BAD[name])
    out = old_out(tmp_path)
    h = tmp_path / "OUT.h"
    h.write_bytes(OLD_H)
    os.utime(h, OLD_TIME)
    res = coroc_in(coroc, tmp_path, "--header=OUT.h", "-o", "OUT.c", "bad.coc")
    assert res.returncode == 1, res.stderr
    assert h.read_bytes() == OLD_H and os.stat(h).st_mtime_ns == OLD_TIME[1] * 1_000_000_000
    assert out.read_bytes() == OLD_BYTES
    assert listing(tmp_path) == ["OUT.c", "OUT.h", "bad.coc"], listing(tmp_path)


def test_header_that_cannot_be_written_leaves_no_output(coroc, tmp_path, gen):
    res = coroc_in(coroc, tmp_path, "--header=no/such/dir/gen.h", "-o", "OUT.c", "gen.coc")
    assert res.returncode == 1, res.stderr
    assert "no/such/dir/gen.h" in res.stderr, res.stderr
    assert listing(tmp_path) == ["gen.coc"], listing(tmp_path)


# What a header cannot show: the message, at the place in the .coc that needs it.
HEADER_REFUSALS = {
    "type-with-an-object": (
        "struct pt { int x, y; } origin;\n"
        "coroutine int f(void) {\n  struct pt p = origin;\n  yield p.x;\n  yield p.y;\n}\n",
        "bad.coc:3:10: error: --header: the frame of 'f' cannot be declared in a header: the tag "
        "'pt', declared at bad.coc:1 together with an object or a function, which a header cannot "
        "repeat (declare the type on its own)\n"
        "    3 |   struct pt p = origin;\n"
        "      |          ^\n"),
    "object-in-a-type": (
        "static int table[4];\n"
        "coroutine int f(void) {\n  char buf[sizeof table] = {0};\n  yield buf[0];\n  yield buf[1];\n}\n",
        "bad.coc:3:19: error: --header: the frame of 'f' cannot be declared in a header: its type "
        "names 'table', an object of this file, which a header cannot define\n"
        "    3 |   char buf[sizeof table] = {0};\n"
        "      |                   ^\n"),
    "object-in-a-macro": (
        "static int table[4];\n#define N (sizeof table)\n"
        "coroutine int f(void) {\n  char buf[N] = {0};\n  yield buf[0];\n  yield buf[1];\n}\n",
        "bad.coc:4:12: error: --header: the frame of 'f' cannot be declared in a header: its type "
        "names 'table', an object of this file, which a header cannot define\n"
        "    4 |   char buf[N] = {0};\n"
        "      |            ^\n"),
    "typedef-made-by-a-macro": (
        "#define MAKE(T, N) typedef T N;\nMAKE(int, myint)\n"
        "coroutine int f(void) {\n  myint x = 1;\n  yield x;\n  yield x;\n}\n",
        "bad.coc:4:3: error: --header: the frame of 'f' cannot be declared in a header: 'myint' is "
        "declared at bad.coc:2 by a macro's expansion, which coroc does not copy (declare it in a "
        "header of your own, or without the macro)\n"
        "    4 |   myint x = 1;\n"
        "      |   ^\n"),
}


@pytest.mark.parametrize("name", HEADER_REFUSALS.keys())
def test_header_refuses_what_it_cannot_show(coroc, tmp_path, name):
    src, message = HEADER_REFUSALS[name]
    (tmp_path / "bad.coc").write_text(src)
    res = coroc_in(coroc, tmp_path, "--header=bad.h", "-o", "bad.c", "bad.coc")
    assert res.returncode == 1, res.stderr
    assert res.stderr == message
    assert listing(tmp_path) == ["bad.coc"], "a refused header left files"
    # without --header, the same file is fine: the rule is the header's
    res = coroc_in(coroc, tmp_path, "-o", "bad.c", "bad.coc")
    assert res.returncode == 0, res.stderr


# --------------------------------------------------------------------------
# an input read as the compiler reads it
# --------------------------------------------------------------------------

PREPROCESSED_SRC = """\
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
struct my_info { int si_pid; };
static const char *words = "a coroutine, yield, await: only words here";
int coroutines_seen = 1;  /* coroutine in a comment */
coroutine int gen(int n) {
  for (int i = 0; i < n; i++)
    yield i * 10;
}
int main(void) {
  struct my_info m = {3};
  uint64_t total = 0;
  int v;
  coro_t *g = gen(m.si_pid);
  while (coro_next(g, &v))
    total += (uint64_t)v;
  coro_free(g);
  printf("%d %d %s\\n", (int)total, coroutines_seen, words);
  return 0;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("how", [["-E"], ["-E", "-P"]], ids=["linemarkers", "plain"])
def test_preprocessed_input(coroc, tmp_path, backend, how):
    """A file that `cc -E` already preprocessed (glibc's declarations in it, without their
    include guards) goes through coroc, which includes <coro.h> into it: the header must
    not declare them again. The words in strings and comments are only words."""
    (tmp_path / "src.c").write_text(PREPROCESSED_SRC)
    pre = run(["gcc", *how, "-D_GNU_SOURCE", "-o", tmp_path / "pre.coc", tmp_path / "src.c"], cwd=tmp_path)
    assert pre.returncode == 0, pre.stderr
    res = coroc_in(coroc, tmp_path, f"--backend={backend}", "-o", "pre.c", "pre.coc")
    assert res.returncode == 0, res.stderr
    cc = run(["gcc", "-std=gnu11", *WARNINGS, "-Wno-unused-function", f"-I{COROC_INCLUDE}", "-o", tmp_path / "pre",
              tmp_path / "pre.c", COROC_LIB], timeout=120, cwd=tmp_path)
    assert cc.returncode == 0, cc.stderr
    assert run([tmp_path / "pre"]).stdout == "30 1 a coroutine, yield, await: only words here\n"


def header_of_case(coroc, tmp_path, backend, case, frame, wanted):
    """--header for a case: each of `wanted` in it (stackless: a stackful frame holds no locals),
    and a file of its own that includes it and sizes CORO_FRAME(frame) compiles."""
    res = run([coroc, f"--backend={backend}", f"-I{TESTS_DIR}", f"--header={tmp_path / 'h.h'}",
               "-o", tmp_path / "h.c", TESTS_DIR / "cases" / case])
    assert res.returncode == 0, res.stderr
    text = (tmp_path / "h.h").read_text()
    for line in wanted if backend == "stackless" else ():
        assert line in text, text
    (tmp_path / "user.c").write_text(f'#include "h.h"\nint frame_size(void) {{ return sizeof (CORO_FRAME({frame})) > 0; }}\n')
    res = run(["gcc", "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}", f"-I{tmp_path}",
               "-c", "-o", tmp_path / "user.o", tmp_path / "user.c"], timeout=60)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("backend", BACKENDS)
def test_header_declares_a_pasted_type(coroc, tmp_path, backend):
    """A local declared with a macro that pastes its type (`owned(cell) c`, as GLib's
    g_autoptr(T) is written) has the pasted type in its field: the header copies that
    typedef, which no token of the .coc spells where the local is declared."""
    header_of_case(coroc, tmp_path, backend, "pasted_cleanup_macros.coc", "cells",
                   ["typedef cell *cell_owned;"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_header_declares_what_an_auto_type_value_names(coroc, tmp_path, backend):
    """An `__auto_type` local's field is typed from its value (`(struct pt){n, n + 1}`, another
    local, a child's value): the header copies the types that value names, but not what an
    await in it names (the awaited coroutine's value type comes with its frame)."""
    header_of_case(coroc, tmp_path, backend, "auto_type.coc", "autos", ["struct pt { int x, y; };"])


# The cases whose frames a header cannot show, why, and in which backends (a stackful frame
# holds no locals: only a parameter's type can be refused there). coroc says so and writes no
# header.
HEADER_REFUSED = {
    "array_sizes.coc": ("its type names 'mk', a function of this file", ["stackless"]),  # a shape
    "loop_macros.coc": ("the tag 'items' is declared at", BACKENDS),  # by a macro's expansion
    "typeof_arrays.coc": ("its type names 'table', an object of this file", ["stackless"]),
}
CASES = sorted((TESTS_DIR / "cases").glob("*.coc"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_header_of_every_case(coroc, tmp_path, case, backend):
    """--header on every language case: a header that gcc compiles alone, with -Wall -Wextra, or
    a refusal that says what the frame names that a header cannot show (HEADER_REFUSED)."""
    args = case_args(case)
    header = tmp_path / "case.h"
    res = run([coroc, f"--backend={backend}", *args, f"-I{TESTS_DIR}", f"-I{TESTS_DIR / 'cases'}",
               f"--header={header}", "-o", tmp_path / "case.c", case])
    why, backends = HEADER_REFUSED.get(case.name, (None, []))
    if backend in backends:
        assert res.returncode == 1 and "--header: the frame of" in res.stderr and why in res.stderr, res.stderr
        assert not header.exists()
        return
    assert res.returncode == 0, res.stderr
    cc = run(["gcc", "-std=gnu11", *args, *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}",
              f"-I{TESTS_DIR / 'cases'}", "-fsyntax-only", "-x", "c", header], timeout=60)
    assert cc.returncode == 0, cc.stderr
