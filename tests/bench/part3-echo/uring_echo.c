/* uring_echo.c: a single-threaded io_uring TCP echo server, the counterpart
 * of epoll_echo.c (same command line, same "listening on" line, TCP_NODELAY
 * on every connection, a 16 KiB buffer per connection). An experiment, not
 * part of tests/bench/run: it asks whether io_uring's fewer system calls
 * would let a server beat the epoll floor (docs/benchmarks.md, "What
 * io_uring would give"). It needs liburing (Debian's liburing-dev):
 *
 *   cc -O2 -o uring_echo tests/bench/part3-echo/uring_echo.c -luring [VARIANT FLAGS]
 *   taskset -c 0 ./uring_echo --port 0 &
 *   taskset -c 0 BUILD/examples/echo_stackless --client --port PORT --connections 1000
 *
 *   uring_echo [--addr A] [--port P]     (port 0: any free port)
 *
 * Build variants (compile-time):
 *   default          ring flags 0; per connection: recv SQE -> send SQE(s) of
 *                    what was received (short sends resubmitted) -> recv again.
 *   -DDEFER          IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN.
 *   -DWAITNR=N       (with -DDEFER) wait for N completions or 1 ms per loop.
 *   -DMSHOT          one multishot recv per connection with a provided-buffer
 *                    ring; received bytes are copied to the connection's buffer
 *                    and the provided buffer is recycled at once; a send is
 *                    issued whenever none is in flight.
 * Accept: one multishot accept, re-armed if it terminates.
 * Loop: one io_uring_submit_and_wait(ring, 1) per iteration, then all CQEs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef DEFER
#define RING_FLAGS (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN)
#else
#define RING_FLAGS 0
#endif
enum { BUF_SIZE = 16384, ENTRIES = 4096, NBUFS = 4096, PBUF = 2048, BGID = 0 };
enum { OP_ACCEPT = 0, OP_RECV = 1, OP_SEND = 2, OP_MASK = 3 };

struct conn {
  int fd, recv_armed, send_busy, dead;
  size_t off, len, cap;   /* buf[off..len): received, not yet echoed */
  char *buf, *oldbuf;     /* oldbuf: still read by an in-flight send (MSHOT growth) */
};

static struct io_uring ring;
static int lfd;
#ifdef MSHOT
static struct io_uring_buf_ring *br;
static char *pbufs;
#endif

static void die(const char *what, int err) {
  fprintf(stderr, "uring_echo: %s: %s\n", what, strerror(err));
  exit(1);
}

static struct io_uring_sqe *sqe_get(void) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
  if (!sqe) {                       /* SQ full: push it to the kernel, retry */
    io_uring_submit(&ring);
    sqe = io_uring_get_sqe(&ring);
    if (!sqe)
      die("io_uring_get_sqe", EBUSY);
  }
  return sqe;
}

static void arm_accept(void) {
  struct io_uring_sqe *sqe = sqe_get();
  io_uring_prep_multishot_accept(sqe, lfd, NULL, NULL, SOCK_CLOEXEC);
  io_uring_sqe_set_data64(sqe, OP_ACCEPT);
}

static void arm_recv(struct conn *c) {
  struct io_uring_sqe *sqe = sqe_get();
#ifdef MSHOT
  io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = BGID;
#else
  io_uring_prep_recv(sqe, c->fd, c->buf, c->cap, 0);
#endif
  io_uring_sqe_set_data64(sqe, (uintptr_t)c | OP_RECV);
  c->recv_armed = 1;
}

static void arm_send(struct conn *c) {
  struct io_uring_sqe *sqe = sqe_get();
  io_uring_prep_send(sqe, c->fd, c->buf + c->off, c->len - c->off, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, (uintptr_t)c | OP_SEND);
  c->send_busy = 1;
}

/* Mark dead; free once no request refers to the connection any more. */
static void conn_release(struct conn *c, int kill) {
  if (kill && !c->dead) {
    c->dead = 1;
    if (c->recv_armed)
      shutdown(c->fd, SHUT_RDWR);   /* ends a pending (multishot) recv */
  }
  if (c->dead && !c->recv_armed && !c->send_busy) {
    close(c->fd);
    free(c->oldbuf);
    free(c->buf);
    free(c);
  }
}

static void on_accept(struct io_uring_cqe *cqe) {
  if (!(cqe->flags & IORING_CQE_F_MORE))
    arm_accept();
  if (cqe->res < 0) {
    if (cqe->res != -ECONNABORTED && cqe->res != -EINTR)
      fprintf(stderr, "uring_echo: accept: %s\n", strerror(-cqe->res));
    return;
  }
  int one = 1;
  setsockopt(cqe->res, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct conn *c = calloc(1, sizeof *c);
  if (!c || !(c->buf = malloc(BUF_SIZE))) {
    free(c);
    close(cqe->res);
    return;
  }
  c->fd = cqe->res;
  c->cap = BUF_SIZE;
  arm_recv(c);
}

#ifdef MSHOT
/* Append n bytes to buf[len..], growing it; an in-flight send keeps the old one. */
static void append(struct conn *c, const char *p, size_t n) {
  if (c->off == c->len && !c->send_busy)
    c->off = c->len = 0;
  if (c->len + n > c->cap) {
    size_t cap = c->cap;
    while (c->len + n > cap)
      cap *= 2;
    if (c->send_busy && !c->oldbuf) {
      char *nb = malloc(cap);
      if (!nb) die("malloc", ENOMEM);
      memcpy(nb, c->buf, c->len);
      c->oldbuf = c->buf;
      c->buf = nb;
    } else if (!(c->buf = realloc(c->buf, cap))) {
      die("realloc", ENOMEM);
    }
    c->cap = cap;
  }
  memcpy(c->buf + c->len, p, n);
  c->len += n;
}
#endif

static void on_recv(struct conn *c, struct io_uring_cqe *cqe) {
#ifdef MSHOT
  if (!(cqe->flags & IORING_CQE_F_MORE))
    c->recv_armed = 0;
  if (cqe->flags & IORING_CQE_F_BUFFER) {
    unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
    if (cqe->res > 0 && !c->dead)
      append(c, pbufs + (size_t)bid * PBUF, (size_t)cqe->res);
    io_uring_buf_ring_add(br, pbufs + (size_t)bid * PBUF, PBUF, bid, io_uring_buf_ring_mask(NBUFS), 0);
    io_uring_buf_ring_advance(br, 1);
  }
  if (c->dead || (cqe->res <= 0 && cqe->res != -ENOBUFS)) {
    conn_release(c, 1);            /* EOF or error (or already dying) */
    return;
  }
  if (!c->recv_armed)
    arm_recv(c);                    /* multishot ended (e.g. ENOBUFS): re-arm */
  if (!c->send_busy && c->len > c->off)
    arm_send(c);
#else
  c->recv_armed = 0;
  if (cqe->res <= 0) {
    if (cqe->res == -EINTR || cqe->res == -EAGAIN)
      arm_recv(c);
    else
      conn_release(c, 1);
    return;
  }
  c->off = 0;
  c->len = (size_t)cqe->res;
  arm_send(c);
#endif
}

static void on_send(struct conn *c, struct io_uring_cqe *cqe) {
  c->send_busy = 0;
  free(c->oldbuf);
  c->oldbuf = NULL;
  if (c->dead || (cqe->res < 0 && cqe->res != -EINTR && cqe->res != -EAGAIN)) {
    conn_release(c, 1);
    return;
  }
  if (cqe->res > 0)
    c->off += (size_t)cqe->res;
  if (c->off < c->len) {
    arm_send(c);                    /* short send (or more appended): the rest */
    return;
  }
  c->off = c->len = 0;
#ifndef MSHOT
  arm_recv(c);
#endif
}

int main(int argc, char **argv) {
  const char *addr = "127.0.0.1";
  long port = 7008;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--addr") && i + 1 < argc)
      addr = argv[++i];
    else if (!strcmp(argv[i], "--port") && i + 1 < argc)
      port = strtol(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: uring_echo [--addr A] [--port P]\n");
      return 2;
    }
  }
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
    die("bad address", EINVAL);
  signal(SIGPIPE, SIG_IGN);
  setvbuf(stdout, NULL, _IOLBF, 0);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 1 << 20 : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }

  lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  socklen_t slen = sizeof sa;
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, SOMAXCONN) < 0 ||
      getsockname(lfd, (struct sockaddr *)&sa, &slen) < 0)
    die("socket/bind/listen", errno);

  struct io_uring_params p = {.flags = RING_FLAGS};
  int r = io_uring_queue_init_params(ENTRIES, &ring, &p);
  if (r < 0)
    die("io_uring_queue_init", -r);
#ifdef MSHOT
  size_t brsz = NBUFS * sizeof(struct io_uring_buf);
  br = mmap(NULL, brsz, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  pbufs = malloc((size_t)NBUFS * PBUF);
  if (br == MAP_FAILED || !pbufs)
    die("buffers", ENOMEM);
  struct io_uring_buf_reg reg = {.ring_addr = (uintptr_t)br, .ring_entries = NBUFS, .bgid = BGID};
  if ((r = io_uring_register_buf_ring(&ring, &reg, 0)) < 0)
    die("io_uring_register_buf_ring", -r);
  io_uring_buf_ring_init(br);
  for (int i = 0; i < NBUFS; i++)
    io_uring_buf_ring_add(br, pbufs + (size_t)i * PBUF, PBUF, i, io_uring_buf_ring_mask(NBUFS), i);
  io_uring_buf_ring_advance(br, NBUFS);
#endif
  arm_accept();
  printf("uring echo server listening on %s:%d\n", addr, ntohs(sa.sin_port));

  for (;;) {
#ifdef WAITNR   /* wake only after WAITNR completions (DEFER_TASKRUN), or 1 ms */
    struct __kernel_timespec ts = {.tv_nsec = 1000000};
    struct io_uring_cqe *first;
    r = io_uring_submit_and_wait_timeout(&ring, &first, WAITNR, &ts, NULL);
#else
    r = io_uring_submit_and_wait(&ring, 1);
#endif
    if (r < 0 && r != -EINTR && r != -ETIME && r != -EBUSY)
      die("io_uring_submit_and_wait", -r);
    unsigned head, n = 0;
    struct io_uring_cqe *cqe;
    io_uring_for_each_cqe(&ring, head, cqe) {
      uint64_t ud = cqe->user_data;
      struct conn *c = (struct conn *)(uintptr_t)(ud & ~(uint64_t)OP_MASK);
      switch (ud & OP_MASK) {
      case OP_ACCEPT: on_accept(cqe); break;
      case OP_RECV: on_recv(c, cqe); break;
      case OP_SEND: on_send(c, cqe); break;
      }
      n++;
    }
    io_uring_cq_advance(&ring, n);
  }
}
