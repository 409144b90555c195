/* bench.c: the speed benchmark of coroc's generators (docs/benchmarks.md).
 *
 * Measures the round trip of a generator, resume it and receive one int, in
 * five builds of the same work, all in one run of this program:
 *
 *   hand-written      a switch state machine in plain C (baseline of stackless)
 *   stackless         gen.coc through coroc --backend=stackless
 *   stackful          gen.coc through coroc --backend=stackful, libcoro's assembly switch
 *   stackful/ucontext the same, against libcoro built with COROC_SWITCH=ucontext
 *   boost.context     jump_fcontext (baseline of stackful)
 *
 * Method: each row is warmed up, then given a number of round trips N per
 * repetition (10^7, fewer for a slow row so that one repetition stays near
 * 50 ms). The repetitions are interleaved (row 1, row 2, ..., row 1, ...),
 * each timed with CLOCK_MONOTONIC, and a row's figure is the median over the
 * repetitions of ns per round trip.
 *
 * A ratio compares a row with its baseline measured right before it in the
 * same repetition (hand-written then stackless, boost.context then stackful):
 * it is the median over the repetitions of these paired ratios. On a shared
 * machine the speed of the processor changes from one moment to the next
 * (other processes, a hyperthread sibling, the clock), and a pair measured
 * back to back sees nearly the same machine, so the paired ratio is much
 * steadier than either time. The ratio of the two medians is printed beside
 * it for the targets.
 *
 * This is a program that prints figures, not a test: it exits 0 whatever the
 * times are, and says whether each target is met. It fails only when a row
 * computes a wrong sum (a broken generator, not a slow one).
 *
 * Usage: coroc_bench [--reps R] [--n N] [--only WORD]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

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

enum { HAND, STACKLESS, STACKFUL, UCONTEXT, FCONTEXT, NROWS };

/* The order of measurement in a repetition: each baseline right before the
   rows compared with it. (The table shows the rows in enum order.) */
static const int run_order[NROWS] = {HAND, STACKLESS, FCONTEXT, STACKFUL, UCONTEXT};

#define ROW(label, fn) {.name = (label), .run = (fn)}
#define MISSING(label, why) {.name = (label), .not_built = (why)}
static struct row rows[NROWS] = {
  [HAND] = ROW("hand-written switch (C)", bench_run_handwritten),
  [STACKLESS] = ROW("coroc stackless", bench_run_stackless),
#if BENCH_HAVE_STACKFUL
  [STACKFUL] = ROW("coroc stackful (" BENCH_STACKFUL_SWITCH ")", bench_run_stackful),
#else
  [STACKFUL] = MISSING("coroc stackful (" BENCH_STACKFUL_SWITCH ")", BENCH_STACKFUL_MISSING),
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

/* The processor's name, for the header of the table. */
static void cpu_name(char *buf, size_t size) {
  snprintf(buf, size, "unknown processor");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (colon && (!strncmp(line, "model name", 10) || !strncmp(line, "CPU part", 8) ||
                  !strncmp(line, "Processor", 9))) {
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

static void usage(FILE *to) {
  fprintf(to, "usage: coroc_bench [--reps R] [--n N] [--only WORD]\n"
              "  --reps R     repetitions per row, 1..%d (default 11); the figure is their median\n"
              "  --n N        round trips per repetition (default 10000000; slow rows get fewer)\n"
              "  --only WORD  run only the rows whose name contains WORD (for a profiler)\n",
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

int main(int argc, char **argv) {
  long max_n = 10000000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
      max_n = atol(argv[++i]);
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      const char *word = argv[++i];
      for (int k = 0; k < NROWS; k++)
        if (rows[k].run && !strstr(rows[k].name, word)) {
          rows[k].run = NULL;
          rows[k].skipped = 1;
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

  /* Warm up every row (page faults, caches, branch predictors, the
     processor's clock) and size its N from the warm-up's speed. */
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

  /* The measurement: repetitions interleaved across the rows. */
  for (int i = 0; i < reps; i++)
    for (int j = 0; j < NROWS; j++) {
      struct row *r = &rows[run_order[j]];
      if (r->run)
        r->ns[i] = measure(r, r->n);
    }
  for (int k = 0; k < NROWS; k++)
    if (rows[k].run)
      summarize(&rows[k]);

  char cpu[256];
  cpu_name(cpu, sizeof cpu);
  printf("coroc benchmark: generator round trip (resume, receive one int)\n");
  printf("%s; %s\n", cpu, "compiler " __VERSION__);
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
    else if (k == STACKLESS && rows[HAND].run)
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
  print_target("stackful (" BENCH_STACKFUL_SWITCH ") / boost.context", STACKFUL, FCONTEXT, 0.50);
  printf("\nchecksum of every value received: %lld\n", checksum);
  return 0;
}
