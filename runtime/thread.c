/* thread.c: a thread's runtime state ends here, every module in one stated
 * order (coro_thread.h).
 *
 * One pthread key for the whole runtime rather than one per module: with
 * several keys, POSIX runs their destructors in no stated order, and the
 * slabs could go before the stackful instances kept in them were given
 * back. A module says what it holds; this file, which calls nothing of the
 * runtime, ends the parts from the top layer down. (The main thread's end
 * is the process's: nothing runs, nothing needs to.)
 */
#include "coro_internal.h"
#include "coro_thread.h"

#include <pthread.h>

struct thread_part {
  void (*end)(void *arg);
  void *arg;
};

static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static _Thread_local struct thread_part thread_parts[CORO_THREAD_PARTS];

/* The thread exits. A part's end may hold another part again (a source
   that frees a stackful instance, say): the key is set again then, and
   POSIX calls this once more for what is left. */
static void thread_end(void *unused) {
  (void)unused;
  for (int i = 0; i < CORO_THREAD_PARTS; i++) {
    struct thread_part p = thread_parts[i];
    thread_parts[i] = (struct thread_part){0};
    if (p.end)
      p.end(p.arg);
  }
}

static void thread_key_make(void) {
  if (pthread_key_create(&thread_key, thread_end) != 0)
    coro_fatal("coro_thread", "no pthread key left for the end of threads");
}

void coro_thread_holds(enum coro_thread_part part, void (*end)(void *arg), void *arg) {
  pthread_once(&thread_key_once, thread_key_make);
  thread_parts[part] = (struct thread_part){end, arg};
  pthread_setspecific(thread_key, thread_parts); /* (any value but NULL: the destructor runs) */
}
