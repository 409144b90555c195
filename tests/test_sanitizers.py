"""The stackful programs under the tools a C programmer trusts: every language
case (tests/cases) built --backend=stackful against a libcoro compiled
with AddressSanitizer, which must report nothing (the task programs run so in
both backends in tests/seeds/soak.py, test_seeds.py: under the default
schedule and under seeds with faults), and a sample of them under
valgrind memcheck, which must find no error (the runtime tells both tools
about every stack switch and stack: runtime/stackful.c, stack_cache.c). And the stale-pointer check of
a debug libcoro (no NDEBUG, no ASan: the shared stack's vacated part poisoned
and checked at every resume), which must stop none of the programs that run
tasks on the shared stack, nor the echo server its clients leave mid-message."""
import re
import select
import shutil
import signal
import subprocess
import time

import pytest

from conftest import (shared_runtime_archive, case_args, COROC_INCLUDE, COROC_LIB, SOURCE_DIR, TESTS_DIR,
                      WARNINGS, run)
from test_examples import half_message_then_fin, half_message_then_reset, whole_messages_then_gone

CASES = sorted((TESTS_DIR / "cases").glob("*.coc"))
TASKS = sorted((TESTS_DIR / "tasks").glob("*.coc"))
ASAN = ["-fsanitize=address", "-fno-omit-frame-pointer"]


@pytest.fixture(scope="session")
def libcoro_asan(tmp_path_factory):
    return shared_runtime_archive(tmp_path_factory, "gcc", "ar", ["-O1", "-g", *ASAN],
                                  "switch_x86_64.S")


def build(toolchain, case, tmp_path, lib, flags):
    args = case_args(case)
    c_file = toolchain.transform(case, "stackful", extra=(f"-I{TESTS_DIR}", f"-I{case.parent}", *args))
    exe = tmp_path / "prog"
    res = run(["gcc", "-std=gnu11", "-g", *flags, *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}",
               f"-I{case.parent}", *args, "-o", exe, c_file, lib, "-pthread", "-lm"],
              timeout=120)   # the flags coro.pc gives
    assert res.returncode == 0, res.stderr
    return exe


@pytest.mark.parametrize("case", CASES, ids=[c.parent.name + "/" + c.name for c in CASES])
def test_stackful_under_asan(toolchain, libcoro_asan, case, tmp_path):
    exe = build(toolchain, case, tmp_path, libcoro_asan, ASAN + ["-O1"])
    res = run([exe], timeout=60)
    assert "AddressSanitizer" not in res.stderr, res.stderr
    assert res.returncode == 0, res.stderr
    assert res.stdout.rstrip().splitlines()[-1] == "OK"


# the values sent in (coro_send, CORO_RECEIVE's copy of the lvalue's size), and cleanups;
# the task programs' stackless frames (frames inside their parent's, coro_children) run
# under ASan in the soak (tests/seeds/soak.py)
STACKLESS = [TESTS_DIR / "cases" / "send.coc", TESTS_DIR / "cases" / "cleanup.coc"]


@pytest.mark.parametrize("case", STACKLESS, ids=[c.name for c in STACKLESS])
def test_stackless_under_asan(toolchain, libcoro_asan, case, tmp_path):
    """The stackless backend too: tests/cases/send.coc: a value sent in is
    copied with the size of the lvalue that receives it, never more; the
    runtime takes malloc under ASan."""
    args = case_args(case)
    c_file = toolchain.transform(case, "stackless", extra=(f"-I{TESTS_DIR}", f"-I{case.parent}", *args))
    exe = tmp_path / "prog"
    res = run(["gcc", "-std=gnu11", "-g", "-O1", *ASAN, *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}",
               f"-I{case.parent}", *args, "-o", exe, c_file, libcoro_asan, "-pthread", "-lm"], timeout=120)
    assert res.returncode == 0, res.stderr
    res = run([exe], timeout=60)
    assert "AddressSanitizer" not in res.stderr and "LeakSanitizer" not in res.stderr, res.stderr
    assert res.returncode == 0, res.stderr
    assert res.stdout.rstrip().splitlines()[-1] == "OK"


SAMPLE = [c for c in CASES + TASKS if c.stem in
          {"pointers", "sieve", "interleaved", "big_locals", "task_chain", "pipe_io", "futures",
           "await_loops", "recursion", "free_unfinished"}]


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.parametrize("case", SAMPLE, ids=[c.parent.name + "/" + c.name for c in SAMPLE])
def test_stackful_under_valgrind(toolchain, case, tmp_path):
    exe = build(toolchain, case, tmp_path, COROC_LIB, ["-O1"])
    res = run(["valgrind", "--error-exitcode=99", "--leak-check=no", "-q", exe], timeout=300)
    assert res.returncode == 0, res.stderr
    assert "switching stacks" not in res.stderr, res.stderr
    assert res.stdout.rstrip().splitlines()[-1] == "OK"


# {==================================================================
# The stale-pointer check of debug builds (STACKFUL_SHARED_CHECK)
# ===================================================================

@pytest.fixture(scope="session")
def libcoro_checked(tmp_path_factory):
    """libcoro as a Debug build compiles it: without NDEBUG, so with the shared stack's check."""
    return shared_runtime_archive(tmp_path_factory, "gcc", "ar", ["-O1", "-g"],
                                  "switch_x86_64.S")


SHARED_TASKS = [c for c in TASKS if "coro_set_shared_stack" in c.read_text()]


@pytest.mark.parametrize("case", SHARED_TASKS, ids=[c.name for c in SHARED_TASKS])
def test_shared_stack_tasks_under_stale_check(toolchain, libcoro_checked, case, tmp_path):
    """Tasks on the shared stack, built stackful against the checked libcoro: no write into the
    vacated part of the shared stack is reported. (tasks/shared_stack_fresh_start.coc: a task's
    first resume, right after another ended while a third was copied out, writes its entry frame
    where the poison reaches the top; that is the new owner's own write, not a stale one.)"""
    exe = build(toolchain, case, tmp_path, libcoro_checked, ["-O1"])
    res = run([exe], timeout=60)
    assert "coro:" not in res.stderr, res.stderr
    assert res.returncode == 0, res.stderr
    assert res.stdout.rstrip().splitlines()[-1] == "OK"


def test_echo_clients_leaving_under_stale_check(toolchain, libcoro_checked, tmp_path):
    """examples/echo.coc built stackful against the checked libcoro (its connection tasks run on
    the shared stack), and test_examples' clients that leave mid-message (FIN, RST, gone before
    their echo), 15 at a time, five times over: the server reports nothing, and stops with
    status 0 on SIGTERM."""
    exe = build(toolchain, SOURCE_DIR / "examples" / "echo.coc", tmp_path, libcoro_checked, ["-O1"])
    err = tmp_path / "stderr"
    with open(err, "w+b") as err_file:
        proc = subprocess.Popen([exe, "--port", "0"], stdout=subprocess.PIPE, stderr=err_file)
        try:
            ready, _, _ = select.select([proc.stdout], [], [], 10)
            line = proc.stdout.readline().decode() if ready else ""
            m = re.search(r"127\.0\.0\.1:(\d+)\s*$", line)
            assert m, f"the server's first line does not name its port: {line!r}"
            port = int(m.group(1))
            message = bytes(range(256)) * 16
            for _ in range(5):
                for leave in (half_message_then_fin, half_message_then_reset, whole_messages_then_gone) * 5:
                    leave(port, message)
                time.sleep(0.2)
                assert proc.poll() is None, err.read_text(errors="replace")
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=15) == 0, err.read_text(errors="replace")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
            proc.stdout.close()
    assert err.read_text(errors="replace") == ""
