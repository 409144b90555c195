"""At a breakpoint inside a body, gdb knows the coroutine's locals and
parameters by the names of the program, in both backends: print NAME,
info locals, bt full (docs/debugging.md, "The program's names"). Stackful
bodies keep real C locals; a stackless body keeps some in its frame, which
coroc's gdb extension names (a macro per name, a frame filter, hooks)."""
import re
import shutil
import subprocess

import pytest

from conftest import TESTS_DIR
from test_gdb import GDB, gdb_ok  # noqa: F401  (a fixture)

PROGRAM = TESTS_DIR / "gdb" / "names.coc"


def marker(name):
    for no, text in enumerate(PROGRAM.read_text().splitlines(), 1):
        if f"/* LINE {name} */" in text:
            return no
    raise AssertionError(name)


def build(toolchain, tmp_path, backend):
    src = tmp_path / "names.coc"
    shutil.copy(PROGRAM, src)
    c_file = toolchain.transform(src, backend=backend)
    return toolchain.compile(c_file, "gcc", extra=("-O0",), exe=tmp_path / f"names_{backend}")


def session(exe, steps, pre=()):
    """Run gdb on exe; steps are commands, each answer kept apart: {command: output}."""
    args = [*GDB, *pre]
    for k, c in enumerate(steps):
        args += ["-ex", f"echo @@{k}\\n", "-ex", c]
    # one stream: gdb flushes what it printed before it prints an error
    out = subprocess.run(args + ["-ex", "echo @@end\\n", str(exe)], cwd=exe.parent, timeout=120,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    assert "Traceback" not in out and "Python Exception" not in out, out
    parts = re.split(r"^@@(\d+|end)$", out, flags=re.M)
    answers = {}
    for k, text in zip(parts[1::2], parts[2::2]):
        if k != "end":
            answers.setdefault(steps[int(k)], []).append(text.strip())
    return answers, out


def values(text):
    """{name: value} of the `name = value` lines gdb printed (the first of a name)."""
    out = {}
    for l in text.splitlines():
        m = re.match(r"^\s*([A-Za-z_]\w*) = (.*)$", l)
        if m:
            out.setdefault(m.group(1), m.group(2))
    return out


def printed(answers, expr):
    return [re.sub(r"^\$\d+ = ", "", a) for a in answers[f"print {expr}"]]


@pytest.mark.parametrize("backend", ["stackless", "stackful"])
def test_locals_by_name_at_a_breakpoint(gdb_ok, toolchain, tmp_path, backend):  # noqa: F811
    exe = build(toolchain, tmp_path, backend)
    inner, outer, task = marker("inner"), marker("outer"), marker("task")
    look = ["print i", "print total", "print plain", "print limit", "print buf", "info locals",
            "bt full 1"]
    steps = [f"break names.coc:{inner}", "run", *look,               # 1st resume after the yields
             "delete", f"break names.coc:{outer}", "continue", *look,
             "delete", f"break names.coc:{task}", "continue",
             "print p", "print n", "print count", "print p.lo", "print lo", "info locals", "info args",
             "bt full 1"]
    a, out = session(exe, steps)
    # evens(4): total = 10 + 4, the inner i 7 * 14, plain 1 * 3, the outer i 0; then total += 98
    assert printed(a, "i") == ["98", "0"], out
    assert printed(a, "total") == ["14", "112"], out
    assert printed(a, "plain") == ["3", "3"], out
    assert printed(a, "limit") == ["4", "4"], out
    assert printed(a, "buf") == ["{10, 20, 30}"] * 2, out
    for at, i in ((0, "98"), (1, "0")):
        for command in ("info locals", "bt full 1"):
            seen = values(a[command][at])
            assert {k: seen.get(k) for k in ("i", "total", "plain", "buf")} == \
                {"i": i, "total": ["14", "112"][at], "plain": "3", "buf": "{10, 20, 30}"}, out
    # worker(3) after its await: p = {3, 6}
    assert printed(a, "p") == ["{lo = 3, hi = 6}"], out
    assert printed(a, "n") == ["3"] and printed(a, "count") == ["3"], out
    assert printed(a, "p.lo") == ["3"], out       # a member named as a local stays a member
    for command in ("info locals", "bt full 1"):
        assert {k: values(a[command][-1]).get(k) for k in ("p", "count", "lo")} == \
            {"p": "{lo = 3, hi = 6}", "count": "3", "lo": "5"}, out
    assert values(a["info args"][0]).get("n") == "3", out
    if backend == "stackless":   # the one name left to coro_f->lo (docs/debugging.md)
        assert printed(a, "lo") == ['No symbol "lo" in current context.'], out
    else:
        assert printed(a, "lo") == ["5"], out


def test_without_the_extension_the_frame_is_not_named(gdb_ok, toolchain, tmp_path):  # noqa: F811
    """What the extension adds: without it, the kept locals of a stackless body
    have no names (the fault the tests above would catch)."""
    exe = build(toolchain, tmp_path, "stackless")
    a, out = session(exe, [f"break names.coc:{marker('inner')}", "run", "print total", "info locals"],
                     pre=["-iex", "set auto-load python-scripts off"])
    assert printed(a, "total") == ['No symbol "total" in current context.'], out
    assert "total" not in values(a["info locals"][0]), out


def test_names_follow_the_selected_frame_and_can_be_turned_off(gdb_ok, toolchain, tmp_path):  # noqa: F811
    exe = build(toolchain, tmp_path, "stackless")
    a, out = session(exe, [f"break names.coc:{marker('inner')}", "run", "print total",
                           "print total = 15", "print coro_f->total", "ptype buf",
                           "set coro-names off", "print total", "print coro_f->total",
                           "set coro-names on", "up", "print total"])
    assert printed(a, "total")[:2] == ["14", 'No symbol "total" in current context.'], out
    assert printed(a, "total = 15") == ["15"], out
    # the macro rewrites the member too while it is on; off, coro_f->total is the field
    assert "syntax error" in a["print coro_f->total"][0] and printed(a, "coro_f->total")[1] == "15", out
    assert "type = int [3]" in a["ptype buf"][0], out
    # a script's `up` selects main's caller without a prompt: the macro says it lags
    assert "follows the selected frame at the next prompt" in printed(a, "total")[2], out


def test_coro_select_names_a_suspended_instance(gdb_ok, toolchain, tmp_path):  # noqa: F811
    """coro select ADDR: a suspended stackless task's parameters and locals by
    their names, as when it suspended, from any frame; coro select alone ends
    it. A stackful instance is refused with where to look instead."""
    exe = build(toolchain, tmp_path, "stackless")
    a, out = session(exe, [f"break names.coc:{marker('task')}", "run", "frame 1",
                           'coro select $coro("napper")', "print naps", "print slept", "print tag",
                           "print k", "info locals", "info args", "coro select", "print slept"])
    assert "the names of napper 0x" in a['coro select $coro("napper")'][0], out
    assert printed(a, "naps") == ["2"] and printed(a, "k") == ["0"], out
    assert printed(a, "tag") == ['"zz\\000"'], out
    assert printed(a, "slept") == ["0", 'No symbol "slept" in current context.'], out
    assert {k: values(a["info locals"][0]).get(k) for k in ("slept", "k")} == {"slept": "0", "k": "0"}, out
    assert values(a["info args"][0]).get("naps") == "2", out
    exe = build(toolchain, tmp_path, "stackful")
    a, out = session(exe, [f"break names.coc:{marker('task')}", "run", 'coro select $coro("napper")'])
    assert "is stackful: its locals are C locals in its own frames" in a['coro select $coro("napper")'][0], out
