"""Stackless and stackful tasks in one program: one scheduler, one await
protocol. A stackful task awaits a stackless one, which awaits a stackful
one, while a stackless and a stackful ticker take turns in FIFO order.
And a .coc's coroutines made by a plain C file in storage it gives, through
the header of `coroc --header` (frames.coc, frames_main.c)."""
import re

import pytest

from conftest import (BACKENDS, COMPILERS, COROC_INCLUDE, COROC_LIB, TESTS_DIR, WARNINGS,
                      shared_runtime_archive, case_args, run)

MIXED = TESTS_DIR / "mixed"


@pytest.mark.parametrize("cc", COMPILERS)
def test_one_scheduler_both_backends(toolchain, cc, tmp_path):
    less = toolchain.transform(MIXED / "stackless_half.coc", "stackless", extra=(f"-I{MIXED}",))
    ful = toolchain.transform(MIXED / "stackful_half.coc", "stackful", extra=(f"-I{MIXED}",))
    exe = tmp_path / "mixed"
    res = run([cc, "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{MIXED}", "-o", exe,
               less, ful, MIXED / "main.c", COROC_LIB, "-pthread"], timeout=120)
    assert res.returncode == 0, res.stderr
    res = run([exe], timeout=30)
    assert res.returncode == 0, res.stderr
    # 2 * 7 * 7; the tickers alternate a (stackless) and b (stackful) from the start
    assert res.stdout == "98 ababab\n"


# {==================================================================
# Instances of one file's coroutines made by another (coroc --header)
# ===================================================================

def build_frames(toolchain, backend, cc, tmp_path, flags=(), lib=COROC_LIB):
    """frames.coc through coroc --header, and frames_main.c, a plain C file
    that includes the header, compiled together warning-free."""
    header = tmp_path / "frames.h"
    res = toolchain.coroc(f"--backend={backend}", f"-I{MIXED}", f"--header={header}",
                          "-o", tmp_path / "frames.c", MIXED / "frames.coc")
    assert res.returncode == 0, res.stderr
    exe = tmp_path / f"frames.{backend}.{cc}"
    res = run([cc, "-std=gnu11", "-g", *flags, *WARNINGS, f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}",
               f"-I{MIXED}", f"-I{tmp_path}", "-o", exe, tmp_path / "frames.c", MIXED / "frames_main.c",
               lib, "-pthread", "-lm"], timeout=120)
    assert res.returncode == 0, res.stderr
    return header, exe


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cc", COMPILERS)
def test_instances_in_storage_of_another_file(toolchain, backend, cc, tmp_path):
    header, exe = build_frames(toolchain, backend, cc, tmp_path)
    res = run([exe], timeout=30)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.splitlines()[-1] == "OK", res.stdout
    text = header.read_text()
    # the coroutines with external linkage, and nothing of the static ones but
    # the frame of the child that a stackless frame holds
    for name in ["window_sums", "add_up"]:
        assert f"coro_t *coro_in_{name}(" in text, text
    assert "hidden" not in text and "coro_in_twice(" not in text, text
    assert ("struct coro_frame_twice {" in text) == (backend == "stackless"), text


@pytest.fixture(scope="module")
def libcoro_asan(tmp_path_factory):
    return shared_runtime_archive(tmp_path_factory, "gcc", "ar",
                                  ["-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer"],
                                  "switch_x86_64.S")


@pytest.mark.parametrize("backend", BACKENDS)
def test_instances_in_storage_of_another_file_under_asan(toolchain, libcoro_asan, backend, tmp_path):
    """The storage is the program's: the runtime must write only inside it,
    and free none of it (a free of a local or an arena block would be
    reported)."""
    _, exe = build_frames(toolchain, backend, "gcc", tmp_path,
                          flags=("-O1", "-fsanitize=address", "-fno-omit-frame-pointer"), lib=libcoro_asan)
    res = run([exe], timeout=60)
    assert "Sanitizer" not in res.stderr, res.stderr
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == "OK", res.stdout


TASKS = sorted((TESTS_DIR / "tasks").glob("*.coc"))


@pytest.mark.parametrize("case", TASKS, ids=[c.name for c in TASKS])
def test_header_frames_match_the_c(toolchain, case, tmp_path):
    """For each task program, with each backend: the header compiles alone,
    warning-free, and each CORO_FRAME it declares has the size and the
    alignment that the .c gives it (children inline, coroutines that await
    each other before they are defined, shapes of arrays declared [])."""
    args = case_args(case)
    for backend in BACKENDS:
        res = toolchain.coroc(f"--backend={backend}", f"-I{TESTS_DIR}", f"-I{case.parent}", *args,
                              f"--header={tmp_path / 'h.h'}", "-o", tmp_path / "x.c", case)
        if res.returncode != 0:   # what a header cannot show is refused with the place
            assert "error: --header: the frame of" in res.stderr, res.stderr
            continue
        names = re.findall(r"coro_t \*coro_in_(\w+)\(", (tmp_path / "h.h").read_text())
        measure = "".join(f"unsigned long coro_measure_{n}(void) {{ return sizeof(CORO_FRAME({n})) * 1000 + "
                          f"_Alignof(CORO_FRAME({n})); }}\n" for n in names)
        with open(tmp_path / "x.c", "a") as f:
            f.write(measure)
        (tmp_path / "inc.c").write_text(
            '#include "h.h"\n#include "h.h"\n#include <stdio.h>\n'
            + "".join(f"unsigned long coro_measure_{n}(void);\n" for n in names)
            + "int main(void) {\n  int bad = 0;\n"
            + "".join(f'  if (coro_measure_{n}() != sizeof(CORO_FRAME({n})) * 1000 + _Alignof(CORO_FRAME({n})))\n'
                      f'    bad = printf("{n}: %lu in the .c\\n", coro_measure_{n}());\n' for n in names)
            + "  return bad != 0;\n}\n")
        inc = (f"-I{COROC_INCLUDE}", f"-I{TESTS_DIR}", f"-I{case.parent}", f"-I{tmp_path}", *args)
        res = run(["gcc", "-std=gnu11", *WARNINGS, *inc, "-Dmain=coro_test_main", "-c", "-o", tmp_path / "x.o",
                   tmp_path / "x.c"], timeout=120)
        assert res.returncode == 0, res.stderr
        exe = tmp_path / "sizes"
        res = run(["gcc", "-std=gnu11", *WARNINGS, *inc, "-o", exe, tmp_path / "inc.c", tmp_path / "x.o",
                   COROC_LIB, "-pthread", "-lm"], timeout=120)
        assert res.returncode == 0, res.stderr
        res = run([exe], timeout=30)
        assert res.returncode == 0, f"{backend}: the header's frames differ from the .c's:\n{res.stdout}"
