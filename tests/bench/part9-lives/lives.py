#!/usr/bin/env python3
"""tests/bench/part9-lives/lives.py: the benchmark's part 9, the life of a short-lived generator.

A generator of three values is made, its three values taken, run to its end
and freed, again and again: what a generator that lives for a moment costs
from its birth to its end. Rows, each its own process, built and run here:

  coroc stackful                 gen3.coc with --backend=stackful: an instance and a
                                 stack (from the thread's cache of stacks)
  boost.context fiber            boost::context::fiber on a pooled_fixedsize_stack of the
                                 same size as coroc's stacks (256 KiB), the body a lambda
  coroc stackless                the same gen3.coc with --backend=stackless
  coroc stackless, caller        the generator and the loop in one file, the instance
    storage                      in a local CORO_FRAME(gen3), resumed as its frame
                                 (coro_next(&frame, &v)): the compiler sees it whole
  coroc stackless, storage,      the same, resumed through its coro_t *
    by coro_t *
  C++20, clang++, same file      the same generator in C++20, in the loop's file
    (HALO)                       (clang may elide its frame's allocation)
  hand-written machine           a struct and a switch, its frame malloc'ed and freed

The generator's code is in a file of its own, the loop in another (no
link-time optimisation), so that no compiler sees through the life.

Counted in a second run of each program, over the same loop:
  allocations per life   every malloc, calloc, realloc, aligned_alloc,
                         posix_memalign and memalign of the process (a counting
                         malloc linked into each program, forwarding to glibc's),
                         and for coroc also the instances its allocator makes
                         (coro_set_allocator, counting)
  faults per life        minor page faults (getrusage) over the loop
  memory calls per life  mmap, munmap, mprotect, madvise, brk, mremap (strace -c
                         -e trace=%memory), from two runs of N and 2N lives: the
                         difference over N, so that the start-up's calls fall out

Targets (docs/benchmarks.md, part 9): coroc stackful <= 0.4x the boost.context
fiber on a pooled stack; coroc stackless <= 0.9x the hand-written machine;
coroc stackless in caller storage <= 1.0x clang's C++20 generator (HALO).

A benchmark, not a test: it exits 0 whatever the figures, 1 only when
something it needs could not be built or run, or a generator gives wrong
values.

  tests/bench/part9-lives/lives.py [--coroc PATH] [--lib LIBCORO.a] [--reps N] [--n N] [--workdir DIR]
                       [--baseline-lib LIBCORO.a]

--baseline-lib adds a row, "coroc stackful, baseline", the same stackful
program linked with another libcoro (an older commit's, say), measured in the
same run.
"""

import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))   # benchlib
from benchlib import fail, part_arguments, placement, processor, sh, work_directory  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
INCLUDE = ROOT / "runtime" / "include"
TARGET_VS_FIBER = 0.4   # (docs/benchmarks.md, part 9: these three)
TARGET_VS_HALO = 1.0
TARGET_VS_HAND = 0.9
STACK = 256 * 1024   # coroc's default stack; the fiber's pool hands out stacks of the same size

# Counting malloc: linked into every program, replaces glibc's entry points
# (for the C++ library's operator new too) and forwards to glibc's own.
COUNT_C = r"""
#include <stddef.h>
#include <errno.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
long bench_allocs;
int bench_counting;
void *malloc(size_t n) { bench_allocs += bench_counting; return __libc_malloc(n); }
void *calloc(size_t n, size_t m) { bench_allocs += bench_counting; return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { bench_allocs += bench_counting; return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { bench_allocs += bench_counting; return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { bench_allocs += bench_counting; return __libc_memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n) {
  bench_allocs += bench_counting;
  void *q = __libc_memalign(a, n);
  if (!q)
    return ENOMEM;
  *p = q;
  return 0;
}
"""

# The loop every row shares: LIFE(s) makes a generator, takes its values into
# s, runs it to its end and frees it. "time": the ns per life; "count": the
# allocations and faults per life; "sys": just the loop (strace counts).
MAIN_H = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
extern long bench_allocs;
extern int bench_counting;
static long faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}
/* The coroc rows (<coro.h> included first): their instances from an
   allocator that counts them, set for the counting run. */
#ifdef CORO_H
static void *count_alloc(size_t bytes, size_t align, void *ctx) {
  (void)ctx;
  bench_allocs++;
  extern void *__libc_memalign(size_t, size_t);
  return __libc_memalign(align, bytes);
}
static void count_free(void *p, size_t bytes, void *ctx) {
  (void)bytes, (void)ctx;
  free(p);
}
#define BENCH_COUNT_INSTANCES \
  coro_set_allocator(&(struct coro_allocator){count_alloc, count_free, NULL})
#endif
#define BENCH_MAIN(SETUP_COUNT, LIFE)                                              \
  int main(int argc, char **argv) {                                              \
    if (argc < 3)                                                                \
      return 2;                                                                  \
    long n = atol(argv[2]), s = 0;                                               \
    int three = argc > 3 ? atoi(argv[3]) : 3;                                    \
    for (long k = 0; k < 1000; k++) { LIFE; }   /* warm: caches, pools */        \
    s = 0;                                                                       \
    int count = strcmp(argv[1], "count") == 0;                                   \
    if (count) { SETUP_COUNT; bench_counting = 1; }                              \
    struct timespec a, b;                                                        \
    long f0 = faults();                                                          \
    clock_gettime(CLOCK_MONOTONIC, &a);                                          \
    for (long k = 0; k < n; k++) { LIFE; }                                       \
    clock_gettime(CLOCK_MONOTONIC, &b);                                          \
    long f1 = faults();                                                          \
    bench_counting = 0;                                                          \
    double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;     \
    printf("%.3f %.4f %.4f %ld\n", ns, (double)bench_allocs / n, (double)(f1 - f0) / n, s); \
    return 0;                                                                    \
  }
"""

GEN_COC = r"""
#include <coro.h>
coroutine int gen3(int n) {
  for (int i = 0; i < n; i++)
    yield i + 1;
}
"""

COROC_MAIN = r"""
#include <coro.h>
#include "main.h"
coro_t *gen3(int n);
BENCH_MAIN(BENCH_COUNT_INSTANCES,
           coro_t *g = gen3(three); int v; while (coro_next(g, &v)) s += v; coro_free(g))
"""

STORAGE_COC = r"""
#include <coro.h>
#include "main.h"
/* The generator and its consumer in one file: the instance in a local,
   CORO_FRAME(gen3), made by coro_in_gen3: no allocation; resumed and freed
   as its frame (docs/language.md, "The frame itself"), so that the compiler
   sees the whole life. */
coroutine int gen3(int n) {
  for (int i = 0; i < n; i++)
    yield i + 1;
}
BENCH_MAIN(BENCH_COUNT_INSTANCES,
           CORO_FRAME(gen3) frame; coro_in_gen3(&frame, three); int v;
           while (coro_next(&frame, &v)) s += v; coro_free(&frame))
"""

# The same, resumed and freed through the coro_t * that coro_in_gen3 returns:
# the body by name still, but the instance's address reaches the calls of
# coro_next's other paths, so it lives in memory.
STORAGE_PTR_COC = STORAGE_COC.replace(
    "coro_in_gen3(&frame, three); int v;\n           while (coro_next(&frame, &v)) s += v; coro_free(&frame))",
    "coro_t *g = coro_in_gen3(&frame, three); int v;\n           while (coro_next(g, &v)) s += v; coro_free(g))")
assert STORAGE_PTR_COC != STORAGE_COC

HALO_CPP = r"""
#include "cxx20_gen.h"
extern "C" {
#include "main.h"
}
/* The same generator as a C++20 coroutine in the consumer's file: clang
   may elide the frame's allocation (HALO) when it sees the whole life. */
using gen = cxx20_gen;   /* part 1's C++20 generator type (tests/bench/part1-generator/cxx20_gen.h) */
static gen gen3(int n) {
  for (int i = 0; i < n; i++)
    co_yield i + 1;
}
#define HALO_LIFE                                                   \
  gen g = gen3(three);                                             \
  for (g.h.resume(); !g.h.done(); g.h.resume())                    \
    s += g.h.promise().value;                                      \
  g.h.destroy();
BENCH_MAIN((void)0, HALO_LIFE)
"""

HAND_H = r"""
struct hand { int (*next)(struct hand *g, int *out); int state, i, n; };
struct hand *hand_new(int n);
void hand_free(struct hand *g);
"""

HAND_C = r"""
#include <stdlib.h>
#include "hand.h"
/* for (i = 0; i < n; i++) yield i + 1; as a switch that goes on where it stopped */
static int hand_next(struct hand *g, int *out) {
  switch (g->state) {
  case 0:
    for (g->i = 0; g->i < g->n; g->i++) {
      *out = g->i + 1;
      g->state = 1;
      return 1;
  case 1:;
    }
  }
  g->state = 2;
  return 0;
}
struct hand *hand_new(int n) {
  struct hand *g = malloc(sizeof *g);
  if (!g)
    abort();
  *g = (struct hand){hand_next, 0, 0, n};
  return g;
}
void hand_free(struct hand *g) {
  free(g);
}
"""

HAND_MAIN = r"""
#include "hand.h"
#include "main.h"
BENCH_MAIN((void)0,
           struct hand *g = hand_new(three); int v; while (g->next(g, &v)) s += v; hand_free(g))
"""

FIBER = r"""
#include <boost/context/fiber.hpp>
#include <boost/context/pooled_fixedsize_stack.hpp>
#include <memory>
#include <utility>
namespace ctx = boost::context;
extern "C" {
#include "main.h"
}
/* The generator: a fiber whose body writes each value where the consumer
   asked and switches back; the fiber is empty once the body has returned. */
static ctx::fiber gen3(ctx::pooled_fixedsize_stack &pool, int n, int *out) {
  return ctx::fiber(std::allocator_arg, pool, [n, out](ctx::fiber &&consumer) {
    for (int i = 0; i < n; i++) {
      *out = i + 1;
      consumer = std::move(consumer).resume();
    }
    return std::move(consumer);
  });
}
static ctx::pooled_fixedsize_stack *pool;
#define FIBER_LIFE                                               \
  int v;                                                         \
  ctx::fiber f = gen3(*pool, three, &v);                         \
  for (f = std::move(f).resume(); f; f = std::move(f).resume())  \
    s += v;
static int run(int argc, char **argv);
int main(int argc, char **argv) {
  ctx::pooled_fixedsize_stack p(STACK);
  pool = &p;
  return run(argc, argv);
}
#define main run
static BENCH_MAIN((void)0, FIBER_LIFE)
"""


def build(work, coroc, lib, baseline_lib=None):
    w = Path(work)
    progs, missing = {}, {}
    (w / "count.c").write_text(COUNT_C)
    (w / "main.h").write_text(MAIN_H)
    (w / "gen3.coc").write_text(GEN_COC)
    (w / "coroc_main.c").write_text(COROC_MAIN)
    sh(["cc", "-O2", "-c", "-o", w / "count.o", w / "count.c"])
    # placement: code at fixed alignments, so that a row measures its code and not where the
    # linker put its loop (the same generated C measured 2.1x and 2.9x the baseline in two
    # trees whose PLTs differed in size; docs/benchmarks.md, "Code placement")
    cflags = ["-O2", *placement("cc"), "-std=gnu11", f"-I{INCLUDE}", f"-I{w}"]
    for backend in ("stackful", "stackless"):
        c = w / f"gen3_{backend}.c"
        sh([coroc, f"--backend={backend}", "-o", c, w / "gen3.coc"])
        exe = w / f"coroc_{backend}"
        sh(["cc", *cflags, "-o", exe, c, w / "coroc_main.c", w / "count.o", lib, "-lpthread"])
        progs[f"coroc {backend}"] = exe
        if backend == "stackful" and baseline_lib:
            exe = w / "coroc_stackful_baseline"
            sh(["cc", *cflags, "-o", exe, c, w / "coroc_main.c", w / "count.o", baseline_lib, "-lpthread"])
            progs["coroc stackful, baseline"] = exe
    for stem, text, name in (("storage", STORAGE_COC, "coroc stackless, caller storage"),
                             ("storage_ptr", STORAGE_PTR_COC, "coroc stackless, storage, by coro_t *")):
        (w / f"{stem}.coc").write_text(text)
        c = w / f"{stem}.c"
        sh([coroc, "--backend=stackless", f"-I{w}", "-o", c, w / f"{stem}.coc"])
        exe = w / f"coroc_{stem}"
        sh(["cc", *cflags, "-o", exe, c, w / "count.o", lib, "-lpthread"])
        progs[name] = exe
    name = "C++20, clang++, same file (HALO)"
    if shutil.which("clang++"):
        (w / "halo.cpp").write_text(HALO_CPP)
        exe = w / "halo"
        res = subprocess.run(["clang++", "-O2", *placement("clang++"), "-std=c++20", f"-I{w}", f"-I{Path(__file__).resolve().parents[1] / 'part1-generator'}",
                              "-o", str(exe), str(w / "halo.cpp"),
                              str(w / "count.o")], capture_output=True, text=True)
        if res.returncode != 0:
            missing[name] = f"clang++ could not build it: {res.stderr.strip().splitlines()[-1]}"
        else:
            progs[name] = exe
    else:
        missing[name] = "clang++ not found"
    (w / "hand.h").write_text(HAND_H)
    (w / "hand.c").write_text(HAND_C)
    (w / "hand_main.c").write_text(HAND_MAIN)
    exe = w / "hand"
    sh(["cc", *cflags, "-o", exe, w / "hand.c", w / "hand_main.c", w / "count.o"])
    progs["hand-written machine (malloc)"] = exe
    name = "boost.context fiber, pooled stack"
    cxx = shutil.which("g++") or shutil.which("clang++")
    if not cxx:
        missing[name] = "no C++ compiler"
    elif not Path("/usr/include/boost/context/fiber.hpp").exists():
        missing[name] = "boost.context not installed (apt-get install libboost-context-dev)"
    else:
        (w / "fiber.cpp").write_text(FIBER)
        exe = w / "fiber"
        res = subprocess.run([cxx, "-O2", *placement(cxx), "-std=c++17", f"-DSTACK={STACK}", f"-I{w}", "-o", str(exe),
                              str(w / "fiber.cpp"), str(w / "count.o"), "-lboost_context"],
                             capture_output=True, text=True)
        if res.returncode != 0:
            missing[name] = f"{cxx} could not build it: {res.stderr.strip().splitlines()[-1]}"
        else:
            progs[name] = exe
    return progs, missing


def memory_calls(exe, n):
    """mmap, munmap, mprotect, madvise, brk, mremap calls of one run of n lives (strace -c)."""
    res = subprocess.run(["strace", "-f", "-qq", "-c", "-e", "trace=%memory", str(exe), "sys", str(n)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        return None
    for line in res.stderr.splitlines():
        f = line.split()
        if f and f[-1] == "total":
            return int(f[-2] if len(f) == 5 else f[-3])
    return 0   # no line at all: no call of the kind


def main():
    ap = part_arguments(__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--n", type=int, default=2_000_000, help="lives per run")
    ap.add_argument("--baseline-lib", help="another libcoro.a for a second stackful row")
    args = ap.parse_args()
    work = work_directory(args, "coroc-lives-")
    if args.baseline_lib:
        args.baseline_lib = str(Path(args.baseline_lib).resolve())
    progs, missing = build(work, args.coroc, args.lib, args.baseline_lib)

    print("9. The life of a short-lived generator (make it, take its 3 values, run it to its end, free it)")
    print(f"processor: {processor()}")
    print(f"{args.n:,} lives per run; ns per life: median of {args.reps} interleaved runs; "
          f"allocations and page faults per life: from a counting run; memory calls per life: strace")
    want = 6 * args.n
    counts, times, calls = {}, {}, {}
    for name, exe in progs.items():
        out = sh([exe, "count", args.n]).split()
        if int(out[3]) != want:
            fail(f"{name}: the sum is {out[3]}, not {want}: the program is wrong")
        counts[name] = (float(out[1]), float(out[2]))
    strace = shutil.which("strace")
    for name, exe in progs.items():
        if strace:
            k = 20_000
            one, two = memory_calls(exe, k), memory_calls(exe, 2 * k)
            # (+ 0.0: no "-0.000" when the longer run happened to make one call fewer)
            calls[name] = None if one is None or two is None else round((two - one) / k, 3) + 0.0
    for _ in range(args.reps):
        for name, exe in progs.items():
            times.setdefault(name, []).append(float(sh([exe, "time", args.n]).split()[0]))
    base = "boost.context fiber, pooled stack"
    have_base = base in progs

    def paired(name):
        return statistics.median(a / b for a, b in zip(times[name], times[base]))

    print(f"  {'':38s} {'ns/life':>8s} {'allocs/life':>12s} {'faults/life':>12s} {'mem calls/life':>15s} "
          f"{'/ fiber':>8s}")
    for name in progs:
        rel = f"{paired(name):7.2f}x" if have_base else f"{'-':>8s}"
        c = calls.get(name)
        cs = f"{c:15.3f}" if c is not None else f"{'(no strace)':>15s}"
        print(f"  {name:38s} {statistics.median(times[name]):8.1f} {counts[name][0]:12.3f} "
              f"{counts[name][1]:12.3f} {cs} {rel}")
    for name, why in missing.items():
        print(f"  {name:38s} not built: {why}")
    if have_base:
        q = paired("coroc stackful")
        print(f"target: coroc stackful <= {TARGET_VS_FIBER}x {base}: "
              f"{'met' if q <= TARGET_VS_FIBER else 'NOT met'} ({q:.2f}x, the median of the paired ratios)")
    else:
        print(f"target: coroc stackful <= {TARGET_VS_FIBER}x {base}: not measured ({missing[base]})")
    hand = "hand-written machine (malloc)"
    q = statistics.median(a / b for a, b in zip(times["coroc stackless"], times[hand]))
    print(f"target: coroc stackless <= {TARGET_VS_HAND}x the {hand}: {'met' if q <= TARGET_VS_HAND else 'NOT met'} "
          f"({q:.2f}x, the median of the paired ratios)")
    halo = "C++20, clang++, same file (HALO)"
    if halo in progs:
        q = statistics.median(a / b for a, b in zip(times["coroc stackless, caller storage"], times[halo]))
        print(f"target: coroc stackless, caller storage <= {TARGET_VS_HALO}x {halo}: "
              f"{'met' if q <= TARGET_VS_HALO else 'NOT met'} ({q:.2f}x, the median of the paired ratios)")
    else:
        print(f"target: coroc stackless, caller storage <= {TARGET_VS_HALO}x {halo}: not measured "
              f"({missing[halo]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
