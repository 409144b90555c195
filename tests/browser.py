"""Debian's chromium, headless, for the tests that look at a page as a person
would (test_html_browser.py, test_trace_timeline.py) and for the pictures the
docs show (docs/images/pictures.py).

Two ways in, both with a browser that can reach nothing (a proxy on a port
where nothing listens, no background services) and that writes its network
log, so that a test can tell that a page asked for nothing:
  * chromium(): one run with a command-line action (--dump-dom, --screenshot);
  * Browser: a browser driven over the DevTools protocol, for what a command
    line cannot do (point at a line, read where things are laid out). It
    talks on the pipe of --remote-debugging-pipe: JSON messages ended by a
    NUL byte, commands on the browser's descriptor 3, answers and events on
    its descriptor 4. Every read has a deadline, so that a stuck browser
    fails the test instead of hanging the suite.
A missing chromium fails the test (as a missing library fails test_hosts.py):
a browser check that did not run is not one that passed.
"""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time

CHROMIUM = shutil.which("chromium")
MISSING = "chromium is not installed: apt-get install chromium (.ci/run does)"


def flags(tmp_path, width=1500, height=800):
    """What every run is given: its own profile, no network, its net log."""
    return ["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}", "--proxy-server=http://127.0.0.1:9",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--disable-default-apps", "--disable-extensions",
            f"--log-net-log={tmp_path / 'net.json'}", f"--window-size={width},{height}"]


def chromium(tmp_path, url, *what):
    """One run of chromium on url with the actions `what`: (its stdout, its net log)."""
    assert CHROMIUM, MISSING
    res = subprocess.run([CHROMIUM, *flags(tmp_path), *what, url], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout, tmp_path / "net.json"


def page_requests(log):
    """The URLs of the requests a page made (a page's have an origin as their
    initiator; the browser's own say "not an origin")."""
    data = json.loads(log.read_text())
    start = data["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [e["params"] for e in data["events"]
            if e["type"] == start and "url" in e.get("params", {})
            and e["params"].get("initiator") != "not an origin"]


def above_nine(fd):
    """fd moved to a descriptor number of 10 or more."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    """A headless chromium on the DevTools pipe, and one tab in it; use it in
    a `with`, which stops the browser (by its pid) whatever happens."""

    def __init__(self, tmp_path, width=1500, height=800, timeout=30):
        assert CHROMIUM, MISSING
        self.timeout = timeout
        self.next_id = 0
        self.events = []      # events read while waiting for an answer
        self.buffer = b""
        self.log = tmp_path / "chromium.log"   # its stderr
        commands, self.to_browser = os.pipe()
        self.from_browser, answers = os.pipe()
        # the browser wants its ends as its 3 and 4: bash puts them there (dash
        # takes no descriptor over 9), then becomes Debian's launcher, which
        # becomes the browser (one pid throughout). Moved above 9 first, they
        # cannot be a 3 or a 4 already.
        commands, answers = (above_nine(fd) for fd in (commands, answers))
        with self.log.open("wb") as err:
            self.proc = subprocess.Popen(
                ["bash", "-c", f'exec "$@" 3<&{commands} 4>&{answers} {commands}<&- {answers}>&-',
                 "bash", CHROMIUM, *flags(tmp_path, width, height), "--remote-debugging-pipe"],
                pass_fds=(commands, answers), stdout=subprocess.DEVNULL, stderr=err)
        os.close(commands)
        os.close(answers)
        try:
            target = self.send("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.send("Target.attachToTarget", targetId=target,
                                     flatten=True)["sessionId"]
            self.tab("Page.enable")
            self.tab("Emulation.setDeviceMetricsOverride", width=width, height=height,
                     deviceScaleFactor=1, mobile=False)
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # {==== the pipe

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            ready = select.select([self.from_browser], [], [], max(left, 0))[0] if left > 0 else []
            assert ready, f"chromium said nothing for {self.timeout} s"
            chunk = os.read(self.from_browser, 1 << 16)
            assert chunk, "chromium closed its pipe:\n" + self._stderr()
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, session=None, **params):
        """Send a command, wait for its answer; an error answer fails the test."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self.next_id:
                assert "error" not in answer, (method, answer["error"])
                return answer["result"]
            self.events.append(answer)

    def wait_for(self, method):
        """The next event `method` of the tab (one already read, or to come)."""
        deadline = time.monotonic() + self.timeout
        while True:
            for e in self.events:
                if e.get("method") == method and e.get("sessionId") == self.session:
                    self.events.remove(e)
                    return e["params"]
            self.events.append(self._read_message(deadline))

    def _stderr(self):
        return self.log.read_text(errors="replace")[-2000:]

    # }====
    # {==== the tab

    def tab(self, method, **params):
        return self.send(method, session=self.session, **params)

    def open(self, url):
        """Navigate to url and wait until it has loaded."""
        self.events.clear()
        answer = self.tab("Page.navigate", url=url)
        assert "errorText" not in answer, answer
        self.wait_for("Page.loadEventFired")

    def js(self, expression):
        """The value of a JavaScript expression in the page (the page's own
        scripts may be off: this is the debugger's, not the page's)."""
        answer = self.tab("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in answer, answer["exceptionDetails"]
        return answer["result"].get("value")

    def in_view(self, selector, dx=None):
        """Bring what selector names into view: the point a person would put
        the mouse on (dx into it, or its middle), checked to be on it and
        not under something else."""
        x, y = self.js(f"""(() => {{
            const e = document.querySelector('{selector}');
            e.scrollIntoView({{block: 'nearest'}});
            const r = e.getBoundingClientRect();
            return [{'(r.left + r.right) / 2' if dx is None else f'r.left + {dx}'},
                    (r.top + r.bottom) / 2];
        }})()""")
        assert self.js(f"document.elementFromPoint({x}, {y})?.closest('{selector}') != null"), \
            f"{selector} is not where it says it is"
        return x, y

    def point_at(self, x, y):
        """Move the mouse to (x, y), as a person would: :hover and the page's
        mouseover handlers see it."""
        self.tab("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)

    def click(self, x, y):
        self.point_at(x, y)
        for kind in ("mousePressed", "mouseReleased"):
            self.tab("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, path, width=None, height=None):
        """The viewport (or its top left width x height) as a PNG file."""
        params = {"format": "png"}
        if width:
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        path.write_bytes(base64.b64decode(self.tab("Page.captureScreenshot", **params)["data"]))
        return path

    # }====

    def close(self):
        """Ask the browser to close (it then ends its net log), and stop it by
        its pid if it does not."""
        if self.proc.poll() is None:
            try:
                os.write(self.to_browser, json.dumps(
                    {"id": self.next_id + 1, "method": "Browser.close"}).encode() + b"\0")
                self.proc.wait(timeout=self.timeout)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=self.timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        for fd in (self.to_browser, self.from_browser):
            os.close(fd)
