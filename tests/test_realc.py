"""Real C in, unchanged out: real code bases through coroc, in both backends.

The code bases come from the npm registry, pinned by version and sha512, and
are fetched by tests/realc/fetch into a cache (tests/realc/README.md):
SQLite 3.54.1's amalgamation (sqlite3.c, 9.6 MB) from better-sqlite3@13.2.0,
and LMDB 0.9.29 and lz4 1.10.0 from lmdb@3.5.6. For each of their .c files:

  * coroc gives back exactly the input bytes, with each backend (sqlite3.c
    with two sets of -D options: the one better-sqlite3 builds it with, and a
    plain single-threaded one, which make coroc read other code);
  * coroc's output, not the original, is compiled (gcc -O0: the bytes are the
    original's, so optimising them would only cost time) and linked into a
    program that uses the library for real (tests/realc/*_smoke.c): SQLite
    creates, fills, queries, updates a table, and runs JSON and FTS5; LMDB
    puts, gets, walks and deletes records in an environment in a temporary
    directory; lz4 compresses and decompresses 1 MiB through each of its APIs.

And a coroutine added to a real program: tests/realc/rows.coc yields the rows
of SQLite queries from generators; built with each backend and compiler and
linked with that SQLite, it prints rows.expected. The same generators appended
to sqlite3.c make one .coc of 9.6 MB, whose amalgamation part comes out of
coroc unchanged, and which prints the same.

Without the sources (tests/realc/fetch not run) every test here is skipped,
with the reason; with COROC_REALC_REQUIRED set in the environment (as CI sets
it, after fetching), missing sources fail instead.
"""
import hashlib
import os
import sys
import threading
import time

import pytest

from conftest import BACKENDS, COMPILERS, COROC, COROC_INCLUDE, COROC_LIB, TESTS_DIR, WARNINGS, run

REALC_DIR = TESTS_DIR / "realc"
sys.path.insert(0, str(REALC_DIR))
import realc  # noqa: E402  (tests/realc/realc.py: the pins, the cache, the fetch)

SRC = realc.fetched()
REQUIRED = bool(os.environ.get("COROC_REALC_REQUIRED"))

# How the libraries' own code is compiled: at -O0, which is what keeps the
# file's time down (sqlite3.c, as better-sqlite3 configures it, takes 5.7 s
# of CPU at -O0 and 17 s at -O1 on the machine this was written on), and
# with their warnings left to them (-w): what is tested is that coroc's
# output is the code that builds and works, not the code's style.
LIB_CFLAGS = ["-O0", "-w"]
LIBS = ["-lm", "-lpthread", "-ldl"]


def c_files(base):
    return [name for pkg in realc.PACKAGES for b, names in pkg.members.values() if b == base
            for name in names if name.endswith(".c")]


# -D options of each configuration of sqlite3.c; "better-sqlite3" is read
# from the package's defines.gypi once the sources are there.
SQLITE_CONFIGS = {"better-sqlite3": None, "plain": ["-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION"]}


def defines(base, config):
    if base != "sqlite":
        return []
    return SQLITE_CONFIGS[config] if SQLITE_CONFIGS[config] is not None else realc.sqlite_defines(SRC)


# (code base, file, configuration): every real .c file, sqlite3.c twice
INPUTS = ([("sqlite", "sqlite3.c", config) for config in SQLITE_CONFIGS]
          + [(base, name, "") for base in ("lmdb", "lz4") for name in c_files(base)])
INPUT_IDS = [f"{base}/{name}" + (f"-{config}" if config else "") for base, name, config in INPUTS]


def need_sources():
    if SRC is not None:
        return
    where = realc.sources_dir()
    if REQUIRED:
        pytest.fail(f"COROC_REALC_REQUIRED is set but the real C sources are not in {where}: "
                    "run tests/realc/fetch first")
    pytest.skip(f"the real C sources are not fetched (no {where}): run tests/realc/fetch "
                "(npm, from the npm registry), or set COROC_REALC_REQUIRED=1 to make this a failure")


@pytest.fixture(scope="module", autouse=True)
def report_time(request):
    """How long the whole file takes, printed even under -q: it runs in every CI run."""
    start = time.monotonic()
    yield
    what = (f"{', '.join(realc.VERSIONS.values())} from {SRC}" if SRC is not None
            else "skipped: the sources are not fetched")
    line = f"tests/test_realc.py: {time.monotonic() - start:.1f} s ({what})"
    tr = request.config.pluginmanager.getplugin("terminalreporter")
    capman = request.config.pluginmanager.getplugin("capturemanager")
    if tr is not None and capman is not None:
        with capman.global_and_fixture_disabled():   # else the line goes where the tests' output goes
            tr.write_line("\n" + line)


class Builds:
    """coroc's outputs and the objects compiled from them, made once per
    session: the smoke tests reuse what the pass-through tests made. An object
    is keyed by the bytes it is compiled from and the flags, so the output of
    the second backend, the same bytes, is not compiled again."""

    def __init__(self, base_dir):
        self.dir = base_dir
        self.outputs = {}
        self.objects = {}
        self.lock = threading.Lock()

    def output(self, base, name, config, backend):
        key = (base, name, config, backend)
        if key not in self.outputs:
            out = self.dir / "out" / backend / (config or "default") / base / name
            out.parent.mkdir(parents=True, exist_ok=True)
            src = SRC / base / name
            res = run([COROC, f"--backend={backend}", *defines(base, config), "-o", out, src], timeout=300)
            assert res.returncode == 0, f"coroc --backend={backend} failed on {base}/{name}:\n{res.stderr[-4000:]}"
            self.outputs[key] = out
        return self.outputs[key]

    def object(self, c_file, flags):
        key = (hashlib.sha256(c_file.read_bytes()).hexdigest(), tuple(flags))
        with self.lock:
            if key in self.objects:
                return self.objects[key]
        obj = self.dir / "obj" / f"{key[0][:16]}-{c_file.stem}.o"
        obj.parent.mkdir(parents=True, exist_ok=True)
        res = run(["gcc", *flags, "-c", "-o", obj, c_file], timeout=600)
        assert res.returncode == 0, f"gcc failed on {c_file}:\n{res.stderr[-4000:]}"
        with self.lock:
            self.objects[key] = obj
        return obj

    def objects_of(self, pairs):
        """Objects of several (c file, flags), two compilers at a time (the
        machine's cores are shared: never more than two jobs)."""
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=2) as pool:
            return list(pool.map(lambda p: self.object(*p), pairs))


@pytest.fixture(scope="session")
def builds(tmp_path_factory):
    return Builds(tmp_path_factory.mktemp("realc"))


# {==================================================================
# Unchanged out
# ===================================================================

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("base,name,config", INPUTS, ids=INPUT_IDS)
def test_real_c_passes_through_unchanged(base, name, config, backend, builds):
    need_sources()
    from test_passthrough import describe_difference
    original = (SRC / base / name).read_bytes()
    produced = builds.output(base, name, config, backend).read_bytes()
    assert produced == original, (f"coroc --backend={backend} changed {base}/{name}:\n"
                                  + describe_difference(original, produced))


def test_sources_are_the_pinned_ones():
    """The cache holds what the pins name: the versions the tests say."""
    need_sources()
    assert b'#define SQLITE_VERSION        "3.54.1"' in (SRC / "sqlite" / "sqlite3.h").read_bytes()
    assert b"#define MDB_VERSION_PATCH\t29" in (SRC / "lmdb" / "lmdb.h").read_bytes()
    lz4 = (SRC / "lz4" / "lz4.h").read_bytes()
    assert b"#define LZ4_VERSION_MINOR   10" in lz4 and b"#define LZ4_VERSION_RELEASE  0" in lz4
    assert len((SRC / "sqlite" / "sqlite3.c").read_bytes()) > 9_000_000


# }==================================================================


# {==================================================================
# ... and it works: the libraries built from coroc's output
# ===================================================================

def lib_flags(base, config=""):
    return [*LIB_CFLAGS, *defines(base, config), f"-I{SRC / base}"]


def build_smoke(builds, tmp_path, base, backend, names, config=""):
    """The smoke program of a code base, its library compiled from coroc's
    output (backend) of names."""
    flags = lib_flags(base, config)
    objs = builds.objects_of([(builds.output(base, name, config, backend), flags) for name in names])
    exe = tmp_path / f"{base}_smoke"
    res = run(["gcc", "-std=gnu11", *WARNINGS, "-g", f"-I{TESTS_DIR}", f"-I{SRC / base}", "-o", exe,
               REALC_DIR / f"{base}_smoke.c", *objs, *LIBS], timeout=300)
    assert res.returncode == 0, f"the {base} smoke test does not build:\n{res.stderr[-4000:]}"
    return exe


def check_ran(res, what):
    assert res.returncode == 0, f"{what} exited {res.returncode}:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    assert res.stdout.splitlines()[-1:] == ["OK"], f"{what} did not end with OK:\n{res.stdout[-3000:]}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_sqlite_built_from_coroc_output_works(backend, builds, tmp_path):
    need_sources()
    exe = build_smoke(builds, tmp_path, "sqlite", backend, ["sqlite3.c"], "better-sqlite3")
    res = run([exe], timeout=120)
    check_ran(res, "sqlite_smoke")
    assert res.stdout.startswith("SQLite 3.54.1\n")


@pytest.mark.parametrize("backend", BACKENDS)
def test_lmdb_built_from_coroc_output_works(backend, builds, tmp_path):
    need_sources()
    exe = build_smoke(builds, tmp_path, "lmdb", backend, ["mdb.c", "midl.c"])
    env = tmp_path / "env"
    env.mkdir()
    res = run([exe, env], timeout=120)
    check_ran(res, "lmdb_smoke")
    assert res.stdout.startswith("LMDB 0.9.29")
    assert (env / "data.mdb").stat().st_size > 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_lz4_built_from_coroc_output_works(backend, builds, tmp_path):
    need_sources()
    exe = build_smoke(builds, tmp_path, "lz4", backend, ["lz4.c", "lz4hc.c", "lz4frame.c", "xxhash.c", "lz4file.c"])
    res = run([exe, tmp_path / "stream.lz4"], timeout=120)
    check_ran(res, "lz4_smoke")
    assert res.stdout.startswith("lz4 1.10.0\n")

# }==================================================================


# {==================================================================
# A coroutine added to a real program
# ===================================================================

ROWS = REALC_DIR / "rows.coc"
ROWS_EXPECTED = (REALC_DIR / "rows.expected").read_text()


@pytest.fixture(scope="module")
def sqlite_object(builds):
    """SQLite as the rows program links it: coroc's stackless output of
    sqlite3.c, better-sqlite3's configuration (the stackful output is the same
    bytes: test_real_c_passes_through_unchanged), the very object of the
    SQLite smoke test."""
    need_sources()
    flags = lib_flags("sqlite", "better-sqlite3")
    return builds.object(builds.output("sqlite", "sqlite3.c", "better-sqlite3", "stackless"), flags)


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_generator_over_sqlite(backend, cc, sqlite_object, tmp_path):
    need_sources()
    inc = f"-I{SRC / 'sqlite'}"
    c_file = tmp_path / f"rows.{backend}.c"
    res = run([COROC, f"--backend={backend}", inc, "-o", c_file, ROWS], timeout=60)
    assert res.returncode == 0, f"coroc --backend={backend} failed on rows.coc:\n{res.stderr}"
    exe = tmp_path / f"rows.{backend}.{cc}"
    res = run([cc, "-std=gnu11", *WARNINGS, "-g", f"-I{COROC_INCLUDE}", inc, "-o", exe, c_file, sqlite_object,
               COROC_LIB, *LIBS], timeout=120)
    assert res.returncode == 0, f"{cc} failed on coroc's rows.c ({backend}):\n{res.stderr}"
    res = run([exe], timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout == ROWS_EXPECTED, f"rows.coc ({backend}, {cc}) prints:\n{res.stdout}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_generator_appended_to_the_amalgamation(backend, builds, tmp_path):
    """sqlite3.c with rows.coc's program after it, one .coc of 9.6 MB: the
    amalgamation comes out byte for byte, then the program, lowered; built
    (in the plain configuration), it prints rows.expected."""
    need_sources()
    amalgamation = (SRC / "sqlite" / "sqlite3.c").read_bytes()
    program = ROWS.read_bytes()
    program = program[program.index(b"struct row {"):]   # its own #includes are the amalgamation's
    src = tmp_path / "sqlite_rows.coc"
    src.write_bytes(amalgamation + program)
    c_file = tmp_path / f"sqlite_rows.{backend}.c"
    plain = defines("sqlite", "plain")
    res = run([COROC, f"--backend={backend}", *plain, "-o", c_file, src], timeout=300)
    assert res.returncode == 0, f"coroc --backend={backend} failed:\n{res.stderr[-4000:]}"
    out = c_file.read_bytes()
    assert out[:len(amalgamation)] == amalgamation, "coroc changed the amalgamation before the coroutines"
    exe = tmp_path / f"sqlite_rows.{backend}"
    res = run(["gcc", "-std=gnu11", *LIB_CFLAGS, *plain, f"-I{COROC_INCLUDE}", "-o", exe, c_file, COROC_LIB, *LIBS],
              timeout=600)
    assert res.returncode == 0, f"gcc failed on coroc's output ({backend}):\n{res.stderr[-4000:]}"
    res = run([exe], timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout == ROWS_EXPECTED

# }==================================================================
