/* bench.c: the speed benchmark of coroc's coroutines (docs/benchmarks.md).
 *
 * Four tables, all in one run of this program (parts 1, 2, 5 and 6 of
 * docs/benchmarks.md); the rows of each are in its part's folder:
 * tests/bench/part1-generator, part2-chain, part5-create, part6-many.
 *
 * 1. The round trip of a generator, resume it and receive one int, in six
 *    builds of the same work:
 *
 *   hand-written      a switch state machine in plain C (baseline of stackless)
 *   stackless         gen.coc through coroc --backend=stackless
 *   stackful          gen.coc through coroc --backend=stackful, libcoro's assembly switch
 *   stackful, FP env  the same, the instance keeping its own FP environment (coro_set_fpenv)
 *   stackful/ucontext the same, against libcoro built with COROC_SWITCH=ucontext
 *   boost.context     jump_fcontext (baseline of stackful)
 *
 * 2. A task resumed by the scheduler at the bottom of a chain of awaits,
 *    1 and 16 awaits deep (and 0, no await), in both backends (chain.coc;
 *    its section below says more).
 *
 * 5. Creating and freeing an instance: libcoro, which takes small frames
 *    from its per-thread slabs, beside a copy of its code from when every
 *    frame was calloc'ed (create.c, create_before.c).
 *
 * Method: each row is warmed up, then given a number of round trips N per
 * repetition (10^7, fewer for a slow row so that one repetition stays near
 * 50 ms). The repetitions are interleaved (row 1, row 2, ..., row 1, ...),
 * each timed with CLOCK_MONOTONIC, and a row's figure is the median over the
 * repetitions of ns per round trip.
 *
 * A ratio compares a row with its baseline measured right before or right
 * after it in the same repetition (hand-written then stackless; stackful,
 * boost.context, then stackful with its own FP environment; depth 1 then
 * depth 16): it is the median over the repetitions of these
 * paired ratios. On a shared machine the speed of the processor changes from
 * one moment to the next (other processes, a hyperthread sibling, the
 * clock), and a pair measured back to back sees nearly the same machine, so
 * the paired ratio is much steadier than either time. The ratio of the two
 * medians is printed beside it for the targets.
 *
 * This is a program that prints figures, not a test: it exits 0 whatever the
 * times are, and says whether each target is met. It fails only when a row
 * computes a wrong result (a broken generator or chain, not a slow one).
 *
 * The echo server's round trips per second, the third part of the benchmark,
 * are measured by tests/bench/part3-echo/echo_bench.sh, not here: they need servers and
 * a client in processes of their own.
 *
 * 6. Many stackful generators suspended at once: 30,000 on stacks of their
 *    own, 1,000,000 on the shared stack, and a round-robin pass over them
 *    (its section below says more).
 *
 * 1'. Tracing on: the stackless row again while a trace of the run is recorded
 *    (docs/debugging.md, "Tracing a run"), paired with it untraced, and the
 *    cost of one event (a round trip records two: its run's begin and end).
 *
 * Usage: coroc_bench [--reps R] [--n N] [--only WORD] [--table generator|chain|create|many]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#if __has_include(<coro.h>)
#include <coro.h> /* (coro_trace_start, where this libcoro has it: "tracing on", below) */
#endif

#ifndef BENCH_STACKFUL_SWITCH
#define BENCH_STACKFUL_SWITCH "asm"
#endif

enum {
  MAX_REPS = 101,
  CALIBRATION_N = 100000,   /* round trips of the warm-up that sizes N */
};

static const double target_rep_seconds = 0.05;   /* a slow row gets fewer round trips */

struct row {
  const char *name;
  bench_run_fn *run;       /* NULL: not built */
  const char *not_built;   /* why, when run is NULL */
  int skipped;             /* built, but left out by --only */
  long n;                  /* round trips per repetition */
  double ns[MAX_REPS];     /* ns per round trip, one per repetition */
  double median, min, max;
};

enum { HAND, STACKLESS, CXX20, STACKFUL, STACKFUL_FPENV, UCONTEXT, FCONTEXT, NROWS };

/* The order of measurement in a repetition: each row next to its baseline
   (boost.context between the two stackful rows compared with it). The
   table shows the rows in enum order. */
static const int run_order[NROWS] = {HAND, STACKLESS, CXX20, STACKFUL, FCONTEXT, STACKFUL_FPENV, UCONTEXT};

#define ROW(label, fn) {.name = (label), .run = (fn)}
#define MISSING(label, why) {.name = (label), .not_built = (why)}
static struct row rows[NROWS] = {
  [HAND] = ROW("hand-written switch (C)", bench_run_handwritten),
  [STACKLESS] = ROW("coroc stackless", bench_run_stackless),
#if BENCH_HAVE_CXX20
  [CXX20] = ROW("C++20 generator (" BENCH_CXX20_COMPILER ")", bench_run_cxx20),
#else
  [CXX20] = MISSING("C++20 generator", BENCH_CXX20_MISSING),
#endif
#if BENCH_HAVE_STACKFUL
  [STACKFUL] = ROW("coroc stackful (" BENCH_STACKFUL_SWITCH ")", bench_run_stackful),
  [STACKFUL_FPENV] = ROW("coroc stackful, own FP env", bench_run_stackful_fpenv),
#else
  [STACKFUL] = MISSING("coroc stackful (" BENCH_STACKFUL_SWITCH ")", BENCH_STACKFUL_MISSING),
  [STACKFUL_FPENV] = MISSING("coroc stackful, own FP env", BENCH_STACKFUL_MISSING),
#endif
#if BENCH_HAVE_UCONTEXT
  [UCONTEXT] = ROW("coroc stackful (ucontext)", bench_run_stackful_ucontext),
#else
  [UCONTEXT] = MISSING("coroc stackful (ucontext)", BENCH_UCONTEXT_MISSING),
#endif
#if BENCH_HAVE_FCONTEXT
  [FCONTEXT] = ROW("boost.context jump_fcontext", bench_run_fcontext),
#else
  [FCONTEXT] = MISSING("boost.context jump_fcontext", BENCH_FCONTEXT_MISSING),
#endif
};

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long long checksum;   /* every value every row received, printed at the end */

/* One timed call of a row: ns per round trip. A wrong sum ends the program. */
static double measure(struct row *r, long n) {
  double t0 = now_ns();
  long long sum = r->run(n);
  double t1 = now_ns();
  long long expected = (long long)n * (n - 1) / 2;
  if (sum != expected) {
    fprintf(stderr, "bench: %s: the %ld values sum to %lld, expected %lld: the generator is broken\n",
            r->name, n, sum, expected);
    exit(1);
  }
  checksum += sum;
  return (t1 - t0) / (double)n;
}

/* The largest of 1, 2, 5 x 10^k that is at most x (at least `lo`). */
static long round_down_nice(double x, long lo) {
  long best = lo;
  for (long p = 1; p <= 1000000000L; p *= 10) {
    long steps[] = {p, 2 * p, 5 * p};
    for (int i = 0; i < 3; i++)
      if (steps[i] <= x && steps[i] > best)
        best = steps[i];
  }
  return best;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v. */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int reps = 11;

static void summarize(struct row *r) {
  double s[MAX_REPS];
  memcpy(s, r->ns, sizeof(double) * (size_t)reps);
  r->median = median(s, reps);
  r->min = s[0];
  r->max = s[reps - 1];
}

/* The value of the first line of /proc/cpuinfo that starts with key, or "". */
static void cpuinfo_field(const char *key, char *buf, size_t size) {
  buf[0] = 0;
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  size_t n = strlen(key);
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (colon && !strncmp(line, key, n) && (line[n] == ' ' || line[n] == '\t' || line[n] == ':')) {
      colon++;
      while (*colon == ' ' || *colon == '\t')
        colon++;
      colon[strcspn(colon, "\n")] = 0;
      snprintf(buf, size, "%s", colon);
      break;
    }
  }
  fclose(f);
}

/* The processor, for the header of the table: its vendor and model, and on
   x86 its family and model numbers (a virtual machine often shows only "AMD
   EPYC": family 25 model 17 says Zen 4). The vendor matters here: how a
   return after a stack switch is predicted differs between them. */
static void cpu_name(char *buf, size_t size) {
  char vendor[64], name[256], family[16], model[16];
  cpuinfo_field("vendor_id", vendor, sizeof vendor);
  cpuinfo_field("model name", name, sizeof name);
  cpuinfo_field("cpu family", family, sizeof family);
  cpuinfo_field("model", model, sizeof model);
  if (!name[0])
    cpuinfo_field("CPU part", name, sizeof name);   /* arm64: no model name, a part number */
  if (!name[0])
    cpuinfo_field("Processor", name, sizeof name);
  if (!name[0])
    snprintf(name, sizeof name, "unknown processor");
  if (vendor[0] && family[0])
    snprintf(buf, size, "%s (vendor %s, family %s model %s)", name, vendor, family, model);
  else if (vendor[0])
    snprintf(buf, size, "%s (vendor %s)", name, vendor);
  else
    snprintf(buf, size, "%s", name);
}

/* The load average now ("1.20 1.05 0.98"), or "?". */
static void load_average(char *buf, size_t size) {
  snprintf(buf, size, "?");
  FILE *f = fopen("/proc/loadavg", "r");
  if (!f)
    return;
  double a, b, c;
  if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
    snprintf(buf, size, "%.2f %.2f %.2f", a, b, c);
  fclose(f);
}

static void usage(FILE *to) {
  fprintf(to, "usage: coroc_bench [--reps R] [--n N] [--only WORD] [--table generator|chain|create|many]\n"
              "  --reps R     repetitions per row, 1..%d (default 11); the figure is their median\n"
              "  --n N        round trips (resumes) per repetition, at most (default 10000000;\n"
              "               slow rows get fewer)\n"
              "  --only WORD  run only the rows whose name contains WORD (for a profiler)\n"
              "  --table T    only the table of part 1 (generator), 2 (chain), 5 (create) or 6 (many)\n",
          MAX_REPS);
}

/* Row a against row b: the median of the paired ratios of the repetitions;
   -1 when one of them did not run. */
static double ratio(int a, int b) {
  if (!rows[a].run || !rows[b].run)
    return -1;
  double q[MAX_REPS];
  for (int i = 0; i < reps; i++)
    q[i] = rows[a].ns[i] / rows[b].ns[i];
  return median(q, reps);
}

/* What no switch that keeps each side's FP environment can go below: it
   must read the running side's MXCSR at each of a round trip's two
   switches (user code may have set it, with _mm_setcsr as with fesetenv),
   and only stmxcsr reads it. On an AMD EPYC of family 26 one stmxcsr after
   another took 4.1 ns, where ldmxcsr, fnstcw and fldcw each took a cycle
   or two: the two reads alone are 0.74x boost.context's round trip there
   (which reads it too). Printed beside the target, which cannot be met
   where this floor is above it. */
static void print_fpenv_floor(void) {
#if defined(__x86_64__)
  if (!rows[FCONTEXT].run)
    return;
  enum { FLOOR_N = 2000000 };
  double ns[MAX_REPS];
  unsigned mxcsr[2];
  for (int i = 0; i < reps; i++) {
    double t0 = now_ns();
    for (long k = 0; k < FLOOR_N; k++)
      __asm__ volatile("stmxcsr %0\n\tstmxcsr %1" : "=m"(mxcsr[0]), "=m"(mxcsr[1]));
    ns[i] = (now_ns() - t0) / FLOOR_N;
  }
  double floor_ns = median(ns, reps);
  printf("  (its floor here: two stmxcsr a round trip, which any switch keeping its own FP "
         "environment needs, %.2f ns, %.2fx boost.context's median)\n",
         floor_ns, floor_ns / rows[FCONTEXT].median);
#endif
}

/* What no stackless generator of part 1 can go below: the counter lives in
   the frame between resumes, so each round trip loads what the last one
   stored, adds one and stores it again, and the next load waits for that
   store (store-to-load forwarding, several cycles). The hand-written
   machine and the C++20 generator pay the same chain; where all three are
   at it, their ratios are 1.00 within the noise. Printed beside the target
   against C++20 (measured with the counter in memory, as the asm says). */
static void print_stackless_floor(void) {
#if defined(__x86_64__)
  if (!rows[CXX20].run)
    return;
  enum { FLOOR_N = 10000000 };
  double ns[MAX_REPS];
  int counter = 0;
  for (int i = 0; i < reps; i++) {
    double t0 = now_ns();
    for (long k = 0; k < FLOOR_N; k++)
      __asm__ volatile("movl %0, %%eax\n\taddl $1, %%eax\n\tmovl %%eax, %0" : "+m"(counter)::"eax");
    ns[i] = (now_ns() - t0) / FLOOR_N;
  }
  double floor_ns = median(ns, reps);
  printf("  (its floor here: the counter's load, add and store through memory, one a round trip, "
         "which all three machines pay, %.2f ns, %.2fx the C++20 generator's median)\n",
         floor_ns, floor_ns / rows[CXX20].median);
#endif
}

static void print_target(const char *what, int a, int b, double target) {
  double q = ratio(a, b);
  if (q < 0) {
    const struct row *missing = rows[a].run ? &rows[b] : &rows[a];
    if (missing->skipped)
      printf("  %-36s not measured: %s skipped (--only)\n", what, missing->name);
    else
      printf("  %-36s not measured: %s not built (%s)\n", what, missing->name, missing->not_built);
    return;
  }
  printf("  %-36s %5.2f   target <= %.2f   %-7s  (ratio of the medians: %.2f)\n", what, q, target,
         q <= target ? "met" : "NOT met", rows[a].median / rows[b].median);
}

/* {==================================================================
 * The first table: the round trip of a generator
 * =================================================================== */

/* Warm up every row (page faults, caches, branch predictors, the
   processor's clock) and size its N from the warm-up's speed; then the
   repetitions, interleaved across the rows. */
static void measure_generators(long max_n) {
  for (int j = 0; j < NROWS; j++) {
    struct row *r = &rows[run_order[j]];
    if (!r->run)
      continue;
    long cal = max_n < CALIBRATION_N ? max_n : CALIBRATION_N;
    measure(r, cal);
    double ns = measure(r, cal);
    r->n = round_down_nice(target_rep_seconds * 1e9 / ns, cal);
    if (r->n > max_n)
      r->n = max_n;
    measure(r, r->n);
  }
  for (int i = 0; i < reps; i++)
    for (int j = 0; j < NROWS; j++) {
      struct row *r = &rows[run_order[j]];
      if (r->run)
        r->ns[i] = measure(r, r->n);
    }
  for (int k = 0; k < NROWS; k++)
    if (rows[k].run)
      summarize(&rows[k]);
}

static void print_generators(void) {
  printf("1. The round trip of a generator (resume, receive one int)\n");
  printf("ns per round trip: median of %d interleaved repetitions; ratio: median of the paired ratios\n\n",
         reps);
  printf("| %-28s | %10s | %10s | %15s | %-22s |\n", "variant", "N per rep", "median ns", "min..max ns",
         "ratio");
  printf("|%.30s|%.12s|%.12s|%.17s|%.24s|\n", "------------------------------", "-----------:",
         "-----------:", "----------------:", "------------------------");
  for (int k = 0; k < NROWS; k++) {
    struct row *r = &rows[k];
    if (!r->run) {
      printf("| %-28s | %10s | %10s | %15s | %-22s |\n", r->name, "-", r->skipped ? "skipped" : "not built",
             "-", "-");
      continue;
    }
    char range[32], rel[64] = "-";
    snprintf(range, sizeof range, "%.2f..%.2f", r->min, r->max);
    if (k == HAND || k == FCONTEXT)
      snprintf(rel, sizeof rel, "1.00 (baseline)");
    else if ((k == STACKLESS || k == CXX20) && rows[HAND].run)
      snprintf(rel, sizeof rel, "%.2f x hand-written", ratio(k, HAND));
    else if (rows[FCONTEXT].run)
      snprintf(rel, sizeof rel, "%.2f x boost.context", ratio(k, FCONTEXT));
    printf("| %-28s | %10ld | %10.2f | %15s | %-22s |\n", r->name, r->n, r->median, range, rel);
  }
  int first_note = 1;
  for (int k = 0; k < NROWS; k++)
    if (!rows[k].run && !rows[k].skipped) {
      printf("%s%s: not built: %s\n", first_note ? "\n" : "", rows[k].name, rows[k].not_built);
      first_note = 0;
    }
  printf("\ntargets (median of the paired ratios of this run):\n");
  print_target("stackless / hand-written", STACKLESS, HAND, 1.10);
  print_target("stackless / C++20 generator", STACKLESS, CXX20, 1.00);
  print_stackless_floor();
  print_target("stackful (" BENCH_STACKFUL_SWITCH ") / boost.context", STACKFUL, FCONTEXT, 0.60);
  print_target("stackful, own FP env / boost.context", STACKFUL_FPENV, FCONTEXT, 0.70);
  print_fpenv_floor();
}

/* Tracing on: the stackless row with a trace recorded, paired with the row
   untraced right before it in each repetition. A round trip records two
   events (its run's begin and end, around the call: nothing inside the
   body), so half the difference is an event's cost. N stays below the
   trace's cap (a thread's first million events), so that every event is
   recorded and none dropped; the file goes to /dev/null, written by
   coro_trace_stop after the timed loop. Not in the checksum: the rows above
   make the same one whatever libcoro measures this. */
#ifdef CORO_TRACE_ON
enum { TRACED_N = 400000 };

static double traced_once(int traced) {
  if (traced && coro_trace_start("/dev/null") != 0)
    return -1;
  double t0 = now_ns();
  long long sum = bench_run_stackless(TRACED_N);
  double t1 = now_ns();
  if (traced)
    coro_trace_stop();
  if (sum != (long long)TRACED_N * (TRACED_N - 1) / 2) {
    fprintf(stderr, "bench: coroc stackless, traced: wrong sum %lld\n", sum);
    exit(1);
  }
  return (t1 - t0) / TRACED_N;
}

static void print_traced(void) {
  if (!rows[STACKLESS].run)
    return;
  double plain[MAX_REPS], traced[MAX_REPS], event[MAX_REPS], q[MAX_REPS];
  traced_once(0);
  if (traced_once(1) < 0) {
    printf("\ntracing on: not measured (coro_trace_start failed)\n");
    return;
  }
  for (int i = 0; i < reps; i++) {
    plain[i] = traced_once(0);
    traced[i] = traced_once(1);
    event[i] = (traced[i] - plain[i]) / 2;
    q[i] = traced[i] / plain[i];
  }
  double ev = median(event, reps), ratio_traced = median(q, reps);
  double tmed = median(traced, reps), pmed = median(plain, reps);
  printf("\ntracing on (a trace recorded to /dev/null; N = %d, under its cap):\n", TRACED_N);
  printf("| %-28s | %10d | %10.2f | %15s | %-22s |\n", "coroc stackless, untraced", TRACED_N, pmed,
         "-", "1.00 (baseline)");
  char range[32], rel[64];
  snprintf(range, sizeof range, "%.2f..%.2f", traced[0], traced[reps - 1]);
  snprintf(rel, sizeof rel, "%.2f x untraced", ratio_traced);
  printf("| %-28s | %10d | %10.2f | %15s | %-22s |\n", "coroc stackless, traced", TRACED_N, tmed,
         range, rel);
  printf("  %-36s %5.1f   target <= 25 ns  %-7s  (two events a round trip; median of the paired "
         "differences)\n",
         "ns per event", ev, ev <= 25 ? "met" : "NOT met");
}
#else
static void print_traced(void) {}
#endif

/* }================================================================== */

/* {==================================================================
 * The second table: a task resumed at the bottom of a chain of awaits
 *
 * chain.coc spawns a chain `depth` awaits deep whose innermost task does
 * `yield;` N times, and runs the scheduler until it is empty. A figure is
 * the time of that whole call divided by N: ns per resume of the leaf
 * (each one is: the leaf puts itself at the back of the ready queue and
 * suspends, the scheduler takes it off the queue and resumes it). Creating
 * the depth + 1 tasks and returning up the chain at the end are in the time
 * too, spread over the N resumes, which makes them vanish. Depth 0 is the
 * leaf spawned alone, with no await.
 *
 * The two depths of the target are measured back to back in every
 * repetition (depth 1, depth 16, depth 0, then the other backend), with
 * the same N, and the ratio is the median of the paired ratios, as in the
 * first table. Target: depth 16 at most twice depth 1.
 * =================================================================== */

enum { CHAIN_BACKENDS = 2, CHAIN_DEPTHS = 3 };
static const int chain_depths[CHAIN_DEPTHS] = {1, 16, 0};   /* order of measurement */
static const int chain_deep = 1, chain_shallow = 0;          /* indexes of the target's two */
static const double chain_target = 2.0;

struct chain_backend {
  const char *name;
  bench_chain_fn *run;     /* NULL: not built, or skipped */
  const char *not_built;   /* why, when run is NULL and not skipped */
  int skipped;             /* built, but left out by --only */
  long n;                  /* resumes of the leaf per repetition, the same at every depth */
  struct row depth[CHAIN_DEPTHS];   /* .ns and the summary; the names and .run are unused */
};

static struct chain_backend chains[CHAIN_BACKENDS] = {
  {.name = "coroc stackless", .run = bench_chain_stackless},
#if BENCH_HAVE_STACKFUL
  {.name = "coroc stackful (" BENCH_STACKFUL_SWITCH ")", .run = bench_chain_stackful},
#else
  {.name = "coroc stackful (" BENCH_STACKFUL_SWITCH ")", .not_built = BENCH_STACKFUL_MISSING},
#endif
};

/* One timed call: ns per resume of the leaf. A wrong count ends the program. */
static double measure_chain(const struct chain_backend *b, int depth, long n) {
  double t0 = now_ns();
  long long resumes = b->run(depth, n);
  double t1 = now_ns();
  if (resumes != n) {
    fprintf(stderr, "bench: %s, chain %d awaits deep: %lld resumes of the leaf, expected %ld: the chain is "
            "broken\n", b->name, depth, resumes, n);
    exit(1);
  }
  return (t1 - t0) / (double)n;
}

/* N from the speed at depth 1, as in the first table; every depth once with
   it as a further warm-up; then the repetitions. */
static void measure_chains(long max_n) {
  for (int k = 0; k < CHAIN_BACKENDS; k++) {
    struct chain_backend *b = &chains[k];
    if (!b->run)
      continue;
    long cal = max_n < CALIBRATION_N ? max_n : CALIBRATION_N;
    measure_chain(b, chain_depths[0], cal);
    double ns = measure_chain(b, chain_depths[0], cal);
    b->n = round_down_nice(target_rep_seconds * 1e9 / ns, cal);
    if (b->n > max_n)
      b->n = max_n;
    for (int d = 0; d < CHAIN_DEPTHS; d++)
      measure_chain(b, chain_depths[d], b->n);
  }
  for (int i = 0; i < reps; i++)
    for (int k = 0; k < CHAIN_BACKENDS; k++)
      for (int d = 0; d < CHAIN_DEPTHS; d++)
        if (chains[k].run)
          chains[k].depth[d].ns[i] = measure_chain(&chains[k], chain_depths[d], chains[k].n);
  for (int k = 0; k < CHAIN_BACKENDS; k++)
    for (int d = 0; d < CHAIN_DEPTHS; d++)
      if (chains[k].run)
        summarize(&chains[k].depth[d]);
}

/* Depth index d of backend b against depth 1: the median of the paired ratios. */
static double chain_ratio(const struct chain_backend *b, int d) {
  double q[MAX_REPS];
  for (int i = 0; i < reps; i++)
    q[i] = b->depth[d].ns[i] / b->depth[chain_shallow].ns[i];
  return median(q, reps);
}

static void print_chains(void) {
  printf("2. A task resumed at the bottom of a chain of awaits (the leaf does `yield;` N times)\n");
  printf("ns per resume of the leaf: time of coro_run / N, median of %d interleaved repetitions;\n"
         "ratio: median of the paired ratios to depth 1 of the same backend\n\n", reps);
  printf("| %-28s | %5s | %10s | %10s | %15s | %-22s |\n", "backend", "depth", "N per rep", "median ns",
         "min..max ns", "ratio");
  printf("|%.30s|%.7s|%.12s|%.12s|%.17s|%.24s|\n", "------------------------------", "------:",
         "-----------:", "-----------:", "----------------:", "------------------------");
  static const int show[CHAIN_DEPTHS] = {2, 0, 1};   /* depths 0, 1, 16 */
  for (int k = 0; k < CHAIN_BACKENDS; k++) {
    const struct chain_backend *b = &chains[k];
    for (int j = 0; j < CHAIN_DEPTHS; j++) {
      int d = show[j];
      if (!b->run) {
        printf("| %-28s | %5d | %10s | %10s | %15s | %-22s |\n", b->name, chain_depths[d], "-",
               b->skipped ? "skipped" : "not built", "-", "-");
        continue;
      }
      const struct row *r = &b->depth[d];
      char range[32], rel[64];
      snprintf(range, sizeof range, "%.2f..%.2f", r->min, r->max);
      if (d == chain_shallow)
        snprintf(rel, sizeof rel, "1.00 (baseline)");
      else
        snprintf(rel, sizeof rel, "%.2f x depth 1", chain_ratio(b, d));
      printf("| %-28s | %5d | %10ld | %10.2f | %15s | %-22s |\n", b->name, chain_depths[d], b->n, r->median,
             range, rel);
    }
  }
  printf("\ntargets (median of the paired ratios of this run):\n");
  for (int k = 0; k < CHAIN_BACKENDS; k++) {
    const struct chain_backend *b = &chains[k];
    char what[96];
    snprintf(what, sizeof what, "%s: depth 16 / depth 1", b->name + strlen("coroc "));
    if (!b->run) {
      printf("  %-36s not measured: %s\n", what, b->skipped ? "skipped (--only)" : b->not_built);
      continue;
    }
    double q = chain_ratio(b, chain_deep);
    printf("  %-36s %5.2f   target <= %.2f   %-7s  (ratio of the medians: %.2f)\n", what, q, chain_target,
           q <= chain_target ? "met" : "NOT met", b->depth[chain_deep].median / b->depth[chain_shallow].median);
  }
}

/* }================================================================== */

/* {==================================================================
 * The third table (part 5): creating and freeing an instance
 *
 * libcoro takes a small frame from its thread's slabs (runtime/registry.c),
 * which are also the debugger's list of live instances. That is measured
 * against a copy of libcoro's creation and destruction from before, when
 * every frame was calloc'ed and freed, both with the same frame (create.c).
 * Target: creation plus destruction within 5% of before (no slower for
 * keeping the debugger's list).
 * =================================================================== */

enum { CREATE_BEFORE, CREATE_NOW, CREATE_ROWS };
static struct row creates[CREATE_ROWS] = {
  [CREATE_BEFORE] = ROW("calloc + free (copy)", bench_create_unlisted),
  [CREATE_NOW] = ROW("coro_frame_new + coro_free", bench_create_registered),
};
static const double create_target = 1.05;

static void measure_creates(long max_n) {
  for (int k = 0; k < CREATE_ROWS; k++) {
    struct row *r = &creates[k];
    if (!r->run)
      continue;
    long cal = max_n < CALIBRATION_N ? max_n : CALIBRATION_N;
    measure(r, cal);
    double ns = measure(r, cal);
    r->n = round_down_nice(target_rep_seconds * 1e9 / ns, cal);
    if (r->n > max_n)
      r->n = max_n;
  }
  if (creates[CREATE_NOW].run && creates[CREATE_BEFORE].run)   /* the same N: paired repetitions */
    creates[CREATE_NOW].n = creates[CREATE_BEFORE].n;
  for (int i = 0; i < reps; i++)
    for (int k = 0; k < CREATE_ROWS; k++)
      if (creates[k].run)
        creates[k].ns[i] = measure(&creates[k], creates[k].n);
  for (int k = 0; k < CREATE_ROWS; k++)
    if (creates[k].run)
      summarize(&creates[k]);
}

static void print_creates(void) {
  printf("5. Creating and freeing an instance (a small frame: the header, four ints, a pointer: 40 bytes)\n");
  printf("ns per creation + destruction: median of %d interleaved repetitions; ratio: median of the\n"
         "paired ratios to the copy of libcoro from when every frame was calloc'ed\n\n", reps);
  printf("| %-28s | %10s | %10s | %15s | %-22s |\n", "variant", "N per rep", "median ns", "min..max ns",
         "ratio");
  printf("|%.30s|%.12s|%.12s|%.17s|%.24s|\n", "------------------------------", "-----------:",
         "-----------:", "----------------:", "------------------------");
  int both = creates[CREATE_NOW].run && creates[CREATE_BEFORE].run;
  double q[MAX_REPS], ratio_now = -1;
  if (both) {
    for (int i = 0; i < reps; i++)
      q[i] = creates[CREATE_NOW].ns[i] / creates[CREATE_BEFORE].ns[i];
    ratio_now = median(q, reps);
  }
  for (int k = 0; k < CREATE_ROWS; k++) {
    const struct row *r = &creates[k];
    if (!r->run) {
      printf("| %-28s | %10s | %10s | %15s | %-22s |\n", r->name, "-", "skipped", "-", "-");
      continue;
    }
    char range[32], rel[64] = "-";
    snprintf(range, sizeof range, "%.2f..%.2f", r->min, r->max);
    if (k == CREATE_BEFORE)
      snprintf(rel, sizeof rel, "1.00 (baseline)");
    else if (both)
      snprintf(rel, sizeof rel, "%.2f x before", ratio_now);
    printf("| %-28s | %10ld | %10.2f | %15s | %-22s |\n", r->name, r->n, r->median, range, rel);
  }
  printf("\ntargets (median of the paired ratios of this run):\n");
  if (!both) {
    printf("  %-36s not measured: skipped (--only)\n", "slabs / calloc (before)");
    return;
  }
  printf("  %-36s %5.2f   target <= %.2f   %-7s  (ratio of the medians: %.2f)\n", "slabs / calloc (before)",
         ratio_now, create_target, ratio_now <= create_target ? "met" : "NOT met",
         creates[CREATE_NOW].median / creates[CREATE_BEFORE].median);
}

/* }================================================================== */

/* {==================================================================
 * The fourth table (part 6): many suspended stackful generators
 *
 * 30,000 generators on stacks of their own (the default), then 1,000,000 on
 * the shared stack (coro_set_shared_stack), each started and suspended in
 * its body at once; then one round-robin pass resumes each once, timed (ns
 * per resume). Every resume of the shared pass changes the instance on the
 * shared stack: the one before is copied out, this one copied back. The
 * resident memory is the whole process's with all of them suspended.
 * Target: a million on the shared stack within 1.5 GiB.
 * =================================================================== */

static long many_private = 30000, many_shared = 1000000;
static const double many_target_gib = 1.5;

static void run_many(void) {
#if BENCH_HAVE_STACKFUL
  struct bench_many priv, shared;
  printf("6. Many suspended stackful generators (each started, then one round-robin pass)\n\n");
  printf("| %-30s | %10s | %12s | %14s | %14s | %16s |\n", "stacks", "generators", "ns / resume",
         "RSS MiB", "RSS / generator", "copied / resume");
  printf("|%.32s|%.12s|%.14s|%.16s|%.16s|%.18s|\n", "--------------------------------", "-----------:",
         "-------------:", "---------------:", "---------------:", "-----------------:");
  int bad = bench_many_stackful(many_private, 0, &priv);
  printf("| %-30s | %10ld | %12.1f | %14.1f | %12.0f B | %14.0f B |\n", "private (default)", many_private,
         priv.ns_per_resume, priv.rss_kib / 1024.0,
         (priv.rss_kib - priv.rss_before_kib) * 1024.0 / (double)many_private, priv.copied_per_resume);
  bad |= bench_many_stackful(many_shared, 1, &shared);
  printf("| %-30s | %10ld | %12.1f | %14.1f | %12.0f B | %14.0f B |\n", "shared (coro_set_shared_stack)",
         many_shared, shared.ns_per_resume, shared.rss_kib / 1024.0,
         (shared.rss_kib - shared.rss_before_kib) * 1024.0 / (double)many_shared, shared.copied_per_resume);
  if (bad) {
    fprintf(stderr, "bench: a generator of the third table went wrong\n");
    exit(1);
  }
  double gib = shared.rss_kib / (1024.0 * 1024.0);
  printf("\ntarget:\n  %-36s %5.2f   target <= %.2f   %-7s  (GiB: the whole process)\n",
         "1,000,000 shared-stack: RSS GiB", gib, many_target_gib, gib <= many_target_gib ? "met" : "NOT met");
#else
  printf("6. Many suspended stackful generators: not built (%s)\n", BENCH_STACKFUL_MISSING);
#endif
}

/* }================================================================== */

/* Leave out the rows of every table whose name does not contain word. */
static void only(const char *word) {
  for (int k = 0; k < NROWS; k++)
    if (rows[k].run && !strstr(rows[k].name, word)) {
      rows[k].run = NULL;
      rows[k].skipped = 1;
    }
  for (int k = 0; k < CREATE_ROWS; k++)
    if (creates[k].run && !strstr(creates[k].name, word)) {
      creates[k].run = NULL;
      creates[k].skipped = 1;
    }
  for (int k = 0; k < CHAIN_BACKENDS; k++)
    if (chains[k].run && !strstr(chains[k].name, word)) {
      chains[k].run = NULL;
      chains[k].skipped = 1;
    }
}

int main(int argc, char **argv) {
  long max_n = 10000000;
  int tables = 15;   /* bit 0: generators; bit 1: chains; bit 2: creation; bit 3: many */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
      max_n = atol(argv[++i]);
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only(argv[++i]);
    } else if (!strcmp(argv[i], "--table") && i + 1 < argc) {
      const char *t = argv[++i];
      tables = !strcmp(t, "generator") ? 1 : !strcmp(t, "chain") ? 2 : !strcmp(t, "create") ? 4
             : !strcmp(t, "many") ? 8 : 0;
      if (!tables) {
        usage(stderr);
        return 2;
      }
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (reps < 1 || reps > MAX_REPS || max_n < 1) {
    usage(stderr);
    return 2;
  }

  char cpu[256], load[64];
  cpu_name(cpu, sizeof cpu);
  load_average(load, sizeof load);   /* before the runs, which add their own */
  if (tables & 1)
    measure_generators(max_n);
  if (tables & 2)
    measure_chains(max_n);
  if (tables & 4)
    measure_creates(max_n);
  printf("coroc benchmark (tests/bench): %s; compiler %s; load average %s before the runs\n\n", cpu,
         __VERSION__, load);
  if (tables & 1) {
    print_generators();
    if (!rows[STACKLESS].skipped)
      print_traced();
    printf("\nchecksum of every value received: %lld\n", checksum);
  }
  if (tables & 2) {
    if (tables & 1)
      printf("\n");
    print_chains();
  }
  if (tables & 4) {
    if (tables & 3)
      printf("\n");
    print_creates();
  }
  if (tables & 8) {   /* measured last: its million instances would change the others' heap */
    if (tables & 7)
      printf("\n");
    run_many();
  }
  return 0;
}
