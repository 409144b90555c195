/* main.c: the echo example's command line, threads and main (examples/echo/;
 * echo.h lists the files). A TCP echo server and its load-generating client,
 * in one program:
 *
 *   echo [--addr A] [--port P] [--idle MS] [--grace MS]
 *                                       serve (default 127.0.0.1:7007; port 0:
 *                                       any free port). The first line printed
 *                                       names the address and port. A connection
 *                                       that sends nothing for --idle ms (default
 *                                       60000; 0: never) is closed. On SIGINT or
 *                                       SIGTERM the server stops accepting, echoes
 *                                       what each connection has sent, gives them
 *                                       --grace ms (default 5000) to end, closes
 *                                       the rest, and exits 0.
 *   echo --client [--addr A] [--port P] [--connections N] [--size M] [--rounds R]
 *                                       open N connections, and on each send an
 *                                       M-byte message R times, checking every
 *                                       byte of every echo; print the round trips
 *                                       per second. Exit status 1 on any error.
 *   echo --self-test N M R              both in one process: the server's tasks
 *                                       and the client's on one scheduler.
 *   (server or client) --threads N      N threads, a scheduler each.
 *
 * Plain C: it reads the options, starts the server's tasks (server.coc) or
 * the client's (client.coc) or both, on one thread or N, and runs each
 * thread's scheduler. It has no coroutine of its own, so coroc has nothing to
 * do with it: the compiler takes it as it is, the same for both backends,
 * which build the same program from the three files (examples/CMakeLists.txt:
 * echo_stackless and echo_stackful).
 */
#define _GNU_SOURCE
#include <coro.h>

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>

#include "echo.h"

/* {==================================================================
 * Threads (--threads N): each runs a scheduler of its own
 * =================================================================== */

int nthreads = 1;            /* echo.h: --threads, and what each thread reads */
int wake_fd[MAX_THREADS];

struct thread_arg {
  int index;
  bool is_client;
  struct sockaddr_in addr;   /* where a server thread listens */
  pthread_t id;
};

static void *thread_main(void *p) {
  struct thread_arg *t = p;
  if (t->is_client) {
    spawn_clients(t->index);
  } else {
    int bound;
    int lfd = listen_on(&t->addr, &bound, true);
    if (lfd < 0)
      exit(1);
    start_server(t->index, lfd, -1);
  }
  int rc = coro_run();
  if (rc < 0)
    fprintf(stderr, "echo: coro_run (thread %d): %s\n", t->index, strerror(-rc));
  return NULL;
}

/* Start threads 1..nthreads-1 (the caller is thread 0). */
static struct thread_arg *start_threads(bool is_client, const struct sockaddr_in *addr) {
  static struct thread_arg t[MAX_THREADS];
  for (int i = 1; i < nthreads; i++) {
    t[i] = (struct thread_arg){.index = i, .is_client = is_client, .addr = *addr};
    if (!is_client && (wake_fd[i] = eventfd(0, EFD_CLOEXEC)) < 0) {
      perror("echo: eventfd");
      exit(1);
    }
    int err = pthread_create(&t[i].id, NULL, thread_main, &t[i]);
    if (err) {
      fprintf(stderr, "echo: pthread_create: %s\n", strerror(err));
      exit(1);
    }
  }
  return t;
}

static void join_threads(struct thread_arg *t) {
  for (int i = 1; i < nthreads; i++)
    pthread_join(t[i].id, NULL);
}

/* }================================================================== */

/* {==================================================================
 * main
 * =================================================================== */

/* Room for `need` fds: raise the soft limit, up to the hard one. False if
   that is not enough. */
static bool raise_fd_limit(long need) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
    return true;  /* no way to tell: try */
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max) {
    struct rlimit want = rl;
    want.rlim_cur = rl.rlim_max;
    if (rl.rlim_max == RLIM_INFINITY)
      want.rlim_cur = 1 << 20;  /* the kernel's usual nr_open */
    if (setrlimit(RLIMIT_NOFILE, &want) == 0)
      rl = want;
  }
  if (rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur < need) {
    fprintf(stderr, "echo: %ld fds needed, but the limit is %ld (ulimit -Hn)\n", need, (long)rl.rlim_cur);
    return false;
  }
  return true;
}

static void usage(FILE *to) {
  fprintf(to,
          "usage: echo [--addr A] [--port P] [--idle MS] [--grace MS]   serve\n"
          "       echo --client [--addr A] [--port P] [--connections N] [--size M] [--rounds R]\n"
          "       (server or client) --threads N: N threads, a scheduler each (default 1)\n"
          "       echo --self-test N M R                           server and client in one process\n"
          "defaults: --addr 127.0.0.1 --port %d --connections 100 --size 64 --rounds 100\n"
          "          --idle %u (close a connection idle this long; 0: never)\n"
          "          --grace %u (on SIGINT/SIGTERM, wait this long for connections to end)\n",
          DEFAULT_PORT, server.idle_ms, server.grace_ms);
}

/* A whole number in [min, max], or exit with a message. */
static long number(const char *what, const char *s, long min, long max) {
  char *end;
  errno = 0;
  long v = s ? strtol(s, &end, 10) : 0;
  if (!s || errno || end == s || *end || v < min || v > max) {
    fprintf(stderr, "echo: %s wants a number from %ld to %ld, not '%s'\n", what, min, max, s ? s : "");
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  const char *addr = "127.0.0.1";
  long port = DEFAULT_PORT;
  bool is_client = false, self_test = false;
  client.connections = 100;
  client.size = 64;
  client.rounds = 100;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--addr") && v)
      addr = argv[++i];
    else if (!strcmp(a, "--port"))
      port = number(a, v, 0, 65535), i++;
    else if (!strcmp(a, "--threads"))
      nthreads = (int)number(a, v, 1, MAX_THREADS), i++;
    else if (!strcmp(a, "--idle"))
      server.idle_ms = (unsigned)number(a, v, 0, 86400000), i++;
    else if (!strcmp(a, "--grace"))
      server.grace_ms = (unsigned)number(a, v, 0, 86400000), i++;
    else if (!strcmp(a, "--client"))
      is_client = true;
    else if (!strcmp(a, "--connections"))
      client.connections = (int)number(a, v, 1, 1000000), i++;
    else if (!strcmp(a, "--size"))
      client.size = (size_t)number(a, v, 1, 1L << 30), i++;
    else if (!strcmp(a, "--rounds"))
      client.rounds = (int)number(a, v, 0, 1000000000), i++;
    else if (!strcmp(a, "--self-test") && i + 3 < argc) {
      self_test = client.self_test = true;
      client.connections = (int)number("--self-test N", argv[i + 1], 1, 1000000);
      client.size = (size_t)number("--self-test M", argv[i + 2], 1, 1L << 30);
      client.rounds = (int)number("--self-test R", argv[i + 3], 0, 1000000000);
      port = 0;
      i += 3;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }

  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
    fprintf(stderr, "echo: not an IPv4 address: %s\n", addr);
    return 2;
  }
  /* SIGPIPE needs nothing: a write to a closed connection gives -EPIPE
     (the runtime sends with MSG_NOSIGNAL). SIGINT and SIGTERM are blocked
     from the start: the stopper task takes them as events (coro_signal). */
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  if (!is_client && !self_test)
    sigprocmask(SIG_BLOCK, &stop_signals, NULL);
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* An fd per connection: for the server, the client, or both. Short of them,
     a client stops at once, and so does a self-test, whose clients would
     otherwise hold the very fds its server needs to accept them. */
  if (!raise_fd_limit(is_client ? client.connections + 16L
                      : self_test ? 2L * client.connections + 16 : 1024 + 16) &&
      (is_client || self_test))
    return 1;

  if (self_test)
    nthreads = 1;  /* server and client share one scheduler */
  int bound = 0;
  struct thread_arg *threads = NULL;
  if (!is_client) {
    int lfd = listen_on(&sa, &bound, nthreads > 1);
    if (lfd < 0)
      return 1;
    struct sockaddr_in same = sa;
    same.sin_port = htons((uint16_t)bound);  /* port 0: the others join the port the first got */
    threads = start_threads(false, &same);
    if (!self_test)  /* once every thread is there */
      printf("echo server listening on %s:%d\n", addr, bound);
    start_server(0, lfd, self_test ? client.connections : -1);
  }
  if (is_client || self_test) {
    client.server = sa;
    client.server.sin_port = htons((uint16_t)(self_test ? bound : port));
    client.latency = calloc((size_t)client.connections * (size_t)client.rounds, sizeof *client.latency);
    client.start = now();
    threads = start_threads(true, &sa);
    spawn_clients(0);
  }

  int rc = coro_run();
  if (rc < 0) {
    fprintf(stderr, "echo: coro_run: %s\n", strerror(-rc));
    return 1;
  }
  if (threads)
    join_threads(threads);
  return is_client || self_test ? client_report() : 0;
}

/* }================================================================== */
