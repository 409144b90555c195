#!/usr/bin/env python3
"""tests/bench/part7-frames/frames.py: the benchmark's part on frames: what a suspended generator costs.

A stackless instance is its frame: the runtime's header and the fields that
coroc keeps (transformer/passes/live.c keeps a local only when a suspension needs
it). This part measures, in one run:

  1. the memory of a live instance: 10,000,000 suspended instances of a
     counting generator with two ints (`for (int i = from; i < to; i++)
     yield i;`), the process's resident memory before and after divided by
     their number: coroc stackless (default, and --hoist-all), and the same
     generator as a C++20 coroutine built with g++ -fcoroutines and with
     clang++ (each its own process);
  2. the round trip of the same generators (resume, take the value): the
     median of several runs of 50,000,000 values, the generator in a file of
     its own so that the loop cannot inline it, beside a hand-written state
     machine in C called through a function pointer (as in part 1);
  3. the frame of every coroutine of the examples and the tutorial, with
     liveness and with --hoist-all (`coroc --stats`).

It prints the processor, the figures and the targets, met or NOT met. A
benchmark, not a test: it exits 0 whatever the figures, 1 only when something
could not be built or run.

  tests/bench/part7-frames/frames.py [--coroc PATH] [--lib LIBCORO.a] [--reps N] [--n N] [--workdir DIR]
"""

import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))   # benchlib
from benchlib import part_arguments, placement, processor, sh, work_directory  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
PART1 = Path(__file__).resolve().parents[1] / "part1-generator"   # cxx20_gen.h
INCLUDE = ROOT / "runtime" / "include"

TARGET_BYTES = 48          # per live instance of the two-int generator
TARGET_VS_HANDWRITTEN = 1.1

RSS_C = r"""
#include <stdio.h>
#include <unistd.h>
static long resident_bytes(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2)
    return -1;
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}
"""

COROC_GEN = r"""
coroutine int count(int from, int to) {
  for (int i = from; i < to; i++)
    yield i;
}
"""

COROC_MAIN = RSS_C + r"""
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <coro.h>
coro_t *count(int from, int to);
int main(int argc, char **argv) {
  long n = atol(argv[2]);
  if (strcmp(argv[1], "memory") == 0) {
    coro_t **all = malloc(sizeof *all * n);
    memset(all, 1, sizeof *all * n);  /* its pages counted before (not 0: malloc + memset 0 becomes calloc) */
    long before = resident_bytes();
    int v;
    for (long i = 0; i < n; i++) {
      all[i] = count(0, 1000);
      if (!coro_next(all[i], &v))  /* now suspended at its yield */
        return 1;
    }
    printf("%.1f\n", (double)(resident_bytes() - before) / n);
    return 0;
  }
  coro_t *g = count(0, (int)n);
  struct timespec a, b;
  long sum = 0;
  int v;
  clock_gettime(CLOCK_MONOTONIC, &a);
  while (coro_next(g, &v))
    sum += v;
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.3f %ld\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n, sum);
  return 0;
}
"""

CXX_GEN = r"""
#include "cxx20_gen.h"   /* part 1's C++20 generator type (tests/bench/part1-generator) */
using gen = cxx20_gen;
"""

CXX_COUNT = CXX_GEN + r"""
gen count(int from, int to) {
  for (int i = from; i < to; i++)
    co_yield i;
}
"""

CXX_MAIN = RSS_C + CXX_GEN + r"""
#include <cstdlib>
#include <cstring>
#include <ctime>
gen count(int from, int to);
static bool next(gen &g, int *out) {
  g.h.resume();
  if (g.h.done())
    return false;
  *out = g.h.promise().value;
  return true;
}
int main(int argc, char **argv) {
  long n = atol(argv[2]);
  if (strcmp(argv[1], "memory") == 0) {
    gen *all = (gen *)malloc(sizeof *all * n);
    memset((void *)all, 1, sizeof *all * n);  /* (not 0: malloc + memset 0 becomes calloc) */
    long before = resident_bytes();
    int v;
    for (long i = 0; i < n; i++) {
      all[i] = count(0, 1000);
      if (!next(all[i], &v))
        return 1;
    }
    printf("%.1f\n", (double)(resident_bytes() - before) / n);
    return 0;
  }
  gen g = count(0, (int)n);
  struct timespec a, b;
  long sum = 0;
  int v;
  clock_gettime(CLOCK_MONOTONIC, &a);
  while (next(g, &v))
    sum += v;
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.3f %ld\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n, sum);
  g.h.destroy();
  return 0;
}
"""

HAND_GEN = r"""
#include <stdbool.h>
#include <stdlib.h>
/* Called through a function pointer, as coro_next calls a body and as part
   1's hand-written machine is called: the consumer cannot know which
   machine it drives, so the call cannot be direct. */
struct count { bool (*next)(struct count *, int *); int state, i, to; };
static bool count_next(struct count *c, int *out) {
  switch (c->state) {
  case 0:
    for (; c->i < c->to; c->i++) {
      *out = c->i;
      c->state = 1;
      return true;
  case 1:;
    }
  }
  return false;
}
struct count *count_new(int from, int to) {
  struct count *c = malloc(sizeof *c);
  c->next = count_next, c->state = 0, c->i = from, c->to = to;
  return c;
}
"""

HAND_MAIN = r"""
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
struct count { bool (*next)(struct count *, int *); };
struct count *count_new(int from, int to);
int main(int argc, char **argv) {
  (void)argc;
  long n = atol(argv[2]);
  struct count *g = count_new(0, (int)n);
  struct timespec a, b;
  long sum = 0;
  int v;
  clock_gettime(CLOCK_MONOTONIC, &a);
  while (g->next(g, &v))
    sum += v;
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.3f %ld\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n, sum);
  free(g);
  return 0;
}
"""


def build(work, coroc, lib):
    """Each row's program: name -> path (a row that cannot be built is left out, with why)."""
    w = Path(work)
    progs, missing = {}, {}
    (w / "count.coc").write_text(COROC_GEN)
    (w / "main_coroc.c").write_text(COROC_MAIN)
    for mode, args in (("coroc stackless", []), ("coroc stackless --hoist-all", ["--hoist-all"])):
        tag = "hoist" if args else "live"
        sh([coroc, *args, "-o", w / f"count_{tag}.c", w / "count.coc"])
        exe = w / f"coroc_{tag}"
        sh(["cc", "-O2", *placement("cc"), "-std=gnu11", f"-I{INCLUDE}", "-o", exe, w / f"count_{tag}.c",
            w / "main_coroc.c", lib, "-lpthread"])
        progs[mode] = exe
    (w / "count.cpp").write_text(CXX_COUNT)
    (w / "main_cxx.cpp").write_text(CXX_MAIN)
    for name, cxx, flags in (("C++20, g++", "g++", ["-fcoroutines"]), ("C++20, clang++", "clang++", [])):
        if not shutil.which(cxx):
            missing[name] = f"{cxx} not found"
            continue
        exe = w / f"cxx_{cxx.replace('+', 'p')}"
        res = subprocess.run([cxx, "-O2", *placement(cxx), "-std=c++20", *flags, f"-I{PART1}", "-o", str(exe),
                              str(w / "count.cpp"),
                              str(w / "main_cxx.cpp")], capture_output=True, text=True)
        if res.returncode != 0:
            missing[name] = f"{cxx} could not build it: {res.stderr.strip().splitlines()[-1]}"
            continue
        progs[name] = exe
    (w / "hand_count.c").write_text(HAND_GEN)
    (w / "hand_main.c").write_text(HAND_MAIN)
    exe = w / "hand"
    sh(["cc", "-O2", *placement("cc"), "-std=gnu11", "-o", exe, w / "hand_count.c", w / "hand_main.c"])
    progs["hand-written machine"] = exe
    return progs, missing


def frame_sizes(coroc):
    """(file, coroutine, bytes, bytes under --hoist-all) for every stackless coroutine shown to readers."""
    rows = []
    files = (sorted((ROOT / "examples").glob("*.coc")) + sorted((ROOT / "examples").glob("*/*.coc")) +
             sorted((ROOT / "tutorial").glob("*/*.coc")))
    for f in files:
        res = subprocess.run([str(coroc), "--stats", f"-I{f.parent}", f.name], cwd=f.parent,
                             capture_output=True, text=True)
        for m in re.finditer(r"^coroutine (\w+) \(.*?\), stackless: frame (\d+) bytes, align \d+"
                             r"(?: \((\d+) with every local in it)?", res.stdout, re.M):
            every = m.group(3) or m.group(2)
            rows.append((f.relative_to(ROOT), m.group(1), int(m.group(2)), int(every)))
    return rows


def main():
    ap = part_arguments(__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--n", type=int, default=10_000_000, help="instances alive at once")
    ap.add_argument("--values", type=int, default=50_000_000, help="values per round-trip run")
    args = ap.parse_args()
    work = work_directory(args, "coroc-frames-")
    progs, missing = build(work, args.coroc, args.lib)

    print("7. What a suspended generator costs: memory per live instance, round trip, frames")
    print(f"processor: {processor()}")
    print(f"two-int counting generator; {args.n:,} instances alive at once; round trip: median of "
          f"{args.reps} runs of {args.values:,} values")
    memory, trip = {}, {}
    for name, exe in progs.items():
        if not name.startswith("hand"):
            memory[name] = float(sh([exe, "memory", args.n]).split()[0])
    for _ in range(args.reps):  # interleaved and paired, so that a busy moment hits every row alike
        for name, exe in progs.items():
            trip.setdefault(name, []).append(float(sh([exe, "time", args.values]).split()[0]))
    def paired(name, base="hand-written machine"):
        """The median of the ratios of name's runs to base's, repetition by repetition."""
        return statistics.median(a / b for a, b in zip(trip[name], trip[base]))

    print(f"  {'':30s} {'bytes/instance':>15s} {'round trip ns':>14s} {'/ hand-written':>15s}")
    for name in progs:
        t = statistics.median(trip[name])
        mem = f"{memory[name]:15.1f}" if name in memory else f"{'':>15s}"
        print(f"  {name:30s} {mem} {t:14.2f} {paired(name):14.2f}x")
    for name, why in missing.items():
        print(f"  {name:30s} not built: {why}")

    live = memory["coroc stackless"]
    print(f"target: coroc stackless <= {TARGET_BYTES} bytes per live instance: "
          f"{'met' if live <= TARGET_BYTES else 'NOT met'} ({live:.1f})")
    ratio = paired("coroc stackless")
    print(f"target: coroc stackless round trip <= {TARGET_VS_HANDWRITTEN}x the hand-written machine: "
          f"{'met' if ratio <= TARGET_VS_HANDWRITTEN else 'NOT met'} ({ratio:.2f}x, the median of the "
          f"paired ratios)")
    cxx = [n for n in progs if n.startswith("C++20")]
    if cxx:
        fastest = min(cxx, key=lambda n: statistics.median(trip[n]))
        vs = paired("coroc stackless", fastest)
        print(f"target: coroc stackless round trip <= C++20's (the faster build, {fastest}, this run): "
              f"{'met' if vs <= 1.0 else 'NOT met'} ({vs:.2f}x, the median of the paired ratios; "
              f"{statistics.median(trip['coroc stackless']):.2f} vs {statistics.median(trip[fastest]):.2f} ns)")

    print()
    print("Frames of the examples and the tutorial (coroc --stats, x86-64): bytes kept by liveness, "
          "and with --hoist-all")
    for f, co, size, every in frame_sizes(args.coroc):
        print(f"  {str(f):40s} {co:20s} {size:6d} {every:6d}{'' if size == every else '  (-%d)' % (every - size)}")
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
