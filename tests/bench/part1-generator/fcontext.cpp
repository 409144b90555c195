// fcontext.cpp: the reference for the stackful rows, boost.context's
// jump_fcontext (the assembly switch under boost::context::fiber), doing the
// same work as gen.coc: a generator of 0, 1, 2, ... on a stack of its own,
// resumed once per value, handing each value to the consumer's variable.
//
// Only the benchmark uses boost (Debian: libboost-context-dev, linked
// statically when libboost_context.a is there, as libcoro is).
//
// Per round trip: jump_fcontext into the generator carrying &v, the generator
// stores v and jump_fcontext back. boost saves and reloads MXCSR and the x87
// control word on every jump (its default build), which is the same state
// that coroc's switch keeps correct.
#include <boost/context/detail/fcontext.hpp>

#include <cstdio>
#include <cstdlib>

#include "bench.h"

namespace ctx = boost::context::detail;

namespace {

const std::size_t stack_size = 64 * 1024;

// The generator's body: runs on its own stack. t.data is where the consumer
// wants the value; t.fctx is the consumer's context to jump back to.
void count_body(ctx::transfer_t t) {
  for (int i = 0;; i++) {
    *static_cast<int *>(t.data) = i;    // yield i: store it...
    t = ctx::jump_fcontext(t.fctx, 0);  // ...and switch back; the next resume returns here
  }
}

}  // namespace

extern "C" long long bench_run_fcontext(long n) {
  void *stack = std::malloc(stack_size);
  if (!stack) {
    std::fputs("bench: out of memory\n", stderr);
    std::exit(1);
  }
  // make_fcontext takes the top of the stack: it grows down.
  ctx::fcontext_t gen = ctx::make_fcontext(static_cast<char *>(stack) + stack_size, stack_size, count_body);
  long long sum = 0;
  int v;
  while (n-- > 0) {
    ctx::transfer_t t = ctx::jump_fcontext(gen, &v);  // resume; returns when the body has stored v
    gen = t.fctx;                                     // where the body goes on next time
    sum += v;
  }
  // The body is left suspended, like a coro_t freed before its end: its
  // stack holds nothing that needs cleaning up.
  std::free(stack);
  return sum;
}
