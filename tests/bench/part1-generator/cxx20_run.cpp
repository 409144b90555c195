/* cxx20_run.cpp: the consuming loop of the C++20 row, the same loop as
 * gen.coc's: resume, take the value the body yielded (cxx20_gen.h). */
#include "cxx20_gen.h"

extern "C" long long bench_run_cxx20(long n);

long long bench_run_cxx20(long n) {
  cxx20_gen g = cxx20_count();
  long long sum = 0;
  while (n-- > 0) {
    g.h.resume();
    if (g.h.done())
      break;
    sum += g.h.promise().value;
  }
  g.h.destroy();
  return sum;
}
