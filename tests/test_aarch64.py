"""The run tests on aarch64: the tests/cases and tests/tasks programs,
cross-compiled with Debian's aarch64-linux-gnu-gcc against a libcoro built for
aarch64 (its assembly switch, switch_aarch64.S), run under qemu-aarch64. The
stackful backend runs every task program (every other one in the suite, all
with tests/run --full): the switch is what is aarch64's own.
The stackless backend runs tests/cases, the language (where aarch64's C
differs, as in an unsigned char); a task program's stackless C only adds the
runtime, which the stackful runs already take through on aarch64, so it is
left to the x86-64 runs. The stackful backend runs every third language case
in the suite (its C is the body as written: the compiler's to get right) and
all of them with tests/run --full. .ci/run installs both tools; without them
the tests are skipped, and say why."""
import shutil

import pytest

from conftest import build_runtime_archive, case_args, every_nth, SOURCE_DIR, TESTS_DIR, WARNINGS, run

CC = "aarch64-linux-gnu-gcc"
AR = "aarch64-linux-gnu-ar"
QEMU = "qemu-aarch64"
RUNTIME = SOURCE_DIR / "runtime"

have_tools = all(shutil.which(t) for t in (CC, AR, QEMU))
if not have_tools:
    pytestmark = pytest.mark.skip(reason="aarch64 cross tools not installed")

LANGUAGE = sorted((TESTS_DIR / "cases").glob("*.coc"))
TASKS = sorted((TESTS_DIR / "tasks").glob("*.coc"))
RUNS = sorted([(case, "stackless") for case in LANGUAGE]
              + [(case, "stackful") for case in every_nth(LANGUAGE, 3)]
              + [(task, "stackful") for task in every_nth(TASKS, 2)])


@pytest.fixture(scope="session")
def libcoro_aarch64(tmp_path_factory):
    return build_runtime_archive(tmp_path_factory.mktemp("aarch64"), CC, AR, ["-O2"], "switch_aarch64.S")


@pytest.mark.parametrize("case,backend", RUNS, ids=[f"{c.parent.name}/{c.name}-{b}" for c, b in RUNS])
def test_case_on_aarch64(toolchain, libcoro_aarch64, case, backend, tmp_path):
    args = case_args(case)
    c_file = toolchain.transform(case, backend, extra=(f"-I{TESTS_DIR}", f"-I{case.parent}", *args))
    exe = tmp_path / "prog"
    res = run([CC, "-std=gnu11", "-O1", *WARNINGS, "-static", f"-I{RUNTIME / 'include'}",
               f"-I{TESTS_DIR}", f"-I{case.parent}", *args, "-o", exe, c_file, libcoro_aarch64,
               "-pthread", "-lm"], timeout=120)   # the flags coro.pc gives
    assert res.returncode == 0, res.stderr
    res = run([QEMU, exe], timeout=60)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr
    assert res.stdout.rstrip().splitlines()[-1] == "OK"
