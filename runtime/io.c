/* io.c: the I/O awaitables: coro_read, coro_write, coro_accept, coro_connect.
 *
 * Each is a C++20-style awaiter (docs/runtime.md, "Writing an awaitable"):
 * ready() tries the system call at once, and only if it says EAGAIN does
 * the task suspend; suspend() registers the fd with the scheduler's epoll,
 * one-shot, for the direction it needs; when epoll reports the fd, the
 * task is made ready, and ready() tries the call again. A task blocked on
 * I/O costs nothing until then.
 *
 * One record per fd holds its waiters: a reader and a writer may wait on
 * the same socket at once, and the fd's registration asks for both.
 */
#define _GNU_SOURCE
#include "coro_sched.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

/* What the scheduler knows of one fd. Each record is allocated once and
   never moves: epoll holds a pointer to it. */
struct fd_record {
  int fd;                       /* which */
  bool registered;              /* known to epoll (perhaps disarmed: one-shot) */
  struct coro_awaitable *reader;/* waiting for EPOLLIN: a list, first come first */
  struct coro_awaitable *writer;/* waiting for EPOLLOUT: likewise */
};

static _Thread_local struct fd_record **fds;  /* [fd]: its record, or NULL */
static _Thread_local int nfds;

static struct fd_record *record(int fd) {
  if (fd >= nfds) {
    int n = nfds ? nfds : 64;
    while (n <= fd)
      n *= 2;
    fds = realloc(fds, sizeof *fds * n);  /* only the table of pointers moves */
    if (!fds)
      coro_fatal("coro I/O", "out of memory");
    memset(fds + nfds, 0, sizeof *fds * (n - nfds));
    nfds = n;
  }
  if (!fds[fd]) {
    fds[fd] = calloc(1, sizeof *fds[fd]);
    if (!fds[fd])
      coro_fatal("coro I/O", "out of memory");
    fds[fd]->fd = fd;
  }
  return fds[fd];
}

/* The contract: every fd handed to an operation is made non-blocking. Asked
   every time, not remembered: a closed fd's number comes back for a new one,
   which may well be blocking. */
static void make_nonblocking(struct fd_record *r) {
  int flags = fcntl(r->fd, F_GETFL);
  if (flags >= 0 && !(flags & O_NONBLOCK))
    fcntl(r->fd, F_SETFL, flags | O_NONBLOCK);
}

/* (Re)arm the fd for the directions someone waits for. */
static void arm(struct fd_record *r) {
  struct epoll_event ev = {.events = EPOLLONESHOT, .data.ptr = r};
  if (r->reader)
    ev.events |= EPOLLIN | EPOLLRDHUP;
  if (r->writer)
    ev.events |= EPOLLOUT;
  int epfd = sched_epoll();
  if (epoll_ctl(epfd, r->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, r->fd, &ev) < 0) {
    /* the fd was closed and its number reused, or registered by an earlier life */
    int op = errno == ENOENT ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
    if (epoll_ctl(epfd, op, r->fd, &ev) < 0)
      coro_fatal("coro I/O", "epoll_ctl(fd %d): %s", r->fd, strerror(errno));
  }
  r->registered = true;
}

/* Several tasks may wait on one fd (two readers of a socket, acceptors of
   one listening socket): each direction keeps a list. */
static void wait_for(struct coro_awaitable *a, coro_t *waiter, int fd, bool out) {
  struct fd_record *r = record(fd);
  a->waiter = waiter;
  a->next_waiter = NULL;
  struct coro_awaitable **tail = out ? &r->writer : &r->reader;
  while (*tail)
    tail = &(*tail)->next_waiter;
  *tail = a;
  sched_self.io_waiting++;
  arm(r);
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
    sched_self.io_waiting--;
    coro_ready(list->waiter);
    list = next;
  }
}

/* coro_timeout called this operation off: forget its waiter. */
static void io_cancel(struct coro_awaitable *a, int fd) {
  struct fd_record *r = record(fd);
  if (!unlink_waiter(&r->reader, a) && !unlink_waiter(&r->writer, a))
    return;
  sched_self.io_waiting--;
  if (r->reader || r->writer)
    arm(r);
  else if (r->registered)
    epoll_ctl(sched_epoll(), EPOLL_CTL_DEL, r->fd, NULL), r->registered = false;
}

void io_event(void *tag, uint32_t events) {
  struct fd_record *r = tag;
  bool error = events & (EPOLLERR | EPOLLHUP);
  struct coro_awaitable *readers = NULL, *writers = NULL;
  if (r->reader && (error || (events & (EPOLLIN | EPOLLRDHUP)))) {
    readers = r->reader;
    r->reader = NULL;
  }
  if (r->writer && (error || (events & EPOLLOUT))) {
    writers = r->writer;
    r->writer = NULL;
  }
  if (r->reader || r->writer)
    arm(r);  /* one-shot: the other direction still waits */
  wake_all(readers);
  wake_all(writers);
}

/* {==================================================================
 * The operations
 * =================================================================== */

static bool read_ready(struct coro_awaitable *a) {
  struct coro_read *op = (struct coro_read *)a;
  make_nonblocking(record(op->fd));
  ssize_t n = read(op->fd, op->buf, op->len);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    return false;
  op->result = n < 0 ? -errno : n;
  return true;
}

static void read_suspend(struct coro_awaitable *a, coro_t *waiter) {
  wait_for(a, waiter, ((struct coro_read *)a)->fd, false);
}

static void read_cancel(struct coro_awaitable *a) {
  io_cancel(a, ((struct coro_read *)a)->fd);
}

static const struct coro_awaiter read_awaiter = {read_ready, read_suspend, read_cancel};

struct coro_read coro_read(int fd, void *buf, size_t len) {
  return (struct coro_read){.base = {.ops = &read_awaiter}, .fd = fd, .buf = buf, .len = len};
}

static bool write_ready(struct coro_awaitable *a) {
  struct coro_write *op = (struct coro_write *)a;
  make_nonblocking(record(op->fd));
  ssize_t n = write(op->fd, op->buf, op->len);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    return false;
  op->result = n < 0 ? -errno : n;
  return true;
}

static void write_suspend(struct coro_awaitable *a, coro_t *waiter) {
  wait_for(a, waiter, ((struct coro_write *)a)->fd, true);
}

static void write_cancel(struct coro_awaitable *a) {
  io_cancel(a, ((struct coro_write *)a)->fd);
}

static const struct coro_awaiter write_awaiter = {write_ready, write_suspend, write_cancel};

struct coro_write coro_write(int fd, const void *buf, size_t len) {
  return (struct coro_write){.base = {.ops = &write_awaiter}, .fd = fd, .buf = buf, .len = len};
}

static bool accept_ready(struct coro_awaitable *a) {
  struct coro_accept *op = (struct coro_accept *)a;
  make_nonblocking(record(op->fd));
  int fd = accept4(op->fd, op->addr, op->addrlen, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return false;
  op->result = fd < 0 ? -errno : fd;
  return true;
}

static void accept_suspend(struct coro_awaitable *a, coro_t *waiter) {
  wait_for(a, waiter, ((struct coro_accept *)a)->fd, false);
}

static void accept_cancel(struct coro_awaitable *a) {
  io_cancel(a, ((struct coro_accept *)a)->fd);
}

static const struct coro_awaiter accept_awaiter = {accept_ready, accept_suspend, accept_cancel};

struct coro_accept coro_accept(int listen_fd, struct sockaddr *addr, socklen_t *len) {
  return (struct coro_accept){.base = {.ops = &accept_awaiter}, .fd = listen_fd, .addr = addr,
                              .addrlen = len};
}

/* connect: the first try starts it (EINPROGRESS); when the socket turns
   writable, SO_ERROR says how it went. */
static bool connect_ready(struct coro_awaitable *a) {
  struct coro_connect *op = (struct coro_connect *)a;
  make_nonblocking(record(op->fd));
  if (!op->started) {
    op->started = true;
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
  if (err == EINPROGRESS || err == EALREADY)
    return false;
  op->result = -err;
  return true;
}

static void connect_suspend(struct coro_awaitable *a, coro_t *waiter) {
  wait_for(a, waiter, ((struct coro_connect *)a)->fd, true);
}

static void connect_cancel(struct coro_awaitable *a) {
  io_cancel(a, ((struct coro_connect *)a)->fd);
}

static const struct coro_awaiter connect_awaiter = {connect_ready, connect_suspend, connect_cancel};

struct coro_connect coro_connect(int fd, const struct sockaddr *addr, socklen_t len) {
  return (struct coro_connect){.base = {.ops = &connect_awaiter}, .fd = fd, .addr = addr,
                               .addrlen = len};
}

/* }================================================================== */
