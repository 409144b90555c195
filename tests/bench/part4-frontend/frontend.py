#!/usr/bin/env python3
"""tests/bench/part4-frontend/frontend.py: part 4 of the benchmark, coroc beside the compiler's front end.

coroc runs on every .coc file of a build, before the compiler, and it runs the
preprocessor (`cc -E`) itself as a subprocess. Whatever time and memory it
takes is added to every build. This part measures that cost against what the
build pays anyway for the same file, on two inputs:

  sqlite3.c  the C input: SQLite's amalgamation, 9.6 MB and 271,000 lines of
             real C without coroutines, as better-sqlite3@13.2.0 ships it on
             the npm registry, fetched by tests/realc (npm pack, its sha512
             checked) into its cache, and compiled with the -D options that
             package builds it with. It measures coroc on plain C, which is
             most of any real .coc (headers included), and it is the input on
             which coroc can be set beside `gcc -fsyntax-only`, the
             compiler's whole front end. If it cannot be fetched (no npm, no
             network), the script says so and generates large.c instead:
             about 20,000 lines of preprocessed C (many system headers and
             generated code of every common kind, through `cc -E -P`), from a
             fixed seed; --c-input generated asks for that one.
  large.coc  3,000 coroutines (generators, tasks awaiting each other, leaf
             tasks) and a main, generated: coroc's own work, in both backends.

Every command is timed as a whole process (fork, exec, wait4), so its figures
include its children: coroc's `cc -E`, gcc's cc1. Per command it reports the
median wall time of N runs (after one warm-up, the runs interleaved), user +
system CPU time, the process's own CPU time without its children's, lines per
second and the peak resident memory, in MiB and in bytes per byte of input.
Then the ratios of the same run and coroc's targets, met or not. The time
target is judged on coroc's own CPU time, without its preprocessor's (see
OWN below for how it is isolated), against gcc -fsyntax-only's CPU time.

A benchmark, not a test: it exits 0 whatever the figures. It exits 1 only when
something could not run: an input that gcc rejects, a coroc that fails on
them, changes the C input or writes C from large.coc that does not compile.

  tests/bench/part4-frontend/frontend.py [--coroc PATH] [--reps N] [--workdir DIR] [--seed S]
                          [--c-input sqlite|generated] [--scale F]

--scale F makes the generated inputs F times their size (0.1 for a check that
the part still runs, as tests/test_bench.py does; the figures are then not the
part's).
"""

import argparse
import atexit
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
RUNTIME_INCLUDE = ROOT / "runtime" / "include"
sys.path.insert(0, str(ROOT / "tests" / "realc"))
import realc  # noqa: E402  (tests/realc/realc.py: the pinned npm packages, the cache, the fetch)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from benchlib import processor  # noqa: E402

# The sizes of the generated inputs; the generators stop when they reach them.
C_TARGET_LINES = 20000
COC_COROUTINES = 3000

# coroc's targets for its front end (docs/benchmarks.md, part 4).
TARGET_TIME_VS_GCC = 0.25         # coroc's own CPU time / gcc -fsyntax-only's, on the C input
TARGET_RSS_PER_BYTE = 15.0        # coroc's own peak RSS / input bytes, on the C input
TARGET_COC_RSS_PER_BYTE = 15.0    # the same on large.coc (its output alone is about 19)
TARGET_COC_LINES_PER_S = 150000   # coroc on large.coc, each backend


def fail(msg):
    """Something could not run: say what, exit 1 (never because of a figure)."""
    print(f"frontend.py: {msg}", file=sys.stderr)
    sys.exit(1)


# {==================================================================
# The large C file
# ===================================================================

# Headers a real C program of some size includes. No _GNU_SOURCE: coroc
# preprocesses its input again, with `-include coro.h`, and coro.h's
# <sys/socket.h>, read without _GNU_SOURCE, defines __SOCKADDR_ARG as a
# macro; text preprocessed with _GNU_SOURCE declares a typedef of that name,
# which the macro then breaks. (Only an input that is already preprocessed,
# as this one, can meet that: a .coc's own #include is read once.)
C_HEADERS = """stdio.h stdlib.h string.h math.h errno.h ctype.h stdint.h inttypes.h
time.h signal.h unistd.h fcntl.h sys/stat.h sys/types.h sys/time.h sys/socket.h
netinet/in.h arpa/inet.h pthread.h stdbool.h stddef.h limits.h assert.h
stdarg.h setjmp.h locale.h sys/mman.h sys/wait.h dirent.h poll.h wchar.h""".split()

WORDS = """alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega
buffer socket stream packet header record cursor window thread signal timer
queue index bucket node entry table frame parser token symbol module""".split()

# Literal text with escapes of every kind the lexer must get right. No \\x
# escape is followed by a hex digit, which it would swallow.
STRING_PIECES = ["%s", "\\t", "\\n", "\\\"", "\\\\", "\\x41 ", "\\101", "%d", "'", "?"]
CHAR_LITERALS = ["'a'", "'Z'", "'\\n'", "'\\t'", "'\\''", "'\\\\'", "'\\0'", "'\\x7f'", "'0'", "' '"]


class CGen:
    """Generated C, one unit (types, tables, functions) at a time.

    Every unit k has its own prefix u<k>_, so nothing collides; a unit's
    functions call those of earlier units, as the files of a real program
    call each other. All of it is valid gnu11 that gcc accepts without a
    warning at its default level."""

    def __init__(self, rng):
        self.rng = rng
        self.mix_funcs = []    # "u<k>_mix": int (int, int), defined so far
        self.hash_funcs = []   # "u<k>_hash": uint32_t (const void *, size_t)

    # -- small pieces ------------------------------------------------------

    def string(self):
        """A string literal with escapes and no conversion (it is data)."""
        r = self.rng
        parts = [r.choice(WORDS)]
        for _ in range(r.randint(1, 4)):
            piece = r.choice(STRING_PIECES + WORDS)
            parts.append(piece.replace("%", "%%") if piece.startswith("%") else piece)
        return '"' + " ".join(parts) + '"'

    def expr(self, names, depth=0):
        """An int expression over the int variables `names`."""
        return self.expr_and_const(names, depth)[0]

    def expr_and_const(self, names, depth):
        """(text, whether it is a constant expression). Every operator gets
        at least one operand that is not constant, so that no part of the
        expression is folded at compile time, where an overflow would be a
        warning; at run time it is never evaluated."""
        r = self.rng
        if depth > 2 or r.random() < 0.3:
            pick = r.random()
            if pick < 0.55:
                return r.choice(names), False
            if pick < 0.8:
                return str(r.randint(1, 999)), True
            if pick < 0.9:
                return r.choice(CHAR_LITERALS), True
            return "(int)sizeof(" + r.choice(["long", "double", "void *", "int64_t"]) + ")", True
        a, a_const = self.expr_and_const(names, depth + 1)
        b, b_const = self.expr_and_const(names, depth + 1)
        if a_const and b_const:
            b, b_const = r.choice(names), False
        v = a if b_const else b   # an operand that is not constant
        kind = r.randrange(9)
        if kind < 4:
            return f"({a} {r.choice(['+', '-', '*', '&', '|', '^'])} {b})", False
        if kind == 5:
            return f"(int)((unsigned)({v}) {r.choice(['<<', '>>'])} {r.randint(1, 7)})", False
        if kind == 6:
            if a == b:   # x < x: gcc -Wall would call it a mistake
                b = f"({b} + 1)"
            cmp = r.choice(["<", ">", "==", "!=", "<=", ">="])
            return f"({a} {cmp} {b} ? {v} : {self.expr(names, depth + 1)})", False
        if kind == 7:
            return f"(int)(unsigned char)({v})", False
        if kind == 8 and self.mix_funcs:
            return f"{r.choice(self.mix_funcs)}({a}, {b})", False
        return f"({v} {r.choice(['/', '%'])} {r.randint(2, 97)})", False

    def statements(self, names, depth, ind, labels):
        """A random block body: assignments, nested control flow, calls."""
        r = self.rng
        out = []
        for _ in range(r.randint(1, 3) if depth else r.randint(5, 8)):
            var = r.choice(names)
            kind = r.randrange(10 if depth < 2 else 3)
            if kind == 0:
                out.append(f"{ind}{var} = {self.expr(names)};")
            elif kind == 1:
                out.append(f"{ind}{var} {r.choice(['+=', '-=', '^=', '|='])} {self.expr(names)};")
            elif kind == 2:
                out.append(f"{ind}if ({self.expr(names)} > {r.randint(0, 500)})")
                out.append(f"{ind}    goto done;")
                labels.add("done")
            elif kind == 3:
                out.append(f"{ind}if ({self.expr(names)} {r.choice(['<', '>', '!='])} {self.expr(names)}) {{")
                out += self.statements(names, depth + 1, ind + "    ", labels)
                out.append(f"{ind}}} else {{")
                out += self.statements(names, depth + 1, ind + "    ", labels)
                out.append(f"{ind}}}")
            elif kind == 4:
                i = f"i{depth}"
                out.append(f"{ind}for (int {i} = 0; {i} < {r.randint(2, 64)}; {i}++) {{")
                out += self.statements(names + [i], depth + 1, ind + "    ", labels)
                out.append(f"{ind}}}")
            elif kind == 5:
                out.append(f"{ind}while ({var} > {r.randint(1, 100)}) {{")
                out += self.statements(names, depth + 1, ind + "    ", labels)
                out.append(f"{ind}    {var} /= {r.randint(2, 9)};")
                out.append(f"{ind}}}")
            elif kind == 6:
                out.append(f"{ind}do {{")
                out += self.statements(names, depth + 1, ind + "    ", labels)
                out.append(f"{ind}}} while ({var}-- > {r.randint(50, 900)});")
            elif kind == 7:
                out += self.switch(names, depth, ind, labels)
            elif kind == 8:
                t = f"t{depth}_{len(out)}"
                out.append(f"{ind}{{")
                out.append(f"{ind}    int {t} = {self.expr(names)};")
                out += self.statements(names + [t], depth + 1, ind + "    ", labels)
                out.append(f"{ind}    {var} ^= {t};")
                out.append(f"{ind}}}")
            else:
                out.append(f"{ind}{var} = {var} ? {self.expr(names)} : {self.expr(names)};")
        return out

    def switch(self, names, depth, ind, labels):
        r = self.rng
        out = [f"{ind}switch ({self.expr(names)} & {r.choice([7, 15, 31])}) {{"]
        for case in r.sample(range(16), r.randint(2, 6)):
            out.append(f"{ind}case {case}:")
            out += self.statements(names, depth + 1, ind + "    ", labels)
            if r.random() < 0.7:   # else it falls through to the next case
                out.append(f"{ind}    break;")
        out.append(f"{ind}default:")
        out.append(f"{ind}    {r.choice(names)}++;")
        out.append(f"{ind}}}")
        return out

    # -- one unit ----------------------------------------------------------

    def unit(self, k):
        """Every kind of C a program has, prefixed u<k>_."""
        r = self.rng
        p, P = f"u{k}_", f"U{k}_"
        nkinds = r.randint(4, 12)
        kinds = [f"{P}{w.upper()}" for w in r.sample(WORDS, nkinds)]
        out = [f"/* unit {k} */"]
        out.append(f"enum {p}kind {{ {kinds[0]}, {kinds[1]} = {r.randint(2, 9)},")
        out += [f"    {name}," for name in kinds[2:]]
        out.append(f"    {P}COUNT }};")
        out += self.types(p)
        out += self.tables(p, kinds)
        out += self.func_name(p, P, kinds)
        out += self.func_parse(p)
        out += self.func_hash(p)
        out += self.func_build(p)
        out += self.func_callbacks(p)
        out += self.func_system(p)
        out += self.func_mix(p)
        return out

    def types(self, p):
        r = self.rng
        fields = ["    int id;", "    unsigned flags : 3;", "    unsigned mode : 5;",
                  "    unsigned short port;", "    double weight;",
                  f"    char name[{r.choice([16, 24, 32])}];", "    const char *label;",
                  f"    struct {p}node *next;",
                  "    union { int64_t i; double d; void *p; } val;",
                  f"    uint32_t counts[{r.randint(2, 8)}];",
                  "    struct { int16_t x, y; } pos;"]
        extra = ["    long long total;", "    float ratio;", "    size_t len;",
                 "    time_t stamp;", "    pthread_mutex_t *lock;", "    FILE *log;"]
        fields += r.sample(extra, r.randint(1, len(extra)))
        return ([f"typedef struct {p}node {{"] + fields + [f"}} {p}node_t;",
                f"typedef int (*{p}cb_t)({p}node_t *, void *);",
                f"typedef union {p}word {{ uint32_t w; uint8_t b[4]; float f; }} {p}word_t;",
                f"typedef const char *{p}str_t;",
                f"struct {p}point {{ double x, y; }};"])

    def tables(self, p, kinds):
        """Static tables with designated and positional initializers."""
        r = self.rng
        errs = ["EINVAL", "ENOENT", "EAGAIN", "EPERM", "ERANGE", "EIO", "0"]
        rows = [f"    [{i}] = {{ .name = {self.string()}, .code = {r.choice(errs)}, "
                f".scale = {r.uniform(-100, 100):.4f}, .kind = {r.choice(kinds)} }},"
                for i in range(r.randint(4, 12))]
        out = [f"static const struct {{ const char *name; int code; double scale; enum {p}kind kind; }} {p}table[] = {{"]
        out += rows + ["};"]
        out.append(f"static const int32_t {p}primes[] = {{ " +
                   ", ".join(str(r.randint(-99999, 99999)) for _ in range(r.randint(8, 24))) + " };")
        out.append(f"static {p}node_t {p}nodes[{r.randint(2, 6)}] = {{")
        out.append(f"    {{ .id = {r.randint(1, 99)}, .name = \"{r.choice(WORDS)}\", .label = NULL,"
                   f" .val = {{ .d = {r.uniform(0, 1):.3f} }}, .pos = {{ -1, 1 }} }},")
        out.append(f"    [1] = {{ {r.randint(100, 999)}, 1, 2, 8080, 0.5, \"second\" }},")
        out.append("};")
        out.append(f"static pthread_mutex_t {p}lock = PTHREAD_MUTEX_INITIALIZER;")
        return out

    def func_name(self, p, P, kinds):
        """A switch over an enum: cases sharing a body, fall-through, default."""
        r = self.rng
        out = [f"const char *{p}kind_name(enum {p}kind k) {{", "    switch (k) {"]
        for name in kinds:
            out.append(f"    case {name}:")
            if r.random() < 0.75:
                out.append(f"        return \"{name.split('_', 1)[1].lower()}\";")
        out += ["    default:", "        break;", "    }",
                f"    return k < {P}COUNT ? {self.string()} : NULL;", "}"]
        return out

    def func_parse(self, p):
        """Characters, pointers, errno: a number parser."""
        r = self.rng
        base = r.choice([8, 10, 16])
        return [
            f"int {p}parse(const char *s, long *out) {{",
            "    long v = 0;",
            "    int sign = 1;",
            "    if (*s == '-') {",
            "        sign = -1;",
            "        s++;",
            "    }",
            "    for (; *s != '\\0'; s++) {",
            "        if (isdigit((unsigned char)*s))",
            f"            v = v * {base} + (*s - '0');",
            "        else if (*s == '_' || *s == '\\'')",
            "            continue;",
            "        else if (isspace((unsigned char)*s))",
            "            break;",
            "        else {",
            "            errno = EINVAL;",
            "            return -1;",
            "        }",
            "    }",
            f"    if (v > LONG_MAX / {r.randint(2, 64)})",
            "        errno = ERANGE;",
            "    *out = sign * v;",
            "    return 0;",
            "}",
        ]

    def func_hash(self, p):
        """Pointer arithmetic, unsigned arithmetic, a union."""
        r = self.rng
        self.hash_funcs.append(f"{p}hash")
        return [
            f"uint32_t {p}hash(const void *data, size_t len) {{",
            "    const unsigned char *q = data, *end = q + len;",
            f"    uint32_t h = {r.randint(1, 2**31)}u;",
            "    while (q < end) {",
            "        h ^= *q++;",
            f"        h *= {r.choice([16777619, 2654435761, 40503])}u;",
            "    }",
            f"    {p}word_t w = {{ .w = h }};",
            "    return (uint32_t)w.b[0] << 24 | (uint32_t)w.b[3] << 8 | (h >> 13);",
            "}",
        ]

    def func_build(self, p):
        """malloc, goto cleanup, snprintf, compound literals, math."""
        r = self.rng
        hash_call = r.choice(self.hash_funcs)
        return [
            f"int {p}build({p}node_t **out, int n) {{",
            "    int rc = -1;",
            f"    {p}node_t *nodes = calloc((size_t)n, sizeof *nodes);",
            f"    char *buf = malloc({r.choice([64, 128, 256])});",
            "    if (nodes == NULL || buf == NULL)",
            "        goto fail;",
            "    for (int i = 0; i < n; i++) {",
            f"        size_t row = (size_t)i % (sizeof {p}table / sizeof {p}table[0]);",
            f"        snprintf(buf, 64, \"%s-%d:%\" PRId64, {p}table[row].name, i, (int64_t)i * {r.randint(3, 999)});",
            "        strncpy(nodes[i].name, buf, sizeof nodes[i].name - 1);",
            "        nodes[i].id = (int)(" + hash_call + "(buf, strlen(buf)) & 0x7fff);",
            "        nodes[i].next = i + 1 < n ? &nodes[i + 1] : NULL;",
            f"        nodes[i].val.d = sqrt((double)i) * {p}table[row].scale;",
            f"        struct {p}point d = (struct {p}point){{ .x = nodes[i].val.d, .y = -{r.uniform(1, 9):.2f} }};",
            "        nodes[i].weight = hypot(d.x, d.y) + fabs(floor(d.x));",
            "        nodes[i].flags = (unsigned)i & 7u;",
            "    }",
            "    *out = nodes;",
            "    nodes = NULL;",
            "    rc = 0;",
            "fail:",
            "    free(nodes);",
            "    free(buf);",
            "    return rc;",
            "}",
        ]

    def func_callbacks(self, p):
        """A table of function pointers, and a walk that calls each."""
        r = self.rng
        n = r.randint(2, 5)
        out = []
        for i in range(n):
            out += [f"static int {p}cb_{i}({p}node_t *node, void *ctx) {{",
                    f"    return node->id {r.choice(['+', '^', '-'])} *(const int *)ctx * {r.randint(1, 9)};",
                    "}"]
        out.append(f"static const {p}cb_t {p}cbs[] = {{ " + ", ".join(f"{p}cb_{i}" for i in range(n)) + " };")
        out += [f"int {p}visit({p}node_t *head, int ctx) {{",
                "    int total = 0;",
                f"    pthread_mutex_lock(&{p}lock);",
                f"    for ({p}node_t *node = head; node != NULL; node = node->next)",
                f"        for (size_t i = 0; i < sizeof {p}cbs / sizeof {p}cbs[0]; i++)",
                f"            total += {p}cbs[i](node, &ctx) % {r.randint(3, 97)};",
                f"    for (const int32_t *q = {p}primes; q < {p}primes + sizeof {p}primes / sizeof *{p}primes; q++)",
                "        total ^= *q;",
                f"    pthread_mutex_unlock(&{p}lock);",
                f"    return total + {p}nodes[0].id;",
                "}"]
        return out

    def func_system(self, p):
        """System calls and their macros: open, fstat, sockets, time, signals."""
        r = self.rng
        return [
            f"int {p}open_checked(const char *path, struct stat *st) {{",
            f"    int fd = open(path, O_RDONLY | {r.choice(['O_CLOEXEC', 'O_NONBLOCK', 'O_NOCTTY'])});",
            "    if (fd < 0)",
            "        return -errno;",
            "    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {",
            "        close(fd);",
            "        return -EINVAL;",
            "    }",
            "    return fd;",
            "}",
            f"int {p}listen(uint16_t port, struct sockaddr_in *sa) {{",
            "    memset(sa, 0, sizeof *sa);",
            "    sa->sin_family = AF_INET;",
            f"    sa->sin_port = htons((uint16_t)(port + {r.randint(1, 999)}));",
            "    sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);",
            "    int fd = socket(AF_INET, SOCK_STREAM, 0);",
            "    if (fd >= 0 && bind(fd, (struct sockaddr *)sa, sizeof *sa) != 0) {",
            "        close(fd);",
            "        fd = -1;",
            "    }",
            "    return fd;",
            "}",
            f"double {p}elapsed(const struct timespec *start) {{",
            "    struct timespec now;",
            "    clock_gettime(CLOCK_MONOTONIC, &now);",
            f"    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)",
            f"        fprintf(stderr, \"{p}elapsed: %s\\n\", strerror(errno));",
            "    return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;",
            "}",
        ]

    def func_mix(self, p):
        """Random control flow over a few ints, calling earlier units."""
        names = ["a", "b", "c", "d"]
        labels = set()
        body = self.statements(names, 0, "    ", labels)
        out = [f"int {p}mix(int a, int b) {{",
               f"    int c = a ^ {self.rng.randint(1, 9999)}, d = b - c;"]
        out += body
        if labels:
            out.append("done:")
        out += ["    return a + b + c + d;", "}"]
        self.mix_funcs.append(f"{p}mix")
        return out


def preprocess(src, dst):
    """`cc -E -P`: what a build hands to the compiler, without line markers."""
    run_checked(["cc", "-std=gnu11", "-E", "-P", str(src), "-o", str(dst)], "cc -E -P")


def make_c_file(workdir, seed):
    """large.c: system headers, then generated units, preprocessed."""
    includes = "".join(f"#include <{h}>\n" for h in C_HEADERS)
    head_src = workdir / "large_headers.c"
    head_src.write_text(includes)
    preprocess(head_src, workdir / "large_headers.i")
    header_lines = count_lines((workdir / "large_headers.i").read_bytes())

    gen = CGen(random.Random(seed))
    lines, k = [], 0
    while k == 0 or header_lines + len(lines) < C_TARGET_LINES:  # (one unit at least: --scale)
        lines += gen.unit(k)
        k += 1
    src = workdir / "large_src.c"
    src.write_text("/* generated by tests/bench/part4-frontend/frontend.py */\n" + includes + "\n".join(lines) + "\n")
    dst = workdir / "large.c"
    preprocess(src, dst)
    return dst, f"preprocessed C, no coroutines: {len(C_HEADERS)} system headers + {k} generated units"

# }==================================================================


# {==================================================================
# The large .coc
# ===================================================================

class CocGen:
    """Generated coroutines: generators, tasks that await earlier tasks,
    leaf tasks. Kinds are tracked, since only a task may be awaited."""

    def __init__(self, rng):
        self.rng = rng
        self.int_gens = []    # gen_N(int n): int generators of one int
        self.tasks = []       # int tasks of one int: task_N and leaf_N
        self.counts = {"generators": 0, "tasks": 0, "leaf tasks": 0}

    def coroutine(self, n):
        r = self.rng
        if not self.tasks:
            return self.leaf(n)
        pick = r.random()
        if pick < 0.40:
            return self.generator(n)
        if pick < 0.85:
            return self.task(n)
        return self.leaf(n)

    def generator(self, n):
        """One of four shapes of generator."""
        r = self.rng
        self.counts["generators"] += 1
        k = r.randint(2, 97)
        shape = r.randrange(4) if self.int_gens else 0
        if shape == 0:
            self.int_gens.append(f"gen_{n}")
            return [f"coroutine int gen_{n}(int n) {{",
                    f"  for (int i = 0; i < n; i++)",
                    f"    yield i * {k};",
                    "}"]
        if shape == 1:
            return [f"coroutine long gen_{n}(int n, long start) {{",
                    "  long acc = start;",
                    f"  double scale = {r.uniform(0.5, 4):.3f};",
                    f"  unsigned char tag = {r.choice(CHAR_LITERALS)};",
                    "  for (int i = 0; i < n; i++) {",
                    f"    acc += (long)i * {k};",
                    f"    if (acc % {r.randint(2, 9)} == 0)",
                    "      yield acc;",
                    "    else if (i & 1)",
                    "      yield (long)(acc * scale);",
                    "    tag++;",
                    "  }",
                    "  yield (long)tag;",
                    "}"]
        if shape == 2:
            return [f"coroutine int gen_{n}(const int *v, size_t len) {{",
                    f"  struct point p = {{ 0, {k} }};",
                    "  size_t i = 0;",
                    "  while (i < len) {",
                    "    p.x += v[i];",
                    "    if (p.x > p.y) {",
                    "      yield p.x - p.y;",
                    f"      p.y += {k};",
                    "    }",
                    "    i++;",
                    "  }",
                    "}"]
        src = r.choice(self.int_gens)
        return [f"coroutine int gen_{n}(int n) {{",
                f"  coro_t *src = {src}(n);",
                "  int v;",
                "  while (coro_next(src, &v))",
                f"    if (v % {k} != 0)",
                f"      yield v + {k};",
                "  coro_free(src);",
                "}"]

    def task(self, n):
        """int task_N(int x): awaits earlier tasks, yields its turn."""
        r = self.rng
        self.counts["tasks"] += 1
        m1, m2 = r.choice(self.tasks), r.choice(self.tasks)
        k = r.randint(2, 97)
        shape = r.randrange(4)
        if shape == 0:
            body = [f"  int a = await {m1}(x);",
                    "  yield;",
                    "  return a + 1;"]
        elif shape == 1:
            body = ["  long total = 0;",
                    f"  double ratio = {r.uniform(0.1, 2):.3f};",
                    "  for (int i = 0; i < 3; i++) {",
                    f"    total += await {m1}(x + i);",
                    f"    if (total > {k})",
                    "      yield;",
                    "  }",
                    "  return (int)(total * ratio);"]
        elif shape == 2:
            body = ["  int a;",
                    f"  if (x % {r.randint(2, 5)} == 0)",
                    f"    a = await {m1}(x / 2);",
                    "  else {",
                    "    yield;",
                    f"    a = await {m2}(x - 1) + {k};",
                    "  }",
                    f"  while (await {m1}(a) < {k})",
                    f"    a += {r.randint(1, 9)};",
                    "  return a;"]
        else:
            body = ["  char buf[24];",
                    "  unsigned short tag = (unsigned short)x;",
                    f"  snprintf(buf, sizeof buf, \"task {n}: %d\", x);",
                    "  int a = (int)strlen(buf) + tag;",
                    "  switch (a & 3) {",
                    "  case 0:",
                    f"    a += await {m1}(a);",
                    "    break;",
                    "  case 1:",
                    "    yield;",
                    "    /* fall through */",
                    "  default:",
                    f"    a -= await {m2}(x);",
                    "  }",
                    "  return a;"]
        self.tasks.append(f"task_{n}")
        return [f"coroutine int task_{n}(int x) {{"] + body + ["}"]

    def leaf(self, n):
        """A task with no suspension point: it just returns."""
        r = self.rng
        self.counts["leaf tasks"] += 1
        self.tasks.append(f"leaf_{n}")
        return [f"coroutine int leaf_{n}(int x) {{",
                f"  int r = x * {r.randint(2, 97)};",
                "  if (r < 0)",
                "    r = -r;",
                f"  return r % {r.randint(100, 9999)};",
                "}"]

    def main(self):
        """Drive a few of them, so that the file is a whole program."""
        tops = self.tasks[-4:]
        out = ["static int result;",
               "coroutine void top(int x) {",
               "  result += " + " + ".join(f"await {t}(x)" for t in tops) + ";",
               "}",
               "int main(void) {",
               "  int v;",
               "  long sum = 0;"]
        for g in self.int_gens[-3:]:
            out += ["  {",
                    f"    coro_t *g = {g}(10);",
                    "    while (coro_next(g, &v))",
                    "      sum += v;",
                    "    coro_free(g);",
                    "  }"]
        out += ["  for (int i = 0; i < 4; i++)",
                "    coro_spawn(top(i));",
                "  int rc = coro_run();",
                "  printf(\"%ld %d\\n\", sum, result);",
                "  return rc;",
                "}"]
        return out


def make_coc_file(workdir, seed):
    gen = CocGen(random.Random(seed))
    lines = ["/* generated by tests/bench/part4-frontend/frontend.py */",
             "#include <coro.h>",
             "#include <stdio.h>",
             "#include <stdlib.h>",
             "#include <string.h>",
             "#include <stdint.h>",
             "struct point { int x, y; };"]
    for n in range(COC_COROUTINES):
        lines += gen.coroutine(n)
    lines += gen.main()
    dst = workdir / "large.coc"
    dst.write_text("\n".join(lines) + "\n")
    kinds = ", ".join(f"{v} {k}" for k, v in gen.counts.items())
    return dst, f"{COC_COROUTINES} coroutines ({kinds}) and a main"

# }==================================================================


# {==================================================================
# The C input
# ===================================================================

class CInput:
    """The C input of the part: its file, the -D options every command gets
    with it, what it is, and whether gcc must take it without a warning (the
    generated one is made to be clean; SQLite's warnings are SQLite's)."""

    def __init__(self, path, cflags, what, strict):
        self.path = path
        self.cflags = cflags
        self.what = what
        self.strict = strict


def choose_c_input(args, workdir):
    """SQLite's amalgamation, fetched (or found in the cache) by tests/realc;
    failing that, or asked for with --c-input generated, large.c generated
    here. Either way it says which, and why."""
    if args.c_input == "sqlite":
        try:
            src = realc.fetch(log=lambda msg: print(f"frontend.py: tests/realc: {msg}", flush=True))
        except (realc.FetchError, OSError, subprocess.SubprocessError) as e:
            print(f"frontend.py: the SQLite amalgamation could not be fetched ({e}); the C input is the generated "
                  "large.c instead", flush=True)
            fallback = " (the SQLite amalgamation could not be fetched)"
        else:
            cflags = realc.sqlite_defines(src)
            return CInput(src / "sqlite" / "sqlite3.c", cflags,
                          f"{realc.VERSIONS['sqlite']}'s amalgamation from better-sqlite3@13.2.0 (npm registry, "
                          f"tests/realc), with that package's {len(cflags)} -D options", strict=False)
    else:
        fallback = " (--c-input generated)"
    path, what = make_c_file(workdir, args.seed)
    return CInput(path, [], what + fallback, strict=True)

# }==================================================================


# {==================================================================
# Running and measuring
# ===================================================================

def run_checked(argv, what, env=None):
    """Run a command once; its failure ends the benchmark, with its output."""
    res = subprocess.run([str(a) for a in argv], capture_output=True, env=env)
    if res.returncode != 0:
        fail(f"{what} failed (exit {res.returncode}): {' '.join(map(str, argv))}\n"
             f"{res.stdout.decode(errors='replace')[-4000:]}{res.stderr.decode(errors='replace')[-4000:]}")
    return res


def verify(coroc, c_input, coc_file, workdir):
    """Before any timing: the inputs are what they claim to be, and every
    timed command succeeds on them. A fast failure must not look like speed."""
    name = c_input.path.name
    res = run_checked(["gcc", "-std=gnu11", "-fsyntax-only", *c_input.cflags, c_input.path],
                      f"gcc -fsyntax-only on {name}")
    if c_input.strict and res.stderr.strip():
        fail(f"gcc warns on {name} (the generator should make clean C):\n{res.stderr.decode(errors='replace')}")
    out = workdir / f"{name}.coroc.c"
    run_checked([coroc, *c_input.cflags, "-o", out, c_input.path], f"coroc on {name}")
    if out.read_bytes() != c_input.path.read_bytes():
        fail(f"coroc changed {name}: C without coroutines must come out as it went in ({out})")
    for backend in ("stackless", "stackful"):
        out = workdir / f"large.{backend}.c"
        run_checked([coroc, f"--backend={backend}", "-I", RUNTIME_INCLUDE, "-o", out, coc_file],
                    f"coroc --backend={backend} on large.coc")
        run_checked(["gcc", "-std=gnu11", "-c", "-I", RUNTIME_INCLUDE, out, "-o", workdir / f"large.{backend}.o"],
                    f"gcc -c of coroc's {backend} output")


LAUNCHER = None  # tests/bench/part4-frontend/launch.c, built into the work directory by build_launcher


def build_launcher(workdir):
    """The small program that runs each command (launch.c says why not Python)."""
    global LAUNCHER
    exe = workdir / "launch"
    run_checked(["cc", "-O2", "-o", exe, Path(__file__).with_name("launch.c")], "cc launch.c")
    LAUNCHER = str(exe)


def measure(argv, errfile):
    """One run as a whole process: wall seconds, CPU seconds, peak RSS bytes,
    and the CPU seconds of the process alone (None if /proc could not say).

    launch.c runs it and reports wait4's rusage of it, which on Linux
    includes what it got from the children it waited for (coroc's cc -E,
    gcc's cc1); its ru_maxrss is the largest of the process and those
    children, in KiB. It also reads, before it reaps the process, the
    process's own user and system time from /proc/PID/stat, which leaves the
    children out, in clock ticks (10 ms). The wall time includes the
    launcher's fork, alike for every command."""
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        res = subprocess.run([LAUNCHER, report.name, *map(str, argv)], stdout=subprocess.DEVNULL, stderr=errfile)
        wall = time.perf_counter() - start
        fields = report.read().split()
    if res.returncode != 0 or len(fields) != 5 or fields[3] != "0":
        errfile.seek(0)
        fail(f"{' '.join(map(str, argv))} failed while being timed:\n{errfile.read().decode(errors='replace')}")
    own = float(fields[4])
    return wall, float(fields[0]) + float(fields[1]), int(fields[2]) * 1024, own if own >= 0 else None


def time_all(commands, reps):
    """One warm-up of each command, then `reps` rounds that each run every
    command once, so that a slow moment of the machine falls on all of them
    alike and the ratios of one round compare like with like."""
    runs = {name: [] for name, _ in commands}
    with tempfile.TemporaryFile() as errfile:
        for rep in range(reps + 1):
            for name, argv in commands:
                errfile.seek(0)
                errfile.truncate()
                result = measure(argv, errfile)
                if rep > 0:
                    runs[name].append(result)
    return runs

# }==================================================================


# {==================================================================
# Reporting
# ===================================================================

WALL, CPU, RSS, OWN_CPU = range(4)   # the fields of a run


def count_lines(data):
    return data.count(b"\n")


def fmt_lines_per_s(v):
    return f"{v / 1e6:.2f}M" if v >= 1e6 else f"{v / 1e3:.0f}k"


def median_of(runs, name, field):
    values = [r[field] for r in runs[name] if r[field] is not None]
    return statistics.median(values) if values else None


def print_table(title, size, commands, runs):
    lines, nbytes = size
    print(f"\n{title}")
    print(f"| {'command':<40} | {'wall ms median (min-max)':>24} | {'CPU ms':>7} | {'own CPU ms':>10} "
          f"| {'lines/s':>7} | {'peak RSS MiB':>12} | {'RSS B/input B':>13} |")
    print(f"|{'-' * 42}|{'-' * 25}:|{'-' * 8}:|{'-' * 11}:|{'-' * 8}:|{'-' * 13}:|{'-' * 14}:|")
    for name, _ in commands:
        wall = [r[WALL] for r in runs[name]]
        cpu = median_of(runs, name, CPU)
        own = median_of(runs, name, OWN_CPU)
        rss = median_of(runs, name, RSS)
        med = statistics.median(wall)
        span = f"{med * 1e3:.0f} ({min(wall) * 1e3:.0f}-{max(wall) * 1e3:.0f})"
        own_text = f"{own * 1e3:.0f}" if own is not None else "-"
        print(f"| {name:<40} | {span:>24} | {cpu * 1e3:>7.0f} | {own_text:>10} | {fmt_lines_per_s(lines / med):>7} "
              f"| {rss / 2**20:>12.1f} | {rss / nbytes:>13.1f} |")
    print("(CPU: user + system of the process and the children it waited for; own CPU: of the process alone, "
          "from /proc/PID/stat, in steps of 10 ms: for gcc and cc, the driver, whose work is in its cc1)")


def ratio(runs, a, b, field=WALL, field_b=None):
    """Median of the paired ratios a/b of each round, and ratio of the
    medians; of field of a's runs over field_b (default: the same) of b's."""
    field_b = field if field_b is None else field_b
    pairs = [(x[field], y[field_b]) for x, y in zip(runs[a], runs[b]) if x[field] is not None and y[field_b]]
    if not pairs:
        return None, None
    paired = statistics.median(x / y for x, y in pairs)
    of_medians = statistics.median(x for x, _ in pairs) / statistics.median(y for _, y in pairs)
    return paired, of_medians


def print_ratios(runs, pairs):
    """Wall time is what a build waits for. CPU time is printed beside it
    because on a busy machine it moves less: it leaves out the time a
    process waited for a processor."""
    print("ratios, median of the paired ratios of each round (in parentheses: ratio of the medians):")
    for a, b in pairs:
        wall, wall_m = ratio(runs, a, b, WALL)
        cpu, cpu_m = ratio(runs, a, b, CPU)
        print(f"  {a} / {b}: wall {wall:.2f}x ({wall_m:.2f}x), CPU {cpu:.2f}x ({cpu_m:.2f}x)")


def verdict(ok):
    return "met" if ok else "NOT met"


GCC = "gcc -std=gnu11 -fsyntax-only"


def print_targets(c_name, c_runs, c_size, coc_runs, coc_size):
    """The time target is judged on coroc's own CPU time (the OWN row's, see
    OWN): what coroc adds to a build of this file over its preprocessor,
    which the compiler runs anyway. The whole coroc's wall and CPU ratios
    follow in parentheses."""
    print("\ntargets, from this run:")
    own, own_m = ratio(c_runs, OWN, GCC, CPU)
    real_own, _ = ratio(c_runs, "coroc", GCC, OWN_CPU, CPU)
    wall, _ = ratio(c_runs, "coroc", GCC, WALL)
    cpu, _ = ratio(c_runs, "coroc", GCC, CPU)
    real_text = f"{real_own:.2f}x" if real_own is not None else "unknown"
    print(f"target: coroc's own CPU time <= {TARGET_TIME_VS_GCC}x gcc -fsyntax-only's on {c_name}: {own:.2f}x "
          f"({own_m:.2f}x of the medians)  {verdict(own <= TARGET_TIME_VS_GCC)}  (its own CPU in the real run, "
          f"from /proc: {real_text}; the whole coroc with its cc -E: wall {wall:.2f}x, CPU {cpu:.2f}x)")
    # Peak memory is coroc's own: the kernel reports the peak of a process and
    # its children, and the preprocessor coroc runs (cc1) has a floor of its
    # own, about 18 MiB whatever the input (24 bytes per byte of the generated
    # large.c). The whole process's figure and the preprocessor's are printed
    # beside the verdict.
    rss = {name: median_of(c_runs, name, RSS) / c_size[1] for name in c_runs}
    print(f"target: peak RSS <= {TARGET_RSS_PER_BYTE:.0f} bytes per input byte (coroc's own process, {c_name}): "
          f"{rss[OWN]:.1f}  {verdict(rss[OWN] <= TARGET_RSS_PER_BYTE)}  (with its cc1: {rss['coroc']:.1f}; "
          f"the preprocessor alone: {rss[CPP_CALL]:.1f})")
    coc_rss = median_of(coc_runs, OWN, RSS) / coc_size[1]
    print(f"target: peak RSS <= {TARGET_COC_RSS_PER_BYTE:.0f} bytes per input byte (coroc's own process, stackless, "
          f"large.coc): {coc_rss:.1f}  {verdict(coc_rss <= TARGET_COC_RSS_PER_BYTE)}  (with its cc1: "
          f"{median_of(coc_runs, 'coroc (stackless)', RSS) / coc_size[1]:.1f})")
    for name in coc_runs:
        if name.startswith("coroc") and name != OWN:
            rate = coc_size[0] / median_of(coc_runs, name, WALL)
            cpu_rate = coc_size[0] / median_of(coc_runs, name, CPU)
            print(f"target: {name} on the large .coc >= {TARGET_COC_LINES_PER_S // 1000}k lines/s: "
                  f"{fmt_lines_per_s(rate)}  {verdict(rate >= TARGET_COC_LINES_PER_S)}  "
                  f"(per CPU second: {fmt_lines_per_s(cpu_rate)})")

# }==================================================================


def find_coroc(given):
    """--coroc, else a coroc already built in this tree, the benchmark's
    Release build first."""
    if given:
        path = shutil.which(given) or given
        if not os.access(path, os.X_OK):
            fail(f"--coroc {given}: not an executable")
        return os.path.abspath(path)
    for rel in ("build-bench/coroc/transformer/coroc", "build-bench/transformer/coroc", "build/transformer/coroc"):
        if os.access(ROOT / rel, os.X_OK):
            return str(ROOT / rel)
    fail("no coroc found in build-bench/ or build/: pass --coroc PATH, or run tests/bench/run --frontend, "
         "which builds one")


def build_type(coroc):
    """The CMake build type of the tree coroc was built in, if it is one: a
    Debug coroc would make every figure meaningless, so the output says."""
    for d in Path(coroc).resolve().parents:
        cache = d / "CMakeCache.txt"
        if cache.is_file():
            for line in cache.read_text(errors="replace").splitlines():
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1] or "none"
            return "none"
    return "not a CMake build"


def parse_args():
    ap = argparse.ArgumentParser(
        description="Part 4 of coroc's benchmark: coroc's time and memory beside gcc -fsyntax-only and "
                    "cc -E, on SQLite's amalgamation (or a generated C file) and a large .coc "
                    "(docs/benchmarks.md).")
    ap.add_argument("--coroc", help="the coroc to measure (default: build-bench/coroc/transformer/coroc, "
                                    "build-bench/transformer/coroc or build/transformer/coroc)")
    ap.add_argument("--reps", type=int, default=5, help="timed runs of each command, after one warm-up (default 5)")
    ap.add_argument("--workdir", type=Path, default=ROOT / "build-bench" / "frontend",
                    help="where the inputs and coroc's outputs go (default build-bench/frontend)")
    ap.add_argument("--seed", type=int, default=20261122, help="seed of the generators (default: fixed)")
    ap.add_argument("--c-input", choices=["sqlite", "generated"], default="sqlite",
                    help="the C input: SQLite's amalgamation, fetched by tests/realc if it is not in its cache "
                         "(default; the generated large.c if it cannot be), or the generated large.c")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="the generated inputs at F times their size (default 1; below 1 the figures are not "
                         "the part's)")
    args = ap.parse_args()
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    if not 0 < args.scale <= 1:
        ap.error("--scale must be above 0 and at most 1")
    return args


# coroc's own CPU time and memory: the row that the targets judge.
#
# coroc runs its preprocessor as a child and waits for it, and the kernel
# then adds the child's CPU time to coroc's and reports the larger of the
# two peaks as coroc's: wait4's rusage of coroc, and the RUSAGE_CHILDREN
# deltas of whoever waits for coroc, always include the cc1 that coroc
# reaped, so no measure taken from outside the process can leave it out of
# a real run. This row leaves the preprocessor out of the run instead: its
# output is recorded once (record_cpp) and coroc is given $COROC_CPP, a
# script that prints it again (`exec cat`). What remains beside coroc is
# that sh-then-cat, a few ms of CPU and 1 MiB of memory, which can only make
# coroc look slower, never faster; and coroc does all of its own work, on
# the same bytes (checked: its output is the same). As a cross-check, the
# launcher also reads each process's own CPU time from /proc/PID/stat before
# reaping it ("own CPU"): exact about whose time it is, but in 10 ms steps,
# so it is printed beside the verdict, not used for it.
OWN = "coroc, own process (cpp replayed)"
CPP_CALL = "cc -E as coroc calls it (recorded)"


def script_dir(workdir):
    """Where the $COROC_CPP scripts live: the work directory, unless its
    path has a space or a tab. coroc splits $COROC_CPP at those (docs/cli.md),
    so the scripts then go to a directory of their own under the system's
    temporary directory, removed when this script ends."""
    if not any(c.isspace() for c in str(workdir)):
        return workdir
    private = Path(tempfile.mkdtemp(prefix="coroc-cpp-"))
    if any(c.isspace() for c in str(private)):
        fail(f"neither the work directory nor {private} is free of spaces: $COROC_CPP is split at spaces")
    atexit.register(shutil.rmtree, private, True)
    return private


def record_cpp(coroc, src, extra, workdir):
    """coroc's own preprocessor call on src, recorded: a prefix that makes
    coroc replay its output (see OWN), and the call as a command of its own.

    coroc runs once with $COROC_CPP set to a script that runs `cc -E` with
    the arguments coroc gives it and keeps both the arguments and what it
    prints; whatever coroc asks of its preprocessor (the options for a file
    with or without coroutines, transformer/front/source.c), the recording has it.
    coroc's output must be the same with no $COROC_CPP, with the recording
    script and with the replaying one."""
    stem = str(script_dir(workdir) / src.name)
    saved, args_file = Path(stem + ".cpp-output"), Path(stem + ".cpp-args")
    record, replay = Path(stem + ".cpp-record"), Path(stem + ".cpp-replay")
    record.write_text("#!/bin/sh\n"
                      f"# coroc's preprocessor call on {src.name}: run, its arguments and its output kept\n"
                      f"printf '%s\\n' \"$@\" > '{args_file}'\n"
                      f"cc -E \"$@\" > '{saved}' || exit\n"
                      f"exec cat '{saved}'\n")
    replay.write_text(f"#!/bin/sh\n# prints coroc's preprocessor output for {src.name}, as {record.name} kept it\n"
                      f"exec cat '{saved}'\n")
    record.chmod(0o755)
    replay.chmod(0o755)
    outputs = []
    for cpp in (None, record, replay):
        env = dict(os.environ)
        env.pop("COROC_CPP", None)
        if cpp:
            env["COROC_CPP"] = str(cpp)
        out = Path(stem + ".coroc-out")
        run_checked([coroc, *extra, "-o", out, src], f"coroc on {src.name}" + (f" with $COROC_CPP={cpp.name}"
                                                                                if cpp else ""), env=env)
        outputs.append(out.read_bytes())
    if outputs[1] != outputs[0] or outputs[2] != outputs[0]:
        fail(f"coroc's output on {src.name} differs when its preprocessor's output is recorded or replayed")
    args = args_file.read_text().splitlines()
    if not args or args[-1] != "-":
        fail(f"coroc's preprocessor call on {src.name} was not the expected one (its input last, as -): {args}")
    return ["env", f"COROC_CPP={replay}"], ["cc", "-E", *args[:-1], str(src), "-o", os.devnull]


def commands(coroc, c_input, coc_file, workdir):
    """What is timed on each input: (name, argv) lists."""
    rt = str(RUNTIME_INCLUDE)
    c, cflags = str(c_input.path), c_input.cflags
    c_replay, c_cpp = record_cpp(coroc, c_input.path, cflags, workdir)
    coc_replay, coc_cpp = record_cpp(coroc, coc_file, ["-I", rt], workdir)
    c_commands = [
        ("coroc", [coroc, *cflags, "-o", os.devnull, c]),
        (OWN, c_replay + [coroc, *cflags, "-o", os.devnull, c]),
        (GCC, ["gcc", "-std=gnu11", "-fsyntax-only", *cflags, c]),
        ("cc -E", ["cc", "-E", *cflags, c, "-o", os.devnull]),
        (CPP_CALL, c_cpp),
    ]
    # -x c: a .coc is C to the preprocessor, which would otherwise take it
    # for a linker input and do nothing.
    coc_commands = [
        ("coroc (stackless)", [coroc, "-I", rt, "-o", os.devnull, str(coc_file)]),
        (OWN, coc_replay + [coroc, "-I", rt, "-o", os.devnull, str(coc_file)]),
        ("coroc --backend=stackful", [coroc, "--backend=stackful", "-I", rt, "-o", os.devnull, str(coc_file)]),
        ("cc -E -x c", ["cc", "-E", "-x", "c", "-I", rt, str(coc_file), "-o", os.devnull]),
        (CPP_CALL, coc_cpp),
    ]
    return c_commands, coc_commands


def print_header(coroc, workdir, reps, c_input, c_size, coc_size, coc_what):
    gcc_version = run_checked(["gcc", "-dumpfullversion"], "gcc -dumpfullversion").stdout.decode().strip()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print("4. coroc beside the compiler's front end (tests/bench/part4-frontend/frontend.py)")
    print(f"processor: {processor()}; {os.cpu_count()} processors; load average {load} before the runs; "
          f"gcc {gcc_version}")
    print(f"coroc: {coroc} (build type {build_type(coroc)})")
    print("inputs:")
    print(f"  {c_input.path.name:<10} {c_size[0]:>6} lines {c_size[1]:>8} bytes  {c_input.what}; {c_input.path}"
          + (f"; with {' '.join(c_input.cflags[:3])} ..." if c_input.cflags else ""))
    print(f"  large.coc  {coc_size[0]:>6} lines {coc_size[1]:>8} bytes  {coc_what}; in {workdir}")
    print(f"each command run whole (by launch.c: fork, exec, wait4; children included): one warm-up, then {reps} "
          "timed runs, interleaved; median wall time (min-max)")
    sys.stdout.flush()   # before the long part, when stdout is a pipe


def main():
    global C_TARGET_LINES, COC_COROUTINES
    args = parse_args()
    C_TARGET_LINES = int(C_TARGET_LINES * args.scale)
    COC_COROUTINES = max(10, int(COC_COROUTINES * args.scale))
    coroc = find_coroc(args.coroc)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)

    c_input = choose_c_input(args, workdir)
    coc_file, coc_what = make_coc_file(workdir, args.seed)
    verify(coroc, c_input, coc_file, workdir)
    build_launcher(workdir)

    c_data, coc_data = c_input.path.read_bytes(), coc_file.read_bytes()
    c_size = (count_lines(c_data), len(c_data))
    coc_size = (count_lines(coc_data), len(coc_data))
    c_commands, coc_commands = commands(coroc, c_input, coc_file, workdir)
    print_header(coroc, workdir, args.reps, c_input, c_size, coc_size, coc_what)

    c_runs = time_all(c_commands, args.reps)
    coc_runs = time_all(coc_commands, args.reps)

    c_name = c_input.path.name
    print_table(f"{c_name} ({c_size[0]} lines, {c_size[1]} bytes)", c_size, c_commands, c_runs)
    print_ratios(c_runs, [("coroc", GCC), ("coroc", "cc -E"), (OWN, GCC)])
    print_table(f"large.coc ({coc_size[0]} lines, {coc_size[1]} bytes)", coc_size, coc_commands, coc_runs)
    print_ratios(coc_runs, [("coroc (stackless)", "cc -E -x c"), ("coroc --backend=stackful", "cc -E -x c")])
    print_targets(c_name, c_runs, c_size, coc_runs, coc_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
