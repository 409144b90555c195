"""coroc stays linear, and never crashes, whatever the shape of the input.

Machine-made C (a generated table, a macro-expanded chain, a long sum) reaches
coroc as expressions and bodies far longer than anyone would type. Every pass
must cost time and memory in proportion to the input, and nothing may recurse
as deep as the input is long. For each shape below, at the sizes 8n and 32n,
in both backends:
  * coroc succeeds, or stops with the documented nesting limit (exit 1 and the
    message naming it), never a crash;
  * the CPU time of one run at 32n, less a tiny input's, is about 4 times that
    at 8n, less the tiny one's (at most 8 times it; a quadratic pass would make
    it 16): ratios of measurements made here, never absolute times;
  * the peak memory at 32n (about 1 MB of input) is at most about 4 times that
    at 8n (a quadratic pass would make it 16); below 8n the preprocessor that
    coroc runs is the larger process, and the kernel reports the peak of the two;
  * the input of size 2n runs clean under AddressSanitizer + UBSan (a coroc
    built here with them): every shape's passes and printing are reached at
    any size, and 2n is four times cheaper than 8n, which took 45 s of the
    suite's CPU for the 38 runs.
"""
import os
import subprocess

import pytest

from conftest import COROC, sanitized_transformer_target

TASK = "coroutine int g(void) { yield; return 1; }\n"


def text(coroutine_body):
    return coroutine_body + "\n"


# name -> (function of n giving the .coc text, n): n chosen so that the input
# is about 32 KB, 8n about 256 KB
SHAPES = {
    "sum": (lambda n: text("coroutine int f(int x) { yield x" + " + x" * n + "; }"), 6000),
    "await_then_sum": (lambda n: text(TASK + "coroutine int f(int x) { int r = await g()" + " + x" * n
                                      + "; return r; }"), 6000),
    "sum_then_await": (lambda n: text(TASK + "coroutine int f(int x) { int r = x" + " + x" * n
                                      + " + await g(); return r; }"), 6000),
    "awaits_summed": (lambda n: text(TASK + "coroutine int f(int x) { int r = x" + " + await g()" * n
                                     + "; return r; }"), 800),
    "comma": (lambda n: text("coroutine int f(int x) { yield (x" + ", x" * n + "); }"), 8000),
    "and_chain_await_first": (lambda n: text(TASK + "coroutine int f(int x) { if (await g()" + " && x" * n
                                             + ") return 1; return 0; }"), 6000),
    "and_chain_await_last": (lambda n: text(TASK + "coroutine int f(int x) { if (x" + " && x" * n
                                            + " && await g()) return 1; return 0; }"), 6000),
    "conditional": (lambda n: text("coroutine int f(int x) { yield " + "x ? x : " * n + "x; }"), 4000),
    "unary": (lambda n: text("coroutine int f(int x) { yield " + "- " * n + "x; }"), 16000),
    "casts": (lambda n: text("coroutine int f(int x) { yield " + "(int)" * n + "x; }"), 6000),
    "parentheses": (lambda n: text("coroutine int f(int x) { yield " + "(" * n + "x" + ")" * n + "; }"), 16000),
    "assignments": (lambda n: text("coroutine void f(int x) { int y; " + "y = " * n + "x; yield; }"), 8000),
    "call_arguments": (lambda n: text("int h(int, ...);\ncoroutine int f(int x) { yield h(x" + ", x" * n
                                      + "); }"), 8000),
    "parameters": (lambda n: text("coroutine int f(" + ", ".join(f"int p{i}" for i in range(n))
                                  + ") { yield p0; }"), 3000),
    "locals": (lambda n: text("coroutine int f(void) { " + " ".join(f"int v{i} = {i};" for i in range(n))
                              + " yield v0; }"), 2500),
    # the sizes below the liveness analysis's bound (live.c, LIVE_MAX_BITS: at "locals"' 8n
    # every local goes to the frame unanalysed): its solving took one pass a local, 15 s
    # for 10,000 of them, until it took the nodes in an order fit for a backward problem.
    # Each initializer is long so that 8n takes a tenth of a second above the tiny run:
    # with `= i` alone it was 0.03 s, within a loaded machine's noise
    "locals_analysed": (lambda n: text("coroutine int f(void) { " + " ".join(
        f"int v{i} = " + " + ".join([str(i)] * 16) + ";" for i in range(n)) + " yield v0; }"), 300),
    "nested_blocks": (lambda n: text("coroutine int f(int x) { " + "{" * n + "yield x;" + "}" * n + " }"), 12000),
    "nested_ifs": (lambda n: text("coroutine int f(int x) { " + "if (x) " * n + "yield x; }"), 4000),
    "many_coroutines": (lambda n: "".join(f"coroutine int c{i}(int x) {{ yield x + {i}; }}\n"
                                          for i in range(n)), 800),
    # a sum in each yield so that 8n is a tenth of a second above the tiny run (with `yield x;`
    # alone it was 0.04 s, and one slow try at 32n failed the check): n stays at 1,000,
    # since 32n yields are near the limit of 32,767 in one coroutine
    "yields": (lambda n: text("coroutine int f(int x) { " + "yield x + x + x + x + x + x + x + x; " * n + "}"),
               1000),
}
# the two documented limits (docs/limitations.md): a clean refusal is a right answer
LIMITS = ("nested too deeply", "yields and awaits; split it into several coroutines")
BACKENDS = ["stackless", "stackful"]
REPEATS = 3


def measure(cmd, log):
    """Run cmd, its stderr into the file log; return (exit status, stderr, CPU seconds,
    peak RSS in KiB) of that process (and the preprocessor it waits for) alone."""
    with open(log, "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, log.read_text(), usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def check_outcome(code, stderr, where):
    assert code in (0, 1), f"{where}: coroc exited with {code}: {stderr[-2000:]}"
    if code == 1:
        assert any(limit in stderr for limit in LIMITS), f"{where}: {stderr[-2000:]}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_time_and_memory_grow_linearly(shape, backend, tmp_path):
    make, n = SHAPES[shape]
    # size, tries: 8n and 32n once at first (a load only makes 8n look dearer, which lowers
    # the growth; one that makes 32n dearer is met by the tries past the bound, below)
    plan = ((1, REPEATS), (8 * n, 1), (32 * n, 1))
    cmds = {}
    for size, _ in plan:
        src = tmp_path / f"{shape}_{size}.coc"
        src.write_text(make(size))
        cmds[size] = [str(COROC), f"--backend={backend}", "-o", str(tmp_path / "out.c"), str(src)]
    # the least CPU time and memory of some tries, the sizes taken in turn within each round:
    # the machine only ever adds, and a load that comes and goes then weighs on every size
    # alike, not on the tries of one (a size measured alone in a busy moment made n look
    # cheaper than 1, and the check fail, on a loaded machine)
    figures = {}  # size: (CPU seconds, peak KiB), in the plan's order

    def measure_sizes(sizes):
        for size in sizes:
            code, stderr, cpu, rss = measure(cmds[size], tmp_path / "stderr")
            check_outcome(code, stderr, f"{shape} at {size}")
            was = figures.get(size, (cpu, rss))
            figures[size] = (min(was[0], cpu), min(was[1], rss))

    def growth():
        # what 32n adds over a tiny input, against what 8n adds: 4 if the time grows as the
        # input does, 16 if as its square. Both are tenths of seconds or more above the tiny
        # run's fixed cost (the preprocessor's, 50 ms), so a load's noise cannot decide it. (It
        # once compared eight runs at n with eight tiny ones: as coroc got faster, what n
        # added fell to 3% of their fixed cost, below a loaded machine's noise, and the check
        # failed on noise.) Bigger inputs run a little slower per byte (caches): 5.7 at most,
        # on `parameters`, on an AMD EPYC.
        tiny = figures[1][0]
        return (figures[32 * n][0] - tiny) / max(figures[8 * n][0] - tiny, 0.03)

    for round_ in range(REPEATS):
        measure_sizes([size for size, n_tries in plan if round_ < n_tries])
    # A load can only add to a run's CPU time (on this project's 2-processor VMs a page
    # fault's cost swings with the host's: `yields` at 32n once took 0.40 s in the suite
    # against 0.16 s alone, and 8.4 failed the bound). So past the bound, 8n and 32n are
    # measured again, up to three more times, and each keeps its least time: a growth
    # that is really faster than the input's, 16 for a square, stays above 8 in every try.
    for _ in range(3):
        if growth() <= 8:
            break
        measure_sizes([8 * n, 32 * n])
    report = f"{shape} {backend}: " + ", ".join(f"{size}: {cpu:.3f} s {rss} KiB"
                                                 for size, (cpu, rss) in figures.items())
    assert growth() <= 8, "time grows faster than the input: " + report
    # (no baseline subtracted: below 8n the preprocessor's peak is what shows)
    assert figures[32 * n][1] / figures[8 * n][1] <= 6, "memory grows faster than the input: " + report


@pytest.fixture(scope="module")
def coroc_sanitized():
    """coroc built with AddressSanitizer and UBSan, any report fatal (conftest.py)."""
    return sanitized_transformer_target("coroc") / "transformer" / "coroc"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_largest_clean_under_sanitizers(coroc_sanitized, shape, backend, tmp_path):
    make, n = SHAPES[shape]
    src = tmp_path / f"{shape}.coc"
    src.write_text(make(2 * n))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    res = subprocess.run([str(coroc_sanitized), f"--backend={backend}", "-o", str(tmp_path / "out.c"), str(src)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert "Sanitizer" not in res.stderr and "runtime error" not in res.stderr, res.stderr[-4000:]
    check_outcome(res.returncode, res.stderr, shape)
