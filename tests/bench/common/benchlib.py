"""tests/bench/common/benchlib.py: what the benchmark's Python parts share (frames.py,
awaits.py, lives.py): running a command or stopping with its error, the processor's
name for every table, and part 1's code-placement flags for every build."""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "bench"


def fail(msg):
    """Stop the part: something it needs could not be built or run."""
    print(f"{SCRIPT}: {msg}", file=sys.stderr)
    sys.exit(1)


def sh(cmd, **kw):
    """Run cmd; its standard output, or fail with its standard error."""
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if res.returncode != 0:
        fail(f"{' '.join(map(str, cmd))} failed:\n{res.stderr}")
    return res.stdout


def processor():
    """The vendor's model name, with the family and model numbers (a virtual
    machine may say only "AMD EPYC"), which every table prints."""
    info = {}
    try:
        for line in open("/proc/cpuinfo"):
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    except OSError:
        return "unknown"
    name = info.get("model name", "unknown")
    if "cpu family" in info and "model" in info:
        name += f" (family {info['cpu family']} model {info['model']})"
    return name


_placement = {}


def placement(cc):
    """The flags that pin code placement, as part 1 builds with them
    (docs/benchmarks.md, "Code placement"): every function starts a 64-byte
    block and no branch crosses a 32-byte boundary, each if cc takes it. Else
    the rows would compare where the linker put each loop: the same generated
    code measured 1.76 and 1.97 ns in two binaries of one run without them."""
    if cc not in _placement:
        flags = []
        for choices in (["-falign-functions=64"],
                        ["-Wa,-mbranches-within-32B-boundaries", "-mbranches-within-32B-boundaries"]):
            for f in choices:   # the first that cc takes (GNU as's option, or clang's own)
                if accepts(cc, [*flags, f]):
                    flags.append(f)
                    break
        _placement[cc] = flags
    return _placement[cc]


def accepts(cc, flags):
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "t.c"
        src.write_text("int main(void) { return 0; }\n")
        res = subprocess.run([cc, *flags, "-x", "c", str(src), "-o", str(Path(d) / "t")],
                             capture_output=True, text=True)
        return res.returncode == 0 and not res.stderr


ROOT = Path(__file__).resolve().parents[3]


def part_arguments(description, lib=True):
    """The options every Python part takes: the coroc and libcoro to measure
    (tests/bench/run builds both; lib=False for a part that only runs coroc)
    and where to build its programs."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--coroc", default=str(ROOT / "build-bench" / "coroc" / "transformer" / "coroc"))
    if lib:
        ap.add_argument("--lib", default=str(ROOT / "build-bench" / "coroc" / "runtime" / "libcoro.a"))
    ap.add_argument("--workdir")
    return ap


def work_directory(args, prefix):
    """args.coroc and args.lib (if the part takes it) made absolute and checked;
    the work directory (--workdir, or a new one named by prefix), made."""
    for name in ("coroc", "lib"):
        if hasattr(args, name):
            setattr(args, name, str(Path(getattr(args, name)).resolve()))
            if not Path(getattr(args, name)).exists():
                fail(f"{getattr(args, name)} not found: build first (tests/bench/run builds it)")
    work = args.workdir or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(work, exist_ok=True)
    return work
