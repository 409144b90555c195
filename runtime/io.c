/* io.c: the I/O awaitables: coro_read, coro_read_buf, coro_write,
 * coro_accept, coro_connect, and coro_close.
 *
 * Each is a C++20-style awaiter (docs/runtime.md, "Writing an awaitable"):
 * ready() tries the system call, and only if it would block does the task
 * suspend; when epoll reports the fd, the task is made ready, and ready()
 * tries again. A task blocked on I/O costs nothing until then.
 *
 * The cost that matters is system calls per operation, and the rule is: a
 * read or write that succeeds at once is one system call, and nothing else.
 *
 *   - No O_NONBLOCK juggling. A socket is read with recv(MSG_DONTWAIT) and
 *     written with send(MSG_DONTWAIT | MSG_NOSIGNAL); any other descriptor
 *     with preadv2/pwritev2(RWF_NOWAIT), non-blocking for this one call.
 *     Neither looks at, or changes, the flags of the open file, so a
 *     descriptor number closed and reused for a blocking file is still
 *     never blocked on. Which of the two a descriptor takes is learnt by
 *     trying (ENOTSOCK) and remembered; a wrong guess costs one call and
 *     corrects itself. O_NONBLOCK is set only where no call has a
 *     per-call flag: on a listening socket, once (accept4's connections
 *     come non-blocking), on a socket handed to coro_connect, and where the
 *     kernel has no RWF_NOWAIT (a terminal, some devices: EOPNOTSUPP),
 *     checked before every call since the number may have been reused.
 *   - One epoll registration per descriptor, edge-triggered, for both
 *     directions, made the first time a task has to wait on it: no
 *     epoll_ctl per wait. A stream socket's read that returns less than was
 *     asked for has emptied it (more data raises a new edge), so the same
 *     task's next read waits for that edge without first trying a call
 *     that would say EAGAIN. An echo's round trip is thus recv, send and a
 *     share of one epoll_wait: the calls of a hand-written epoll server.
 *   - The registration is the kernel's, per open file: closing the file
 *     drops it, silently, and the number may come back for another file.
 *     So what the record knows is trusted only while it is known to be the
 *     same file's: an event for it (or a successful epoll_ctl) proves the
 *     registration, and a task's wait uses the proof up, as does a call
 *     that would block or that ends the connection (0, an error): the next
 *     wait then re-arms with epoll_ctl, which also heals a registration
 *     lost to a close. "Emptied" is believed only by the task that saw it,
 *     and never once an event said the peer closed (a state, not data).
 *     Descriptors that begin a life under the runtime's eyes (coro_accept's
 *     result, a socket handed to coro_connect, coro_close) start afresh.
 *
 * I/O is an event source of the scheduler (coro_sched.h): each fd record
 * is its own tag in epoll, and the scheduler hands it every event for it.
 *
 * SIGPIPE: send has MSG_NOSIGNAL. A pipe has no such flag, so the first
 * write to a descriptor that is not a socket sets SIGPIPE to be ignored if
 * it still has its default action (which would kill the program): the
 * write then gives -EPIPE, as a socket's does. A handler of the program's
 * own is left alone.
 */
#define _GNU_SOURCE
#include "coro_pool.h"
#include "coro_sched.h"
#include "coro_seed.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* How a descriptor is read and written without blocking. */
enum fd_kind {
  FD_UNKNOWN, /* not tried yet: tried as a socket first */
  FD_STREAM,  /* a SOCK_STREAM socket: recv/send; a short read has emptied it */
  FD_SOCKET,  /* another kind of socket (datagrams, seqpacket): recv/send */
  FD_NOWAIT,  /* not a socket: preadv2/pwritev2 with RWF_NOWAIT */
  FD_FCNTL,   /* no RWF_NOWAIT either (a terminal): O_NONBLOCK, made sure of before each call */
  FD_BLOCKING /* epoll refuses it (a regular file): plain read/write, which never wait for long */
};

/* What the scheduler knows of one fd number. Each record is allocated once
   and never moves: epoll holds a pointer to it. */
struct fd_record {
  struct coro_watch watch; /* first: epoll's tag, which says the event is I/O's */
  int fd;                  /* which */
  unsigned char kind;      /* enum fd_kind */
  bool registered;         /* epoll has it: edge-triggered, both directions */
  bool confirmed;          /* an event or epoll_ctl since the last wait proves the registration
                              is this file's (a closed file's is dropped by the kernel) */
  bool emptied;            /* a short stream read emptied it, and no edge came since */
  bool filled;             /* a short stream write filled its buffer, and no edge came since */
  coro_t *seen_by;         /* the task that saw it emptied or filled: only it believes so */
  bool hup;                /* an event said the peer closed or an error is pending: a state,
                              not data, which no read takes away, so "emptied" proves nothing */
  /* O_NONBLOCK set on it (a listener, a connecting socket) in this life */
  bool nonblock;
  /* a fault said "would block" (seed.c): the waiter tries again next turn */
  bool fault_again;
  struct coro_awaitable *reader; /* waiting to read: a list, first come first */
  struct coro_awaitable *writer; /* waiting to write: likewise */
};

static _Thread_local struct fd_record **fds; /* [fd]: its record, or NULL */
static _Thread_local int nfds;
static _Thread_local long waiting; /* awaitables in the records' lists */

static const struct coro_source io_source;

/* A new life for the number: nothing known, every call tried. */
static void fresh(struct fd_record *r, enum fd_kind kind) {
  r->kind = (unsigned char)kind;
  r->registered = r->confirmed = r->nonblock = r->emptied = r->filled = r->hup = false;
  r->seen_by = NULL;
}

static struct fd_record *record(int fd) {
  if (fd >= nfds) {
    if (nfds == 0)
      coro_sched_add_source(&io_source); /* the thread's first record: its end frees them */
    int n = nfds ? nfds : 64;
    while (n <= fd)
      n *= 2;
    struct fd_record **v = realloc(fds, sizeof *fds * n); /* only the table of pointers moves */
    if (!v)
      coro_fatal("coro I/O", "out of memory");
    fds = v;
    memset(fds + nfds, 0, sizeof *fds * (n - nfds));
    nfds = n;
  }
  if (!fds[fd]) {
    fds[fd] = calloc(1, sizeof *fds[fd]);
    if (!fds[fd])
      coro_fatal("coro I/O", "out of memory");
    fds[fd]->watch.source = &io_source;
    fds[fd]->fd = fd;
    fresh(fds[fd], FD_UNKNOWN);
  }
  return fds[fd];
}

int coro_close(int fd) {
  if (fd >= 0 && fd < nfds && fds[fd]) {
    if (fds[fd]->reader || fds[fd]->writer)
      coro_fatal("coro_close", "fd %d: a task still waits on it", fd);
    fresh(fds[fd], FD_UNKNOWN);
  }
  return close(fd) == 0 ? 0 : -errno;
}

/* {==================================================================
 * The calls
 * =================================================================== */

/* The first write to something that is not a socket: a write to a pipe
   whose reader is gone must give -EPIPE, not kill the program. */
static void no_sigpipe(void) {
  static _Atomic bool done;
  if (done)
    return;
  struct sigaction sa;
  if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL &&
      !(sa.sa_flags & SA_SIGINFO)) {
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
  }
  done = true;
}

/* O_NONBLOCK for a descriptor with no per-call way: asked each time, since
   the number may since have been closed and reused for a blocking file. */
static void make_nonblocking(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0 && !(flags & O_NONBLOCK))
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* A socket that did not say ENOTSOCK: which kind (once per life). */
static void learn_socket(struct fd_record *r) {
  int type = 0;
  socklen_t len = sizeof type;
  r->kind = getsockopt(r->fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM
                ? FD_STREAM
                : FD_SOCKET;
}

/* A socket record that said ENOTSOCK: the number was closed and reused. */
static void not_a_socket(struct fd_record *r) {
  bool known = r->kind != FD_UNKNOWN;
  if (known)
    fresh(r, FD_NOWAIT);
  r->kind = FD_NOWAIT;
}

/* {------------------------------------------------------------------
 * Faults on demand (CORO_SCHED_FAULTS, seed.c): what the kernel may
 * legally answer and one machine rarely does. Each is a test of a word
 * when faults are off.
 * ------------------------------------------------------------------ */

/* EINTR: the first call of an operation is not made, as if a signal came
   first (*pending: drawn once per operation, so that the draws do not
   depend on what the runtime has learnt of the descriptor). The runtime
   tries again: a task never sees EINTR. */
static bool interrupted(bool *pending) {
  if (!*pending)
    return false;
  *pending = false;
  errno = EINTR;
  return true;
}

/* "Would block" before data (room, a connection) that is there a moment
   later: the task waits, and the wait ends in the next turn (wait_for),
   since no edge may come for what was there all along. */
static bool fault_would_block(struct fd_record *r) {
  if (!coro_fault(CORO_FAULT_EAGAIN))
    return false;
  r->fault_again = true;
  return true;
}

/* Is r a stream socket? Asked where a fault needs to know before the
   first call that would learn it. */
static bool is_stream_now(struct fd_record *r) {
  int type = 0;
  socklen_t len = sizeof type;
  if (r->kind == FD_UNKNOWN && getsockopt(r->fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0)
    r->kind = type == SOCK_STREAM ? FD_STREAM : FD_SOCKET;
  return r->kind == FD_STREAM;
}

/* A short transfer: fewer bytes asked of the kernel, down to one, where
   the kernel may give fewer and nothing is lost by it: a stream socket,
   either way; a pipe's writer of more than PIPE_BUF bytes (up to PIPE_BUF a
   write is all or nothing), not in packet mode. Not a pipe's reader (its
   packet mode, O_DIRECT, does not show at the read end, and a short read of
   a packet loses the rest of it), a datagram, a signalfd or a timerfd (each
   read is one whole record), nor a regular file. */
static bool may_be_short(struct fd_record *r, size_t len, bool write) {
  if (is_stream_now(r))
    return true;
  if (!write || len <= PIPE_BUF || (r->kind != FD_NOWAIT && r->kind != FD_FCNTL))
    return false;
  struct stat st;
  if (fstat(r->fd, &st) < 0 || !S_ISFIFO(st.st_mode))
    return false;
  int flags = fcntl(r->fd, F_GETFL);
  return flags >= 0 && !(flags & O_DIRECT);
}

/* (Drawn before asking whether it may be: the draws of a run must not
   depend on what the runtime has learnt of a descriptor, or a second run
   with the same seed would draw differently.) */
static size_t fault_length(struct fd_record *r, size_t len, bool write) {
  if (len <= 1 || !coro_fault(CORO_FAULT_SHORT))
    return len;
  size_t shorter = coro_fault_length(len);
  return may_be_short(r, len, write) ? shorter : len;
}

/* The peer reset the connection: the operation fails with ECONNRESET, and
   the socket is shut down both ways, so that what follows (and the peer)
   sees the connection over, as after a real reset. */
static bool fault_reset(struct fd_record *r) {
  if (!coro_fault(CORO_FAULT_RESET) || !is_stream_now(r))
    return false;
  shutdown(r->fd, SHUT_RDWR);
  return true;
}

/* }------------------------------------------------------------------ */

/* One read without blocking: n, or -errno (-EAGAIN: it would block). */
static ssize_t do_read(struct fd_record *r, void *buf, size_t len) {
  bool eintr = coro_fault(CORO_FAULT_EINTR);
  for (;;) {
    ssize_t n;
    switch (r->kind) {
    case FD_UNKNOWN:
    case FD_STREAM:
    case FD_SOCKET:
      n = interrupted(&eintr) ? -1 : recv(r->fd, buf, len, MSG_DONTWAIT);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == ENOTSOCK) {
        not_a_socket(r);
        continue;
      }
      if (n < 0)
        return -errno;
      if (r->kind == FD_UNKNOWN)
        learn_socket(r);
      return n;
    case FD_NOWAIT: {
      struct iovec v = {buf, len};
      n = interrupted(&eintr) ? -1 : preadv2(r->fd, &v, 1, -1, RWF_NOWAIT);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) {
        r->kind = FD_FCNTL;
        continue;
      }
      return n < 0 ? -errno : n;
    }
    case FD_FCNTL:
      make_nonblocking(r->fd);
      /* fall through */
    default:
      n = interrupted(&eintr) ? -1 : read(r->fd, buf, len);
      if (n < 0 && errno == EINTR)
        continue;
      return n < 0 ? -errno : n;
    }
  }
}

/* One write without blocking: n, or -errno (-EAGAIN: it would block). */
static ssize_t do_write(struct fd_record *r, const void *buf, size_t len) {
  bool eintr = coro_fault(CORO_FAULT_EINTR);
  for (;;) {
    ssize_t n;
    switch (r->kind) {
    case FD_UNKNOWN:
    case FD_STREAM:
    case FD_SOCKET:
      n = interrupted(&eintr) ? -1 : send(r->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == ENOTSOCK) {
        not_a_socket(r);
        continue;
      }
      return n < 0 ? -errno : n;
    case FD_NOWAIT: {
      no_sigpipe();
      struct iovec v = {(void *)buf, len};
      n = interrupted(&eintr) ? -1 : pwritev2(r->fd, &v, 1, -1, RWF_NOWAIT);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) {
        r->kind = FD_FCNTL;
        continue;
      }
      return n < 0 ? -errno : n;
    }
    case FD_FCNTL:
      no_sigpipe();
      make_nonblocking(r->fd);
      /* fall through */
    default:
      n = interrupted(&eintr) ? -1 : write(r->fd, buf, len);
      if (n < 0 && errno == EINTR)
        continue;
      return n < 0 ? -errno : n;
    }
  }
}

/* A byte stream: a read or write of less than was asked means the other
   side has nothing more for now, and the next edge will say when it has.
   Only a SOCK_STREAM socket is known to be one: a pipe may be in packet
   mode (O_DIRECT), and a timerfd or eventfd gives 8 bytes at a time. */
static bool is_stream(const struct fd_record *r) {
  return r->kind == FD_STREAM;
}

/* }================================================================== */

/* {==================================================================
 * Waiting
 * =================================================================== */

/* Make sure epoll has this file, edge-triggered for both directions. False:
   epoll refuses it (a regular file, which never waits for long anyway). */
static bool watch(struct fd_record *r) {
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = r};
  int epfd = coro_sched_epoll();
  int op = r->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(epfd, op, r->fd, &ev) < 0) {
    if (errno == EPERM) {
      r->kind = FD_BLOCKING;
      return false;
    }
    /* the file it was registered for was closed, or another is registered under the number */
    op = errno == ENOENT ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
    if ((errno != ENOENT && errno != EEXIST) || epoll_ctl(epfd, op, r->fd, &ev) < 0)
      coro_fatal("coro I/O", "epoll_ctl(fd %d): %s", r->fd, strerror(errno));
  }
  r->registered = true;
  return true;
}

/* Several tasks may wait on one fd (two readers of a socket, acceptors of
   one listening socket): each direction keeps a list. The registration is
   touched only when nothing proves it current. */
static void wait_for(struct coro_awaitable *a, coro_t *waiter, int fd, bool out) {
  struct fd_record *r = record(fd);
  a->waiter = waiter;
  a->next_waiter = NULL;
  if (__builtin_expect(r->fault_again, 0)) { /* a fault said "would block": try again next turn */
    r->fault_again = false;
    coro_ready(waiter);
    return;
  }
  if (r->kind == FD_BLOCKING || ((!r->registered || !r->confirmed) && !watch(r))) {
    r->emptied = r->filled = false; /* not pollable: the next try simply blocks */
    coro_ready(waiter);
    return;
  }
  r->confirmed = false; /* this wait used the proof up */
  struct coro_awaitable **tail = out ? &r->writer : &r->reader;
  while (*tail)
    tail = &(*tail)->next_waiter;
  *tail = a;
  if (waiting++ == 0)
    coro_sched_add_source(&io_source);
}

/* Take a out of the list at *head; true if it was there. */
static bool unlink_waiter(struct coro_awaitable **head, struct coro_awaitable *a) {
  for (; *head; head = &(*head)->next_waiter)
    if (*head == a) {
      *head = a->next_waiter;
      return true;
    }
  return false;
}

/* Everyone on the list may try again (those who lose the race to the data
   wait again); a list of one is the common case. */
static void wake_all(struct coro_awaitable *list) {
  while (list) {
    struct coro_awaitable *next = list->next_waiter;
    waiting--;
    coro_ready(list->waiter);
    list = next;
  }
}

/* coro_timeout or coro_cancel called this operation off: forget its
   waiter; the operation is over, and ready() says so from now on (the
   caller set its result to -ECANCELED). The registration stays, for the
   next wait. */
static void io_cancel(struct coro_awaitable *a, int fd) {
  struct fd_record *r = record(fd);
  r->fault_again = false;
  if (unlink_waiter(&r->reader, a) || unlink_waiter(&r->writer, a))
    waiting--;
  coro_settle(a);
}

static void io_event(void *tag, uint32_t events) {
  struct fd_record *r = tag;
  r->confirmed = true;
  if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
    r->hup = true;
  bool in = events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
  bool out = events & (EPOLLOUT | EPOLLHUP | EPOLLERR);
  struct coro_awaitable *readers = NULL, *writers = NULL;
  if (in) {
    r->emptied = false;
    readers = r->reader;
    r->reader = NULL;
  }
  if (out) {
    r->filled = false;
    writers = r->writer;
    r->writer = NULL;
  }
  wake_all(readers);
  wake_all(writers);
}

static bool io_waiting(void) {
  return waiting != 0;
}

/* The thread ends: its records go, unless a task still waits on one (a
   task that will never run again, but whose frame points at it). The
   epoll instance, closed next, takes the registrations with it. */
static void io_end(void) {
  if (waiting)
    return;
  for (int i = 0; i < nfds; i++)
    free(fds[i]);
  free(fds);
  fds = NULL;
  nfds = 0;
}

static const struct coro_source io_source = {
    .name = "I/O",
    .waiting = io_waiting,
    .polled = io_waiting,
    .event = io_event,
    .end = io_end,
};

/* }================================================================== */

/* {==================================================================
 * The operations
 * =================================================================== */

/* After a read or write of n of len bytes: what it says about the fd. True:
   the operation is over (its result is n); false: it would block, wait. */
static bool settle(struct fd_record *r, bool *short_flag, ssize_t n, size_t len) {
  if (n == -EAGAIN || n == -EWOULDBLOCK) {
    r->confirmed = false; /* perhaps another file by now: the wait re-arms */
    return false;
  }
  if (n > 0 && (size_t)n < len && is_stream(r) && !r->hup) {
    *short_flag = true; /* emptied (or filled): the next edge says when to go on */
    r->seen_by = coro_current_task;
  } else if (n <= 0 && len > 0) {
    r->confirmed = false; /* the end of a connection, perhaps of the descriptor too */
  }
  return true;
}

/* Known to be emptied (filled) by the task asking now: wait, no call. */
static bool known_short(const struct fd_record *r, bool short_flag) {
  return short_flag && r->seen_by == coro_current_task;
}

static bool read_ready(struct coro_awaitable *a) {
  struct coro_read *op = (struct coro_read *)a;
  struct fd_record *r = record(op->fd);
  if (known_short(r, r->emptied) || fault_would_block(r))
    return false;
  size_t len = fault_length(r, op->len, false);
  ssize_t n = fault_reset(r) ? -ECONNRESET : do_read(r, op->buf, len);
  if (!settle(r, &r->emptied, n, len))
    return false;
  op->result = n;
  return true;
}

static void read_suspend(struct coro_awaitable *a, coro_t *waiter) {
  wait_for(a, waiter, ((struct coro_read *)a)->fd, false);
}

static void read_cancel(struct coro_awaitable *a) {
  struct coro_read *op = (struct coro_read *)a;
  op->result = -ECANCELED;
  io_cancel(a, op->fd);
}

static const struct coro_awaiter read_awaiter = {read_ready, read_suspend, read_cancel};

struct coro_read coro_read(int fd, void *buf, size_t len) {
  return (struct coro_read){.base = {.ops = &read_awaiter}, .fd = fd, .buf = buf, .len = len};
}

/* coro_read_buf: as coro_read, but the buffer is taken from the pool only
   for the call that is expected to succeed, and given straight back if it
   would block after all (which costs two pointer moves, no call). */
static bool read_buf_ready(struct coro_awaitable *a) {
  struct coro_read_buf *op = (struct coro_read_buf *)a;
  struct fd_record *r = record(op->fd);
  if (known_short(r, r->emptied) || fault_would_block(r))
    return false;
  char *buf = coro_bufpool_take();
  size_t len = fault_length(r, CORO_BUF_SIZE, false);
  ssize_t n = fault_reset(r) ? -ECONNRESET : do_read(r, buf, len);
  if (n <= 0)
    coro_buf_release(buf);
  if (!settle(r, &r->emptied, n, len))
    return false;
  op->result.len = n;
  op->result.data = n > 0 ? buf : NULL;
  return true;
}

static void read_buf_suspend(struct coro_awaitable *a, coro_t *waiter) {
  wait_for(a, waiter, ((struct coro_read_buf *)a)->fd, false);
}

static void read_buf_cancel(struct coro_awaitable *a) {
  struct coro_read_buf *op = (struct coro_read_buf *)a;
  op->result = (struct coro_buf){.len = -ECANCELED};
  io_cancel(a, op->fd);
}

static const struct coro_awaiter read_buf_awaiter = {read_buf_ready, read_buf_suspend,
                                                     read_buf_cancel};

struct coro_read_buf coro_read_buf(int fd) {
  return (struct coro_read_buf){.base = {.ops = &read_buf_awaiter}, .fd = fd};
}

static bool write_ready(struct coro_awaitable *a) {
  struct coro_write *op = (struct coro_write *)a;
  struct fd_record *r = record(op->fd);
  if (known_short(r, r->filled) || fault_would_block(r))
    return false;
  size_t len = fault_length(r, op->len, true);
  ssize_t n = fault_reset(r) ? -ECONNRESET : do_write(r, op->buf, len);
  if (!settle(r, &r->filled, n, len))
    return false;
  op->result = n;
  return true;
}

static void write_suspend(struct coro_awaitable *a, coro_t *waiter) {
  wait_for(a, waiter, ((struct coro_write *)a)->fd, true);
}

static void write_cancel(struct coro_awaitable *a) {
  struct coro_write *op = (struct coro_write *)a;
  op->result = -ECANCELED;
  io_cancel(a, op->fd);
}

static const struct coro_awaiter write_awaiter = {write_ready, write_suspend, write_cancel};

struct coro_write coro_write(int fd, const void *buf, size_t len) {
  return (struct coro_write){.base = {.ops = &write_awaiter}, .fd = fd, .buf = buf, .len = len};
}

/* accept has no per-call non-blocking flag: the listening socket is made
   non-blocking once (remembered until coro_close) and its kind learnt, which
   the connections it gives inherit. A new connection starts a new life for
   its number. */
static bool accept_ready(struct coro_awaitable *a) {
  struct coro_accept *op = (struct coro_accept *)a;
  struct fd_record *r = record(op->fd);
  if (!r->nonblock) {
    int one = 1;
    ioctl(r->fd, FIONBIO, &one);
    learn_socket(r);
    r->nonblock = true;
  }
  if (fault_would_block(r))
    return false;
  int fd;
  bool eintr = coro_fault(CORO_FAULT_EINTR);
  do /* interrupted: at once again (a wait would need an edge that may have come already) */
    fd = interrupted(&eintr) ? -1
                             : accept4(op->fd, op->addr, op->addrlen, SOCK_CLOEXEC | SOCK_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    r->confirmed = false;
    return false;
  }
  op->result = fd < 0 ? -errno : fd;
  if (fd >= 0)
    fresh(record(fd), r->kind == FD_STREAM ? FD_STREAM : FD_SOCKET);
  return true;
}

static void accept_suspend(struct coro_awaitable *a, coro_t *waiter) {
  wait_for(a, waiter, ((struct coro_accept *)a)->fd, false);
}

static void accept_cancel(struct coro_awaitable *a) {
  struct coro_accept *op = (struct coro_accept *)a;
  op->result = -ECANCELED;
  io_cancel(a, op->fd);
}

static const struct coro_awaiter accept_awaiter = {accept_ready, accept_suspend, accept_cancel};

/* <coro.h> names no socket type (it declares nothing outside coro_): it
   says unsigned int for socklen_t and long for ssize_t, which these pin. */
_Static_assert(_Generic((socklen_t)0, unsigned int : 1, default : 0), "socklen_t is unsigned int");
_Static_assert(_Generic((ssize_t)0, long : 1, default : 0), "ssize_t is long");

struct coro_accept coro_accept(int listen_fd, void *addr, unsigned int *len) {
  return (struct coro_accept){
      .base = {.ops = &accept_awaiter}, .fd = listen_fd, .addr = addr, .addrlen = len};
}

/* connect: the first try starts it (EINPROGRESS) on a socket made
   non-blocking for it (a new life for the number); when the socket turns
   writable, SO_ERROR says how it went. */
static bool connect_ready(struct coro_awaitable *a) {
  struct coro_connect *op = (struct coro_connect *)a;
  struct fd_record *r = record(op->fd);
  if (!op->started) {
    op->started = true;
    fresh(r, FD_UNKNOWN);
    int one = 1;
    ioctl(r->fd, FIONBIO, &one);
    r->nonblock = true;
    if (connect(op->fd, op->addr, op->addrlen) == 0) {
      op->result = 0;
      return true;
    }
    if (errno != EINPROGRESS && errno != EAGAIN && errno != EINTR) {
      op->result = -errno;
      return true;
    }
    return false;
  }
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(op->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
    err = errno;
  if (err == EINPROGRESS || err == EALREADY) {
    r->confirmed = false;
    return false;
  }
  op->result = -err;
  return true;
}

static void connect_suspend(struct coro_awaitable *a, coro_t *waiter) {
  wait_for(a, waiter, ((struct coro_connect *)a)->fd, true);
}

static void connect_cancel(struct coro_awaitable *a) {
  struct coro_connect *op = (struct coro_connect *)a;
  op->result = -ECANCELED;
  io_cancel(a, op->fd);
}

static const struct coro_awaiter connect_awaiter = {connect_ready, connect_suspend, connect_cancel};

struct coro_connect coro_connect(int fd, const void *addr, unsigned int len) {
  return (struct coro_connect){
      .base = {.ops = &connect_awaiter}, .fd = fd, .addr = addr, .addrlen = len};
}

/* }================================================================== */
