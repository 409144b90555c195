"""Channels and the synchronisation toolkit beyond tests/tasks (where
chan_basic, chan_select, chan_many and sync_toolkit run in every mode with
both compilers, and the stackful builds under AddressSanitizer too):

  * the same programs in the stackless backend, and the example pipeline
    (stackless and stackful tasks over channels in one program, both ways
    round), against a libcoro built with AddressSanitizer, whose leak
    checker is on: nothing reported, nothing leaked;
  * misuse the runtime refuses at once, with a message naming the call and
    the object, in both backends;
  * every symbol libcoro exports carries the coro_ prefix."""
import re

import pytest

from conftest import (BACKENDS, COMPILERS, COROC_INCLUDE, COROC_LIB, SOURCE_DIR, TESTS_DIR,
                      WARNINGS, shared_runtime_archive, run)

PROGRAMS = [TESTS_DIR / "tasks" / f"{name}.coc"
            for name in ("chan_basic", "chan_select", "chan_many", "sync_toolkit")]
ASAN = ["-fsanitize=address", "-fno-omit-frame-pointer"]
EXAMPLES = SOURCE_DIR / "examples"


@pytest.fixture(scope="module")
def libcoro_asan(tmp_path_factory):
    return shared_runtime_archive(tmp_path_factory, "gcc", "ar", ["-O1", "-g", *ASAN],
                                  "switch_x86_64.S")


def link(exe, c_files, lib, flags=()):
    res = run(["gcc", "-std=gnu11", "-g", *flags, *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}",
               "-o", exe, *c_files, lib, "-pthread", "-lm"], timeout=120)
    assert res.returncode == 0, res.stderr
    return exe


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_stackless_under_asan(toolchain, libcoro_asan, program, tmp_path):
    c_file = toolchain.transform(program, "stackless", extra=(f"-I{TESTS_DIR}",))
    exe = link(tmp_path / "prog", [c_file], libcoro_asan, [*ASAN, "-O1"])
    res = run([exe], timeout=60)
    assert "Sanitizer" not in res.stderr, res.stderr
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == "OK"


@pytest.mark.parametrize("backend", BACKENDS)
def test_pipeline_of_both_backends_under_asan(toolchain, libcoro_asan, backend, tmp_path):
    """examples/pipeline.coc with `backend`, its stages with the other one."""
    other = [b for b in BACKENDS if b != backend][0]
    main = toolchain.transform(EXAMPLES / "pipeline.coc", backend)
    stages = toolchain.transform(EXAMPLES / "pipeline_stage.coc", other)
    exe = link(tmp_path / "pipeline", [main, stages], libcoro_asan, [*ASAN, "-O1"])
    res = run([exe], timeout=60)
    assert "Sanitizer" not in res.stderr, res.stderr
    assert res.returncode == 0, res.stderr
    assert res.stdout == (EXAMPLES / "pipeline.expected").read_text()


# {==================================================================
# Misuse, said at once
# ===================================================================

PRELUDE = """#include <coro.h>
#include <stdio.h>
static struct coro_chan *ch __attribute__((unused));
"""

MISUSE = {
    # a channel freed under a waiting receiver
    "free_waited": ("""
coroutine void waits(void) { int v; (void)await coro_chan_recv(ch, &v); }
coroutine void frees(void) { coro_chan_free(ch); }
int main(void) {
  ch = coro_chan_new(sizeof(int), 0);
  coro_spawn(waits());
  coro_spawn(frees());
  return coro_run();
}""", r"coro: coro_chan_free: channel 0x[0-9a-f]+ is freed while tasks wait on it: close it, and "
      r"let them see it closed, first"),
    # a send of nothing into a channel of ints
    "send_null": ("""
coroutine void sends(void) { (void)await coro_chan_send(ch, NULL); }
int main(void) {
  ch = coro_chan_new(sizeof(int), 1);
  coro_spawn(sends());
  return coro_run();
}""", r"coro: coro_chan_send: the value is NULL, for a channel of 4-byte values"),
    # one array of operations in two selects at once
    "select_twice": ("""
static int v;
static struct coro_chan_op ops[1];
coroutine void selects(void) { (void)await coro_chan_select(ops, 1); }
int main(void) {
  ch = coro_chan_new(sizeof(int), 0);
  ops[0] = coro_chan_recv(ch, &v);
  coro_spawn(selects());
  coro_spawn(selects());
  return coro_run();
}""", r"coro: coro_chan_select: operation 0 \(0x[0-9a-f]+\) is waiting already, in another await"),
    "unlock_unlocked": ("""
static struct coro_mutex m;
coroutine void unlocks(void) {
  await coro_mutex_lock(&m);
  coro_mutex_unlock(&m);
  coro_mutex_unlock(&m);
}
int main(void) {
  coro_spawn(unlocks());
  return coro_run();
}""", r"coro: coro_mutex_unlock: mutex 0x[0-9a-f]+ is not locked"),
    "done_too_often": ("""
static struct coro_group g;
coroutine void member(void) { coro_group_done(&g); coro_group_done(&g); }
int main(void) {
  coro_group_spawn(&g, member());
  return coro_run();
}""", r"coro: coro_group_done: group 0x[0-9a-f]+: done more often than tasks were counted in"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(MISUSE))
def test_misuse_is_refused_with_a_message(toolchain, case, backend, tmp_path):
    source, message = MISUSE[case]
    src = tmp_path / f"{case}.coc"
    src.write_text(PRELUDE + source + "\n")
    res = toolchain.build_and_run(src, backend)
    assert res.returncode != 0, res.stdout
    assert re.search(message, res.stderr), res.stderr
    assert len(res.stderr.splitlines()) == 1, res.stderr

# }==================================================================


def test_exported_names_carry_the_prefix():
    """Every symbol libcoro.a defines for the programs linked with it starts
    with coro_ (a static library's globals share the program's namespace)."""
    # (no -A: nm would put the archive's path, which may hold spaces, before each name)
    res = run(["nm", "-g", "--defined-only", COROC_LIB])
    assert res.returncode == 0, res.stderr
    rows = [line.split() for line in res.stdout.splitlines()]
    names = [row[-1] for row in rows if len(row) == 3]  # "ADDRESS TYPE NAME"
    assert "coro_chan_select" in names and "coro_group_wait" in names, res.stdout
    assert "coro_frame_new" in names and "coro_sched_self" in names, res.stdout
    assert [n for n in names if not n.startswith("coro_")] == [], res.stdout
