# coroc-gdb-waits.py: what a suspended task waits for, in words; the third
# part of coroc's gdb extension (coroc-gdb.py is the first; docs/debugging.md).
#
#   read on fd 7 (lent buffer)   the WAITS FOR column of info coroutines, for
#   timer, 812 ms left (of 1000) every awaitable libcoro has
#
# A task's header names the awaitable it waits on (struct coro_task's
# waiting_on); the awaitable's ops, a struct coro_awaiter of the runtime,
# says its kind by its symbol's name (read_awaiter, chan_recv_ops...), and
# its struct (<coro/awaitables.h>) says on what: the fd, the timer, the channel.
# libcoro embeds this text after coroc-gdb.py's and coroc-gdb-names.py's, as
# one script (runtime/registry.c); by hand, source it after coroc-gdb.py,
# whose functions (_type, _ptr, _symbol_name, Instance) it calls when gdb
# calls it, not while it loads. Separate from the commands because it grows
# with every awaitable the runtime gains.

import signal
import time

import gdb


def _now_ns(inst):
    """CLOCK_MONOTONIC in ns, as the deadlines count it: the scheduler's last
    reading in a core file, the clock of this machine for a running program."""
    sched = inst.registry["sched"]   # (NULL until the thread's first task or source)
    if _is_core() and not int(inst.registry["exited"]) and _ptr(sched):
        return int(sched["now_ns"])
    return time.monotonic_ns()


def _ms_left(timer, inst):
    """Whole ms until a timer's deadline, rounded up (0.3 ms left is 1), 0 if due."""
    left = int(timer["deadline_ns"]) - _now_ns(inst)
    return max(-(-left // 1000000), 0)


def _deadline(w, inst):
    """', deadline in T ms' for a channel select or a toolkit wait with a deadline of its own."""
    if not int(w["timed"]) or not int(w["timer"]["armed"]):
        return ""
    return ", deadline in %d ms" % _ms_left(w["timer"], inst)


def _signals(sig):
    """'SIGINT, SIGTERM': the signals of a struct coro_signal's set (a
    sigset_t: bit n-1 for signal n)."""
    bits = bytes(gdb.selected_inferior().read_memory(sig["set"].address, 16))
    word = int.from_bytes(bits, "little")
    names = []
    for n in range(1, 128):
        if word >> (n - 1) & 1:
            try:
                names.append(signal.Signals(n).name)
            except ValueError:
                names.append("signal %d" % n)
    return ", ".join(names) or "no signal"


def _channel(chan):
    """'channel 0x...: 2 of 4 values buffered' (or 'unbuffered', 'closed')."""
    addr = _ptr(chan)
    try:
        c = chan.cast(_type("struct coro_chan").pointer()).dereference()
        cap, n = int(c["cap"]), int(c["len"])
        state = "%d of %d values buffered" % (n, cap) if cap else "unbuffered"
        return "channel 0x%x (%s%s)" % (addr, state, ", closed" if int(c["closed"]) else "")
    except (gdb.error, gdb.MemoryError, gdb.GdbError):
        return "channel 0x%x" % addr


def _fd_op(kind, aw):
    op = kind[:-len("_awaiter")]
    return "%s on fd %d" % (op, int(aw.cast(_type("struct coro_" + op).pointer()).dereference()["fd"]))


def _sync(kind, w, inst):
    """An event, semaphore, mutex or group of the toolkit: which, and its state."""
    what, t = {"event_wait_ops": ("event", "struct coro_event"),
               "sem_acquire_ops": ("semaphore", "struct coro_sem"),
               "mutex_lock_ops": ("mutex", "struct coro_mutex"),
               "group_wait_ops": ("group", "struct coro_group")}[kind]
    text = "%s 0x%x" % (what, _ptr(w["object"]))
    obj = w["object"].cast(_type(t).pointer()).dereference()
    if what == "group":
        text += ": %d not done" % int(obj["pending"])
    elif what == "semaphore":
        text += ": %d free" % int(obj["count"])
    return text + _deadline(w, inst)


def describe_awaitable(aw, inst):
    """What the awaitable at aw (a struct coro_awaitable *) is, in words."""
    ops = _ptr(aw.dereference()["ops"])
    kind = _symbol_name(ops) or "0x%x" % ops

    def cast(t):
        return aw.cast(_type(t).pointer()).dereference()
    if kind in ("read_awaiter", "write_awaiter", "accept_awaiter", "connect_awaiter"):
        return _fd_op(kind, aw)
    if kind == "read_buf_awaiter":
        return "read on fd %d (lent buffer)" % int(cast("struct coro_read_buf")["fd"])
    if kind == "signal_awaiter":
        s = cast("struct coro_signal")
        return "signal %s" % _signals(s) + (" (signalfd %d)" % int(s["fd"]) if int(s["fd"]) >= 0 else "")
    if kind == "sleep_awaiter":
        t = cast("struct coro_sleep")
        if not int(t["armed"]):
            return "timer of %d ms" % int(t["ms"])
        return "timer, %d ms left (of %d)" % (_ms_left(t, inst), int(t["ms"]))
    if kind == "group_awaiter":
        w = cast("struct coro_wait")
        if int(w["any"]):
            return "wait_any of %d tasks" % int(w["n"])
        return "wait_all: %d of %d tasks left" % (int(w["left"]), int(w["n"]))
    if kind == "timeout_awaiter":
        t = cast("struct coro_timeout")
        # (the inner awaitable may be a local of a task whose frames are copied out)
        inner = gdb.Value(inst.locate(_ptr(t["inner"]))).cast(aw.type)
        return "%s, timeout in %d ms" % (describe_awaitable(inner, inst), _ms_left(t["timer"], inst))
    if kind == "offload_awaiter":
        o = cast("struct coro_offload")
        fn = _symbol_name(_ptr(o["fn"])) or "0x%x" % _ptr(o["fn"])
        return "offload %s(0x%x)" % (fn, _ptr(o["arg"]))
    if kind in ("chan_send_ops", "chan_recv_ops"):
        op = cast("struct coro_chan_op")
        return "%s on %s" % ("send" if kind == "chan_send_ops" else "receive", _channel(op["chan"]))
    if kind == "chan_select_ops":
        sel = cast("struct coro_chan_select")
        return "select of %d channel operations%s" % (int(sel["n"]), _deadline(sel, inst))
    if kind in ("event_wait_ops", "sem_acquire_ops", "mutex_lock_ops", "group_wait_ops"):
        return _sync(kind, cast("struct coro_sync_wait"), inst)
    if kind == "next_awaiter":
        gen = cast("struct coro_next_await")["gen"]
        name = Instance(gen, inst.registry).name if _ptr(gen) else "?"
        return "next value of async generator 0x%x (%s)" % (_ptr(gen), name)
    if kind == "settled_awaiter":
        return "nothing: its wait was called off (cancelled or timed out), its turn comes"
    return "awaitable 0x%x (%s)" % (_ptr(aw), kind)


def waits_for(inst, by_parent, ready):
    if inst.generator or inst.status != 1:
        return "-"
    aw = inst.task["waiting_on"]
    if _ptr(aw):
        return describe_awaitable(aw, inst)
    child = by_parent.get(inst.addr)
    if child is not None:
        return "task 0x%x (%s)" % (child.addr, child.name)
    if inst.addr in ready:
        return "ready (its turn comes)"
    return "-"
