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
import select
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
    """echo_<backend> --port 0, its port read from its first line."""

    def __init__(self, backend):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([example("echo", backend), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=self.stderr)
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
