/* glib_host.h: coroc's scheduler as a GLib event source, so that a GLib main
 * loop (a GTK or GStreamer program's) runs coroc tasks. Copy this header and
 * glib_host.c into your program; docs/hosts.md explains them.
 *
 *   GSource *src = coroc_glib_source_new();
 *   g_source_set_callback(src, all_done, loop, NULL);    (optional)
 *   g_source_attach(src, NULL);                           (the thread's context)
 *   g_source_unref(src);
 *   coro_spawn(...);                                      (before or from callbacks)
 *   g_main_loop_run(loop);
 */
#ifndef COROC_GLIB_HOST_H
#define COROC_GLIB_HOST_H

#include <glib.h>

/* A new source that runs the coroc tasks of the calling thread: attach it to
   the GMainContext this thread iterates (coroc's scheduler belongs to the
   thread). Its callback, if you set one (a GSourceFunc), is called after a
   dispatch that left no task; returning G_SOURCE_REMOVE destroys the source.
   NULL if coro_sched_fd() failed (errno says why). */
GSource *coroc_glib_source_new(void);

#endif
