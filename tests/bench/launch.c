/* launch.c: run a command and report its resources, for frontend.py.
 *
 *   launch OUT COMMAND [ARG...]
 *
 * writes "user_seconds system_seconds peak_rss_kib exit_status" to OUT.
 * Why not fork from Python: a forked child starts as a copy of its parent,
 * and the kernel's peak RSS of a process counts what it held before exec,
 * so every command measured from Python would peak at least at Python's own
 * size. This launcher is small, so the figure is the command's (and its
 * children's, which the kernel adds as they are waited for).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: launch OUT COMMAND [ARG...]\n");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0)
    return 2;
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0)
    return 2;
  FILE *out = fopen(argv[1], "w");
  if (!out)
    return 2;
  fprintf(out, "%ld.%06ld %ld.%06ld %ld %d\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
          (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, ru.ru_maxrss,
          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return fclose(out) != 0;
}
