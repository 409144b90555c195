"""Where tests/editors/fetch puts the npm packages that tests/test_editors.py
tokenizes the VS Code grammar with, and how it gets them.

The versions are pinned, with their sha512, by package-lock.json beside this
file, and `npm ci` installs exactly those. They go to a cache outside the
tree, $COROC_EDITORS_NPM, else $XDG_CACHE_HOME/coroc-editors, else
~/.cache/coroc-editors, in a folder named after the lock file's digest, so
that a change of pins never reads the packages of the last ones.
"""
import hashlib
import os
import pathlib
import shutil
import subprocess

HERE = pathlib.Path(__file__).resolve().parent
LOCK = HERE / "package-lock.json"
MANIFEST = HERE / "package.json"


def cache_root():
    if os.environ.get("COROC_EDITORS_NPM"):
        return pathlib.Path(os.environ["COROC_EDITORS_NPM"])
    xdg = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(xdg) / "coroc-editors"


def install_dir():
    key = hashlib.sha256(LOCK.read_bytes() + MANIFEST.read_bytes()).hexdigest()[:16]
    return cache_root() / f"npm-{key}"


def node_modules():
    """The installed node_modules, or None if fetch has not run for these pins."""
    done = install_dir() / "node_modules" / ".package-lock.json"
    return done.parent if done.is_file() else None


def fetch():
    """npm ci the pinned packages into install_dir(); return its node_modules."""
    if node_modules():
        return node_modules()
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("fetch: npm is missing (on Debian: apt-get install -y npm)")
    target = install_dir()
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(MANIFEST, target / "package.json")
    shutil.copy(LOCK, target / "package-lock.json")
    subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=target, check=True)
    return node_modules()
