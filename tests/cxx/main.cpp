// main.cpp: a C++ program that makes and runs coroutines written in a .coc
// (coroutines.coc, built as C with either backend), through <coro.h> and the
// header that `coroc --header` wrote for it (tests/test_cxx.py builds it with
// g++ and clang++, -std=c++17 and c++20, -Wall -Wextra -Werror).
//
//   main.cpp             generators (coro_next), tasks (coro_spawn + coro_run,
//                        and coro_run_ready), instances in storage of the
//                        program's (CORO_FRAME, coro_in_NAME); every result
//                        checked against the same computed in C++
//   main.cpp throw-next  cxx_visit throws out of a body that coro_next resumes,
//   main.cpp throw-run   ... that coro_run resumes,
//   main.cpp throw-ready ... that coro_run_ready resumes: each must end in
//                        std::terminate (the handler below says so and exits
//                        70), never in main's catch with the instance and the
//                        scheduler left half way (docs/hosts.md, "From C++").
#include <coro.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <poll.h>
#include <unistd.h>
#include <vector>

extern "C" {
#include "coroutines.h"  // written by coroc --header: plain C, so C linkage
}

static bool throw_in_visit;
static std::vector<int> visited;

// Called by visit's body in C. An exception that stays inside it is C++'s
// business; one that leaves it would cross the body's C frames.
extern "C" void cxx_visit(int value) {
  try {
    if (value % 2)
      throw std::runtime_error("odd");  // thrown and caught here: fine
    visited.push_back(value);
  } catch (const std::runtime_error &) {
    visited.push_back(-value);
  }
  if (throw_in_visit && value == 2)
    throw std::runtime_error("thrown through a coroutine body");
}

static void check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "main.cpp: %s: wrong\n", what);
    std::exit(1);
  }
  std::printf("%s: ok\n", what);
}

static std::vector<long> fib_cxx(int n) {
  std::vector<long> v;
  long a = 0, b = 1;
  for (int i = 0; i < n; i++, b = a + b, a = b - a)
    v.push_back(a);
  return v;
}

// Generators: on the heap, and in storage of the program's (a member of a
// C++ struct, an std::array of frames), through the header's CORO_FRAME.
static void generators() {
  std::vector<long> got;
  long v;
  coro_t *g = fib(30);
  while (coro_next(g, &v))
    got.push_back(v);
  check(coro_done(g), "fib ends done");
  coro_free(g);
  check(got == fib_cxx(30), "fib(30) on the heap");

  struct holder {
    int id;
    CORO_FRAME(fib) frame;
  } h{7, {}};
  std::array<CORO_FRAME(fib), 3> frames{};
  std::array<coro_t *, 3> gens{};
  for (size_t i = 0; i < gens.size(); i++)
    gens[i] = coro_in_fib(&frames[i], (int)(10 + i));
  coro_t *mine = coro_in_fib(&h.frame, 12);
  got.clear();
  while (coro_next(mine, &v))  // interleaved with the others
    for (coro_t *o : gens)
      if (coro_next(o, &v))
        got.push_back(v);
  coro_free(mine);
  for (coro_t *o : gens)
    coro_free(o);
  std::vector<long> want;
  for (int step = 0; step < 12; step++)
    for (size_t i = 0; i < gens.size(); i++)
      if (step < (int)(10 + i))
        want.push_back(fib_cxx(30)[step]);
  check(h.id == 7 && got == want, "fib in CORO_FRAME storage, a struct member and std::array");
}

// Tasks: a producer and a consumer over a channel, run by coro_run, then the
// same by a loop of coro_run_ready.
static void tasks(bool by_run_ready) {
  struct coro_chan *ch = CORO_CHAN_NEW(long, 0);
  long total = -1;
  coro_spawn(collatz(27, ch));
  coro_spawn(gather(ch, &total));
  if (by_run_ready) {
    while (coro_run_ready(nullptr) > 0) {  // wait as coro_sched_fd and the timeout say
      struct pollfd p = {coro_sched_fd(), POLLIN, 0};
      (void)poll(&p, 1, coro_sched_timeout());
    }
  } else {
    check(coro_run() == 0, "coro_run returns 0");
  }
  coro_chan_free(ch);
  long want = 0;
  for (long x = 27; x != 1; x = x % 2 ? 3 * x + 1 : x / 2)
    want += x;
  want += 1;
  check(total == want, by_run_ready ? "collatz(27) summed, by coro_run_ready"
                                    : "collatz(27) summed over a channel, by coro_run");
}

static void visits() {
  visited.clear();
  int v, n = 0;
  coro_t *g = visit(5);
  while (coro_next(g, &v))
    check(v == n++, "visit yields in order");
  coro_free(g);
  check(visited == std::vector<int>{0, -1, 2, -3, 4},
        "an exception thrown and caught inside the C++ callback");
}

// Throws through a body: a helper without any exception handling of its
// own between main's try and the call, so only the call itself can stop it.
static void drive(const char *how) {
  throw_in_visit = true;
  if (!std::strcmp(how, "throw-next")) {
    coro_t *g = visit(5);
    int v;
    while (coro_next(g, &v))
      ;
  } else if (!std::strcmp(how, "throw-run")) {
    coro_spawn(visit_task(5));
    (void)coro_run();
  } else {
    coro_spawn(visit_task(5));
    while (coro_run_ready(nullptr) > 0)
      ;
  }
}

static void on_terminate() {
  std::string what = "?";
  try {
    if (std::current_exception())
      std::rethrow_exception(std::current_exception());
  } catch (const std::exception &e) {
    what = e.what();
  } catch (...) {
  }
  std::printf("std::terminate: %s\n", what.c_str());
  std::fflush(stdout);
  _exit(70);
}

int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc > 1) {
    std::set_terminate(on_terminate);
    try {
      drive(argv[1]);
      std::printf("no exception\n");
    } catch (const std::exception &e) {
      std::printf("caught in main: %s\n", e.what());  // what must not happen
    }
    return 0;
  }
  generators();
  tasks(false);
  tasks(true);
  visits();
  std::printf("OK\n");
  return 0;
}
