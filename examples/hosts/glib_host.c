/* glib_host.c: coroc's scheduler as a GLib event source (glib_host.h).
 *
 * A GSource has three hooks, which map onto coroc's three calls
 * (docs/runtime.md, "Driven by another loop"):
 *
 *   prepare   before GLib polls: the timeout is coro_sched_timeout(), and
 *             0 ("ready now") means dispatch without polling. GLib calls it
 *             before every wait, which is when coroc wants to be asked:
 *             after anything that may have set a timer, such as a
 *             coro_deadline() from another source's callback.
 *   check     after the poll: coro_sched_fd() is readable (a task is ready,
 *             a descriptor a task waits on is ready, a timer is due, ...), or
 *             the timeout has run out (for a timer, if the runtime had no
 *             timerfd to make the descriptor readable).
 *   dispatch  coro_run_ready(): the tasks ready now, one turn each, and back
 *             to GLib. Tasks made ready meanwhile wait for the next dispatch,
 *             so one dispatch never keeps the rest of the program waiting.
 *
 * The descriptor is level-triggered, which is how GLib polls. A source does
 * not dispatch recursively (GLib's default; do not change it with
 * g_source_set_can_recurse): a task that runs a nested main loop (a modal
 * dialog) then cannot have coro_run_ready called from inside itself.
 */
#include "glib_host.h"

#include <coro.h>
#include <errno.h>

struct coroc_glib_source {
  GSource source; /* first: GLib allocates the whole struct */
  gpointer fd_tag; /* coro_sched_fd() as added to the source */
};

static gboolean coroc_prepare(GSource *source, gint *timeout) {
  (void)source;
  *timeout = coro_sched_timeout(); /* -1: only the descriptor says when */
  return *timeout == 0;
}

static gboolean coroc_check(GSource *source) {
  struct coroc_glib_source *s = (struct coroc_glib_source *)source;
  if (g_source_query_unix_fd(source, s->fd_tag) & G_IO_IN)
    return TRUE;
  return coro_sched_timeout() == 0;
}

static gboolean coroc_dispatch(GSource *source, GSourceFunc callback, gpointer data) {
  (void)source;
  long left = coro_run_ready(NULL);
  if (left == 0 && callback)
    return callback(data); /* every task has ended */
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs coroc_funcs = {
    .prepare = coroc_prepare,
    .check = coroc_check,
    .dispatch = coroc_dispatch,
};

GSource *coroc_glib_source_new(void) {
  int fd = coro_sched_fd();
  if (fd < 0) {
    errno = -fd;
    return NULL;
  }
  GSource *source = g_source_new(&coroc_funcs, sizeof(struct coroc_glib_source));
  struct coroc_glib_source *s = (struct coroc_glib_source *)source;
  s->fd_tag = g_source_add_unix_fd(source, fd, G_IO_IN);
  g_source_set_name(source, "coroc tasks");
  return source;
}
