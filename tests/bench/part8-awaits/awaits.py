#!/usr/bin/env python3
"""tests/bench/part8-awaits/awaits.py: the benchmark's part 8, an await of a child that returns at once.

`s += await child(i & 7);` in a loop of N awaits, the child returning its
argument plus one without ever suspending: what one await costs when there
is nothing to wait for, and how many allocations it makes. Rows, each its
own process, built and run here:

  coroc stackless, child inside  the child defined above the parent: its frame
                                 is inside the parent's (no allocation)
  coroc stackless, child on heap the child defined below: a frame per await
  coroc stackful, child inside   the child's body a plain call on the parent's stack
  coroc stackful, child on heap  an instance (and a stack) per await
  C++20 task (g++, clang++)      a minimal lazy task type with symmetric transfer,
                                 the child in the same file
  Rust async fn                  an async fn awaiting an async fn, polled by a
                                 minimal executor (rustc -O), if rustc is installed
  plain C, child a function      the same loop with no coroutine at all, the child
                                 a function in the same file: the floor, what the
                                 compiler makes of the loop itself (for information)

Allocations per await are counted in a second run of each program: coroc's
through coro_set_allocator, C++'s by replacing operator new, Rust's by a
counting global allocator. Times are the median of several interleaved runs;
ratios are to the Rust row (or the C++ one without rustc), paired run by run.

Targets (docs/benchmarks.md, part 8): 0 allocations per await of a child
inside its parent, and at most 2x Rust's time, in both backends.

A benchmark, not a test: it exits 0 whatever the figures, 1 only when
something it needs could not be built or run.

  tests/bench/part8-awaits/awaits.py [--coroc PATH] [--lib LIBCORO.a] [--reps N] [--n N] [--workdir DIR]
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
# (docs/benchmarks.md, part 8: the stackless child inside at most Rust's time, stackful half)
TARGET_VS_RUST = {"stackless": 1.0, "stackful": 0.5}
FLOOR = "plain C, child a function"

COROC_MAIN = r"""
#include <coro.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long allocs;
static void *count_alloc(size_t bytes, size_t align, void *ctx) {
  (void)ctx;
  allocs++;
  return aligned_alloc(align, (bytes + align - 1) / align * align);
}
static void count_free(void *p, size_t bytes, void *ctx) {
  (void)bytes, (void)ctx;
  free(p);
}

long result;
coro_t *parent(long n);

int main(int argc, char **argv) {
  long n = atol(argv[2]);
  if (strcmp(argv[1], "count") == 0)
    coro_set_allocator(&(struct coro_allocator){count_alloc, count_free, NULL});
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  coro_spawn(parent(n));
  if (coro_run() != 0)
    return 1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
  /* the parent itself is one allocation, made once: not the await's */
  printf("%.3f %.3f %ld\n", ns, (double)(allocs - (allocs > 0)) / n, result);
  return 0;
}
"""

COROC_INSIDE = r"""
#include <coro.h>
extern long result;
coroutine int child(int x) {
  return x + 1;
}
coroutine void parent(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += await child((int)(i & 7));
  result = s;
}
"""

COROC_HEAP = r"""
#include <coro.h>
extern long result;
coroutine int child(int x);
coroutine void parent(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += await child((int)(i & 7));
  result = s;
}
coroutine int child(int x) {
  return x + 1;
}
"""

PLAIN_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static int child(int x) {
  return x + 1;
}
static long parent(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += child((int)(i & 7));
  return s;
}
int main(int argc, char **argv) {
  (void)argc;
  long n = atol(argv[2]);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  long s = parent(n);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
  printf("%.3f 0.000 %ld\n", ns, s);
  return 0;
}
"""

CXX = r"""
#include <coroutine>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <new>
#include <utility>

static long allocs;
static bool counting;
void *operator new(std::size_t n) {
  if (counting)
    allocs++;
  if (void *p = std::malloc(n))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }

/* A lazy task: starts when awaited; on its end, symmetric transfer back to its awaiter. */
template <class T> struct task {
  struct promise_type {
    T value;
    std::coroutine_handle<> continuation = std::noop_coroutine();
    task get_return_object() { return task{std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct final_awaiter {
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        return h.promise().continuation;
      }
      void await_resume() noexcept {}
    };
    final_awaiter final_suspend() noexcept { return {}; }
    void return_value(T v) { value = v; }
    void unhandled_exception() { std::terminate(); }
  };
  std::coroutine_handle<promise_type> h;
  explicit task(std::coroutine_handle<promise_type> h) : h(h) {}
  task(task &&o) noexcept : h(std::exchange(o.h, {})) {}
  ~task() { if (h) h.destroy(); }
  bool await_ready() { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) {
    h.promise().continuation = awaiter;
    return h;
  }
  T await_resume() { return h.promise().value; }
};

task<int> child(int x) { co_return x + 1; }

task<long> parent(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += co_await child((int)(i & 7));
  co_return s;
}

int main(int argc, char **argv) {
  long n = std::atol(argv[2]);
  counting = std::strcmp(argv[1], "count") == 0;
  timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  task<long> t = parent(n);
  t.h.resume();               /* runs to its end: no child ever suspends */
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
  std::printf("%.3f %.3f %ld\n", ns, (double)(allocs - (allocs > 0)) / n, t.h.promise().value);
  return 0;
}
"""

RUST = r"""
use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use std::time::Instant;

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
}
#[global_allocator]
static GLOBAL: Counting = Counting;

#[inline(never)]
async fn child(x: i32) -> i32 {
    x + 1
}

async fn parent(n: i64) -> i64 {
    let mut s: i64 = 0;
    for i in 0..n {
        s += child((i & 7) as i32).await as i64;
    }
    s
}

fn noop_raw() -> RawWaker {
    fn clone(_: *const ()) -> RawWaker { noop_raw() }
    fn noop(_: *const ()) {}
    static VT: RawWakerVTable = RawWakerVTable::new(clone, noop, noop, noop);
    RawWaker::new(std::ptr::null(), &VT)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: i64 = args[2].parse().unwrap();
    let waker = unsafe { Waker::from_raw(noop_raw()) };
    let mut cx = Context::from_waker(&waker);
    COUNTING.store(args[1] == "count", Ordering::Relaxed);
    let start = Instant::now();
    let mut fut = Box::pin(parent(std::hint::black_box(n)));
    let s = loop {
        if let Poll::Ready(v) = Pin::as_mut(&mut fut).poll(&mut cx) {
            break v;
        }
    };
    let ns = start.elapsed().as_nanos() as f64 / n as f64;
    let a = ALLOCS.load(Ordering::Relaxed);
    println!("{:.3} {:.3} {}", ns, (a.saturating_sub(1)) as f64 / n as f64, s);
}
"""


def build(work, coroc, lib):
    w = Path(work)
    progs, missing = {}, {}
    (w / "main.c").write_text(COROC_MAIN)
    for where, text in (("inside", COROC_INSIDE), ("on heap", COROC_HEAP)):
        tag = where.replace(" ", "_")
        (w / f"awaits_{tag}.coc").write_text(text)
        for backend in ("stackless", "stackful"):
            c = w / f"awaits_{tag}_{backend}.c"
            sh([coroc, f"--backend={backend}", "-o", c, w / f"awaits_{tag}.coc"])
            exe = w / f"coroc_{tag}_{backend}"
            sh(["cc", "-O2", *placement("cc"), "-std=gnu11", f"-I{INCLUDE}", "-o", exe, c, w / "main.c",
                lib, "-lpthread"])
            progs[f"coroc {backend}, child {where}"] = exe
    (w / "plain.c").write_text(PLAIN_C)
    sh(["cc", "-O2", *placement("cc"), "-std=gnu11", "-o", w / "plain", w / "plain.c"])
    progs[FLOOR] = w / "plain"
    (w / "task.cpp").write_text(CXX)
    for cxx in ("g++", "clang++"):
        name = f"C++20 task, {cxx}"
        if not shutil.which(cxx):
            missing[name] = f"{cxx} not found"
            continue
        exe = w / f"cxx_{cxx.replace('+', 'p')}"
        res = subprocess.run([cxx, "-O2", *placement(cxx), "-std=c++20", "-o", str(exe), str(w / "task.cpp")],
                             capture_output=True, text=True)
        if res.returncode != 0:
            missing[name] = f"{cxx} could not build it: {res.stderr.strip().splitlines()[-1]}"
            continue
        progs[name] = exe
    rustc = shutil.which("rustc")
    if rustc:
        (w / "awaits.rs").write_text(RUST)
        exe = w / "rust"
        res = subprocess.run([rustc, "-O", "--edition", "2021", "-o", str(exe), str(w / "awaits.rs")],
                             capture_output=True, text=True)
        if res.returncode == 0:
            progs["Rust async fn"] = exe
        else:
            missing["Rust async fn"] = f"rustc could not build it: {res.stderr.strip().splitlines()[-1]}"
    else:
        missing["Rust async fn"] = "rustc not found (Debian: apt-get install rustc)"
    return progs, missing


def main():
    ap = part_arguments(__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--n", type=int, default=10_000_000, help="awaits per run")
    args = ap.parse_args()
    work = work_directory(args, "coroc-awaits-")
    progs, missing = build(work, args.coroc, args.lib)

    print("8. An await of a child that returns at once (`s += await child(i & 7);` in a loop)")
    print(f"processor: {processor()}")
    print(f"{args.n:,} awaits per run; ns per await: median of {args.reps} interleaved runs; "
          f"allocations per await: from a counting run")
    want = sum(((i & 7) + 1) for i in range(8)) * (args.n // 8) + sum((i & 7) + 1 for i in range(args.n % 8))
    allocs, times = {}, {}
    for name, exe in progs.items():
        out = sh([exe, "count", args.n]).split()
        if int(out[2]) != want:
            fail(f"{name}: the sum is {out[2]}, not {want}: the program is wrong")
        allocs[name] = float(out[1])
    for _ in range(args.reps):
        for name, exe in progs.items():
            times.setdefault(name, []).append(float(sh([exe, "time", args.n]).split()[0]))
    base = "Rust async fn" if "Rust async fn" in progs else next((n for n in progs if n.startswith("C++")), None)

    def paired(name):
        return statistics.median(a / b for a, b in zip(times[name], times[base]))

    print(f"  {'':32s} {'ns/await':>9s} {'allocs/await':>13s} {'/ ' + (base or '-'):>18s}")
    for name in progs:
        rel = f"{paired(name):17.2f}x" if base else f"{'-':>18s}"
        print(f"  {name:32s} {statistics.median(times[name]):9.2f} {allocs[name]:13.2f} {rel}")
    for name, why in missing.items():
        print(f"  {name:32s} not built: {why}")
    for backend in ("stackless", "stackful"):
        name = f"coroc {backend}, child inside"
        print(f"target: {name}: 0 allocations per await: "
              f"{'met' if allocs[name] == 0 else 'NOT met'} ({allocs[name]:.2f})")
        if base:
            q = paired(name)
            t = TARGET_VS_RUST[backend]
            print(f"target: {name}: <= {t}x {base}: "
                  f"{'met' if q <= t else 'NOT met'} ({q:.2f}x, the median of the paired ratios)")
    floor = statistics.median(times[FLOOR])
    print(f"the floor, {FLOOR} (no coroutine): {floor:.2f} ns, {paired(FLOOR):.2f}x {base}; "
          f"coroc stackful, child inside: {statistics.median(times['coroc stackful, child inside']) / floor:.2f}x "
          f"it, stackless: {statistics.median(times['coroc stackless, child inside']) / floor:.2f}x it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
