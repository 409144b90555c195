/* <coro/agen.h>: the async generators' part of the generated code's header.
 *
 * Not for users: <coro/gen.h> includes it at its end, on top of the task
 * headers, the awaitables and the stackful backend it declares; a file of
 * its own to keep each header one idea (and under the project's 1,000
 * lines a file).
 */
#ifndef CORO_AGEN_H
#define CORO_AGEN_H

#ifndef CORO_GEN_H
#error "include <coro.h>, which includes <coro/agen.h> through <coro/gen.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* {==================================================================
 * Async generators (runtime/agen.c; docs/abi.md, "Async generators")
 *
 * A generator that awaits has a task header, and its `result` points to
 * this record, in its frame (stackless) or its arguments (stackful). Its
 * body runs only as the child of the task that awaits coro_next_await:
 * that await's ready() resumes it, and it comes back at a yield (a value
 * in the await's out) or at an await of its own. When what it awaits
 * wakes it, the scheduler resumes it, and it goes no further: it wakes
 * the awaiting task instead (CORO_AGEN_ENTER), which resumes it at once.
 * =================================================================== */
struct coro_agen {
  struct coro_next_await *next; /* the await of its next value that it works for now, or NULL */
  /* its body runs now, resumed by that await (not by the scheduler) */
  bool stepping;
  bool yielded; /* its last suspension was a yield: a value went to next->out */
  bool woken;   /* what it awaits woke it: the await of its next value resumes it */
};

static inline struct coro_agen *coro_agen_of(coro_t *c) {
  return (struct coro_agen *)coro_as_task(c)->result;
}

/* Every resume of an async generator's body passes here first: true when
   the await of its next value resumed it; false when the scheduler did
   (what it awaits woke it): then the awaiting task is woken and the body
   suspends again where it was. Anything else (coro_next) is refused. */
bool coro_agen_enter(coro_t *c);

/* Stackless: the first statement of the resume function. */
#define CORO_AGEN_ENTER(c)          \
  do {                              \
    if (!coro_agen_enter(c)) {      \
      (c)->status = CORO_SUSPENDED; \
      return true;                  \
    }                               \
  } while (0)

/* `yield EXPR;` in an async generator: a yield that says so. */
#define CORO_AGEN_YIELD(c, out, n, T, ...) \
  do {                                     \
    coro_agen_of(c)->yielded = true;       \
    CORO_YIELD(c, out, n, T, __VA_ARGS__); \
  } while (0)
#define CORO_AGEN_YIELD_KEEPING(c, out, n, T, KEEP, ...) \
  do {                                                   \
    coro_agen_of(c)->yielded = true;                     \
    CORO_YIELD_KEEPING(c, out, n, T, KEEP, __VA_ARGS__); \
  } while (0)

/* Stackful: suspend, and go on only once the await of the next value
   resumes the body (after a wake by the scheduler, suspend again), or
   coro_free resumes it to unwind (the CORO_STACKFUL_RESUMED after it). */
static inline void coro_agen_stackful_wait(coro_t *c) {
  do
    c = coro_stackful_yield(c);
  while (!coro_stackful_unwinding(c) && !coro_agen_enter(c));
}

#define CORO_STACKFUL_AGEN_YIELD(c, T, ...) /* ... is EXPR */  \
  do {                                                         \
    T coro_value_ = (__VA_ARGS__);                             \
    void *coro_out_ = ((struct coro_stackful_head *)(c))->out; \
    if (coro_out_)                                             \
      *(T *)coro_out_ = coro_value_;                           \
    coro_agen_of(c)->yielded = true;                           \
    coro_agen_stackful_wait(c);                                \
    CORO_STACKFUL_RESUMED(c);                                  \
  } while (0)

#define CORO_STACKFUL_AGEN_AWAIT(c, ...)                                                         \
  __extension__({                                                                                \
    __typeof__(__VA_ARGS__) coro_aw_ = (__VA_ARGS__);                                            \
    while (!CORO_READY(coro_aw_)) {                                                              \
      coro_waits_for(c, (struct coro_awaitable *)&coro_aw_);                                     \
      coro_task_suspends(c);                                                                     \
      ((struct coro_awaitable *)&coro_aw_)->ops->suspend((struct coro_awaitable *)&coro_aw_, c); \
      coro_agen_stackful_wait(c);                                                                \
      CORO_STACKFUL_RESUMED(c);                                                                  \
    }                                                                                            \
    coro_aw_.result;                                                                             \
  })

#define CORO_STACKFUL_AGEN_AWAIT_TASK(c, T, ...) \
  CORO_STACKFUL_AWAIT_TASK_WITH_(c, coro_agen_stackful_wait, T, __VA_ARGS__)
#define CORO_STACKFUL_AGEN_AWAIT_VOID_TASK(c, ...) \
  CORO_STACKFUL_AWAIT_VOID_TASK_WITH_(c, coro_agen_stackful_wait, __VA_ARGS__)

/* }================================================================== */

#ifdef __cplusplus
}
#endif

#endif /* CORO_AGEN_H */
