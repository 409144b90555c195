"""The #line directives make the .coc the source a debugger shows: a
breakpoint set on a line inside a coroutine stops there, and the frame's
fields can be printed."""
import re
import shutil
import warnings

import pytest

from conftest import TESTS_DIR, run

SRC = TESTS_DIR / "golden" / "countdown.coc"
YIELD_LINE = 6  # `yield from--;` in countdown.coc


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")
def test_breakpoint_on_coc_line(toolchain, tmp_path):
    src = tmp_path / "countdown.coc"
    shutil.copy(SRC, src)
    assert src.read_text().splitlines()[YIELD_LINE - 1].strip() == "yield from--;"
    c_file = toolchain.transform(src)
    exe = toolchain.compile(c_file, "gcc", extra=("-O0",))
    res = run(["gdb", "-batch", "-nx",
               "-ex", f"break countdown.coc:{YIELD_LINE}",
               "-ex", "run",
               "-ex", "print coro_f->from",
               "-ex", "continue",
               "-ex", "print coro_f->from",
               exe], cwd=tmp_path, timeout=60)
    out = res.stdout
    # one location only: the body's code, not the creation function's
    assert f"countdown.coc, line {YIELD_LINE}." in out and "locations" not in out, out
    stops = [l for l in out.splitlines() if l.startswith("Breakpoint 1, ")]
    assert len(stops) == 2, out
    assert all(f"countdown.coc:{YIELD_LINE}" in l for l in stops), out
    assert "$1 = 3" in out and "$2 = 2" in out, out


# {==================================================================
# coroc's gdb extension (runtime/gdb/coroc-gdb.py, docs/debugging.md)
# ===================================================================

PROGRAM = TESTS_DIR / "gdb" / "suspended.coc"
SCRIPT = TESTS_DIR.parent / "runtime" / "gdb" / "coroc-gdb.py"
NAMES_SCRIPT = TESTS_DIR.parent / "runtime" / "gdb" / "coroc-gdb-names.py"
WAITS_SCRIPT = TESTS_DIR.parent / "runtime" / "gdb" / "coroc-gdb-waits.py"
# gdb loads the extension from the program's .debug_gdb_scripts section only
# from directories its auto-load safe-path names; the tests allow their own.
GDB = ["gdb", "-batch", "-nx", "-iex", "set auto-load safe-path /"]


def gdb_cannot_run():
    """Why gdb cannot debug a process here, or None."""
    if shutil.which("gdb") is None:
        return "gdb is not installed"
    res = run([*GDB, "-ex", "run", "-ex", "info proc", "/bin/true"], timeout=60)
    if "ptrace" in res.stdout + res.stderr and "not permitted" in res.stdout + res.stderr:
        return "gdb may not trace processes here (ptrace: Operation not permitted)"
    return None


@pytest.fixture(scope="module")
def gdb_ok():
    why = gdb_cannot_run()
    if why:
        # Said twice: as the skip reason (pytest -rs) and as a warning, which even -q prints.
        warnings.warn(f"SKIP: the gdb extension's tests: {why}")
        pytest.skip(why)


def marked_lines(program=PROGRAM):
    """{'reader': 37, 'counter start': 75, ...} from the /* LINE x */ markers."""
    out = {}
    for no, text in enumerate(program.read_text().splitlines(), 1):
        m = re.search(r"/\* LINE ([a-z ]+) \*/", text)
        if m:
            out[m.group(1)] = no
    return out


def table(out):
    """The rows of `info coroutines`, split on runs of two spaces or more."""
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("ADDRESS "))
    rows = []
    for l in lines[start + 1:]:
        if not l.startswith("0x"):
            break
        rows.append(re.split(r"\s{2,}", l.strip(), maxsplit=6))
    return rows


def build(toolchain, tmp_path, backend):
    src = tmp_path / "suspended.coc"
    shutil.copy(PROGRAM, src)
    c_file = toolchain.transform(src, backend=backend)
    return toolchain.compile(c_file, "gcc", extra=("-O0",), exe=tmp_path / f"suspended_{backend}")


def session(exe, *commands, core=None, errors=False):
    """A batch gdb run: stop at checkpoint() (or open the core), then the commands."""
    start = [] if core else ["-ex", "break checkpoint", "-ex", "run"]
    args = [*GDB, *start]
    for c in commands:
        args += ["-ex", c]
    res = run(args + [str(exe)] + ([str(core)] if core else []), cwd=exe.parent, timeout=120)
    assert "Traceback" not in res.stdout + res.stderr and "Error while executing Python" not in \
        res.stdout + res.stderr, res.stdout + res.stderr
    return res.stdout + (res.stderr if errors else "")


def pipe_fds(out):
    """The fds the program printed: the pipe of reader, the pipe of timed."""
    m = re.search(r"pipe fd (\d+), timed pipe fd (\d+)", out)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def check_table(out, backend, lines, where, fds):
    rows = table(out)
    pipe_fd, timed_fd = fds
    named = {}
    for r in rows:
        assert len(r) == 7, r
        assert re.fullmatch(r"0x[0-9a-f]+", r[0]), r
        assert r[3] == backend, r
        named.setdefault(r[1], []).append(r)
    # outer awaits middle, which awaits reader, each defined above the one that
    # awaits it: stackless, their frames are inside outer's and are listed after
    # it; stackful, they are plain calls on outer's stack, no instances at all
    chain = ["middle", "reader"] if backend == "stackless" else []
    assert sorted(named) == sorted(["big", "chooser", "counter", "gatherer", "grouper", "keeper",
                                    "kept", "listener", "locker", "napper", "offloader", "outer",
                                    "sleeper", "spinner", "timed", "watch"] + chain), rows
    by_addr = {r[0]: r for r in rows}
    src = f"{where}/suspended.coc"

    def one(name):
        assert len(named[name]) == 1, named[name]
        return named[name][0]

    def at(key):
        return f"{src}:{lines[key]}"

    assert one("counter")[1:6] == ["counter", "generator", backend, "suspended", at("counter")]
    assert one("counter")[6] == "-"
    assert one("big")[1:] == ["big", "generator", backend, "suspended", at("big"), "-"]
    if backend == "stackless":
        reader, middle, outer = one("reader"), one("middle"), one("outer")
        assert reader[2:] == ["task", backend, "suspended", at("reader"), f"read on fd {pipe_fd}"]
        assert middle[2:6] == ["task", backend, "suspended", at("middle")]
        assert middle[6] == f"task {reader[0]} (reader)"
        assert outer[2:6] == ["task", backend, "suspended", at("outer")]
        assert outer[6] == f"task {middle[0]} (middle)"
        # listed in the order of the chain, each inside the one before
        order = [r[1] for r in rows]
        assert order.index("outer") + 1 == order.index("middle") == order.index("reader") - 1, rows
    else:  # outer's stack waits where reader's call on it stopped
        assert one("outer")[2:] == ["task", backend, "suspended", at("reader"), f"read on fd {pipe_fd}"]
    sleepers = sorted(named["sleeper"], key=lambda r: r[4])
    assert [r[4] for r in sleepers] == ["created", "suspended"], sleepers
    assert sleepers[0][5:] == [at("sleeper start"), "-"]
    assert sleepers[1][5] == at("sleeper")
    m = re.fullmatch(r"timer, (\d+) ms left \(of 60000\)", sleepers[1][6])
    assert m and 50000 <= int(m.group(1)) <= 60000, sleepers[1]
    assert one("offloader")[2:] == ["task", backend, "suspended", at("offloader"), "offload blocked(0x0)"]
    assert one("grouper")[2:] == ["task", backend, "suspended", at("grouper"), "wait_all: 2 of 2 tasks left"]
    assert len(named["napper"]) == 2
    for r in named["napper"]:
        assert r[2:6] == ["task", backend, "suspended", at("napper")]
        assert re.fullmatch(r"timer, \d+ ms left \(of 60000\)", r[6]), r
    assert one("watch")[2:] == ["task", backend, "running", at("watch"), "-"]
    timed = one("timed")
    assert timed[2:6] == ["task", backend, "suspended", at("timed")]
    m = re.fullmatch(rf"read on fd {timed_fd}, timeout in (\d+) ms", timed[6])
    assert m and 50000 <= int(m.group(1)) <= 60000, timed
    assert one("spinner")[2:] == ["task", backend, "suspended", at("spinner"), "ready (its turn comes)"]
    kept = one("kept")
    assert kept[2:6] == ["task", backend, "suspended", at("kept")]
    assert re.fullmatch(r"timer, \d+ ms left \(of 60000\)", kept[6]), kept
    assert one("keeper")[2:] == ["task", backend, "suspended", at("keeper"), f"task {kept[0]} (kept)"]
    for name, waits in (("listener", r"receive on channel 0x[0-9a-f]+ \(unbuffered\)"),
                        ("chooser", r"select of 2 channel operations, deadline in (\d+) ms"),
                        ("locker", r"mutex 0x[0-9a-f]+, deadline in (\d+) ms"),
                        ("gatherer", r"group 0x[0-9a-f]+: 1 not done")):
        assert one(name)[2:6] == ["task", backend, "suspended", at(name)]
        m = re.fullmatch(waits, one(name)[6])
        assert m and (not m.groups() or 50000 <= int(m.group(1)) <= 60000), one(name)
    return by_addr


def check_bt(out, backend, lines, where):
    """coro bt the_outer: reader, middle, outer, innermost first, each at its await."""
    frames = [l for l in out.splitlines() if re.match(r"#\d+ ", l)]
    assert len(frames) == 3, out
    src = f"{where}/suspended.coc"
    for k, (name, key) in enumerate((("reader", "reader"), ("middle", "middle"), ("outer", "outer"))):
        # stackless: each is an instance of its own; stackful: one instance, outer,
        # whose stack holds the three calls (its line is on the innermost)
        suffix = (rf"  \[0x[0-9a-f]+ {backend} task, suspended\]$" if backend == "stackless" or k == 0
                  else "$")
        assert re.match(rf"#{k} +(0x[0-9a-f]+ in )?{name} \(fd=\d+\) at {re.escape(src)}:{lines[key]}"
                        + suffix, frames[k]), frames[k]
        if backend == "stackful":   # a real frame: a code address
            assert " in " in frames[k], frames[k]


def check_frame(out, backend):
    """coro frame the_counter: start = 5, the outer step = 2, i = 7, the inner step = 70."""
    text = out[out.index("coroutine 0x"):]
    head, params, locals_ = re.split(r"^(?:parameters|locals):$", text, flags=re.M)[:3]
    assert "(counter, %s generator, suspended)" % backend in head, out
    assert params.split() == ["start", "=", "5"], out
    got = sorted(tuple(l.split()[:3]) for l in locals_.strip().splitlines() if " = " in l)
    assert got == [("i", "=", "7"), ("step", "=", "2"), ("step", "=", "70")], out
    if backend == "stackless":   # the shadowing local lives in a renamed field
        assert "step = 70  (frame field coro_step_2)" in out, out


@pytest.mark.parametrize("backend", ["stackless", "stackful"])
def test_extension_on_live_program_and_core(gdb_ok, toolchain, tmp_path, backend):
    exe = build(toolchain, tmp_path, backend)
    lines = marked_lines()
    where = str(tmp_path)
    core = tmp_path / f"core.{backend}"
    commands = ["info coroutines", "print the_outer", "coro bt the_outer", "coro frame the_counter",
                f"gcore {core}"]
    live = session(exe, *commands)
    assert "hit Breakpoint 1, checkpoint" in live, live
    fds = pipe_fds(live)
    rows = check_table(live, backend, lines, where, fds)
    outer_addr = re.search(r"\$1 = \(coro_t \*\) (0x[0-9a-f]+)", live).group(1)
    assert rows[outer_addr][1] == "outer"
    bt_part = live[live.index("$1 = "):live.index("coroutine 0x")]
    check_bt(bt_part, backend, lines, where)
    check_frame(live[live.index("coroutine 0x"):], backend)
    assert core.exists(), live

    # The same questions of the core file: nothing runs, the answers are the same.
    dead = session(exe, "info coroutines", "coro bt the_outer", "coro frame the_counter", core=core)
    check_table(dead, backend, lines, where, fds)
    check_bt(dead[dead.index("ADDRESS"):dead.index("coroutine 0x")], backend, lines, where)
    check_frame(dead[dead.index("coroutine 0x"):], backend)


def test_coro_frame_of_the_running_body_reads_its_c_locals(gdb_ok, toolchain, tmp_path):
    # Stopped in counter's body on its second resume, before the yield: i is
    # kept in a C local while the body runs (7 now), its field still holds the
    # value saved at the last suspension (5); coro frame shows the body's.
    exe = build(toolchain, tmp_path, "stackless")
    line = marked_lines()["counter"]
    res = run([*GDB, "-ex", f"break suspended.coc:{line}", "-ex", "ignore 1 1", "-ex", "run",
               "-ex", "print i", "-ex", "print coro_f->i", "-ex", "coro frame the_counter", str(exe)],
              cwd=exe.parent, timeout=120)
    out = res.stdout
    assert "$1 = 7" in out and "$2 = 5" in out, out + res.stderr
    assert re.search(r"^  i = 7  \(in the running body\)$", out, re.M), out
    assert "(counter, stackless generator, running)" in out, out


@pytest.mark.parametrize("backend", ["stackless", "stackful"])
def test_coro_bt_all_and_refusals(gdb_ok, toolchain, tmp_path, backend):
    exe = build(toolchain, tmp_path, backend)
    out = session(exe, "coro bt all", "coro bt 0x1234", "coro frame", errors=True)
    # one chain per task nobody awaits... from each innermost: the napper's runs through wait_all
    assert out.count("(awaited with wait_all)") == 2, out
    assert re.search(r"#1 +(0x[0-9a-f]+ in )?grouper \(ms=60000\)", out), out
    assert "0x1234 is not a live coroutine instance" in out, out
    assert "which instance?" in out, out


def test_extension_loads_from_program_and_by_hand(gdb_ok, toolchain, tmp_path):
    """The program carries the extension (.debug_gdb_scripts); without
    auto-loading, `source` of the installed file gives the same commands."""
    exe = build(toolchain, tmp_path, "stackless")
    res = run(["readelf", "-p", ".debug_gdb_scripts", str(exe)], timeout=60)
    assert "coroc-gdb.py" in res.stdout, res.stdout + res.stderr
    off = run(["gdb", "-batch", "-nx", "-iex", "set auto-load python-scripts off",
               "-ex", "break checkpoint", "-ex", "run", "-ex", "info coroutines", str(exe)],
              cwd=tmp_path, timeout=120)
    assert "ADDRESS" not in off.stdout, off.stdout
    by_hand = run(["gdb", "-batch", "-nx", "-iex", "set auto-load python-scripts off",
                   "-ex", f"source {SCRIPT}", "-ex", f"source {NAMES_SCRIPT}", "-ex", f"source {WAITS_SCRIPT}",
                   "-ex", "break checkpoint",
                   "-ex", "run", "-ex", "info coroutines", "-ex", "help coro locals", str(exe)],
                  cwd=tmp_path, timeout=120)
    assert len(table(by_hand.stdout)) == 20, by_hand.stdout + by_hand.stderr   # the stackless build
    assert "The locals (coro locals)" in by_hand.stdout, by_hand.stdout + by_hand.stderr
    assert "Error" not in by_hand.stderr, by_hand.stderr


def test_instances_of_two_threads(gdb_ok, toolchain, tmp_path):
    """Each thread keeps its own list: info coroutines shows both, each row
    ending with its thread's LWP, as info threads names it."""
    src = tmp_path / "threads.coc"
    shutil.copy(TESTS_DIR / "gdb" / "threads.coc", src)
    exe = toolchain.compile(toolchain.transform(src), "gcc", extra=("-O0",), exe=tmp_path / "threads")
    out = session(exe, "info coroutines", "info threads")
    rows = table(out)
    lwps = re.findall(r"\(LWP (\d+)\)", out[out.index("  Id "):])
    assert len(lwps) == 2, out
    got = sorted((r[1], r[4], re.sub(r"\d+ ms left", "T ms left", r[6])) for r in rows)
    main, other = lwps
    assert got == sorted([
        ("dozer", "suspended", f"timer, T ms left (of 30000) [LWP {main}]"),
        ("watch", "running", f"- [LWP {main}]"),
        ("dozer", "suspended", f"timer, T ms left (of 60000) [LWP {other}]"),
    ]), out
