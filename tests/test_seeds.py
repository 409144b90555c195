"""coro-seeds (runtime/tools/coro-seeds) and the schedules it runs programs
under (CORO_SCHED_SEED, CORO_SCHED_FAULTS: runtime/seed.c).

  * The planted bugs of docs/testing.md: tests/seeds/planted_order.coc, an
    order dependence the default schedule hides, passes with no seed and
    fails under the runner within the documented 10 seeds; planted_short.coc,
    a read taken for a whole message, passes with seeds alone and fails with
    CORO_SCHED_FAULTS=short within 10. Each in both backends, and the line
    the runner prints replays the failure every time.
  * What the runner reports: an exit status, a signal, a run out of time,
    output that differs (--same, --expect); 0 when every seed passes; 2 for a
    command line it cannot read.
  * A bad CORO_SCHED_SEED or CORO_SCHED_FAULTS is said at once (status 2),
    and a fatal error of a seeded run ends with the line that replays it.

  * The project's own programs: every task program and example, both
    backends, built with ASan, under the first 5 seeds with
    CORO_SCHED_FAULTS=all (tests/seeds/soak.py; about 150 s in a run of
    the whole suite on two cores; tests/run --full runs 10, the number in
    which docs/testing.md says the planted bugs are found). The long soaks
    are targets of their own:
    `cmake --build build --target seeds` runs 200 seeds, which took 22
    minutes of two quiet cores by itself, more than the CI's whole budget."""
import os
import re
import shlex
import subprocess
import sys

import pytest

from conftest import BACKENDS, COROC_INCLUDE, COROC_LIB, FULL, SOURCE_DIR, TESTS_DIR, WARNINGS, run

RUNNER = SOURCE_DIR / "runtime" / "tools" / "coro-seeds"
SEEDS_DIR = TESTS_DIR / "seeds"
DOCUMENTED_SEEDS = 10  # docs/testing.md: "within 10 seeds"


def build(toolchain, name, backend):
    case = SEEDS_DIR / f"{name}.coc"
    c_file = toolchain.transform(case, backend)
    exe = toolchain.tmp / f"{name}_{backend}"
    res = run(["gcc", "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", "-o", exe, c_file, COROC_LIB,
               "-pthread", "-lm"], timeout=120)
    assert res.returncode == 0, res.stderr
    return exe


def runner(*args, env=None, timeout=300):
    full = dict(os.environ)
    full.pop("CORO_SCHED_SEED", None)
    full.pop("CORO_SCHED_FAULTS", None)
    full.update(env or {})
    return subprocess.run([str(RUNNER), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=full)


def replay(line, times=5):
    """Run the replay line (VAR=VALUE ... PROGRAM ARGS) `times` times: the statuses and errors."""
    words = shlex.split(line)
    env = dict(os.environ)
    while "=" in words[0] and not words[0].startswith("/"):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return [subprocess.run(words, capture_output=True, text=True, timeout=60, env=env)
            for _ in range(times)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,faults,message", [
    ("planted_order", None, "the defaults overwrote the overrides"),
    ("planted_short", "short", "the server got"),
])
def test_runner_finds_planted_bug(toolchain, backend, name, faults, message):
    exe = build(toolchain, name, backend)
    plain = run([exe])
    assert plain.returncode == 0, plain.stderr  # hidden by the default schedule
    if faults:  # hidden by the schedules too, without the fault
        res = runner("-n", DOCUMENTED_SEEDS, exe)
        assert res.returncode == 0, res.stderr
    args = ["-n", DOCUMENTED_SEEDS] + (["-f", faults] if faults else []) + [exe]
    res = runner(*args)
    assert res.returncode == 1, res.stdout + res.stderr
    assert message in res.stderr and "replay it with:" in res.stderr, res.stderr
    line = res.stdout.strip().splitlines()[-1]
    assert line.startswith("CORO_SCHED_SEED="), line
    assert (f"CORO_SCHED_FAULTS={faults} " in line) == bool(faults), line
    for again in replay(line):
        assert again.returncode == 1 and message in again.stderr, again.stderr


@pytest.fixture(scope="module")
def sh_program(tmp_path_factory):
    """A program that fails as its arguments say, once CORO_SCHED_SEED reaches 3."""
    path = tmp_path_factory.mktemp("seeds") / "prog.sh"
    path.write_text("#!/bin/sh\n"
                    "echo \"out\"\n"
                    "[ \"$CORO_SCHED_SEED\" -ge 3 ] || exit 0\n"
                    "case \"$1\" in\n"
                    "  status) echo \"failing on purpose\" >&2; exit 7 ;;\n"
                    "  signal) kill -SEGV $$ ;;\n"
                    "  hang) sleep 30 ;;\n"
                    "  output) echo \"other $CORO_SCHED_FAULTS\" ;;\n"
                    "esac\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("how,reason", [
    ("status", "exit status 7"),
    ("signal", "killed by signal 11 (SEGV)"),
    ("hang", "ran longer than 1 s"),
])
def test_runner_reports_how_a_run_failed(sh_program, how, reason):
    res = runner("-n", 5, "-t", 1, "-f", "eagain,short=5", sh_program, how)
    assert res.returncode == 1, res.stderr
    assert f"coro-seeds: seed 3 fails ({reason}), after 2 that passed" in res.stderr, res.stderr
    assert res.stdout.strip() == f"CORO_SCHED_SEED=3 CORO_SCHED_FAULTS=eagain,short=5 {shlex.quote(str(sh_program))} {how}"
    if how == "status":
        assert "failing on purpose" in res.stderr


def test_runner_compares_output(sh_program, tmp_path):
    res = runner("-n", 5, "--same", sh_program, "output")
    assert res.returncode == 1 and "seed 3 fails (its output differs" in res.stderr, res.stderr
    expected = tmp_path / "expected"
    expected.write_text("out\n")
    res = runner("-n", 5, "-s", 3, "--expect", expected, sh_program, "output")
    assert res.returncode == 1 and "seed 3 fails" in res.stderr and "> other" in res.stderr, res.stderr
    res = runner("-n", 2, "--expect", expected, sh_program, "output")  # seeds 1 and 2 print "out"
    assert res.returncode == 0 and "2 seeds (1..2) passed" in res.stderr, res.stderr


def test_runner_passes_and_refuses(sh_program):
    res = runner("-n", 2, sh_program, "status")
    assert res.returncode == 0 and res.stdout == "", res.stdout + res.stderr
    res = runner("-n", 2, "-q", sh_program, "status")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    for bad in (["-n", "many", sh_program], ["--sideways", sh_program], ["-n", "3"],
                ["--expect", "/nonexistent/file", sh_program]):
        res = runner(*bad)
        assert res.returncode == 2 and res.stderr, (bad, res.stderr)


FATAL = r"""
#include <coro.h>
coroutine int gen(void) { yield 1; }
int main(void) { coro_spawn(gen()); return 0; }
"""


def test_environment_checked_and_fatal_names_the_schedule(toolchain):
    src = toolchain.tmp / "fatal.coc"
    src.write_text(FATAL)
    c_file = toolchain.transform(src, "stackless")
    exe = toolchain.tmp / "fatal"
    res = run(["gcc", "-std=gnu11", f"-I{COROC_INCLUDE}", "-o", exe, c_file, COROC_LIB, "-pthread"])
    assert res.returncode == 0, res.stderr
    env = dict(os.environ, CORO_SCHED_SEED="5", CORO_SCHED_FAULTS="short,late=3")
    res = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode != 0
    assert res.stderr.rstrip().endswith(
        "(schedule: CORO_SCHED_SEED=5 CORO_SCHED_FAULTS=short,late=3)"), res.stderr
    for name, value, why in [("CORO_SCHED_SEED", "five", "not a number"),
                             ("CORO_SCHED_FAULTS", "short,sideways", "unknown kind"),
                             ("CORO_SCHED_FAULTS", "late=200", "a percentage")]:
        res = subprocess.run([exe], capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, **{name: value}))
        assert res.returncode == 2 and f"coro: {name}={value}: " in res.stderr and why in res.stderr, \
            res.stderr


# Failures the schedules found in the project's own programs, replayed from
# their seeds: each must pass now, and take the path that failed (the line).
# (tests/tasks/cancel_race.coc expected a cancel that comes first to leave its
# second read waiting; the byte left in the pipe is taken at once instead, as
# docs/runtime.md says of an await that completes without waiting.)
REPLAYS = [
    ("cancel_race", {"CORO_SCHED_SEED": "1", "CORO_SCHED_FAULTS": "eagain"},
     "io: first -125, second 1"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,env,line", REPLAYS, ids=[r[0] for r in REPLAYS])
def test_found_failure_replays_and_passes(toolchain, backend, name, env, line):
    case = TESTS_DIR / "tasks" / f"{name}.coc"
    c_file = toolchain.transform(case, backend, extra=(f"-I{TESTS_DIR}",))
    exe = toolchain.tmp / f"{name}_{backend}"
    res = run(["gcc", "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}", "-o", exe, c_file,
               COROC_LIB, "-pthread", "-lm"], timeout=120)
    assert res.returncode == 0, res.stderr
    res = subprocess.run([exe], capture_output=True, text=True, timeout=60, env=dict(os.environ, **env))
    assert res.returncode == 0, res.stdout + res.stderr
    assert line in res.stdout.splitlines(), res.stdout


# one chunk of soak.py: each program's seeds run in one job. (The builds are half of the
# soak's time: 93 CPU seconds with 1 seed, 195 with 10.)
SUITE_SEEDS = DOCUMENTED_SEEDS if FULL else DOCUMENTED_SEEDS // 2


def test_every_program_passes_the_seeds_with_faults(tmp_path):
    res = subprocess.run([sys.executable, str(SEEDS_DIR / "soak.py"), "--seeds", str(SUITE_SEEDS), "--faults", "all",
                          "--workdir", str(tmp_path)], capture_output=True, text=True, timeout=3600)
    print(res.stdout)  # (the figures, in the log of the run)
    assert res.returncode == 0, res.stdout + res.stderr
    m = re.search(rf"(\d+) of (\d+) programs passed {SUITE_SEEDS} seeds each", res.stdout)
    tasks = len(list((TESTS_DIR / "tasks").glob("*.coc")))
    assert m and m.group(1) == m.group(2) and int(m.group(2)) == 2 * (tasks + 4), res.stdout  # + 4 examples
