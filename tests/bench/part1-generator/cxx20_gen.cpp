/* cxx20_gen.cpp: the C++20 row's coroutine (cxx20_gen.h). */
#include "cxx20_gen.h"

cxx20_gen cxx20_count() {
  for (int i = 0;; i++)
    co_yield i;
}
