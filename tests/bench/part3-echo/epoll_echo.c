/* epoll_echo.c: a plain epoll echo server in C, callbacks and a state per
 * connection, the reference that the echo part of the benchmark measures
 * examples/echo.coc against (docs/benchmarks.md, part 3).
 *
 *   epoll_echo [--addr A] [--port P]    serve (default 127.0.0.1:7008; port 0:
 *                                       any free port). The first line printed
 *                                       names the address and port.
 *
 * The same protocol as that server: write back whatever is read, until
 * the peer closes or goes away. The same shape too: one thread, TCP_NODELAY
 * on every connection, a 16 KiB buffer per connection. The difference is the
 * style, which is how such a server is written without coroutines: every fd
 * (the listening socket, each connection) is a `struct handler` whose
 * callback epoll's loop calls when the fd is ready, and what a coroutine
 * keeps in its locals (the bytes read and not yet written back) is kept by
 * hand in a struct conn.
 *
 * A connection reads while it has nothing to write back; when a write is
 * short (the peer's window is full), it keeps the rest, stops asking for
 * EPOLLIN and asks for EPOLLOUT until the rest is out. Level-triggered
 * epoll: one read per event, and epoll reports the fd again if more is
 * waiting. That is the fewest system calls an echo can make (read, write,
 * and a share of one epoll_wait), which is what makes it the reference.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

enum {
  DEFAULT_PORT = 7008,
  BUF_SIZE = 16384,  /* a connection's buffer, as in examples/echo.coc */
  MAX_EVENTS = 256   /* events taken from epoll_wait at once */
};

/* What epoll's data.ptr points to: an fd and what to do when it is ready. */
struct handler {
  int fd;
  void (*on_ready)(struct handler *h, uint32_t events);
};

/* A connection: its handler first, then the bytes read and not yet written
   back (buf[off..len)). */
struct conn {
  struct handler h;
  size_t off, len;   /* len > off: waiting for EPOLLOUT to write the rest */
  char buf[BUF_SIZE];
};

static int epfd;

static void die(const char *what) {
  perror(what);
  exit(1);
}

/* {==================================================================
 * Connections
 * =================================================================== */

static void conn_close(struct conn *c) {
  close(c->h.fd);   /* also takes it out of epoll */
  free(c);
}

/* Ask epoll for EPOLLIN (nothing pending) or EPOLLOUT (the rest of a write). */
static void conn_watch(struct conn *c, int op) {
  struct epoll_event ev = {.events = c->len > c->off ? EPOLLOUT : EPOLLIN, .data.ptr = c};
  if (epoll_ctl(epfd, op, c->h.fd, &ev) < 0)
    die("epoll_echo: epoll_ctl");
}

/* Write out buf[off..len). True when all of it went out, or the connection
   was closed (*closed); false when the socket is full. */
static bool conn_flush(struct conn *c, bool *closed) {
  while (c->off < c->len) {
    ssize_t n = write(c->h.fd, c->buf + c->off, c->len - c->off);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return false;
      if (errno == EINTR)
        continue;
      *closed = true;  /* EPIPE, ECONNRESET: the peer is gone */
      conn_close(c);
      return true;
    }
    c->off += (size_t)n;
  }
  c->off = c->len = 0;
  return true;
}

/* The callback of a connection. */
static void conn_ready(struct handler *h, uint32_t events) {
  struct conn *c = (struct conn *)h;
  bool closed = false;
  if (c->len > c->off) {          /* EPOLLOUT: the rest of a short write */
    if (conn_flush(c, &closed) && !closed)
      conn_watch(c, EPOLL_CTL_MOD);   /* all out: back to reading */
    return;
  }
  (void)events;                   /* EPOLLIN, EPOLLHUP or EPOLLERR: read says which */
  ssize_t n = read(c->h.fd, c->buf, sizeof c->buf);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return;
  if (n <= 0) {                   /* 0: the peer closed; < 0: it reset */
    conn_close(c);
    return;
  }
  c->off = 0;
  c->len = (size_t)n;
  if (!conn_flush(c, &closed))
    conn_watch(c, EPOLL_CTL_MOD);     /* short: wait for room, stop reading */
}

/* }================================================================== */

/* {==================================================================
 * The listening socket
 * =================================================================== */

/* The callback of the listening socket: accept every pending connection. */
static void accept_ready(struct handler *h, uint32_t events) {
  (void)events;
  for (;;) {
    int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return;
      if (errno == ECONNABORTED || errno == EINTR || errno == EPROTO)
        continue;
      perror("epoll_echo: accept");  /* EMFILE...: the rest wait in the backlog */
      return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct conn *c = malloc(sizeof *c);
    if (!c) {
      close(fd);
      continue;
    }
    c->h.fd = fd;
    c->h.on_ready = conn_ready;
    c->off = c->len = 0;
    conn_watch(c, EPOLL_CTL_ADD);
  }
}

static int listen_on(const struct sockaddr_in *addr, int *bound) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    die("epoll_echo: socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = *addr;
  socklen_t len = sizeof a;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, SOMAXCONN) < 0 ||
      getsockname(fd, (struct sockaddr *)&a, &len) < 0)
    die("epoll_echo: bind/listen");
  *bound = ntohs(a.sin_port);
  return fd;
}

/* }================================================================== */

/* Room for many connections: the soft fd limit up to the hard one. */
static void raise_fd_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 1 << 20 : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

static void usage(FILE *to) {
  fprintf(to, "usage: epoll_echo [--addr A] [--port P]   (default 127.0.0.1:%d; port 0: any free port)\n",
          DEFAULT_PORT);
}

int main(int argc, char **argv) {
  const char *addr = "127.0.0.1";
  long port = DEFAULT_PORT;
  for (int i = 1; i < argc; i++) {
    char *end;
    if (!strcmp(argv[i], "--addr") && i + 1 < argc) {
      addr = argv[++i];
    } else if (!strcmp(argv[i], "--port") && i + 1 < argc) {
      port = strtol(argv[++i], &end, 10);
      if (*end || end == argv[i] || port < 0 || port > 65535) {
        usage(stderr);
        return 2;
      }
    } else {
      usage(!strcmp(argv[i], "--help") ? stdout : stderr);
      return !strcmp(argv[i], "--help") ? 0 : 2;
    }
  }
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
    fprintf(stderr, "epoll_echo: not an IPv4 address: %s\n", addr);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);  /* a write to a closed connection gives EPIPE instead */
  setvbuf(stdout, NULL, _IOLBF, 0);
  raise_fd_limit();

  epfd = epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0)
    die("epoll_echo: epoll_create1");
  int bound;
  struct handler listener = {.fd = listen_on(&sa, &bound), .on_ready = accept_ready};
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &listener};
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, listener.fd, &ev) < 0)
    die("epoll_echo: epoll_ctl");
  printf("epoll echo server listening on %s:%d\n", addr, bound);

  struct epoll_event events[MAX_EVENTS];
  for (;;) {
    int n = epoll_wait(epfd, events, MAX_EVENTS, -1);
    if (n < 0 && errno != EINTR)
      die("epoll_echo: epoll_wait");
    for (int i = 0; i < n; i++) {
      struct handler *h = events[i].data.ptr;
      h->on_ready(h, events[i].events);
    }
  }
}
