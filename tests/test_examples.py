"""The examples as built by CMake (build/examples/<example>_<backend>), in both backends.

    fizzbuzz   prints fizzbuzz.expected: 20 lines, one per 100 ms tick, and spends
               that time asleep, not spinning
    echo       the server serves 1,000 concurrent connections of its own client (another
               process) with every byte verified; the self-test (server and client tasks
               on one scheduler) with messages larger than the sockets' buffers; the
               server survives clients that leave mid-message (FIN, RST, or gone before
               their echo is written) and goes on serving; a server whose tasks all wait
               for I/O uses no CPU

Every process is bounded by a timeout; the server is killed at the end of each test, after
checking that it is still alive.
"""
import os
import re
import resource
import select
import signal
import socket
import struct
import subprocess
import tempfile
import time

import pytest

from conftest import BACKENDS, BUILD_DIR, SOURCE_DIR, run

EXAMPLES = BUILD_DIR / "examples"
HOST = "127.0.0.1"


def example(name, backend):
    exe = EXAMPLES / f"{name}_{backend}"
    assert exe.exists(), f"{exe} not built: cmake --build {BUILD_DIR}"
    return exe


# {==================================================================
# each example is one .coc
# ===================================================================

ONE_SOURCE = {"generator": [], "fizzbuzz": [], "echo": ["--self-test", "20", "16", "3"]}


@pytest.mark.parametrize("name", ONE_SOURCE)
def test_example_is_one_coc_built_alone(name, toolchain):
    """generator, fizzbuzz and echo are each one .coc (the project's contract): coroc on
    that file alone, cc on its C with libcoro and nothing else, in both backends; the two
    programs exit 0 and print the same."""
    src = SOURCE_DIR / "examples" / f"{name}.coc"
    assert src.is_file(), f"examples/{name}.coc: each example is one .coc source"
    outputs = {}
    for backend in BACKENDS:
        exe = toolchain.compile(toolchain.transform(src, backend))
        res = run([exe, *ONE_SOURCE[name]], timeout=60)
        assert res.returncode == 0, f"{name} ({backend}): {res.stderr}"
        # echo's self-test prints its speed; the rest of its lines are the same
        outputs[backend] = [line for line in res.stdout.splitlines() if "/s" not in line]
        assert outputs[backend], f"{name} ({backend}) printed nothing"
    assert len(set(map(tuple, outputs.values()))) == 1, outputs


# {==================================================================
# fizzbuzz
# ===================================================================

@pytest.mark.parametrize("backend", BACKENDS)
def test_fizzbuzz(backend):
    """The 20 expected lines, paced by the 100 ms timer, with the CPU asleep in between."""
    expected = (SOURCE_DIR / "examples" / "fizzbuzz.expected").read_text()
    assert expected.splitlines() == ["FizzBuzz" if i % 15 == 0 else "Fizz" if i % 3 == 0
                                     else "Buzz" if i % 5 == 0 else str(i) for i in range(1, 21)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen([example("fizzbuzz", backend)], stdout=out, stderr=err)
        while True:  # wait4: the exit status and the child's CPU time
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > 15:
                proc.kill()
                proc.wait()
                pytest.fail("fizzbuzz did not finish in 15 s")
            time.sleep(0.02)
        elapsed = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        assert proc.returncode == 0, err.read().decode()
        assert out.read().decode() == expected
    assert elapsed >= 1.9, f"20 ticks of 100 ms took {elapsed:.2f} s"
    cpu = usage.ru_utime + usage.ru_stime
    assert cpu < 0.2, f"fizzbuzz used {cpu:.3f} s of CPU in {elapsed:.1f} s of mostly waiting"

# }==================================================================


# {==================================================================
# echo
# ===================================================================

class Server:
    """echo_<backend> --port 0 [ARGS], its port read from its first line."""

    def __init__(self, backend, args=(), preexec_fn=None):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([example("echo", backend), "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=self.stderr,
                                     preexec_fn=preexec_fn)
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        line = self.proc.stdout.readline().decode() if ready else ""
        m = re.search(r"127\.0\.0\.1:(\d+)\s*$", line)
        if not m:
            self.close()
            pytest.fail(f"the server's first line does not name its port: {line!r}\n{self.errors()}")
        self.port = int(m.group(1))
        assert self.port > 0

    def errors(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def alive(self):
        return self.proc.poll() is None

    def cpu_seconds(self):
        """utime + stime of the server, from /proc/PID/stat."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # fields[0] is the state (field 3); utime and stime are fields 14 and 15
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))

    def close(self):
        self.proc.kill()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()

    def check_and_close(self):
        """The server is still running and reported no error; then stop it."""
        try:
            assert self.alive(), f"the server died (status {self.proc.returncode}):\n{self.errors()}"
            assert self.errors() == "", f"the server reported:\n{self.errors()}"
        finally:
            self.close()
            self.stderr.close()


@pytest.fixture
def server(request):
    s = Server(request.param)
    yield s
    if s.proc.returncode is None and s.alive():
        s.close()


def run_client(backend, port, connections, size, rounds, timeout=30):
    proc = subprocess.run([example("echo", backend), "--client", "--port", str(port),
                           "--connections", str(connections), "--size", str(size),
                           "--rounds", str(rounds)],
                          capture_output=True, text=True, timeout=timeout)
    return proc


def round_trips_per_second(stdout):
    m = re.search(r"([\d.]+) round trips/s", stdout)
    assert m, stdout
    return float(m.group(1))


def echo_once(port, data, timeout=5):
    """A plain blocking client: send data, read back as much, return it."""
    with socket.create_connection((HOST, port), timeout=timeout) as s:
        s.sendall(data)
        got = b""
        while len(got) < len(data):
            chunk = s.recv(len(data) - len(got))
            if not chunk:
                break
            got += chunk
        return got


@pytest.mark.parametrize("server", BACKENDS, indirect=True)
def test_echo_1000_connections(server, request):
    backend = request.node.callspec.params["server"]
    res = run_client(backend, server.port, connections=1000, size=64, rounds=20)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "verified 20000 messages" in res.stdout, res.stdout
    rate = round_trips_per_second(res.stdout)
    print(f"\necho {backend}, 1,000 connections: {rate:.0f} round trips/s")
    server.check_and_close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_self_test_large_messages(backend):
    """Server and client tasks on one scheduler; messages of 300 kB, more than the sockets hold."""
    res = subprocess.run([example("echo", backend), "--self-test", "20", "300000", "3"],
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "verified 60 messages" in res.stdout
    assert res.stderr == ""


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_self_test_1000_connections(backend):
    res = subprocess.run([example("echo", backend), "--self-test", "1000", "64", "10"],
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "verified 10000 messages" in res.stdout


def half_message_then_fin(port, message):
    with socket.create_connection((HOST, port), timeout=5) as s:
        s.sendall(message[:len(message) // 2])


def half_message_then_reset(port, message):
    s = socket.create_connection((HOST, port), timeout=5)
    s.sendall(message[:len(message) // 2])
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()  # RST: the server's read or write gets ECONNRESET


def whole_messages_then_gone(port, message):
    """Send 32 kB and leave without reading the echo: the server writes to a closed socket."""
    with socket.create_connection((HOST, port), timeout=5) as s:
        s.sendall(message * 8)


@pytest.mark.parametrize("server", BACKENDS, indirect=True)
def test_echo_survives_clients_leaving_mid_message(server, request):
    backend = request.node.callspec.params["server"]
    message = bytes(range(256)) * 16
    for leave in (half_message_then_fin, half_message_then_reset, whole_messages_then_gone) * 5:
        leave(server.port, message)
    time.sleep(0.2)
    assert server.alive(), server.errors()

    # A client that connects and sends nothing must not hold up the others.
    idle = socket.create_connection((HOST, server.port), timeout=5)
    try:
        time.sleep(0.1)
        for i in range(5):
            data = bytes((i * 7 + j) % 251 for j in range(1000 + i))
            assert echo_once(server.port, data) == data
        res = run_client(backend, server.port, connections=50, size=1000, rounds=10)
        assert res.returncode == 0, res.stdout + res.stderr
        assert "verified 500 messages" in res.stdout
    finally:
        idle.close()
    server.check_and_close()


@pytest.mark.parametrize("server", BACKENDS, indirect=True)
def test_echo_blocked_on_io_uses_no_cpu(server):
    """The acceptor waits in accept, a connection task in read: ~1 s idle, no CPU spent."""
    with socket.create_connection((HOST, server.port), timeout=5) as conn:
        conn.sendall(b"ping")
        assert conn.recv(4) == b"ping"
        before = server.cpu_seconds()
        time.sleep(1.0)
        spent = server.cpu_seconds() - before
        assert spent < 0.05, f"an idle server used {spent:.3f} s of CPU in 1 s"
        conn.sendall(b"pong")
        assert conn.recv(4) == b"pong"
    server.check_and_close()

# }==================================================================


def test_demo_labels_a_self_checking_build(tmp_path):
    """The demo runs echo's builds through run_self_test.sh: every line a build
    prints begins with its backend, and the build's exit status is kept."""
    script = SOURCE_DIR / "examples" / "run_self_test.sh"
    res = run(["sh", script, "stackful", "sh", "-c", "echo one; echo two; exit 3"])
    assert res.stdout == "stackful: one\nstackful: two\n"
    assert res.returncode == 3
    res = run(["sh", script, "stackless", "sh", "-c", "echo ok"])
    assert (res.returncode, res.stdout) == (0, "stackless: ok\n")


# {==================================================================
# echo as a real server: faults, limits, timeouts and shutdown. Bounds on
# waiting are there so that a failure cannot hang the suite; nothing here
# measures speed.
# ===================================================================

def connect(port, timeout=10):
    return socket.create_connection((HOST, port), timeout=timeout)


def read_until_eof(sock, limit=1 << 24):
    got = b""
    while len(got) < limit:
        chunk = sock.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_half_close(backend):
    """The peer sends, then shuts down its side: the echo completes, then the server closes."""
    server = Server(backend)
    try:
        data = bytes((i * 13) % 256 for i in range(200000))
        with connect(server.port) as s:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            assert read_until_eof(s) == data
        server.check_and_close()
    finally:
        server.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_slow_reader_bounded_memory(backend):
    """A peer that sends and never reads: the server's memory stays bounded (one lent buffer
    and the kernel's socket buffers), and other connections go on being served."""
    server = Server(backend)
    try:
        before = server.rss_kib()
        hog = connect(server.port)
        hog.setblocking(False)
        sent, chunk = 0, b"z" * 65536
        stalled = 0
        while sent < 64 << 20 and stalled < 20:   # until the kernel's buffers are full
            try:
                sent += hog.send(chunk)
                stalled = 0
            except BlockingIOError:
                stalled += 1
                time.sleep(0.05)
        assert sent < 64 << 20, "the server took 64 MiB from a peer that never reads"
        for i in range(3):
            data = bytes(range(i, 200 + i))
            assert echo_once(server.port, data) == data
        grown = server.rss_kib() - before
        assert grown < 2048, f"the server grew by {grown} KiB for a peer that never reads"
        hog.close()
        server.check_and_close()
    finally:
        server.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_idle_timeout(backend):
    """--idle 1000: a connection that sends nothing for a second is closed; one that keeps
    talking is not."""
    server = Server(backend, ["--idle", "1000"])
    try:
        idle = connect(server.port)
        idle.sendall(b"hello")
        assert idle.recv(5) == b"hello"
        busy = connect(server.port)
        for i in range(16):    # a round trip every 0.1 s, across the idle one's timeout
            busy.sendall(b"%02d" % i)
            assert busy.recv(2) == b"%02d" % i
            time.sleep(0.1)
        assert idle.recv(10) == b"", "the idle connection was not closed"
        busy.sendall(b"still")
        assert busy.recv(5) == b"still"
        idle.close()
        busy.close()
        server.check_and_close()
    finally:
        server.close()


def low_fd_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_at_the_descriptor_limit(backend):
    """With 32 descriptors, 60 clients: those beyond the limit wait in the backlog while the
    server goes on serving the others, without spinning; once connections end, the waiting
    ones are served."""
    server = Server(backend, preexec_fn=low_fd_limit)
    try:
        socks = [connect(server.port) for _ in range(60)]
        for i, s in enumerate(socks[:10]):
            s.sendall(b"%03d" % i)
            assert s.recv(3) == b"%03d" % i
        before = server.cpu_seconds()
        time.sleep(1.0)
        spent = server.cpu_seconds() - before
        assert spent < 0.2, f"at the descriptor limit the server used {spent:.3f} s of CPU in 1 s"
        for s in socks[:40]:
            s.close()
        for i, s in enumerate(socks[40:]):
            s.sendall(b"%03d" % i)
            assert s.recv(3) == b"%03d" % i, "a connection from the backlog was not served"
        for s in socks[40:]:
            s.close()
        assert server.alive(), server.errors()
        assert "Too many open files" in server.errors()
    finally:
        server.close()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_echo_clean_shutdown(backend, sig):
    """On SIGTERM or SIGINT: what a client sent before the signal is echoed in full, then the
    connection closes; an idle connection is closed; no new connection is accepted; exit 0."""
    server = Server(backend, ["--grace", "3000"])
    try:
        idle = connect(server.port)
        talker = connect(server.port)
        data = bytes((i * 7) % 256 for i in range(100000))
        talker.sendall(data[:10])
        assert talker.recv(10) == data[:10]
        talker.sendall(data)
        server.proc.send_signal(sig)
        assert read_until_eof(talker) == data, "a reply was lost in the shutdown"
        assert idle.recv(10) == b""
        assert server.proc.wait(timeout=10) == 0, server.errors()
        with pytest.raises(OSError):
            connect(server.port, timeout=2).sendall(b"x")
        assert server.errors() == ""
        idle.close()
        talker.close()
    finally:
        server.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_threads(backend):
    """--threads 2: two schedulers, each with its own SO_REUSEPORT listener; a client of two
    threads has 1,000 connections verified; SIGTERM stops both threads, exit 0."""
    server = Server(backend, ["--threads", "2"])
    try:
        assert len(os.listdir(f"/proc/{server.proc.pid}/task")) == 2
        res = subprocess.run([example("echo", backend), "--client", "--port", str(server.port),
                              "--connections", "1000", "--rounds", "10", "--threads", "2"],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stdout + res.stderr
        assert "verified 10000 messages" in res.stdout
        idle = connect(server.port)
        server.proc.send_signal(signal.SIGTERM)
        assert idle.recv(10) == b""
        assert server.proc.wait(timeout=10) == 0, server.errors()
        assert server.errors() == ""
        idle.close()
    finally:
        server.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_echo_shutdown_with_a_peer_that_never_reads(backend):
    """A peer that never reads cannot hold the shutdown up beyond the grace period."""
    server = Server(backend, ["--grace", "300"])
    try:
        hog = connect(server.port)
        hog.setblocking(False)
        try:
            while True:
                hog.send(b"z" * 65536)
        except BlockingIOError:
            pass
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=10) == 0, server.errors()
        hog.close()
    finally:
        server.close()

# }==================================================================
