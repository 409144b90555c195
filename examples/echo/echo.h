/* echo.h: what the files of the echo example share, and nothing more.
 *
 * The example is a TCP echo server and its load-generating client, in one
 * program (echo_stackless and echo_stackful) of four files:
 *
 *   server.coc  the server: an acceptor, a task per connection, the idle
 *               sweeper and the signal stopper
 *   client.coc  the client: a task per connection, every byte of every echo
 *               checked, and the report of what it saw
 *   main.c      the command line, --threads and main: plain C, no coroutine
 *   echo.h      this file: the options and state that two files read, and
 *               the functions by which main.c starts the other two
 *
 * No file creates or awaits a coroutine of another: server.coc and client.coc
 * start their own tasks, from a plain function of theirs (start_server,
 * spawn_clients). So this header, plain C as every header is for coroc, needs
 * no `coroutine` prototype; and each task awaits only helpers defined above it
 * in its own file, whose frames it holds inside its own (docs/language.md).
 */
#ifndef ECHO_H
#define ECHO_H

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <time.h>

enum {
  DEFAULT_PORT = 7007,
  MAX_THREADS = 64
};

/* --threads N (main.c): one scheduler per thread, each with its own listening
   socket on the same port (SO_REUSEPORT: the kernel spreads the connections)
   and its own connections; wake_fd[i] tells thread i to stop. */
extern int nthreads;
extern int wake_fd[MAX_THREADS];

/* {==================================================================
 * Both sides
 * =================================================================== */

static inline void no_delay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* }================================================================== */

/* {==================================================================
 * The server (server.coc)
 * =================================================================== */

extern struct server_options {
  unsigned idle_ms;   /* close a connection idle this long (0: never) */
  unsigned grace_ms;  /* on a signal, wait this long for connections to end */
} server;

/* A listening socket on addr:port; its actual port (port 0: the kernel's
   choice) in *bound. -1 after a message. */
int listen_on(const struct sockaddr_in *addr, int *bound, bool reuseport);

/* The tasks of a server thread on the listening socket lfd, to run when the
   thread calls coro_run: until `limit` connections were accepted and served
   (a self-test), or (limit < 0) until SIGINT or SIGTERM. */
int start_server(int thread, int lfd, long limit);

/* }================================================================== */

/* {==================================================================
 * The client (client.coc)
 * =================================================================== */

extern struct client_state {
  struct sockaddr_in server;
  int connections;
  size_t size;
  int rounds;
  bool self_test;    /* the server is in this process too */
  _Atomic int finished; /* connection tasks that ended, well or not (--threads: from all) */
  _Atomic int failed;   /* ... of which this many with an error */
  _Atomic long verified;/* echoes that came back byte for byte */
  double start, end; /* the first connection opened, the last one closed */
  float *latency;    /* [id * rounds + r]: that round trip's time, µs */
} client;

/* The connections of client thread `thread`: every nthreads-th one. */
void spawn_clients(int thread);

/* Print what the client saw; its exit status. */
int client_report(void);

/* }================================================================== */

#endif
