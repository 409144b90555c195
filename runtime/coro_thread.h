/* coro_thread.h: the end of a thread's runtime state, in one stated order.
 *
 * Each module that keeps state for a thread says so once, the first time
 * it does (coro_thread_holds); when the thread exits, thread.c ends every
 * part that was held, in the order of this enum, from one place. The order
 * is the runtime's layers from the top down: what gives memory back ends
 * before the memory it gives back to.
 */
#ifndef CORO_THREAD_H
#define CORO_THREAD_H

enum coro_thread_part {
  CORO_THREAD_SCHED,    /* sched.c: each source's descriptors and memory, then the epoll
                           instance; first, while every instance a source points to still is */
  CORO_THREAD_STACKFUL, /* stack_cache.c: the instances and stacks kept for the thread's next
                           ones, given back to the slabs */
  CORO_THREAD_ALTSTACK, /* stack_guard.c: the signal stack of the stack overflow handler */
  CORO_THREAD_REGISTRY, /* registry.c: the slabs: everything above gave its slots back */
  CORO_THREAD_TRACE,    /* trace.c: the thread's records are kept for the file, marked ended;
                           last, so that whatever the parts above record is in them */
  CORO_THREAD_PARTS
};

/* This thread holds `part`: at its exit, end(arg) runs, in the order above.
   Again for the same part replaces what was said before. */
void coro_thread_holds(enum coro_thread_part part, void (*end)(void *arg), void *arg);

#endif
