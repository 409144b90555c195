/* uv_echo.c: an echo server written with libuv, the way a careful libuv user
 * writes one, for the echo part of the benchmark (docs/benchmarks.md).
 *
 *   uv_echo [--addr A] [--port P]       serve (default 127.0.0.1:7009; port 0:
 *                                       any free port). The first line printed
 *                                       names the address and port.
 *
 * The same protocol as examples/echo.coc: write back whatever is
 * read, until the peer closes or goes away; TCP_NODELAY on every connection.
 * Memory is held only while data is in hand: libuv asks for a buffer
 * (alloc_cb) only once a connection is readable, and this server hands out
 * 16 KiB buffers from a free list, taking each back when its bytes are
 * written. The echo is tried at once with uv_try_write; only what the
 * socket does not take is queued with uv_write, and the connection stops
 * reading until that is out, so a peer that never reads holds one buffer.
 */
#include <uv.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum {
  DEFAULT_PORT = 7009,
  BUF_SIZE = 16384   /* as examples/echo.coc's and epoll_echo.c's */
};

/* A connection: its handle, and the write queued while the socket was full. */
struct conn {
  uv_tcp_t tcp;      /* first: a uv_handle_t * to it is a struct conn * */
  uv_write_t req;
  char *pending;     /* the buffer of the queued write; NULL if none */
};

static uv_loop_t *loop;
static char *free_bufs;  /* the free list, linked through each buffer's first bytes */

static char *buf_get(void) {
  char *b = free_bufs;
  if (b) {
    memcpy(&free_bufs, b, sizeof free_bufs);
    return b;
  }
  return malloc(BUF_SIZE);
}

static void buf_put(char *b) {
  memcpy(b, &free_bufs, sizeof free_bufs);
  free_bufs = b;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)h;
  (void)suggested;
  char *b = buf_get();
  *buf = uv_buf_init(b, b ? BUF_SIZE : 0);
}

static void on_closed(uv_handle_t *h) {
  struct conn *c = (struct conn *)h;
  if (c->pending)
    buf_put(c->pending);
  free(c);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

static void on_written(uv_write_t *req, int status) {
  struct conn *c = req->data;
  buf_put(c->pending);
  c->pending = NULL;
  if (status < 0) {
    uv_close((uv_handle_t *)&c->tcp, on_closed);
    return;
  }
  uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  struct conn *c = (struct conn *)s;
  if (n <= 0) {
    if (buf->base)
      buf_put(buf->base);
    if (n < 0)   /* UV_EOF, or the peer reset */
      uv_close((uv_handle_t *)s, on_closed);
    return;
  }
  uv_buf_t out = uv_buf_init(buf->base, (unsigned)n);
  int w = uv_try_write(s, &out, 1);
  if (w == n) {
    buf_put(buf->base);
    return;
  }
  if (w < 0 && w != UV_EAGAIN) {
    buf_put(buf->base);
    uv_close((uv_handle_t *)s, on_closed);
    return;
  }
  if (w > 0) {
    out.base += w;
    out.len -= (unsigned)w;
  }
  c->pending = buf->base;
  c->req.data = c;
  uv_read_stop(s);
  if (uv_write(&c->req, s, &out, 1, on_written) < 0) {
    uv_close((uv_handle_t *)s, on_closed);
  }
}

static void on_connection(uv_stream_t *server, int status) {
  if (status < 0)
    return;
  struct conn *c = calloc(1, sizeof *c);
  if (!c)
    return;
  uv_tcp_init(loop, &c->tcp);
  if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0) {
    uv_close((uv_handle_t *)&c->tcp, on_closed);
    return;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

/* Room for many connections: the soft fd limit up to the hard one. */
static void raise_fd_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 1 << 20 : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

int main(int argc, char **argv) {
  const char *addr = "127.0.0.1";
  int port = DEFAULT_PORT;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--addr") && i + 1 < argc)
      addr = argv[++i];
    else if (!strcmp(argv[i], "--port") && i + 1 < argc)
      port = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: uv_echo [--addr A] [--port P]\n");
      return 2;
    }
  }
  signal(SIGPIPE, SIG_IGN);
  setvbuf(stdout, NULL, _IOLBF, 0);
  raise_fd_limit();
  loop = uv_default_loop();
  uv_tcp_t server;
  struct sockaddr_in sa;
  uv_tcp_init(loop, &server);
  if (uv_ip4_addr(addr, port, &sa) < 0 || uv_tcp_bind(&server, (struct sockaddr *)&sa, 0) < 0 ||
      uv_listen((uv_stream_t *)&server, SOMAXCONN, on_connection) < 0) {
    fprintf(stderr, "uv_echo: cannot listen on %s:%d\n", addr, port);
    return 1;
  }
  struct sockaddr_in bound;
  int len = sizeof bound;
  uv_tcp_getsockname(&server, (struct sockaddr *)&bound, &len);
  printf("libuv echo server listening on %s:%d\n", addr, ntohs(bound.sin_port));
  return uv_run(loop, UV_RUN_DEFAULT);
}
