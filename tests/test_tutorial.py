"""The tutorial cannot drift from the code.

Each chapter is a folder tutorial/NN-name/ with a README.md, its programs and
a `step` script. This checks that:

- every program prints what its NAME.out says: NAME.c compiled directly (gcc
  and clang, warning-free), NAME.coc through coroc with both backends, NAME.sh
  run as it is (with gcc as $CC);
- every fenced block of a chapter's README says what it is (tutorial/README.md,
  "How the text is checked"), and is what it claims to be: an `output FILE`
  block is a byte-for-byte copy of FILE, and a listing is a piece of the file,
  of coroc's output or of the diff it names;
- every NAME.out is shown in its chapter, every relative link leads somewhere,
  and tutorial/README.md lists every chapter;
- every chapter's `step` runs to the end and exits 0;
- every chapter ends with 2 to 4 exercises, and `step --check N` passes the
  chapter's own answer (solutions/N.c or .coc) and refuses wrong ones, saying
  what is wrong.
"""
import os
import re
import shutil
import subprocess

import pytest

import importlib.util

from conftest import (COROC, COROC_INCLUDE, COROC_LIB, COMPILERS, FULL, SOURCE_DIR, BACKENDS,
                      WARNINGS, run)

TUTORIAL = SOURCE_DIR / "tutorial"
_spec = importlib.util.spec_from_file_location("includes", TUTORIAL / "includes.py")
includes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(includes)
CHAPTERS = sorted(p for p in TUTORIAL.iterdir() if p.is_dir() and re.match(r"\d\d-", p.name))
FENCE = re.compile(r"^( *)(`{3,})(.*)$")
LISTING_KINDS = ("file", "coroc", "diff")  # LANG file PATH | LANG coroc ARGS... | LANG diff OLD NEW
# LANG include PATH FIRST LAST: the whole of a piece of a file (tutorial/includes.py)
FREE_KINDS = ("sh", "text")                # commands to type, pictures: nothing to check


def outputs(chapter):
    return sorted(chapter.glob("*.out"))


def source_of(out):
    """The program whose output out is: NAME.c, NAME.coc or NAME.sh."""
    found = [out.with_suffix(s) for s in (".c", ".coc", ".sh") if out.with_suffix(s).exists()]
    assert len(found) == 1, f"{out.name}: expected one of NAME.c, NAME.coc, NAME.sh, found {found}"
    return found[0]


def blocks(readme):
    """The fenced blocks of a Markdown file: (line number, info string, text)."""
    lines = readme.read_text().split("\n")
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3).strip()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        assert i < len(lines), f"{readme}:{start}: a fenced block is never closed"
        found.append((start, info, "".join(l + "\n" for l in body)))
        i += 1
    return found


def script_env(tmp_path):
    env = dict(os.environ, COROC=str(COROC), COROC_LIB=str(COROC_LIB),
               COROC_INCLUDE=str(COROC_INCLUDE), COROC_BUILD_DIR=str(tmp_path),
               CC="gcc", LC_ALL="C")
    env.pop("CFLAGS", None)
    return env


def run_script(script, tmp_path, timeout):
    """Run a chapter's script with the build's coroc and libcoro; what it
    builds goes to tmp_path."""
    return subprocess.run([str(script)], cwd=script.parent, env=script_env(tmp_path),
                          capture_output=True, text=True, timeout=timeout)


def needs_gdb(script):
    return "debug_session" in script.read_text() and shutil.which("gdb") is None


# {==== the chapters' shape

def test_there_are_chapters():
    assert CHAPTERS


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_chapter_shape(chapter):
    assert (chapter / "README.md").is_file()
    assert os.access(chapter / "step", os.X_OK), f"{chapter.name}/step is not executable"
    for src in [*chapter.glob("*.c"), *chapter.glob("*.coc")]:
        assert src.with_suffix(".out").exists(), f"{src.name} has no .out: every program is checked"
    for out in outputs(chapter):
        source_of(out)
        assert out.read_text().endswith("\n"), f"{out.name} does not end with a newline"
    for script in chapter.glob("*.sh"):
        assert os.access(script, os.X_OK), f"{script.name} is not executable"


def test_map_lists_every_chapter():
    text = (TUTORIAL / "README.md").read_text()
    for chapter in CHAPTERS:
        assert f"({chapter.name}/)" in text or f"({chapter.name}/README.md)" in text, \
            f"tutorial/README.md does not link {chapter.name}/"


@pytest.mark.parametrize("readme", [TUTORIAL / "README.md", *(c / "README.md" for c in CHAPTERS)],
                         ids=["map", *(c.name for c in CHAPTERS)])
def test_links_lead_somewhere(readme):
    """Relative links point at files that exist; those into build/ are made by
    `step` and are not checked."""
    # (not inside fenced code, where `[x](y)` is code: an asm operand, say)
    text = re.sub(r"^( *)(`{3,}).*?^\1\2 *$", "", readme.read_text(), flags=re.M | re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        path = target.split("#")[0]
        if not path or re.match(r"[a-z]+:", path):
            continue
        resolved = (readme.parent / path).resolve()
        if resolved.is_relative_to((SOURCE_DIR / "build").resolve()):
            continue
        assert resolved.exists(), f"{readme.relative_to(SOURCE_DIR)}: a link to {target} leads nowhere"


# }====
# {==== the programs print what the chapters show

C_PROGRAMS = [(c, s) for c in CHAPTERS for s in sorted(c.glob("*.c"))]
COC_PROGRAMS = [(c, s) for c in CHAPTERS for s in sorted(c.glob("*.coc"))]
SCRIPTS = [(c, o.with_suffix(".sh")) for c in CHAPTERS for o in outputs(c)
           if o.with_suffix(".sh").exists()]


def ident(pair):
    return f"{pair[0].name}/{pair[1].name}"


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("chapter,src", C_PROGRAMS, ids=[ident(p) for p in C_PROGRAMS])
def test_c_program(chapter, src, cc, tmp_path):
    exe = tmp_path / src.stem
    res = run([cc, "-std=gnu11", *WARNINGS, "-o", exe, src])
    assert res.returncode == 0, res.stderr
    res = run([exe], cwd=chapter, timeout=30)
    assert res.returncode == 0, res.stderr
    assert res.stdout == src.with_suffix(".out").read_text()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chapter,src", COC_PROGRAMS, ids=[ident(p) for p in COC_PROGRAMS])
def test_coc_program(toolchain, chapter, src, backend):
    res = toolchain.build_and_run(src, backend, "gcc", timeout=30)
    assert res.returncode == 0, res.stderr
    assert res.stdout == src.with_suffix(".out").read_text()


@pytest.mark.parametrize("chapter,script", SCRIPTS, ids=[ident(p) for p in SCRIPTS])
def test_script(coroc, chapter, script, tmp_path):
    if needs_gdb(script):
        pytest.skip("gdb is not installed")
    res = run_script(script, tmp_path, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout == script.with_suffix(".out").read_text()


# }====
# {==== the text shows what the programs print

BLOCKS = [(c, line, info, text) for c in CHAPTERS if (c / "README.md").exists()
          for line, info, text in blocks(c / "README.md")]


def excerpt_of(shown, whole, what):
    """shown is a piece of whole: its lines stand in whole one after the other,
    except where a line `...` leaves some out."""
    lines, pos = whole.split("\n"), 0
    pieces = [[]]
    for l in shown.rstrip("\n").split("\n"):
        if l.strip() == "...":
            pieces.append([])
        else:
            pieces[-1].append(l)
    for piece in filter(None, pieces):
        n = len(piece)
        at = next((i for i in range(pos, len(lines) - n + 1) if lines[i:i + n] == piece), None)
        assert at is not None, f"not in {what} (or not in this order):\n" + "\n".join(piece)
        pos = at + n


@pytest.mark.parametrize("chapter,line,info,text", BLOCKS,
                         ids=[f"{b[0].name}:{b[1]}" for b in BLOCKS])
def test_block(coroc, chapter, line, info, text):
    words = info.split()
    assert words, f"{chapter.name}/README.md:{line}: a block must say what it is"
    if words[0] == "output":
        assert len(words) == 2, f"{chapter.name}/README.md:{line}: `output FILE`"
        out = chapter / words[1]
        assert out.suffix == ".out" and out.exists(), f"{words[1]} is not one of the chapter's .out"
        assert text == out.read_text(), f"{chapter.name}/README.md:{line} is not a copy of {words[1]}"
        return
    if len(words) == 1 and words[0] in FREE_KINDS:
        return
    if len(words) == 5 and words[1] == "include":
        whole = includes.extract(chapter, *words[2:])
        assert text == whole, (f"{chapter.name}/README.md:{line}: not the same as {' '.join(words[2:])}"
                               "; run tutorial/includes.py to take it again from the file")
        return
    assert len(words) >= 3 and words[1] in LISTING_KINDS, \
        f"{chapter.name}/README.md:{line}: unknown kind of block: {info!r}"
    kind, args = words[1], words[2:]
    if kind == "file":
        assert len(args) == 1
        whole = (chapter / args[0]).read_text()
    elif kind == "coroc":
        res = run([COROC, *args], cwd=chapter)
        assert res.returncode == 0, res.stderr
        whole = res.stdout
    else:
        assert len(args) == 2
        res = run(["diff", "-u", *args], cwd=chapter)
        whole = res.stdout.split("\n", 2)[2]  # without the --- and +++ lines and their dates
    excerpt_of(text, whole, f"{kind} {' '.join(args)}")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_every_output_is_shown(chapter):
    shown = {info.split()[1] for c, _, info, _ in BLOCKS
             if c == chapter and info.startswith("output ")}
    for out in outputs(chapter):
        assert out.name in shown, f"{chapter.name}: {out.name} is never shown"


# }====
# {==== each chapter can be stepped into

@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_step(coroc, chapter, tmp_path):
    res = run_script(chapter / "step", tmp_path, timeout=120)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "FAIL" not in res.stdout + res.stderr

# }====


# {==== pictures: committed beside their chapters, drawn by Graphviz

PICTURES = sorted(TUTORIAL.glob("[0-9][0-9]-*/*.dot"))
# The state machines the chapters show: `draw NAME` in a chapter's step.
DRAWINGS = sorted(c / f"{m}.coc" for c in CHAPTERS
                  for m in re.findall(r"^\s*draw (\w+)$", (c / "step").read_text(), re.M))
# Debian 12's Graphviz draws the committed pictures; another version may lay
# them out otherwise, and is held to the same nodes and edges only.
REFERENCE_DOT = "graphviz version 2.43.0 (0)"


def without_version(svg):
    return re.sub(r"<!-- Generated by graphviz version [^>]*-->\n", "", svg)


def graph_of(svg):
    """The titles of an SVG's nodes and edges, as Graphviz writes them."""
    return sorted(re.findall(r'<g id="(?:node|edge)\d+" class="(node|edge)">\n<title>([^<]*)</title>',
                             svg))


def assert_drawn_now(committed, dot_source, cwd, tmp_path):
    """committed is what `dot -Tsvg` draws from dot_source now."""
    assert committed.exists(), f"{committed} is missing: cmake --build build --target tutorial_svg"
    if shutil.which("dot") is None:
        pytest.skip("Graphviz is not installed")
    res = run(["dot", "-Tsvg"], input=dot_source, cwd=cwd)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    old, new = committed.read_text(), res.stdout
    assert graph_of(old) and graph_of(old) == graph_of(new), \
        f"{committed.name} is out of date: cmake --build build --target tutorial_svg"
    if REFERENCE_DOT in new:
        assert without_version(old) == without_version(new), \
            f"{committed.name} is not what dot draws now: cmake --build build --target tutorial_svg"


def test_there_are_pictures():
    assert len(PICTURES) >= 4 and len(DRAWINGS) >= 4


@pytest.mark.parametrize("picture", PICTURES, ids=[f"{p.parent.name}/{p.name}" for p in PICTURES])
def test_picture_is_drawn_and_shown(picture, tmp_path):
    """Each NAME.dot is in tutorial/CMakeLists.txt, drawn by its chapter's
    step, shown in its chapter as the committed NAME.svg beside it (a link
    that works in any build directory and in a web view) with its source
    linked, and NAME.svg is what Graphviz draws from NAME.dot now."""
    chapter, name = picture.parent, picture.stem
    assert f"{chapter.name}/{name}\n" in (TUTORIAL / "CMakeLists.txt").read_text()
    assert f"picture {name}" in (chapter / "step").read_text()
    text = (chapter / "README.md").read_text()
    assert f"]({name}.svg)" in text and "build/tutorial" not in text.split(f"]({name}.svg)")[0][-300:]
    assert f"]({name}.dot)" in text
    assert_drawn_now(chapter / f"{name}.svg", picture.read_text(), chapter, tmp_path)


@pytest.mark.parametrize("program", DRAWINGS, ids=[f"{p.parent.name}/{p.stem}" for p in DRAWINGS])
def test_state_machine_is_drawn_now(coroc, program, tmp_path):
    """Each state machine a chapter draws is committed as NAME.svg beside it,
    in tutorial/CMakeLists.txt, and is what dot draws from coroc --dot now."""
    chapter, name = program.parent, program.stem
    assert f"{chapter.name}/{name}\n" in (TUTORIAL / "CMakeLists.txt").read_text()
    res = run([COROC, "--dot", f"{name}.coc"], cwd=chapter)
    assert res.returncode == 0, res.stderr
    assert_drawn_now(chapter / f"{name}.svg", res.stdout, chapter, tmp_path)


def test_no_link_into_build():
    """Pictures are committed: no chapter links into a build directory."""
    for readme in [TUTORIAL / "README.md", *(c / "README.md" for c in CHAPTERS)]:
        assert "../../build/" not in readme.read_text(), readme


# }====
# {==== exercises: step --check N FILE

def solutions(chapter):
    return sorted((p for p in (chapter / "solutions").glob("*") if p.suffix in (".c", ".coc")),
                  key=lambda p: int(p.stem))


SOLUTIONS = [(c, s) for c in CHAPTERS for s in solutions(c)]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_chapter_has_exercises(chapter):
    text = (chapter / "README.md").read_text()
    assert "\n## Exercises\n" in text, f"{chapter.name} has no Exercises section"
    numbers = [int(s.stem) for s in solutions(chapter)]
    assert 2 <= len(numbers) <= 4, f"{chapter.name}: {len(numbers)} exercises"
    assert numbers == list(range(1, len(numbers) + 1))
    section = text.split("\n## Exercises\n")[1].split("\n## ")[0]
    for n in numbers:
        assert re.search(rf"^{n}\. \*\*", section, re.M), f"{chapter.name}: exercise {n} is not in the text"
        assert (chapter / "solutions" / f"{n}.out").exists()


@pytest.mark.parametrize("chapter,solution", SOLUTIONS, ids=[ident(p) for p in SOLUTIONS])
def test_solution_passes_the_check(coroc, chapter, solution, tmp_path):
    res = subprocess.run([str(chapter / "step"), "--check", solution.stem, str(solution)],
                         cwd=tmp_path, env=script_env(tmp_path), capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert f"exercise {solution.stem}: right." in res.stdout


@pytest.mark.parametrize("chapter,solution", SOLUTIONS, ids=[ident(p) for p in SOLUTIONS])
def test_check_refuses_a_wrong_answer(coroc, chapter, solution, tmp_path):
    """An answer that prints nothing, one with a warning, and one that prints
    the right lines and one more, are each refused, with the reason. (The
    first two take the same way through tutorial/lib.sh's check for every
    exercise: the suite gives them to each chapter's first exercise, and the
    third, made of each exercise's own lines, to all; tests/run --full gives
    all three to all.)"""
    n = solution.stem
    first_of_chapter = solution == solutions(chapter)[0]
    requires = chapter / "solutions" / f"{n}.requires"
    if (chapter / "solutions" / f"{n}.coroc").exists():
        return refuses_a_wrong_coroc_answer(chapter, solution, tmp_path)
    # what solutions/N.requires asks for, taken from the solution's own lines
    source = solution.read_text().splitlines()
    header = "".join(next(l for l in source if re.search(r.split("\t")[0], l)) + "\n"
                     for r in (requires.read_text().splitlines() if requires.exists() else []))
    expected = (chapter / "solutions" / f"{n}.out").read_text()
    cases = {
        "nothing": ("int main(void) { return 0; }\n", "printed nothing"),
        "warning": ("int main(void) { int unused; return 0; }\n", "with warnings"),
        "one more": ("#include <stdio.h>\nint main(void) { fputs(" + c_string(expected + "extra\n")
                     + ", stdout); return 0; }\n", "1 too many, from line"),
    }
    for what, (program, reason) in cases.items():
        if what != "one more" and not (FULL or first_of_chapter):
            continue
        answer = tmp_path / f"answer{solution.suffix}"
        answer.write_text("#if 0\n" + header + "#endif\n" + program)
        res = subprocess.run([str(chapter / "step"), "--check", n, str(answer)], cwd=tmp_path,
                             env=script_env(tmp_path), capture_output=True, text=True, timeout=120)
        assert res.returncode == 1, f"{what}: " + res.stdout[-2000:] + res.stderr[-2000:]
        assert f"exercise {n}: not yet." in res.stdout and reason in res.stdout, \
            f"{what}: " + res.stdout[-2000:]


def refuses_a_wrong_coroc_answer(chapter, solution, tmp_path):
    n = solution.stem
    answer = tmp_path / "answer.coc"
    answer.write_text("int main(void) { return 0; }\n")
    res = subprocess.run([str(chapter / "step"), "--check", n, str(answer)], cwd=tmp_path,
                         env=script_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"exercise {n}: not yet." in res.stdout


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


STARTERS = [(c, s) for c in CHAPTERS for s in sorted((c / "exercises").glob("*.c*"))]


@pytest.mark.parametrize("chapter,starter", STARTERS, ids=[ident(p) for p in STARTERS])
def test_starter_is_not_yet_an_answer(coroc, chapter, starter, tmp_path):
    """exercises/N.coc, the program an exercise starts from, builds, and the
    check says what it still does wrong."""
    res = subprocess.run([str(chapter / "step"), "--check", starter.stem, str(starter)],
                         cwd=tmp_path, env=script_env(tmp_path), capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 1, res.stdout[-3000:] + res.stderr[-3000:]
    assert f"exercise {starter.stem}: not yet." in res.stdout
    assert "does not compile" not in res.stdout and "with warnings" not in res.stdout


def test_check_says_why_a_killed_program_printed_less(tmp_path):
    """A program killed by a signal before it flushed stdout prints less than
    it wrote; the check says why, and what to do."""
    answer = tmp_path / "killed.c"
    answer.write_text("#include <signal.h>\n#include <stdio.h>\n"
                      "int main(void) { printf(\"12a3b: aaaaaaaaaaaabbb\\n\"); raise(SIGSEGV); return 0; }\n")
    res = subprocess.run([str(CHAPTERS[0] / "step"), "--check", "1", str(answer)], cwd=tmp_path,
                         env=script_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "printed nothing" in res.stdout and "killed by SIGSEGV" in res.stdout, res.stdout
    assert "fflush(stdout)" in res.stdout, res.stdout


def test_check_usage(tmp_path):
    step = CHAPTERS[0] / "step"
    res = subprocess.run([str(step), "--check"], cwd=tmp_path, env=script_env(tmp_path),
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "usage" in res.stderr
    res = subprocess.run([str(step), "--check", "1"], cwd=tmp_path, env=script_env(tmp_path),
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "exercise-1.c" in res.stderr
    res = subprocess.run([str(step), "--check", "99", str(CHAPTERS[0] / "iterator.c")], cwd=tmp_path,
                         env=script_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "no exercise 99" in res.stderr

# }====
