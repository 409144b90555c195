/* launch.c: run a command and report its resources, for frontend.py.
 *
 *   launch OUT COMMAND [ARG...]
 *
 * writes "user_seconds system_seconds peak_rss_kib exit_status own_seconds" to
 * OUT. The first three are wait4's rusage of the command, which includes the
 * children it waited for; own_seconds is the user + system time of the
 * command's process alone, read from /proc/PID/stat while it is a zombie (it
 * has exited, not yet been reaped: waitid with WNOWAIT), in clock ticks, so
 * in steps of 10 ms; -1 if /proc cannot say.
 * Why not fork from Python: a forked child starts as a copy of its parent,
 * and the kernel's peak RSS of a process counts what it held before exec,
 * so every command measured from Python would peak at least at Python's own
 * size. This launcher is small, so the figure is the command's (and its
 * children's, which the kernel adds as they are waited for).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  siginfo_t info;
  if (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0)
    return 2;
  double own = -1;
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *stat = fopen(path, "r");
  if (stat) {
    /* pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt
       majflt cmajflt utime stime ...: comm may hold spaces, so from its ')' */
    char *p = fgets(line, sizeof line, stat) ? strrchr(line, ')') : NULL;
    unsigned long utime, stime;
    if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) == 2)
      own = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
    fclose(stat);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0)
    return 2;
  FILE *out = fopen(argv[1], "w");
  if (!out)
    return 2;
  fprintf(out, "%ld.%06ld %ld.%06ld %ld %d %.2f\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
          (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, ru.ru_maxrss,
          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), own);
  return fclose(out) != 0;
}
