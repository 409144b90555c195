"""The installed coroc, used from outside.

`cmake --install BUILD --prefix P` into a temporary prefix; check what lands in
P; then build one tiny consumer project two ways, each in its own temporary
directory, with nothing from the source or build tree:

    cmake       find_package(coroc) + coroc_generate(), found through CMAKE_PREFIX_PATH
    pkg-config  a Makefile running P/bin/coroc, then cc with `pkg-config --cflags --libs coro`

The consumer's generator yields 1..LIMIT and main prints each value and the
sum; the test computes the expected output itself. LIMIT comes from a -D, so
that the compile definitions are seen to reach coroc and the compiler.

A third consumer checks coroc's depfile through coroc_generate: changing a
header that the .coc includes makes `cmake --build` run coroc again, with the
Makefile generator and with Ninja. A fourth asks coroc_generate for the
header of the frames (HEADER), which a program of plain C in another target
includes to make instances in its own storage.
"""
import json
import os
import shlex
import pathlib
import re
import shutil
import subprocess
import time
import warnings

import pytest

from conftest import BUILD_DIR, SOURCE_DIR, TESTS_DIR

LIMIT = 5
CMAKE = os.environ.get("CMAKE_COMMAND") or shutil.which("cmake") or "cmake"

GEN_COC = """\
/* The consumer's generator: 1, 2, ..., LIMIT (LIMIT is given with -D). */
#include <coro.h>
#include <stdio.h>

coroutine int upto(int n) {
  for (int i = 1; i <= n; i++)
    yield i;
}

int main(void) {
  coro_t *g = upto(LIMIT);
  int v, sum = 0;
  while (coro_next(g, &v)) {
    printf("%d\\n", v);
    sum += v;
  }
  coro_free(g);
  printf("sum %d\\n", sum);
  return 0;
}
"""

CONSUMER_CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(consumer LANGUAGES C)
find_package(coroc {version} REQUIRED)
add_executable(app)
target_link_libraries(app PRIVATE coroc::coro)
target_compile_definitions(app PRIVATE LIMIT={limit})
coroc_generate(TARGET app BACKEND stackless SOURCES gen.coc)
"""

# Recipe lines must start with a tab.
CONSUMER_MAKEFILE = """\
COROC ?= coroc
PKG_CONFIG ?= pkg-config
CPPFLAGS = -DLIMIT={limit}
CFLAGS = -std=gnu11 -Wall -Wextra -Werror

app: gen.stackless.c
\teval "$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ gen.stackless.c $$($(PKG_CONFIG) --cflags --libs coro)"

gen.stackless.c: gen.coc
\t"$(COROC)" --backend=stackless $(CPPFLAGS) -o $@ gen.coc
"""


def expected_output():
    values = list(range(1, LIMIT + 1))
    return "".join(f"{v}\n" for v in values) + f"sum {sum(values)}\n"


def sh(cmd, cwd=None, env=None, timeout=300):
    """Run cmd; fail the test with its whole output unless it succeeds."""
    cmd = [str(c) for c in cmd]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (
        f"{' '.join(cmd)} exited with {proc.returncode}\n"
        f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}")
    return proc


def project_version():
    text = (SOURCE_DIR / "CMakeLists.txt").read_text()
    m = re.search(r"project\(\s*coroc\s+VERSION\s+([0-9.]+)", text)
    assert m, "no project(coroc VERSION ...) in the top-level CMakeLists.txt"
    return m.group(1)


def cache_value(cache, name, default):
    m = re.search(rf"^{name}:[A-Z]+=(.*)$", cache, re.M)
    return m.group(1) if m else default


class Install:
    """Where things landed under the prefix (GNUInstallDirs, as configured)."""

    def __init__(self, prefix, build_dir):
        cache = (build_dir / "CMakeCache.txt").read_text()
        self.prefix = prefix
        self.bindir = prefix / cache_value(cache, "CMAKE_INSTALL_BINDIR", "bin")
        self.libdir = prefix / cache_value(cache, "CMAKE_INSTALL_LIBDIR", "lib")
        self.includedir = prefix / cache_value(cache, "CMAKE_INSTALL_INCLUDEDIR", "include")
        self.coroc = self.bindir / "coroc"
        self.cmakedir = self.libdir / "cmake" / "coroc"
        self.pkgconfigdir = self.libdir / "pkgconfig"


@pytest.fixture(scope="session")
def installed(coroc, tmp_path_factory):
    assert (BUILD_DIR / "cmake_install.cmake").exists(), f"no configured build at {BUILD_DIR}"
    prefix = tmp_path_factory.mktemp("prefix")
    env = {k: v for k, v in os.environ.items() if k != "DESTDIR"}   # straight into the prefix
    sh([CMAKE, "--install", BUILD_DIR, "--prefix", prefix], env=env)
    return Install(prefix, BUILD_DIR)


def lsp_session(lsp):
    """The installed language server, over its pipes: initialize, a document
    that includes <coro.h> (found beside it, as coroc finds it) with no
    diagnostics, shutdown and exit."""
    assert lsp.is_file() and os.access(lsp, os.X_OK), f"{lsp} not installed"
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
            {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": "file:///nowhere/gen.coc", "languageId": "coc", "version": 1,
                "text": GEN_COC.replace("LIMIT", "3")}}},
            {"jsonrpc": "2.0", "id": 2, "method": "coroc/generatedC",
             "params": {"textDocument": {"uri": "file:///nowhere/gen.coc"}}},
            {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
            {"jsonrpc": "2.0", "method": "exit"}]
    data = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(b), b)
                    for b in (json.dumps(m).encode() for m in msgs))
    proc = subprocess.run([lsp], input=data, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    replies = [json.loads(body) for body in re.split(rb"Content-Length: \d+\r\n\r\n", proc.stdout)
               if body]
    published = [r["params"] for r in replies if r.get("method") == "textDocument/publishDiagnostics"]
    assert published and published[0]["diagnostics"] == [], replies
    generated = next(r for r in replies if r.get("id") == 2)
    assert "upto" in generated["result"]["text"], replies


def test_installed_files(installed):
    inst = installed
    assert inst.coroc.is_file() and os.access(inst.coroc, os.X_OK)
    # the API, the generated code's, which it includes, and gen.h's switch of x86_64
    for header in ["coro.h", "coro/gen.h", "coro/agen.h", "coro/awaitables.h",
                   "coro/switch_x86_64.h"]:
        assert (inst.includedir / header).read_text() == \
            (SOURCE_DIR / "runtime" / "include" / header).read_text(), header
    assert (inst.libdir / "libcoro.a").is_file()
    assert (inst.pkgconfigdir / "coro.pc").is_file()
    for name in ["corocConfig.cmake", "corocConfigVersion.cmake", "corocTargets.cmake",
                 "coroc_generate.cmake"]:
        assert (inst.cmakedir / name).is_file(), f"{name} not installed in {inst.cmakedir}"
    res = subprocess.run([inst.coroc, "--version"], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    lsp_session(inst.bindir / "coroc-lsp")  # docs/editors.md: installed beside coroc
    seeds = inst.bindir / "coro-seeds"  # docs/testing.md: installed beside coroc
    res = subprocess.run([seeds, "-n", "2", "true"], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0 and "2 seeds (1..2) passed" in res.stderr, res.stderr
    trace = inst.bindir / "coroc-trace"  # docs/debugging.md: installed beside coroc
    res = subprocess.run([trace, "--help"], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0 and "FILE.json" in res.stdout, res.stderr


def test_installed_headers_one_include(installed, tmp_path):
    """<coro.h> brings the generated code's header with it (a program uses a layout from it);
    <coro/gen.h> or <coro/awaitables.h> on its own is refused with the way out."""
    (tmp_path / "api.c").write_text(
        "#include <coro.h>\n"
        "int main(void) { struct coro_read rd = coro_read(0, 0, 0); return (int)sizeof rd.result - 8; }\n")
    sh(["gcc", "-Wall", "-Wextra", "-Werror", f"-I{installed.includedir}", "-c", "api.c"], cwd=tmp_path)
    for header in ["coro/gen.h", "coro/awaitables.h"]:
        (tmp_path / "gen.c").write_text(f"#include <{header}>\nint main(void) {{ return 0; }}\n")
        res = subprocess.run(["gcc", f"-I{installed.includedir}", "-c", "gen.c"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=60)
        assert res.returncode != 0 and "include <coro.h>" in res.stderr, (header, res.stderr)


def test_pkg_config_points_into_prefix(installed):
    env = dict(os.environ, PKG_CONFIG_PATH=str(installed.pkgconfigdir))
    assert sh(["pkg-config", "--modversion", "coro"], env=env).stdout.strip() == project_version()
    # shlex: pkg-config writes a space in a path as "\ " (a prefix under "my projects")
    flags = shlex.split(sh(["pkg-config", "--cflags", "--libs", "coro"], env=env).stdout)
    incs = [pathlib.Path(f[2:]).resolve() for f in flags if f.startswith("-I")]
    libs = [pathlib.Path(f[2:]).resolve() for f in flags if f.startswith("-L")]
    assert installed.includedir.resolve() in incs, flags
    assert installed.libdir.resolve() in libs, flags
    assert "-lcoro" in flags


def test_cmake_consumer(installed, tmp_path):
    src, build = tmp_path / "src", tmp_path / "build"
    src.mkdir()
    major, minor = project_version().split(".")[:2]
    (src / "CMakeLists.txt").write_text(CONSUMER_CMAKE.format(version=f"{major}.{minor}", limit=LIMIT))
    (src / "gen.coc").write_text(GEN_COC)

    sh([CMAKE, "-S", src, "-B", build, f"-DCMAKE_PREFIX_PATH={installed.prefix}"])
    cache = (build / "CMakeCache.txt").read_text()
    found = pathlib.Path(cache_value(cache, "coroc_DIR", ""))
    assert found.resolve() == installed.cmakedir.resolve(), "found a coroc other than the installed one"

    log = sh([CMAKE, "--build", build, "-j2", "--verbose"]).stdout
    # coroc_generate ran the installed coroc with the target's -D and the .coc's directory as -I.
    assert str(installed.coroc) in log, log
    assert f"-DLIMIT={LIMIT}" in log and f"-I{src}" in log, log
    assert (build / "gen.stackless.c").is_file()

    res = subprocess.run([build / "app"], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    assert res.stdout == expected_output()


def test_pkg_config_consumer(installed, tmp_path):
    (tmp_path / "Makefile").write_text(CONSUMER_MAKEFILE.format(limit=LIMIT))
    (tmp_path / "gen.coc").write_text(GEN_COC)
    env = dict(os.environ, PKG_CONFIG_PATH=str(installed.pkgconfigdir))
    env.pop("MAKEFLAGS", None)
    sh(["make", f"COROC={installed.coroc}"], cwd=tmp_path, env=env)

    res = subprocess.run([tmp_path / "app"], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    assert res.stdout == expected_output()


# {==================================================================
# The depfile: a header change runs coroc again
# ===================================================================

# The header decides an #if inside the coroutine body. coroc keeps only the
# group in effect, so the program prints the new value only if coroc ran
# again: compiling the old generated C again would not do it.
HEADER_COC = """\
#include <stdio.h>
#include "answer.h"

coroutine int values(void) {
#if BIG
  yield 100;
#else
  yield 1;
#endif
}

int main(void) {
  coro_t *g = values();
  int v;
  while (coro_next(g, &v))
    printf("%d\\n", v);
  coro_free(g);
  return 0;
}
"""

# flat: the .coc and answer.h side by side, coroc_generate at the top level.
# subdir: coroc_generate in a subdirectory, answer.h found through a relative
# -I, so that the depfile names it relative to the subdirectory's binary
# directory (what policy CMP0116 is about with Ninja).
LAYOUTS = {
    "flat": {
        "CMakeLists.txt": """\
cmake_minimum_required(VERSION 3.16)
project(consumer LANGUAGES C)
find_package(coroc REQUIRED)
add_executable(app)
target_link_libraries(app PRIVATE coroc::coro)
coroc_generate(TARGET app SOURCES gen.coc)
""",
        "gen.coc": HEADER_COC,
        "header": "answer.h",
        "app": "app",
    },
    "subdir": {
        "CMakeLists.txt": """\
cmake_minimum_required(VERSION 3.16)
project(consumer LANGUAGES C)
find_package(coroc REQUIRED)
add_subdirectory(sub)
""",
        "sub/CMakeLists.txt": """\
add_executable(app)
target_link_libraries(app PRIVATE coroc::coro)
target_include_directories(app PRIVATE ../inc)
file(RELATIVE_PATH inc "${CMAKE_CURRENT_BINARY_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/../inc")
coroc_generate(TARGET app SOURCES gen.coc OPTIONS "-I${inc}")
""",
        "sub/gen.coc": HEADER_COC,
        "header": "inc/answer.h",
        "app": "sub/app",
    },
}

GENERATORS = ["Unix Makefiles", "Ninja"]


def run_app(path):
    res = subprocess.run([path], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.mark.parametrize("layout", LAYOUTS.keys())
@pytest.mark.parametrize("generator", GENERATORS)
def test_cmake_consumer_header_change_runs_coroc_again(installed, tmp_path, generator, layout):
    if generator == "Ninja" and shutil.which("ninja") is None:
        pytest.skip("ninja is not installed: the Ninja generator cannot be tried")
    files = LAYOUTS[layout]
    src, build = tmp_path / "src", tmp_path / "build"
    for name, text in files.items():
        if name.endswith(("CMakeLists.txt", ".coc")):
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_text(text)
    header = src / files["header"]
    header.parent.mkdir(parents=True, exist_ok=True)
    header.write_text("#define BIG 0\n")

    conf = sh([CMAKE, "-G", generator, "-S", src, "-B", build,
               f"-DCMAKE_PREFIX_PATH={installed.prefix}"])
    assert "CMP0116" not in conf.stdout + conf.stderr, conf.stderr
    sh([CMAKE, "--build", build])
    assert run_app(build / files["app"]) == "1\n"
    depfiles = list(build.rglob("gen.stackless.c.d"))
    assert len(depfiles) == 1 and "answer.h" in depfiles[0].read_text(), depfiles

    time.sleep(1.1)  # a newer mtime, even where the file system counts seconds
    header.write_text("#define BIG 1\n")
    log = sh([CMAKE, "--build", build]).stdout
    assert "coroc (stackless)" in log, f"changing {header.name} did not run coroc again:\n{log}"
    assert run_app(build / files["app"]) == "100\n"

    # and a build with nothing changed runs nothing: every file the depfile
    # names is found where it says
    log = sh([CMAKE, "--build", build]).stdout
    assert "coroc (" not in log, f"a build with nothing changed ran coroc:\n{log}"


def test_cmake_consumer_older_cmake_does_without_depfile(installed, tmp_path):
    """Before CMake 3.20 (CMAKE_VERSION set lower, as an older CMake would have
    it), coroc_generate passes no -MD and no DEPFILE, which that CMake would
    refuse; the build works, and DEPENDS is what runs coroc again."""
    src, build = tmp_path / "src", tmp_path / "build"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        LAYOUTS["flat"]["CMakeLists.txt"]
        .replace("find_package(coroc REQUIRED)", "set(CMAKE_VERSION 3.19.0)\nfind_package(coroc REQUIRED)")
        .replace("SOURCES gen.coc)", "SOURCES gen.coc DEPENDS answer.h)"))
    (src / "gen.coc").write_text(HEADER_COC)
    (src / "answer.h").write_text("#define BIG 0\n")
    sh([CMAKE, "-S", src, "-B", build, f"-DCMAKE_PREFIX_PATH={installed.prefix}"])
    log = sh([CMAKE, "--build", build, "--verbose"]).stdout
    assert "gen.stackless.c.d" not in log and not list(build.rglob("gen.stackless.c.d")), log
    assert run_app(build / "app") == "1\n"
    time.sleep(1.1)
    (src / "answer.h").write_text("#define BIG 1\n")
    assert "coroc (stackless)" in sh([CMAKE, "--build", build]).stdout
    assert run_app(build / "app") == "100\n"


# {==================================================================
# HEADER: another target's C file makes the instances, in its own storage
# ===================================================================

# A library of coroutines built with each backend (each into a directory of
# its own), and a program of plain C for each that includes the header.
FRAMES_CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(consumer LANGUAGES C)
find_package(coroc REQUIRED)
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS ON)
add_compile_options(-Wall -Wextra -Werror)
foreach(backend stackless stackful)
  add_library(frames_${backend} STATIC)
  target_link_libraries(frames_${backend} PUBLIC coroc::coro)
  coroc_generate(TARGET frames_${backend} BACKEND ${backend} SOURCES coc/frames.coc
                 HEADER OUTPUT_DIR ${backend})
  add_executable(app_${backend} main.c)
  target_link_libraries(app_${backend} PRIVATE frames_${backend})
endforeach()
"""

FRAMES_TYPES_H = """\
struct span { int from, to; };
"""

FRAMES_COC = """\
#include "frames_types.h"
#define STEP 1
coroutine int walk(struct span s) {
  for (int i = s.from; i < s.to; i += STEP)
    yield i;
}
"""

FRAMES_MAIN = """\
#include <stdio.h>
#include "frames.h"
struct holder { char tag; CORO_FRAME(walk) frame; };
int main(void) {
  struct holder h;
  coro_t *g = coro_in_walk(&h.frame, (struct span){1, {limit}});
  int v, sum = 0;
  while (coro_next(g, &v))
    sum += v;
  coro_free(g);
  printf("sum %d\\n", sum);
  return 0;
}
"""


@pytest.mark.parametrize("generator", GENERATORS)
def test_cmake_consumer_header(installed, tmp_path, generator):
    if generator == "Ninja" and shutil.which("ninja") is None:
        pytest.skip("ninja is not installed: the Ninja generator cannot be tried")
    src, build = tmp_path / "src", tmp_path / "build"
    (src / "coc").mkdir(parents=True)
    (src / "CMakeLists.txt").write_text(FRAMES_CMAKE)
    (src / "coc" / "frames_types.h").write_text(FRAMES_TYPES_H)
    (src / "coc" / "frames.coc").write_text(FRAMES_COC)
    (src / "main.c").write_text(FRAMES_MAIN.replace("{limit}", str(LIMIT + 1)))
    sh([CMAKE, "-G", generator, "-S", src, "-B", build, f"-DCMAKE_PREFIX_PATH={installed.prefix}"])
    sh([CMAKE, "--build", build, "-j2"])
    for backend in ["stackless", "stackful"]:
        assert (build / backend / "frames.h").is_file()
        assert run_app(build / f"app_{backend}") == f"sum {sum(range(1, LIMIT + 1))}\n"
    log = sh([CMAKE, "--build", build]).stdout
    assert "coroc (" not in log, f"a build with nothing changed ran coroc:\n{log}"


@pytest.mark.parametrize("call, message", [
    ("coroc_generate(TARGET app SOURCES gen.coc HEADER)\n"
     "coroc_generate(TARGET app BACKEND stackful SOURCES gen.coc HEADER)", "is already generated for app"),
    ("coroc_generate(BACKEND stackless SOURCES gen.coc)", "TARGET <target> is required"),
    ("coroc_generate(TARGET nosuch SOURCES gen.coc)", "nosuch is not a target"),
    ("coroc_generate(TARGET app BACKEND stackfull SOURCES gen.coc)", "unknown BACKEND 'stackfull'"),
    ("coroc_generate(TARGET app BACKEND stackless)", "no SOURCES"),
    ("coroc_generate(app BACKEND stackless SOURCES gen.coc)", "unknown arguments: app"),
])
def test_coroc_generate_misuse(installed, tmp_path, call, message):
    """Misuse is a configure error (SEND_ERROR) that names the problem."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\n"
        "project(consumer LANGUAGES C)\n"
        "find_package(coroc REQUIRED)\n"
        "add_executable(app)\n"
        f"{call}\n")
    (src / "gen.coc").write_text(GEN_COC)
    proc = subprocess.run([CMAKE, "-S", src, "-B", tmp_path / "build",
                           f"-DCMAKE_PREFIX_PATH={installed.prefix}"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    # CMake wraps its messages at a fixed width, so where a line breaks depends on the
    # length of the paths in it: compare the words.
    words = " ".join(proc.stderr.split())
    assert "coroc_generate: " in words and " ".join(message.split()) in words, proc.stderr


# {==================================================================
# The gdb extension: installed, and carried by the programs
# ===================================================================

def test_editors_files_installed(installed):
    """cmake --install puts editors/ under PREFIX/share/coroc/editors, as
    docs/editors.md's lines expect: every file of the tree but the docs'
    screenshot script and what `npm install` would leave in vscode/, byte for byte."""
    cache = (BUILD_DIR / "CMakeCache.txt").read_text()
    datadir = cache_value(cache, "CMAKE_INSTALL_DATADIR", "") or cache_value(cache, "CMAKE_INSTALL_DATAROOTDIR",
                                                                            "share")
    source, target = SOURCE_DIR / "editors", installed.prefix / datadir / "coroc" / "editors"
    left_out = {"screenshot", ".gitignore", "node_modules", "package-lock.json"}  # CMakeLists.txt's
    wanted = {p.relative_to(source) for p in source.rglob("*")
              if p.is_file() and not left_out & set(p.relative_to(source).parts)}
    got = {p.relative_to(target) for p in target.rglob("*") if p.is_file()}
    assert got == wanted
    assert pathlib.Path("vim/syntax/coc.vim") in got and pathlib.Path("emacs/coroc-mode.el") in got
    for rel in got:
        assert (target / rel).read_bytes() == (source / rel).read_bytes(), rel


def test_gdb_extension_installed_and_loaded(installed, tmp_path):
    """cmake --install puts the extension under PREFIX/share/coroc/gdb; a
    program linked with the installed libcoro carries it, and gdb loads it
    from the program (auto-load, for a directory in its safe-path)."""
    cache = (BUILD_DIR / "CMakeCache.txt").read_text()
    datadir = cache_value(cache, "CMAKE_INSTALL_DATADIR", "") or cache_value(cache, "CMAKE_INSTALL_DATAROOTDIR",
                                                                            "share")
    for name in ("coroc-gdb.py", "coroc-gdb-names.py", "coroc-gdb-waits.py"):
        script = installed.prefix / datadir / "coroc" / "gdb" / name
        assert script.read_text() == (SOURCE_DIR / "runtime" / "gdb" / name).read_text()
    (tmp_path / "gen.coc").write_text(GEN_COC)
    sh([installed.coroc, "-DLIMIT=3", "-o", "gen.c", "gen.coc"], cwd=tmp_path)
    sh(["gcc", "-g", "-O0", "-DLIMIT=3", f"-I{installed.includedir}", "-o", "app", "gen.c",
        installed.libdir / "libcoro.a", "-lpthread"], cwd=tmp_path)
    if shutil.which("gdb") is None:
        warnings.warn("SKIP: gdb is not installed: the installed extension was not run")
        pytest.skip("gdb is not installed")
    res = sh(["gdb", "-batch", "-nx", "-iex", f"add-auto-load-safe-path {tmp_path}",
              "-ex", "break gen.coc:14", "-ex", "run", "-ex", "info coroutines", "app"], cwd=tmp_path)
    if "ptrace" in res.stdout + res.stderr and "not permitted" in res.stdout + res.stderr:
        warnings.warn("SKIP: gdb may not trace processes here: the installed extension was not run")
        pytest.skip("gdb may not trace processes here (ptrace: Operation not permitted)")
    # ADDRESS NAME KIND BACKEND STATE WHERE WAITS: WHERE is a path, which may hold spaces
    rows = [l.split() for l in res.stdout.splitlines() if l.startswith("0x")]
    assert [r[1:5] + [os.path.basename(" ".join(r[5:-1]))] + r[-1:] for r in rows] == \
        [["upto", "generator", "stackless", "suspended", "gen.coc:7", "-"]], res.stdout + res.stderr


@pytest.mark.parametrize("backend", ["stackless", "stackful"])
def test_cmake_debug_build_names_locals_in_gdb(installed, tmp_path, backend):
    """docs/cmake.md's example as a user builds it: a Debug build through
    coroc_generate, and gdb told the one line to trust the build directory;
    at a breakpoint in the body, print and info locals know every local
    (tests/test_gdb_names.py asks the rest)."""
    if shutil.which("gdb") is None:
        warnings.warn("SKIP: gdb is not installed")
        pytest.skip("gdb is not installed")
    src, build = tmp_path / "src", tmp_path / "build"
    src.mkdir()
    shutil.copy(TESTS_DIR / "gdb" / "names.coc", src / "names.coc")
    major, minor = project_version().split(".")[:2]
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(names LANGUAGES C)\n"
        f"find_package(coroc {major}.{minor} REQUIRED)\nadd_executable(names)\n"
        "target_link_libraries(names PRIVATE coroc::coro)\n"
        f"coroc_generate(TARGET names BACKEND {backend} SOURCES names.coc)\n")
    sh([CMAKE, "-S", src, "-B", build, f"-DCMAKE_PREFIX_PATH={installed.prefix}", "-DCMAKE_BUILD_TYPE=Debug"])
    sh([CMAKE, "--build", build])
    line = next(no for no, text in enumerate((src / "names.coc").read_text().splitlines(), 1)
                if "/* LINE inner */" in text)
    res = sh(["gdb", "-batch", "-nx", "-iex", f"add-auto-load-safe-path {build}",
              "-ex", f"break names.coc:{line}", "-ex", "run", "-ex", "print total", "-ex", "print i",
              "-ex", "info locals", "names"], cwd=build)
    if "ptrace" in res.stdout + res.stderr and "not permitted" in res.stdout + res.stderr:
        warnings.warn("SKIP: gdb may not trace processes here")
        pytest.skip("gdb may not trace processes here (ptrace: Operation not permitted)")
    out = res.stdout + res.stderr
    assert "auto-loading has been declined" not in out, out
    # evens(4) after its second yield: total = 10 + 4, the inner i = 7 * 14
    assert "$1 = 14" in out and "$2 = 98" in out, out
    assert re.search(r"^total = 14$", res.stdout, re.M) and re.search(r"^buf = \{10, 20, 30\}$",
                                                                        res.stdout, re.M), out
