"""Robustness: coroc never crashes, hangs or asserts, whatever the input.

The seeds are the small valid programs in tests/robustness/*.coc. Each must
transform, compile warning-free with gcc and clang, and run with exit 0.

From each seed, a couple of hundred broken variants are made deterministically
(a random.Random seeded with the seed's name and the kind of damage; the suite
makes the first half of each kind, tests/run --full all of them):
  truncate   the file cut at every Nth byte
  delete     one token removed
  duplicate  one token written twice
  swap       two tokens exchanged
  insert     a keyword or punctuation (yield, await, coroutine, { } ( ) ; , #if ...)
             put between two tokens, or a directive on a line of its own
  nul        a NUL byte
  nonascii   bytes >= 0x80: invalid UTF-8, valid UTF-8, a byte order mark
  comment    an unterminated /* comment
  string     an unterminated "string or 'character constant
  multi      three of the above at once

coroc runs on each variant (as a file, and every 4th one also as `coroc -` on
standard input, with a 5 s timeout) and must:
  * exit 0 or 1: not killed by a signal, not 2 (there is no usage error here),
    and not time out;
  * print no "internal error";
  * when it exits 1: print nothing on standard output; its first line on standard
    error is `FILE:LINE:COL: error: MESSAGE` or `coroc: error: MESSAGE`, and the
    first form is followed by the quoted source line (the line LINE of FILE)
    and a caret line;
  * when it exits 0: print no error.

test_valid_line_directive puts a valid `#line` directive into a seed: that is C,
so coroc must accept it.

All variants run once, in a thread pool, in a module-scoped fixture; each is
then its own test item (test_variant[fib-delete-07]), so that a failure names
the variant and shows a minimal reproduction: the bytes around the damage and a
command to rerun it (the variant is kept under the pytest temporary directory).
"""
import concurrent.futures
import os
import pathlib
import random
import re
import signal
import subprocess

import pytest

from conftest import COROC, FULL, TESTS_DIR

SEED_DIR = TESTS_DIR / "robustness"
SEEDS = sorted(SEED_DIR.glob("*.coc"))
TIMEOUT = 5
WORKERS = max(2, min(8, 2 * (os.cpu_count() or 1)))   # coroc mostly waits on the preprocessor

# --------------------------------------------------------------------------
# a rough C tokenizer: enough to damage a program one token at a time
# --------------------------------------------------------------------------

TOKEN_RE = re.compile(rb"""
    (?P<ws>\s+)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<directive>\#[ \t]*[A-Za-z_]\w*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[\w.])*)
  | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|.)
""", re.S | re.X)


def tokenize(data):
    """[(start, end)] of the tokens of data (no white space)."""
    toks = []
    for m in TOKEN_RE.finditer(data):
        if m.lastgroup != "ws":
            toks.append((m.start(), m.end()))
    return toks


INSERTS = [b"yield", b"yield;", b"await", b"coroutine", b"{", b"}", b"(", b")", b";", b",", b"[", b"]",
           b"*", b"=", b"?", b":", b"...", b"->", b"#", b"##", b"#if", b"return", b"case 1:", b"default:",
           b"goto", b"break;", b"static", b"typedef", b"struct", b"int", b"void", b"sizeof", b"@", b"\\",
           b"`", b"$", b"0x", b"1e", b"L", b"__attribute__((", b"_Alignas(", b"switch (", b"do", b"else"]
DIRECTIVES = [b"#if 1", b"#if", b"#ifdef X", b"#else", b"#endif", b"#elif 0", b"#define yield",
              b"#define X {", b"#include", b"#include \"nonexistent.h\"", b"#line 0", b"#line 99999999999",
              b"#pragma once", b"#undef coroutine", b"#error", b"# 1 \"x\"", b"#"]
NONASCII = [b"\xff", b"\x80", b"\xc3", b"\xc3\xa9", b"\xe2\x80\x8b", b"\xef\xbb\xbf", b"\xf0\x9f\x98\x80",
            b"\xc2\xa0", b"\xfe\xfe\xfe"]


class Variants:
    """Deterministic damaged copies of one seed."""

    def __init__(self, name, data):
        self.name = name
        self.data = data
        self.toks = tokenize(data)

    def rng(self, kind):
        return random.Random(f"{self.name}/{kind}")

    # each mutation: (data) -> (new data, offset of the damage, description)

    def delete(self, data, toks, rng):
        s, e = rng.choice(toks)
        return data[:s] + data[e:], s, f"deleted {data[s:e]!r} at byte {s}"

    def duplicate(self, data, toks, rng):
        s, e = rng.choice(toks)
        return data[:e] + b" " + data[s:e] + data[e:], e, f"duplicated {data[s:e]!r} at byte {s}"

    def swap(self, data, toks, rng):
        i = rng.randrange(len(toks))
        j = min(len(toks) - 1, i + 1) if rng.random() < 0.5 else rng.randrange(len(toks))
        if i == j:
            return self.delete(data, toks, rng)
        (a, b), (c, d) = sorted([toks[i], toks[j]])
        new = data[:a] + data[c:d] + data[b:c] + data[a:b] + data[d:]
        return new, a, f"swapped {data[a:b]!r} (byte {a}) and {data[c:d]!r} (byte {c})"

    def insert(self, data, toks, rng):
        if rng.random() < 0.25:
            starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
            at = rng.choice(starts)
            what = rng.choice(DIRECTIVES) + b"\n"
        else:
            at = self._boundary(data, toks, rng)
            what = b" " + rng.choice(INSERTS) + b" "
        return data[:at] + what + data[at:], at, f"inserted {what!r} at byte {at}"

    def nul(self, data, toks, rng):
        at = rng.randrange(len(data) + 1)
        return data[:at] + b"\0" + data[at:], at, f"inserted a NUL byte at byte {at}"

    def nonascii(self, data, toks, rng):
        what = rng.choice(NONASCII)
        at = 0 if what == b"\xef\xbb\xbf" and rng.random() < 0.5 else rng.randrange(len(data) + 1)
        return data[:at] + what + data[at:], at, f"inserted {what!r} at byte {at}"

    def comment(self, data, toks, rng):
        at = self._boundary(data, toks, rng)
        return data[:at] + b"/* " + data[at:], at, f"opened a comment at byte {at}"

    def string(self, data, toks, rng):
        at = self._boundary(data, toks, rng)
        q = rng.choice([b'"', b'"', b"'", b'L"', b"u8\""])
        return data[:at] + q + data[at:], at, f"inserted {q!r} at byte {at}"

    @staticmethod
    def _boundary(data, toks, rng):
        i = rng.randrange(len(toks) + 1)
        return toks[i][0] if i < len(toks) else len(data)

    SINGLE = ["delete", "duplicate", "swap", "insert", "nul", "nonascii", "comment", "string"]

    def all(self, counts):
        out = []
        # truncate at every Nth byte
        step = max(1, len(self.data) // counts["truncate"])
        for at in range(0, len(self.data), step):
            out.append((f"truncate-{at:04d}", self.data[:at], at, f"cut after byte {at}"))
        for kind in self.SINGLE:
            rng = self.rng(kind)
            for n in range(counts[kind]):
                new, at, what = getattr(self, kind)(self.data, self.toks, rng)
                out.append((f"{kind}-{n:02d}", new, at, what))
        rng = self.rng("multi")
        for n in range(counts["multi"]):
            data, whats, at = self.data, [], 0
            for _ in range(3):
                kind = rng.choice(self.SINGLE)
                data, at, what = getattr(self, kind)(data, tokenize(data) or [(0, 0)], rng)
                whats.append(what)
            out.append((f"multi-{n:02d}", data, at, "; then ".join(whats)))
        return out


COUNTS = {"truncate": 40, "delete": 25, "duplicate": 12, "swap": 15, "insert": 45, "nul": 4,
          "nonascii": 12, "comment": 5, "string": 8, "multi": 15}
# The suite makes the first half of each kind (the same ones every run: each
# kind draws from a generator of its own), and tests/run --full all of them;
# the fuzz target (tests/fuzz) goes further than either.
if not FULL:
    COUNTS = {kind: (n + 1) // 2 for kind, n in COUNTS.items()}


STDIN_EVERY = 4      # every 4th variant is also read from standard input (coroc -)


def make_variants():
    seen = set()
    variants = []
    for seed in SEEDS:
        data = seed.read_bytes()
        for vid, new, at, what in Variants(seed.stem, data).all(COUNTS):
            if new in seen or new == data:
                continue
            seen.add(new)
            variants.append((f"{seed.stem}-{vid}", seed, new, at, what))
            if len(seen) % STDIN_EVERY == 0:
                variants.append((f"{seed.stem}-{vid}-stdin", seed, new, at, what))
    return variants


VARIANTS = make_variants()

# --------------------------------------------------------------------------
# running coroc
# --------------------------------------------------------------------------


class Outcome:
    def __init__(self, returncode, stdout, stderr, timed_out):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.timed_out = timed_out


def run_coroc(path, stdin=False):
    """coroc PATH (or coroc - < PATH) with a timeout; on a timeout the whole process group
    (the preprocessor too) is killed."""
    proc = subprocess.Popen([str(COROC), "-" if stdin else path.name], cwd=path.parent,
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(input=path.read_bytes() if stdin else None, timeout=TIMEOUT)
        return Outcome(proc.returncode, out, err, False)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return Outcome(proc.returncode, out, err, True)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, coroc):
    """Every variant, run once: variant id -> (path, Outcome)."""
    base = tmp_path_factory.mktemp("robustness")
    paths = {}
    for vid, seed, data, _, _ in VARIANTS:
        d = base / vid
        d.mkdir()
        path = d / seed.name               # the seed's own name, so that messages look ordinary
        path.write_bytes(data)
        paths[vid] = path
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        results = dict(zip(paths, pool.map(lambda vid: run_coroc(paths[vid], vid.endswith("-stdin")), paths)))
    return {vid: (paths[vid], results[vid]) for vid in paths}


# --------------------------------------------------------------------------
# the checks
# --------------------------------------------------------------------------

DIAG_RE = re.compile(rb"^(.+?):(\d+):(\d+): error: ")
TOOL_RE = re.compile(rb"^coroc: error: ")
QUOTE_RE = re.compile(rb"^ *(\d+) \| ?(.*)$")
CARET_RE = re.compile(rb"^ *\| .*\^")
# The contract's format is for errors. With this True, warnings (and notes) that the
# preprocessor prints before the first error are skipped; the brief asks for the
# first line of standard error to be the error, so it is False.
ALLOW_LEADING_WARNINGS = False
WARNING_RE = re.compile(rb"^(.+?):(\d+):(\d+): (warning|note): |^In file included from |^ +from ")


def show(b, limit=3000):
    s = b.decode("utf-8", "backslashreplace")
    return s if len(s) <= limit else s[:limit] + "\n...(truncated)"


def source_line(path, file, line):
    """Line `line` of the file a diagnostic names (the variant, or a header), or None."""
    if file == b"<stdin>":
        file = path.name.encode()
    f = pathlib.Path(file.decode("utf-8", "surrogateescape"))
    if not f.is_absolute():
        f = path.parent / f
    try:
        lines = f.read_bytes().split(b"\n")
    except OSError:
        return None
    return lines[line - 1] if 1 <= line <= len(lines) else b"<line %d of a %d-line file>" % (line, len(lines))


def problems(path, res):
    """What is wrong with coroc's behaviour on one input; [] when nothing is."""
    if res.timed_out:
        return [f"did not finish within {TIMEOUT} s"]
    if res.returncode < 0:
        return [f"killed by signal {signal.Signals(-res.returncode).name}"]
    found = []
    if res.returncode not in (0, 1):
        found.append(f"exit status {res.returncode}, want 0 or 1")
    if re.search(rb"internal error", res.stderr, re.I):
        found.append("'internal error' on standard error")
    lines = res.stderr.split(b"\n")
    if res.returncode == 0:
        if any(DIAG_RE.match(l) or TOOL_RE.match(l) for l in lines):
            found.append("exit status 0 after printing an error")
    elif res.returncode == 1:
        if res.stdout:
            found.append(f"exit status 1 but {len(res.stdout)} bytes on standard output")
        if ALLOW_LEADING_WARNINGS:
            while lines and (WARNING_RE.match(lines[0]) or QUOTE_RE.match(lines[0]) or CARET_RE.match(lines[0])):
                lines = lines[1:]
        first = lines[0] if lines else b""
        m = DIAG_RE.match(first)
        if m:
            quote = QUOTE_RE.match(lines[1]) if len(lines) > 1 else None
            caret = CARET_RE.match(lines[2]) if len(lines) > 2 else None
            if not quote:
                found.append("the first diagnostic is not followed by the quoted source line")
            elif int(quote.group(1)) != int(m.group(2)):
                found.append(f"the diagnostic is at line {int(m.group(2))} but quotes line {int(quote.group(1))}")
            else:
                want = source_line(path, m.group(1), int(m.group(2)))
                got = quote.group(2)
                if want is not None and got.expandtabs().rstrip() != want.expandtabs().rstrip() \
                        and got.rstrip() != want.rstrip():
                    found.append(f"the quoted line {got!r} is not line {int(m.group(2))} of "
                                 f"{show(m.group(1))}: {want!r}")
            if quote and not caret:
                found.append("the quoted source line is not followed by a caret line")
        elif not TOOL_RE.match(first):
            found.append(f"the first line on standard error is not `FILE:LINE:COL: error: ` "
                         f"or `coroc: error: `: {first!r}")
    return found


def reproduction(vid, path, at, what):
    data = path.read_bytes()
    lo, hi = max(0, at - 60), at + 60
    how = f"{COROC} - < {path.name}" if vid.endswith("-stdin") else f"{COROC} {path.name}"
    return (f"variant {vid}: {what}\n"
            f"around byte {at}: ...{data[lo:hi]!r}...\n"
            f"rerun: cd {path.parent} && {how}")


# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------

def test_seeds_present():
    assert len(SEEDS) >= 3, f"the robustness seeds in {SEED_DIR} are missing"
    assert len(VARIANTS) >= (600 if FULL else 300), f"only {len(VARIANTS)} variants"


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
def test_seed_is_valid(seed, cc, toolchain):
    """The undamaged seeds transform, compile warning-free, and run with exit 0."""
    c_file = toolchain.transform(seed)
    exe = toolchain.compile(c_file, cc)
    res = subprocess.run([str(exe)], capture_output=True, timeout=30)
    assert res.returncode == 0, f"{seed.name} exited {res.returncode}\n{show(res.stdout)}{show(res.stderr)}"


@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
def test_seed_behaves(seed, tmp_path):
    """The checks themselves accept the seeds (so that a variant's failure is the damage's doing)."""
    path = tmp_path / seed.name
    path.write_bytes(seed.read_bytes())
    res = run_coroc(path)
    assert res.returncode == 0, show(res.stderr)
    assert problems(path, res) == []


@pytest.mark.parametrize("vid,at,what", [(v[0], v[3], v[4]) for v in VARIANTS], ids=[v[0] for v in VARIANTS])
def test_variant(outcomes, vid, at, what):
    path, res = outcomes[vid]
    found = problems(path, res)
    assert not found, ("; ".join(found) + "\n" + reproduction(vid, path, at, what)
                       + f"\nexit status {res.returncode}; standard error:\n{show(res.stderr)}")


# A #line directive is C: put in a valid seed, it must not make coroc fail.
# (The damaged variants meet it too, with out-of-range numbers.)
LINE_DIRECTIVES = {
    "number": b"#line 100\n",
    "number-and-name": b"#line 1 \"other.c\"\n",
    "form-feed": b"#\f100\n",          # `# 100` to the preprocessor (found by tests/fuzz)
    "vertical-tab": b"#line\v100\n",
    "same-line": None,          # #line N where N is the line that follows anyway: changes nothing
}


@pytest.mark.parametrize("where", ["top", "before-coroutine", "in-coroutine"])
@pytest.mark.parametrize("kind", LINE_DIRECTIVES.keys())
def test_valid_line_directive(tmp_path, kind, where):
    seed = SEED_DIR / "fib.coc"
    lines = seed.read_bytes().split(b"\n")
    at = {"top": 0,
          "before-coroutine": next(i for i, l in enumerate(lines) if l.startswith(b"coroutine")),
          "in-coroutine": next(i for i, l in enumerate(lines) if l.strip().startswith(b"yield"))}[where]
    directive = LINE_DIRECTIVES[kind] or b"#line %d\n" % (at + 2)   # the number of the line after it
    path = tmp_path / seed.name
    path.write_bytes(b"\n".join(lines[:at]) + (b"\n" if at else b"") + directive + b"\n".join(lines[at:]))
    res = run_coroc(path)
    assert res.returncode == 0, (f"{directive!r} on line {at + 1} of {seed.name}: exit {res.returncode}\n"
                                 f"{show(res.stderr)}rerun: cd {tmp_path} && {COROC} {path.name}")
    assert problems(path, res) == []
