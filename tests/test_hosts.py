"""coroc's scheduler driven by other event loops, through the adapters of examples/hosts/
(docs/hosts.md): a GLib main loop (glib_host.c), libuv (uv_host.c) and a frame loop with a
budget (frame_host.c), each built here with the test programs of tests/hosts/ and the tasks
of .coc files, in both backends:

- fizzbuzz (examples/fizzbuzz.coc's tasks) and an echo round trip (tests/hosts/echo_tasks.coc)
  print under each host exactly what they print under coro_run();
- cancellation, deadlines (set before the loop and from a host callback) and coro_timeout
  fire inside each host loop (tests/hosts/limits.coc);
- examples/echo.coc, built with ECHO_HOSTED, runs in libuv loops (examples/hosts/uv_hosted_echo.c,
  a loop per thread): its self-test verifies every byte, and its server, on two threads, serves
  echo's client and exits 0 on SIGTERM;
- the frame loop runs each task at most once a coro_run_ready call, never one made ready
  during the call, and keeps each frame's CPU time within its budget (frame_main.c says why
  that bound cannot flake), while tasks sleep, read a pipe and wait on channels.

GLib and libuv come from Debian's libglib2.0-dev and libuv1-dev (.ci/run installs them): a
missing one fails the test, saying what to install."""
import os
import shutil
import signal
import subprocess

import pytest

from conftest import BACKENDS, COROC, COROC_INCLUDE, COROC_LIB, SOURCE_DIR, TESTS_DIR, WARNINGS, run

ADAPTERS = SOURCE_DIR / "examples" / "hosts"
HOSTS_TESTS = TESTS_DIR / "hosts"
PACKAGES = {"glib": ("glib-2.0", "libglib2.0-dev"), "uv": ("libuv", "libuv1-dev"), "frame": (None, None)}
WORKLOADS = ["fizzbuzz", "echo", "limits"]


def pkg_config(host):
    """The compiler and linker flags of the host's library; fails when it is not installed."""
    module, package = PACKAGES[host]
    if module is None:
        return [], []
    if shutil.which("pkg-config") is None:
        pytest.fail("pkg-config is missing: apt-get install -y pkg-config")
    flags = []
    for what in ("--cflags", "--libs"):
        res = subprocess.run(["pkg-config", what, module], capture_output=True, text=True)
        if res.returncode != 0:
            pytest.fail(f"{module} not found by pkg-config: apt-get install -y {package} "
                        f"(.ci/run installs it)\n{res.stderr}")
        flags.append(res.stdout.split())
    return flags[0], flags[1]


def transform(src, backend, out_dir, defines=()):
    out = out_dir / f"{src.stem}.{backend}.c"
    res = run([COROC, f"--backend={backend}", *defines, f"-I{src.parent}", "-o", out, src])
    assert res.returncode == 0, res.stderr
    return out


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """(host, backend) -> a builder of that test program, built once."""
    built = {}

    def build(host, backend):
        if (host, backend) in built:
            return built[(host, backend)]
        cflags, libs = pkg_config(host)
        out = tmp_path_factory.mktemp(f"{host}-{backend}")
        sources = [transform(SOURCE_DIR / "examples" / "fizzbuzz.coc", backend, out, ["-DFIZZBUZZ_HOSTED"]),
                   transform(HOSTS_TESTS / "echo_tasks.coc", backend, out),
                   transform(HOSTS_TESTS / "limits.coc", backend, out)]
        extra = []
        if host == "frame":
            sources.append(transform(HOSTS_TESTS / "frame_tasks.coc", backend, out))
            extra = ["-Wl,--wrap=coro_run_ready"]
        exe = out / f"{host}_main"
        res = run(["gcc", "-std=gnu11", *WARNINGS, "-g", "-DFIZZBUZZ_HOSTED", f"-I{COROC_INCLUDE}",
                   f"-I{ADAPTERS}", f"-I{HOSTS_TESTS}", *cflags, "-o", exe,
                   HOSTS_TESTS / f"{host}_main.c", ADAPTERS / f"{host}_host.c", *sources,
                   COROC_LIB, *libs, *extra, "-lm"], timeout=180)
        assert res.returncode == 0, res.stderr
        built[(host, backend)] = exe
        return exe
    return build


def run_program(exe, *args):
    try:
        res = run([exe, *args], timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{exe.name} {' '.join(args)} did not finish in 60 s")
    assert res.returncode == 0, f"{exe.name} {' '.join(args)} exited {res.returncode}\n{res.stdout}{res.stderr}"
    assert res.stdout.endswith("OK\n"), res.stdout
    return res.stdout


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("what", WORKLOADS)
@pytest.mark.parametrize("host", ["glib", "uv", "frame"])
def test_host_runs_what_coro_run_runs(programs, host, what, backend):
    exe = programs(host, backend)
    by_run = run_program(exe, what, "--coro-run")
    hosted = run_program(exe, what)
    assert hosted == by_run, f"{host} ({backend}) prints differently from coro_run:\n{hosted}\n---\n{by_run}"
    if what == "fizzbuzz":
        assert hosted == (SOURCE_DIR / "examples" / "fizzbuzz.expected").read_text() + "OK\n"
    elif what == "echo":
        assert hosted.count("every byte the same") == 6 and "DIFFERENT" not in hosted, hosted
        assert "the server saw the client close" in hosted
    else:  # limits.coc checks its results itself; these are the values it checks
        assert "WRONG" not in hosted and hosted.count("ended with") == 5, hosted


@pytest.mark.parametrize("backend", BACKENDS)
def test_frame_loop_budget(programs, backend):
    exe = programs("frame", backend)
    res = run([exe, "budget"], timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    print(res.stdout)
    fields = {}
    for text in res.stdout.splitlines():
        words = text.replace(",", "").split()
        for name, value in zip(words, words[1:]):
            if value.lstrip("-").isdigit():
                fields.setdefault(name, int(value))
    # a call ran only what was ready at its start, and said so truly
    assert fields["twice"] == 0 and fields["pair"] == 0 and fields["ran"] == 0, res.stdout
    # no call started once the frame's budget was spent (frame_main.c: why not its CPU time)
    assert fields["late"] == 0, res.stdout
    # coro_cancel_all called off all seven, and frames ran them to their end
    assert fields["cancelled"] == 7, res.stdout
    # everything moved: sleeps ended, the pipe was read, the channels passed values
    for name in ["sleeper_1", "sleeper_3", "reader", "ping", "pong", "yielders"]:
        assert fields[name] > 0, (name, res.stdout)
    assert fields["reader"] == 60, res.stdout   # a byte a frame, all read before the end


# {==== a whole server in libuv loops: examples/echo.coc built with ECHO_HOSTED

@pytest.fixture(scope="module")
def hosted_echo(tmp_path_factory):
    """backend -> examples/hosts/uv_hosted_echo.c with echo.coc (no main of its own), built once."""
    built = {}

    def build(backend):
        if backend not in built:
            cflags, libs = pkg_config("uv")
            out = tmp_path_factory.mktemp(f"uv-echo-{backend}")
            echo = transform(SOURCE_DIR / "examples" / "echo.coc", backend, out, ["-DECHO_HOSTED"])
            exe = out / "uv_hosted_echo"
            res = run(["gcc", "-std=gnu11", *WARNINGS, "-g", "-DECHO_HOSTED", f"-I{COROC_INCLUDE}",
                       f"-I{ADAPTERS}", *cflags, "-o", exe, ADAPTERS / "uv_hosted_echo.c",
                       ADAPTERS / "uv_host.c", echo, COROC_LIB, *libs, "-lpthread", "-lm"], timeout=180)
            assert res.returncode == 0, res.stderr
            built[backend] = exe
        return built[backend]
    return build


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_self_test_in_libuv_loops(hosted_echo, backend):
    """echo's self-test (server and client tasks in one loop, 300 connections, every byte
    checked) in a libuv loop: it verifies every message, as under coro_run()."""
    res = run([hosted_echo(backend), "--self-test", "300", "64", "5"], timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "verified 1500 messages" in res.stdout.splitlines(), res.stdout


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_server_in_libuv_loops_serves_and_stops(hosted_echo, backend):
    """The server with --threads 2 (a libuv loop per thread, each with its SO_REUSEPORT
    listener) serves echo's own client, built with coro_run(), on two threads; on SIGTERM
    its stopper task (a signalfd, watched through coroc's descriptor) ends every loop,
    and it exits 0, as echo does."""
    exe = hosted_echo(backend)
    server = subprocess.Popen([exe, "--port", "0", "--threads", "2"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline()
        assert "listening on 127.0.0.1:" in first, first + server.stderr.read()
        port = first.rsplit(":", 1)[1].strip()
        assert len(os.listdir(f"/proc/{server.pid}/task")) == 2   # the second thread's loop
        client = run([exe, "--client", "--port", port, "--connections", "200", "--rounds", "20",
                      "--threads", "2"], timeout=60)
        assert client.returncode == 0, client.stdout + client.stderr
        assert "verified 4000 messages" in client.stdout.splitlines(), client.stdout
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0, server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()

# }====


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_glib_cleanup_macros(tmp_path, backend, cc):
    """GLib's g_autoptr, g_auto and g_autofree on coroutines' locals, and its
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS among their statements (hosts/glib_macros.coc):
    warning-free, each cleanup run once (counted, and AddressSanitizer fails a
    double free), at the scope's end and when an instance is freed suspended."""
    cflags, libs = pkg_config("glib")
    out = tmp_path / f"glib_macros.{backend}.c"
    res = run([COROC, f"--backend={backend}", *cflags, "-o", out, HOSTS_TESTS / "glib_macros.coc"])
    assert res.returncode == 0, res.stderr
    exe = tmp_path / "glib_macros"
    res = run([cc, "-std=gnu11", *WARNINGS, "-Werror", "-g", "-O1", "-fsanitize=address,undefined",
               "-fno-sanitize-recover=all", f"-I{COROC_INCLUDE}", *cflags, "-o", exe, out, COROC_LIB,
               *libs], timeout=180)
    assert res.returncode == 0, res.stderr
    run_program(exe)
