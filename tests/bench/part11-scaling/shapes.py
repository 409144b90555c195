"""tests/bench/part11-scaling/shapes.py: the shapes of input that part 11
measures and tests/test_scaling.py runs (under the sanitizers, and at the
largest size for the outcome): machine-made C (a generated table, a
macro-expanded chain, a long sum) reaches coroc as expressions and bodies far
longer than anyone would type, each shape one way of being long.

SHAPES maps a name to (make, n): make(size) is the .coc text, and n is chosen
so that make(n) is about 32 KB; part 11 measures 8n and 32n (about 256 KB and
1 MB), the suite runs 2n under AddressSanitizer and 32n for the outcome.
LIMITS are the two documented limits (docs/limitations.md): stopping at one
with its message is a right answer."""

TASK = "coroutine int g(void) { yield; return 1; }\n"


def text(coroutine_body):
    return coroutine_body + "\n"


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


def limit_reached(code, stderr):
    """The documented limit a run of coroc stopped at (exit 1, its message), or None."""
    return next((limit for limit in LIMITS if limit in stderr), None) if code == 1 else None
