/* glib_main.c: a workload (workloads.h) in a GLib main loop through
   examples/hosts/glib_host.c, or under coro_run for comparison:
     glib_main fizzbuzz|echo|limits [--coro-run]
   limits' host part (limits_from_host) runs from a GLib timeout source, a
   callback of GLib's between two dispatches of coroc's source. */
#include <glib.h>

#include "glib_host.h"
#include "workloads.h"

static gboolean all_done(gpointer loop) {
  g_main_loop_quit(loop);
  return G_SOURCE_REMOVE;
}

static gboolean from_host(gpointer unused) {
  (void)unused;
  limits_from_host();
  return G_SOURCE_REMOVE;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  if (workload_by_coro_run(argc, argv))
    return 0;
  GMainLoop *loop = g_main_loop_new(NULL, FALSE);
  GSource *tasks = coroc_glib_source_new();
  if (!tasks)
    return 1;
  g_source_set_callback(tasks, all_done, loop, NULL);
  g_source_attach(tasks, NULL);
  g_source_unref(tasks);
  if (workload_spawn(argv[1], 0) < 0)
    return 1;
  if (!strcmp(argv[1], "limits"))
    g_timeout_add(3, from_host, NULL);
  g_main_loop_run(loop);
  g_main_loop_unref(loop);
  workload_end(argv[1]);
  return 0;
}
