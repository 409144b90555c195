/* bench.h: what each row of the benchmark provides to the driver (bench.c):
 * the rows of parts 1, 2, 5 and 6, each in its part's folder (tests/bench/partN-NAME).
 *
 * The first table, the round trip of a generator. A row is one function:
 * make a generator of 0, 1, 2, ..., receive n values from it one round trip
 * at a time, release it, and return the sum of the values. The driver times
 * the call and checks the sum (n(n-1)/2), so the compiler can drop neither
 * the loop nor the values.
 *
 * Each function lives in its own translation unit (or several), and nothing
 * is built with link-time optimization: the driver's call is opaque, and so
 * is each round trip inside (an indirect call the compiler cannot see
 * through, exactly as a consumer of a coro_t * cannot know which body it
 * resumes).
 */
#ifndef BENCH_H
#define BENCH_H

#ifdef __cplusplus
extern "C" {
#endif

typedef long long bench_run_fn(long n);

bench_run_fn bench_run_handwritten;        /* part1-generator/handwritten.c + handwritten_run.c */
bench_run_fn bench_run_stackless;          /* part1-generator/gen.coc, --backend=stackless */
bench_run_fn bench_run_stackful;           /* part1-generator/gen.coc, --backend=stackful, libcoro as built */
bench_run_fn bench_run_stackful_fpenv;     /* the same, each instance keeping its own FP environment */
bench_run_fn bench_run_stackful_ucontext;  /* part1-generator/gen.coc, --backend=stackful, libcoro with COROC_SWITCH=ucontext */
bench_run_fn bench_run_fcontext;           /* part1-generator/fcontext.cpp: boost.context's jump_fcontext */
bench_run_fn bench_run_cxx20;              /* part1-generator/cxx20_gen.cpp + cxx20_run.cpp: a C++20 coroutine */

/* The second table: a task resumed at the bottom of a chain of awaits
   (part2-chain/chain.coc). Spawn a chain `depth` awaits deep whose innermost task does
   `yield;` n times, run the scheduler until it is empty, and return n (the
   resumes the leaf got), or -1 when the chain went wrong. */
typedef long long bench_chain_fn(int depth, long n);

bench_chain_fn bench_chain_stackless;      /* chain.coc, --backend=stackless */
bench_chain_fn bench_chain_stackful;       /* chain.coc, --backend=stackful */

/* Part 5: create and free n instances of a small frame, and return
   0 + 1 + ... + (n-1) (part5-create/create.c). */
bench_run_fn bench_create_registered;      /* coro_frame_new + coro_free, as libcoro is */
bench_run_fn bench_create_unlisted;        /* the same as libcoro was before its registry (part5-create/create_before.c) */

/* The fourth table (part 6): n stackful generators suspended at once, on stacks of
   their own or on the shared stack (coro_set_shared_stack); one round-robin
   pass over them timed. 0, or -1 when a generator went wrong. */
struct bench_many {
  double ns_per_resume;      /* the pass: time / n */
  long rss_before_kib;       /* the process's resident memory before the generators were made */
  long rss_kib;              /* and with all of them suspended */
  double copied_per_resume;  /* bytes the shared stack copied (out and in) per resume of the pass */
};
typedef int bench_many_fn(long n, int shared, struct bench_many *out);

bench_many_fn bench_many_stackful;         /* part6-many/many.coc, --backend=stackful */

#ifdef __cplusplus
}
#endif

#endif /* BENCH_H */
