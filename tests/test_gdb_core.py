"""coroc's gdb extension on a core file (docs/debugging.md): every kind of
awaitable the runtime has, and every kind of instance, held by
tests/gdb/kinds.coc when it calls take_core_here(). gdb stops it there
and writes a core file (generate-core-file: the machine's core_pattern is
not the test's to change); a second gdb opens the core with the program.
Both must say the same, and what they say is checked against what the
program printed (its fds) and the /* LINE x */ markers of its source."""
import re
import shutil

import pytest

from conftest import TESTS_DIR, run
from test_gdb import GDB, gdb_ok, marked_lines, table  # noqa: F401 (gdb_ok: a fixture)

PROGRAM = TESTS_DIR / "gdb" / "kinds.coc"
NAMES = ["acceptor", "acquirer", "consumer", "holder", "last", "napper", "sender", "signaller",
         "ticks", "waiter", "writer"]
# The questions: the table, the chain of each conn and of holder, and which conns are copied out.
QUESTIONS = ["info coroutines", *[f'coro bt $coro("conn", {k})' for k in range(3)],
             'coro bt $coro("holder")',
             "python print('copied out:', sum(i.copied_out() for i in instances() if i.name == 'conn'))"]


def gdb_run(exe, *commands, core=None, before=()):
    """A batch gdb: stopped at take_core_here() (or the core opened), then the commands;
    `before`, Python files sourced first (a planted fault)."""
    start = [] if core else ["-ex", "break take_core_here", "-ex", "run"]
    args = [*GDB, *start]
    for f in before:
        args += ["-ex", f"source {f}"]
    for c in commands:
        args += ["-ex", c]
    res = run(args + [str(exe)] + ([str(core)] if core else []), cwd=exe.parent, timeout=180)
    both = res.stdout + res.stderr
    assert "Traceback" not in both and "Error occurred in Python" not in both, both
    return res.stdout


def answers(out):
    """(rows of info coroutines, [each coro bt's frame lines], copied-out conns)."""
    rows = table(out)
    after = out[out.index("ADDRESS "):]
    chains, current = [], None
    for line in after.splitlines()[len(rows) + 1:]:
        if line.startswith("#0 "):
            current = []
            chains.append(current)
        if re.match(r"#\d+ ", line):
            current.append(line)
    m = re.search(r"^copied out: (\d+)$", out, re.M)
    assert m, out
    return rows, chains, int(m.group(1))


def check(out, backend, where, printed):
    """What the program's state must look like; raises AssertionError where it does not."""
    lines = marked_lines(PROGRAM)
    src = f"{where}/kinds.coc"

    def at(key):
        return f"{src}:{lines[key]}"
    m = re.search(r"conn fds (\d+) (\d+) (\d+), writer fd (\d+), acceptor fd (\d+)", printed)
    assert m, printed
    conn_fds, writer_fd, acceptor_fd = {int(m.group(k)) for k in (1, 2, 3)}, m.group(4), m.group(5)
    rows, chains, copied = answers(out)
    by_name, by_addr = {}, {r[0]: r for r in rows}
    for r in rows:
        assert len(r) == 7 and r[3] == backend, r
        by_name.setdefault(r[1], []).append(r)
    conns = ["conn", "conn_read"] if backend == "stackless" else ["conn"]   # (stackful: one stack)
    assert sorted(by_name) == sorted(NAMES + conns), rows

    def one(name):
        assert len(by_name[name]) == 1, by_name[name]
        return by_name[name][0]
    # the conns: each waits for the read of a lent buffer on its own pipe
    readers = by_name["conn_read" if backend == "stackless" else "conn"]
    assert len(readers) == 3 and len(by_name["conn"]) == 3, rows
    fds = {}
    for r in readers:
        assert r[2:6] == ["task", backend, "suspended", at("conn read")], r
        m = re.fullmatch(r"read on fd (\d+) \(lent buffer\)", r[6])
        assert m, r
        fds[r[0]] = int(m.group(1))
    assert set(fds.values()) == conn_fds, rows
    if backend == "stackless":   # each conn_read inside its conn's frame: listed right after it
        for k, r in enumerate(rows):
            if r[1] == "conn":
                assert r[2:6] == ["task", backend, "suspended", at("conn")], r
                assert r[6] == f"task {rows[k + 1][0]} (conn_read)" and rows[k + 1][1] == "conn_read", rows
        assert copied == 0
    else:   # one conn's frames on the shared stack, the two others' copied out
        assert copied == 2, out
    expect = {"writer": f"write on fd {writer_fd}", "acceptor": f"accept on fd {acceptor_fd}",
              "signaller": r"signal SIGUSR1 \(signalfd \d+\)",
              "sender": r"send on channel 0x[0-9a-f]+ \(1 of 1 values buffered\)",
              "waiter": r"event 0x[0-9a-f]+", "acquirer": r"semaphore 0x[0-9a-f]+: 0 free",
              "ticks": r"timer, \d+ ms left \(of 60000\)", "napper": r"timer, \d+ ms left \(of 60000\)",
              "consumer": re.escape(f"next value of async generator {one('ticks')[0]} (ticks)"),
              "holder": re.escape(f"task {one('napper')[0]} (napper)")}
    for name, waits in expect.items():
        kind = "async generator" if name == "ticks" else "task"
        assert one(name)[2:6] == [kind, backend, "suspended", at(name)], one(name)
        assert re.fullmatch(waits, one(name)[6]), one(name)
    assert one("last")[2:] == ["task", backend, "running", at("last"), "-"]

    # coro bt of each conn: conn_read then conn, each with the fd its read waits on (a frame
    # read where another instance's frames are would show that one's fd)
    assert len(chains) == 4, out
    code = r"(0x[0-9a-f]+ in )?"
    for chain in chains[:3]:
        assert len(chain) == 2, chain
        m = re.match(rf"#0 +{code}conn_read \(fd=(\d+)\) at {re.escape(at('conn read'))}  "
                     rf"\[(0x[0-9a-f]+) {backend} task, suspended\]$", chain[0])
        assert m, chain
        fd, addr = int(m.group(2)), m.group(3)
        assert fds[addr] == fd, (chain, by_addr[addr])
        assert re.match(rf"#1 +{code}conn \(fd={fd}\) at {re.escape(at('conn'))}", chain[1]), chain
    assert len({c[0] for c in chains[:3]}) == 3, chains
    holder = chains[3]
    assert len(holder) == 2, holder
    assert re.match(rf"#0 +{code}napper \(ms=(60000|<optimized out>)\) at {re.escape(at('napper'))}  "
                    rf"\[{one('napper')[0]} {backend} task, suspended\]$", holder[0]), holder
    assert re.match(rf"#1 +{code}holder \(\) at {re.escape(at('holder'))}  "
                    rf"\[{one('holder')[0]} {backend} task, suspended\]$", holder[1]), holder
    return rows, chains


def build(toolchain, tmp_path, backend, opt):
    src = tmp_path / "kinds.coc"
    shutil.copy(PROGRAM, src)
    return toolchain.compile(toolchain.transform(src, backend=backend), "gcc", extra=(opt,),
                             exe=tmp_path / f"kinds_{backend}")


def timeless(rows):
    return sorted(tuple(re.sub(r"\d+ ms left", "T ms left", c) for c in r) for r in rows)


@pytest.mark.parametrize("backend,opt", [("stackless", "-O0"), ("stackless", "-O2"),
                                         ("stackful", "-O0"), ("stackful", "-O2")])
def test_every_kind_on_a_core_file_as_live(gdb_ok, toolchain, tmp_path, backend, opt):
    exe = build(toolchain, tmp_path, backend, opt)
    core = tmp_path / "core"
    live = gdb_run(exe, *QUESTIONS, f"generate-core-file {core}")
    assert "Breakpoint 1, take_core_here" in live, live
    where = str(tmp_path)
    live_rows, live_chains = check(live, backend, where, live)
    assert core.exists(), live
    dead = gdb_run(exe, *QUESTIONS, core=core)
    dead_rows, dead_chains = check(dead, backend, where, live)
    assert timeless(dead_rows) == timeless(live_rows)
    assert dead_chains == live_chains


@pytest.mark.parametrize("fault,symptom", [
    # the frames read where they were: no .coc line found for WHERE
    ("Instance.locate = lambda self, addr: addr", "'?'"),
    # a caller read at the frame pointer's old place: the running conn's frames, its fd
    ("ContextUnwinder._copied_frame = lambda self, pending: None", "conn_read (fd=")])
def test_a_planted_fault_in_the_shared_stack_unwinding_is_caught(gdb_ok, toolchain, tmp_path, fault,
                                                                 symptom):
    """Without reading the copied-out frames in their buffer, or with gdb's
    own unwinder left to follow a frame pointer into the shared stack (at -O0,
    where every function keeps one), the check above fails."""
    exe = build(toolchain, tmp_path, "stackful", "-O0")
    core = tmp_path / "core"
    live = gdb_run(exe, "info coroutines", f"generate-core-file {core}")
    sabotage = tmp_path / "fault.py"
    sabotage.write_text(fault + "\n")
    dead = gdb_run(exe, *QUESTIONS, core=core, before=[sabotage])
    with pytest.raises(AssertionError) as caught:
        check(dead, "stackful", str(tmp_path), live)
    assert symptom in str(caught.value), caught.value
