/* cxx20_gen.h: the C++20 row of part 1, the same generator as gen.coc's
 * `for (int i = 0;; i++) yield i;` written as a C++20 coroutine, the
 * minimal generator type that C++ programmers write (or take from a library:
 * std::generator of C++23 has the same shape).
 *
 * The coroutine is in cxx20_gen.cpp and the consuming loop in cxx20_run.cpp,
 * as the hand-written row's are in two files: the loop cannot see the body,
 * so h.resume() stays an indirect call through the frame, as coro_next's
 * call through the header is. (In one file, clang may elide the frame and
 * inline the body: that is the no-allocation case, a benchmark of its own.)
 */
#ifndef BENCH_CXX20_GEN_H
#define BENCH_CXX20_GEN_H

#include <coroutine>
#include <exception>

struct cxx20_gen {
  struct promise_type {
    int value;
    cxx20_gen get_return_object() {
      return cxx20_gen{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(int v) noexcept {
      value = v;
      return {};
    }
    void return_void() noexcept {}
    void unhandled_exception() { std::terminate(); }
  };
  std::coroutine_handle<promise_type> h;
};

cxx20_gen cxx20_count();   /* 0, 1, 2, ... without end */

#endif /* BENCH_CXX20_GEN_H */
