"""The stackful programs under the tools a C programmer trusts: every run test
(tests/cases, tests/tasks) built --backend=stackful against a libcoro compiled
with AddressSanitizer, which must report nothing (and the tasks built
--backend=stackless too), and a sample of them under
valgrind memcheck, which must find no error (the runtime tells both tools
about every stack switch: runtime/stackful.c)."""
import shutil

import pytest

from conftest import build_runtime_archive, case_args, COROC_INCLUDE, COROC_LIB, TESTS_DIR, WARNINGS, run

CASES = sorted((TESTS_DIR / "cases").glob("*.coc")) + sorted((TESTS_DIR / "tasks").glob("*.coc"))
ASAN = ["-fsanitize=address", "-fno-omit-frame-pointer"]


@pytest.fixture(scope="session")
def libcoro_asan(tmp_path_factory):
    return build_runtime_archive(tmp_path_factory.mktemp("asan"), "gcc", "ar", ["-O1", "-g", *ASAN],
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


TASKS = sorted((TESTS_DIR / "tasks").glob("*.coc"))
# and the values sent in (coro_send, CORO_RECEIVE's copy of the lvalue's size)
STACKLESS = TASKS + [TESTS_DIR / "cases" / "send.coc", TESTS_DIR / "cases" / "cleanup.coc"]


@pytest.mark.parametrize("case", STACKLESS, ids=[c.name for c in STACKLESS])
def test_stackless_tasks_under_asan(toolchain, libcoro_asan, case, tmp_path):
    """The stackless backend's tasks too: frames inside their parent's
    (coro_children), made in place and never freed by themselves, must
    neither overlap nor leak; the runtime takes malloc under ASan. And
    tests/cases/send.coc: a value sent in is copied with the size of the
    lvalue that receives it, never more."""
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


SAMPLE = [c for c in CASES if c.stem in
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
