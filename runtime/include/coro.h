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

/* Stack sizes of stackful instances (coroc --backend=stackful). A stackful
   body runs on a stack of its own, mapped at its first resume with a guard
   page below it: running past its end stops the program with a message
   naming the instance and its stack size. Sizes are rounded up to whole pages. */

/* Set the stack size of the stackful instance c before its first resume.
   Returns false, and changes nothing, for a stackless instance, one already
   started, or bytes == 0. */
bool coro_set_stack_size(coro_t *c, size_t bytes);

/* The stack size of the stackful instances this thread creates from now on
   (default: 256 KiB; 0 restores the default). Instances already created keep
   theirs. */
void coro_default_stack_size(size_t bytes);

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

/* The stackful backend (runtime/stackful.c). An instance is a struct coro
 * header followed by the runtime's bookkeeping and the arguments, which the
 * generated code stores through coro_stackful_args. The body is an ordinary
 * function, started through `entry` on the instance's own stack at the first
 * coro_next; when entry returns, the instance is done. The shape of the code
 * that uses these:
 *
 *   static void coro_entry_fib(coro_t *coro_c) {
 *     struct coro_args_fib *a = coro_stackful_args(coro_c);
 *     coro_body_fib(coro_c, a->n);             // yields with CORO_STACKFUL_YIELD
 *   }
 *   coro_t *fib(int n) {
 *     coro_t *c = coro_stackful_new(coro_entry_fib, sizeof(struct coro_args_fib),
 *                                   _Alignof(struct coro_args_fib));
 *     ((struct coro_args_fib *)coro_stackful_args(c))->n = n;
 *     return c;
 *   }
 */

/* A new stackful instance, not started (lazy start; its stack is mapped at the
   first resume), with room for args_size bytes of arguments aligned to
   args_align. Aborts with a message when memory runs out. */
coro_t *coro_stackful_new(void (*entry)(coro_t *c), size_t args_size, size_t args_align);

/* The instance's argument area: args_size bytes aligned to args_align, zeroed
   at creation, owned (and freed) by the instance. */
void *coro_stackful_args(coro_t *c);

/* From inside c's body: switch back to whoever resumed c; returns when c is
   resumed again. Aborts with a message if c is not the coroutine running on
   this thread. */
void coro_stackful_suspend(coro_t *c);

/* `yield EXPR;` in a stackful generator of T: EXPR is evaluated once,
   converted to T and stored where coro_next asked; then suspend. */
#define CORO_STACKFUL_YIELD(c, T, ...)  /* ... is EXPR, which may hold commas */ \
  do {                                                                   \
    T coro_value_ = (__VA_ARGS__);                                       \
    if ((c)->out)                                                        \
      *(T *)(c)->out = coro_value_;                                      \
    coro_stackful_suspend(c);                                            \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* CORO_H */
