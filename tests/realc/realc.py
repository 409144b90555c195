"""tests/realc/realc.py: the real C code bases that the tests and benchmark part 4
run through coroc, where they come from, and how they are fetched.

They come from the npm registry, the one package registry the CI machine
reaches besides Debian's, in npm packages that bundle them:

  better-sqlite3@13.2.0   SQLite 3.54.1's amalgamation (deps/sqlite3/sqlite3.c,
                          sqlite3.h, sqlite3ext.h) and deps/defines.gypi, the
                          -D options better-sqlite3 builds it with
  lmdb@3.5.6              LMDB 0.9.29 (dependencies/lmdb-data-v1/libraries/
                          liblmdb: mdb.c, midl.c and the mdb_* tools) and
                          lz4 1.10.0 (dependencies/lz4/lib)

Each tarball is pinned by version and by its sha512 (the registry's
dist.integrity, as `npm view NAME@VERSION dist.integrity` prints it): `npm
pack NAME@VERSION` downloads it into the cache, this checks the digest, then
extracts only the files below, each code base into a directory of its own.
A tarball already in the cache with the right digest is not downloaded again.

The cache is $COROC_REALC_CACHE, else $XDG_CACHE_HOME/coroc-realc, else
~/.cache/coroc-realc:

  CACHE/better-sqlite3-13.2.0.tgz, CACHE/lmdb-3.5.6.tgz
  CACHE/sources-<key>/sqlite/  sqlite3.c sqlite3.h sqlite3ext.h defines.gypi
  CACHE/sources-<key>/lmdb/    *.c *.h LICENSE COPYRIGHT
  CACHE/sources-<key>/lz4/     *.c *.h LICENSE
  CACHE/sources-<key>/FETCHED  written last: the pins it was extracted from

where <key> is made of the pins, so that other pins never read stale files.
Standard library only: tests/bench/part4-frontend/frontend.py imports it too.
"""

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path


class Package:
    def __init__(self, name, version, integrity, members):
        self.name = name
        self.version = version
        self.integrity = integrity   # "sha512-<base64>", the registry's dist.integrity
        self.members = members       # directory in the tarball -> (code base, file names)

    @property
    def spec(self):
        return f"{self.name}@{self.version}"

    @property
    def tarball(self):
        return f"{self.name}-{self.version}.tgz"   # what `npm pack` names it (unscoped)


PACKAGES = [
    Package("better-sqlite3", "13.2.0",
            "sha512-Z8Q/9x/uNyKxA1v4FNodyItRVRw1TeKBrmj32JhxhR0ceNcBY+wMobt/Bv7M7TzwPAXjnZRtNaEsATnUZSKWZQ==",
            {"package/deps/sqlite3": ("sqlite", ["sqlite3.c", "sqlite3.h", "sqlite3ext.h"]),
             "package/deps": ("sqlite", ["defines.gypi"])}),
    Package("lmdb", "3.5.6",
            "sha512-j3uE8ReKNyUWDjhfEFSJqE/1DLtfTR5Z8yFzVHvBjAk37wNg7HdScjcv8ttPHRvrdgPQMPWxFFI0SsdBzI5lBw==",
            {"package/dependencies/lmdb-data-v1/libraries/liblmdb":
                 ("lmdb", ["mdb.c", "midl.c", "mdb_copy.c", "mdb_dump.c", "mdb_load.c", "mdb_stat.c",
                           "mtest.c", "mtest2.c", "mtest3.c", "mtest4.c", "mtest5.c", "mtest6.c",
                           "lmdb.h", "midl.h", "LICENSE", "COPYRIGHT"]),
             "package/dependencies/lz4/lib":
                 ("lz4", ["lz4.c", "lz4hc.c", "lz4frame.c", "xxhash.c", "lz4file.c",
                          "lz4.h", "lz4hc.h", "lz4frame.h", "lz4frame_static.h", "xxhash.h", "lz4file.h",
                          "LICENSE"])}),
]

# What each code base is, for the messages and the README.
VERSIONS = {"sqlite": "SQLite 3.54.1", "lmdb": "LMDB 0.9.29", "lz4": "lz4 1.10.0"}


def cache_dir():
    env = os.environ.get("COROC_REALC_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "coroc-realc"


def pins_text():
    return "".join(f"{p.spec} {p.integrity}\n" for p in PACKAGES)


def sources_dir(cache=None):
    """Where the extracted sources of these pins are (whether there or not)."""
    key = hashlib.sha256(pins_text().encode()).hexdigest()[:12]
    return (cache or cache_dir()) / f"sources-{key}"


def fetched(cache=None):
    """The directory of the sources if a complete extraction of these pins
    is there, else None."""
    d = sources_dir(cache)
    stamp = d / "FETCHED"
    try:
        return d if stamp.read_text() == pins_text() else None
    except OSError:
        return None


class FetchError(Exception):
    pass


def digest_of(path):
    h = hashlib.sha512()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return "sha512-" + base64.b64encode(h.digest()).decode()


def get_tarball(pkg, cache, log):
    """The verified tarball of pkg in cache: there already, or from `npm pack`."""
    path = cache / pkg.tarball
    if path.exists():
        if digest_of(path) == pkg.integrity:
            log(f"{pkg.tarball}: in the cache, sha512 checked")
            return path
        log(f"{pkg.tarball}: in the cache with another sha512: downloading it again")
        path.unlink()
    npm = shutil.which("npm")
    if not npm:
        raise FetchError("npm not found (on Debian: apt-get install -y npm)")
    with tempfile.TemporaryDirectory(dir=cache, prefix="npm-pack-") as tmp:
        # A registry spec: npm pack only downloads the tarball (no scripts run).
        res = subprocess.run([npm, "pack", "--silent", "--ignore-scripts", pkg.spec], cwd=tmp,
                             capture_output=True, text=True, timeout=600)
        got = Path(tmp) / pkg.tarball
        if res.returncode != 0 or not got.exists():
            raise FetchError(f"npm pack {pkg.spec} failed (exit {res.returncode}):\n{res.stderr.strip()}")
        digest = digest_of(got)
        if digest != pkg.integrity:
            raise FetchError(f"{pkg.tarball}: sha512 is {digest}, the pin is {pkg.integrity}")
        os.replace(got, path)
    log(f"{pkg.tarball}: downloaded by npm pack, sha512 checked ({path.stat().st_size} bytes)")
    return path


def extract(pkg, tarball, dest, log):
    """Only the listed files, each into dest/<code base>/<name>."""
    wanted = {f"{d}/{name}": (base, name) for d, (base, names) in pkg.members.items() for name in names}
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            if member.name in wanted and member.isfile():
                base, name = wanted.pop(member.name)
                (dest / base).mkdir(parents=True, exist_ok=True)
                with tar.extractfile(member) as src, open(dest / base / name, "wb") as out:
                    shutil.copyfileobj(src, out)
    if wanted:
        raise FetchError(f"{pkg.tarball} lacks {', '.join(sorted(wanted))}")
    counts = {}
    for base, names in pkg.members.values():
        counts[base] = counts.get(base, 0) + len(names)
    log(f"{pkg.spec}: extracted " + ", ".join(f"{base}/ ({n} files)" for base, n in counts.items()))


def fetch(cache=None, log=print):
    """Download (if needed), verify and extract every package; the directory
    of the sources. Raises FetchError if it cannot."""
    cache = cache or cache_dir()
    done = fetched(cache)
    if done:
        log(f"already fetched: {done}")
        return done
    cache.mkdir(parents=True, exist_ok=True)
    dest = sources_dir(cache)
    tmp = Path(tempfile.mkdtemp(dir=cache, prefix="extract-"))
    try:
        for pkg in PACKAGES:
            extract(pkg, get_tarball(pkg, cache, log), tmp, log)
        (tmp / "FETCHED").write_text(pins_text())
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log(f"sources in {dest}")
    return dest


# {==================================================================
# What the tests and the benchmark build from them
# ===================================================================

def sqlite_defines(src):
    """The -D options of better-sqlite3's build of SQLite (its defines.gypi,
    a list of 'NAME' or 'NAME=VALUE' strings)."""
    import re
    text = (src / "sqlite" / "defines.gypi").read_text()
    body = text[text.index("'defines'"):]
    return ["-D" + d for d in re.findall(r"'([A-Z_][A-Z0-9_]*(?:=[^']*)?)'", body)]


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="tests/realc/fetch", description=(
        "Fetch the real C code bases of tests/test_realc.py and benchmark part 4 from the npm "
        "registry (npm pack), check their pinned sha512 and extract their C sources."))
    ap.add_argument("--cache", type=Path, help="the cache directory (default: $COROC_REALC_CACHE, "
                                               "$XDG_CACHE_HOME/coroc-realc or ~/.cache/coroc-realc)")
    ap.add_argument("--print-dir", action="store_true",
                    help="print only the directory of the sources if they are fetched (exit 1 if not)")
    args = ap.parse_args(argv)
    if args.print_dir:
        d = fetched(args.cache)
        if d:
            print(d)
        return 0 if d else 1
    try:
        fetch(args.cache, log=lambda m: print(f"fetch: {m}"))
    except (FetchError, OSError, subprocess.SubprocessError) as e:
        print(f"tests/realc/fetch: {e}", file=sys.stderr)
        return 1
    return 0
