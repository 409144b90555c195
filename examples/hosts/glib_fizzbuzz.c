/* glib_fizzbuzz.c: examples/fizzbuzz.coc's three tasks in a GLib main loop
 * (glib_host.c), printing what fizzbuzz prints under coro_run(): the loop
 * quits when the source's callback says every task has ended.
 *
 *   glib_fizzbuzz [TICK_MS]
 */
#include <coro.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "glib_host.h"

int fizzbuzz_spawn(long tick_ms); /* examples/fizzbuzz.coc, built with FIZZBUZZ_HOSTED */

static gboolean all_done(gpointer loop) {
  g_main_loop_quit(loop);
  return G_SOURCE_REMOVE;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  long tick_ms = argc > 1 ? atol(argv[1]) : 100;
  GMainLoop *loop = g_main_loop_new(NULL, FALSE);
  GSource *tasks = coroc_glib_source_new();
  if (!tasks) {
    perror("glib_fizzbuzz: coro_sched_fd");
    return 1;
  }
  g_source_set_callback(tasks, all_done, loop, NULL);
  g_source_attach(tasks, NULL);
  g_source_unref(tasks);
  if (fizzbuzz_spawn(tick_ms) < 0)
    return 1;
  g_main_loop_run(loop);
  g_main_loop_unref(loop);
  return 0;
}
