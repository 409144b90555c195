"""Where instances live: runtime/registry.c's slabs and its malloc path.

tests/runtime/instances.c drives coro_frame_new and coro_free as generated code
does; here each of its parts runs against the prebuilt libcoro, and the parts
that only a tool can see run under valgrind (which makes the runtime take
malloc for every instance) and against a libcoro built with AddressSanitizer
(which does the same at compile time)."""
import shutil

import pytest

from conftest import shared_runtime_archive, COROC_INCLUDE, COROC_LIB, SOURCE_DIR, WARNINGS, run

PROGRAM = SOURCE_DIR / "tests" / "runtime" / "instances.c"
ASAN = ["-fsanitize=address", "-fno-omit-frame-pointer"]


def build(tmp_path, lib, flags=()):
    exe = tmp_path / "instances"
    res = run(["gcc", "-std=gnu11", "-O1", "-g", *flags, *WARNINGS, f"-I{COROC_INCLUDE}", "-o", exe,
               PROGRAM, lib, "-pthread"], timeout=120)
    assert res.returncode == 0, res.stderr
    return exe


@pytest.fixture(scope="module")
def instances(tmp_path_factory):
    return build(tmp_path_factory.mktemp("instances"), COROC_LIB)


@pytest.mark.parametrize("part", ["layout", "churn", "release", "kept"])
def test_instances(instances, part):
    res = run([instances, part], timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "OK\n"


def test_free_on_another_thread_is_refused(instances):
    res = run([instances, "thread"], timeout=60)
    assert res.returncode != 0
    assert "coro: coro_free: instance 0x" in res.stderr
    assert "was made on thread" in res.stderr and "is freed on thread" in res.stderr, res.stderr
    assert "not refused" not in res.stderr


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.parametrize("part", ["churn", "reuse"])
def test_valgrind_sees_every_instance(instances, part):
    """Under valgrind every instance is a malloc block of its own: a read of a
    freed one is reported, and churn runs clean. (Layout, side by side in a
    slab, does not hold there by design.)"""
    res = run(["valgrind", "--error-exitcode=99", "-q", instances, part], timeout=600)
    if part == "reuse":
        assert "Invalid read" in res.stderr and "free'd" in res.stderr, res.stderr
    else:
        assert res.returncode == 0, res.stderr
        assert res.stdout == "OK\n"


@pytest.fixture(scope="module")
def libcoro_asan(tmp_path_factory):
    return shared_runtime_archive(tmp_path_factory, "gcc", "ar", ["-O1", "-g", *ASAN],
                                  "switch_x86_64.S")


def test_asan_sees_a_freed_instance(libcoro_asan, tmp_path):
    exe = build(tmp_path, libcoro_asan, ASAN)
    res = run([exe, "reuse"], timeout=60)
    assert "heap-use-after-free" in res.stderr, res.stderr
    res = run([exe, "churn"], timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "OK\n"
