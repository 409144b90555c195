"""The trace of a run (docs/debugging.md, "Tracing a run"): CORO_TRACE=FILE,
coro_trace_start and coro_trace_stop write Chrome trace-event JSON.

Each program runs under both backends; the file is read back and checked for
its structure, never for times:
  * it parses, and every slice has a duration >= 0;
  * every track of an instance is named coroutine@0xADDRESS, with its name;
  * no instance runs twice at once (its run slices do not overlap);
  * every wake-up flow starts inside a slice on the waker's track (a task's
    run, or the thread's own when a source or the code outside tasks woke
    it) and ends at the woken's next run;
  * the waits say what the program awaits, as its source says (the .coc
    line of an await, the descriptors of fizzbuzz's pipes and timer as the
    kernel hands them out: the lowest free ones, in the order it makes them);
  * a cancellation shows; a program that exits from a task, or stops on a
    fatal runtime error, still writes the file; the size cap drops events
    and says so.
"""
import json
import os
import re
import subprocess

import pytest

from conftest import BACKENDS, SOURCE_DIR, TESTS_DIR

FIZZBUZZ = SOURCE_DIR / "examples" / "fizzbuzz.coc"
CANCEL_CHAN = TESTS_DIR / "trace" / "cancel_chan.coc"
TRACK_NAME = re.compile(r"^coroutine@0x[0-9a-f]+( [A-Za-z_][A-Za-z_0-9]*)?$")


def build(toolchain, src, backend):
    return toolchain.compile(toolchain.transform(src, backend), "gcc")


def record(exe, trace, args=(), env=None, trace_env=True):
    """Run exe with its descriptors 0-2 only (close_fds), CORO_TRACE=trace."""
    e = dict(os.environ)
    e.pop("CORO_TRACE", None)
    e.pop("CORO_TRACE_MAX", None)
    if trace_env:
        e["CORO_TRACE"] = str(trace)
    e.update(env or {})
    return subprocess.run([str(exe), *map(str, args)], env=e, capture_output=True, text=True,
                          timeout=60, close_fds=True)


class Trace:
    """A trace file, read back: its tracks, slices and flows."""

    def __init__(self, path):
        assert path.exists(), f"no trace written at {path}"
        self.data = json.loads(path.read_text())
        self.events = self.data["traceEvents"]
        self.names = {}   # (pid, tid) -> track name
        for e in self.events:
            if e["ph"] == "M" and e["name"] == "thread_name":
                self.names[(e["pid"], e["tid"])] = e["args"]["name"]
        self.instance_tracks = {k: v for k, v in self.names.items() if k[0] != k[1]}

    def of(self, ph, cat=None):
        return [e for e in self.events if e["ph"] == ph and (cat is None or e.get("cat") == cat)]

    def track(self, e):
        return (e["pid"], e["tid"])

    def tracks_named(self, name):
        return [k for k, v in self.instance_tracks.items() if v.split(" ")[-1] == name]

    def runs(self, track):
        return sorted((e for e in self.of("X", "run") if self.track(e) == track),
                      key=lambda e: e["ts"])

    def waits(self, track=None):
        return [e for e in self.of("X", "wait") if track is None or self.track(e) == track]

    def instants(self, track, name):
        return [e for e in self.of("i") if self.track(e) == track and e["name"] == name]

    def check_structure(self):
        assert self.instance_tracks, "no instance tracks"
        for key, name in self.instance_tracks.items():
            assert TRACK_NAME.match(name), f"track {key} named {name!r}"
        for e in self.of("X"):
            assert e["dur"] >= 0, e
            assert self.track(e) in self.names, f"a slice on an unnamed track: {e}"
        # no instance runs twice at once
        for track in self.instance_tracks:
            runs = self.runs(track)
            for a, b in zip(runs, runs[1:]):
                assert b["ts"] >= round(a["ts"] + a["dur"], 3), (a, b)
        # flows: from a slice on the waker's track to the woken's next run
        starts = {e["id"]: e for e in self.of("s")}
        ends = {e["id"]: e for e in self.of("f")}
        assert len(starts) == len(self.of("s")) and len(ends) == len(self.of("f"))
        assert starts.keys() == ends.keys()
        slices = self.of("X")
        for fid, s in starts.items():
            f = ends[fid]
            assert f.get("bp") == "e", f
            assert any(self.track(x) == self.track(s) and x["ts"] <= s["ts"] <= x["ts"] + x["dur"]
                       for x in slices), f"flow {fid} starts in no slice: {s}"
            later = [r for r in self.runs(self.track(f)) if r["ts"] >= s["ts"]]
            assert later and later[0]["ts"] == f["ts"], \
                f"flow {fid} does not end at the woken's next run: {s} {f}"
        return self


def line_of(src, text):
    """The 1-based line of src that holds text (once)."""
    lines = [i + 1 for i, line in enumerate(src.read_text().splitlines()) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_fizzbuzz(toolchain, backend):
    exe = build(toolchain, FIZZBUZZ, backend)
    path = toolchain.tmp / "fizzbuzz.json"
    res = record(exe, path, ["1"])   # a tick a millisecond
    assert res.returncode == 0, res.stderr
    t = Trace(path).check_structure()
    for name in ("fizz", "buzz", "consume"):
        assert len(t.tracks_named(name)) == 1, (name, t.instance_tracks)
        assert t.instants(t.tracks_named(name)[0], "created"), name
        assert t.instants(t.tracks_named(name)[0], "done"), name
    # fizzbuzz_spawn makes two pipes, then the timerfd: with 0-2 open, the
    # kernel hands out 3, 4 (fizz's), 5, 6 (buzz's) and 7 (the timer)
    fizz_r, fizz_w, buzz_r, buzz_w, timer = 3, 4, 5, 6, 7
    waits = t.waits()
    reads = [w["args"] for w in waits if w["args"]["kind"] == "read"]
    writes = [w["args"] for w in waits if w["args"]["kind"] == "write"]
    assert reads and writes
    assert all(w["direction"] == "in" and w["fd"] in (fizz_r, buzz_r, timer) for w in reads), reads
    assert all(w["direction"] == "out" and w["fd"] in (fizz_w, buzz_w) for w in writes), writes
    # the consumer itself waits only on its timer (its pipe reads are its
    # child's, packet): at most once a line, at least once (a tick may be
    # due already when a loaded machine gets to the read: no wait then)
    consume = t.tracks_named("consume")[0]
    timer_waits = t.waits(consume)
    assert all(w["args"]["kind"] == "read" and w["args"]["fd"] == timer for w in timer_waits)
    assert 1 <= len(timer_waits) <= 20, timer_waits
    # each writer fills its pipe (16 packets) and waits on it
    assert {w["fd"] for w in writes} == {fizz_w, buzz_w}
    # every wait ended with a wake-up (by epoll's event, or at once, as it
    # suspended, if the descriptor was ready by then)
    flow_ends = {(e["pid"], e["tid"], e["ts"]) for e in t.of("f")}
    for w in waits:
        assert w["args"]["end"] in ("woken", "settled as it suspended"), w
    if backend == "stackless":   # the .coc line of each resume point
        read_line = line_of(FIZZBUZZ, "ssize_t n = await coro_read(timer")
        runs = t.runs(consume)
        assert any(r["args"]["to"] == f"line {read_line}" for r in runs), runs
        assert runs[0]["args"]["from"].startswith("start, line ")
    assert flow_ends


@pytest.mark.parametrize("backend", BACKENDS)
def test_cancel_and_channel(toolchain, backend):
    exe = build(toolchain, CANCEL_CHAN, backend)
    path = toolchain.tmp / "cancel_chan.json"
    res = record(exe, path)
    assert res.returncode == 0 and res.stdout.strip() == "OK", res.stderr
    t = Trace(path).check_structure()
    kinds = {}
    for w in t.waits():
        kinds.setdefault(w["args"]["kind"], []).append(w)
    producer, consumer, sleeper, yielder = (t.tracks_named(n)[0] for n in
                                            ("producer", "consumer", "sleeper", "yielder"))
    # the channel: sends by the producer, receives by the consumer, one channel
    assert kinds.get("send") and kinds.get("receive"), kinds.keys()
    assert {t.track(w) for w in kinds["send"]} == {producer}
    assert {t.track(w) for w in kinds["receive"]} == {consumer}
    assert len({w["args"]["object"] for w in kinds["send"] + kinds["receive"]}) == 1
    # the sleeper's timer of LONG_MS, cancelled by the consumer
    (sleep,) = kinds["timer"]
    assert t.track(sleep) == sleeper and sleep["args"]["ms"] == 100000
    (cancel,) = [e for e in t.of("i") if e["name"] == "cancel"]
    assert t.track(cancel) == sleeper
    assert cancel["args"]["by"] == t.instance_tracks[consumer].split(" ")[0]
    (done,) = t.instants(sleeper, "done")
    assert done["args"]["cancelled"] is True
    assert all(not d["args"]["cancelled"] for d in t.of("i") if d["name"] == "done" and d is not done)
    # the flow that ends the sleeper's wait starts on the consumer's track
    (flow_end,) = [f for f in t.of("f") if t.track(f) == sleeper and f["ts"] > sleep["ts"]]
    (flow_start,) = [s for s in t.of("s") if s["id"] == flow_end["id"]]
    assert t.track(flow_start) == consumer
    # the yielder yields YIELDS times
    assert len([w for w in kinds["yield"] if t.track(w) == yielder]) == 3
    if backend == "stackless":
        sleep_line = line_of(CANCEL_CHAN, "await coro_sleep(LONG_MS)")
        assert [r["args"]["to"] for r in t.runs(sleeper)] == [f"line {sleep_line}", "end"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_exit_from_a_task_writes_the_file(toolchain, backend):
    exe = build(toolchain, CANCEL_CHAN, backend)
    path = toolchain.tmp / "exit.json"
    res = record(exe, path, ["exit"])
    assert res.returncode == 0, res.stderr
    t = Trace(path).check_structure()
    # the consumer was running when it called exit(): its last run is open
    consumer = t.tracks_named("consumer")[0]
    assert t.runs(consumer)[-1]["args"]["to"].startswith("unfinished"), t.runs(consumer)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fatal_error_writes_the_file(toolchain, backend):
    exe = build(toolchain, CANCEL_CHAN, backend)
    path = toolchain.tmp / "fatal.json"
    res = record(exe, path, ["fatal"])
    assert res.returncode != 0 and "coro: coro_spawn:" in res.stderr, (res.returncode, res.stderr)
    t = Trace(path).check_structure()
    consumer = t.tracks_named("consumer")[0]
    assert t.runs(consumer)[-1]["args"]["to"].startswith("unfinished"), t.runs(consumer)


@pytest.mark.parametrize("backend", BACKENDS)
def test_start_and_stop(toolchain, backend):
    exe = build(toolchain, CANCEL_CHAN, backend)
    path = toolchain.tmp / "stop.json"
    res = record(exe, None, ["stop", path], trace_env=False)
    assert res.returncode == 0 and res.stdout.strip() == "OK", res.stderr
    t = Trace(path).check_structure()
    assert {"producer", "consumer", "sleeper", "yielder"} <= \
        {n.split(" ")[-1] for n in t.instance_tracks.values()}


@pytest.mark.parametrize("backend", BACKENDS)
def test_cap_drops_and_says_so(toolchain, backend):
    exe = build(toolchain, CANCEL_CHAN, backend)
    full, capped = toolchain.tmp / "full.json", toolchain.tmp / "capped.json"
    assert record(exe, full).returncode == 0
    res = record(exe, capped, env={"CORO_TRACE_MAX": "20"})
    assert res.returncode == 0, res.stderr
    t = Trace(capped).check_structure()
    assert Trace(full).data["otherData"]["dropped"] == 0
    dropped = t.data["otherData"]["dropped"]
    assert dropped > 0
    (note,) = [e for e in t.of("i") if e["name"] == "events dropped"]
    assert note["args"] == {"dropped": dropped, "kept": 20, "cap": 20}
    assert len(t.of("X", "run")) < len(Trace(full).of("X", "run"))
