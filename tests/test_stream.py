"""The streaming run (transformer/stream.c): the C written a coroutine at a time.

coroc writes the C of each coroutine as soon as it has read it, and gives
its memory back before the next; COROC_WHOLE=1 makes it read every
coroutine first and print the output from memory, the way --header and
--dot do (docs/design.md, "The streaming run"). What is checked here, each
against that whole run, the second source:
  * every case, task program, example and error input of the tree gives the
    same C (-o OUT.c), the same messages and the same exit status, in both
    backends;
  * where the streaming run must give up and run the file whole (a guess
    of what a coroutine below decides that was wrong; an error met in
    another order than the whole run meets it; a generator awaited above
    its definition), the C and the message are still the whole run's, and
    a failed run leaves no output and no temporary file;
  * it streams: on a file of many coroutines its peak memory is well under
    the whole run's (a ratio of two runs made here).
"""
import os
import subprocess

import pytest

from conftest import BACKENDS, COROC, SOURCE_DIR, TESTS_DIR, case_args, every_nth


def coroc(args, cwd, whole=False, env_extra=None):
    """(status, stderr, the files in cwd after it) of one run of coroc."""
    env = dict(os.environ)
    env.pop("COROC_WHOLE", None)
    if whole:
        env["COROC_WHOLE"] = "1"
    env.update(env_extra or {})
    proc = subprocess.run([str(COROC), *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          timeout=120)
    files = {p.name: p.read_bytes() for p in sorted(cwd.iterdir()) if p.is_file()}
    return proc.returncode, proc.stderr.decode(errors="replace"), files


def both(tmp_path, src, args, env_extra=None):
    """The streaming run and the whole run of src, each in a directory of its own."""
    results = []
    for whole in (False, True):
        d = tmp_path / ("whole" if whole else "stream")
        d.mkdir(parents=True)
        results.append(coroc([*args, "-o", "out.c", src], d, whole, env_extra))
    return results


def inputs():
    found = sorted((TESTS_DIR / "cases").glob("*.coc")) + sorted((TESTS_DIR / "tasks").glob("*.coc"))
    found += sorted((SOURCE_DIR / "examples").glob("*.coc")) + sorted((TESTS_DIR / "errors").glob("*.coc"))
    return found


@pytest.mark.parametrize("backend", BACKENDS)
def test_same_as_whole(tmp_path, backend):
    """Every input, in one backend (each takes every other input; --full: both)."""
    differ = []
    for i, src in enumerate(every_nth(inputs(), len(BACKENDS), BACKENDS.index(backend))):
        args = [f"--backend={backend}", f"-I{TESTS_DIR}", f"-I{src.parent}", *case_args(src)]
        stream, whole = both(tmp_path / str(i), src, args)
        if stream != whole:
            differ.append(f"{src.relative_to(SOURCE_DIR)}: streaming {stream[:2]}, whole {whole[:2]}")
    assert not differ, "\n".join(differ)


TASK = "coroutine int t{n}(int x) {{ return x + {n}; }}\n"

# Inputs on which the streaming run guesses what a coroutine below decides,
# each with what makes the guess hard and the backends in which it is wrong
# (there the streaming run gives up and runs the file whole).
GUESSES = {
    # `await t0(` below t0, but in an async generator, whose children go on
    # the heap: t0 is not awaited inline, as the guess sees (a body that
    # yields a value)
    "await_in_async_generator": (TASK.format(n=0) + (
        "coroutine int ag(int n) { int v = await t0(n); yield v; }\n"), []),
    # ... and a task's body with a `yield` with a value in a group the
    # preprocessor skips, further down than its output is read when t0 is
    # printed: the guess takes it for an async generator's
    "yield_in_skipped_group": (TASK.format(n=0) + "static int pad(int x) {\n" + "  x = x * 3 + 1;\n" * 700
                               + "  return x;\n}\n"
                               "coroutine int u(int x) {\n#if 0\n  yield x;\n#endif\n  x = await t0(x);\n"
                               "  return x; }\n", BACKENDS),
    # an await that a macro writes: the guess sees no `await t0(`, and the
    # passes do not put t0's frame inside u's either (no give-up: checked)
    "await_by_macro": (TASK.format(n=0) + (
        "#define AWAIT_T0(x) await t0(x)\n"
        "coroutine int u(int x) { int v = AWAIT_T0(x); return v; }\n"), []),
    # an await whose argument awaits: its child goes on the heap
    "await_argument_awaits": (TASK.format(n=0) + TASK.format(n=1) + (
        "coroutine int u(int x) { int v = await t0(await t1(x)); return v; }\n"), BACKENDS),
    # a cleanup below a coroutine (stackful: then every body that awaits a
    # child inside it, or is awaited so, runs cleanups): foreseen rightly
    "cleanup_below": (TASK.format(n=0) + (
        "static void drop(int *p) { (void)p; }\n"
        "coroutine int u(int x) { __attribute__((cleanup(drop))) int k = x;\n"
        "  int v = await t0(k); yield; return v; }\n"), []),
    # the word `cleanup`, but no cleanup (only the stackful backend asks)
    "cleanup_word_only": (TASK.format(n=0) + (
        "static int cleanup(int x) { return x; }\n"
        "coroutine int u(int x) { int v = await t0(cleanup(x)); return v; }\n"), ["stackful"]),
    # an `await t0(` in a group the preprocessor skips, further down than
    # its output is read when t0 is printed (the lines it kept are settled
    # as its output comes, after the guess)
    "await_in_skipped_group": (TASK.format(n=0) + "static int pad(int x) {\n" + "  x = x * 3 + 1;\n" * 700
                               + "  return x;\n}\n"
                               "coroutine int u(int x) {\n#if 0\n  x = await t0(x);\n#endif\n"
                               "  return x; }\n", BACKENDS),
    # ... and one that the preprocessor's output had passed already
    "await_in_skipped_group_read": (TASK.format(n=0) + (
        "coroutine int u(int x) {\n#if 0\n  x = await t0(x);\n#endif\n  return x; }\n"), []),
    # the lines inside a coroutine's body are passed over by the scan of the
    # preprocessor's output (lexer.l, PASS), which the guess of where the
    # bodies are decides: here `coroutine` in a group the preprocessor
    # skips, before a plain function, whose body the file parse must read
    "coroutine_in_skipped_group": (TASK.format(n=0) + (
        "#ifdef NEVER\ncoroutine\n#endif\nint plain(int x) {\n  x = x + 1;\n  return x;\n}\n"),
        BACKENDS),
    # ... and what a body passed over holds that is scanned after all: a
    # raw string over three lines (one begins with `#`, one holds `*/`), a
    # line splice, a #define that the lines below it use, a raw string that
    # ends on the line of the body's `}` (were its first line passed over,
    # the scan would take its end for the start of a string)
    "raw_string_in_body": (TASK.format(n=0) + (
        "coroutine int u(int x) {\n  const char *r = R\"x(one\n#two */ /*\nthree)x\";\n"
        "  int y = x \\\n    + 1;\n#define TWICE(v) ((v) * 2)\n  y = await t0(TWICE(y));\n"
        "  return y + r[0];\n}\n"
        "coroutine int w(int x) { return TWICE(x); }\n"
        "coroutine int v(int x) {\n  x = x + 1;\n  const char *q = R\"(first\nlast)\"; return x + q[0]; }\n"),
        []),
}


def gives_up(tmp_path, src, args):
    """Did the streaming run give up (COROC_STREAM_REPORT says so)?"""
    d = tmp_path / "report"
    d.mkdir(exist_ok=True)
    status, err, _ = coroc([*args, "-o", "out.c", src], d, env_extra={"COROC_STREAM_REPORT": "1"})
    assert status == 0, err
    return "the streaming run gives up" in err


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(GUESSES))
def test_guess_prints_the_same(tmp_path, name, backend):
    text, wrong_in = GUESSES[name]
    src = tmp_path / f"{name}.coc"
    src.write_text("#include <coro.h>\n" + text)
    stream, whole = both(tmp_path, src, [f"--backend={backend}"])
    assert whole[0] == 0, whole[1]
    assert stream == whole
    assert gives_up(tmp_path, src, [f"--backend={backend}"]) == (backend in wrong_in)


# The inputs of the tree on which the streaming run gives up: none (the
# errors' inputs aside, tests/errors, where every run gives up).
GIVES_UP = set()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_tree_streams(tmp_path, backend):
    """Every case, task program and example streams: a change that makes one
    give up costs its memory, and test_same_as_whole cannot see it (the
    output is the same)."""
    found = [src for src in inputs() if src.parent.name != "errors"]
    gave_up = set()
    for i, src in enumerate(found):
        d = tmp_path / str(i)
        d.mkdir()
        args = [f"--backend={backend}", f"-I{TESTS_DIR}", f"-I{src.parent}", *case_args(src)]
        if gives_up(d, src, args):
            gave_up.add(str(src.relative_to(SOURCE_DIR)))
    assert gave_up == GIVES_UP


def test_skipped_groups_settled_as_they_come(tmp_path):
    """Which lines of the .coc the preprocessor kept is settled as its
    output is read: a group it skips is dead once its output is past it. Here
    groups longer than the batches it is read in (4,096 tokens), inside
    bodies and between coroutines, one after more kept tokens than a batch
    (its liveness is then known only once more is read), one kept by #else,
    one by a macro defined further down. Each streams, without giving up."""
    junk = "  x = x + 1; /* skipped */\n" * 1500
    kept = "  x = x * 3 + 1;\n" * 700  # (more tokens than a batch, before a skipped group)
    text = ["#include <coro.h>", TASK.format(n=0)]
    for n in range(1, 6):
        awaits = f"  x = await t{n - 1}(x);\n"
        choice = f"#if 1\n{awaits}#else\n{junk}#endif\n" if n % 2 else f"#if 0\n{junk}#else\n{awaits}#endif\n"
        text.append(f"coroutine int t{n}(int x) {{\n{choice}{kept}#ifdef NEVER\n{junk}#endif\n"
                    f"  x = x + 7;\n#if 1\n  return x + {n};\n#endif\n}}")
        text.append(f"#if 0\n{junk}#endif")
    text.append("#define LATE 1\n#if LATE\ncoroutine int late(int x) { return await t5(x); }\n#endif")
    src = tmp_path / "groups.coc"
    src.write_text("\n".join(text) + "\n")
    for backend in BACKENDS:
        stream, whole = both(tmp_path / backend, src, [f"--backend={backend}"])
        assert whole[0] == 0, whole[1]
        assert stream == whole
        assert not gives_up(tmp_path / backend, src, [f"--backend={backend}"])


# Errors that the streaming run meets in another order than the whole run.
LATE_ERRORS = {
    # a coroutine rule broken in the first coroutine, a syntax error at the
    # end: the whole run parses the file first, and reports the syntax error
    "rule_then_syntax": "coroutine void f(void) { return 1; }\n" + TASK.format(n=0) * 1 + (
        "int broken( {\n"),
    # a frame error (a type moved out of the body that names a local) in
    # the first, a rule broken in the second: the whole run checks every
    # coroutine before it lays out any frame
    "frame_then_rule": (
        "coroutine int f(int n) { int k = n; struct s { char a[sizeof k]; } v; v.a[0] = 1;"
        " yield v.a[0]; }\n"
        "coroutine void g(void) { return 1; }\n"),
    # a generator awaited above its definition: only the whole run's check,
    # which knows every definition, refuses it
    "generator_awaited_above": (
        "coroutine int gen(int n);\n"
        "coroutine int t(int x) { int v = await gen(x); return v; }\n"
        "coroutine int gen(int n) { yield n; }\n"),
    # ... and an async generator read with coro_next above its definition
    "async_generator_next_above": (
        "coroutine int ag(int n);\n"
        "coroutine int t(int x) { coro_t *g = ag(x); int v; while (coro_next(g, &v)) x += v;\n"
        "  coro_free(g); return x; }\n"
        "coroutine int ag(int n) { int v = await t1(n); yield v; }\n"),
}


@pytest.mark.parametrize("name", sorted(LATE_ERRORS))
def test_late_error_as_whole(tmp_path, name):
    src = tmp_path / f"{name}.coc"
    src.write_text("#include <coro.h>\n" + "".join(TASK.format(n=k) for k in range(1, 4))
                   + LATE_ERRORS[name])
    for d in ("stream", "whole"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "out.c").write_text("kept\n")
    stream = coroc(["-o", "out.c", src], tmp_path / "stream")
    whole = coroc(["-o", "out.c", src], tmp_path / "whole", whole=True)
    assert whole[0] == 1 and "error:" in whole[1]
    assert stream == whole
    assert stream[2] == {"out.c": b"kept\n"}  # as it was, and no temporary file


def peak_rss(launch, args, cwd, whole):
    """The peak resident memory of one coroc run (and of the preprocessor it
    waits for), in KiB, as wait4 reports it to the benchmark's launcher
    (tests/bench/part4-frontend/launch.c): a process forked from Python
    would count Python's own memory in its peak."""
    env = dict(os.environ)
    env.pop("COROC_CHECK_EMIT", None)  # (it holds each output twice)
    if whole:
        env["COROC_WHOLE"] = "1"
    report = cwd / "report"
    proc = subprocess.run([launch, report, COROC, *args], cwd=cwd, env=env, capture_output=True,
                          timeout=120)
    fields = report.read_text().split()
    assert proc.returncode == 0 and fields[3] == "0", proc.stderr.decode()
    return int(fields[2])


def test_streams(tmp_path):
    """3,000 tasks, each awaiting the one above: run whole, coroc holds every
    tree and all of the output; streaming, one at a time."""
    text = ["#include <coro.h>", TASK.format(n=0)]
    for n in range(1, 3000):
        text.append(f"coroutine int t{n}(int x) {{\n  int a = await t{n - 1}(x);\n  yield;\n"
                    f"  for (int i = 0; i < {n % 7}; i++)\n    a += i * x;\n  return a + 1;\n}}")
    src = tmp_path / "many.coc"
    src.write_text("\n".join(text) + "\n")
    launch = tmp_path / "launch"
    subprocess.run(["cc", "-O2", "-o", launch, SOURCE_DIR / "tests/bench/part4-frontend/launch.c"],
                   check=True)
    stream = peak_rss(launch, ["-o", "s.c", src], tmp_path, False)
    whole = peak_rss(launch, ["-o", "w.c", src], tmp_path, True)
    assert (tmp_path / "s.c").read_bytes() == (tmp_path / "w.c").read_bytes()
    assert stream * 2 < whole, f"peak RSS: streaming {stream} KiB, whole {whole} KiB"
