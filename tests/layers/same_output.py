#!/usr/bin/python3
"""Two builds of coroc, the same output: the check of a refactoring.

A change that only moves code (tests/layers/layers.txt's map, a file split in
two) must change nothing coroc prints. This runs an OLD and a NEW coroc on
every input the tree has, in every mode that prints something of its own,
and compares what each printed (standard output, standard error, exit
status, and the files it wrote):

  inputs   every .coc of the tree (examples/, tests/, tutorial/, docs/listings/),
           tests/corpus/*.c, the fuzz corpus and regressions, and the real C
           code bases of tests/realc when they are fetched
  modes    --backend=stackless, --backend=stackful, --hoist-all, --no-line,
           --dot, --stats (with --all: it compiles), and -o OUT.c --header
           -MD and -o OUT.c -MD for each backend (the header and the
           depfile compared too)

    tests/layers/same_output.py OLD-COROC NEW-COROC [--all] [--jobs N]

Both must be built from trees whose runtime/include is the same (coroc finds
coro.h beside itself or where it was built, and a depfile names it). Exit
status 0 when every run matched; each difference is printed.
"""
import argparse
import concurrent.futures
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "realc"))

MODES = [
    ["--backend=stackless"],
    ["--backend=stackful"],
    ["--backend=stackless", "--hoist-all"],
    ["--backend=stackless", "--no-line"],
    ["--dot"],
]
# Modes that write files beside OUT.c: the header and the depfile; and the
# depfile alone, where the C is written as it is made (transformer/stream.c).
FILE_MODES = [
    ["--backend=stackless", "--header", "-MD"],
    ["--backend=stackful", "--header", "-MD"],
    ["--backend=stackless", "-o", "out.c", "-MD"],
    ["--backend=stackful", "-o", "out.c", "-MD"],
]


def inputs():
    """Every file coroc is run on, as paths relative to ROOT where they are in the tree."""
    skip = {"build", ".git"}
    found = []
    for path in sorted(ROOT.rglob("*.coc")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in skip or rel.parts[0].startswith("build"):
            continue
        found.append(path)
    found += sorted((ROOT / "tests" / "corpus").glob("*.c"))
    for d in ["corpus", "regressions"]:
        found += sorted(p for p in (ROOT / "tests" / "fuzz" / d).glob("*") if p.is_file())
    try:
        import realc
        if realc.fetched():
            src = realc.sources_dir()
            found += sorted(src.glob("*/*.c"))
    except Exception:  # no tests/realc, or not fetched: the tree's own inputs only
        pass
    return found


def run(coroc, args, src, workdir):
    """One run in an empty directory at a fixed path: (status, stdout, stderr, files)."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    env = dict(os.environ, COROC_CHECK_EMIT="1")
    try:
        proc = subprocess.run([coroc, *args, str(src)], capture_output=True, cwd=workdir, env=env,
                              timeout=300)
        result = (proc.returncode, proc.stdout, proc.stderr)
    except subprocess.TimeoutExpired:
        result = ("timeout", b"", b"")
    files = {p.name: p.read_bytes() for p in sorted(workdir.iterdir()) if p.is_file()}
    return result + (files,)


def compare(old, new, src, modes, slots):
    """The differences for one input, as lines of text."""
    out = []
    slot = slots.get()  # a directory no other run uses now
    scratch = slot / "run"
    for args in modes:
        if "--header" in args:
            args = args[:1] + ["-o", "out.c", "--header=out.h", "-MD"]
        a = run(old, args, src, scratch)
        b = run(new, args, src, scratch)
        if a != b:
            what = [name for name, x, y in zip(["status", "stdout", "stderr", "files"], a, b) if x != y]
            out.append(f"{src}: {' '.join(args)}: differs in {', '.join(what)}")
    slots.put(slot)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=pathlib.Path)
    ap.add_argument("new", type=pathlib.Path)
    ap.add_argument("--all", action="store_true", help="--stats too (it runs the compiler)")
    ap.add_argument("--jobs", type=int, default=2)
    opts = ap.parse_args()
    modes = MODES + FILE_MODES + ([["--stats"], ["--backend=stackful", "--stats"]] if opts.all else [])
    files = inputs()
    base = pathlib.Path(tempfile.mkdtemp(prefix="same-output-"))
    diffs, runs = [], 0
    try:
        with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
            # the old and the new coroc run on an input in the same directory, one
            # that no other run uses meanwhile
            slots = queue.Queue()
            for i in range(opts.jobs):
                slots.put(base / f"w{i}")
            jobs = [pool.submit(compare, opts.old.resolve(), opts.new.resolve(), f, modes, slots)
                    for f in files]
            for job in jobs:
                diffs += job.result()
                runs += 2 * len(modes)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for d in diffs:
        print(d)
    print(f"same_output: {len(files)} inputs, {runs} runs, {len(diffs)} differences")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
