/* coro.h: the coroc runtime.
 *
 * One library serves both backends. A coroutine instance is a `coro_t *`,
 * whether coroc turned its body into a state machine (stackless) or kept it
 * as a function running on a stack of its own (stackful); users cannot tell
 * them apart.
 *
 * The first part of this header is the public API (docs/runtime.md). The
 * second part, fenced below, is the interface that coroc's generated code
 * relies on (docs/abi.md); users never need to touch it.
 */
#ifndef CORO_H
#define CORO_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>  /* memcpy: generated code initializes arrays in frames with it */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct coro coro_t;            /* a coroutine instance */

/* Resume the generator `gen` until it yields its next value, and copy that
   value to *out (out may be NULL to skip it). Returns false once the body has
   returned, and false again on every later call. */
bool coro_next(coro_t *gen, void *out);

/* True once the body has returned. A generator suspended at its last value
   is not done yet: only the coro_next that finds no further value is. */
bool coro_done(const coro_t *c);

/* Release an instance, at any point: an unfinished one is released too (its
   frame or its stack is freed; its body simply never continues). */
void coro_free(coro_t *c);

/* ==================================================================
 * For generated code only (docs/abi.md). Not part of the public API;
 * names and layout may change between versions of coroc.
 * ================================================================== */

/* The life cycle of an instance. coro_status_name() gives each a name. */
enum coro_status {
  CORO_CREATED,     /* made by name(args); the body has not started (lazy start) */
  CORO_SUSPENDED,   /* stopped at a yield; resumable */
  CORO_RUNNING,     /* its body is executing now */
  CORO_DONE         /* its body returned; never runs again */
};

/* The header every instance starts with. A stackless instance is a frame
   struct whose first member is this header; a stackful one embeds it in its
   stack bookkeeping. The resume path reads `resume`, writes `out`, and calls
   through `resume`: one indirect call, no allocation, no copying. */
struct coro {
  void (*resume)(coro_t *c);    /* run the body from where it stopped to the next yield or its end */
  void (*release)(coro_t *c);   /* free what the instance owns (the frame, the stack) */
  void *out;                    /* where the yield being made copies its value; NULL: drop it */
  int resume_point;             /* stackless: the numbered point where resume continues; 0 = start */
  unsigned char status;         /* enum coro_status */
};

/* Allocate a zeroed frame of `size` bytes aligned to `align` whose first
   member is a struct coro, and set it up to run `resume` when first resumed.
   Aborts with a message when memory runs out: a coroutine call has no way to
   report failure to its caller. */
coro_t *coro_frame_new(size_t size, size_t align, void (*resume)(coro_t *c));

/* The name of a status, for messages. */
const char *coro_status_name(int status);

/* The tiny vocabulary of a stackless resume function (protothreads-style).
 * A resume point is a number; its label is coro_resume_N. The dispatch switch
 * at the top of the resume function jumps to it with goto, which also works
 * when the yield stands inside the user's own switch or nested loops. */

/* `yield EXPR;` in a generator of T: EXPR is evaluated once, converted to
   T and stored where coro_next asked; then suspend at resume point n. One
   line of output, so that a debugger shows the yield's line for all of it. */
#define CORO_YIELD(c, n, T, ...)   /* ... is EXPR, which may hold commas */ \
  do {                                                                   \
    T coro_value_ = (__VA_ARGS__);                                       \
    if ((c)->out)                                                        \
      *(T *)(c)->out = coro_value_;                                      \
    CORO_SUSPEND(c, n);                                                  \
  } while (0)

/* Suspend at resume point n: the next resume continues at label coro_resume_n. */
#define CORO_SUSPEND(c, n)                                               \
  do {                                                                   \
    (c)->resume_point = (n);                                             \
    (c)->status = CORO_SUSPENDED;                                        \
    return;                                                              \
  } while (0)

/* A compound literal whose storage must outlive a suspension (an array, or
   one whose address is taken): it lives in the frame field `field`, filled
   from the literal each time the expression is evaluated, as C says. */
#define CORO_LITERAL(field, ...) \
  (*(__typeof__(field) *)memcpy(&(field), &(__VA_ARGS__), sizeof(field)))

/* The body returned: the instance is done for good. */
#define CORO_FINISH(c)                                                   \
  do {                                                                   \
    (c)->status = CORO_DONE;                                             \
    return;                                                              \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* CORO_H */
