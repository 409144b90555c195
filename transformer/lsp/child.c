/* child.c: a child process that speaks JSON-RPC in LSP's framing (clangd).
 *
 * The server must never block on it: both pipes are non-blocking, what is
 * to be written waits in a buffer until the child's input takes it (the
 * event loop, server.c, polls for that), and what the child writes is
 * gathered until a whole message is there. Its end shows as the end of
 * its output, or as a write that fails (EPIPE): the caller then stops it
 * (reaping the process) and starts another if it likes. Separate from
 * rpc.c, whose peer is the editor on the server's own standard input and
 * output, read a message at a time.
 */
#define _GNU_SOURCE
#include "lsp.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

static void grow(char **buf, size_t *cap, size_t need) {
  if (need <= *cap)
    return;
  size_t n = *cap ? *cap : 1 << 16;
  while (n < need)
    n *= 2;
  *buf = realloc(*buf, n);
  if (!*buf)
    abort();
  *cap = n;
}

bool child_start(Child *c, char *const argv[]) {
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0)
    return false;
  if (pipe2(from, O_CLOEXEC) != 0) {
    close(to[0]);
    close(to[1]);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(to[0]);
    close(to[1]);
    close(from[0]);
    close(from[1]);
    return false;
  }
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(to[0], 0);
    dup2(from[1], 1);
    if (null >= 0)
      dup2(null, 2);
    signal(SIGPIPE, SIG_DFL);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  fcntl(to[1], F_SETFL, O_NONBLOCK);
  fcntl(from[0], F_SETFL, O_NONBLOCK);
  c->pid = pid;
  c->to = to[1];
  c->from = from[0];
  c->out_len = c->in_len = 0;
  return true;
}

void child_send(Child *c, json_t *msg) {
  char *body = json_dumps(msg, JSON_COMPACT);
  json_decref(msg);
  if (!body || !c->pid) {
    free(body);
    return;
  }
  char head[64];
  size_t len = strlen(body);
  int n = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
  grow(&c->out, &c->out_cap, c->out_len + n + len);
  memcpy(c->out + c->out_len, head, n);
  memcpy(c->out + c->out_len + n, body, len);
  c->out_len += n + len;
  free(body);
}

bool child_flush(Child *c) {
  size_t done = 0;
  while (done < c->out_len) {
    ssize_t w = write(c->to, c->out + done, c->out_len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    if (w <= 0)
      return false;
    done += w;
  }
  memmove(c->out, c->out + done, c->out_len - done);
  c->out_len -= done;
  return true;
}

bool child_read(Child *c) {
  for (;;) {
    grow(&c->in, &c->in_cap, c->in_len + (1 << 16));
    ssize_t r = read(c->from, c->in + c->in_len, c->in_cap - c->in_len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;
    if (r <= 0)
      return false;
    c->in_len += r;
  }
}

json_t *child_next(Child *c) {
  for (;;) {
    grow(&c->in, &c->in_cap, c->in_len + 1);
    c->in[c->in_len] = '\0';
    char *end = strstr(c->in, "\r\n\r\n");
    if (!end)
      return NULL;
    long length = -1;
    for (char *line = c->in; line < end;) {
      char *eol = strstr(line, "\r\n");
      if (strncasecmp(line, "Content-Length:", 15) == 0)
        length = strtol(line + 15, NULL, 10);
      line = eol + 2;
    }
    size_t head = end + 4 - c->in;
    if (length < 0) { /* (clangd always sends one: a header block without is skipped) */
      memmove(c->in, c->in + head, c->in_len - head);
      c->in_len -= head;
      continue;
    }
    if (c->in_len < head + length)
      return NULL;
    json_t *msg = json_loadb(c->in + head, length, 0, NULL);
    memmove(c->in, c->in + head + length, c->in_len - head - length);
    c->in_len -= head + length;
    if (msg)
      return msg;
  }
}

void child_stop(Child *c) {
  if (!c->pid)
    return;
  close(c->to);
  close(c->from);
  kill(c->pid, SIGKILL); /* (ours: it need not end cleanly, and must not hang us) */
  while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
    ;
  c->pid = 0;
  c->out_len = c->in_len = 0;
}
