"""The stackful runtime without the transformer: runtime/stackful.c, stack_*.c, ctx.h, asm/.

The C programs in tests/runtime/ are compiled together with the runtime's own
sources (not linked with the prebuilt libcoro), once per build; one build of each
compiler (WHOLE: gcc-asm, clang-asm, aarch64-asm) compiles every file of the
runtime, the others only the files its programs linked:

    gcc-asm, clang-asm             the assembly switch of this machine, -O2
    gcc-ucontext, clang-ucontext   the ucontext switch (-DCORO_SWITCH_UCONTEXT)
    asan-*                         the same under AddressSanitizer, which must report nothing
    aarch64-asm, aarch64-ucontext  cross-compiled (aarch64-linux-gnu-gcc -static), run under qemu-aarch64
    gcc-asm-O0, gcc-asm-avx512,    x86_64 only: coro.h's inline switch under flags that change what the
    clang-asm-avx2-cet             compiler keeps live across it (built everywhere, warning-free; run
                                   only where the processor has the instructions, elsewhere the runs
                                   are skipped, saying why)

Every build compiles with -Wall -Wextra -Werror. The programs:

    regs.c + regs_<arch>.S   callee-saved registers and FP control survive switches (assembly-level)
    stackful_cases.c         the generated-code interface: 10,000 interleaved generators, deep
                             recursion, free at any point, stack sizes, FP control per coroutine,
                             values of every kind live in registers across the inline switch;
                             and, in child processes, the guard-page report on overflow and misuse
    generated_fib.c          a generator in exactly the shape coroc emits, using <coro.h> only
    roundtrip.c              the timing loop of docs (here only checked to run)

Also here: valgrind memcheck of the same programs, libcoro as CMake builds it (default, with
-DCOROC_SWITCH=ucontext, for a processor without assembly, and cross-built for aarch64), and
the one use of coroc: that a yield in its stackful output is the inline switch at -O2.
"""
import json
import os
import pathlib
import platform
import re
import resource
import shutil
import signal
import subprocess
import warnings

import pytest

from conftest import COROC_INCLUDE, COROC_LIB, FULL, SOURCE_DIR, WARNINGS

RUNTIME = SOURCE_DIR / "runtime"
PROGRAMS = SOURCE_DIR / "tests" / "runtime"
ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}
HOST_ARCH = ARCHES.get(platform.machine().lower())
CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = "qemu-aarch64"
INTERLEAVED = 10000              # generators alive at once in stackful_cases
ASAN_OPTIONS = "detect_leaks=1:detect_stack_use_after_return=1:halt_on_error=1"
FIB = "0 1 1 2 3 5 8 13 21 34\nOK\n"


@pytest.fixture(scope="module", autouse=True)
def no_core():
    """Crashes on purpose must not leave core files (qemu writes its own otherwise): the
    programs this file starts inherit a core limit of 0, set in the worker while the file runs.
    (Not in each child, with preexec_fn: Python must then fork the worker instead of vfork, a
    copy of its page tables a run, 0.25 s of CPU for ten runs of `true` from a worker of 150 MB.)"""
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    yield
    resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))


def run(cmd, env=None, timeout=120, cwd=None):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout,
                          env=full_env, cwd=cwd)


class Build:
    """One way of compiling the runtime and the test programs."""

    def __init__(self, name, cc, switch, arch, cflags=(), ldflags=(), runner=(), asan=False, cpu=None):
        self.name, self.cc, self.switch, self.arch = name, cc, switch, arch
        self.cflags, self.ldflags, self.runner, self.asan = list(cflags), list(ldflags), list(runner), asan
        self.cpu = cpu   # a flag of /proc/cpuinfo that the code built with cflags needs
        self.static = arch != HOST_ARCH
        self.dir = None

    def missing(self):
        """Why this build's tests cannot be had here at all, or None."""
        if shutil.which(self.cc) is None:
            return f"{self.cc} is not installed"
        if self.arch is None:
            return f"no assembly context switch for this processor ({platform.machine()})"
        if self.runner and shutil.which(self.runner[0]) is None:
            return f"{self.runner[0]} is not installed (it runs the {self.arch} tests)"
        return None

    def cannot_run(self):
        """Why this build, made here, cannot run here (its code needs what the processor
        lacks), or None."""
        if self.cpu and self.cpu not in cpu_flags():
            return f"this processor has no {self.cpu} to run code built with {' '.join(self.cflags)}"
        return None

    def runtime_sources(self):
        """All of libcoro's C files, as runtime/CMakeLists.txt builds it, with this build's switch."""
        switch = (RUNTIME / "asm" / "switch_ucontext.c" if self.switch == "ucontext"
                  else RUNTIME / "asm" / f"switch_{self.arch}.S")
        return [*sorted(RUNTIME.glob("*.c")), switch]

    def flags(self):
        # -iquote: runtime/ holds internal headers ("ctx.h") that must not shadow system ones (<sched.h>).
        f = ["-std=gnu11", *WARNINGS, "-g", f"-iquote{RUNTIME}", f"-I{RUNTIME / 'include'}", *self.cflags]
        if self.switch == "ucontext":
            f.append("-DCORO_SWITCH_UCONTEXT")
        return f

    def make(self, tmp, used=None):
        """Compile the runtime once, into an archive, then link each program with it. A build
        given `used` (the names of the runtime's C files that another build's programs took
        from its archive) compiles only those and its switch: every file of the runtime is
        compiled warning-free by a whole build of each compiler (WHOLE), and the others differ
        only in what the programs run."""
        self.dir = tmp
        objs = []
        for src in self.runtime_sources():
            if used is not None and src.suffix == ".c" and src.parent == RUNTIME and src.name not in used:
                continue
            obj = tmp / (src.name + ".o")
            res = run([self.cc, *self.flags(), "-c", src, "-o", obj])
            assert res.returncode == 0, f"[{self.name}] {self.cc} failed on {src.name}:\n{res.stderr}"
            objs.append(obj)
        archive = tmp / "libcoro.a"   # (whose link maps say which files the programs took)
        res = run(["ar", "rcs", archive, *objs])
        assert res.returncode == 0, res.stderr
        programs = {
            "regs": [PROGRAMS / "regs.c", PROGRAMS / f"regs_{self.arch}.S", "-fno-omit-frame-pointer"],
            "stackful_cases": [PROGRAMS / "stackful_cases.c", "-lm"],
            "generated_fib": [PROGRAMS / "generated_fib.c"],
            "roundtrip": [PROGRAMS / "roundtrip.c"],
        }
        self.used = set()
        for name, srcs in programs.items():
            link = ["-static"] if self.static else ["-rdynamic"]   # -rdynamic: dladdr can name entry functions
            link_map = tmp / f"{name}.map"
            res = run([self.cc, *self.flags(), *link, "-o", tmp / name, *srcs[:1], archive, *srcs[1:],
                       *self.ldflags, "-lm", f"-Wl,-Map,{link_map}"])   # -lm: the ucontext switch's fegetenv
            assert res.returncode == 0, f"[{self.name}] {self.cc} failed on {name}:\n{res.stderr}"
            self.used |= set(re.findall(r"libcoro\.a\(([\w.]+\.c)\.o\)", link_map.read_text()))

    def run(self, program, *args, timeout=120):
        env = {"ASAN_OPTIONS": ASAN_OPTIONS} if self.asan else None
        return run([*self.runner, self.dir / program, *args], env=env, timeout=timeout, cwd=self.dir)


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return []


ASAN_FLAGS = ["-fsanitize=address", "-O1", "-fno-omit-frame-pointer"]
# The x86_64 switch is inline in coro.h, where what the compiler keeps live across it depends on
# the flags: no optimization (everything in memory), AVX-512 (16 more vector registers and the mask
# registers, all of which the asm must list as clobbered), and indirect-branch tracking (the place
# the switch jumps back to must start with endbr64).
X86_VARIANTS = [
    Build("gcc-asm-O0", "gcc", "asm", HOST_ARCH, ["-O0"]),
    Build("gcc-asm-avx512", "gcc", "asm", HOST_ARCH, ["-O2", "-mavx512f"], cpu="avx512f"),
    Build("clang-asm-avx2-cet", "clang", "asm", HOST_ARCH, ["-O2", "-mavx2", "-fcf-protection"], cpu="avx2"),
]
BUILDS = {b.name: b for b in [
    Build("gcc-asm", "gcc", "asm", HOST_ARCH, ["-O2"]),
    Build("clang-asm", "clang", "asm", HOST_ARCH, ["-O2"]),
    Build("gcc-ucontext", "gcc", "ucontext", HOST_ARCH, ["-O2"]),
    Build("clang-ucontext", "clang", "ucontext", HOST_ARCH, ["-O2"]),
    Build("asan-gcc-asm", "gcc", "asm", HOST_ARCH, ASAN_FLAGS, ["-fsanitize=address"], asan=True),
    Build("asan-clang-asm", "clang", "asm", HOST_ARCH, ASAN_FLAGS, ["-fsanitize=address"], asan=True),
    Build("asan-gcc-ucontext", "gcc", "ucontext", HOST_ARCH, ASAN_FLAGS, ["-fsanitize=address"], asan=True),
    Build("aarch64-asm", CROSS_CC, "asm", "aarch64", ["-O2"], runner=[QEMU]),
    Build("aarch64-ucontext", CROSS_CC, "ucontext", "aarch64", ["-O2"], runner=[QEMU]),
]}
if HOST_ARCH == "aarch64":   # the native builds already run the aarch64 switch
    del BUILDS["aarch64-asm"], BUILDS["aarch64-ucontext"]
if HOST_ARCH == "x86_64":
    BUILDS.update({b.name: b for b in X86_VARIANTS})
# The build of each compiler that compiles every file of the runtime (with -Werror); the
# others of that compiler compile only those its programs link (Build.make).
WHOLE = {b.cc: b.name for b in BUILDS.values()
         if b.switch == "asm" and not b.asan and not b.cpu and "-O2" in b.cflags}
PLAIN = [n for n, b in BUILDS.items() if not b.asan]
ALL = list(BUILDS)


@pytest.fixture(scope="session")
def builds(tmp_path_factory):
    made = {}

    def get(name):
        b = BUILDS[name]
        why = b.missing()
        if why:
            # Said twice: as the skip reason (pytest -rs) and as a warning, which even -q prints.
            warnings.warn(f"runtime tests of build {name} skipped: {why}")
            pytest.skip(why)
        if name not in made:
            whole = WHOLE.get(b.cc)
            used = None if whole in (None, name) or BUILDS[whole].missing() else get(whole).used
            b.make(tmp_path_factory.mktemp(name), used)
            made[name] = b
        why = b.cannot_run()
        if why:
            # A build whose code this processor cannot run is still made, warning-free (the
            # compile under its flags is half of what it checks); only its runs are skipped.
            warnings.warn(f"runtime tests of build {name} skipped after building it: {why}")
            pytest.skip(f"built warning-free; {why}")
        return b
    return get


def asan_clean(res, build):
    """No report from AddressSanitizer: its only allowed line is the ucontext build's caveat."""
    if not build.asan:
        return
    lines = [ln for ln in res.stderr.splitlines()
             if "AddressSanitizer" in ln or "LeakSanitizer" in ln or "ERROR:" in ln or "WARNING:" in ln]
    if build.switch == "ucontext":
        lines = [ln for ln in lines if "doesn't fully support makecontext/swapcontext" not in ln]
    assert not lines, f"sanitizer report:\n{res.stderr}"


# {==================================================================
# Registers and the trampoline (assembly level)
# ===================================================================

@pytest.mark.parametrize("name", PLAIN)
def test_registers_survive_switches(builds, name):
    b = builds(name)
    res = b.run("regs")
    assert res.returncode == 0 and res.stdout.endswith("OK\n"), res.stdout + res.stderr
    want = "ucontext" if b.switch == "ucontext" else f"asm-{b.arch}"
    assert f"switch: {want}\n" in res.stdout
    if b.switch == "asm" and b.arch == "x86_64":
        assert "coro_ctx_switch_fpenv_load: main: 1000 switches" in res.stdout, res.stdout


@pytest.mark.parametrize("name", PLAIN)
def test_returning_start_routine_traps(builds, name):
    """A start routine has nothing to return to: the trampoline traps at once."""
    b = builds(name)
    res = b.run("regs", "return")
    assert "went on" not in res.stdout
    if b.switch == "ucontext":
        assert res.returncode == -signal.SIGABRT, res.stderr
        assert "the start routine of context" in res.stderr
    else:
        trap = {"x86_64": signal.SIGILL, "aarch64": signal.SIGTRAP}[b.arch]   # ud2, brk
        assert res.returncode == -trap, (res.returncode, res.stderr)

# }==================================================================


# {==================================================================
# The stackful runtime through the generated-code interface
# ===================================================================

@pytest.mark.parametrize("name", ALL)
def test_stackful_cases(builds, name):
    b = builds(name)
    res = b.run("stackful_cases", "all", str(INTERLEAVED))
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.endswith("OK\n")
    shared = (["shared stack refused"] if b.switch == "ucontext"
              else [f"shared stack {INTERLEAVED // 10}", "shared default"])
    for case in ["basic", f"interleaved {INTERLEAVED}", "deep recursion", "nested", "free",
                 "stack size", "fp control", "live values", "alignment", "kept", *shared]:
        assert f"ok {case}\n" in res.stdout
    asan_clean(res, b)


HOST_PLAIN = [n for n in PLAIN if BUILDS[n].arch == HOST_ARCH]


@pytest.mark.skipif(HOST_ARCH != "x86_64", reason="the two FP-environment switches are x86_64's")
@pytest.mark.parametrize("switch", ["compare", "load"])
@pytest.mark.parametrize("name", ["gcc-asm", "gcc-asm-O0"])
def test_stackful_cases_with_either_fpenv_switch(builds, name, switch):
    """The runtime picks, by processor vendor, the switch that loads an own FP environment only
    when it differs, or the one that loads it always; CORO_FPENV_SWITCH forces either, so that both
    (inline and out of line) run the cases here, whatever this processor is."""
    b = builds(name)
    res = run([b.dir / "stackful_cases", "all", "1000"], cwd=b.dir, timeout=120,
              env={"CORO_FPENV_SWITCH": switch})
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ok fp control\n" in res.stdout and res.stdout.endswith("OK\n")


@pytest.mark.parametrize("name", HOST_PLAIN)
def test_out_of_stacks_is_reported(builds, name):
    """A stack the kernel refuses makes coro_next answer false and say why, once on stderr; the
    program goes on. (Not under ASan, whose shadow memory needs more address space than the test
    leaves, nor under qemu, which does not pass the address-space limit on to its guest.)"""
    b = builds(name)
    res = b.run("stackful_cases", "limit")
    assert res.returncode == 0, res.stdout + res.stderr
    assert re.search(r"^ok stack limit \(refused after \d+\)$", res.stdout, re.M), res.stdout
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("coro: ")]
    assert len(lines) == 1, res.stderr
    assert re.match(r"coro: coro_next: cannot map a stack of 1048576 bytes for coroutine instance 0x[0-9a-f]+: "
                    r".*vm\.max_map_count \(\d+ here\).*sysctl vm\.max_map_count=N\)?$", lines[0]), lines[0]


@pytest.mark.parametrize("name", ["asan-gcc-asm", "asan-clang-asm"])
def test_shared_stack_dangling_pointer_reported_under_asan(builds, name):
    """A pointer into a suspended shared-stack instance's frames, used after another instance took
    the shared stack: AddressSanitizer reports the read. (Without detect_stack_use_after_return,
    which puts such locals in ASan's own fake frames on the heap, away from the stack.)"""
    b = builds(name)
    res = run([b.dir / "stackful_cases", "dangling"], cwd=b.dir, timeout=60,
              env={"ASAN_OPTIONS": "detect_leaks=0:detect_stack_use_after_return=0:halt_on_error=1"})
    assert res.returncode != 0, res.stdout + res.stderr
    assert "read through the pointer" not in res.stdout
    assert "AddressSanitizer: use-after-poison" in res.stderr, res.stderr


@pytest.mark.parametrize("name", [n for n in HOST_PLAIN if BUILDS[n].switch != "ucontext"])
def test_shared_stack_for_the_whole_program_from_the_environment(builds, name):
    """CORO_SHARED_STACK=1 puts every stackful instance of the program on its thread's shared
    stack, with no call in the program: two generators resumed in turn copy each other's frames
    out; unset or 0, they keep stacks of their own and nothing is copied."""
    b = builds(name)
    copies = {}
    for value in ["1", "0", None]:
        env = dict(os.environ)
        env.pop("CORO_SHARED_STACK", None)
        if value is not None:
            env["CORO_SHARED_STACK"] = value
        res = run([b.dir / "stackful_cases", "shared-env"], cwd=b.dir, timeout=60, env=env)
        assert res.returncode == 0, res.stdout + res.stderr
        m = re.fullmatch(r"copies (\d+)\n", res.stdout)
        assert m, res.stdout
        copies[value] = int(m.group(1))
    assert copies["1"] >= 4, copies    # each resume but the first two brings the other's frames back
    assert copies["0"] == 0 and copies[None] == 0, copies


@pytest.mark.parametrize("name", [n for n in PLAIN if BUILDS[n].switch != "ucontext"])
def test_shared_stack_stale_write_detected(builds, name):
    """Without ASan, a debug libcoro (no NDEBUG, as all these builds are) fills what a copied-out
    instance's frames held on the shared stack with 0xa5 while nothing runs there: a read through
    a pointer into them shows the poison, and a write through it is caught at the next resume,
    named after the instance whose frames were there."""
    b = builds(name)
    res = b.run("stackful_cases", "stale-write", timeout=60)
    assert res.returncode != 0, res.stdout + res.stderr
    assert "read through the pointer: a5a5a5a5a5a5a5a5\n" in res.stdout, res.stdout
    assert "resumed after the write" not in res.stdout
    m = re.search(r"^instance (0x[0-9a-f]+)$", res.stdout, re.M)
    assert m, res.stdout
    assert re.search(r"coro: coro_next: a write through a stale pointer into the shared stack, at 0x[0-9a-f]+ "
                     r"\(\d+ bytes below its top\): the frames of shared-stack instance " + m.group(1) +
                     r" were there until they were copied out", res.stderr), res.stderr


MANY = 100000   # more than vm.max_map_count's default (65,530) allows at two mappings per stack


# (what the stacks' mappings come to is the runtime's, not the compiler's: the suite takes each
# switch once, built by gcc; --full every build)
@pytest.mark.parametrize("name", [n for n in HOST_PLAIN if FULL or n in ("gcc-asm", "gcc-ucontext")])
def test_many_instances_with_default_stacks(builds, name):
    """100,000 stackful generators alive at once, with no setting at all."""
    b = builds(name)
    res = b.run("stackful_cases", "many", str(MANY), timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout == f"ok many {MANY}\n"
    assert "coro:" not in res.stderr


@pytest.mark.parametrize("name", ALL)
def test_generated_shape(builds, name):
    b = builds(name)
    res = b.run("generated_fib")
    assert (res.returncode, res.stdout) == (0, FIB), res.stderr
    asan_clean(res, b)


OVERFLOWS = {"default": 256 * 1024, "set": 64 * 1024, "thread-default": 128 * 1024, "nested": 256 * 1024,
             "reused": 256 * 1024}   # reused: on a stack another instance ran on and gave back


@pytest.mark.parametrize("kind", OVERFLOWS)
@pytest.mark.parametrize("name", PLAIN)
def test_overflow_names_instance_and_size(builds, name, kind):
    """Running into the guard page ends the program with a message, never silently."""
    b = builds(name)
    res = b.run("stackful_cases", "overflow", kind, timeout=60)
    m = re.search(r"^instance (0x[0-9a-f]+)$", res.stdout, re.M)
    assert m, res.stdout + res.stderr
    assert "still alive" not in res.stdout
    assert res.returncode == -signal.SIGSEGV, (res.returncode, res.stderr)
    entry = "coro_entry_overflow at " if not b.static else "0x"   # static binaries: no dladdr names
    want = (re.escape(f"coro: stack overflow in coroutine instance {m.group(1)} (entry function {entry}")
            + r"[^\n]*" + re.escape(f"): its stack of {OVERFLOWS[kind]} bytes is used up"))
    assert re.search(want, res.stderr), res.stderr


@pytest.mark.parametrize("kind", ["default", "reused"])
def test_overflow_under_asan(builds, kind):
    """Under ASan our report comes first, then ASan's own (the handler chains to it)."""
    b = builds("asan-gcc-asm")
    res = b.run("stackful_cases", "overflow", kind, timeout=60)
    assert res.returncode != 0
    assert re.search(r"coro: stack overflow in coroutine instance 0x[0-9a-f]+ .*its stack of 262144 bytes",
                     res.stderr), res.stderr
    assert "AddressSanitizer: stack-overflow" in res.stderr


@pytest.mark.parametrize("name", [n for n in HOST_PLAIN if BUILDS[n].switch == "asm"])
def test_short_lived_generators_steady_state(builds, name):
    """Generators made, run to their end and freed one after another reuse one stack: after a
    warm-up, 20,000 of them map nothing new and fault no page in (a system call or a fault per
    generator would show here). Only native builds with the assembly switch: an emulator's or
    a sanitizer's own page faults are not the runtime's."""
    b = builds(name)
    res = b.run("stackful_cases", "lives", "20000")
    assert res.returncode == 0, res.stderr
    assert "lives: mappings +0 faults 0" in res.stdout, res.stdout


@pytest.mark.parametrize("name", [n for n in HOST_PLAIN if BUILDS[n].switch == "asm"])
def test_threads_give_back_what_they_kept(builds, name):
    """A thread keeps freed stackful instances with their stacks for its next ones; at its end
    it gives them back: 20 threads one after another, each making and freeing a few generators
    (one freed suspended), add no mapping (a stack or a slab arena left behind per thread would
    add one or more each). Native builds only: the mappings are the process's own."""
    b = builds(name)
    res = b.run("stackful_cases", "threads", "20")
    assert res.returncode == 0, res.stderr
    assert "threads: mappings +0" in res.stdout, res.stdout


@pytest.mark.parametrize("name", [n for n in HOST_PLAIN if BUILDS[n].switch == "asm"])
def test_stackful_instance_freed_on_another_thread_is_refused(builds, name):
    """An instance of the slabs freed on another thread than its maker's is refused at once, with
    both threads named: the thread that frees it does not keep it for its own next instances.
    Not under ASan, nor with the ucontext switch, whose stackful instances (two ucontext_t) are
    too big for a slot: each is a malloc of its own, which no thread owns, and none is kept."""
    b = builds(name)
    res = b.run("stackful_cases", "elsewhere")
    assert res.returncode == -signal.SIGABRT, res.stdout + res.stderr
    assert "freed on another thread" not in res.stdout
    assert re.search(r"coro: coro_free: instance 0x[0-9a-f]+ was made on thread \d+ and is freed on "
                     r"thread \d+", res.stderr), res.stderr


@pytest.mark.parametrize("name", PLAIN)
def test_suspend_outside_its_body_is_refused(builds, name):
    b = builds(name)
    res = b.run("stackful_cases", "misuse")
    assert res.returncode == -signal.SIGABRT, res.stderr
    assert re.search(r"coro: coro_stackful_suspend: instance 0x[0-9a-f]+ is not a running coroutine",
                     res.stderr)
    assert "suspended outside" not in res.stdout


@pytest.mark.parametrize("name", ["gcc-asm", "aarch64-asm"])
def test_roundtrip_program_runs(builds, name):
    b = builds(name)
    res = b.run("roundtrip", "10000", "3")
    assert res.returncode == 0 and "stackful resume+yield round trip:" in res.stdout, res.stderr

# }==================================================================


# {==================================================================
# valgrind memcheck
# ===================================================================

@pytest.mark.parametrize("name", ["gcc-asm", "gcc-ucontext"])
@pytest.mark.parametrize("program", [("stackful_cases", "all", "1000"), ("generated_fib",)],
                         ids=["stackful_cases", "generated_fib"])
def test_valgrind_memcheck_clean(builds, name, program):
    if shutil.which("valgrind") is None:
        warnings.warn("valgrind tests skipped: valgrind is not installed")
        pytest.skip("valgrind is not installed")
    b = builds(name)
    res = run(["valgrind", "--error-exitcode=1", "--leak-check=full", "--errors-for-leak-kinds=definite",
               b.dir / program[0], *program[1:]], timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.endswith("OK\n")
    assert "ERROR SUMMARY: 0 errors" in res.stderr
    assert "switching stacks" not in res.stderr   # every stack registered: no guessing by valgrind

# }==================================================================


# {==================================================================
# libcoro as CMake builds it
# ===================================================================

@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_prebuilt_libcoro(tmp_path, cc):
    """The library of the main build (COROC_SWITCH's default) serves generated-shape code."""
    assert COROC_LIB.exists(), f"libcoro not built at {COROC_LIB}: build first (see README)"
    exe = tmp_path / "fib"
    res = run([cc, "-std=gnu11", *WARNINGS, f"-I{COROC_INCLUDE}", "-o", exe, PROGRAMS / "generated_fib.c",
               COROC_LIB])
    assert res.returncode == 0, res.stderr
    res = run([exe])
    assert (res.returncode, res.stdout) == (0, FIB), res.stderr


@pytest.mark.skipif(HOST_ARCH != "x86_64", reason="the inline switch is x86_64's alone")
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_yield_switches_inline_when_optimized(toolchain, tmp_path, cc):
    """At -O2 every yield of a stackful body is the inline switch itself, not a call of
    coro_stackful_yield: <coro/gen.h> always inlines it where the compiler optimizes, since
    GCC's own inliner stopped short of it once the switch's text grew by a line, in the
    bodies of tests/gdb/kinds.coc. At -O0 it stays a function, a frame a debugger shows."""
    c_file = toolchain.transform(SOURCE_DIR / "tests" / "gdb" / "kinds.coc", "stackful")
    for opt, inlined in (("-O2", True), ("-O0", False)):
        obj = tmp_path / f"kinds{opt}.{cc}.o"
        res = run([cc, "-std=gnu11", *WARNINGS, opt, f"-I{COROC_INCLUDE}", "-c", "-o", obj, c_file])
        assert res.returncode == 0, res.stderr
        symbols = run(["nm", obj]).stdout
        called = re.search(r" coro_stackful_yield$", symbols, re.M) is not None
        assert called != inlined, f"{cc} {opt}: coro_stackful_yield " + \
            ("left a function" if called else "inlined")


def landings_take(disassembly, register):
    """For each landing of an inline switch in objdump's text (the address in
    the `lea 1f(%rip),%rax` that precedes the push of where a context goes
    on), whether the code there reads `register` before anything writes it
    (following direct jumps, a few instructions)."""
    lines = re.findall(r"^\s*([0-9a-f]+):\s+(.*?)\s*$", disassembly, re.M)
    at = {int(a, 16): i for i, (a, _) in enumerate(lines)}
    landings = [int(m.group(1), 16) for i, (_, text) in enumerate(lines[:-1])
                if (m := re.match(r"lea\s+0x[0-9a-f]+\(%rip\),%rax\s+# ([0-9a-f]+)", text))
                and lines[i + 1][1].startswith("push   %rax")]
    answers = []
    for landing in landings:
        i, answer = at[landing], False
        for _ in range(8):
            text = lines[i][1]
            if m := re.match(r"jmp\s+([0-9a-f]+) <", text):
                i = at[int(m.group(1), 16)]
                continue
            mnemonic, _, operands = text.partition(" ")
            if register in operands:
                # read, unless a mov or lea only writes it (add, sub... read their destination)
                answer = not (mnemonic.startswith(("mov", "lea")) and operands.count(register) == 1
                              and operands.strip().endswith("," + register))
                break
            i += 1
        answers.append(answer)
    return answers


@pytest.mark.skipif(HOST_ARCH != "x86_64", reason="the inline switch is x86_64's alone")
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_round_trip_takes_the_instance_from_rsi(tmp_path, cc):
    """At -O2 both sides of a stackful generator's inline round trip make the instance again
    from rsi, where the switch that resumed them left their own context, rather than keep it
    in a register that the switch pops (docs/abi.md, "The stackful interface"): a yield
    assigns c back, coro_next makes its rbx again. Every landing of tests/runtime/roundtrip.c
    (the consumer's and the body's) reads rsi first."""
    obj = tmp_path / f"roundtrip.{cc}.o"
    res = run([cc, "-std=gnu11", *WARNINGS, "-O2", f"-I{COROC_INCLUDE}", "-c", "-o", obj,
               SOURCE_DIR / "tests" / "runtime" / "roundtrip.c"])
    assert res.returncode == 0, res.stderr
    answers = landings_take(run(["objdump", "-d", "--no-show-raw-insn", obj]).stdout, "%rsi")
    assert len(answers) >= 4, f"{cc}: {len(answers)} inline switches found"
    assert all(answers), f"{cc}: landings that do not take rsi first: {answers}"


CMAKE_BUILDS = {
    "ucontext": (["-DCOROC_SWITCH=ucontext"], "gcc", [], "swapcontext"),
    "no-asm-processor": (["-DCMAKE_SYSTEM_NAME=Linux", "-DCMAKE_SYSTEM_PROCESSOR=sparc64"], "gcc", [],
                         None),   # (configured only)
    "aarch64-cross": ([f"-DCMAKE_C_COMPILER={CROSS_CC}", "-DCMAKE_SYSTEM_NAME=Linux",
                       "-DCMAKE_SYSTEM_PROCESSOR=aarch64"], CROSS_CC, [QEMU], "coro_ctx_trampoline"),
}


@pytest.mark.parametrize("variant", CMAKE_BUILDS)
def test_cmake_switch_choice(tmp_path, variant):
    """COROC_SWITCH=ucontext builds libcoro on ucontext, and a processor without assembly
    chooses it (configured only: its build is the ucontext one's); a cross build for aarch64
    picks switch_aarch64.S."""
    args, cc, runner, symbol = CMAKE_BUILDS[variant]
    for tool in [cc, *runner]:
        if shutil.which(tool) is None:
            warnings.warn(f"CMake {variant} test skipped: {tool} is not installed")
            pytest.skip(f"{tool} is not installed")
    build = tmp_path / "build"
    res = run(["cmake", "-S", SOURCE_DIR, "-B", build, "-DCOROC_WERROR=ON", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
               *args])
    assert res.returncode == 0, res.stdout + res.stderr
    if variant == "no-asm-processor":
        # the choice is the ucontext build's (built and run above): the same files compiled
        assert "no assembly context switch for 'sparc64': using ucontext" in res.stdout
        commands = json.loads((build / "compile_commands.json").read_text())
        sources = {pathlib.Path(c["file"]).name for c in commands}
        assert "switch_ucontext.c" in sources and not any(s.startswith("switch_x86") for s in sources), sources
        return
    res = run(["cmake", "--build", build, "--target", "coro"])
    assert res.returncode == 0, res.stdout + res.stderr
    lib = build / "runtime" / "libcoro.a"
    nm = run(["nm", lib])
    assert re.search(rf"\b{symbol}\b", nm.stdout), nm.stdout
    exe = tmp_path / "fib"
    link = ["-static"] if cc == CROSS_CC else []
    res = run([cc, "-std=gnu11", *WARNINGS, *link, f"-I{COROC_INCLUDE}", "-o", exe,
               PROGRAMS / "generated_fib.c", lib, "-lm"])   # -lm: as coro.pc says (the ucontext switch's fenv calls)
    assert res.returncode == 0, res.stderr
    res = run([*runner, exe])
    assert (res.returncode, res.stdout) == (0, FIB), res.stderr

# }==================================================================
