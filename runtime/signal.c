/* signal.c: coro_signal, a signal as an awaitable event.
 *
 * The signals are blocked in the thread and read from a signalfd with the
 * runtime's own coro_read, so waiting for a signal is waiting for I/O: it
 * costs nothing until the signal comes, and the task that gets it goes on
 * as ordinary code, free to do what no signal handler may (close sockets,
 * allocate, print). The signalfd lives only while a task waits; signals
 * that arrive between two waits stay pending (they are blocked), and the
 * next wait reads them at once.
 */
#define _GNU_SOURCE
#include "coro_internal.h"
#include "coro/signal.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* struct coro_signal keeps a sigset_t and a signalfd_siginfo as bytes, so
   that <coro.h> needs no <signal.h>: they must fit. */
_Static_assert(sizeof(sigset_t) <= sizeof(((struct coro_signal *)0)->set), "sigset_t fits");
_Static_assert(_Alignof(sigset_t) <= 8, "sigset_t's alignment");
_Static_assert(sizeof(struct signalfd_siginfo) == sizeof(((struct coro_signal *)0)->info),
               "signalfd_siginfo fits");
_Static_assert(_Alignof(struct signalfd_siginfo) <= 8, "signalfd_siginfo's alignment");

static void finish(struct coro_signal *op, int result) {
  coro_close(op->fd);
  op->fd = -1;
  op->result = result;
}

static bool signal_ready(struct coro_awaitable *a) {
  struct coro_signal *op = (struct coro_signal *)a;
  if (op->fd < 0) {
    sigset_t set;
    memcpy(&set, op->set, sizeof set);
    int err = pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (err) {
      op->result = -err;
      return true;
    }
    op->fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (op->fd < 0) {
      op->result = -errno;
      return true;
    }
    op->read = coro_read(op->fd, &op->info, sizeof op->info);
  }
  if (!op->read.base.ops->ready(&op->read.base))
    return false;
  struct signalfd_siginfo info;
  memcpy(&info, op->info, sizeof info);
  if (op->read.result == (ssize_t)sizeof op->info)
    finish(op, (int)info.ssi_signo);
  else
    finish(op, op->read.result < 0 ? (int)op->read.result : -EIO);
  return true;
}

static void signal_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_signal *op = (struct coro_signal *)a;
  op->read.base.ops->suspend(&op->read.base, waiter);
}

static void signal_cancel(struct coro_awaitable *a) {
  struct coro_signal *op = (struct coro_signal *)a;
  op->read.base.ops->cancel(&op->read.base);
  finish(op, -ECANCELED);
  coro_settle(a);
}

static const struct coro_awaiter signal_awaiter = {signal_ready, signal_suspend, signal_cancel};

struct coro_signal coro_signal(const sigset_t *set) {
  struct coro_signal op = {.base = {.ops = &signal_awaiter}, .fd = -1};
  memcpy(op.set, set, sizeof *set);
  return op;
}
